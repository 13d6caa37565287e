"""partial_dependence: parity with scikit-learn's brute method, plain brute-force references,
identities, the recursion method, and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestRegressor,
)
from sklearn.inspection import partial_dependence as sk_partial_dependence
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeRegressor

from ixplain import ModelEvaluationError, PartialDependence, partial_dependence
from ixplain.models import CALL_ROWS

TOL = 1e-10


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    # OpenMP models (HistGradientBoosting) crawl when their threads compete on a busy machine.
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


# ------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def numeric_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    y = X[:, 0] ** 2 + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=80)
    return X, y


@pytest.fixture(scope="module")
def mixed_frame():
    rng = np.random.default_rng(1)
    n = 90
    df = pd.DataFrame(
        {
            "num": rng.normal(size=n),
            "city": rng.choice(["paris", "rome", "oslo"], size=n),
            "size": pd.Categorical(rng.choice(["S", "M", "L"], size=n)),
            "w": rng.uniform(0, 1, size=n),
        }
    )
    y = df["num"] * (df["city"] == "rome") + df["w"] + (df["size"] == "L") + rng.normal(size=n) * 0.1
    return df, y.to_numpy()


def _pipeline(regressor):
    ct = ColumnTransformer(
        [("cat", OneHotEncoder(handle_unknown="ignore"), ["city", "size"])],
        remainder=StandardScaler(),
    )
    return make_pipeline(ct, regressor)


def assert_parity(est, X, features, **kwargs):
    """ixplain (brute) and scikit-learn (brute) agree on grid, average and individual."""
    sk = sk_partial_dependence(est, X, features, method="brute", kind="both", **kwargs)
    ix = partial_dependence(est, X, features, method="brute", kind="both", **kwargs)
    assert isinstance(ix, PartialDependence)
    assert len(sk["grid_values"]) == len(ix["grid_values"])
    for a, b in zip(sk["grid_values"], ix["grid_values"]):
        assert len(a) == len(b)
        assert list(a) == list(b)
    assert sk["average"].shape == ix["average"].shape
    assert sk["individual"].shape == ix["individual"].shape
    assert np.abs(sk["average"] - ix["average"]).max() <= TOL
    assert np.abs(sk["individual"] - ix["individual"]).max() <= TOL
    return sk, ix


# ------------------------------------------------------------------------------------ parity
@pytest.mark.parametrize("features", [[0], [2], [0, 1], (1, 3)])
def test_parity_regressor(numeric_data, features):
    X, y = numeric_data
    est = HistGradientBoostingRegressor(max_iter=15, random_state=0).fit(X, y)
    assert_parity(est, X, list(features), grid_resolution=12)


def test_parity_lightgbm_xgboost(numeric_data):
    lightgbm = pytest.importorskip("lightgbm")
    xgboost = pytest.importorskip("xgboost")
    X, y = numeric_data
    reg = lightgbm.LGBMRegressor(n_estimators=10, min_child_samples=5, verbose=-1).fit(X, y)
    assert_parity(reg, X, [0, 1], grid_resolution=6)
    clf = xgboost.XGBClassifier(n_estimators=10, max_depth=3).fit(X, (y > 0).astype(int))
    sk = sk_partial_dependence(clf, X, [2], method="brute", kind="both", grid_resolution=6)
    ix = partial_dependence(clf, X, [2], method="brute", kind="both", grid_resolution=6)
    # XGBoost answers in float32: the ICE values are identical; scikit-learn averages them in
    # float32 (error ~1e-7), ixplain in float64 -- compare with the float64 mean of the same ICE.
    assert np.array_equal(sk["individual"], ix.individual)
    assert np.abs(ix.average - sk["individual"].astype(np.float64).mean(axis=1)).max() <= TOL
    assert np.abs(ix.average - sk["average"]).max() <= 1e-6


def test_parity_regressor_few_unique_values(numeric_data):
    X, y = numeric_data
    X = X.copy()
    X[:, 3] = np.round(X[:, 3])  # few distinct values: the grid is the sorted unique values
    est = LinearRegression().fit(X, y)
    _, ix = assert_parity(est, X, [3])
    assert ix.grid_rules == ("unique",)


@pytest.mark.parametrize("response_method", ["auto", "predict_proba", "decision_function"])
@pytest.mark.parametrize("features", [[0], [0, 2]])
def test_parity_binary_classifier(numeric_data, response_method, features):
    X, y = numeric_data
    est = LogisticRegression().fit(X, y > np.median(y))
    assert_parity(est, X, features, response_method=response_method, grid_resolution=10)


def test_parity_multiclass_string_labels_and_target(numeric_data):
    X, y = numeric_data
    labels = np.array(["low", "mid", "high"])[np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))]
    est = LogisticRegression().fit(X, labels)
    sk, ix = assert_parity(est, X, [1], grid_resolution=10)
    assert ix.average.shape[0] == 3 and ix.output_names == list(est.classes_)
    for cls in est.classes_:
        one = partial_dependence(est, X, [1], kind="both", grid_resolution=10, target=cls)
        k = list(est.classes_).index(cls)
        assert one.average.shape == (1, 10)
        assert np.abs(one.average[0] - sk["average"][k]).max() <= TOL
        assert np.abs(one.individual[0] - sk["individual"][k]).max() <= TOL


def test_parity_multiclass_decision_function_2way(numeric_data):
    X, y = numeric_data
    labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    est = SVC(decision_function_shape="ovr").fit(X, labels)
    assert_parity(est, X, [0, 1], response_method="decision_function", grid_resolution=6)


def test_parity_multioutput_regressor(numeric_data):
    X, y = numeric_data
    Y = np.c_[y, X[:, 0] - y, 2 * X[:, 2]]
    est = KNeighborsRegressor(n_neighbors=5).fit(X, Y)
    _, ix = assert_parity(est, X, [0], grid_resolution=8)
    assert ix.average.shape == (3, 8)
    one = partial_dependence(est, X, [0], grid_resolution=8, target=2)
    assert np.abs(one.average[0] - ix.average[2]).max() <= TOL


def test_parity_sample_weight(numeric_data):
    X, y = numeric_data
    w = np.random.default_rng(3).uniform(0, 2, size=len(X))
    est = HistGradientBoostingRegressor(max_iter=10).fit(X, y)
    assert_parity(est, X, [0], sample_weight=w, grid_resolution=9)
    assert_parity(est, X, [0, 2], sample_weight=w, grid_resolution=5)


def test_parity_custom_values(numeric_data):
    X, y = numeric_data
    est = LinearRegression().fit(X, y)
    _, ix = assert_parity(est, X, [0, 1], custom_values={0: [-1.0, 0.0, 2.5], 1: np.linspace(0, 1, 4)})
    assert ix.grid_rules == ("custom", "custom")


@pytest.mark.parametrize("features", [["city"], ["size"], ["num"], ["num", "city"], ["city", "size"]])
def test_parity_pipeline_column_transformer(mixed_frame, features):
    df, y = mixed_frame
    est = _pipeline(LinearRegression()).fit(df, y)
    _, ix = assert_parity(est, df, features, categorical_features=["city", "size"], grid_resolution=7)
    for name, kind in zip(ix.features, ix.feature_kinds):
        assert kind == ("categorical" if name in ("city", "size") else "numeric")


def test_parity_pipeline_classifier_sample_weight(mixed_frame):
    df, y = mixed_frame
    est = _pipeline(LogisticRegression()).fit(df, np.where(y > np.median(y), "yes", "no"))
    w = np.linspace(0.1, 2, len(df))
    assert_parity(est, df, ["city", "w"], categorical_features=["city", "size"],
                  sample_weight=w, grid_resolution=5)


@pytest.mark.parametrize("features", [[0], [1, 3]])
def test_parity_pipelines_with_column_wise_first_step(numeric_data, features):
    from sklearn.preprocessing import MinMaxScaler, SplineTransformer

    X, y = numeric_data
    spline = make_pipeline(SplineTransformer(n_knots=4), LinearRegression()).fit(X, y)
    assert_parity(spline, X, features, grid_resolution=9)
    labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    scaled = make_pipeline(MinMaxScaler(), LogisticRegression()).fit(X, labels)
    assert_parity(scaled, X, features, grid_resolution=5)
    sparse = make_pipeline(SplineTransformer(n_knots=4, sparse_output=True), LinearRegression())
    assert_parity(sparse.fit(X, y), X, features, grid_resolution=5)


def test_column_wise_first_step_is_transformed_once_per_row_and_grid_point(numeric_data):
    from sklearn.preprocessing import SplineTransformer

    X, y = numeric_data
    seen = []

    class CountingSpline(SplineTransformer):
        def transform(self, X):
            seen.append(len(X))
            return super().transform(X)

    from ixplain.methods import pdp

    pipe = make_pipeline(SplineTransformer(n_knots=4), LinearRegression()).fit(X, y)
    owners = pdp._column_owners(pipe[0], X.shape[1])
    assert [list(o) for o in owners[:2]] == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]
    # an unknown subclass is not on the allow-list: generic path, one transform per stacked call
    counting = make_pipeline(CountingSpline(n_knots=4), LinearRegression()).fit(X, y)
    seen.clear()
    partial_dependence(counting, X, [0], grid_resolution=10)
    assert seen == [len(X) * 10]
    stack = pdp._array_stack(
        pdp.as_model(pipe), pdp.as_table(X), ["x0"], [np.linspace(-1, 1, 10)]
    )
    assert stack is not None and stack.base.shape == (len(X), 24)
    assert list(stack.cols) == [0, 1, 2, 3, 4, 5] and stack.values.shape == (10, 6)


def test_parity_numeric_feature_declared_categorical(numeric_data):
    X, y = numeric_data
    X = X.copy()
    X[:, 1] = np.round(X[:, 1] * 2)
    est = LinearRegression().fit(X, y)
    _, ix = assert_parity(est, X, [1, 0], categorical_features=[1], grid_resolution=5)
    assert ix.feature_kinds == ("categorical", "numeric")


# ------------------------------------------------------------------------------------ brute-force references
def _reference(f, X, j, grid):
    """Plain definition: overwrite column j with each grid value, predict, average."""
    ice = []
    for v in grid:
        Xv = np.array(X, dtype=float, copy=True)
        Xv[:, j] = v
        ice.append(np.asarray(f(Xv), dtype=float))
    ice = np.array(ice).T  # (n_rows, n_grid)
    return ice.mean(axis=0), ice


def test_callable_on_array_matches_definition(numeric_data):
    X, _ = numeric_data

    def f(A):
        return np.sin(A[:, 0]) * A[:, 1] + A[:, 2] ** 2

    res = partial_dependence(f, X, [0], kind="both", grid_resolution=11)
    avg, ice = _reference(f, X, 0, res.grid_values[0])
    assert np.abs(res.average[0] - avg).max() <= TOL
    assert np.abs(res.individual[0] - ice).max() <= TOL


def test_callable_on_dataframe_and_records(numeric_data):
    X, _ = numeric_data
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    seen = []

    def f_df(frame):
        seen.append(type(frame))
        return (frame["a"] * frame["b"]).to_numpy()

    res = partial_dependence(f_df, df, "a", kind="both", grid_resolution=6)
    assert set(seen) == {pd.DataFrame}
    avg, ice = _reference(lambda A: A[:, 0] * A[:, 1], X, 0, res.grid_values[0])
    assert np.abs(res.average[0] - avg).max() <= TOL and np.abs(res.individual[0] - ice).max() <= TOL

    records = df.to_dict(orient="records")

    def f_rec(rows):
        assert isinstance(rows, list) and isinstance(rows[0], dict)
        return np.array([r["a"] * r["b"] for r in rows])

    rec = partial_dependence(f_rec, records, "a", kind="both", grid_resolution=6)
    assert np.abs(rec.average - res.average).max() <= TOL


def test_callable_2way_matches_definition(numeric_data):
    X, _ = numeric_data

    def f(A):
        return A[:, 0] * A[:, 1] + A[:, 3]

    res = partial_dependence(f, X, [0, 1], kind="both", grid_resolution=4)
    g0, g1 = res.grid_values
    expected = np.empty((len(X), len(g0), len(g1)))
    for a, u in enumerate(g0):
        for b, v in enumerate(g1):
            Xv = X.copy()
            Xv[:, 0], Xv[:, 1] = u, v
            expected[:, a, b] = f(Xv)
    assert np.abs(res.individual[0] - expected).max() <= TOL
    assert np.abs(res.average[0] - expected.mean(axis=0)).max() <= TOL


def test_river_predict_many_and_one_paths(numeric_data):
    from river import linear_model, tree

    X, y = numeric_data
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    records = df.to_dict(orient="records")
    many = linear_model.LinearRegression()
    one = tree.HoeffdingTreeRegressor(grace_period=10)
    for x, t in zip(records, y):
        many.learn_one(x, t)
        one.learn_one(x, t)
    for model in (many, one):
        res = partial_dependence(model, records, "a", kind="both", grid_resolution=5)
        ice = np.array(
            [[model.predict_one({**r, "a": float(v)}) for v in res.grid_values[0]] for r in records]
        )
        assert np.abs(res.individual[0] - ice).max() <= 1e-9
        assert np.abs(res.average[0] - ice.mean(axis=0)).max() <= 1e-9


def test_river_classifier_probabilities(numeric_data):
    from river import linear_model

    X, y = numeric_data
    records = pd.DataFrame(X, columns=["a", "b", "c", "d"]).to_dict(orient="records")
    clf = linear_model.LogisticRegression()
    for x, t in zip(records, y > 0):
        clf.learn_one(x, bool(t))
    res = partial_dependence(clf, records, "b", grid_resolution=4)
    expected = np.array(
        [[clf.predict_proba_one({**r, "b": float(v)})[True] for v in res.grid_values[0]] for r in records]
    ).mean(axis=0)
    assert np.abs(res.average[0] - expected).max() <= 1e-12


def test_polars_input_matches_pandas(mixed_frame):
    pl = pytest.importorskip("polars")
    df, y = mixed_frame
    df = df.assign(size=df["size"].astype(str))

    def f(frame):
        return (frame["num"] * (frame["city"] == "rome")).to_numpy().astype(float)

    a = partial_dependence(f, df, ["city", "num"], grid_resolution=5, kind="both", input_kind="pandas")
    b = partial_dependence(f, pl.from_pandas(df), ["city", "num"], grid_resolution=5, kind="both",
                           input_kind="pandas")
    assert [list(g) for g in a.grid_values] == [list(g) for g in b.grid_values]
    assert np.abs(a.individual - b.individual).max() == 0


# ------------------------------------------------------------------------------------ identities
def test_mean_of_individual_is_average(numeric_data):
    X, y = numeric_data
    est = HistGradientBoostingRegressor(max_iter=10).fit(X, y)
    res = partial_dependence(est, X, [0, 3], kind="both", grid_resolution=6)
    assert np.abs(res.individual.mean(axis=1) - res.average).max() <= TOL
    w = np.random.default_rng(0).uniform(0, 3, size=len(X))
    res = partial_dependence(est, X, [0, 3], kind="both", grid_resolution=6, sample_weight=w)
    weighted = np.tensordot(w, res.individual, axes=([0], [1])) / w.sum()
    assert np.abs(weighted - res.average).max() <= TOL


def test_centering_shifts_but_never_reshapes(numeric_data):
    X, y = numeric_data
    est = LogisticRegression().fit(X, y > 0)
    raw = partial_dependence(est, X, [1, 2], kind="both", grid_resolution=5)
    cen = partial_dependence(est, X, [1, 2], kind="both", grid_resolution=5, centered=True)
    assert cen.centered and cen.individual.shape == raw.individual.shape
    assert np.abs(cen.individual - (raw.individual - raw.individual[:, :, :1, :1])).max() <= TOL
    assert np.abs(cen.average - (raw.average - raw.average[:, :1, :1])).max() <= TOL
    assert np.all(cen.individual[:, :, 0, 0] == 0)


def test_kind_selects_keys(numeric_data):
    X, y = numeric_data
    est = LinearRegression().fit(X, y)
    avg = partial_dependence(est, X, 0, grid_resolution=5)
    assert avg.keys() == ["grid_values", "average"] and avg.individual is None
    with pytest.raises(KeyError):
        avg["individual"]
    ind = partial_dependence(est, X, 0, grid_resolution=5, kind="individual")
    assert ind.keys() == ["grid_values", "individual"] and ind.average is None
    assert "individual" in ind and set(ind) == {"grid_values", "individual"}


def test_subsample_is_seeded_and_grid_uses_all_rows(numeric_data):
    X, y = numeric_data
    est = LinearRegression().fit(X, y)
    a = partial_dependence(est, X, [0], subsample=20, random_state=5, kind="both", grid_resolution=5)
    b = partial_dependence(est, X, [0], subsample=20, random_state=5, kind="both", grid_resolution=5)
    c = partial_dependence(est, X, [0], subsample=0.25, random_state=6, kind="both", grid_resolution=5)
    full = partial_dependence(est, X, [0], kind="both", grid_resolution=5)
    assert a.individual.shape == (1, 20, 5) and c.individual.shape == (1, 20, 5)
    assert np.array_equal(a.individual, b.individual)
    assert np.array_equal(a.grid_values[0], full.grid_values[0])
    rows = [np.flatnonzero(np.all(np.isclose(full.individual[0], r), axis=1))[0] for r in a.individual[0]]
    assert len(set(rows)) == 20  # distinct rows of X, without replacement


def test_memory_budget_and_n_jobs_do_not_change_values(numeric_data):
    X, _ = numeric_data
    calls = []

    def f(A):
        calls.append(len(A))
        return A[:, 0] * A[:, 1]

    ref = partial_dependence(f, X, [0, 1], kind="both", grid_resolution=7)
    n_ref = len(calls)
    calls.clear()
    small = partial_dependence(f, X, [0, 1], kind="both", grid_resolution=7, memory_budget=8 * 4 * 128)
    assert max(calls) <= 128 and len(calls) > n_ref
    par = partial_dependence(f, X, [0, 1], kind="both", grid_resolution=7, n_jobs=2)
    for res in (small, par):
        assert np.array_equal(res.individual, ref.individual)
        assert np.abs(res.average - ref.average).max() <= TOL


def test_stacked_calls_not_one_per_grid_point(numeric_data):
    X, _ = numeric_data
    calls = []

    def f(A):
        calls.append(len(A))
        return A[:, 0]

    partial_dependence(f, X, [0, 1], grid_resolution=20)
    # whole grid points stacked up to a cache-sized call (CALL_ROWS rows), not 400 calls and
    # not one 32,000-row call
    per_call = (CALL_ROWS // len(X)) * len(X)
    assert sum(calls) == len(X) * 400
    assert calls[:-1] == [per_call] * (len(calls) - 1) and 0 < calls[-1] <= per_call


def test_a_copy_of_the_data_larger_than_a_cache_sized_call_is_one_call():
    """Never smaller calls than scikit-learn's brute method (one call per grid point)."""
    X = np.random.default_rng(0).normal(size=(CALL_ROWS + 5, 2))
    calls = []

    def f(A):
        calls.append(len(A))
        return A[:, 0]

    partial_dependence(f, X, [0], grid_resolution=3)
    assert calls == [len(X)] * 3


