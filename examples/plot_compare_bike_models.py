"""
What changed between the bike models of 2011 and 2012
======================================================

:func:`ixplain.compare` explains two models (or one model on two datasets) with the same
methods and the **same random numbers** on both sides, so each feature's change ``b - a`` comes
with a paired interval and a family-wise test (Holm) across the features. Here one gradient
boosting model is fitted on 70 % of each year's hours of the bundled bike-sharing data, and both
are compared on the same held-out hours of both years, with their counts (the setting of
``benchmarks/change_bike_report.py``). The same on the command line is ``ixplain compare``
(see :doc:`/user_guide/change`).
"""

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

from ixplain import compare
from ixplain.change import ChangeDisplay
from ixplain.datasets import load_bike_sharing

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: 300 held-out hours a year
n_test = 300 if quick else 1000
features = ["season", "month", "hour", "holiday", "weekday", "workingday", "weather", "temp",
            "feel_temp", "humidity", "windspeed"]
df = load_bike_sharing()
for col in ("season", "weather"):  # the two text columns as integer codes, the same in both years
    df[col] = df[col].astype(str).astype("category").cat.codes
rng = np.random.default_rng(0)
train, test = {}, {}
for year in (2011, 2012):
    part = df[df["year"] == year].iloc[rng.permutation((df["year"] == year).sum())]
    cut = int(0.7 * len(part))
    train[year], test[year] = part.iloc[:cut], part.iloc[cut:cut + n_test]
models = {year: HistGradientBoostingRegressor(max_iter=200, random_state=0).fit(
    train[year][features], train[year]["count"]) for year in (2011, 2012)}
rows = pd.concat([test[2011], test[2012]], ignore_index=True)

res = compare(models[2011], rows[features], rows["count"].to_numpy(float),
              model_b=models[2012], methods=("pfi", "pd"), random_state=0)
res.settings["side_names"] = ["2011 model", "2012 model"]
print(res)
res.to_frame()[["feature", "a", "b", "delta", "lower", "upper", "significant"]].round(0)

# %%
# The ranking change (:class:`ixplain.change.RankingChange`) and the two models' expected
# squared discrepancy (:class:`ixplain.change.Discrepancy`), with intervals.
rk = res.ranking["pfi"]
print(f"NDCG@5 {rk.ndcg:.3f} [{rk.ndcg_lower:.3f}, {rk.ndcg_upper:.3f}], "
      f"Kendall's tau {rk.kendall_tau:.2f} [{rk.tau_lower:.2f}, {rk.tau_upper:.2f}]")
d = res.discrepancy
print(f"E[(f_2012 - f_2011)^2] = {d.value:,.0f} [{d.lower:,.0f}, {d.upper:,.0f}]")

# %%
# Paired bars (2011, 2012, and the change with its interval; ``*`` = significant after Holm)
# and the partial dependence of ``hour`` of both models with the change and its band, drawn by
# :class:`ixplain.change.ChangeDisplay` from the result.
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(13, 4.5))
disp = ChangeDisplay.from_result(res)
disp.plot(ax=ax0, top_k=8)
disp.plot_curve("hour", ax=ax1, method="pd")
fig.tight_layout()
