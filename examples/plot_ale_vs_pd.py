"""
ALE against PD on correlated inputs
===================================

Partial dependence sets a feature to every grid value on every row, so with correlated inputs
it averages the model over combinations that never occur. Accumulated local effects (Apley and
Zhu 2020) average *local* differences inside each bin. Here ``x0`` and ``x1`` are almost equal
and the model is ``f = x1 + 10 (x0 - x1)^2``: on the data ``f`` equals ``x1`` and does not move
with ``x0`` beyond ``x1``. PD draws a U (the penalty off the diagonal); ALE is flat.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from ixplain import accumulated_local_effects, partial_dependence

rng = np.random.default_rng(0)
x1 = rng.uniform(-1, 1, 5000)
X = np.c_[x1 + 0.01 * rng.normal(size=5000), x1]


def f(A):
    return A[:, 1] + 10 * (A[:, 0] - A[:, 1]) ** 2


pd_ = partial_dependence(f, X, "x0", grid_resolution=30)
ale = accumulated_local_effects(f, X, "x0")
lower, upper = ale.band(0.95)

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4))
ax0.scatter(X[:500, 0], X[:500, 1], s=4)
ax0.set_xlabel("x0")
ax0.set_ylabel("x1")
ax0.set_title("the data: x0 and x1 almost equal")
ax1.plot(pd_.grid_values[0], pd_.average[0] - pd_.average[0].mean(), label="PD (centred)")
edges = np.asarray(ale.grid_values[0], float)
ax1.plot(edges, ale.average[0], label="ALE")
ax1.fill_between(edges, lower[0], upper[0], alpha=0.3)
ax1.set_xlabel("x0")
ax1.set_title("effect of x0")
ax1.legend()
fig.tight_layout()
print("range of PD:", np.ptp(pd_.average).round(2), "range of ALE:", np.ptp(ale.average).round(4))
