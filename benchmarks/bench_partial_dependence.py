"""ixplain.partial_dependence vs sklearn.inspection.partial_dependence(method='brute').

Friedman-1 (20,000 training rows, 10 features, seed 0); HistGradientBoostingRegressor,
RandomForestRegressor(n_estimators=100, max_depth=10), LightGBM, SplineTransformer+Ridge, and
the models whose speed depends on the size of each model call: MLPRegressor(100 hidden units)
and StandardScaler+MLPRegressor (trained on the first 2,000 rows), kernel SVR (RBF, first 500
rows; 1-way only, its 2-way case takes minutes). 1-way PD (grid 50) on 2,000 rows and 2-way PD (50 x 50) on
200 rows, kind='both'; models single-threaded. For scikit-learn's brute method, ixplain's
``method='brute'`` (rows x grid stacked into cache-sized model calls, see
``ixplain.models.call_rows``) and ixplain's default ``method='auto'`` (the exact tree method for
tree models, brute otherwise) it prints the best of the times -- the three calls
interleaved, repeat after repeat, so a loaded machine slows them alike, and the best of the
repeats, the least disturbed by other processes --, the speed-ups, the
max absolute difference of ``average`` and ``individual`` and the peak traced memory
(tracemalloc) per call.

Times are the CPU time of this process by default (``time.process_time``; every model runs
single-threaded, see ``_common``), which a shared machine's other processes barely move; wall
time (``--clock wall``) on a loaded machine swings by 20-50% between repeats, more than the
differences measured here (kernel SVR and LightGBM 1-way spend over 95% of both libraries' time
in the same model rows).

Run: ``PYTHONPATH=src python benchmarks/bench_partial_dependence.py [--repeats 5] [--models MLP,SVR]
[--clock cpu|wall]``
"""

import _common  # noqa: I001  (first: pins BLAS/OpenMP threads to 1)

import argparse
import time
import tracemalloc

import _setups

_common.ensure_installed({"sklearn": "scikit-learn>=1.4", "lightgbm": "lightgbm>=4.0"})

import numpy as np  # noqa: E402
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor  # noqa: E402
from sklearn.inspection import partial_dependence as sk_partial_dependence  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import SplineTransformer, StandardScaler  # noqa: E402
from sklearn.svm import SVR  # noqa: E402

from ixplain import partial_dependence  # noqa: E402
from ixplain.models import DEFAULT_MEMORY_BUDGET  # noqa: E402

#: Models trained on the first rows only (an SVR's prediction costs one kernel evaluation per
#: support vector), and the models that run the 1-way case only.
TRAIN_ROWS = {"MLP": 2_000, "Scaler+MLP": 2_000, "SVR": 500}
ONE_WAY_ONLY = {"SVR"}


def models():
    import lightgbm

    mlp = _setups.mlp_regressor  # its convergence warning silenced: a fit good enough to time
    return {
        "HistGradientBoosting": HistGradientBoostingRegressor(random_state=0),
        "RandomForest": RandomForestRegressor(
            n_estimators=100, max_depth=10, n_jobs=1, random_state=0
        ),
        "LightGBM": lightgbm.LGBMRegressor(n_jobs=1, verbose=-1, random_state=0),
        "Spline+Ridge": make_pipeline(SplineTransformer(), Ridge()),
        "MLP": mlp(),
        "Scaler+MLP": make_pipeline(StandardScaler(), mlp()),
        "SVR": SVR(kernel="rbf"),
    }


def peak_memory(fn):
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def run_case(model, X_eval, features, repeats):
    """Times, max |diff| vs sklearn and peak memory for sklearn, ixplain brute and ixplain auto."""
    kwargs = dict(grid_resolution=50, kind="both")
    calls = {
        "sklearn": lambda: sk_partial_dependence(model, X_eval, features, method="brute", **kwargs),
        "brute": lambda: partial_dependence(model, X_eval, features, method="brute", **kwargs),
        "auto": lambda: partial_dependence(model, X_eval, features, **kwargs),
    }
    times, results = interleaved_times(calls, repeats)
    out = {
        name: {"s": times[name], "res": results[name], "mem": peak_memory(fn)}
        for name, fn in calls.items()
    }
    sk = out["sklearn"]["res"]
    for name in ("brute", "auto"):
        res = out[name]["res"]
        out[name]["diff"] = max(
            np.abs(sk["average"] - res["average"]).max(),
            np.abs(sk["individual"] - res["individual"]).max(),
        )
        out[name]["grid"] = all(
            np.array_equal(a, b) for a, b in zip(sk["grid_values"], res["grid_values"])
        )
    out["auto"]["method"] = out["auto"]["res"].method
    return out


clock = time.process_time


def interleaved_times(calls, repeats):
    """Best time of each call, the calls run in turn in every repeat; last results."""
    times = {name: [] for name in calls}
    results = {}
    for _ in range(repeats):
        for name, fn in calls.items():
            start = clock()
            results[name] = fn()
            times[name].append(clock() - start)
    return {name: min(t) for name, t in times.items()}, results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--models", default="", help="comma-separated subset of the model names")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    args = parser.parse_args()
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    chosen = {m.strip() for m in args.models.split(",") if m.strip()}

    X, y = make_friedman1(n_samples=20_000, n_features=10, random_state=0)
    rng = np.random.default_rng(0)
    X_1way = X[rng.choice(len(X), 2_000, replace=False)]
    X_2way = X[rng.choice(len(X), 200, replace=False)]
    cases = [("1-way", X_1way, [0]), ("2-way", X_2way, [0, 1])]

    header = (
        f"{'model':<21}{'case':<6}{'sklearn s':>10}{'brute s':>9}{'x':>6}{'auto s':>8}{'x':>7}"
        f"{'auto=':>11}{'max|diff|':>10}{'grids':>6}{'MB sk':>7}{'MB brute':>9}{'MB auto':>8}"
    )
    print(f"best of {args.repeats} (interleaved), {args.clock} time; memory budget {DEFAULT_MEMORY_BUDGET / 2**20:.0f} MB; "
          "max|diff| over average and individual, both ixplain methods vs sklearn brute")
    print(header)
    print("-" * len(header))
    for name, model in models().items():
        if chosen and name not in chosen:
            continue
        n_train = TRAIN_ROWS.get(name, len(X))
        model.fit(X[:n_train], y[:n_train])
        for case, X_eval, features in cases:
            if case == "2-way" and name in ONE_WAY_ONLY:
                continue
            r = run_case(model, X_eval, features, args.repeats)
            sk, br, au = r["sklearn"], r["brute"], r["auto"]
            diff = max(br["diff"], au["diff"])
            grids = "yes" if br["grid"] and au["grid"] else "NO"
            print(
                f"{name:<21}{case:<6}{sk['s']:>10.3f}{br['s']:>9.3f}{sk['s'] / br['s']:>5.1f}x"
                f"{au['s']:>8.3f}{sk['s'] / au['s']:>6.1f}x{au['method']:>11}{diff:>10.1e}"
                f"{grids:>6}{sk['mem'] / 2**20:>7.1f}{br['mem'] / 2**20:>9.1f}"
                f"{au['mem'] / 2**20:>8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
