"""The batch evaluator of River's Hoeffding trees equals River's own per-row predictions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("river")

import river
from river import compose, linear_model, tree
from river.datasets.synth import Agrawal, Friedman

from ixplain.models import as_model
from ixplain.models.river_trees import VERIFIED_RIVER_VERSIONS, predict_river_tree
from ixplain.tabular import as_table

NOMINAL = ["elevel", "car", "zipcode"]

pytestmark = pytest.mark.skipif(
    river.__version__ not in VERIFIED_RIVER_VERSIONS,
    reason="batch evaluator only enabled for River versions whose tree code it follows",
)


def _agrawal(n, seed=1, drop_every=7):
    rows = []
    for i, (x, y) in enumerate(Agrawal(classification_function=2, seed=seed).take(n)):
        x = dict(x)
        if drop_every and i % drop_every == 3:  # some records miss keys (River supports it)
            x.pop("salary")
            x.pop("elevel")
            x.pop("age")
        rows.append((x, y))
    return rows


def _friedman(n, seed=2, drop_every=9):
    rng = np.random.default_rng(seed)
    rows = []
    for i, (x, y) in enumerate(Friedman(seed=seed).take(n)):
        x = {f"x{k}": v for k, v in x.items()}
        g = ["a", "b", "c"][int(rng.integers(3))]
        x["grp"] = g
        y = y + {"a": 0.0, "b": 6.0, "c": -6.0}[g]
        if drop_every and i % drop_every == 4:
            x.pop("x0")
            x.pop("grp")
        rows.append((x, y))
    return rows


def _probe(rows):
    """Training-like records, plus perturbed copies (values from other rows), as the explainers build."""
    X = [dict(x) for x, _ in rows]
    rng = np.random.default_rng(0)
    for i in range(0, len(rows), 5):
        x = dict(rows[i][0])
        donor = rows[int(rng.integers(len(rows)))][0]
        for k in list(donor)[: int(rng.integers(1, 4))]:
            x[k] = donor[k]
        X.append(x)
    return X


def _assert_classifier_equal(model, X):
    got = predict_river_tree(model, X, "predict_proba_one")
    assert got is not None, "the batch path was not taken"
    keys, proba = got
    ref = [model.predict_proba_one(x) for x in X]
    assert set(keys) >= {k for d in ref for k in d}
    expected = np.array([[d.get(k, 0.0) for k in keys] for d in ref])
    np.testing.assert_array_equal(proba, expected)
    labels = predict_river_tree(model, X, "predict_one")
    assert labels is not None
    assert labels.tolist() == [model.predict_one(x) for x in X]


@pytest.mark.parametrize("leaf_prediction", ["mc", "nb", "nba"])
@pytest.mark.parametrize("binary_split", [False, True])
def test_classifier_equals_predict_proba_one(leaf_prediction, binary_split):
    rows = _agrawal(1500)
    model = tree.HoeffdingTreeClassifier(
        leaf_prediction=leaf_prediction,
        grace_period=40,
        delta=1e-3,
        binary_split=binary_split,
        nominal_attributes=NOMINAL,
    )
    X = _probe(rows[:150])
    _assert_classifier_equal(model, X)  # untrained: root is None
    n_checked = 0
    for i, (x, y) in enumerate(rows):
        model.learn_one(x, y)
        if i in (0, 30, 300) or i % 400 == 399:
            _assert_classifier_equal(model, X)
            n_checked += 1
    assert n_checked >= 5
    assert model.n_branches >= 1  # the routing was exercised, not only a root leaf


def test_classifier_multiclass_and_nominal_binary_branch():
    rng = np.random.default_rng(3)
    model = tree.HoeffdingTreeClassifier(
        leaf_prediction="nba", grace_period=30, binary_split=True, nominal_attributes=["c"]
    )
    rows = []
    for _ in range(2000):
        x = {"a": float(rng.normal()), "c": str(rng.integers(4))}
        y = int(x["c"] == "2") + 2 * int(x["a"] > 0.5)
        rows.append((x, y))
    X = [dict(x) for x, _ in rows[:200]] + [{"a": 0.1}, {"c": "9"}, {}]
    for i, (x, y) in enumerate(rows):
        model.learn_one(x, y)
        if i % 400 == 399:
            _assert_classifier_equal(model, X)
    kinds = {type(n).__name__ for n in model._root.iter_dfs()}
    assert "NominalBinaryBranch" in kinds


@pytest.mark.parametrize(
    ("leaf_prediction", "numeric_only_leaf_model"),
    [("mean", False), ("model", True), ("adaptive", True)],
)
def test_regressor_equals_predict_one(leaf_prediction, numeric_only_leaf_model):
    rows = _friedman(1200)
    kwargs = {}
    if numeric_only_leaf_model:  # River's linear model cannot take the nominal feature itself
        kwargs["leaf_model"] = compose.Discard("grp") | linear_model.LinearRegression()
    model = tree.HoeffdingTreeRegressor(
        leaf_prediction=leaf_prediction, grace_period=50, nominal_attributes=["grp"], **kwargs
    )
    X = _probe(rows[:120])
    np.testing.assert_array_equal(predict_river_tree(model, X, "predict_one"), 0.0)
    for i, (x, y) in enumerate(rows):
        model.learn_one(x, y)
        if i in (10, 200) or i % 400 == 399:
            got = predict_river_tree(model, X, "predict_one")
            assert got is not None
            np.testing.assert_array_equal(got, [model.predict_one(x) for x in X])
    assert model.n_branches >= 1


def test_river_model_adapter_uses_batch_path_and_matches():
    rows = _agrawal(1500, drop_every=0)
    model = tree.HoeffdingTreeClassifier(leaf_prediction="nba", nominal_attributes=NOMINAL)
    for x, y in rows:
        model.learn_one(x, y)
    X = [x for x, _ in rows[:200]]
    adapter = as_model(model)
    got = adapter.predict(as_table(X))
    np.testing.assert_array_equal(got, [model.predict_proba_one(x)[1] for x in X])
    labels = as_model(model, response_method="predict").predict(as_table(X))
    assert labels.tolist() == [model.predict_one(x) for x in X]
    expected = [model.predict_proba_one(x)[1] for x in X]

    def per_row_forbidden(x):
        raise AssertionError("the per-row path was taken")

    model.predict_proba_one = per_row_forbidden  # instance attribute shadows River's method
    try:
        np.testing.assert_array_equal(as_model(model).predict(as_table(X)), expected)
    finally:
        del model.predict_proba_one
    fixed = as_model(model, classes=[0, 1, 7]).predict(as_table(X))  # 7: never seen -> 0.0
    np.testing.assert_array_equal(
        fixed, [[model.predict_proba_one(x).get(c, 0.0) for c in (0, 1, 7)] for x in X]
    )
    reg = tree.HoeffdingTreeRegressor(
        leaf_prediction="mean", grace_period=50, nominal_attributes=["grp"]
    )
    rows_r = _friedman(600, drop_every=0)
    for x, y in rows_r:
        reg.learn_one(x, y)
    Xr = [x for x, _ in rows_r[:100]]
    np.testing.assert_array_equal(
        as_model(reg).predict(as_table(Xr)), [reg.predict_one(x) for x in Xr]
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: tree.HoeffdingAdaptiveTreeClassifier(grace_period=40, seed=0),
        lambda: tree.ExtremelyFastDecisionTreeClassifier(grace_period=40),
    ],
)
def test_fallback_for_unsupported_trees(make):
    rows = _agrawal(800, drop_every=0)
    model = make()
    for x, y in rows:
        model.learn_one(x, y)
    X = [x for x, _ in rows[:100]]
    assert predict_river_tree(model, X, "predict_proba_one") is None
    got = as_model(model).predict(as_table(X))  # per-row path, same numbers
    np.testing.assert_array_equal(got, [model.predict_proba_one(x).get(1, 0.0) for x in X])


def test_fallback_for_non_numeric_value_at_numeric_split():
    model = tree.HoeffdingTreeClassifier(grace_period=10)
    for i in range(200):
        model.learn_one({"a": float(i % 50)}, i % 50 >= 25)
    assert model.n_branches >= 1
    assert predict_river_tree(model, [{"a": "text"}], "predict_proba_one") is None
    assert predict_river_tree(model, [{"a": 1.0}], "predict") is None  # not a River method
    assert predict_river_tree(model, [], "predict_proba_one") is None


@pytest.mark.parametrize("leaf_prediction", ["nb", "nba"])
def test_naive_bayes_with_nan_inf_and_extreme_values(leaf_prediction):
    """Values whose Gaussian log-density is NaN (a NaN value) or -inf (an infinite value):
    River adds nothing for them; the batch path must do the same, in the shortcut taken when
    every class has a density too. Records are an observation and copies of it with one value
    replaced, as the explainers send them (the partial sums are shared)."""
    rows = _agrawal(800, drop_every=0)
    model = tree.HoeffdingTreeClassifier(leaf_prediction=leaf_prediction, grace_period=2000)
    for x, y in rows:
        model.learn_one(x, y)  # one leaf, many observations: naive Bayes is used
    base = dict(rows[0][0])
    X = [base]
    for k, v in [("salary", float("nan")), ("age", float("inf")), ("loan", 3.5)]:
        x = dict(base)
        x[k] = v
        X.append(x)
    got = predict_river_tree(model, X, "predict_proba_one")
    assert got is not None, "the batch path was not taken"
    keys, proba = got
    expected = np.array([[model.predict_proba_one(x).get(k, 0.0) for k in keys] for x in X])
    np.testing.assert_array_equal(proba, expected)


def test_unverified_river_version_takes_the_per_row_path_without_importing(monkeypatch):
    """Another River version is told by its version alone: the internals are never imported
    (a failed import would be retried on every call) and the per-row path gives River's
    numbers."""
    import ixplain.models.river_trees as rt

    rows = _agrawal(300, drop_every=0)
    model = tree.HoeffdingTreeClassifier(grace_period=20)
    for x, y in rows:
        model.learn_one(x, y)
    X = [x for x, _ in rows[:30]]

    def no_import():
        raise AssertionError("_river() must not be called for an unverified version")

    monkeypatch.setattr(river, "__version__", "0.0.0")
    monkeypatch.setattr(rt, "_river", no_import)
    assert predict_river_tree(model, X, "predict_proba_one") is None
    got = as_model(model).predict(as_table(X))
    np.testing.assert_array_equal(got, [model.predict_proba_one(x).get(1, 0.0) for x in X])


def test_river_model_classes_follow_new_labels():
    """``classes_`` is cached between calls, and a label seen later joins it."""
    model = tree.HoeffdingTreeClassifier()
    model.learn_one({"a": 1.0}, "x")
    adapter = as_model(model)
    adapter.observe_labels(np.array(["x"]))
    first = adapter.classes_
    assert first.tolist() == ["x"] and adapter.classes_ is first
    with pytest.raises(ValueError):
        first[0] = "z"  # shared between calls: read-only
    adapter.observe_labels(np.array(["y"]))
    assert adapter.classes_.tolist() == ["x", "y"]
