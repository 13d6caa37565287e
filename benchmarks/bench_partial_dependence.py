"""ixplain.partial_dependence vs sklearn.inspection.partial_dependence(method='brute').

Friedman-1 (20,000 training rows, 10 features, seed 0); HistGradientBoostingRegressor,
RandomForestRegressor(n_estimators=100, max_depth=10), LightGBM, SplineTransformer+Ridge;
1-way PD (grid 50) on 2,000 rows and 2-way PD (50 x 50) on 200 rows, kind='both'; models
single-threaded. For scikit-learn's brute method, ixplain's ``method='brute'`` (rows x grid stacked
into few model calls) and ixplain's default ``method='auto'`` (the exact tree method for tree
models, brute otherwise) it prints the median of 5 wall times, the speed-ups, the max absolute
difference of ``average`` and ``individual`` and the peak traced memory (tracemalloc) per call.

Run: ``PYTHONPATH=src python benchmarks/bench_partial_dependence.py [--repeats 5]``
"""

import _common  # noqa: I001  (first: pins BLAS/OpenMP threads to 1)

import argparse
import tracemalloc

_common.ensure_installed({"sklearn": "scikit-learn>=1.4", "lightgbm": "lightgbm>=4.0"})

import numpy as np  # noqa: E402
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor  # noqa: E402
from sklearn.inspection import partial_dependence as sk_partial_dependence  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import SplineTransformer  # noqa: E402

from ixplain import partial_dependence  # noqa: E402
from ixplain.models import DEFAULT_MEMORY_BUDGET  # noqa: E402


def models():
    import lightgbm

    return {
        "HistGradientBoosting": HistGradientBoostingRegressor(random_state=0),
        "RandomForest": RandomForestRegressor(
            n_estimators=100, max_depth=10, n_jobs=1, random_state=0
        ),
        "LightGBM": lightgbm.LGBMRegressor(n_jobs=1, verbose=-1, random_state=0),
        "Spline+Ridge": make_pipeline(SplineTransformer(), Ridge()),
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
    out = {}
    for name, fn in calls.items():
        seconds, result = _common.median_time(fn, repeats)
        out[name] = {"s": seconds, "res": result, "mem": peak_memory(fn)}
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    X, y = make_friedman1(n_samples=20_000, n_features=10, random_state=0)
    rng = np.random.default_rng(0)
    X_1way = X[rng.choice(len(X), 2_000, replace=False)]
    X_2way = X[rng.choice(len(X), 200, replace=False)]
    cases = [("1-way", X_1way, [0]), ("2-way", X_2way, [0, 1])]

    header = (
        f"{'model':<21}{'case':<6}{'sklearn s':>10}{'brute s':>9}{'x':>6}{'auto s':>8}{'x':>7}"
        f"{'auto=':>11}{'max|diff|':>10}{'grids':>6}{'MB sk':>7}{'MB brute':>9}{'MB auto':>8}"
    )
    print(f"median of {args.repeats}; memory budget {DEFAULT_MEMORY_BUDGET / 2**20:.0f} MB; "
          "max|diff| over average and individual, both ixplain methods vs sklearn brute")
    print(header)
    print("-" * len(header))
    for name, model in models().items():
        model.fit(X, y)
        for case, X_eval, features in cases:
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
