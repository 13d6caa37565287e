"""
A tour on real data: California housing (static)
================================================

One model, the static explanations side by side, on the bundled California housing table
(20,640 districts, 1990 census): which inputs the model relies on (permutation importance and
SAGE), how the prediction moves with the strongest one (PD with ICE curves, and ALE, which stays
honest where inputs are correlated), and which pairs interact (H-statistic).
"""

# %%
import os

import matplotlib.pyplot as plt
from sklearn.ensemble import HistGradientBoostingRegressor

from ixplain import (
    AccumulatedLocalEffectsDisplay,
    FeatureImportanceDisplay,
    PartialDependenceDisplay,
    accumulated_local_effects,
    h_statistic,
    permutation_importance,
    sage,
)
from ixplain.datasets import load_california_housing

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: explain 500 rows, not 2,000
X, y = load_california_housing(return_X_y=True)
# the rows are ordered by region: fit on the even rows, explain on the odd ones
model = HistGradientBoostingRegressor(max_iter=150, random_state=0).fit(X[::2], y[::2])
X_test, y_test = X[1::2], y[1::2]
n = 500 if quick else 2_000
Xe, ye = X_test[:n], y_test[:n]

# %%
# Importance: the drop in R^2 when a feature is permuted, and SAGE (the loss each feature
# explains, summing to the explained loss).
pfi = permutation_importance(model, Xe, ye, n_repeats=5, scoring="r2", random_state=0)
sv = sage(model, Xe, ye, loss="squared_error", background=Xe[:64], n_permutations=n,
          random_state=0)
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4))
FeatureImportanceDisplay.from_result(pfi, ax=ax0)
ax0.set_title("permutation importance (drop in R^2)")
FeatureImportanceDisplay.from_result(sv, ax=ax1)
ax1.set_title("SAGE (squared error)")
fig.tight_layout()

# %%
# Effects of median income and of the average number of rooms: PD with 50 ICE curves, then ALE.
PartialDependenceDisplay.from_estimator(model, Xe, ["MedInc", "AveRooms"], kind="both",
                                        subsample=50, random_state=0, grid_resolution=30)
ale = [accumulated_local_effects(model, Xe, f) for f in ("MedInc", "AveRooms")]
AccumulatedLocalEffectsDisplay.from_result(ale)

# %%
# Interactions: Friedman's H, exact through the trees (no model call).
h = h_statistic(model, Xe, n_max=None)
print(h.to_frame().sort_values("h2", ascending=False).head(6).round(3))