# ------------------------------------------------------------------------------------ dtypes
def test_int_columns_zero_one_and_many_levels():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "flag": rng.integers(0, 2, size=50),
            "count": rng.integers(0, 500, size=50),
            "nullable": pd.array(rng.integers(0, 3, size=50), dtype="Int64"),
            "x": rng.normal(size=50),
        }
    )
    received = {}

    def f(frame):
        received.update({c: frame[c].dtype for c in frame.columns})
        return frame["flag"].to_numpy(float) + frame["count"].to_numpy(float) / 100 + frame["x"].to_numpy()

    res = partial_dependence(f, df, "flag")
    assert list(res.grid_values[0]) == [0, 1] and res.upcast == ()
    assert received["flag"] == df["flag"].dtype and received["nullable"] == pd.Int64Dtype()

    res = partial_dependence(f, df, "count", grid_resolution=10, kind="both")
    assert res.upcast == ("count",)  # non-integer grid values: upcast, documented, not truncated
    assert received["count"] == np.float64
    assert np.allclose(np.diff(res.average[0]), np.diff(res.grid_values[0]) / 100)

    res = partial_dependence(f, df, "nullable")
    assert list(res.grid_values[0]) == [0, 1, 2] and received["nullable"] == pd.Int64Dtype()


def test_other_columns_keep_their_dtypes(mixed_frame):
    df, _ = mixed_frame
    seen = {}

    def f(frame):
        seen.update(frame.dtypes.to_dict())
        return frame["w"].to_numpy()

    partial_dependence(f, df, "num", grid_resolution=5)
    assert seen == df.dtypes.to_dict()


