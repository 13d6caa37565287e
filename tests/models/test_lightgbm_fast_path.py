"""The LightGBM fast path of SklearnModel: bit-identical to the public methods, and when it applies.

Each equality test first makes one call (the self-check, which returns the public method's
result) and then checks that the next call was answered by the booster directly
(``n_fast`` grew), so the arrays compared really come from the fast path.
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from ixplain import ModelEvaluationError, as_model
from ixplain.models._lightgbm import LightGBMFastPath, lightgbm_fast_path
from ixplain.tabular import as_table

lgb = pytest.importorskip("lightgbm")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y2 = (X[:, 0] + 0.3 * X[:, 2] > 0).astype(int)
    y3 = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    return X, y2, y3


def _clf(**kw):
    return lgb.LGBMClassifier(**{"n_estimators": 30, "verbose": -1, "n_jobs": 1, **kw})


def _fast(m, X):
    """Native output of the adapter's fast path (the call after the self-check)."""
    fast = m._lightgbm
    assert isinstance(fast, LightGBMFastPath)
    m._predict_native(X)  # self-check (or already checked)
    before = fast.n_fast
    out = m._predict_native(X)
    assert fast.enabled and fast.n_fast == before + 1, "the fast path was not taken"
    return out


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype.kind == "f":
        assert a.tobytes() == b.tobytes()
    else:
        np.testing.assert_array_equal(a, b)


def test_binary_predict_proba_and_predict_bit_identical(data):
    X, y2, _ = data
    clf = _clf().fit(X, y2)
    proba = as_model(clf)
    _same(_fast(proba, X), clf.predict_proba(X))
    _same(proba.predict_array(X), clf.predict_proba(X)[:, 1])
    _same(proba.predict(as_table(X[:10])), clf.predict_proba(X[:10])[:, 1])
    labels = as_model(clf, response_method="predict")
    _same(_fast(labels, X), clf.predict(X))
    _same(labels.predict_array(X[:7]), clf.predict(X[:7]))


def test_multiclass_and_target_bit_identical(data):
    X, _, y3 = data
    clf = _clf().fit(X, y3)
    m = as_model(clf)
    _same(_fast(m, X), clf.predict_proba(X))
    _same(m.predict_array(X), clf.predict_proba(X))
    _same(as_model(clf, target=2).predict_array(X[:10]), clf.predict_proba(X[:10])[:, 2])
    _same(_fast(as_model(clf, response_method="predict"), X), clf.predict(X))
    # two classes with a multiclass objective: the booster's (n, 2) output is kept as is
    two = _clf(objective="multiclass", num_class=2).fit(X, (y3 > 0).astype(int))
    _same(_fast(as_model(two), X), two.predict_proba(X))
    _same(_fast(as_model(two, response_method="predict"), X), two.predict(X))


def test_string_labels(data):
    X, _, y3 = data
    clf = _clf().fit(X, np.array(["low", "mid", "high"])[y3])
    m = as_model(clf, response_method="predict")
    out = _fast(m, X)
    assert out.dtype.kind == "U"
    _same(out, clf.predict(X))
    binary = _clf().fit(X, np.where(y3 > 0, "yes", "no"))
    _same(_fast(as_model(binary, response_method="predict"), X), binary.predict(X))


def test_regressor(data):
    X, _, _ = data
    reg = lgb.LGBMRegressor(n_estimators=30, verbose=-1, n_jobs=1).fit(X, X[:, 0] ** 2 + X[:, 1])
    m = as_model(reg)
    _same(_fast(m, X), reg.predict(X))
    _same(m.predict_array(X[:10]), reg.predict(X[:10]))
    poisson = lgb.LGBMRegressor(n_estimators=10, objective="poisson", verbose=-1, n_jobs=1)
    poisson.fit(X, np.exp(X[:, 0]))
    _same(_fast(as_model(poisson), X), poisson.predict(X))


def test_nan_inf_and_other_dtypes_and_layouts(data):
    X, y2, y3 = data
    clf = _clf().fit(X, y3)
    m = as_model(clf)
    Xn = X[:20].copy()
    Xn[::3, 0] = np.nan
    Xn[1::4, 2] = np.inf
    Xn[2::5, 1] = -np.inf
    _same(_fast(m, Xn), clf.predict_proba(Xn))
    for Xv in (
        np.asfortranarray(X[:20]),
        X[:40:2],
        X[:20].astype(np.float32),
        np.round(X[:20] * 3).astype(np.int64),
        X[:20] > 0,
    ):
        _same(_fast(m, Xv), clf.predict_proba(Xv))


@pytest.mark.parametrize("n_jobs", [-1, 2, None])
def test_n_jobs(data, n_jobs):
    X, y2, _ = data
    clf = lgb.LGBMClassifier(n_estimators=20, verbose=-1, n_jobs=n_jobs).fit(X, y2)
    m = as_model(clf)
    _same(_fast(m, X), clf.predict_proba(X))
    threads = m._lightgbm._plan.params["num_threads"]
    assert isinstance(threads, int) and threads >= 1


