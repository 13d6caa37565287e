"""
Explanations on a Dask DataFrame
================================

:mod:`ixplain.dask` runs the static explanations over a partitioned Dask DataFrame: each
partition evaluates the method's explanation function with the single-machine code, and only
mergeable mean states leave a worker. Partial dependence equals the single-machine result; PFI
draws its replacement values from a background sample of the whole data, so it agrees within
the standard errors.
"""

# %%
import dask
import dask.dataframe as dd
import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

import ixplain
from ixplain.dask import partial_dependence, permutation_importance
from ixplain.datasets import load_california_housing

dask.config.set(scheduler="synchronous")  # one process: the docs build shares its machine
df = load_california_housing()[:6000]
X, y = df.drop(columns="MedHouseVal"), df["MedHouseVal"]
model = HistGradientBoostingRegressor(max_iter=50, random_state=0).fit(X, y)
ddf = dd.from_pandas(df, npartitions=6)

pd_dask = partial_dependence(model, ddf.drop(columns="MedHouseVal"), "MedInc", grid_resolution=20)
pd_local = ixplain.partial_dependence(model, X, "MedInc", grid_resolution=20)
print("PD, largest difference:", np.abs(pd_dask.average - pd_local.average).max())

pfi_dask = permutation_importance(model, ddf, "MedHouseVal", loss="squared_error",
                                  random_state=0)
pfi_local = ixplain.permutation_importance(model, X, y, loss="squared_error", random_state=0)

# %%
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4))
ax0.plot(pd_local.grid_values[0], pd_local.average[0], lw=3, label="pandas")
ax0.plot(pd_dask.grid_values[0], pd_dask.average[0], "k--", label="Dask, 6 partitions")
ax0.set_xlabel("MedInc")
ax0.set_title("partial dependence")
ax0.legend()
pos = np.arange(X.shape[1])
ax1.barh(pos - 0.2, pfi_local.importances_mean, 0.4, xerr=pfi_local.importances_std,
         label="pandas")
ax1.barh(pos + 0.2, pfi_dask.importances_mean, 0.4, xerr=pfi_dask.importances_std,
         label="Dask")
ax1.set_yticks(pos, X.columns)
ax1.set_title("permutation importance (squared error)")
ax1.legend()
fig.tight_layout()
