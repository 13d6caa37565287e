"""Scenario 2 (A/A): nothing changed, so Holm's family-wise false-finding rate stays near the
level (a short loop; the benchmark runs 200 trials)."""

from __future__ import annotations

import numpy as np
from change_scenarios import AFTER, draw, ridge_pair
from scipy import stats

from ixplain import compare

LEVEL = 0.1


def test_same_model_two_samples_keeps_the_family_wise_rate():
    rng = np.random.default_rng(0)
    model, _ = ridge_pair(1000, rng)
    trials, any_found = 60, 0
    for trial in range(trials):
        (Xa, ya), (Xb, yb) = draw(150, AFTER, rng), draw(150, AFTER, rng)
        res = compare(model, Xa, ya, X_b=Xb, y_b=yb, n_repeats=2, family_level=LEVEL,
                      random_state=trial)
        any_found += bool(res.importance["pfi"].significant.any())
    # a true rate of LEVEL gives more than this count with probability < 1 %
    assert any_found <= stats.binom.ppf(0.99, trials, LEVEL)


def test_label_free_same_model_two_samples_keeps_the_family_wise_rate():
    rng = np.random.default_rng(1)
    model, _ = ridge_pair(1000, rng)
    trials, any_found = 60, 0
    for trial in range(trials):
        Xa, Xb = draw(150, AFTER, rng)[0], draw(150, AFTER, rng)[0]
        res = compare(model, Xa, X_b=Xb, label_free=True, n_repeats=2, family_level=LEVEL,
                      random_state=trial)
        any_found += bool(res.importance["pfi"].significant.any())
    assert any_found <= stats.binom.ppf(0.99, trials, LEVEL)


def test_same_model_same_rows_changes_nothing():
    rng = np.random.default_rng(2)
    model, _ = ridge_pair(500, rng)
    X, y = draw(100, AFTER, rng)
    res = compare(model, X, y, model_b=model, random_state=0).importance["pfi"]
    np.testing.assert_array_equal(res.delta, 0.0)
    assert not res.significant.any()
