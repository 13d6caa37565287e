"""An ixai or River user's habits (issue 15): each must give exactly what the plain ixplain
call gives, so every comparison below is bit for bit against that call."""

import pickle
import warnings

import numpy as np
import pytest

river = pytest.importorskip("river")
from river import linear_model, metrics, stream, tree  # noqa: E402

from ixplain import IncrementalPDP, IncrementalPFI, IncrementalSAGE  # noqa: E402
from ixplain.compat import ixai as compat  # noqa: E402

rng = np.random.default_rng(0)
X = rng.normal(size=(500, 3))
Y = 2 * X[:, 0] + X[:, 1]
YC = X[:, 0] + 0.5 * X[:, 1] > 0
RECORDS = [dict(zip("abc", row)) for row in X.tolist()]


@pytest.fixture(scope="module")
def regressor():
    m = tree.HoeffdingTreeRegressor(grace_period=50)
    for x, y in zip(RECORDS, Y):
        m.learn_one(x, y)
    return m


@pytest.fixture(scope="module")
def classifier():
    m = tree.HoeffdingTreeClassifier(grace_period=50)
    for x, y in zip(RECORDS, YC):
        m.learn_one(x, bool(y))
    return m


def run(explainer, labels=Y, records=RECORDS):
    for x, y in zip(records, labels):
        explainer.explain_one(x, y)
    return explainer.importances_


def test_int_record_keys_as_river_iter_array_yields_them():
    """River's iter_array gives {0: .., 1: .., 2: ..}; the model learnt int keys, so the
    perturbed records must keep them (with str keys the model ignores every feature and every
    importance is 0). Int keys and the same stream with str keys give the same values."""
    m = linear_model.LinearRegression()
    for x, y in stream.iter_array(X, Y):
        m.learn_one(x, y)
    int_recs = [x for x, _ in stream.iter_array(X)]
    m_str = linear_model.LinearRegression()
    for x, y in zip(int_recs, Y):
        m_str.learn_one({str(k): v for k, v in x.items()}, y)
    str_recs = [{str(k): v for k, v in x.items()} for x in int_recs]
    for cls in (IncrementalSAGE, IncrementalPFI):
        a = run(cls(m, loss="squared_error", random_state=0), records=int_recs)
        b = run(cls(m_str, loss="squared_error", random_state=0), records=str_recs)
        np.testing.assert_array_equal(a, b)
        assert a[0] > a[1] > 0.1 and abs(a[2]) < 0.05
    many = IncrementalPFI(m, loss="squared_error", random_state=0)
    many.explain_many(int_recs, Y)
    np.testing.assert_array_equal(many.importances_, a)  # a: the iPFI loop, bit for bit


def test_bound_one_methods_and_per_row_functions_are_the_model(regressor, classifier):
    base = run(IncrementalPFI(regressor, "squared_error", random_state=0))
    for f in (regressor.predict_one, lambda x: regressor.predict_one(x)):
        np.testing.assert_array_equal(run(IncrementalPFI(f, "squared_error", random_state=0)), base)
    proba = run(IncrementalPFI(classifier, "log_loss", random_state=0), YC.tolist())
    for f in (classifier.predict_proba_one, lambda x: classifier.predict_proba_one(x)):
        got = run(IncrementalPFI(f, "log_loss", random_state=0), YC.tolist())
        np.testing.assert_array_equal(got, proba)
    labels = run(IncrementalPFI(classifier, "zero_one", random_state=0), YC.tolist())
    for f in (classifier.predict_one, lambda x: classifier.predict_one(x)):
        got = run(IncrementalPFI(f, "zero_one", random_state=0), YC.tolist())
        np.testing.assert_array_equal(got, labels)
    assert proba[0] > 0.1 and labels[0] > 0.05


def test_per_row_function_in_ipdp_and_pickle(regressor):
    a = IncrementalPDP(regressor, "a", random_state=0)
    b = IncrementalPDP(lambda x: regressor.predict_one(x), "a", random_state=0)
    for x in RECORDS[:200]:
        a.explain_one(x)
        b.explain_one(x)
    np.testing.assert_array_equal(a.pd_.average, b.pd_.average)
    pfi = IncrementalPFI(regressor.predict_one, "squared_error", random_state=0)
    run(pfi, Y[:50], RECORDS[:50])
    again = pickle.loads(pickle.dumps(pfi))
    np.testing.assert_array_equal(run(again, Y[50:], RECORDS[50:]), run(pfi, Y[50:], RECORDS[50:]))