def test_nan_in_feature_never_in_numeric_grid_unless_model_accepts_it(numeric_data):
    X, y = numeric_data
    X = X.copy()
    X[::7, 0] = np.nan
    res = partial_dependence(lambda A: np.nan_to_num(A[:, 0], nan=-5.0), X, [0], grid_resolution=6)
    assert not np.isnan(res.grid_values[0]).any() and res.missing_in_grid == (False,)

    est = HistGradientBoostingRegressor(max_iter=10).fit(X, y)
    res = partial_dependence(est, X, [0], grid_resolution=6, kind="both")
    g = res.grid_values[0]
    assert np.isnan(g[-1]) and not np.isnan(g[:-1]).any() and res.missing_in_grid == (True,)
    Xn = X.copy()
    Xn[:, 0] = np.nan
    assert np.abs(res.average[0, -1] - est.predict(Xn).mean()) <= TOL

    forced = partial_dependence(lambda A: np.nan_to_num(A[:, 0], nan=-5.0), X, [0],
                                grid_resolution=6, include_missing=True)
    assert forced.average[0, -1] == -5.0


def test_categorical_with_missing_level():
    df = pd.DataFrame({"c": ["a", None, "b", "a", np.nan], "x": [1.0, 2.0, 3.0, 4.0, 5.0]})

    def f(frame):
        return frame["c"].map({"a": 1.0, "b": 2.0}).fillna(0.0).to_numpy() + frame["x"].to_numpy()

    res = partial_dependence(f, df, "c", kind="both")
    g = res.grid_values[0]
    assert list(g[:2]) == ["a", "b"] and pd.isna(g[2])
    assert np.allclose(res.average[0], [1 + 3.0, 2 + 3.0, 3.0])


