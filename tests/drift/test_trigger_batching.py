"""The external trigger (``error_detector=``) gives the same events whatever the batching of
the stream (``explain_one`` row by row, ``explain_many`` in chunks of any size) and across a
pickle round trip mid-stream: the error detector takes the rows in order, and each of its
alarms opens its window at its row, as a loss change there would."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from river import drift

from ixplain import ExplanationDriftDetector, IncrementalPFI, checks

N = 2400


def _stream():
    """a, b, c ~ N(0, 1); ``y = 2 a + b`` until row 1200, then ``2 a - b``: the model
    ``2 a + b`` now errs by ``2 b`` and b's iPFI drops from 2 to -2 (a's stays 8)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(N, 3))
    y = 2 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=N)
    y[1200:] -= 2 * X[1200:, 1]
    return [{"a": r[0], "b": r[1], "c": r[2]} for r in X], y


def _run(static: bool, plan: str):
    X, y = _stream()
    det = ExplanationDriftDetector(static_model=static, random_state=3,
                                   error_detector=drift.ADWIN())
    ipfi = IncrementalPFI(checks.reference_model, "squared_error", random_state=2,
                          drift_detector=det)
    if plan == "one":
        for x, t in zip(X, y):
            ipfi.explain_one(x, t)
    else:
        size = {"chunks7": 7, "chunks250": 250}.get(plan, 100)
        s = 0
        while s < N:
            ipfi.explain_many(X[s:s + size], y[s:s + size])
            s += size
            if plan == "pickle" and s == 1300:  # mid-stream, inside the open window
                ipfi = pickle.loads(pickle.dumps(ipfi))
                det = ipfi.drift_detector
    return ([e.to_dict() for e in det.events_], list(det.triggers_),
            [c.to_dict() for c in det.loss_changes_])


@pytest.mark.parametrize("static", [True, False])
def test_trigger_events_do_not_depend_on_batching_or_pickling(static):
    one = _run(static, "one")
    events, triggers, _ = one
    assert 1200 < triggers[0] < 1300  # ADWIN on the error finds the change
    assert any(e["feature"] == "b" and e["row"] >= 1200 for e in events)
    for plan in ("chunks7", "chunks250", "pickle"):
        assert _run(static, plan) == one, plan
