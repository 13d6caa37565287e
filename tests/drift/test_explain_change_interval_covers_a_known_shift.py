"""explain_change's test of a values event: the 95 % interval of ``delta`` covers a known mean
shift with about the width of the closed form ``t * sqrt(1 / n_before + 1 / n_after)`` (values
of standard deviation 1), the features that did not move are not significant (Holm's family-wise
level), and the statistics do not depend on how the stream was chunked."""

from __future__ import annotations

import numpy as np

from ixplain.drift import ExplanationDriftDetector

SHIFT = 0.5
NAMES = ["a", "b", "c"]


def _stream(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(0.0, 1.0, (4000, 3))
    v[2000:, 0] += SHIFT  # only a moves, at row 2,000
    return v


def _first_a_event(det: ExplanationDriftDetector) -> int:
    return next(i for i, e in enumerate(det.events_) if e.feature == "a" and e.row >= 2000)


def test_interval_covers_the_shift_and_the_unchanged_features_are_not_significant():
    from scipy import stats

    covered = unchanged_found = 0
    seeds = range(20)
    for seed in seeds:
        det = ExplanationDriftDetector(random_state=0).update_values(_stream(seed),
                                                                     feature_names=NAMES)
        c = det.explain_change(_first_a_event(det))
        assert c.design == "independent" and c.procedure == "holm" and c.level == 0.05
        covered += bool(c.lower[0] <= SHIFT <= c.upper[0])
        unchanged_found += bool(c.significant[1:].any())
        assert c.significant[0]
        # the width: values of sd 1, so the half-width is near t * sqrt(1/n_b + 1/n_a)
        nb = c.before_rows[1] - c.before_rows[0] + 1
        na = c.after_rows[1] - c.after_rows[0] + 1
        closed = stats.t.ppf(0.975, nb + na - 2) * np.sqrt(1.0 / nb + 1.0 / na)
        half = (c.upper - c.lower) / 2.0
        assert np.all((0.8 * closed < half) & (half < 1.2 * closed)), (half, closed)
    assert covered >= 18, covered  # nominal 95 %: 19 of 20
    assert unchanged_found <= 2, unchanged_found  # family-wise 5 %: 1 of 20


def test_the_statistics_do_not_depend_on_the_chunking():
    v = _stream(3)
    whole = ExplanationDriftDetector(random_state=0).update_values(v, feature_names=NAMES)
    chunked = ExplanationDriftDetector(random_state=0)
    for s in range(0, len(v), 37):
        chunked.update_values(v[s:s + 37], feature_names=NAMES)
    assert len(whole.events_) == len(chunked.events_) > 0
    for i in range(len(whole.events_)):
        a, b = whole.explain_change(i), chunked.explain_change(i)
        for name in ("delta", "lower", "upper", "p_value", "p_adjusted"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
