"""ALE: ixplain's accumulated_local_effects vs alibi, PyALE and effector; iALE vs iPDP throughput.

Settings: one feature (``x0``, correlated with ``x1``) of a 4-feature table at 10,000 and
200,000 rows; two models -- a numpy function (``sin(3 x0) + x1^2 + x0 x2 + log(1 + |x3|)``)
and a HistGradientBoostingRegressor fitted on it. For every library: seconds (the libraries
interleaved within each repeat so the load of the machine hits them alike; the best of the
repeats, the least perturbed by the other processes) and the ratio to the *floor*: the time of
one model call on ``2 n`` rows, the least any ALE needs (the rows at both edges of their bin).

* ixplain: ``grid_resolution=20`` quantile bins, all rows, the accumulated band.
* PyALE ``ale(grid_size=20, include_CI=True)``: the same quantile edges (``method="lower"``),
  so the curves are compared value by value (``max |diff|``).
* alibi ``ALE``: its default adaptive grid (about n / 5 bins) at 10,000 rows (and at 200,000
  with ``--full``: it takes minutes), and with ``grid_points`` = ixplain's edges (compared
  after aligning the level: alibi centres differently).
* effector ``ALE``: equal-width bins only; its default keeps 10,000 random rows
  (``nof_instances``), shown as is and with ``nof_instances="all"``; compared on the same
  equal-width edges (ixplain ``custom_edges``) with ``centering="zero_start"``.

Then the stream: ``IncrementalALE`` and ``IncrementalPDP`` on a River linear regression,
rows per second (``explain_one`` on dict records, and ``explain_many`` in batches of 256).

Run: ``PYTHONPATH=src /work/benchvenv/bin/python benchmarks/bench_ale.py`` (``--quick``: the
10,000-row case only, ``--full``: alibi's default grid at 200,000 rows too).
"""

from __future__ import annotations

import _common

_common.ensure_installed(
    {"sklearn": "scikit-learn>=1.4", "alibi": "alibi==0.9.6", "PyALE": "PyALE==1.2.0",
     "effector": "effector==0.6.0", "river": "river>=0.21"}
)

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import _setups  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ixplain import IncrementalALE, IncrementalPDP, accumulated_local_effects  # noqa: E402

GRID = 20


numpy_model = _setups.ale_model
make_data = _setups.ale_data


class Predictor:
    """``predict`` on arrays and DataFrames (PyALE calls ``model.predict(df)``)."""

    def __init__(self, fn):
        self.fn = fn

    def predict(self, X):
        return self.fn(np.asarray(X, dtype=np.float64))


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def run_ixplain(fn, X):
    return accumulated_local_effects(fn, X, 0, grid_resolution=GRID)


def run_pyale(fn, X):
    from PyALE import ale

    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ale(X=df, model=Predictor(fn), feature=["x0"], grid_size=GRID, include_CI=True,
                   plot=False)


def run_alibi(fn, X, edges=None):
    from alibi.explainers import ALE

    explainer = ALE(fn, feature_names=[f"x{j}" for j in range(X.shape[1])])
    grid = None if edges is None else {0: np.asarray(edges, dtype=float)}
    return explainer.explain(X, features=[0], grid_points=grid)


def run_effector(fn, X, all_rows):
    import effector
    from effector.axis_partitioning import Fixed

    explainer = effector.ALE(X, fn, nof_instances="all" if all_rows else 10_000)
    explainer.fit([0], binning_method=Fixed(nof_bins=GRID), centering="zero_start")
    return explainer


def compare(fn, X, res, pyale_df, alibi_same, eff_all):
    """Max |diff| to the anchors on identical edges (PyALE), aligned level (alibi), from 0
    (effector, equal-width edges)."""
    out = {}
    edges = res.grid_values[0]
    same = len(pyale_df.index) == len(edges) and np.allclose(pyale_df.index.to_numpy(), edges)
    out["ixplain"] = 0.0
    out["PyALE"] = float(np.max(np.abs(pyale_df["eff"].to_numpy() - res.average[0]))) if same \
        else float("nan")
    a = np.asarray(alibi_same.ale_values[0]).ravel()
    fv = np.asarray(alibi_same.feature_values[0]).ravel()
    ours = np.interp(fv, edges, res.average[0])
    out["alibi (same edges)"] = float(np.max(np.abs((a - a.mean()) - (ours - ours.mean()))))
    eq = np.linspace(X[:, 0].min(), X[:, 0].max(), GRID + 1)
    ref = accumulated_local_effects(fn, X, 0, custom_edges={"x0": eq})
    e = eff_all.eval(0, eq, centering="zero_start")
    out["effector (all rows)"] = float(np.max(np.abs(e - (ref.average[0] - ref.average[0][0]))))
    return out


