"""ixai's model wrappers on ixplain.compat.ixai: ixai's per-row dict contract, and given to an
explainer, the same explanation as the model's own method (they are unwrapped)."""

import builtins
import math

import numpy as np
import pytest

pytest.importorskip("river")

from river import metrics
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier

from ixplain.compat.ixai import IncrementalPFI, RiverWrapper, SklearnWrapper, TorchWrapper
from ixplain.compat.ixai.utils.wrappers import RiverMetricToLossFunction

rng = np.random.default_rng(1)
X = rng.normal(size=(300, 3))
Y = 3 * X[:, 0] - X[:, 2]
REG = LinearRegression().fit(X, Y)
CLF = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, X[:, 0] > 0)
RECORDS = [dict(zip("abc", row)) for row in X.tolist()]


def test_the_river_wrapper_returns_ixais_dicts():
    assert RiverWrapper(lambda x: 2 * x["a"])({"a": 2}) == {"output": 4.0}
    assert RiverWrapper(lambda x: {"no": 0.25, "yes": 0.75})({"a": 1}) == {"no": 0.25, "yes": 0.75}
    labels = RiverWrapper(lambda x: "yes" if x["a"] > 0 else "no")
    assert labels({"a": 1}) == {"yes": 1.0}
    assert labels({"a": -1}) == {"yes": 0.0, "no": 1.0}
    assert labels([{"a": 1}, {"a": -1}]) == [{"yes": 1.0, "no": 0.0}, {"yes": 0.0, "no": 1.0}]


def test_the_sklearn_wrapper_returns_ixais_dicts_in_its_column_order():
    f = SklearnWrapper(REG.predict)
    want = float(REG.predict(X[:1])[0])
    assert f(RECORDS[0]) == {"output": pytest.approx(want, abs=1e-12)}
    assert f(RECORDS[:2])[1] == {"output": pytest.approx(float(REG.predict(X[1:2])[0]))}
    probas = SklearnWrapper(CLF.predict_proba)(RECORDS[0])
    assert list(probas) == [0, 1] and sum(probas.values()) == pytest.approx(1.0)
    shuffled = {"c": RECORDS[0]["c"], "a": RECORDS[0]["a"], "b": RECORDS[0]["b"]}
    ordered = SklearnWrapper(REG.predict, feature_names=["a", "b", "c"])
    assert ordered(shuffled) == f(RECORDS[0])
    np.testing.assert_array_equal(ordered.convert_1d_input_to_arr(shuffled), X[:1])
    np.testing.assert_array_equal(ordered.convert_2d_input_to_arr(RECORDS[:3]), X[:3])


def run(model_function, names=("a", "b", "c")):
    pfi = IncrementalPFI(model_function, metrics.MSE(), list(names), n_inner_samples=2,
                         random_state=0)
    for x, y in zip(RECORDS, Y):
        values = pfi.explain_one(x, y)
    return values


def test_a_wrapped_model_explains_as_its_own_method():
    assert run(SklearnWrapper(REG.predict)) == run(REG.predict)


def test_a_wrapper_with_another_column_order_gives_the_same_values():
    """A model fitted on columns (c, a) behind SklearnWrapper(feature_names=['c', 'a']):
    the values of the equivalent per-row function; 'b', which it never sees, gets 0."""
    model = LinearRegression().fit(X[:, [2, 0]], Y)
    got = run(SklearnWrapper(model.predict, feature_names=["c", "a"]))
    want = run(lambda x: float(model.predict(np.array([[x["c"], x["a"]]]))[0]))
    assert abs(got["b"]) < 1e-12  # (batched BLAS rounding of the same rows)
    assert np.allclose([got[k] for k in "ac"], [want[k] for k in "ac"], rtol=1e-10)


def test_the_torch_wrapper_without_torch_says_how_to_install_it(monkeypatch):
    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch":
            raise ImportError("No module named 'torch'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    with pytest.raises(ImportError, match="pip install torch"):
        TorchWrapper(lambda t: t)


@pytest.mark.parametrize("metric, y, pred, want", [
    (metrics.MAE(), 1.0, {"output": 3.0}, 2.0),
    (metrics.MSE(), 1.0, {"output": 3.0}, 4.0),
    (metrics.Accuracy(), True, {"output": True}, -1.0),
    (metrics.Accuracy(), True, {"output": False}, 0.0),
])
def test_a_river_metric_is_ixais_per_row_loss(metric, y, pred, want):
    assert RiverMetricToLossFunction(metric)(y, pred) == want


def test_a_dict_metric_reads_the_probabilities():
    loss = RiverMetricToLossFunction(metrics.CrossEntropy(), dict_input_metric=True)
    assert loss("b", {"a": 0.2, "b": 0.8}) == pytest.approx(-math.log(0.8))
    with pytest.raises(KeyError, match="'output' entry"):
        RiverMetricToLossFunction(metrics.MAE())(1.0, {"a": 0.2})
