"""The change statistics against hand-computed values and scipy's tests."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ixplain.change._stats import (
    holm,
    independent_change,
    kendall_tau,
    ndcg_at_k,
    paired_change,
)


def test_holm_matches_hand_computed_step_down():
    # sorted p: 0.001 (x4), 0.01 (x3), 0.02 (x2), 0.04 (x1)
    # step-down: 4*0.001=0.004, 3*0.01=0.03, 2*0.02=0.04, max(0.04, 1*0.04)=0.04
    p = np.array([0.02, 0.04, 0.01, 0.001])
    np.testing.assert_allclose(holm(p), [0.04, 0.04, 0.03, 0.004])


def test_holm_is_monotone_and_capped_at_one():
    # 3*0.5 = 1.5 -> 1; then max(1, 2*0.6) = 1; max(1, 0.9) = 1
    np.testing.assert_allclose(holm(np.array([0.6, 0.5, 0.9])), [1.0, 1.0, 1.0])
    # sorted 0.02, 0.03: 2*0.02 = 0.04, then max(0.04, 1*0.03) = 0.04 (monotone)
    np.testing.assert_allclose(holm(np.array([0.03, 0.02])), [0.04, 0.04])


def test_ndcg_matches_hand_computed_values():
    ref = np.array([3.0, 2.0, 1.0, 0.0])
    assert ndcg_at_k(ref, ref, 3) == pytest.approx(1.0)
    # other ranks x1 first, then x0: DCG = 2 + 3/log2(3); ideal = 3 + 2/log2(3)
    other = np.array([2.0, 3.0, 0.5, 0.0])
    expected = (2 + 3 / np.log2(3)) / (3 + 2 / np.log2(3))
    assert ndcg_at_k(ref, other, 2) == pytest.approx(expected)
    # top-1 only: x1 (relevance 2) instead of x0 (3)
    assert ndcg_at_k(ref, other, 1) == pytest.approx(2 / 3)
    # negative reference importances count as 0 relevance
    assert ndcg_at_k(np.array([-1.0, 2.0]), np.array([5.0, 1.0]), 2) == pytest.approx(
        (0 + 2 / np.log2(3)) / 2)


def test_kendall_tau_matches_scipy_tau_b():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.normal(size=6), rng.normal(size=6)
        b[2] = b[4]  # a tie
        assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(a, b).statistic)
    assert kendall_tau(np.arange(4.0), np.arange(4.0)[::-1]) == -1.0


def test_paired_change_matches_scipy_paired_t_test():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(40, 3))
    b = a + rng.normal(0.3, 0.5, size=(40, 3))
    ch = paired_change(a, b, confidence=0.9)
    ref = stats.ttest_rel(b, a)
    np.testing.assert_allclose(ch.p_value, ref.pvalue)
    ci = ref.confidence_interval(0.9)
    np.testing.assert_allclose(ch.lower, ci.low)
    np.testing.assert_allclose(ch.upper, ci.high)


def test_independent_change_matches_scipy_welch_test():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(30, 2)), rng.normal(0.5, 2.0, size=(50, 2))
    ch = independent_change(a, b)
    ref = stats.ttest_ind(b, a, equal_var=False)
    np.testing.assert_allclose(ch.p_value, ref.pvalue)
    ci = ref.confidence_interval(0.95)
    np.testing.assert_allclose(ch.lower, ci.low)
    np.testing.assert_allclose(ch.upper, ci.high)


def test_min_change_tests_the_interval_null():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(200, 1))
    b = a + 0.5 + 0.1 * rng.normal(size=(200, 1))
    plain = paired_change(a, b)
    assert plain.p_value[0] < 1e-10
    inside = paired_change(a, b, min_change=1.0)   # |delta| ~ 0.5 <= 1: no evidence
    assert inside.p_value[0] == pytest.approx(1.0)
    t = (abs(plain.delta[0]) - 0.45) / plain.std_error[0]
    near = paired_change(a, b, min_change=0.45)
    assert near.p_value[0] == pytest.approx(2 * stats.t.sf(t, 199))


def test_identical_sides_give_p_one():
    a = np.ones((10, 2))
    ch = paired_change(a, a.copy())
    np.testing.assert_array_equal(ch.p_value, [1.0, 1.0])
    np.testing.assert_array_equal(ch.lower, ch.upper)
