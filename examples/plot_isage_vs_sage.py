"""
iSAGE against SAGE
==================

Muschalik et al. (2023) show that incremental SAGE, computed row by row on a stream, tracks the
SAGE values of the same model computed on a dataset. Here a gradient-boosting model fitted on
half of the bundled California housing data is explained twice on the other half: with
:func:`ixplain.sage` (static, with standard errors), and with
:class:`ixplain.IncrementalSAGE`, fed the rows as a stream. The iSAGE traces settle on the
SAGE values (dashed).
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

from ixplain import ImportanceTraceDisplay, IncrementalSAGE, UniformReservoir, sage
from ixplain.datasets import load_california_housing

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: 1,000 stream rows
X, y = load_california_housing(return_X_y=True)
rng = np.random.default_rng(0)
order = rng.permutation(len(X))
fit, rest = order[:10_000], order[10_000:]
model = HistGradientBoostingRegressor(max_iter=100, random_state=0).fit(X.iloc[fit], y.iloc[fit])

n_stream = 1_000 if quick else 3_000
Xs, ys = X.iloc[rest[:n_stream]], y.iloc[rest[:n_stream]]
static = sage(model, Xs, ys, loss="squared_error", background=Xs.iloc[:128], random_state=0)

isage = IncrementalSAGE(model, loss="squared_error", alpha=0.005,
                        storage=UniformReservoir(500), random_state=0, history_every=20)
for start in range(0, n_stream, 100):
    isage.explain_many(Xs.iloc[start:start + 100], ys.iloc[start:start + 100])

# %%
fig, ax = plt.subplots(figsize=(8, 4.5))
top = [X.columns[j] for j in np.argsort(-static.importances_mean)[:4]]
disp = ImportanceTraceDisplay.from_explainer(isage, features=top, ax=ax)
for line, name in zip(disp.lines_, top):
    ax.axhline(static.importances_mean[list(X.columns).index(name)], linestyle="--",
               color=line.get_color())
ax.set_xlabel("row of the stream")
ax.set_ylabel("SAGE value (squared error)")
ax.set_title("iSAGE traces (solid) and SAGE on the same rows (dashed)")
fig.tight_layout()

print(static.to_frame().round(3))
