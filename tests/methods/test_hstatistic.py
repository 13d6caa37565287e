"""Friedman's H-statistic: closed forms, a plain numpy reference, exact tree paths vs brute force,
exact zeros for unused features, the guards and bad input."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from ixplain import HStatistic, HStatisticDisplay, h_statistic
from ixplain.tree import data_pd

sklearn_ensemble = pytest.importorskip("sklearn.ensemble")
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.tree import DecisionTreeRegressor  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def _product(*levels):
    return np.array(list(itertools.product(*levels)), dtype=np.float64)


def _truth(X):
    return X[:, 0] * X[:, 1] + X[:, 2]


def _data(n=120, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + 0.5 * X[:, 1] * X[:, 2]
    return X, y


# ----------------------------------------------------------------------------- closed form
@pytest.mark.parametrize("x2_levels", [[-1.0, 1.0], [-2.0, -1.0, 0.0, 1.0, 2.0]])
def test_closed_form_product_design(x2_levels):
    """f = x0 x1 + x2 on a full factorial design of centred levels (x0, x1 in {-1, 1}).

    The empirical distribution is a product of centred marginals, so the empirical PDs are the
    population ones: F_0 = F_1 = 0, F_2 = x2, F_01 = x0 x1, F_02 = F_12 = x2, F_{-0} = F_{-1} = x2,
    F_{-2} = x0 x1. Hence H^2_01 = E[(x0x1)^2] / E[(x0x1)^2] = 1, H^2_02 = H^2_12 = 0, the
    unnormalised pair (0, 1) is E[(x0 x1)^2] = 1, and overall H^2_0 = H^2_1 = 1 / (1 + Var x2),
    H^2_2 = 0 (Var x2 = 1 for {-1, 1}, 2 for {-2, ..., 2}).
    """
    X = _product([-1.0, 1.0], [-1.0, 1.0], x2_levels)
    var2 = float(np.mean(np.square(x2_levels)))
    h = h_statistic(_truth, X, pairs=[(0, 1), (0, 2), (1, 2)])
    assert h.settings["method"] == "brute"
    np.testing.assert_allclose(h.pairwise_h2[0, 0, 1], 1.0, atol=1e-12)
    assert h.pairwise_h2[0, 0, 2] == 0.0 and h.pairwise_h2[0, 1, 2] == 0.0
    np.testing.assert_allclose(h.pairwise_unnormalized[0, 0, 1], 1.0, atol=1e-12)
    np.testing.assert_allclose(h.overall_h2[0], [1 / (1 + var2), 1 / (1 + var2), 0.0], atol=1e-12)
    assert h.overall_h2[0, 2] == 0.0
    np.testing.assert_allclose(h.prediction_variance, [1.0 + var2], atol=1e-12)


def test_closed_form_through_the_trees():
    """A tree that fits the 8 design points exactly has the same PDs at the data points (every
    point PD evaluates is a design point), so the tree method gives the same closed form."""
    X = _product([-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0])
    tree = DecisionTreeRegressor(random_state=0).fit(X, _truth(X))
    h = h_statistic(tree, X, pairs=[(0, 1), (0, 2), (1, 2)])
    assert h.settings["method"] == "tree"
    np.testing.assert_allclose(h.pairwise_h2[0, 0, 1], 1.0, atol=1e-12)
    assert h.pairwise_h2[0, 0, 2] == 0.0 and h.pairwise_h2[0, 1, 2] == 0.0
    np.testing.assert_allclose(h.overall_h2[0], [0.5, 0.5, 0.0], atol=1e-12)


# ----------------------------------------------------------------------------- plain reference
def _reference(predict, X, w, pairs):
    """The definitions written out: n^2 predictions per feature and pair, plain loops."""
    n, d = X.shape
    W = w.sum()

    def centre(v):
        return v - w @ v / W

    def pd_at_points(S):  # PD_S(x_{i,S}) = mean_r f(x_{i,S}, x_{r,-S})
        out = np.empty(n)
        for i in range(n):
            Z = X.copy()
            Z[:, S] = X[i, S]
            out[i] = w @ predict(Z) / W
        return centre(out)

    def pd_rest(j):  # PD_{-j}(x_{i,-j}) = mean_r f(x_{i,-j}, x_{r,j})
        out = np.empty(n)
        for i in range(n):
            Z = np.repeat(X[i : i + 1], n, axis=0)
            Z[:, j] = X[:, j]
            out[i] = w @ predict(Z) / W
        return centre(out)

    F = centre(predict(X))
    var = w @ F**2 / W
    main = [pd_at_points([j]) for j in range(d)]
    overall = np.array([w @ (F - main[j] - pd_rest(j)) ** 2 / W for j in range(d)])
    pair_num, pair_h2 = {}, {}
    for j, k in pairs:
        Fjk = pd_at_points([j, k])
        pair_num[j, k] = w @ (Fjk - main[j] - main[k]) ** 2 / W
        pair_h2[j, k] = pair_num[j, k] / (w @ Fjk**2 / W)
    return overall / var, overall, pair_h2, pair_num


def _assert_matches_reference(h, ref, atol):
    overall_h2, overall_num, pair_h2, pair_num = ref
    np.testing.assert_allclose(h.overall_h2[0], overall_h2, rtol=0, atol=atol)
    np.testing.assert_allclose(h.overall_unnormalized[0], overall_num, rtol=0, atol=atol)
    for (j, k), v in pair_h2.items():
        np.testing.assert_allclose(h.pairwise_h2[0, j, k], v, rtol=0, atol=atol)
        np.testing.assert_allclose(h.pairwise_unnormalized[0, j, k], pair_num[j, k], rtol=0,
                                   atol=atol)


def test_brute_equals_plain_reference_weighted():
    X, _ = _data(n=50, d=4, seed=1)
    w = np.random.default_rng(2).uniform(0.2, 3.0, size=50)

    def f(Z):
        return np.tanh(Z[:, 0] * Z[:, 1]) + Z[:, 2] ** 2 + 0.3 * Z[:, 1] * Z[:, 2] * Z[:, 3]

    pairs = list(itertools.combinations(range(4), 2))
    h = h_statistic(f, X, pairs=pairs, sample_weight=w)
    _assert_matches_reference(h, _reference(f, X, w, pairs), 1e-12)


def test_tree_equals_plain_reference():
    X, y = _data(n=50, d=3, seed=3)
    forest = sklearn_ensemble.RandomForestRegressor(n_estimators=10, random_state=0).fit(X, y)
    pairs = [(0, 1), (0, 2), (1, 2)]
    h = h_statistic(forest, X, pairs=pairs)
    assert h.settings["method"] == "tree"
    _assert_matches_reference(h, _reference(forest.predict, X, np.ones(50), pairs), 1e-12)


# ----------------------------------------------------------------------------- tree vs brute
def _models():
    X, y = _data(n=80)
    yc = (y > np.median(y)).astype(int)
    y3 = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    ens = sklearn_ensemble
    models = {
        "random_forest": (ens.RandomForestRegressor(n_estimators=8, random_state=0), y),
        "extra_trees": (ens.ExtraTreesRegressor(n_estimators=8, random_state=0), y),
        "gradient_boosting": (ens.GradientBoostingRegressor(n_estimators=20, random_state=0), y),
        "hgb": (ens.HistGradientBoostingRegressor(max_iter=20, random_state=0), y),
        "hgb_classifier": (ens.HistGradientBoostingClassifier(max_iter=15, random_state=0), yc),
        "forest_multiclass": (ens.RandomForestClassifier(n_estimators=6, random_state=0), y3),
    }
    return X, models


@pytest.mark.parametrize("name", ["random_forest", "extra_trees", "gradient_boosting", "hgb",
                                  "hgb_classifier", "forest_multiclass"])
def test_tree_equals_brute_sklearn(name):
    X, models = _models()
    model, target = models[name]
    model.fit(X, target)
    w = np.random.default_rng(5).uniform(0.5, 2.0, size=len(X))
    kw = dict(pairwise_m=4, sample_weight=w)
    tree = h_statistic(model, X, method="tree", **kw)
    brute = h_statistic(model, X, method="brute", n_max=None, **kw)
    _assert_same(tree, brute, 1e-9)
    if name == "forest_multiclass":
        assert tree.overall_h2.shape == (3, 4) and tree.output_names == ["0", "1", "2"]


def _assert_same(a, b, atol):
    assert a.pairs == b.pairs and a.pairs
    for attr in ("overall_h2", "overall_unnormalized", "pairwise_h2", "pairwise_unnormalized",
                 "prediction_variance"):
        np.testing.assert_allclose(getattr(a, attr), getattr(b, attr), rtol=0, atol=atol,
                                   err_msg=attr)


def test_tree_equals_brute_lightgbm():
    lgb = pytest.importorskip("lightgbm")
    X, y = _data(n=80)
    model = lgb.LGBMRegressor(n_estimators=20, num_leaves=8, verbose=-1, n_jobs=1).fit(X, y)
    tree = h_statistic(model, X, method="tree", pairwise_m=4)
    brute = h_statistic(model, X, method="brute", n_max=None, pairwise_m=4)
    _assert_same(tree, brute, 1e-9)


def test_tree_equals_brute_xgboost():
    """XGBoost predicts in float32: brute values carry float32 rounding (~1e-7 relative)."""
    xgb = pytest.importorskip("xgboost")
    X, y = _data(n=80)
    model = xgb.XGBRegressor(n_estimators=20, max_depth=3, n_jobs=1).fit(X, y)
    tree = h_statistic(model, X, method="tree", pairwise_m=4)
    brute = h_statistic(model, X, method="brute", n_max=None, pairwise_m=4)
    _assert_same(tree, brute, 1e-5)


def test_tree_equals_brute_categorical_and_missing():
    """Categorical splits and NaN go through the mask grids (no piece merging)."""
    rng = np.random.default_rng(7)
    X = np.column_stack([rng.integers(0, 5, 150), rng.normal(size=150), rng.normal(size=150)])
    X[rng.random(150) < 0.1, 1] = np.nan
    y = (X[:, 0] == 2) * np.nan_to_num(X[:, 1]) + X[:, 2]
    model = sklearn_ensemble.HistGradientBoostingRegressor(
        max_iter=20, categorical_features=[0], random_state=0).fit(X, y)
    tree = h_statistic(model, X, method="tree")
    brute = h_statistic(model, X, method="brute", n_max=None)
    _assert_same(tree, brute, 1e-9)


def test_tree_blocks_equal_one_pass(monkeypatch):
    """Small memory budgets (row chunks, grid blocks with clipped boxes) change nothing."""
    X, models = _models()
    for name in ("random_forest", "hgb_classifier"):
        model, target = models[name]
        model.fit(X, target)
        full = h_statistic(model, X, pairwise_m=4)
        monkeypatch.setattr(data_pd, "_DIFF_BUDGET", 2_000)
        small = h_statistic(model, X, pairwise_m=4)
        monkeypatch.undo()
        _assert_same(full, small, 1e-12)


@pytest.mark.parametrize("name", ["hgb_classifier", "random_forest"])
def test_numpy_and_numba_engines_agree(name):
    """Both links (the classifier's sigmoid builds the ICE matrix; the forest's identity link
    sums per-leaf masses along the walk) give the same values with both engines."""
    pytest.importorskip("numba")
    from ixplain.models import as_model
    from ixplain.tabular import as_table

    X, models = _models()
    model, target = models[name]
    model.fit(X, target)
    adapter, table = as_model(model), as_table(X)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=len(X))
    fast, plain = (data_pd.data_pd_plan(adapter, table, w, e) for e in ("numba", "numpy"))
    for a, b in zip(fast.one_way("x1"), plain.one_way("x1")):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast.two_way("x0", "x2"), plain.two_way("x0", "x2"), atol=1e-12)


# ----------------------------------------------------------------------------- guards
def test_unused_features_are_exactly_zero():
    """x3 is constant during training (no split can use it) and varies in the explained data;
    x2 is ignored by the callable. Both get exact zeros, overall and in every pair."""
    X, y = _data(n=100, d=4)
    train = X.copy()
    train[:, 3] = 0.0
    forest = sklearn_ensemble.RandomForestRegressor(n_estimators=10, random_state=0)
    forest.fit(train, y)
    pairs = list(itertools.combinations(range(4), 2))
    for model, unused in ((forest, [3]), (lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 3], [2])):
        h = h_statistic(model, X, pairs=pairs)
        for j in unused:
            assert h.overall_h2[0, j] == 0.0 and h.overall_unnormalized[0, j] == 0.0
            for k in range(4):
                if k != j:
                    assert h.pairwise_h2[0, j, k] == 0.0
                    assert h.pairwise_unnormalized[0, j, k] == 0.0


def test_flat_joint_effect_is_zero_not_noise():
    """Two features with no effect at all: the pair ratio would be 0/0; it is 0."""
    X = _data(n=60, d=3)[0]
    h = h_statistic(lambda Z: Z[:, 0] + 0.0 * Z[:, 1] * Z[:, 2], X, pairs=[(1, 2)])
    assert h.pairwise_h2[0, 1, 2] == 0.0


def test_additive_model_has_zero_interactions():
    """A linear model is additive: every numerator is rounding noise, zeroed by eps."""
    X, y = _data(n=80, d=4)
    lin = LinearRegression().fit(X, y)
    h = h_statistic(lin, X, pairs=list(itertools.combinations(range(4), 2)))
    assert np.all(h.overall_h2 == 0.0)
    assert np.all(h.pairwise_h2[~np.isnan(h.pairwise_h2)] == 0.0)
    loose = h_statistic(lin, X, eps=0.0, pairwise_m=0)
    assert loose.overall_unnormalized.max() < 1e-20


# ----------------------------------------------------------------------------- options
def test_pairwise_m_picks_the_strongest_features():
    X, _ = _data(n=60, d=5)
    f = lambda Z: Z[:, 0] * Z[:, 1] + 0.5 * Z[:, 2] * Z[:, 3] + Z[:, 4]  # noqa: E731
    h = h_statistic(f, X, pairwise_m=2)
    assert h.pairs == [(0, 1)]
    assert np.isnan(h.pairwise_h2[0, 2, 3]) and not np.isnan(h.pairwise_h2[0, 1, 0])
    assert h_statistic(f, X, pairwise_m=0).pairs == []
    assert h_statistic(f, X, pairwise_m=10).pairs == list(itertools.combinations(range(4), 2))


def test_integer_weights_equal_repeated_rows():
    X, _ = _data(n=30, d=3)
    f = lambda Z: np.sin(Z[:, 0] * Z[:, 1]) + Z[:, 2] * Z[:, 0]  # noqa: E731
    w = np.random.default_rng(0).integers(1, 4, size=30)
    a = h_statistic(f, X, sample_weight=w, pairwise_m=3)
    b = h_statistic(f, np.repeat(X, w, axis=0), pairwise_m=3)
    _assert_same(a, b, 1e-12)


def test_n_max_subsample_is_seeded():
    X, y = _data(n=400, d=3)
    forest = sklearn_ensemble.RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    a = h_statistic(forest, X, n_max=100, random_state=3)
    b = h_statistic(forest, X, n_max=100, random_state=3)
    c = h_statistic(forest, X, n_max=100, random_state=4)
    assert a.settings["n_rows"] == 100 and a.settings["subsampled"]
    np.testing.assert_array_equal(a.overall_h2, b.overall_h2)
    assert not np.array_equal(a.overall_h2, c.overall_h2)
    brute = h_statistic(forest, X, method="brute", random_state=3)
    assert brute.settings["n_rows"] == 300  # hstats' default for brute force
    assert h_statistic(forest, X).settings["n_rows"] == 400  # tree default: up to 5,000 rows


def test_pandas_categorical_input_brute():
    """A DataFrame with a string column and a callable: the grid is the observed categories."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=40), "c": rng.choice(["u", "v", "w"], 40),
                       "b": rng.normal(size=40)})

    def f(frame):
        return frame["a"].to_numpy() * (frame["c"].to_numpy() == "u") + frame["b"].to_numpy()

    h = h_statistic(f, df, pairs=[("a", "c"), ("a", "b")])
    assert h.pairwise_h2[0, 0, 1] > 0.1 and h.pairwise_h2[0, 0, 2] == 0.0