def bench_static(n: int, model_name: str, fn, repeats: int, full: bool) -> list[dict]:
    X = make_data(n, seed=1)
    floor = min(timed(lambda: fn(np.r_[X, X]))[0] for _ in range(3))
    ours = run_ixplain(fn, X)
    cases = {
        "ixplain": lambda: run_ixplain(fn, X),
        "PyALE": lambda: run_pyale(fn, X),
        "alibi (same edges)": lambda: run_alibi(fn, X, ours.grid_values[0]),
        "effector (default: 10k rows)": lambda: run_effector(fn, X, all_rows=False),
        "effector (all rows)": lambda: run_effector(fn, X, all_rows=True),
    }
    if n <= 10_000 or full:
        cases["alibi (default grid)"] = lambda: run_alibi(fn, X)
    times: dict[str, list[float]] = {k: [] for k in cases}
    outs: dict[str, object] = {}
    for r in range(repeats):
        for name, case in cases.items():
            if name == "alibi (default grid)" and r > 0 and n > 10_000:
                continue  # minutes per call: once is enough
            t, outs[name] = timed(case)
            times[name].append(t)
    diffs = compare(fn, X, ours, outs["PyALE"], outs["alibi (same edges)"],
                    outs["effector (all rows)"])
    rows = []
    for name, ts in times.items():
        t = float(np.min(ts))
        rows.append({"n": n, "model": model_name, "library": name, "seconds": t,
                     "x floor": t / floor, "max |diff| to ixplain": diffs.get(name, np.nan)})
    if "alibi (default grid)" in outs:
        n_bins = len(np.asarray(outs["alibi (default grid)"].feature_values[0])) - 1
        rows[-1]["library"] += f" [{n_bins} bins]"
    print(f"  n={n} {model_name}: floor {floor:.4f} s (one call on {2 * n} rows)", flush=True)
    return rows


def bench_stream(n: int) -> list[dict]:
    from river import linear_model, preprocessing

    rng = np.random.default_rng(2)
    X = make_data(n, seed=2)
    y = numpy_model(X) + 0.1 * rng.normal(size=n)
    model = preprocessing.StandardScaler() | linear_model.LinearRegression()
    names = [f"x{j}" for j in range(X.shape[1])]
    records = [dict(zip(names, row)) for row in X.tolist()]
    for rec, target in zip(records[:2000], y[:2000]):
        model.learn_one(rec, target)
    out = []
    makers = {
        "IncrementalALE": lambda: IncrementalALE(model, "x0", grid_resolution=GRID,
                                                 random_state=0),
        "IncrementalPDP": lambda: IncrementalPDP(model, "x0", grid_resolution=GRID,
                                                 random_state=0),
    }
    for mode in ("explain_one", "explain_many(256)"):
        for name, make in makers.items():
            explainer = make()
            start = time.perf_counter()
            if mode == "explain_one":
                for rec in records[2000:]:
                    explainer.explain_one(rec)
            else:
                for s in range(2000, n, 256):
                    explainer.explain_many(records[s:s + 256])
            t = time.perf_counter() - start
            out.append({"explainer": name, "mode": mode, "rows/s": (n - 2000) / t})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 rows only")
    parser.add_argument("--full", action="store_true", help="alibi's default grid at 200,000")
    args = parser.parse_args()
    from sklearn.ensemble import HistGradientBoostingRegressor

    Xfit = make_data(20_000, seed=0)
    hgb = HistGradientBoostingRegressor(max_iter=100, random_state=0).fit(Xfit, numpy_model(Xfit))
    models = {"numpy function": numpy_model, "HistGradientBoosting": hgb.predict}
    rows = []
    for n, repeats in ((10_000, 5),) if args.quick else ((10_000, 5), (200_000, 3)):
        for model_name, fn in models.items():
            rows += bench_static(n, model_name, fn, repeats, args.full)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 10):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        print("\nstream (River StandardScaler | LinearRegression, 20 bins / grid points):")
        print(pd.DataFrame(bench_stream(4000 if args.quick else 12_000)).to_string(
            index=False, float_format=lambda v: f"{v:.0f}"))


if __name__ == "__main__":
    main()
