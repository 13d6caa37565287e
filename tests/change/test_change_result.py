"""The result object: its frame, dict, ranking and discrepancy."""

from __future__ import annotations

import json

import numpy as np
import pytest
from change_scenarios import AFTER, draw, ridge_pair

from ixplain import ChangeExplanation, compare
from ixplain.change._stats import kendall_tau, ndcg_at_k


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    a, b = ridge_pair(1000, rng)
    X, y = draw(200, AFTER, rng)
    return compare(a, X, y, model_b=b, methods=("pfi", "sage"), top_k=3, random_state=0), a, b


def test_frame_has_one_row_per_method_and_feature(result):
    res, _, _ = result
    assert isinstance(res, ChangeExplanation)
    frame = res.to_frame()
    assert list(frame.columns) == ["method", "feature", "a", "b", "delta", "lower", "upper",
                                   "std_error", "p_value", "p_adjusted", "significant"]
    assert frame.shape[0] == 10
    assert frame["method"].tolist() == ["pfi"] * 5 + ["sage"] * 5
    np.testing.assert_allclose(frame["delta"], frame["b"] - frame["a"])
    assert (frame["p_adjusted"] >= frame["p_value"]).all()


def test_dict_is_json(result):
    res, _, _ = result
    d = json.loads(json.dumps(res.to_dict()))
    assert d["importance"]["pfi"]["procedure"] == "holm"
    assert d["settings"]["design"] == "paired"
    assert d["discrepancy"]["value"] > 0


def test_ranking_is_the_mean_importances_agreement(result):
    res, _, _ = result
    imp, rk = res.importance["sage"], res.ranking["sage"]
    assert rk.ndcg == pytest.approx(ndcg_at_k(imp.a, imp.b, 3))
    assert rk.kendall_tau == pytest.approx(kendall_tau(imp.a, imp.b))
    assert rk.ndcg_lower <= rk.ndcg_upper and rk.tau_lower <= rk.tau_upper
    assert rk.top_a[0] == rk.top_b[0] == "x0"
    assert rk.top_b[1] == "x2"  # the new model's second feature


def test_discrepancy_covers_the_linear_closed_form():
    """For linear models and independent unit-variance inputs,
    ``E[(f_b - f_a)^2] = (c_b - c_a)^2 + sum_j (b_bj - b_aj)^2``."""
    rng = np.random.default_rng(1)
    hits = []
    for trial in range(20):
        a, b = ridge_pair(500, rng)
        X, y = draw(200, AFTER, rng)
        d = compare(a, X, y, model_b=b, random_state=trial).discrepancy
        truth = (b.intercept_ - a.intercept_) ** 2 + np.sum((b.coef_ - a.coef_) ** 2)
        hits.append(d.lower <= truth <= d.upper)
    assert np.mean(hits) >= 0.85


def test_one_model_has_no_discrepancy():
    rng = np.random.default_rng(2)
    a, _ = ridge_pair(200, rng)
    (Xa, ya), (Xb, yb) = draw(50, AFTER, rng), draw(50, AFTER, rng)
    res = compare(a, Xa, ya, X_b=Xb, y_b=yb, random_state=0)
    assert res.discrepancy is None
    assert "pfi:" in repr(res)


def test_same_seed_same_result_and_groups():
    rng = np.random.default_rng(3)
    a, b = ridge_pair(200, rng)
    X, y = draw(80, AFTER, rng)
    one = compare(a, X, y, model_b=b, features=["x0", ["x1", "x2"]], random_state=5)
    two = compare(a, X, y, model_b=b, features=["x0", ["x1", "x2"]], random_state=5)
    assert one.importance["pfi"].features == ["x0", "x1+x2"]
    np.testing.assert_array_equal(one.importance["pfi"].delta, two.importance["pfi"].delta)


def test_label_free_classifier_compares_its_probabilities():
    """A classifier's adapter refuses continuous labels; label-free mode compares the
    probabilities it returns (x1 left the model, x2 entered it)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(4)
    X = rng.normal(size=(600, 3))
    a = LogisticRegression().fit(X, (X[:, 0] + X[:, 1] > 0).astype(int))
    b = LogisticRegression().fit(X, (X[:, 0] + X[:, 2] > 0).astype(int))
    res = compare(a, X[:200], model_b=b, label_free=True, min_change=0.05, random_state=0)
    np.testing.assert_array_equal(res.importance["pfi"].significant, [False, True, True])
    assert res.settings["loss"] == "squared_error" and res.discrepancy.value > 0
