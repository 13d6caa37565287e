"""explain_change's family-wise test: Holm's adjusted p-values equal a hand computation (the
``i``-th smallest of ``m`` p-values times ``m - i + 1``, then the running maximum, capped at 1),
``significant`` is ``p_adjusted <= level`` for the ``level`` given to explain_change, and a bad
``level`` is refused naming the parameter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ixplain.drift import DriftEvent, ExplanationDriftDetector
from ixplain.results import DriftExplanation

NAMES = ["a", "b", "c", "d"]


def _holm_by_hand(p):
    m = len(p)
    order = sorted(range(m), key=lambda j: p[j])
    out, running = [0.0] * m, 0.0
    for rank, j in enumerate(order):  # rank 0: the smallest
        running = max(running, min(1.0, (m - rank) * p[j]))
        out[j] = running
    return out


def _detector():
    rng = np.random.default_rng(5)
    v = rng.normal(0.0, 1.0, (3000, 4))
    v[1500:, 0] += 1.0
    v[1500:, 1] += 0.25  # a small shift: a p-value between the others
    return ExplanationDriftDetector(random_state=0).update_values(v, feature_names=NAMES)


def _event():
    return DriftEvent(row=20, start=10, feature="a", channel="values", test="CUSUM",
                      before=0.0, before_low=-0.1, before_high=0.1, after=1.0, after_low=0.9,
                      after_high=1.1, n_before=10, n_after=11, direction="increase",
                      statistic=9.0)


def test_holm_of_given_p_values_equals_the_hand_computation():
    # sorted 0.01, 0.03, 0.04, 0.2 times 4, 3, 2, 1: 0.04, 0.09, 0.08 -> 0.09, 0.2
    k = 4
    r = DriftExplanation(NAMES, np.zeros(k), np.ones(k), np.ones(k), np.ones(k), _event(),
                         (0, 9), (10, 20), p_value=np.array([0.01, 0.04, 0.03, 0.2]))
    np.testing.assert_allclose(r.p_adjusted, [0.04, 0.09, 0.09, 0.2], rtol=1e-12)
    assert r.significant.tolist() == [True, False, False, False]


def test_an_event_s_adjusted_p_values_and_significance_follow_holm():
    det = _detector()
    for i in range(len(det.events_)):
        c = det.explain_change(i)
        p = [float(x) for x in c.p_value]
        np.testing.assert_allclose(c.p_adjusted, _holm_by_hand(p), rtol=1e-12)
        for level in (0.05, 1e-3, 0.5):
            r = det.explain_change(i, level=level)
            assert r.level == level
            assert r.significant.tolist() == [q <= level for q in _holm_by_hand(p)]
            np.testing.assert_array_equal(r.p_value, c.p_value)
    first = det.explain_change(0)
    assert first.significant[0] and not first.significant[2:].any()


def test_the_default_level_returns_the_kept_explanation_and_another_a_copy():
    det = _detector()
    kept = det.explain_change(0)
    assert det.explain_change(0, level=0.05) is kept
    other = det.explain_change(0, level=0.2)
    assert other is not kept and kept.level == 0.05 and other.level == 0.2


@pytest.mark.parametrize("level, exc", [(0.0, ValueError), (1.0, ValueError),
                                        (-0.1, ValueError), (math.nan, ValueError),
                                        ("0.05", TypeError), (True, TypeError)])
def test_a_bad_level_is_refused_naming_it(level, exc):
    det = _detector()
    with pytest.raises(exc, match="level"):
        det.explain_change(0, level=level)
