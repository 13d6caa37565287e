"""
Partial dependence and ICE, next to scikit-learn
================================================

:func:`ixplain.partial_dependence` takes scikit-learn's arguments and returns its keys and
shapes, so the two can be compared directly. On a spline-and-ridge pipeline (not a tree, so
both compute the brute-force PD) the curves agree to rounding; ixplain's ``method="auto"`` never
switches to the training-cover ``recursion`` shortcut (see :doc:`/user_guide/migrating`).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.inspection import partial_dependence as sk_partial_dependence
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import SplineTransformer

from ixplain import PartialDependenceDisplay, partial_dependence
from ixplain.datasets import load_california_housing

X, y = load_california_housing(return_X_y=True)
X, y = X[:3000], y[:3000]
model = make_pipeline(SplineTransformer(n_knots=6), Ridge(alpha=1.0)).fit(X, y)

ours = partial_dependence(model, X, "MedInc", kind="both", grid_resolution=25)
theirs = sk_partial_dependence(model, X, ["MedInc"], kind="both", grid_resolution=25)
print("largest difference:", np.abs(ours.average - theirs["average"]).max())

# %%
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4))
grid = ours.grid_values[0]
ax0.plot(grid, ours.average[0], lw=3, label="ixplain")
ax0.plot(theirs["grid_values"][0], theirs["average"][0], "k--", label="scikit-learn")
ax0.set_xlabel("MedInc")
ax0.set_title("PD: ixplain and scikit-learn")
ax0.legend()
PartialDependenceDisplay.from_estimator(model, X, ["MedInc"], kind="both", centered=True,
                                        subsample=80, random_state=0, ax=ax1)
ax1.set_title("centred ICE curves and PD (ixplain's Display)")
fig.tight_layout()