def test_bool_and_pandas_categorical_grids():
    df = pd.DataFrame(
        {
            "b": [True, False, True, True],
            "c": pd.Categorical(["lo", "hi", "hi", "lo"], categories=["lo", "mid", "hi"], ordered=True),
        }
    )

    def f(frame):
        return frame["b"].astype(float).to_numpy() + frame["c"].cat.codes.to_numpy()

    res = partial_dependence(f, df, ["b", "c"], kind="average")
    assert list(res.grid_values[0]) == [False, True]
    assert list(res.grid_values[1]) == ["lo", "hi"]  # observed levels, in category order
    assert np.allclose(res.average[0], [[0, 2], [1, 3]])


def test_tiny_scale_feature_builds_a_grid(numeric_data):
    X, _ = numeric_data
    Xs = X * 1e-10
    res = partial_dependence(lambda A: A[:, 0] * 1e10, Xs, [0], grid_resolution=10)
    assert len(np.unique(res.grid_values[0])) == 10
    assert np.allclose(res.average[0], res.grid_values[0] * 1e10)


# ------------------------------------------------------------------------------------ recursion
def test_recursion_equals_sklearn_plus_baseline(numeric_data):
    X, y = numeric_data
    for est in (
        GradientBoostingRegressor(n_estimators=10, random_state=0),
        HistGradientBoostingRegressor(max_iter=10),
        RandomForestRegressor(n_estimators=5, max_depth=4, random_state=0),
        DecisionTreeRegressor(max_depth=4, random_state=0),
    ):
        est.fit(X, y)
        sk = sk_partial_dependence(est, X, [0, 2], method="recursion", grid_resolution=6)
        ix = partial_dependence(est, X, [0, 2], method="recursion", grid_resolution=6)
        assert ix.method == "recursion"
        if hasattr(est, "_baseline_prediction"):
            base = float(np.ravel(est._baseline_prediction)[0])
        elif hasattr(est, "init_"):
            base = float(est.init_.constant_.ravel()[0])
        else:
            base = 0.0
        assert np.abs(ix.average - (sk["average"] + base)).max() <= 1e-7