# ----------------------------------------------------------------------------- result, plot
def test_result_views_and_serialisation():
    X = _product([-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0])
    h = h_statistic(_truth, X, pairs=[(0, 1), (1, 2)], normalize=False, squared=False)
    np.testing.assert_allclose(h.overall, np.sqrt(h.overall_unnormalized))
    assert h.description == "H (unnormalized)"
    frame = h.to_frame()
    assert list(frame.columns) == ["output", "feature_i", "feature_j", "h2", "unnormalized",
                                   "value"]
    assert len(frame) == 3 + 2 and frame["feature_j"].isna().sum() == 3
    assert list(h.to_frame(output=0).columns)[0] == "feature_i"
    json.dumps(h.to_dict())
    np.testing.assert_allclose(h.with_statistic().overall, h.overall_h2)
    assert isinstance(h, HStatistic) and "pairs" in repr(h)


def test_display_kinds():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X = _product([-1.0, 1.0], [-1.0, 1.0], [-1.0, 0.0, 1.0])
    disp = HStatisticDisplay.from_estimator(_truth, X, pairwise_m=3)
    assert disp.bars_ is not None and disp.image_ is not None and len(disp.axes_) == 2
    assert disp.features_ == ["x0", "x1"]
    _, ax = plt.subplots()
    only = HStatisticDisplay.from_result(h_statistic(_truth, X, pairwise_m=0), ax=ax,
                                         kind="pairwise")
    assert only.image_ is None and only.axes_ == [ax]
    with pytest.raises(ValueError, match="'kind' parameter of HStatisticDisplay.plot"):
        disp.plot(kind="pie")
    with pytest.raises(ValueError, match="'ax' parameter"):
        disp.plot(ax=ax)
    plt.close("all")


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"method": "exact"}, ValueError, "'method' parameter of h_statistic must be one of"),
        ({"n_max": 1}, ValueError, "'n_max' parameter of h_statistic must be an int >= 2"),
        ({"n_max": 2.5}, TypeError, "'n_max' parameter"),
        ({"pairwise_m": -1}, ValueError, "'pairwise_m' parameter of h_statistic"),
        ({"eps": -1.0}, ValueError, "'eps' parameter of h_statistic"),
        ({"features": ["x0", "nope"]}, ValueError, "unknown feature 'nope'"),
        ({"features": [0]}, ValueError, "at least two features"),
        ({"features": [0, 0]}, ValueError, "distinct features"),
        ({"features": [0, 9]}, ValueError, r"column positions in \[0, 3\)"),
        ({"pairs": [(0, 0)]}, ValueError, "pairs of two distinct features"),
        ({"pairs": ["x0"]}, ValueError, "a sequence of pairs"),
        ({"pairs": [(0, 2)], "features": [0, 1]}, ValueError, "pairs of two distinct"),
        ({"sample_weight": np.ones(3)}, ValueError, "'sample_weight' parameter"),
        ({"sample_weight": -np.ones(8)}, ValueError, "'sample_weight' parameter"),
        ({"normalize": "yes"}, TypeError, "'normalize' parameter"),
        ({"method": "tree"}, ValueError, "method='tree' cannot explain this model"),
    ],
)
def test_bad_input(kwargs, exc, match):
    X = _product([-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0])
    with pytest.raises(exc, match=match):
        h_statistic(_truth, X, **kwargs)


