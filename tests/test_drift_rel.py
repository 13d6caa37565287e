"""Reliability of the explanation drift detector (QA open items): a raising callback,
``update_values`` on an attached detector, values near the float limits."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("river")

from ixplain import ExplanationDriftDetector, IncrementalPFI


def linear(A):
    return A[:, 0] + 2.0 * A[:, 1]


# ---------------------------------------------------------------------------- 2. two sources
@pytest.mark.parametrize("how", ["constructor", "assignment"])
def test_update_values_on_an_attached_detector_is_refused_and_changes_nothing(how):
    """A detector attached to an explainer tests the values that explainer reports; values
    fed directly would mix a second source into the same features. Refused (naming the
    explainer and the way out) before anything changes; after detaching, accepted."""
    ipfi = IncrementalPFI(linear, "squared_error", random_state=0)
    if how == "constructor":
        det = ExplanationDriftDetector(ipfi, static_model=True)
    else:
        det = ExplanationDriftDetector(static_model=True)
        ipfi.drift_detector = det
    with pytest.raises(ValueError, match=r"attached to IncrementalPFI.*"
                                         r"explainer\.drift_detector = None"):
        det.update_values(np.zeros((3, 2)), feature_names=["x0", "x1"])
    assert det.n_rows_ == 0 and det.feature_names_ is None and not det._channels
    ipfi.drift_detector = None
    det.update_values(np.zeros((3, 2)), feature_names=["x0", "x1"])
    assert det.n_rows_ == 3