def test_recursion_on_a_single_tree_equals_brute_on_training_data():
    # For one tree the training-cover average equals the brute PD on the training data
    # when every split of the other features is "resolved" by the data itself (x1 independent).
    rng = np.random.default_rng(0)
    X = np.c_[np.repeat(np.arange(4.0), 25), np.tile(np.arange(25.0), 4)]
    y = X[:, 0] * 2 + (X[:, 1] > 12)
    est = DecisionTreeRegressor(random_state=0).fit(X, y)
    rec = partial_dependence(est, X, [0], method="recursion")
    brute = partial_dependence(est, X, [0], method="brute")
    assert np.abs(rec.average - brute.average).max() <= 1e-10
    assert rng is not None


def test_recursion_classifier_baseline_multiclass(numeric_data):
    X, y = numeric_data
    labels = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    est = HistGradientBoostingClassifier(max_iter=5).fit(X, labels)
    sk = sk_partial_dependence(est, X, [1], method="recursion", grid_resolution=5)
    ix = partial_dependence(est, X, [1], method="recursion", grid_resolution=5)
    base = np.ravel(est._baseline_prediction).reshape(-1, 1)
    assert np.abs(ix.average - (sk["average"] + base)).max() <= 1e-7
    one = partial_dependence(est, X, [1], method="recursion", grid_resolution=5, target=2)
    assert np.abs(one.average[0] - ix.average[2]).max() == 0
    gbc = GradientBoostingClassifier(n_estimators=5).fit(X, y > 0)
    res = partial_dependence(gbc, X, [1], method="recursion", grid_resolution=5)
    assert res.response_method == "decision_function"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"kind": "both"}, "kind='average'"),
        ({"sample_weight": np.ones(80)}, "sample_weight"),
        ({"response_method": "predict_proba"}, "decision function"),
    ],
)
def test_recursion_refuses_what_it_cannot_compute(numeric_data, kwargs, match):
    X, y = numeric_data
    est = HistGradientBoostingClassifier(max_iter=3).fit(X, y > 0)
    with pytest.raises(ValueError, match=match):
        partial_dependence(est, X, [0], method="recursion", **kwargs)
    with pytest.raises(ValueError, match="does not support"):
        partial_dependence(LinearRegression().fit(X, y), X, [0], method="recursion")


