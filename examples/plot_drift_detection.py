"""
Explanation drift on a stream: which feature changed
====================================================

An :class:`ixplain.ExplanationDriftDetector` watches iPFI's per-row values and reports *which*
feature's explanation changed. From row 3,000 the spread of ``x0`` shrinks to 0.3 of its size:
the model (static here) relies on ``x0`` as before, but ``x0`` now explains much less of the
loss. The detector's event names ``x0`` and the data channel, and its before/after bars show
every feature's importance on both sides of the change.
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

from ixplain import (
    DriftExplanationDisplay,
    ExplanationDriftDetector,
    ImportanceTraceDisplay,
    IncrementalPFI,
)

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # nothing skipped: it runs in seconds
rng = np.random.default_rng(0)
X = rng.normal(size=(6000, 3))
X[3000:, 0] *= 0.3
y = 2 * X[:, 0] + X[:, 1]


def model(A):
    return 2 * A[:, 0] + A[:, 1]


detector = ExplanationDriftDetector(static_model=True, random_state=0)
ipfi = IncrementalPFI(model, "squared_error", feature_names=["x0", "x1", "x2"], alpha=0.005,
                      random_state=0, drift_detector=detector, history_every=25)
for s in range(0, 6000, 100):
    ipfi.explain_many(X[s:s + 100], y[s:s + 100])
print(detector.events_frame()[["row", "start", "feature", "channel", "before", "after"]])

# %%
fig, ax = plt.subplots(figsize=(8, 4))
ImportanceTraceDisplay.from_explainer(
    ipfi, drift_points=[3000] + [e.row for e in detector.events_], ax=ax)
ax.set_title("iPFI; the change at 3,000 and the detector's events")
fig.tight_layout()

# %%
# The first event, explained: every feature's mean value before and after, with bounds.
DriftExplanationDisplay.from_detector(detector, 0).plot()
