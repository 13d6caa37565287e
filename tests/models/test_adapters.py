"""Model adapters: output convention, response selection, native input types, batching, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import SVC

from ixplain import ModelEvaluationError, as_model
from ixplain.models import BoosterModel, CallableModel, RiverModel, SklearnModel, rows_for_budget
from ixplain.tabular import as_table


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, (X[:, 0] > 0).astype(int), np.digitize(X[:, 1], [-0.5, 0.5])


def test_sklearn_regressor_and_multioutput(data):
    X, _, _ = data
    reg = LinearRegression().fit(X, X[:, 0])
    m = as_model(reg)
    assert isinstance(m, SklearnModel) and m.response_method == "predict" and not m.is_classifier
    np.testing.assert_array_equal(m.predict(as_table(X)), reg.predict(X))
    multi = LinearRegression().fit(X, np.c_[X[:, 0], X[:, 1]])
    assert as_model(multi).predict(as_table(X)).shape == (60, 2)
    with pytest.raises(ValueError, match="has no method 'predict_proba'"):
        as_model(reg, response_method="predict_proba")


def test_binary_classifier_positive_class_and_responses(data):
    X, y, _ = data
    labels = np.where(y == 1, "yes", "no")
    clf = LogisticRegression().fit(X, labels)
    m = as_model(clf)
    assert m.response_method == "predict_proba" and list(m.classes_) == ["no", "yes"]
    np.testing.assert_array_equal(m.predict(as_table(X)), clf.predict_proba(X)[:, 1])
    d = as_model(clf, response_method="decision_function")
    np.testing.assert_array_equal(d.predict(as_table(X)), clf.decision_function(X))
    neg = as_model(clf, target="no")
    np.testing.assert_array_equal(neg.predict(as_table(X)), clf.predict_proba(X)[:, 0])
    svc = SVC().fit(X, y)  # no predict_proba: auto falls back to decision_function
    assert as_model(svc).response_method == "decision_function"


def test_multiclass_all_classes_or_target(data):
    X, _, y3 = data
    labels = np.array(["a", "b", "c"])[y3]
    clf = LogisticRegression().fit(X, labels)
    m = as_model(clf)
    assert m.predict(as_table(X)).shape == (60, 3) and m.output_names == ["a", "b", "c"]
    t = as_model(clf, target="c")
    np.testing.assert_array_equal(t.predict(as_table(X)), clf.predict_proba(X)[:, 2])
    with pytest.raises(ValueError, match="not one of the model's classes"):
        as_model(clf, target="z")


def test_pipeline_gets_dataframe_with_user_dtypes():
    df = pd.DataFrame(
        {
            "city": ["a", "b", "c", "a"] * 5,
            "kind": pd.Categorical(["u", "v"] * 10),
            "n": np.arange(20),
            "x": np.linspace(0, 1, 20),
        }
    )
    seen = {}

    class Spy(LinearRegression):
        def predict(self, X):
            seen["type"] = type(X)
            return super().predict(X)

    ct = ColumnTransformer([("oh", OneHotEncoder(), ["city", "kind"])], remainder="passthrough")
    pipe = make_pipeline(ct, Spy()).fit(df, df["x"] * 2)
    m = as_model(pipe)
    np.testing.assert_allclose(m.predict(as_table(df)), pipe.predict(df))
    recs = as_table(df.to_dict(orient="records"))
    assert m.native_kind(recs) == "pandas"
    seen_df = {}

    def spy_callable(frame):
        seen_df.update(frame.dtypes.to_dict())
        return np.zeros(len(frame))

    as_model(spy_callable).predict(as_table(df))
    assert seen_df == df.dtypes.to_dict()


def test_estimator_fitted_on_an_array_gets_an_array_for_a_dataframe(data):
    """scikit-learn warned "X has feature names, but LinearRegression was fitted without
    feature names" on every call with a DataFrame (``ixplain explain`` on a CSV: once per
    method). An estimator with ``n_features_in_`` but no ``feature_names_in_`` now gets the
    frame's array -- the array scikit-learn made of it, so the values are the same; one
    fitted on a DataFrame, and an sklearn-API estimator that says nothing of its input
    (no ``n_features_in_``), still get the DataFrame."""
    import warnings

    from ixplain import partial_dependence, permutation_importance

    X, _, _ = data
    y = X @ np.array([1.0, -2.0, 0.5])
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    seen = []

    class Spy(LinearRegression):
        def predict(self, Z):
            seen.append(type(Z))
            return super().predict(Z)

    on_array, on_frame = Spy().fit(X, y), Spy().fit(df, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (any warning fails the test)
        pfi = permutation_importance(on_array, df, y, n_repeats=3, random_state=0)
        pd_ = partial_dependence(on_array, df, ["a"], grid_resolution=5)
    assert set(seen) == {np.ndarray}
    ref_pfi = permutation_importance(on_array, X, y, n_repeats=3, random_state=0)
    ref_pd = partial_dependence(on_array, X, [0], grid_resolution=5)
    np.testing.assert_array_equal(pfi.importances_mean, ref_pfi.importances_mean)
    np.testing.assert_array_equal(pd_["average"], ref_pd["average"])
    seen.clear()
    np.testing.assert_array_equal(as_model(on_frame).predict(as_table(df)), on_frame.predict(df))
    assert seen[-1] is pd.DataFrame
    assert as_model(on_array).native_kind(as_table(df)) == "numpy"
    assert as_model(on_array, input_kind="pandas").native_kind(as_table(df)) == "pandas"

    class Reads:  # reads its columns by name; no n_features_in_
        def fit(self, Z, t):
            return self

        def predict(self, Z):
            return Z["a"].to_numpy() * 2.0

    np.testing.assert_array_equal(as_model(Reads()).predict(as_table(df)), 2.0 * X[:, 0])


def test_own_estimator_with_n_features_in_keeps_its_dataframe(data):
    """A user's estimator on scikit-learn's ``BaseEstimator`` that sets ``n_features_in_`` by
    hand (no ``feature_names_in_``) and reads its columns by name was given the frame's array
    (``IndexError`` inside its ``predict``) once arrays went to estimators fitted on arrays:
    only estimators whose prediction method is scikit-learn's, LightGBM's or XGBoost's (which
    record names when fitted on them) get the array. PFI of ``f = 2 a``: a's importance is
    ``E[(2 a - 2 a')^2] = 8 Var(a)`` up to sampling, b's exactly 0."""
    from sklearn.base import BaseEstimator, RegressorMixin

    from ixplain import permutation_importance

    X, _, _ = data
    df = pd.DataFrame(X, columns=["a", "b", "c"])

    class Mine(RegressorMixin, BaseEstimator):
        def fit(self, Z, t):
            self.n_features_in_ = Z.shape[1]
            return self

        def predict(self, Z):
            return 2.0 * Z["a"].to_numpy()

    model = Mine().fit(df, None)
    assert as_model(model).native_kind(as_table(df)) == "pandas"
    res = permutation_importance(model, df, 2.0 * df["a"].to_numpy(), n_repeats=5,
                                 loss="squared_error", random_state=0)
    assert res.importances_mean[1] == 0.0 and res.importances_mean[2] == 0.0
    np.testing.assert_allclose(res.importances_mean[0], 8.0 * X[:, 0].var(), rtol=0.2)
    assert as_model(make_pipeline(StandardScaler(), LinearRegression()).fit(
        X, X[:, 0])).native_kind(as_table(df)) == "numpy"


def test_lightgbm_and_xgboost_sklearn_api_and_boosters(data):
    lightgbm = pytest.importorskip("lightgbm")
    xgboost = pytest.importorskip("xgboost")
    X, y, y3 = data
    for clf in (lightgbm.LGBMClassifier(n_estimators=5, verbose=-1), xgboost.XGBClassifier(n_estimators=5)):
        clf.fit(X, y)
        m = as_model(clf)
        assert m.is_classifier and m.response_method == "predict_proba"
        np.testing.assert_allclose(m.predict(as_table(X)), clf.predict_proba(X)[:, 1])
    lgb3 = lightgbm.LGBMClassifier(n_estimators=5, verbose=-1).fit(X, y3)
    np.testing.assert_allclose(as_model(lgb3, target=2).predict(as_table(X)), lgb3.predict_proba(X)[:, 2])
    for reg in (lightgbm.LGBMRegressor(n_estimators=5, verbose=-1), xgboost.XGBRegressor(n_estimators=5)):
        reg.fit(X, X[:, 0])
        np.testing.assert_allclose(as_model(reg).predict(as_table(X)), reg.predict(X))
    bst = lightgbm.train({"objective": "regression", "verbose": -1}, lightgbm.Dataset(X, X[:, 0]), 3)
    m = as_model(bst)
    assert isinstance(m, BoosterModel)
    np.testing.assert_allclose(m.predict(as_table(X)), bst.predict(X))
    xb = xgboost.train({}, xgboost.DMatrix(X, X[:, 0]), 3)
    np.testing.assert_allclose(as_model(xb).predict(as_table(X)), xb.predict(xgboost.DMatrix(X)))


def test_river_regressor_many_and_one(data):
    from river import linear_model, tree

    X, _, _ = data
    recs = pd.DataFrame(X, columns=["a", "b", "c"]).to_dict(orient="records")
    many, one = linear_model.LinearRegression(), tree.HoeffdingTreeRegressor(grace_period=5)
    for x in recs:
        many.learn_one(x, x["a"] * 2)
        one.learn_one(x, x["a"] * 2)
    for model in (many, one):
        m = as_model(model)
        assert isinstance(m, RiverModel) and m.response_method == "predict_one"
        expected = [model.predict_one(r) for r in recs]
        np.testing.assert_allclose(m.predict(as_table(recs)), expected)


def test_river_classifier_classes_learnt_and_target(data):
    from river import tree

    X, y, y3 = data
    recs = pd.DataFrame(X, columns=["a", "b", "c"]).to_dict(orient="records")
    clf = tree.HoeffdingTreeClassifier(grace_period=5)
    for x, t in zip(recs, y3):
        clf.learn_one(x, int(t))
    m = as_model(clf)
    out = m.predict(as_table(recs))
    assert out.shape == (60, 3) and list(m.classes_) == [0, 1, 2]
    np.testing.assert_allclose(out[:, 1], [clf.predict_proba_one(r).get(1, 0.0) for r in recs])
    t = as_model(clf, target=2)
    np.testing.assert_allclose(t.predict(as_table(recs)), out[:, 2])
    fixed = as_model(clf, classes=[2, 1, 0])
    np.testing.assert_allclose(fixed.predict(as_table(recs)), out[:, ::-1])
    binary = tree.HoeffdingTreeClassifier(grace_period=5)
    for x, t in zip(recs, y):
        binary.learn_one(x, bool(t))
    bm = as_model(binary)
    bm.observe_labels([False, True])
    np.testing.assert_allclose(bm.predict(as_table(recs)),
                               [binary.predict_proba_one(r).get(True, 0.0) for r in recs])


def test_callables_on_array_frame_records_and_input_kind(data):
    X, _, _ = data
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    arr = as_model(lambda A: A[:, 0])
    assert isinstance(arr, CallableModel)
    np.testing.assert_array_equal(arr.predict(as_table(X)), X[:, 0])
    frame = as_model(lambda d: d["a"])  # a Series output is accepted
    np.testing.assert_array_equal(frame.predict(as_table(df)), X[:, 0])
    rec = as_model(lambda rows: [r["a"] for r in rows])
    np.testing.assert_array_equal(rec.predict(as_table(df.to_dict(orient="records"))), X[:, 0])
    forced = as_model(lambda A: A[:, 1], input_kind="numpy")
    np.testing.assert_array_equal(forced.predict(as_table(df)), X[:, 1])
    with pytest.raises(ValueError, match="'response_method' parameter"):
        as_model(lambda A: A, response_method="predict_proba")
    with pytest.raises(ValueError, match="'input_kind' parameter"):
        as_model(lambda A: A, input_kind="arrow")
    with pytest.raises(TypeError, match="cannot evaluate a int"):
        as_model(3)


def test_batching_counters_and_predict_array(data):
    X, _, _ = data
    sizes = []

    def f(A):
        sizes.append(len(A))
        return A.sum(axis=1)

    m = as_model(f)
    out = m.predict(as_table(X), batch_rows=25)
    assert sizes == [25, 25, 10] and m.n_calls == 3 and m.n_rows == 60 and m.time_in_model >= 0
    np.testing.assert_allclose(out, X.sum(axis=1))
    sizes.clear()
    np.testing.assert_allclose(m.predict_array(X, batch_rows=50), X.sum(axis=1))
    assert sizes == [50, 10]
    assert rows_for_budget(10, 8_000) == 100 and rows_for_budget(10, 1) == 1


def test_model_errors_are_wrapped_with_context(data):
    X, _, _ = data

    def broken(A):
        raise RuntimeError("kaput")

    with pytest.raises(ModelEvaluationError, match=r"broken raised RuntimeError on a batch of 60 rows.*kaput") as info:
        as_model(broken).predict(as_table(X))
    assert isinstance(info.value.__cause__, RuntimeError)
    with pytest.raises(ModelEvaluationError, match="returned 2 predictions for 60 rows"):
        as_model(lambda A: np.zeros(2)).predict(as_table(X))


def test_unfitted_or_methodless_estimators(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="has no classes_"):
        as_model(LogisticRegression())
    with pytest.raises(ValueError, match="has no method 'decision_function'"):
        as_model(LinearRegression().fit(X, y), response_method="decision_function")


def test_batch_function_keeps_a_bounded_set_of_pending_labels():
    """A batch function's adapter keeps the distinct labels it sees only until it knows
    whether the function is a per-row classifier; for a regression stream of numpy rows
    (every label distinct) it stops at ``_MAX_PENDING_LABELS`` (they were all kept, each
    looked up in a list: memory and time grew with the stream). The importances are those
    of the same stream with labels observed nowhere: the labels do not enter the values."""
    from ixplain import IncrementalPFI
    from ixplain.models.adapters import _MAX_PENDING_LABELS

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = X @ np.array([1.0, 2.0]) + rng.normal(size=3000)
    e = IncrementalPFI(lambda Z: np.asarray(Z) @ np.array([1.0, 2.0]), loss="squared_error",
                       random_state=0)
    e.explain_many(X, y)
    assert len(e._model._labels) == _MAX_PENDING_LABELS < 3000
    ref = IncrementalPFI(lambda Z: np.asarray(Z) @ np.array([1.0, 2.0]), loss="squared_error",
                         random_state=0)
    ref._model.observe_labels = lambda labels: None
    ref.explain_many(X, y)
    np.testing.assert_array_equal(e.importances_, ref.importances_)
