"""The drift detector's own arithmetic on huge per-row values (model outputs near 1e200, whose
squares overflow) showed numpy's ``RuntimeWarning: overflow encountered in multiply`` from its
copies of the explainer (data channels, model channel), though its events were right. No
warning comes from the detector's code now (the explainer's own aggregation still warns of
its mean squares, not the detector's business), and the events are those of the same stream at
ordinary scale."""

from __future__ import annotations

import traceback
import warnings

import numpy as np
import pytest

from ixplain import IncrementalPFI
from ixplain.drift import ExplanationDriftDetector

SCALE = 1e200


def _rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    X[1500:, 0] += 2.0  # x0 shifts at row 1,500
    return X


def _run(scale, detector):
    def model(A):
        return scale * (A[:, 0] + A[:, 1])

    X = _rows()
    explainer = IncrementalPFI(model, "absolute_error", random_state=0)
    det = ExplanationDriftDetector(explainer, random_state=0, **detector) if detector is not None \
        else None
    from_detector = []

    def show(message, *args, **kwargs):
        stack = [f.filename for f in traceback.extract_stack()]
        if any("ixplain/drift/" in name.replace("\\", "/") for name in stack):
            from_detector.append(str(message))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        explainer.explain_many(X, 0.5 * model(X))
    return from_detector, det


@pytest.mark.parametrize("detector", [{}, {"label_free": True}, {"test": "kswin"}])
def test_huge_values_leak_no_numpy_warning_from_the_detector(detector):
    from_detector, det = _run(SCALE, detector)
    assert from_detector == []
    _, ordinary = _run(1.0, detector)
    assert [(e.feature, e.channel, e.row) for e in det.events_] == [
        (e.feature, e.channel, e.row) for e in ordinary.events_]
    if detector.get("label_free"):  # (the labels' values shift with x0: a data event)
        assert [(e.feature, e.channel) for e in det.events_] == [("x0", "data")]
        assert 1500 <= det.events_[0].row < 1600
