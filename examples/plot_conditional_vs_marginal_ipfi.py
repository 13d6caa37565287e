"""
Conditional against marginal iPFI on correlated features
========================================================

When features are correlated, marginal removal (iPFI's default) evaluates the model on rows
that never occur, and the importance reads the model's structure; conditional removal draws the
removed feature given the others, and the importance says what a feature adds beyond them (the
observational view of Fumagalli et al.'s conditional iPFI). Here ``x0`` and ``x1`` have
correlation 0.9 and the model is ``f = x0 + x2``, with squared error. The closed forms:
marginal PFI of ``x0`` is ``2 Var(x0) = 2``; conditional is ``2 (1 - 0.9^2) = 0.38``;
``x1`` gets 0 both ways (the model ignores it); ``x2`` gets 2 both ways.
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

from ixplain import ImportanceTraceDisplay, IncrementalPFI

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: 3,000 rows, not 8,000
n_rows = 3_000 if quick else 8_000
rng = np.random.default_rng(0)
X = rng.multivariate_normal(np.zeros(3), [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]], size=n_rows)
y = X[:, 0] + X[:, 2]


def f(A):
    return A[:, 0] + A[:, 2]


fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, removal in zip(axes, ("marginal", "conditional")):
    ipfi = IncrementalPFI(f, "squared_error", feature_names=["x0", "x1", "x2"], alpha=0.005,
                          removal=removal, random_state=0, history_every=20)
    for start in range(0, n_rows, 200):
        ipfi.explain_many(X[start:start + 200], y[start:start + 200])
    ImportanceTraceDisplay.from_explainer(ipfi, ax=ax)
    truth = [2.0, 0.0, 2.0] if removal == "marginal" else [0.38, 0.0, 2.0]
    for value in truth:
        ax.axhline(value, color="grey", linestyle=":")
    ax.set_title(f"iPFI, removal={removal!r}")
    print(removal, ipfi.importances_.round(2))
fig.tight_layout()
