"""
Exact partial dependence of a tree ensemble
===========================================

For tree ensembles, ``method="tree"`` computes the brute-force (interventional) PD on your rows
exactly, by pushing each row through each tree once, without calling the model per grid point.
It equals ``method="brute"`` to rounding, and ``grid="thresholds"`` returns the PD at full
resolution: one value per step between consecutive split thresholds.
"""

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

from ixplain import partial_dependence
from ixplain.datasets import load_california_housing

X, y = load_california_housing(return_X_y=True)
model = HistGradientBoostingRegressor(max_iter=100, random_state=0).fit(X, y)
Xe = X[:5000]

t0 = time.perf_counter()
exact = partial_dependence(model, Xe, "MedInc", method="tree", grid_resolution=50)
t1 = time.perf_counter()
brute = partial_dependence(model, Xe, "MedInc", method="brute", grid_resolution=50)
t2 = time.perf_counter()
steps = partial_dependence(model, Xe, "MedInc", grid="thresholds")
print(f"tree {t1 - t0:.2f} s, brute {t2 - t1:.2f} s, "
      f"largest difference {np.abs(exact.average - brute.average).max():.1e}, "
      f"{steps.grid_values[0].size} threshold grid points")

# %%
fig, ax = plt.subplots(figsize=(8, 4))
ax.step(steps.grid_values[0], steps.average[0], where="post", color="grey",
        label='grid="thresholds" (every step)')
ax.plot(brute.grid_values[0], brute.average[0], "o", mfc="none", label='method="brute"')
ax.plot(exact.grid_values[0], exact.average[0], "k.", label='method="tree"')
ax.set_xlim(0, np.quantile(Xe["MedInc"], 0.99))
ax.set_xlabel("MedInc")
ax.set_ylabel("partial dependence")
ax.legend()
fig.tight_layout()