def test_bad_data_and_model():
    with pytest.raises(ValueError, match="empty data"):
        h_statistic(_truth, np.empty((0, 3)))
    X, y = _data(n=40, d=3)
    labels = np.where(y > 0, "hi", "lo")
    clf = DecisionTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match="non-numeric values"):
        h_statistic(lambda Z: np.where(clf.predict(Z) > 0, "hi", "lo"), X, method="brute")
    assert labels.dtype.kind == "U"
    with pytest.raises(TypeError, match="'model' parameter of h_statistic"):
        h_statistic(object(), X)


def test_fine_pair_grids_of_a_link_model_use_stacked_calls(monkeypatch):
    """A boosted classifier (sigmoid link) whose pair grid exceeds the per-row budget: the pair
    goes through model calls and still equals brute force."""
    from ixplain.methods import hstatistic

    X, models = _models()
    model, target = models["hgb_classifier"]
    model.fit(X, target)
    monkeypatch.setattr(hstatistic, "_LINK_GRID_MAX", 10)
    tree = h_statistic(model, X, pairs=[(0, 1), (1, 2)])
    monkeypatch.undo()
    brute = h_statistic(model, X, pairs=[(0, 1), (1, 2)], method="brute", n_max=None)
    assert tree.settings["method"] == "tree"
    _assert_same(tree, brute, 1e-9)


def test_column_order_does_not_matter():
    X, y = _data(n=80, d=4)
    perm = [2, 0, 3, 1]
    forest = sklearn_ensemble.RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    a = h_statistic(forest, X, pairwise_m=4)
    f = lambda Z: forest.predict(Z[:, np.argsort(perm)])  # noqa: E731
    b = h_statistic(f, X[:, perm], pairwise_m=4, n_max=None)
    np.testing.assert_allclose(b.overall_h2[0], a.overall_h2[0, perm], atol=1e-12)
    np.testing.assert_allclose(b.pairwise_h2[0], a.pairwise_h2[0][np.ix_(perm, perm)], atol=1e-12)


def test_h_statistic_refuses_a_single_row():
    """One row gave all-zero H^2 with no warning although n_max is documented as >= 2."""
    X = np.array([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="h_statistic needs at least 2 rows .*got 1 row"):
        h_statistic(lambda A: A[:, 0] * A[:, 1], X)
    grid = np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]])
    h = h_statistic(lambda A: A[:, 0] * A[:, 1], grid)  # PD_j = 0: all of f is interaction
    np.testing.assert_allclose(h.overall_h2, [[1.0, 1.0]])
