"""A model event's test is paired: the model channel explains the same reference rows with the
same draws at both checks (common random numbers), so ``delta`` (equal to ``after - before``)
is tested on the per-row differences; its figures equal ``scipy.stats.ttest_rel`` on those
per-row values, and a mild change that Welch's t on the two means misses is significant."""

from __future__ import annotations

import numpy as np

import ixplain.drift._model_channel as model_channel
from ixplain import IncrementalPFI
from ixplain.drift import ExplanationDriftDetector


class MixingModel:
    """``(1 - w) x0 + w x1``; ``w`` set by the test."""

    w = 0.0

    def __call__(self, X):
        X = np.asarray(X)
        return (1.0 - self.w) * X[:, 0] + self.w * X[:, 1]


def _run(monkeypatch):
    """x0 and x1 are two noisy copies of y's signal; at row 2,000 the model moves from
    ``x0`` to ``0.9 x0 + 0.1 x1`` (x0's PFI falls by 19 %). Returns the detector and the
    per-row values each model event's test was given."""
    seen = []
    real = model_channel.change_statistics

    def recording(before, after, change, paired=False):
        seen.append((before.copy(), after.copy(), paired))
        return real(before, after, change, paired)

    monkeypatch.setattr(model_channel, "change_statistics", recording)
    rng = np.random.default_rng(0)
    n = 4000
    z = rng.normal(size=n)
    X = np.column_stack([z + 0.1 * rng.normal(size=n), z + 0.1 * rng.normal(size=n),
                         rng.normal(size=n)])
    model = MixingModel()
    det = ExplanationDriftDetector(random_state=0, check_every=250, n_reference=300)
    ipfi = IncrementalPFI(model, "squared_error", alpha=0.01, random_state=0,
                          feature_names=["x0", "x1", "x2"], drift_detector=det)
    for s in range(0, n, 50):
        if s == 2000:
            model.w = 0.1
        ipfi.explain_many(X[s:s + 50], z[s:s + 50])
    return det, seen


def test_a_model_event_is_tested_paired_on_the_same_rows(monkeypatch):
    from scipy import stats

    det, seen = _run(monkeypatch)
    i = next(i for i, e in enumerate(det.events_) if e.channel == "model")
    c = det.explain_change(i)
    assert c.design == "paired" and c.event.feature == "x0"
    np.testing.assert_allclose(c.delta, c.after - c.before, rtol=1e-12, atol=1e-15)
    before, after, paired = seen[0]
    assert paired and before.shape == after.shape == (300, 3)
    # x0 and x1 (the model ignores x2: the same values at both checks, no difference)
    ref = stats.ttest_rel(after[:, :2], before[:, :2])
    ci = ref.confidence_interval(0.95)
    np.testing.assert_allclose(c.delta[:2] / c.std_error[:2], ref.statistic, rtol=1e-10)
    np.testing.assert_allclose(c.p_value[:2], ref.pvalue, rtol=1e-8, atol=1e-300)
    np.testing.assert_allclose(c.lower[:2], ci.low, rtol=1e-10)
    np.testing.assert_allclose(c.upper[:2], ci.high, rtol=1e-10)
    np.testing.assert_array_equal(before[:, 2], after[:, 2])
    assert (c.delta[2], c.std_error[2], c.p_value[2]) == (0.0, 0.0, 1.0)  # (scipy: NaN)
    # the pairing matters: Welch's t on the same two samples does not find x0's change
    assert c.significant[0] and c.upper[0] < 0
    welch = stats.ttest_ind(after[:, 0], before[:, 0], equal_var=False)
    assert welch.pvalue > 0.05 > c.p_adjusted[0]