@pytest.mark.parametrize(
    "est",
    [
        HistGradientBoostingRegressor(max_iter=5),
        GradientBoostingRegressor(n_estimators=5),
        RandomForestRegressor(n_estimators=3, max_depth=3),
        DecisionTreeRegressor(max_depth=3),
        KNeighborsRegressor(),
    ],
)
def test_auto_is_the_brute_quantity_never_recursion(numeric_data, est):
    # scikit-learn's auto switches tree models to recursion (another quantity); ours never does.
    X, y = numeric_data
    est.fit(X, y)
    res = partial_dependence(est, X, [0, 1], grid_resolution=5, kind="both")
    brute = sk_partial_dependence(est, X, [0, 1], method="brute", grid_resolution=5, kind="both")
    assert res.method != "recursion"
    assert np.abs(res.average - brute["average"]).max() <= TOL
    assert np.abs(res.individual - brute["individual"]).max() <= TOL


# ------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kwargs, exc, name",
    [
        ({"estimator": 3}, TypeError, "estimator"),
        ({"X": 42}, TypeError, "X"),
        ({"features": 1.5}, TypeError, "features"),
        ({"features": []}, ValueError, "features"),
        ({"features": [0, 0]}, ValueError, "features"),
        ({"features": [9]}, ValueError, "features"),
        ({"sample_weight": np.ones(3)}, ValueError, "sample_weight"),
        ({"sample_weight": -np.ones(30)}, ValueError, "sample_weight"),
        ({"categorical_features": []}, ValueError, "categorical_features"),
        ({"categorical_features": [True, False]}, ValueError, "categorical_features"),
        ({"feature_names": ["a"]}, ValueError, "feature_names"),
        ({"feature_names": 3}, TypeError, "feature_names"),
        ({"response_method": "predict_log_proba"}, ValueError, "response_method"),
        ({"percentiles": (0.9, 0.1)}, ValueError, "percentiles"),
        ({"percentiles": (0.1, 1.5)}, ValueError, "percentiles"),
        ({"percentiles": "ab"}, TypeError, "percentiles"),
        ({"grid_resolution": 1}, ValueError, "grid_resolution"),
        ({"grid_resolution": 2.5}, TypeError, "grid_resolution"),
        ({"custom_values": [1, 2]}, TypeError, "custom_values"),
        ({"custom_values": {1: [1.0]}}, ValueError, "custom_values"),
        ({"custom_values": {0: [[1.0, 2.0]]}}, ValueError, "custom_values"),
        ({"method": "fast"}, ValueError, "method"),
        ({"kind": "mean"}, ValueError, "kind"),
        ({"centered": "yes"}, TypeError, "centered"),
        ({"subsample": 0}, ValueError, "subsample"),
        ({"subsample": 1.5}, ValueError, "subsample"),
        ({"subsample": "all"}, TypeError, "subsample"),
        ({"random_state": 1.5}, TypeError, "random_state"),
        ({"grid": "uniform"}, ValueError, "grid"),
        ({"target": 5}, ValueError, "target"),
        ({"include_missing": "yes"}, TypeError, "include_missing"),
        ({"memory_budget": 0}, ValueError, "memory_budget"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
        ({"n_jobs": 1.5}, TypeError, "n_jobs"),
        ({"input_kind": "arrow"}, ValueError, "input_kind"),
    ],
)
def test_bad_argument_names_itself(kwargs, exc, name):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    est = LinearRegression().fit(X, X[:, 0])
    args = {"estimator": est, "X": X, "features": [0], **kwargs}
    with pytest.raises(exc, match=f"'{name}' parameter of partial_dependence"):
        partial_dependence(**args)


