"""
A tour on a real stream: bike sharing
=====================================

The hourly bike-sharing stream (2011-2012) explained while an online model learns it: how the
rentals depend on the hour of day (iPDP, snapshots over the stream) and on temperature (iALE,
accumulated local effects on a stream), next to the model's rolling error. The same job, with a
report, is ``ixplain stream`` (see :doc:`/user_guide/cli`).
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from river import tree

from ixplain import IncrementalALE, IncrementalPDP, PartialDependenceTraceDisplay
from ixplain.datasets import iter_bike_sharing

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: the first 6,000 rows
n_rows = 6_000 if quick else None
features = ["hour", "temp", "humidity", "workingday", "weekday", "month"]
model = tree.HoeffdingTreeRegressor(leaf_prediction="mean", grace_period=100)
ipdp = IncrementalPDP(model, "hour", grid_resolution=24, alpha=0.005, history_every=2000)
iale = IncrementalALE(model, "temp", grid_resolution=12, alpha=0.005)
errors, batch = [], []
for x, y in iter_bike_sharing(n_rows=n_rows):
    batch.append(({k: x[k] for k in features}, y))
    if len(batch) == 50:  # explain 50 rows at once, with the model as it is, then learn them
        xs = [b[0] for b in batch]
        ipdp.explain_many(xs)
        iale.explain_many(xs)
        for xb, yb in batch:
            errors.append(abs(model.predict_one(xb) - yb))
            model.learn_one(xb, yb)
        batch = []

# %%
fig, axes = plt.subplots(1, 3, figsize=(14, 4))
PartialDependenceTraceDisplay.from_explainer(ipdp, ax=axes[0])
axes[0].set_title("iPDP of hour (darker = later)")
ale = iale.ale_
axes[1].plot(np.asarray(ale.grid_values[0], float), ale.average[0], marker="o")
axes[1].set_xlabel("temp")
axes[1].set_title("iALE of temp (end of stream)")
err = np.convolve(errors, np.ones(500) / 500, mode="valid")
axes[2].plot(np.arange(len(err)) + 500, err, color="k")
axes[2].set_title("absolute error (rolling 500 rows)")
axes[2].set_xlabel("row")
fig.tight_layout()
