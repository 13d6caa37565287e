"""
iPFI on the bike-sharing stream
===============================

The second real-data setting of Fumagalli et al. (AAAI 2023) was the *elec2* stream, which
ixplain does not bundle; the hourly bike-sharing stream (bundled, 17,379 rows, 2011-2012) is
the real stream used here. A Hoeffding tree regressor learns the rentals per hour online and
iPFI (squared error) follows which inputs it relies on. The first row of 2012 (row 8,645) is a
known change: demand grows, and the model relearns.
"""

# %%
import os

import matplotlib.pyplot as plt
from river import tree

from ixplain import FeatureImportanceDisplay, ImportanceTraceDisplay, IncrementalPFI
from ixplain.datasets import iter_bike_sharing

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: every 3rd row only
step = 3 if quick else 1
features = ["hour", "temp", "humidity", "workingday", "weekday", "month", "windspeed"]

model = tree.HoeffdingTreeRegressor(leaf_prediction="mean", grace_period=100)
ipfi = IncrementalPFI(model, loss="squared_error", feature_names=features, alpha=0.002 * step,
                      random_state=0, history_every=50)
for i, (x, y) in enumerate(iter_bike_sharing()):
    if i % step:
        continue
    x = {k: x[k] for k in features}
    ipfi.explain_one(x, y)
    model.learn_one(x, y)

# %%
# Importance over the stream (the x axis counts the rows explained) and the final ranking.
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2, 1]})
ImportanceTraceDisplay.from_explainer(ipfi, features=["hour", "temp", "humidity", "workingday"],
                                      drift_points=[8645 // step], ax=ax0)
ax0.set_title("iPFI of an online tree, bike sharing")
FeatureImportanceDisplay.from_explainer(ipfi, ax=ax1)
ax1.set_title("final iPFI")
fig.tight_layout()