def test_bad_classifier_target_names_classes(numeric_data):
    X, y = numeric_data
    est = LogisticRegression().fit(X, np.where(y > 0, "pos", "neg"))
    with pytest.raises(ValueError, match=r"'target' parameter .*\['neg', 'pos'\].*'maybe'"):
        partial_dependence(est, X, [0], target="maybe")


def test_unknown_feature_lists_available_names(mixed_frame):
    df, _ = mixed_frame
    with pytest.raises(ValueError, match=r"unknown feature 'town'.*\['num', 'city', 'size', 'w'\]"):
        partial_dependence(lambda d: d["num"].to_numpy(), df, "town")


def test_empty_x_one_row_constant_feature():
    with pytest.raises(ValueError, match="0 rows"):
        partial_dependence(lambda A: A[:, 0], np.empty((0, 2)), [0])
    one = partial_dependence(lambda A: A[:, 0] * 2 + A[:, 1], np.array([[1.0, 3.0]]), [0], kind="both")
    assert one.grid_values[0].tolist() == [1.0] and one.individual.shape == (1, 1, 1)
    assert one.average.tolist() == [[5.0]]
    X = np.c_[np.full(20, 4.0), np.arange(20.0)]
    const = partial_dependence(lambda A: A[:, 0] + A[:, 1], X, [0])
    assert const.grid_values[0].tolist() == [4.0]
    assert np.allclose(const.average, 4.0 + 9.5)


