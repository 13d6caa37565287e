"""
iPFI on the Agrawal concept drift
=================================

Reproduces the concept-drift experiment of Fumagalli et al. (AAAI 2023) on the Agrawal stream:
an online model learns the stream while iPFI explains it, and halfway the labelling rule changes
from Agrawal's function 2 (``salary`` and ``age``) to function 3 (``age`` and ``elevel``). The
model here is River's Hoeffding adaptive tree (fast enough to run at every docs build), explained
in chunks of 20 rows with the model as it was before each chunk. The importances follow the
model as it relearns: ``salary`` fades, ``elevel`` rises.
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
from river import tree

from ixplain import ImportanceTraceDisplay, IncrementalPFI
from ixplain.datasets import iter_agrawal_drift

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: a shorter stream
n_rows = 8_000 if quick else 20_000
drift_at = n_rows // 2

model = tree.HoeffdingAdaptiveTreeClassifier(seed=0)
ipfi = IncrementalPFI(model, loss="zero_one", alpha=0.002, n_samples=1, random_state=0,
                      history_every=100)
correct = []
stream = list(iter_agrawal_drift(n_rows=n_rows, position=drift_at, width=200, seed=0))
for start in range(0, n_rows, 20):
    chunk = stream[start:start + 20]
    xs, ys = [x for x, _ in chunk], [y for _, y in chunk]
    ipfi.explain_many(xs, ys)           # explain these rows with the model as it is now ...
    for x, y in chunk:
        correct.append(model.predict_one(x) == y)
        model.learn_one(x, y)           # ... then let it learn them (prequential)

# %%
# The importance traces (with their 95 % bounds) and the prequential accuracy. The dashed line
# marks the rule change.
fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(8, 6), sharex=True,
                               gridspec_kw={"height_ratios": [3, 1]})
ImportanceTraceDisplay.from_explainer(
    ipfi, features=["salary", "age", "elevel", "commission", "loan"], drift_points=[drift_at],
    ax=ax0)
ax0.set_title("iPFI (0-1 loss) of an online Hoeffding adaptive tree, Agrawal 2 -> 3")
acc = np.convolve(np.asarray(correct, float), np.ones(500) / 500, mode="valid")
ax1.plot(np.arange(len(acc)) + 500, acc, color="k")
ax1.axvline(drift_at, color="red", linestyle="--")
ax1.set_ylabel("accuracy (500 rows)")
ax1.set_xlabel("row")
fig.tight_layout()

# %%
# Final importances, with the true rule's values for comparison (function 3: ``elevel`` 0.48,
# ``age`` 0.445, everything else 0; see :func:`ixplain.datasets.iter_agrawal`).
print(dict(zip(ipfi.feature_names_, ipfi.importances_.round(3).tolist())))
