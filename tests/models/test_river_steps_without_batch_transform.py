"""A River pipeline whose ``TransformerUnion`` (or nested pipeline) holds a step with only
``transform_one`` (``compose.Discard``, ``compose.Select``): the union has ``transform_many`` but
calls its members', so ``predict_many`` raised ``AttributeError`` (reported as a failure of
``predict_one``). The adapter now evaluates such a pipeline row by row; the reference is the
same quantity from ``predict_one`` called on each record."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain import IncrementalPFI, partial_dependence
from ixplain.models.adapters import _transforms_batches

river = pytest.importorskip("river")
from river import compose, linear_model, preprocessing  # noqa: E402


def _records(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = [{"a": float(a), "b": float(b), "c": float(c)} for a, b, c in rng.normal(size=(n, 3))]
    return X, [2.0 * x["a"] + x["b"] for x in X]


def _trained(first_step):
    model = first_step | linear_model.LinearRegression(intercept_lr=0.01)
    X, y = _records()
    for x, t in zip(X, y):
        model.learn_one(x, t)
    return model, X, y


UNIONS = {
    "discard_in_union": lambda: compose.TransformerUnion(
        compose.Discard("c"), compose.Select("a") | preprocessing.StandardScaler()),
    "discard_in_nested_pipeline_in_union": lambda: compose.TransformerUnion(
        compose.Discard("c") | preprocessing.StandardScaler(), compose.Select("a")),
    # River's own predict_many raises on the duplicate column 'b'; predict_one merges them
    "members_with_the_same_output": lambda: compose.TransformerUnion(
        compose.Select("a", "b") | preprocessing.StandardScaler(), compose.Select("b")),
}


@pytest.mark.parametrize("name", sorted(UNIONS))
def test_partial_dependence_equals_the_mean_of_predict_one_over_the_records(name):
    model, X, _ = _trained(UNIONS[name]())
    r = partial_dependence(model, X, ["a"], grid_resolution=5)
    ref = [np.mean([model.predict_one({**x, "a": v}) for x in X]) for v in r.grid_values[0]]
    np.testing.assert_allclose(r.average[0], ref, rtol=1e-12, atol=1e-12)


def test_stream_importance_of_the_discarded_feature_is_zero_and_equals_predict_one():
    model, X, y = _trained(UNIONS["discard_in_union"]())

    def run(m):
        explainer = IncrementalPFI(m, "squared_error", random_state=0)
        for x, t in zip(X[:60], y[:60]):
            explainer.explain_one(x, t)
        return explainer.importances_

    got = run(model)
    ref = run(lambda x: model.predict_one(x))
    assert got[2] == 0.0 and got[0] > 0.1
    np.testing.assert_array_equal(got, ref)


def test_batch_transform_is_checked_at_every_depth():
    scaler = preprocessing.StandardScaler()
    assert _transforms_batches(scaler)
    assert not _transforms_batches(compose.Discard("c"))
    assert not _transforms_batches(compose.TransformerUnion(compose.Discard("c"), scaler))
    assert not _transforms_batches(compose.TransformerUnion(
        compose.Discard("c") | preprocessing.StandardScaler(), scaler))
    assert _transforms_batches(compose.TransformerUnion(
        compose.Select("a") | preprocessing.StandardScaler(), compose.Select("b")))


def test_classifier_probabilities_through_a_union_with_discard_equal_predict_proba_one():
    model = compose.TransformerUnion(compose.Discard("c"), compose.Select("a")) | \
        linear_model.LogisticRegression()
    X, y = _records()
    for x, t in zip(X, y):
        model.learn_one(x, t > 0)
    r = partial_dependence(model, X, ["a"], grid_resolution=4)
    ref = [np.mean([model.predict_proba_one({**x, "a": v})[True] for x in X])
           for v in r.grid_values[0]]
    np.testing.assert_allclose(r.average[0], ref, rtol=1e-12, atol=1e-12)


def test_a_model_whose_batch_and_row_paths_both_fail_still_raises_the_models_error():
    from ixplain import ModelEvaluationError

    model, X, _ = _trained(UNIONS["members_with_the_same_output"]())

    def broken(x):
        raise ZeroDivisionError("the row path fails too")

    model.predict_one = broken  # (instance attribute: predict_many still raises its own error)
    with pytest.raises(ModelEvaluationError, match="DuplicateError"):
        partial_dependence(model, X, ["a"], grid_resolution=3)