def test_predict_stage_params_are_forwarded(data):
    X, _, y3 = data
    clf = _clf(n_estimators=40, pred_early_stop=True, pred_early_stop_margin=1.0,
               pred_early_stop_freq=2).fit(X, y3)
    m = as_model(clf)
    out = _fast(m, X)
    _same(out, clf.predict_proba(X))
    assert not np.array_equal(out, clf.booster_.predict(X))  # early stopping did change it


def test_set_params_and_refit_rebuild_the_cache(data):
    X, y2, _ = data
    clf = _clf().fit(X, y2)
    m = as_model(clf)
    old = _fast(m, X)
    clf.set_params(num_leaves=3, n_estimators=5).fit(X, y2)
    new = _fast(m, X)
    _same(new, clf.predict_proba(X))
    assert not np.array_equal(old, new)


def test_set_params_without_refit_changes_the_output(data):
    X, _, y3 = data
    clf = _clf(n_estimators=40).fit(X, y3)
    m = as_model(clf)
    old = _fast(m, X)
    clf.set_params(pred_early_stop=True, pred_early_stop_margin=1.0, pred_early_stop_freq=2)
    new = _fast(m, X)
    _same(new, clf.predict_proba(X))
    assert not np.array_equal(old, new)
    clf.set_params(pred_early_stop=False)
    _same(_fast(m, X), old)


def test_booster_is_called_instead_of_the_wrapper(data, monkeypatch):
    X, y2, _ = data
    clf = _clf().fit(X, y2)
    calls = {"booster": 0, "public": 0}
    booster_predict = lgb.Booster.predict
    public_proba = lgb.LGBMClassifier.predict_proba

    def count_booster(self, *args, **kwargs):
        calls["booster"] += 1
        return booster_predict(self, *args, **kwargs)

    def count_public(self, *args, **kwargs):
        calls["public"] += 1
        return public_proba(self, *args, **kwargs)

    monkeypatch.setattr(lgb.Booster, "predict", count_booster)
    monkeypatch.setattr(lgb.LGBMClassifier, "predict_proba", count_public)
    m = as_model(clf)
    m.predict_array(X[:10])  # self-check: fast call and public call
    assert calls == {"booster": 2, "public": 1}
    for _ in range(5):
        m.predict_array(X[:10])
    assert calls == {"booster": 7, "public": 1}
    assert m.n_calls == 6 and m.n_rows == 60 and m.time_in_model > 0


def test_dataframe_input_and_named_features_use_the_public_path(data):
    X, y2, _ = data
    df = pd.DataFrame(X, columns=list("abcde"))
    clf = _clf().fit(df, y2)  # fitted on named features
    m = as_model(clf)
    np.testing.assert_array_equal(m.predict(as_table(df)), clf.predict_proba(df)[:, 1])
    for _ in range(2):
        with pytest.warns(UserWarning, match="feature names"):  # the public path's warning stays
            out = m.predict_array(X[:10])
        with pytest.warns(UserWarning, match="feature names"):
            np.testing.assert_array_equal(out, clf.predict_proba(X[:10])[:, 1])
    assert m._lightgbm.n_fast == 0
    plain = _clf().fit(X, y2)  # fitted on an array, given a DataFrame: it gets the array it
    p = as_model(plain)  # was fitted on (SklearnModel.native_kind), so the fast path serves it
    for _ in range(3):
        np.testing.assert_array_equal(p.predict(as_table(df)), plain.predict_proba(df)[:, 1])
    assert p.native_kind(as_table(df)) == "numpy" and p._lightgbm.n_fast == 3


def test_random_state_object_uses_the_public_path(data):
    X, y2, _ = data
    clf = _clf(random_state=np.random.RandomState(3)).fit(X, y2)
    reference = np.random.RandomState(3)
    reference.set_state(clf.random_state.get_state())
    m = as_model(clf)
    for _ in range(4):
        np.testing.assert_array_equal(m.predict_array(X[:10]), clf.predict_proba(X[:10])[:, 1])
        reference.randint(np.iinfo(np.int32).max)  # the adapter's call
        reference.randint(np.iinfo(np.int32).max)  # the reference call above
    assert m._lightgbm.n_fast == 0
    assert clf.random_state.randint(1 << 30) == reference.randint(1 << 30)  # RNG drawn as before


@pytest.mark.parametrize(
    "bad",
    [
        lambda X: X[:, :3],
        lambda X: np.c_[X, X[:, :1]],
        lambda X: X[:0],
        lambda X: X.astype(str),
    ],
    ids=["too-few-features", "too-many-features", "no-rows", "strings"],
)
def test_invalid_input_raises_the_public_error(data, bad):
    X, y2, _ = data
    clf = _clf().fit(X, y2)
    m = as_model(clf)
    _fast(m, X)  # warm: the fast path is on
    with pytest.raises(Exception) as public:
        clf.predict_proba(bad(X))
    with pytest.raises(ModelEvaluationError) as ours:
        m.predict_array(bad(X))
    assert type(ours.value.__cause__) is type(public.value)
    assert str(ours.value.__cause__) == str(public.value)


