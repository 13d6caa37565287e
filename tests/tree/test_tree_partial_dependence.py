"""The tree method equals brute-force partial dependence, for every supported model type.

References used: a plain overwrite-predict-average loop written here, scikit-learn's
``partial_dependence(method="brute")`` and ixplain's own brute method. Both traversal engines
(pure numpy and, when installed, numba) are checked.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ixplain import partial_dependence, tree_partial_dependence
from ixplain.tree import as_tree_ensemble
from ixplain.tree._traverse import has_numba

sk_ensemble = pytest.importorskip("sklearn.ensemble")
sk_tree = pytest.importorskip("sklearn.tree")
lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")
from sklearn.inspection import partial_dependence as sk_partial_dependence  # noqa: E402

ENGINE_NAMES = ["numpy"] + (["numba"] if has_numba() else [])
TOL = 1e-9
N = 150


@pytest.fixture(autouse=True)
def _one_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def _data(seed=0, n=N):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = rng.integers(0, 5, n)
    y = X[:, 0] + np.sin(2 * X[:, 1]) + (X[:, 3] % 2) + X[:, 0] * X[:, 2]
    y = y + 0.1 * rng.normal(size=n)
    Xn = X.copy()
    Xn[rng.random(X.shape) < 0.1] = np.nan
    return X, Xn, y


X, XN, Y = _data()
Y2 = (Y > np.median(Y)).astype(int)
Y3 = np.digitize(Y, np.quantile(Y, [0.33, 0.66]))
W = np.random.default_rng(5).random(N)

# (id, factory, target name, trains/predicts with NaN, categorical feature index or None)
MODELS = [
    ("tree_reg", lambda: sk_tree.DecisionTreeRegressor(max_depth=5, random_state=0), "y", True, None),
    ("extratree_clf3", lambda: sk_tree.ExtraTreeClassifier(max_depth=5, random_state=0), "y3", True, None),
    ("rf_reg", lambda: sk_ensemble.RandomForestRegressor(6, max_depth=4, random_state=0), "y", True, None),
    ("rf_clf2", lambda: sk_ensemble.RandomForestClassifier(6, max_depth=4, random_state=0), "y2", True, None),
    ("et_reg", lambda: sk_ensemble.ExtraTreesRegressor(6, max_depth=4, random_state=0), "y", True, None),
    ("gb_reg", lambda: sk_ensemble.GradientBoostingRegressor(n_estimators=10, random_state=0), "y", False, None),
    ("gb_clf2", lambda: sk_ensemble.GradientBoostingClassifier(n_estimators=10, random_state=0), "y2", False, None),
    ("gb_clf3", lambda: sk_ensemble.GradientBoostingClassifier(n_estimators=6, random_state=0), "y3", False, None),
    ("hgb_reg", lambda: sk_ensemble.HistGradientBoostingRegressor(max_iter=10), "y", True, None),
    ("hgb_reg_cat", lambda: sk_ensemble.HistGradientBoostingRegressor(max_iter=10, categorical_features=[3]), "y", True, 3),
    ("hgb_clf2", lambda: sk_ensemble.HistGradientBoostingClassifier(max_iter=10), "y2", True, None),
    ("hgb_clf3_cat", lambda: sk_ensemble.HistGradientBoostingClassifier(max_iter=6, categorical_features=[3]), "y3", True, 3),
    ("lgb_reg", lambda: lgb.LGBMRegressor(n_estimators=10, verbose=-1, n_jobs=1), "y", True, None),
    ("lgb_reg_cat", lambda: lgb.LGBMRegressor(n_estimators=10, verbose=-1, n_jobs=1), "y", True, 3),
    ("lgb_clf3", lambda: lgb.LGBMClassifier(n_estimators=6, verbose=-1, n_jobs=1), "y3", True, None),
    ("xgb_reg", lambda: xgb.XGBRegressor(n_estimators=10, max_depth=3, n_jobs=1), "y", True, None),
    ("xgb_clf2", lambda: xgb.XGBClassifier(n_estimators=10, max_depth=3, n_jobs=1), "y2", True, None),
]
TARGETS = {"y": Y, "y2": Y2, "y3": Y3}
_CACHE: dict[str, object] = {}


def fitted(model_id):
    if model_id not in _CACHE:
        for mid, make, target, nan, cat in MODELS:
            if mid == model_id:
                kw = {"categorical_feature": [cat]} if (cat is not None and mid.startswith("lgb")) else {}
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _CACHE[mid] = make().fit(XN if nan else X, TARGETS[target], **kw)
    model = _CACHE[model_id]
    spec = next(m for m in MODELS if m[0] == model_id)
    return model, spec[3], spec[4]


def output(model, Z):
    out = model.predict_proba(Z) if hasattr(model, "predict_proba") else model.predict(Z)
    out = np.asarray(out, dtype=np.float64)
    if out.ndim == 2 and out.shape[1] == 2:
        out = out[:, 1]
    return out.reshape(len(Z), -1)


def plain_brute(predict, data, features, grids, weights=None, individual=False):
    """Overwrite the features with each grid point, predict, average: the definition."""
    mesh = [g.ravel() for g in np.meshgrid(*grids, indexing="ij")]
    curves = []
    for point in zip(*mesh):
        Z = data.copy()
        for f, v in zip(features, point):
            Z[:, f] = v
        curves.append(predict(Z))  # (n, K)
    ice = np.stack(curves, axis=-1)  # (n, K, P)
    ice = np.moveaxis(ice, 1, 0).reshape(ice.shape[1], len(data), *[len(g) for g in grids])
    if individual:
        return ice
    return np.average(ice, axis=1, weights=weights)


def grid_for(f, cat, data):
    if f == cat:
        return np.array([0.0, 1.0, 2.0, 3.0, 4.0, 7.0])  # 7 was never seen
    col = data[:, f]
    return np.quantile(col[~np.isnan(col)], np.linspace(0.05, 0.95, 6))


def xgb_ref_tolerance(model_id, reference):
    # XGBoost itself sums leaves in float32; the exact float64 reference is checked separately
    return 2e-6 if (model_id.startswith("xgb") and reference == "library") else TOL


@pytest.mark.parametrize("features", [(0,), (3,), (0, 2), (1, 3)], ids=str)
@pytest.mark.parametrize("model_id", [m[0] for m in MODELS])
def test_equals_plain_brute_force(model_id, features):
    model, nan, cat = fitted(model_id)
    data = XN if nan else X
    grids = [grid_for(f, cat, data) for f in features]
    # references: the library's own predictions, and the converted trees evaluated row by row
    # in float64 (exact for XGBoost too, whose own sums are float32)
    expected = plain_brute(lambda Z: output(model, Z), data, features, grids, W)
    ens = as_tree_ensemble(model)
    ice = plain_brute(
        lambda Z: ens.predict(ens.encode(ens.read(Z))), data, features, grids, individual=True
    )
    exact = np.tensordot(ice, W, axes=(1, 0)) / W.sum()
    for engine in ENGINE_NAMES:
        res = tree_partial_dependence(
            model, data, list(features), grids, sample_weight=W, kind="both", engine=engine
        )
        tol = xgb_ref_tolerance(model_id, "library")
        np.testing.assert_allclose(res["average"], expected, atol=tol, rtol=0)
        np.testing.assert_allclose(res["average"], exact, atol=TOL, rtol=0)
        np.testing.assert_allclose(res["individual"], ice, atol=TOL, rtol=0)
        assert res["average"].shape == (ice.shape[0], *[len(g) for g in grids])


@pytest.mark.parametrize("model_id", ["rf_reg", "gb_clf3", "hgb_reg", "hgb_clf2", "lgb_clf3"])
def test_equals_sklearn_brute(model_id):
    model, _, _ = fitted(model_id)
    for features in ([0], [0, 2]):
        sk = sk_partial_dependence(
            model, X, features, method="brute", kind="both", grid_resolution=8
        )
        ours = tree_partial_dependence(model, X, features, sk["grid_values"], kind="both")
        np.testing.assert_allclose(ours["average"], sk["average"], atol=TOL, rtol=0)
        np.testing.assert_allclose(ours["individual"], sk["individual"], atol=TOL, rtol=0)


@pytest.mark.parametrize("model_id", ["rf_clf2", "gb_reg", "hgb_clf3_cat", "lgb_reg_cat", "xgb_reg"])
def test_partial_dependence_method_tree_equals_brute(model_id):
    model, nan, cat = fitted(model_id)
    data = XN if nan else X
    feats = [0, 3] if cat is not None else [0, 1]
    kw = dict(kind="both", grid_resolution=7, sample_weight=W)
    cats = [3] if cat is not None else None
    tree = partial_dependence(model, data, feats, method="tree", categorical_features=cats, **kw)
    auto = partial_dependence(model, data, feats, method="auto", categorical_features=cats, **kw)
    brute = partial_dependence(model, data, feats, method="brute", categorical_features=cats, **kw)
    assert tree.method == "tree" and auto.method == "tree" and brute.method == "brute"
    tol = xgb_ref_tolerance(model_id, "library")
    np.testing.assert_allclose(tree.average, brute.average, atol=tol, rtol=0)
    np.testing.assert_allclose(tree.individual, brute.individual, atol=tol, rtol=0)
    np.testing.assert_array_equal(auto.average, tree.average)


def test_auto_falls_back_to_brute():
    from sklearn.linear_model import LinearRegression

    res = partial_dependence(LinearRegression().fit(X, Y), X, [0], grid_resolution=5)
    assert res.method == "brute"
    with pytest.raises(ValueError, match="method='tree'"):
        partial_dependence(LinearRegression().fit(X, Y), X, [0], method="tree")


def test_data_exactly_on_thresholds():
    # grid values and data values equal to split thresholds (and float32 neighbours)
    for model_id in ("tree_reg", "gb_reg", "hgb_reg", "lgb_reg", "xgb_reg"):
        model, nan, _ = fitted(model_id)
        ens = as_tree_ensemble(model)
        data = (XN if nan else X).copy()
        rng = np.random.default_rng(3)
        for j in range(3):
            t = ens.threshold[(ens.feature == j) & np.isfinite(ens.threshold)]
            if t.size:
                data[: N // 2, j] = rng.choice(t, N // 2)
        t0 = np.unique(ens.threshold[ens.feature == 0])[:5]
        grid = np.concatenate([t0, np.nextafter(t0, np.inf), np.float32(t0).astype(float)])
        res = tree_partial_dependence(model, data, [0], [grid], engine="numpy")
        exact = plain_brute(lambda Z, e=ens: e.predict(e.encode(Z)), data, [0], [grid])
        np.testing.assert_allclose(res["average"], exact, atol=TOL, rtol=0)
        lib = plain_brute(lambda Z, m=model: output(m, Z), data, [0], [grid])
        np.testing.assert_allclose(res["average"], lib, atol=xgb_ref_tolerance(model_id, "library"))


def test_nan_grid_value_follows_the_missing_direction():
    model, _, _ = fitted("hgb_reg")
    grid = np.array([-1.0, np.nan, 0.5])
    res = tree_partial_dependence(model, XN, [0, 1], [grid, np.array([np.nan, 0.0])])
    expected = plain_brute(lambda Z: output(model, Z), XN, [0, 1], [grid, np.array([np.nan, 0.0])])
    np.testing.assert_allclose(res["average"], expected, atol=TOL, rtol=0)


@pytest.mark.parametrize("model_id", ["gb_reg", "hgb_reg", "lgb_reg", "xgb_reg"])
def test_thresholds_grid_is_the_full_step_function(model_id):
    model, _, _ = fitted(model_id)
    res = tree_partial_dependence(model, X, [0], "thresholds")
    grid = res["grid_values"][0]
    ens = as_tree_ensemble(model)
    t = np.unique(ens.threshold[ens.feature == 0])
    assert len(grid) == len(t) + 1 and np.all(np.diff(grid) > 0)
    exact = plain_brute(lambda Z: ens.predict(ens.encode(Z)), X, [0], [grid])
    np.testing.assert_allclose(res["average"], exact, atol=TOL, rtol=0)
    lib = plain_brute(lambda Z: output(model, Z), X, [0], [grid])
    np.testing.assert_allclose(res["average"], lib, atol=xgb_ref_tolerance(model_id, "library"))
    # a point between two consecutive grid values gives the value of the upper one
    mids = np.float32((grid[:-1] + grid[1:]) / 2).astype(float)
    mids = np.clip(mids, np.nextafter(grid[:-1], np.inf), grid[1:])
    between = tree_partial_dependence(model, X, [0], [mids])["average"]
    np.testing.assert_allclose(between, res["average"][:, 1:], atol=TOL, rtol=0)
    if model_id != "gb_reg":
        return
    via_pd = partial_dependence(model, X, [0], grid="thresholds")
    np.testing.assert_allclose(via_pd.grid_values[0], grid)
    np.testing.assert_allclose(via_pd.average, res["average"], atol=TOL, rtol=0)


@pytest.mark.parametrize("library", ["hgb", "lgb", "xgb"])
def test_pandas_categorical_dtype(library):
    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {
            "a": rng.normal(size=N),
            "c": pd.Categorical(rng.choice(["x", "y", "z", "w"], N)),
            "b": rng.normal(size=N),
        }
    )
    y = df["a"] + (df["c"] == "y") * 2 + df["b"] * (df["c"] == "z")
    if library == "hgb":
        model = sk_ensemble.HistGradientBoostingRegressor(max_iter=10).fit(df, y)
    elif library == "lgb":
        model = lgb.LGBMRegressor(n_estimators=10, min_child_samples=5, verbose=-1,
                                  n_jobs=1).fit(df, y)
    else:
        model = xgb.XGBRegressor(n_estimators=5, enable_categorical=True, n_jobs=1).fit(df, y)
    data = df.copy()
    data.loc[:9, "c"] = np.nan  # missing categories in the data
    for feats in (["c"], ["a", "c"], ["b"]):
        brute = partial_dependence(model, data, feats, method="brute", grid_resolution=5)
        auto = partial_dependence(model, data, feats, grid_resolution=5)
        np.testing.assert_allclose(auto.average, brute.average, atol=2e-6, rtol=0)
        if library == "xgb":
            assert auto.method == "brute"  # XGBoost categorical splits: not supported
            continue
        assert auto.method == "tree"
        np.testing.assert_allclose(auto.average, brute.average, atol=TOL, rtol=0)


def test_multiclass_target_and_weights():
    model, _, _ = fitted("gb_clf3")
    grid = [grid_for(0, None, X)]
    full = tree_partial_dependence(model, X, [0], grid, sample_weight=W)["average"]
    one = tree_partial_dependence(model, X, [0], grid, sample_weight=W, target=2)["average"]
    np.testing.assert_allclose(one, full[2:3], atol=TOL)
    assert np.allclose(full.sum(axis=0), 1.0)  # softmax per row, then averaged
    # weights: a weight of 2 equals a duplicated row
    w = np.ones(N)
    w[:10] = 2
    doubled = np.concatenate([X, X[:10]])
    a = tree_partial_dependence(model, X, [0], grid, sample_weight=w)["average"]
    b = tree_partial_dependence(model, doubled, [0], grid)["average"]
    np.testing.assert_allclose(a, b, atol=TOL)


@pytest.mark.parametrize("seed", range(6))
def test_random_ensembles_random_data(seed):
    """Property test: random small ensembles, random data (ties, NaN), random grids."""
    rng = np.random.default_rng(100 + seed)
    n, p = int(rng.integers(5, 60)), int(rng.integers(2, 5))
    Xr = rng.integers(-3, 4, size=(n, p)).astype(float) / rng.choice([1.0, 3.0, 7.0])
    Xr[rng.random(Xr.shape) < 0.1] = np.nan
    yr = rng.normal(size=n)
    kind = seed % 3
    if kind == 0:
        model = sk_ensemble.RandomForestRegressor(4, max_depth=int(rng.integers(1, 6)),
                                                  random_state=seed).fit(Xr, yr)
    elif kind == 1:
        model = sk_ensemble.HistGradientBoostingClassifier(
            max_iter=5, max_leaf_nodes=int(rng.integers(2, 8)), min_samples_leaf=2
        ).fit(Xr, yr > 0)
    else:
        model = lgb.LGBMRegressor(n_estimators=4, num_leaves=int(rng.integers(2, 8)),
                                  min_child_samples=2, verbose=-1, n_jobs=1).fit(Xr, yr)
    features = list(rng.choice(p, size=int(rng.integers(1, 3)), replace=False))
    grids = [np.unique(np.concatenate([Xr[:, f][~np.isnan(Xr[:, f])][:4], rng.normal(size=3)]))
             for f in features]
    w = rng.random(n) + 0.01
    for engine in ENGINE_NAMES:
        res = tree_partial_dependence(model, Xr, features, grids, sample_weight=w, kind="both",
                                      engine=engine)
        expected = plain_brute(lambda Z: output(model, Z), Xr, features, grids, w)
        np.testing.assert_allclose(res["average"], expected, atol=TOL, rtol=0)


def test_engines_agree_on_a_forest():
    if not has_numba():
        pytest.skip("numba not installed")
    model, _, _ = fitted("rf_reg")
    g = [grid_for(0, None, XN), grid_for(2, None, XN)]
    a = tree_partial_dependence(model, XN, [0, 2], g, kind="both", engine="numpy")
    b = tree_partial_dependence(model, XN, [0, 2], g, kind="both", engine="numba")
    np.testing.assert_allclose(a["average"], b["average"], atol=TOL)
    np.testing.assert_allclose(a["individual"], b["individual"], atol=TOL)


def test_bad_arguments():
    model, _, _ = fitted("tree_reg")
    g = [np.array([0.0, 1.0])]
    with pytest.raises(ValueError, match="'kind' parameter of tree_partial_dependence"):
        tree_partial_dependence(model, X, [0], g, kind="mean")
    with pytest.raises(ValueError, match="'sample_weight' parameter"):
        tree_partial_dependence(model, X, [0], g, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="'features' parameter"):
        tree_partial_dependence(model, X, [0, 1, 2], g * 3)
    with pytest.raises(ValueError, match="'grid_values' parameter"):
        tree_partial_dependence(model, X, [0, 1], g)
    with pytest.raises(ValueError, match="unknown feature 'nope'. Available features"):
        tree_partial_dependence(model, X, ["nope"], g)
    with pytest.raises(ValueError, match="'engine' parameter"):
        tree_partial_dependence(model, X, [0], g, engine="cuda")
    with pytest.raises(TypeError, match="tree method supports"):
        tree_partial_dependence(lambda Z: Z[:, 0], X, [0], g)
    with pytest.raises(ValueError, match="empty"):
        tree_partial_dependence(model, X[:0], [0], g)


def test_multi_output_regressor():
    Y2d = np.column_stack([Y, X[:, 1] ** 2])
    model = sk_ensemble.RandomForestRegressor(4, max_depth=4, random_state=0).fit(X, Y2d)
    grid = [grid_for(1, None, X)]
    res = tree_partial_dependence(model, X, [1], grid, kind="individual")
    assert set(res) == {"grid_values", "individual"}
    expected = plain_brute(lambda Z: model.predict(Z), X, [1], grid, individual=True)
    assert res["individual"].shape == (2, N, len(grid[0]))
    np.testing.assert_allclose(res["individual"], expected, atol=TOL, rtol=0)
    sk = sk_partial_dependence(model, X, [1], method="brute", custom_values={1: grid[0]})
    ours = tree_partial_dependence(model, X, [1], grid)["average"]
    np.testing.assert_allclose(ours, sk["average"], atol=TOL, rtol=0)
