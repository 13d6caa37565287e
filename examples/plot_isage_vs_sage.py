"""
iSAGE against SAGE
==================

Muschalik et al. (2023) show that incremental SAGE, computed row by row on a stream, tracks the
SAGE values of the same model computed on a dataset. Here a gradient-boosting model fitted on
half of the bundled California housing data is explained on the other half: with
:func:`ixplain.sage` (static, with standard errors), and with
:class:`ixplain.IncrementalSAGE`, fed the rows as a stream -- once as a running mean
(``aggregation="mean"``, which converges to SAGE for a static model) and once exponentially
smoothed (``alpha=0.005``, the form that follows a model that changes, at the price of noise).
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

from ixplain import ImportanceTraceDisplay, IncrementalSAGE, UniformReservoir, sage
from ixplain.datasets import load_california_housing

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: 1,000 stream rows, not 5,000
X, y = load_california_housing(return_X_y=True)
rng = np.random.default_rng(0)
order = rng.permutation(len(X))
fit, rest = order[:10_000], order[10_000:]
model = HistGradientBoostingRegressor(max_iter=100, random_state=0).fit(X.iloc[fit], y.iloc[fit])

n_stream = 1_000 if quick else 5_000
Xs, ys = X.iloc[rest[:n_stream]], y.iloc[rest[:n_stream]]
static = sage(model, Xs, ys, loss="squared_error", background=Xs.iloc[:128], random_state=0)

top = [X.columns[j] for j in np.argsort(-static.importances_mean)[:4]]
fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
for ax, kwargs in zip(axes, ({"aggregation": "mean"}, {"alpha": 0.005})):
    isage = IncrementalSAGE(model, loss="squared_error", storage=UniformReservoir(500),
                            random_state=0, history_every=20, **kwargs)
    for start in range(0, n_stream, 100):
        isage.explain_many(Xs.iloc[start:start + 100], ys.iloc[start:start + 100])
    disp = ImportanceTraceDisplay.from_explainer(isage, features=top, ax=ax)
    for line, name in zip(disp.lines_, top):
        ax.axhline(static.importances_mean[list(X.columns).index(name)], linestyle="--",
                   color=line.get_color())
    ax.set_title("iSAGE, " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
                 + " (solid); SAGE (dashed)")
axes[0].set_ylim(-0.2, 1.0)  # the running mean's first rows are far wider
fig.tight_layout()

# %%
# The static SAGE values and their standard errors.
print(static.to_frame().round(3))
