"""ixplain.permutation_importance vs sklearn.inspection.permutation_importance, side by side.

The same fitted model, data and ``n_repeats`` go to both libraries in one process (default
scoring: the estimator's ``score``, R^2 for a regressor); every model runs single-threaded (see
``_common``). Cases:

* ``Ridge``: 100,000 x 60 (a wide table, a cheap model: the cost is moving data, not the model);
* ``HGB``: HistGradientBoostingRegressor on Friedman-1, 20,000 x 10 (the model's rows dominate);
* ``Ridge-1M``: 1,000,000 x 60 at the default memory budget (the permutations of all groups
  do not fit a quarter of it; one run each, it takes minutes).

``--quick`` runs smaller shapes in well under a minute and passes ixplain a small
``memory_budget`` so the rows are chunked and the permutations do not fit the budget -- the
case that once made every chunk draw every permutation again.

It prints the best of the interleaved repeats (CPU time of this process by default; wall time
with ``--clock wall``), the speed-up ``scikit-learn time / ixplain time`` (>= 1: ixplain is as
fast or faster) and the largest difference of ``importances_mean`` (the two libraries draw
different permutations: it is a sanity check, of the order of the importances' spread, not 0).
With ``--min-speedup X`` it exits with status 1 when a case's speed-up is below ``X``.

Run: ``PYTHONPATH=src python benchmarks/bench_permutation_importance.py [--quick]
[--repeats 3] [--cases Ridge,HGB,Ridge-1M] [--clock cpu|wall] [--min-speedup 0.5]``
"""

import _common  # noqa: I001  (first: pins BLAS/OpenMP threads to 1)

import argparse
import sys
import time

_common.ensure_installed({"sklearn": "scikit-learn>=1.4"})

import numpy as np  # noqa: E402
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor  # noqa: E402
from sklearn.inspection import permutation_importance as sk_permutation_importance  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402

from ixplain import permutation_importance  # noqa: E402
from ixplain.models import DEFAULT_MEMORY_BUDGET  # noqa: E402

#: name -> (model kind, rows, features, n_repeats, ixplain memory_budget, repeats cap)
FULL = {
    "Ridge": ("ridge", 100_000, 60, 5, DEFAULT_MEMORY_BUDGET, None),
    "HGB": ("hgb", 20_000, 10, 5, DEFAULT_MEMORY_BUDGET, None),
    "Ridge-1M": ("ridge", 1_000_000, 60, 5, DEFAULT_MEMORY_BUDGET, 1),
}
#: The quick shapes: a budget of 4 MB holds 8,738 rows of 60 features (the 20,000 rows are
#: three chunks) and a quarter of it 1 MB of permutations (20,000 rows x 300 group-repeats
#: need 48 MB): the rows are chunked and the permutations are kept a few at a time.
QUICK = {
    "Ridge": ("ridge", 20_000, 60, 5, 4 * 2**20, None),
    "HGB": ("hgb", 4_000, 10, 5, 2**18, None),
}


def make_case(kind, n, d):
    """(fitted model, X, y) for a case; fixed seed."""
    if kind == "hgb":
        X, y = make_friedman1(n_samples=n, n_features=d, noise=1.0, random_state=0)
        return HistGradientBoostingRegressor(max_iter=100, random_state=0).fit(X, y), X, y
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + rng.normal(size=n)
    return Ridge().fit(X[: min(n, 50_000)], y[: min(n, 50_000)]), X, y


def run_case(name, spec, repeats, clock):
    kind, n, d, n_repeats, budget, cap = spec
    model, X, y = make_case(kind, n, d)
    calls = {
        "ixplain": lambda: permutation_importance(model, X, y, n_repeats=n_repeats,
                                                  random_state=0, memory_budget=budget),
        "sklearn": lambda: sk_permutation_importance(model, X, y, n_repeats=n_repeats,
                                                     random_state=0),
    }
    best = {k: float("inf") for k in calls}
    results = {}
    for _ in range(repeats if cap is None else min(repeats, cap)):
        for key, call in calls.items():  # interleaved: a loaded machine slows both alike
            start = clock()
            results[key] = call()
            best[key] = min(best[key], clock() - start)
    diff = np.max(np.abs(results["ixplain"].importances_mean
                         - results["sklearn"].importances_mean))
    speedup = best["sklearn"] / best["ixplain"]
    print(f"{name:<9} {n:>9,} x {d:<3} R={n_repeats}  budget={budget / 2**20:>6.1f} MB  "
          f"ixplain {best['ixplain']:8.2f} s  sklearn {best['sklearn']:8.2f} s  "
          f"speed-up {speedup:5.2f}x  max|diff mean| {diff:.3g}", flush=True)
    return speedup


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small shapes, small budget")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default=None, help="comma-separated case names")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    parser.add_argument("--min-speedup", type=float, default=None,
                        help="exit 1 when a case's speed-up is below this")
    args = parser.parse_args(argv)
    table = QUICK if args.quick else FULL
    names = list(table) if args.cases is None else args.cases.split(",")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"permutation_importance, best of {args.repeats} ({args.clock} time), one thread")
    speedups = {name: run_case(name, table[name], args.repeats, clock) for name in names}
    if args.min_speedup is not None:
        slow = {k: v for k, v in speedups.items() if v < args.min_speedup}
        if slow:
            print(f"FAILED: speed-up below {args.min_speedup}: {slow}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
