"""The array representation reproduces each library's predictions, split rule included.

Every converted ensemble must predict exactly what the library predicts, on ordinary data, on
data placed exactly on the split thresholds (``<=`` vs ``<``, float32 casts), with NaN in any
feature, and on awkward categorical codes (negative, unseen, non-integer, out of range).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ixplain.tree import UnsupportedModelError, as_tree_ensemble, supports_tree_method

sklearn = pytest.importorskip("sklearn")
from sklearn import ensemble as sk_ensemble  # noqa: E402
from sklearn import tree as sk_tree  # noqa: E402

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

N = 240


@pytest.fixture(autouse=True)
def _one_thread():
    # OpenMP models (HistGradientBoosting) crawl when their threads fight over a busy machine
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 4))
    X[:, 3] = rng.integers(0, 6, N)
    y = X[:, 0] + np.sin(2 * X[:, 1]) + (X[:, 3] % 2) + X[:, 0] * X[:, 2]
    y = y + 0.1 * rng.normal(size=N)
    y2 = (y > np.median(y)).astype(int)
    y3 = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    Xn = X.copy()
    Xn[rng.random(X.shape) < 0.1] = np.nan
    return X, Xn, y, y2, y3


X, XN, Y, Y2, Y3 = _data()


def _fit(make, X_, y_, **fit_kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make().fit(X_, y_, **fit_kw)


# (id, factory, target, accepts NaN, fit kwargs, categorical feature)
MODELS = [
    ("tree_reg", lambda: sk_tree.DecisionTreeRegressor(max_depth=6, random_state=0), "y", True),
    ("extratree_reg", lambda: sk_tree.ExtraTreeRegressor(max_depth=6, random_state=0), "y", True),
    ("tree_clf3", lambda: sk_tree.DecisionTreeClassifier(max_depth=5, random_state=0), "y3", True),
    ("rf_reg", lambda: sk_ensemble.RandomForestRegressor(8, max_depth=5, random_state=0), "y", True),
    ("rf_clf2", lambda: sk_ensemble.RandomForestClassifier(8, max_depth=5, random_state=0), "y2", True),
    ("et_clf3", lambda: sk_ensemble.ExtraTreesClassifier(8, max_depth=5, random_state=0), "y3", True),
    ("gb_reg", lambda: sk_ensemble.GradientBoostingRegressor(n_estimators=15, random_state=0), "y", False),
    ("gb_clf2", lambda: sk_ensemble.GradientBoostingClassifier(n_estimators=15, random_state=0), "y2", False),
    ("gb_clf3", lambda: sk_ensemble.GradientBoostingClassifier(n_estimators=10, random_state=0), "y3", False),
    (
        "gb_exp",
        lambda: sk_ensemble.GradientBoostingClassifier(n_estimators=10, loss="exponential"),
        "y2",
        False,
    ),
    ("hgb_reg", lambda: sk_ensemble.HistGradientBoostingRegressor(max_iter=15), "y", True),
    (
        "hgb_reg_cat",
        lambda: sk_ensemble.HistGradientBoostingRegressor(max_iter=15, categorical_features=[3]),
        "y",
        True,
    ),
    (
        "hgb_poisson",
        lambda: sk_ensemble.HistGradientBoostingRegressor(max_iter=15, loss="poisson"),
        "ypos",
        True,
    ),
    (
        "hgb_clf3_cat",
        lambda: sk_ensemble.HistGradientBoostingClassifier(max_iter=10, categorical_features=[3]),
        "y3",
        True,
    ),
    ("hgb_clf2", lambda: sk_ensemble.HistGradientBoostingClassifier(max_iter=15), "y2", True),
    ("lgb_reg", lambda: lgb.LGBMRegressor(n_estimators=15, verbose=-1, n_jobs=1), "y", True),
    ("lgb_clf3", lambda: lgb.LGBMClassifier(n_estimators=10, verbose=-1, n_jobs=1), "y3", True),
    ("lgb_clf2", lambda: lgb.LGBMClassifier(n_estimators=15, verbose=-1, n_jobs=1), "y2", True),
    ("lgb_poisson", lambda: lgb.LGBMRegressor(n_estimators=15, objective="poisson", verbose=-1, n_jobs=1), "ypos", True),
    ("xgb_reg", lambda: xgb.XGBRegressor(n_estimators=15, max_depth=4, n_jobs=1), "y", True),
    ("xgb_clf2", lambda: xgb.XGBClassifier(n_estimators=15, max_depth=4, n_jobs=1), "y2", True),
    ("xgb_clf3", lambda: xgb.XGBClassifier(n_estimators=8, max_depth=3, n_jobs=1), "y3", True),
    ("xgb_poisson", lambda: xgb.XGBRegressor(n_estimators=15, objective="count:poisson", n_jobs=1), "ypos", True),
]
TARGETS = {"y": Y, "y2": Y2, "y3": Y3, "ypos": np.exp(Y / 3)}


def fitted(model_id):
    for mid, make, target, nan in MODELS:
        if mid == model_id:
            X_train = XN if nan else X
            return _fit(make, X_train, TARGETS[target]), nan
    raise KeyError(model_id)


def library_output(model, Z):
    out = model.predict_proba(Z) if hasattr(model, "predict_proba") else model.predict(Z)
    out = np.asarray(out, dtype=np.float64)
    if out.ndim == 2 and out.shape[1] == 2:
        out = out[:, 1]
    return out.reshape(len(Z), -1)


def tolerance(model_id):
    # XGBoost sums its leaves in float32: its own predictions carry float32 rounding
    return 2e-6 if model_id.startswith("xgb") else 1e-12


def on_thresholds(ens, Z, rng):
    """Copy of Z whose numeric features take values exactly equal to split thresholds."""
    Z = Z.copy()
    for j in range(Z.shape[1]):
        t = ens.threshold[(ens.feature == j) & (ens.cat_index < 0)]
        t = t[np.isfinite(t)]
        if t.size:
            Z[:, j] = rng.choice(t, len(Z))
    return Z


@pytest.mark.parametrize("model_id", [m[0] for m in MODELS])
def test_converted_ensemble_predicts_like_the_library(model_id):
    model, nan = fitted(model_id)
    ens = as_tree_ensemble(model)
    rng = np.random.default_rng(1)
    cases = [X[:80], on_thresholds(ens, X[:80], rng)]
    if nan:
        for Z in list(cases):
            Zn = Z.copy()
            Zn[rng.random(Z.shape) < 0.25] = np.nan
            cases.append(Zn)
    for Z in cases:
        ours = ens.predict(ens.encode(ens.read(Z)))
        np.testing.assert_allclose(ours, library_output(model, Z), rtol=0, atol=tolerance(model_id))


def test_thresholds_are_hit_exactly():
    # all splits of a one-feature tree, probed at t, just below and just above t (float32 grid)
    x = np.linspace(-1, 1, 41).reshape(-1, 1)
    y = np.sin(3 * x[:, 0])
    for make in (
        lambda: sk_tree.DecisionTreeRegressor(max_depth=4),
        lambda: xgb.XGBRegressor(n_estimators=3, max_depth=3, n_jobs=1),
        lambda: lgb.LGBMRegressor(n_estimators=3, min_child_samples=2, verbose=-1, n_jobs=1),
        lambda: sk_ensemble.HistGradientBoostingRegressor(max_iter=3),
    ):
        model = _fit(make, x, y)
        ens = as_tree_ensemble(model)
        t = ens.threshold[ens.feature == 0]
        probes = np.concatenate(
            [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf),
             np.float32(t).astype(float), np.nextafter(np.float32(t), np.float32(np.inf))]
        ).reshape(-1, 1)
        ours = ens.predict(ens.encode(probes))
        tol = 2e-6 if "xgb" in type(model).__module__ else 1e-12
        np.testing.assert_allclose(ours, library_output(model, probes), atol=tol, rtol=0)


@pytest.mark.parametrize("model_id", ["hgb_reg_cat", "lgb_cat"])
def test_awkward_categorical_codes(model_id):
    if model_id == "lgb_cat":
        model = _fit(lambda: lgb.LGBMRegressor(n_estimators=10, verbose=-1, n_jobs=1), XN, Y,
                     categorical_feature=[3])
    else:
        model, _ = fitted(model_id)
    ens = as_tree_ensemble(model)
    Z = np.repeat(X[:12], 10, axis=0)
    Z[:, 3] = np.tile([-3.0, -0.5, 0.0, 0.7, 2.0, 2.9, 5.0, 6.0, 40.0, np.nan], 12)
    ours = ens.predict(ens.encode(ens.read(Z)))
    np.testing.assert_allclose(ours, library_output(model, Z), atol=1e-12, rtol=0)


def test_booster_objects_are_converted():
    booster = _fit(lambda: lgb.LGBMRegressor(n_estimators=5, verbose=-1, n_jobs=1), X, Y).booster_
    ens = as_tree_ensemble(booster)
    np.testing.assert_allclose(ens.predict(ens.encode(X))[:, 0], booster.predict(X), atol=1e-12)
    xbooster = _fit(lambda: xgb.XGBRegressor(n_estimators=5, n_jobs=1), X, Y).get_booster()
    ens = as_tree_ensemble(xbooster)
    pred = xbooster.predict(xgb.DMatrix(X))
    np.testing.assert_allclose(ens.predict(ens.encode(X))[:, 0], pred, atol=2e-6)


def test_decision_function_is_the_raw_score():
    model, _ = fitted("gb_clf3")
    ens = as_tree_ensemble(model, response_method="decision_function")
    assert ens.link == "identity"
    np.testing.assert_allclose(ens.predict(ens.encode(X)), model.decision_function(X), atol=1e-12)


def test_supports_tree_method():
    model, _ = fitted("rf_reg")
    assert supports_tree_method(model)
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    assert not supports_tree_method(LinearRegression().fit(X, Y))
    assert not supports_tree_method(make_pipeline(StandardScaler(), sk_tree.DecisionTreeRegressor()).fit(X, Y))
    assert not supports_tree_method(sk_tree.DecisionTreeRegressor())  # not fitted
    custom_init = sk_ensemble.GradientBoostingRegressor(
        n_estimators=3, init=sk_tree.DecisionTreeRegressor(max_depth=1)
    ).fit(X, Y)
    assert not supports_tree_method(custom_init)
    zero_missing = _fit(
        lambda: lgb.LGBMRegressor(n_estimators=3, zero_as_missing=True, verbose=-1, n_jobs=1), X, Y
    )
    with pytest.raises(UnsupportedModelError, match="zero_as_missing"):
        as_tree_ensemble(zero_missing)
    assert not supports_tree_method(model, response_method="predict_proba")


def test_conversion_cache_follows_refits():
    import gc
    import weakref

    from ixplain.tree._convert import _CACHE

    model = sk_ensemble.RandomForestRegressor(3, max_depth=3, random_state=0).fit(X, Y)
    first = as_tree_ensemble(model)
    assert as_tree_ensemble(model) is first  # cached
    model.fit(X, -Y)  # refit: new trees, new ensemble
    second = as_tree_ensemble(model)
    assert second is not first
    np.testing.assert_allclose(second.predict(second.encode(X))[:, 0], model.predict(X), atol=1e-12)
    gb = sk_ensemble.GradientBoostingRegressor(n_estimators=3).fit(X, Y)
    a = as_tree_ensemble(gb)
    gb.set_params(learning_rate=0.5)  # acts at prediction time
    b = as_tree_ensemble(gb)
    np.testing.assert_allclose(b.predict(b.encode(X))[:, 0], gb.predict(X), atol=1e-12)
    assert a is not b
    # the cache never keeps a model alive (a Booster is its own key)
    booster = _fit(lambda: lgb.LGBMRegressor(n_estimators=2, verbose=-1, n_jobs=1), X, Y).booster_
    as_tree_ensemble(booster)
    ref = weakref.ref(booster)
    del booster
    gc.collect()
    assert ref() is None
    assert all(k is not None for k in _CACHE.keys())
