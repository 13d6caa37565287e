"""``ExplanationDriftDetector.trigger``: an external alarm opens the attribution window as a
loss change at that row would; its events name the features whose values moved since the
start estimated from the per-row losses, with the window's own statistics (closed forms
below), and name nothing when no value moved."""

from __future__ import annotations

import math

import numpy as np
import pytest
from river import drift

from ixplain import ExplanationDriftDetector, IncrementalPDP, ModelEvaluationError, checks


def _stream(shift: float, loss_step: float, n: int = 3000, seed: int = 0):
    """Values of features a, b, c ~ N(0, 0.1) and losses ~ N(1, 0.1); from row 2000 ``b``'s
    values move by ``shift`` and the losses by ``loss_step``."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, 3)) * 0.1
    values[2000:, 1] += shift
    losses = rng.normal(size=n) * 0.1 + 1.0
    losses[2000:] += loss_step
    return values, losses


def _split(v: np.ndarray) -> int:
    """The split of ``v`` that maximises ``|mean after - mean before| sqrt(t (n - t) / n)``
    (at least one value before and two after), by brute force."""
    n = len(v)
    scores = [abs(v[t:].mean() - v[:t].mean()) * math.sqrt(t * (n - t) / n)
              for t in range(1, n - 1)]
    return int(np.argmax(scores)) + 1


def test_trigger_names_the_feature_whose_values_moved_closed_form():
    values, losses = _stream(0.05, 0.03)
    det = ExplanationDriftDetector(random_state=0)
    det.update_values(values[:2100], feature_names=["a", "b", "c"], losses=losses[:2100])
    # a change too small for the loss test and b's own test within these rows
    assert det.events_ == [] and det.loss_changes_ == []
    det.trigger()
    assert det.triggers_ == [2099]
    (event,) = det.events_
    start = _split(losses[:2100])  # the loss regime starts at the first row
    assert 1990 <= start <= 2060
    before, after = values[:start, 1], values[start:2100, 1]
    assert (event.feature, event.row, event.start, event.channel) == ("b", 2099, start, "values")
    assert event.test.startswith("external trigger at row 2099 + z-test at the alarm row")
    assert event.before == pytest.approx(before.mean(), rel=1e-9)
    assert event.after == pytest.approx(after.mean(), rel=1e-9)
    assert (event.n_before, event.n_after) == (start, 2100 - start)
    # the look's z: the two means over the larger of the two standard deviations
    sigma = max(before.std(ddof=1), after.std(ddof=1))
    z = (after.mean() - before.mean()) / (sigma * math.sqrt(1 / len(after) + 1 / len(before)))
    assert event.statistic == pytest.approx(z, rel=1e-9)
    # an external trigger is not a loss change
    det.update_values(values[2100:], losses=losses[2100:])
    assert all(c.test.startswith("CUSUM") for c in det.loss_changes_)


def test_trigger_at_a_past_row_takes_the_rows_since():
    values, losses = _stream(0.05, 0.03)
    det = ExplanationDriftDetector(random_state=0)
    det.update_values(values[:2100], feature_names=["a", "b", "c"], losses=losses[:2100])
    det.trigger(2080)
    assert det.triggers_ == [2080]
    assert [e.feature for e in det.events_] == ["b"]
    assert 2080 <= det.events_[0].row <= 2099
    assert det.events_[0].test.startswith("external trigger at row 2080 + ")


def test_a_repeated_trigger_row_is_a_no_op_and_triggers_keep_the_order_of_the_calls():
    values, losses = _stream(0.05, 0.03)
    once = ExplanationDriftDetector(random_state=0)
    once.update_values(values[:2100], feature_names=["a", "b", "c"], losses=losses[:2100])
    once.trigger()
    det = ExplanationDriftDetector(random_state=0)
    det.update_values(values[:2100], feature_names=["a", "b", "c"], losses=losses[:2100])
    det.trigger(2099).trigger().trigger(2099)
    assert det.triggers_ == [2099]
    assert [e.to_dict() for e in det.events_] == [e.to_dict() for e in once.events_]
    assert len(det.events_) == 1
    # the QA sequence: a past row after a later one opens its own window (kept in the
    # order of the calls); the last row again changes nothing
    det.trigger(0).trigger(500)
    n_events = len(det.events_)
    det.trigger(2099).trigger(0)
    assert det.triggers_ == [2099, 0, 500] and len(det.events_) == n_events
    with pytest.raises(ValueError, match="in the future"):  # (checked before the no-op)
        det.trigger(2100)


def test_a_trigger_at_a_row_the_error_detector_fired_at_is_a_no_op():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(3000, 3)) * 0.1
    values[2000:, 1] += 0.05
    losses = (rng.random(3000) < 0.1).astype(float)
    losses[2000:] = (rng.random(1000) < 0.4).astype(float)
    det = ExplanationDriftDetector(random_state=0, error_detector=drift.ADWIN())
    det.update_values(values, feature_names=["a", "b", "c"], losses=losses)
    alarms = list(det.triggers_)
    assert alarms
    n_events = len(det.events_)
    det.trigger(alarms[-1])
    assert det.triggers_ == alarms and len(det.events_) == n_events


def test_trigger_without_a_change_names_nothing():
    values, losses = _stream(0.0, 0.0)
    det = ExplanationDriftDetector(random_state=0)
    det.update_values(values[:2100], feature_names=["a", "b", "c"], losses=losses[:2100])
    det.trigger()
    det.update_values(values[2100:], losses=losses[2100:])
    assert det.triggers_ == [2099]
    assert det.events_ == [] and det.loss_changes_ == []


def test_river_adwin_on_the_losses_fires_the_trigger():
    rng = np.random.default_rng(0)
    n = 3000
    values = rng.normal(size=(n, 3)) * 0.1
    values[2000:, 1] += 0.05
    losses = (rng.random(n) < 0.1).astype(float)  # a 0-1 loss: error rate 0.1 -> 0.4
    losses[2000:] = (rng.random(n - 2000) < 0.4).astype(float)
    det = ExplanationDriftDetector(random_state=0, error_detector=drift.ADWIN())
    for s in range(0, n, 250):
        det.update_values(values[s:s + 250], feature_names=["a", "b", "c"],
                          losses=losses[s:s + 250])
    reference = drift.ADWIN()  # the same detector, fed the same losses
    alarms = []
    for i, v in enumerate(losses):
        reference.update(v)
        if reference.drift_detected:
            alarms.append(i)
    assert alarms and det.triggers_ == alarms
    first = det.events_[0]
    assert first.feature == "b" and first.row == alarms[0] < det.loss_changes_[0].row
    assert first.test.startswith(f"external trigger at row {alarms[0]} + ")


def test_error_detector_must_be_a_drift_detector():
    for bad, name in ((object(), "not of type object"), (0.1, "not of type float"),
                      (drift.ADWIN, r"not the class ADWIN \(an instance: ADWIN\(\)\)")):
        with pytest.raises(TypeError, match=f"'error_detector' parameter.*{name}"):
            ExplanationDriftDetector(error_detector=bad)
    with pytest.raises(ValueError, match="label_free"):
        ExplanationDriftDetector(error_detector=drift.ADWIN(), label_free=True)


def test_trigger_rows_must_have_been_seen():
    det = ExplanationDriftDetector(random_state=0)
    with pytest.raises(ValueError, match="no row has been seen yet"):
        det.trigger()
    values, losses = _stream(0.0, 0.0, n=300)
    det.update_values(values, losses=losses)
    with pytest.raises(ValueError, match="row 300 is in the future: the last row seen is 299"):
        det.trigger(300)
    for bad in ("5", 5.0, True):
        with pytest.raises(TypeError, match="'row' parameter"):
            det.trigger(bad)
    with pytest.raises(ValueError, match="'row' parameter.*memory"):
        det.trigger(-1)
    assert det.triggers_ == []


def test_trigger_needs_a_loss():
    values, losses = _stream(0.0, 0.0, n=300)
    det = ExplanationDriftDetector(random_state=0)
    det.update_values(values)
    with pytest.raises(ValueError, match="trigger needs the model's per-row loss.*no losses"):
        det.trigger()
    det = ExplanationDriftDetector(random_state=0, error_detector=drift.ADWIN())
    with pytest.raises(ValueError, match="error_detector needs the model's per-row loss"):
        det.update_values(values)
    pdp = IncrementalPDP(checks.reference_model, "a", random_state=0,
                         drift_detector=ExplanationDriftDetector(error_detector=drift.ADWIN()))
    X, _ = checks.reference_stream(50)
    with pytest.raises(ValueError, match="error_detector needs.*no loss"):
        pdp.explain_many(X)


class _Flaky:
    """River's ADWIN whose ``update`` raises ``RuntimeError`` at the calls numbered in
    ``fail_at`` (1-based, counted across copies: the count is the class's)."""

    calls = {"n": 0}

    def __init__(self, fail_at=()):
        self.inner = drift.ADWIN()
        self.fail_at = set(fail_at)

    @property
    def drift_detected(self):
        return self.inner.drift_detected

    def update(self, x):
        _Flaky.calls["n"] += 1
        if _Flaky.calls["n"] in self.fail_at:
            raise RuntimeError("flaky detector")
        self.inner.update(x)


def _pfi_stream(error_detector):
    from ixplain import IncrementalPFI

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    y = 2 * X[:, 0] + X[:, 1]
    y[2000:] = 2 * X[2000:, 2] + X[2000:, 1]  # the model's loss rises from row 2000
    det = ExplanationDriftDetector(static_model=True, random_state=0,
                                   error_detector=error_detector)
    explainer = IncrementalPFI(lambda A: 2 * A[:, 0] + A[:, 1], "squared_error",
                               random_state=0, drift_detector=det, max_batch=256)
    return X, y, det, explainer


def test_an_error_detector_that_raises_fails_like_a_model_and_the_stream_can_continue():
    X, y, ref_det, ref = _pfi_stream(drift.ADWIN())
    ref.explain_many(X, y)
    assert ref_det.triggers_  # (the comparison below is not empty)
    _Flaky.calls["n"] = 0
    X, y, det, explainer = _pfi_stream(_Flaky(fail_at=[700]))  # row 0 has no loss: row 700
    with pytest.raises(ModelEvaluationError, match=(
            r"rows 0-511 of this batch were explained \(n_seen_ is now 512\).*call "
            r"explain_many\(X\[512:\], y\[512:\]\) to continue.*error_detector _Flaky raised "
            r"RuntimeError on the model's loss at stream row 700.*flaky detector.*put back "
            r"as it was before stream row 512")) as info:
        explainer.explain_many(X, y)
    assert isinstance(info.value.__cause__.__cause__, RuntimeError)
    assert (explainer.n_seen_, det.n_rows_) == (512, 512)
    explainer.explain_many(X[512:], y[512:])  # as the message says: the same results
    assert det.triggers_ == ref_det.triggers_
    assert [e.to_dict() for e in det.events_] == [e.to_dict() for e in ref_det.events_]
    assert explainer.importances_ == pytest.approx(ref.importances_, rel=1e-12)


def test_update_values_with_an_error_detector_that_raises_takes_nothing():
    values, losses = _stream(0.05, 0.03)
    ref = ExplanationDriftDetector(random_state=0, error_detector=drift.ADWIN())
    ref.update_values(values, feature_names=["a", "b", "c"], losses=losses)
    _Flaky.calls["n"] = 0
    det = ExplanationDriftDetector(random_state=0, error_detector=_Flaky(fail_at=[2600]))
    det.update_values(values[:2000], feature_names=["a", "b", "c"], losses=losses[:2000])
    with pytest.raises(ModelEvaluationError,
                       match="error_detector _Flaky raised RuntimeError on the model's loss at "
                             "stream row 2599 .*before stream row 2000"):
        det.update_values(values[2000:], losses=losses[2000:])
    assert det.n_rows_ == 2000 and det.error_detector.inner.n_detections == 0
    det.update_values(values[2000:], losses=losses[2000:])  # the retry
    assert det.triggers_ == ref.triggers_
    assert [e.to_dict() for e in det.events_] == [e.to_dict() for e in ref.events_]