def test_collapsed_percentiles_fall_back_or_explain():
    rng = np.random.default_rng(0)
    few = np.r_[np.zeros(1250), 1 + rng.uniform(size=30)].reshape(-1, 1)
    res = partial_dependence(lambda A: A[:, 0], few, [0], grid_resolution=20)
    assert res.grid_rules == ("unique-fallback",) and len(res.grid_values[0]) == 31
    many = np.r_[np.zeros(1250), 1 + rng.uniform(size=60)].reshape(-1, 1)
    with pytest.raises(ValueError, match=r"feature 'x0'.*Widen `percentiles`"):
        partial_dependence(lambda A: A[:, 0], many, [0], grid_resolution=20)


def test_model_that_raises_surfaces_with_context(numeric_data):
    X, _ = numeric_data

    def broken(A):
        raise ZeroDivisionError("boom")

    with pytest.raises(ModelEvaluationError, match=r"ZeroDivisionError.*rows.*boom") as info:
        partial_dependence(broken, X, [0], grid_resolution=3)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_classifier_labels_are_refused_with_advice(numeric_data):
    X, y = numeric_data
    with pytest.raises(ValueError, match="non-numeric"):
        partial_dependence(lambda A: np.where(A[:, 0] > 0, "a", "b"), X, [0], grid_resolution=3)


# ------------------------------------------------------------------------------------ result
def test_result_frame_and_dict(numeric_data):
    import json

    X, y = numeric_data
    df = pd.DataFrame(X, columns=list("abcd"))
    est = LinearRegression().fit(df, y)
    res = partial_dependence(est, df, ["a", "b"],
                             grid_resolution=3, kind="both")
    frame = res.to_frame()
    assert list(frame.columns) == ["output", "a", "b", "value"] and len(frame) == 9
    assert np.allclose(frame["value"], res.average.ravel())
    ind = res.to_frame("individual")
    assert len(ind) == 9 * len(X) and np.allclose(ind["value"], res.individual.ravel())
    d = json.loads(json.dumps(res.to_dict()))
    assert d["features"] == ["a", "b"] and np.allclose(d["average"], res.average)
    assert len(res.deciles) == 2 and res.deciles[0].shape == (9,)
