"""explanation_shift_test: finds a moved input, holds its level on A/A splits; attributions
equal the closed form of an additive model."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from ixplain.change._shift import explanation_shift_test, mann_whitney_auc, row_attributions
from ixplain.models import as_model
from ixplain.tabular import as_table


def f(A):
    A = np.asarray(A, dtype=float)
    return A[:, 0] ** 2 + 2 * A[:, 1] + np.sin(A[:, 2])


def test_attributions_of_an_additive_model_are_its_centred_terms():
    rng = np.random.default_rng(0)
    X, bg = rng.normal(size=(50, 3)), rng.normal(size=(7, 3))
    phi = row_attributions(as_model(f), as_table(X), ["x0", "x1", "x2"], as_table(bg))
    terms = [lambda v: v ** 2, lambda v: 2 * v, np.sin]
    for j, t in enumerate(terms):
        np.testing.assert_allclose(phi[:, j], t(X[:, j]) - t(bg[:, j]).mean(), atol=1e-12)


def test_a_moved_input_is_found_and_named():
    rng = np.random.default_rng(1)
    Xa = rng.normal(size=(400, 3))
    Xb = rng.normal(size=(400, 3)) + [0.0, 0.6, 0.0]
    res = explanation_shift_test(f, Xa, X_b=Xb, random_state=0)
    assert res.auc > 0.6 and res.p_value < 1e-4 and res.significant()
    assert res.features[int(np.argmax(np.abs(res.feature_auc - 0.5)))] == "x1"
    assert (res.n_a, res.n_b) == (400, 400) and "Mann-Whitney" in res.method


def test_a_a_split_is_not_significant():
    """One seeded A/A split with the default classifier (the rate over many splits is pinned
    by the next test)."""
    X = np.random.default_rng(10).normal(size=(600, 3))
    res = explanation_shift_test(f, X[:300], X_b=X[300:], random_state=0)
    assert res.p_value > 0.05 and abs(res.auc - 0.5) < 0.08


def test_mann_whitney_p_values_are_roughly_uniform_under_a_a():
    clf = LogisticRegression()
    p = []
    for seed in range(40):
        X = np.random.default_rng(100 + seed).normal(size=(200, 2))
        p.append(explanation_shift_test(lambda A: np.asarray(A) @ [1.0, -1.0], X[:100],
                                        X_b=X[100:], classifier=clf, random_state=seed).p_value)
    assert np.mean(np.array(p) < 0.1) <= 0.2


def test_permutation_p_value_and_paired_models():
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(120, 2)), columns=["a", "b"])
    g = lambda D: D["a"].to_numpy() + 3 * D["b"].to_numpy()  # noqa: E731
    h = lambda D: D["a"].to_numpy() + 0.5 * D["b"].to_numpy()  # noqa: E731
    res = explanation_shift_test(g, X, h, classifier=LogisticRegression(), p_value="permutation",
                                 n_permutations=19, random_state=0)
    assert res.p_value == pytest.approx(1 / 20) and res.settings["design"] == "paired"
    same = explanation_shift_test(g, X, g, classifier=LogisticRegression(), random_state=0)
    assert same.auc <= 0.55 and same.p_value > 0.2  # identical attributions: nothing to learn


def test_mann_whitney_auc_matches_sklearn():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    s, y = rng.normal(size=200).round(1), rng.integers(0, 2, 200)
    assert mann_whitney_auc(s, y) == pytest.approx(roc_auc_score(y, s))


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"cv": 1}, ValueError, "'cv' parameter of explanation_shift_test"),
    ({"p_value": "bootstrap"}, ValueError, "'p_value' parameter"),
    ({"classifier": object()}, TypeError, "'classifier' parameter"),
])
def test_bad_arguments_are_named(kwargs, exc, match):
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(exc, match=match):
        explanation_shift_test(f, X, X_b=X, **kwargs)


def test_compare_runs_the_shift_test_on_attributions_or_its_per_row_values():
    from ixplain.change import compare

    rng = np.random.default_rng(4)
    Xa = pd.DataFrame(rng.normal(size=(500, 3)), columns=["p", "q", "r"])
    Xb = pd.DataFrame(rng.normal(size=(500, 3)), columns=["p", "q", "r"]) + [0.0, 1.0, 0.0]
    g = lambda D: D["p"].to_numpy() + D["q"].to_numpy() ** 2  # noqa: E731
    alone = compare(g, Xa, X_b=Xb, label_free=True, methods=("shift",), random_state=0).shift
    assert alone.p_value < 0.01 and "attribution" in alone.settings["explanation"]
    assert alone.features[int(np.argmax(np.abs(alone.feature_auc - 0.5)))] == "q"
    with_pfi = compare(g, Xa, X_b=Xb, label_free=True, methods=("pfi", "shift"),
                       random_state=0).shift
    assert with_pfi.auc == alone.auc  # compare's per-row influence values are not used


def test_compare_shift_holds_its_level_where_influence_values_would_not():
    """A/A with a rare binary feature: compare's per-row PFI influence values are centred
    within each side, which a classifier can tell apart without any shift; attributions not."""
    from ixplain.change import compare

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"u": rng.normal(size=800), "h": (rng.random(800) < 0.05).astype(float)})
    g = lambda D: D["u"].to_numpy() + 3 * D["h"].to_numpy()  # noqa: E731
    res = compare(g, X.iloc[:400], X_b=X.iloc[400:].reset_index(drop=True), label_free=True,
                  methods=("pfi", "shift"), random_state=0)
    assert res.shift.p_value > 0.05
