"""A data or values event's test is Welch's: its delta, interval and p-value equal
``scipy.stats.ttest_ind(after, before, equal_var=False)`` on the same values (the rows of
``before_rows`` and ``after_rows``), and values near the float limit give the same figures
scaled (no overflow)."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain.drift import ExplanationDriftDetector

NAMES = ["a", "b", "c"]


def _values() -> np.ndarray:
    rng = np.random.default_rng(11)
    v = rng.normal(0.0, 1.0, (3000, 3)) * np.array([1.0, 2.0, 0.5])
    v[1500:, 0] += 0.8
    v[1500:, 1] *= 1.5  # b's spread changes (unequal variances), not its mean
    return v


def test_welch_figures_equal_scipy_on_the_rows_before_and_after():
    from scipy import stats

    v = _values()
    det = ExplanationDriftDetector(random_state=0).update_values(v, feature_names=NAMES)
    assert det.events_
    for i in range(len(det.events_)):
        c = det.explain_change(i)
        before = v[c.before_rows[0]:c.before_rows[1] + 1]
        after = v[c.after_rows[0]:c.after_rows[1] + 1]
        ref = stats.ttest_ind(after, before, equal_var=False)
        ci = ref.confidence_interval(0.95)
        np.testing.assert_allclose(c.delta, after.mean(axis=0) - before.mean(axis=0),
                                   rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(c.delta / c.std_error, ref.statistic, rtol=1e-10)
        np.testing.assert_allclose(c.p_value, ref.pvalue, rtol=1e-8, atol=1e-300)
        np.testing.assert_allclose(c.lower, ci.low, rtol=1e-10)
        np.testing.assert_allclose(c.upper, ci.high, rtol=1e-10)
        assert c.design == "independent"


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_values_near_the_float_limit_give_the_same_figures_scaled():
    scale = 2.0**900  # (a power of two: the scaled values are exact)
    v = _values()
    small = ExplanationDriftDetector(random_state=0).update_values(v, feature_names=NAMES)
    big = ExplanationDriftDetector(random_state=0).update_values(v * scale, feature_names=NAMES)
    assert [(e.row, e.feature) for e in big.events_] == [(e.row, e.feature)
                                                          for e in small.events_]
    s, b = small.explain_change(0), big.explain_change(0)
    for name in ("delta", "std_error", "lower", "upper"):
        assert np.all(np.isfinite(getattr(b, name))), name
        np.testing.assert_allclose(getattr(b, name), getattr(s, name) * scale, rtol=1e-12)
    np.testing.assert_allclose(b.p_value, s.p_value, rtol=1e-9, atol=1e-300)
