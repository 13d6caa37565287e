"""
iPDP following a drifting effect
================================

Muschalik et al. (2023) introduce incremental partial dependence (iPDP): the PD curve of a
model that learns on a stream, smoothed over time so that it follows the model when the effect
of a feature changes. Here the effect of ``x0`` on the target turns from rising to falling at
row 4,000 (``y = 2 sin(x0) + x1`` becomes ``y = -2 sin(x0) + x1``); an adaptive Hoeffding tree
relearns it, and the iPDP snapshots (darker = later) turn with it.
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from river import tree

from ixplain import IncrementalPDP, PartialDependenceTraceDisplay

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: 4,000 rows, not 8,000
n_rows = 4_000 if quick else 8_000
change = n_rows // 2
rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, size=(n_rows, 2))
sign = np.where(np.arange(n_rows) < change, 2.0, -2.0)
y = sign * np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=n_rows)
rows = [{"x0": a, "x1": b} for a, b in X]

model = tree.HoeffdingAdaptiveTreeRegressor(grace_period=50, leaf_prediction="adaptive", seed=0)
ipdp = IncrementalPDP(model, "x0", grid_resolution=20, alpha=0.01, history_every=n_rows // 8,
                      random_state=0)
for start in range(0, n_rows, 20):
    ipdp.explain_many(rows[start:start + 20])  # PD needs no labels
    for x, t in zip(rows[start:start + 20], y[start:start + 20]):
        model.learn_one(x, t)

# %%
# Left: the iPDP snapshots over the stream. Right: the final iPDP against the effect of the
# current rule, ``-2 sin(x0)`` (shifted by the mean of ``x1``, zero).
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4))
PartialDependenceTraceDisplay.from_explainer(ipdp, ax=ax0)
ax0.set_title(f"iPDP snapshots; the effect flips at row {change}")
pd_ = ipdp.pd_
grid = np.asarray(pd_.grid_values[0], float)
ax1.plot(grid, pd_.average[0], marker="o", label="final iPDP")
ax1.plot(grid, -2 * np.sin(grid), "k--", label="true effect now")
ax1.set_xlabel("x0")
ax1.legend()
fig.tight_layout()
