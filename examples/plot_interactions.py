"""
Shapley interactions and the H-statistic
========================================

Which features act *together*? On Friedman's function
``y = 10 sin(pi x0 x1) + 20 (x2 - 0.5)^2 + 10 x3 + 5 x4`` only ``x0`` and ``x1`` interact.
Two answers: Shapley interactions of the loss game (k-SII: main terms and pair terms that sum
to the explained loss) and Friedman's H-statistic (the share of a pair's joint effect that is
interaction), exact through the trees of the model. The loss game has pairs the prediction does
not: squared error multiplies additive effects (``(e2 + e3)^2`` holds ``2 e2 e3``), so small
negative terms appear between additive features; read pairs against their ``std``.
"""

# %%
import os

import matplotlib.pyplot as plt
from sklearn.datasets import make_friedman1
from sklearn.ensemble import HistGradientBoostingRegressor

from ixplain import (
    HStatisticDisplay,
    InteractionHeatmapDisplay,
    h_statistic,
    shapley_interactions,
)

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: 150 explained rows, not 300
X, y = make_friedman1(n_samples=1000, n_features=6, random_state=0)
model = HistGradientBoostingRegressor(random_state=0).fit(X, y)
n = 150 if quick else 300
res = shapley_interactions(model, X[:n], y[:n], loss="squared_error", random_state=0)
print(res.top_pairs(3))
print("efficiency:", round(res.total, 3), "=", round(res.settings["explained_loss"], 3))

# %%
fig, ax = plt.subplots(figsize=(6.5, 5))
InteractionHeatmapDisplay.from_result(res, ax=ax)
ax.set_title("k-SII of the loss game (diagonal: main terms)")

# %%
# Friedman's H on the prediction: overall ``H^2_j`` and the pairs of the strongest features.
# Only ``x0`` and ``x1`` interact in ``f``; H finds them and nothing else.
h = h_statistic(model, X, n_max=None)
HStatisticDisplay.from_result(h)
print(h.to_frame().sort_values("h2", ascending=False).head(4).round(3))
