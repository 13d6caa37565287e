"""
Drift incidents on the bike-sharing stream
==========================================

An :class:`ixplain.ExplanationDriftDetector` watching iPFI reports *events* (one feature, one
test, one row); :meth:`~ixplain.ExplanationDriftDetector.incidents` groups them into one entry
per change that a person can act on: when it started, when it was found, the change in words,
and the features it moved on the scale of the plotted importances. A model that keeps learning
(a Hoeffding tree growing) also moves its explanation at the detector's scheduled checks; those
groups are ``kind="model_update"``, drawn light on the timeline, not alerts.

Here an online tree learns the hourly rentals (2011-2012; 2012 starts at row 8,645) and a
River ``ADWIN`` on the model's per-row loss is passed as ``error_detector=``: where it fires,
the detector opens its attribution window (:meth:`~ixplain.ExplanationDriftDetector.trigger`).
The same job on the command line is ``ixplain stream`` (its report lists the incidents).
"""

# %%
import os

import matplotlib.pyplot as plt
from river import drift, tree

from ixplain import ExplanationDriftDetector, ImportanceTraceDisplay, IncrementalPFI
from ixplain.datasets import iter_bike_sharing

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: the first 10,000 rows
n_rows = 10_000 if quick else None
features = ["hour", "temp", "humidity", "workingday", "weekday", "month", "windspeed"]
model = tree.HoeffdingTreeRegressor(leaf_prediction="mean", grace_period=100)
detector = ExplanationDriftDetector(error_detector=drift.ADWIN(), random_state=0)
ipfi = IncrementalPFI(model, "squared_error", feature_names=features, alpha=0.002,
                      random_state=0, drift_detector=detector, history_every=50)
batch = []
for x, y in iter_bike_sharing(n_rows=n_rows):
    batch.append(({k: x[k] for k in features}, y))
    if len(batch) == 50:  # explain 50 rows with the model as it is, then learn them
        ipfi.explain_many([b[0] for b in batch], [b[1] for b in batch])
        for xb, yb in batch:
            model.learn_one(xb, yb)
        batch = []

incidents = detector.incidents()
for inc in incidents:
    top = ", ".join(f"{f.name} {f.before:,.0f} -> {f.after:,.0f}" for f in inc.features[:3])
    print(f"{inc.kind:12s} rows {inc.start:>6,}-{inc.detected:>6,}: {inc.headline}; {top}")

# %%
# The importance trace with the incidents marked (shaded from start to detection, a solid line
# at detection) and the model updates as light dotted lines.
fig, ax = plt.subplots(figsize=(10, 4.5))
ImportanceTraceDisplay.from_explainer(ipfi, features=["hour", "temp", "humidity", "workingday"],
                                      ax=ax)
for inc in incidents:
    if inc.kind == "model_update":
        ax.axvline(inc.detected, color="0.75", lw=0.8, ls=":", zorder=0)
    else:
        ax.axvspan(inc.start, inc.detected, color="tab:red", alpha=0.15, zorder=0)
        ax.axvline(inc.detected, color="tab:red", lw=1.2)
        ax.annotate(str(inc.id), (inc.detected, 1.0), xycoords=("data", "axes fraction"),
                    ha="left", va="top", color="tab:red")
ax.axvline(8645, color="k", lw=0.8, ls="--")
ax.set_title("iPFI of an online tree; incidents (red) and model updates (dotted); 2012 (dashed)")
fig.tight_layout()

# %%
# Every incident as a table (``Incident.to_dict()`` is what the command line's report reads).
import pandas as pd  # noqa: E402

pd.DataFrame([{k: v for k, v in i.to_dict().items() if k in
               ("id", "kind", "channel", "start", "detected", "headline")} for i in incidents])
