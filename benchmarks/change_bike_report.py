"""Real data: what changed between the bike-sharing models of 2011 and 2012.

The bundled bike-sharing stream (Capital Bikeshare, hourly counts, 2011-2012) is split by year.
One ``HistGradientBoostingRegressor`` is fitted on 70 % of each year's hours (``year`` itself
is left out: it is constant within a year). Then

1. **two models, the same rows** (paired): both models on the same held-out hours of both years
   with their counts -- :func:`ixplain.change.compare` with PFI, PD and ALE, common random
   numbers, Holm across features; this is the report;
2. **one model, two periods** (label-free): the 2011 model's explanations on held-out 2011 vs
   2012 hours -- the explanation-shift test and the label-free PFI change, printed (a separate
   question from the report's: the data moved, not the model).

Writes ``report.html`` (``ixplain.report.render_page``, when the report package is present),
``change.csv``, ``change.json`` and the PNGs through the CLI's writer, to ``--out`` (default
``ixplain-output/change_bike``)::

    PYTHONPATH=src python benchmarks/change_bike_report.py [--out DIR] [--rows N] [--seed S]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

from ixplain.change import compare
from ixplain.change._curves import curve_changes
from ixplain.cli._compare import CompareConfig, write_outputs
from ixplain.datasets import load_bike_sharing

FEATURES = ["season", "month", "hour", "holiday", "weekday", "workingday", "weather", "temp",
            "feel_temp", "humidity", "windspeed"]


def _encode(frame: pd.DataFrame) -> pd.DataFrame:
    """The two text columns as integer codes (the same codes for both years)."""
    out = frame[FEATURES].copy()
    for col in ("season", "weather"):
        levels = sorted(load_bike_sharing()[col].astype(str).unique())
        out[col] = out[col].astype(str).map({v: i for i, v in enumerate(levels)}).astype(int)
    return out


def _split(df: pd.DataFrame, year: int, rng: np.random.Generator, n_test: int):
    part = df[df["year"] == year]
    idx = rng.permutation(len(part))
    cut = int(0.7 * len(part))
    train, test = part.iloc[idx[:cut]], part.iloc[idx[cut:]].iloc[:n_test]
    return _encode(train), train["count"].to_numpy(float), _encode(test), test["count"].to_numpy(float)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("ixplain-output/change_bike"))
    ap.add_argument("--rows", type=int, default=1000, help="held-out hours per year")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    df = load_bike_sharing()
    Xa, ya, Ta, ta = _split(df, 2011, rng, args.rows)
    Xb, yb, Tb, tb = _split(df, 2012, rng, args.rows)
    fit = {"max_iter": 300, "learning_rate": 0.1, "random_state": args.seed}
    m2011 = HistGradientBoostingRegressor(**fit).fit(Xa, ya)
    m2012 = HistGradientBoostingRegressor(**fit).fit(Xb, yb)
    rows = pd.concat([Ta, Tb], ignore_index=True)
    labels = np.r_[ta, tb]
    t0 = time.perf_counter()
    res = compare(m2011, rows, labels, model_b=m2012, methods=("pfi", "pd", "ale"),
                  random_state=args.seed)
    seconds = time.perf_counter() - t0
    res.settings["side_names"] = ["2011 model", "2012 model"]
    t1 = time.perf_counter()
    data = compare(m2011, Ta, X_b=Tb, label_free=True, methods=("pfi", "shift"),
                   random_state=args.seed)
    seconds_data = time.perf_counter() - t1
    cfg = CompareConfig(reference=f"bike 2011+2012 held-out hours ({len(rows)})",
                        model="HistGradientBoostingRegressor fitted on 2011",
                        model_b="HistGradientBoostingRegressor fitted on 2012",
                        target="count", seed=args.seed)
    done = write_outputs(res, cfg, args.out)
    imp = data.importance["pfi"]
    top = np.argsort(-np.abs(imp.delta))[:3]
    print(f"paired comparison of the two models on {len(rows)} hours: {seconds:.1f} s")
    print(f"2011 model on 2011 vs 2012 hours (label-free, with the shift test): "
          f"{seconds_data:.1f} s")
    print("first screen:")
    for s in done["summary"]:
        print("  " + s)
    print("2011 model, 2011 -> 2012 hours, prediction-sensitivity PFI change: " + ", ".join(
        f"{imp.features[i]} {imp.delta[i]:+.0f} [{imp.lower[i]:.0f}, {imp.upper[i]:.0f}]"
        for i in top))
    print(f"explanation shift (attributions of the 2011 model): AUC {data.shift.auc:.3f}, "
          f"p = {data.shift.p_value:.2g}")
    _band_ratio(m2011, m2012, rows, res, args.seed)
    print(f"report: {done['report']}")


def _band_ratio(m2011, m2012, rows: pd.DataFrame, res, seed: int) -> None:
    """Paired PD bands against two independent runs on the same number of model rows: each
    model on its own half of the rows (the way two separately computed PDs are compared)."""
    half = len(rows) // 2
    grids = {f: res.curves["pd"][f].grid for f in ("hour", "temp")}
    for f, grid in grids.items():
        paired = curve_changes(m2011, rows.iloc[:half], m2012, features=f,
                               custom_values={f: grid}, random_state=seed)[f]
        indep = curve_changes(m2011, rows.iloc[:half], m2012, X_b=rows.iloc[half:], features=f,
                              custom_values={f: grid}, random_state=seed)[f]
        w_p = float(np.mean(paired.upper - paired.lower))
        w_i = float(np.mean(indep.upper - indep.lower))
        print(f"PD of {f}, {half} rows per model: paired band width {w_p:.1f}, independent "
              f"{w_i:.1f} ({w_i / w_p:.1f}x wider)")


if __name__ == "__main__":
    main()