def test_bound_method_with_another_response_is_refused(classifier):
    with pytest.raises(ValueError, match="predict_one but response_method='predict_proba'"):
        IncrementalPFI(classifier.predict_one, "zero_one", response_method="predict_proba")


@pytest.mark.parametrize(
    "metric, name", [(metrics.MSE(), "squared_error"), (metrics.MAE(), "absolute_error")]
)
def test_river_metrics_are_their_losses(regressor, metric, name):
    a = run(IncrementalPFI(regressor, metric, random_state=0))
    np.testing.assert_array_equal(a, run(IncrementalPFI(regressor, name, random_state=0)))


def test_river_classification_metrics(classifier):
    labels = YC.tolist()
    for metric, name in ((metrics.LogLoss(), "log_loss"), (metrics.CrossEntropy(), "log_loss"),
                         (metrics.Accuracy(), "zero_one")):
        got = run(IncrementalPFI(classifier, metric, random_state=0), labels)
        np.testing.assert_array_equal(got, run(IncrementalPFI(classifier, name, random_state=0),
                                               labels))


@pytest.mark.parametrize("metric, hint", [(metrics.RMSE(), "MSE"), (metrics.R2(), "MSE"),
                                          (metrics.F1(), "MSE, MAE, LogLoss")])
def test_river_metrics_without_a_per_row_loss_are_refused(metric, hint):
    with pytest.raises(ValueError, match=f"not the mean of a per-observation loss.*{hint}"):
        IncrementalPFI(lambda x: 0.0, metric)


def test_river_classifier_with_labels_of_another_type_is_refused(classifier):
    """The model's classes are True/False; labels "yes"/"no" never match: the first is
    refused (the tree keeps its classes, so they are known before any model call)."""
    text = np.where(YC, "yes", "no").tolist()
    for loss in ("zero_one", "log_loss"):
        ex = IncrementalPFI(classifier, loss, random_state=0)
        with pytest.raises(ValueError, match=r"stream row 0\) is '(yes|no)' \(str\), which "
                                             r"cannot be one of the model's classes"):
            run(ex, text[:20], RECORDS[:20])
        assert ex.n_seen_ == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(IncrementalPFI(classifier, "zero_one", random_state=0), YC.tolist()[:20], RECORDS[:20])


def test_ixai_loop_runs_after_changing_the_import(regressor):
    """ixai 0.1.3's call, word for word but the import."""
    storage = compat.GeometricReservoirStorage(size=100, store_targets=False)
    explainer = compat.IncrementalPFI(
        model_function=regressor.predict_one, loss_function=metrics.MSE(),
        feature_names=["a", "b", "c"], smoothing_alpha=0.001, n_inner_samples=1,
        storage=storage,
    )
    for x, y in zip(RECORDS, Y):
        values = explainer.explain_one(x, y)
    assert list(values) == ["a", "b", "c"] and values == explainer.importance_values
    assert explainer.seen_samples == len(RECORDS) and set(explainer.variances) == set(values)
    sage = compat.IncrementalSage(regressor.predict_one, metrics.MSE(), ["a", "b", "c"],
                                  storage=compat.UniformReservoirStorage(100), random_state=0)
    for x, y in zip(RECORDS, Y):
        sage.explain_one(x, y)
    assert sage.importance_values["a"] > sage.importance_values["c"]


def test_ixai_compat_refuses_what_it_cannot_do(regressor):
    """An imputer other than ixai's marginal one is refused (update_storage=False is ixai's
    meaning now: tests/compat/test_ixai_explainers.py)."""
    with pytest.raises(ValueError, match="'imputer' parameter must be None.*object"):
        compat.IncrementalPFI(regressor.predict_one, metrics.MSE(), ["a"], imputer=object())


def test_river_pipeline_with_a_step_without_transform_many():
    """compose.Discard has only transform_one: the pipeline is evaluated per row (the message
    used to blame predict_one); the discarded feature gets exactly 0."""
    from river import compose, preprocessing

    m = compose.Discard("c") | preprocessing.StandardScaler() | linear_model.LinearRegression()
    for x, y in zip(RECORDS, Y):
        m.learn_one(x, y)
    got = run(IncrementalPFI(m, "squared_error", random_state=0))
    assert got[2] == 0.0 and got[0] > got[1] > 0.1
    ref = run(IncrementalPFI(lambda x: m.predict_one(x), "squared_error", random_state=0))
    np.testing.assert_array_equal(got, ref)