def _first_booster_call_differs(monkeypatch):
    """Make the first ``Booster.predict`` call of the test return a last-bit different array
    (the self-check's fast call); the original method is returned for reference calls."""
    booster_predict = lgb.Booster.predict
    seen = {"n": 0}

    def first_call_differs(self, *args, **kwargs):
        seen["n"] += 1
        out = booster_predict(self, *args, **kwargs)
        return np.nextafter(out, 2.0) if seen["n"] == 1 else out

    monkeypatch.setattr(lgb.Booster, "predict", first_call_differs)
    return booster_predict


def test_self_check_mismatch_disables_the_fast_path(data, monkeypatch):
    X, _, y3 = data
    clf = _clf().fit(X, y3)
    booster_predict = _first_booster_call_differs(monkeypatch)
    m = as_model(clf)
    _same(m._predict_native(X), booster_predict(clf.booster_, X))  # the public result
    fast = m._lightgbm
    assert not fast.enabled
    for _ in range(3):
        _same(m._predict_native(X), clf.predict_proba(X))
    assert fast.n_fast == 0


def test_fast_call_raising_disables_the_fast_path(data, monkeypatch):
    X, y2, _ = data
    clf = _clf().fit(X, y2)
    m = as_model(clf)
    monkeypatch.setattr(m._lightgbm, "_predict", lambda X, plan: 1 / 0)
    _same(m._predict_native(X), clf.predict_proba(X))
    assert not m._lightgbm.enabled


def test_pickle_round_trip_keeps_working(data):
    X, y2, _ = data
    clf = _clf().fit(X, y2)
    m = as_model(clf)
    _fast(m, X)
    m2 = pickle.loads(pickle.dumps(m))
    assert m2._lightgbm._plan is None and m2._lightgbm.model is m2.model
    _same(_fast(m2, X), m2.model.predict_proba(X))


def test_only_exact_lightgbm_sklearn_classes(data):
    X, y2, _ = data

    class MyClassifier(lgb.LGBMClassifier):
        pass

    sub = MyClassifier(n_estimators=3, verbose=-1).fit(X, y2)
    assert lightgbm_fast_path(sub, "predict_proba") is None
    clf = _clf().fit(X, y2)
    assert lightgbm_fast_path(clf, "predict_proba") is not None
    assert lightgbm_fast_path(clf, "decision_function") is None
    ranker = lgb.LGBMRanker(n_estimators=3, verbose=-1)
    assert lightgbm_fast_path(ranker, "predict") is None
    from sklearn.linear_model import LinearRegression

    assert as_model(LinearRegression().fit(X, y2))._lightgbm is None


def test_callable_objective_uses_the_public_path(data):
    X, y2, _ = data

    def l2(y_true, y_pred):
        return y_pred - y_true, np.ones_like(y_true)

    reg = lgb.LGBMRegressor(n_estimators=5, objective=l2, verbose=-1, n_jobs=1).fit(X, X[:, 0])
    m = as_model(reg)
    for _ in range(2):
        np.testing.assert_array_equal(m.predict_array(X), reg.predict(X))
    assert m._lightgbm.n_fast == 0


@pytest.mark.parametrize("order", ["C", "F"])
def test_self_check_of_a_large_input_compares_its_first_rows(data, monkeypatch, order):
    """An input of more than 64 rows is self-checked on a copy of its first 64 rows in its own
    layout (one public call of 64 rows, not a second full prediction); the full input then goes
    to the booster, and the result is the public method's, bit for bit."""
    X, y2, _ = data
    X = np.asarray(X, order=order)
    clf = _clf().fit(X, y2)
    expected = clf.predict_proba(X)
    public_rows = []
    public_proba = lgb.LGBMClassifier.predict_proba

    def count_public(self, A, *args, **kwargs):
        public_rows.append((A.shape[0], A.flags.f_contiguous and not A.flags.c_contiguous))
        return public_proba(self, A, *args, **kwargs)

    monkeypatch.setattr(lgb.LGBMClassifier, "predict_proba", count_public)
    m = as_model(clf)
    _same(m._predict_native(X), expected)
    assert public_rows == [(64, order == "F")] and m._lightgbm.n_fast == 1
    _same(m._predict_native(X), expected)  # checked: no public call
    assert len(public_rows) == 1 and m._lightgbm.n_fast == 2


def test_self_check_mismatch_on_a_large_input_returns_the_public_result(data, monkeypatch):
    X, _, y3 = data
    clf = _clf().fit(X, y3)
    expected = clf.predict_proba(X)
    _first_booster_call_differs(monkeypatch)
    m = as_model(clf)
    _same(m._predict_native(X), expected)
    assert not m._lightgbm.enabled and m._lightgbm.n_fast == 0
