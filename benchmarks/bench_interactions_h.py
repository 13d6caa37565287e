"""Friedman's H-statistic on 5,000 rows: ixplain's exact tree paths vs brute force (hstats' semantics).

The anchor is a plain brute-force implementation of R ``hstats``' algorithm written here with
numpy and stacked model calls (pyartemis, the Python package, is not installed in the benchmark
venv: it pins an old pandas). For every feature ``j`` it predicts the ``n x n_distinct(j)`` ICE
matrix (``PD_j`` = weighted column mean, ``PD_{-j}`` = row mean weighted by the value counts,
exactly ``hstats``' ``F_j`` and ``F_not_j``), picks the ``pairwise_m`` features with the largest
overall numerator and predicts ``PD_jk`` at the distinct data pairs: ``n^2`` predictions per
feature and per pair. It applies no guard, so it also shows what an unguarded ratio gives for
features the model does not use.

Data: Friedman-1 (10 features; ``x0 x1`` interact through ``sin``, ``x5..x9`` are noise), 20,000
training rows, in which ``x8`` and ``x9`` are constant -- the models cannot use them -- while the
explained rows are fresh draws where they vary. Models: HistGradientBoosting, LightGBM and a
random forest (100 trees each, single-threaded; the forest with ``max_depth=8`` or deeper with
``--depth``).

Everything is measured, nothing extrapolated: per model, in one run and interleaved,

* ``tree`` -- ``h_statistic(model, X, n_max=None, pairwise_m=m, method="tree")`` on all rows
  (numba compiled beforehand), timed before and after the brute run (the median of the runs);
* ``brute`` -- the complete statistic by the brute anchor on the same rows: all 10 features and
  the pairs of its own top ``m`` features (``--pairwise-m``, default 3: 3 pairs); at 5,000 rows
  that is ``(10 + 3) * 25e6`` predictions, about half an hour per model on one core;
* ``max|diff|`` -- the largest difference between the tree values (``H^2`` and numerators,
  overall and pairwise) and this plain numpy reference; ``same pairs`` -- both chose the same;
* ``unused`` -- the largest ``H^2`` (overall and pairwise) that ixplain gives the features
  ``x8, x9`` the model never splits on, and what the unguarded brute ratio gives them (300 rows:
  overall, then the pairs (x0, x8) and (x8, x9)).

Rows print as each model finishes (``--json`` also writes them).

Measured (2026-12-01, load average ~19 on 2 cores, so seconds are inflated on both sides alike):
``--rows 1000``: HGB 1.27 s vs 494 s (389x), LightGBM 1.07 s vs 786 s (735x), RandomForest
1.86 s vs 164 s (88x); ``--rows 2000 --models RandomForest``: 4.94 s vs 1,232 s (249x);
max|diff| <= 2.1e-14, same pairs, unused ``H^2`` 0 (the unguarded brute: 1 for (x8, x9)). Idle
machine (2026-12-02), ``--rows 5000 --models RandomForest``: tree 0.63 s vs brute 835 s
(1,318x, 3.25e8 brute predictions), max|diff| 1.0e-14, same pairs, unused ``H^2`` 0.
Run: ``PYTHONPATH=src python benchmarks/bench_interactions_h.py [--rows 1000] [--models RandomForest]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
import warnings

import _common

_common.ensure_installed(
    {"sklearn": "scikit-learn>=1.4", "lightgbm": "lightgbm>=4.0", "numba": "numba>=0.59"}
)

import numpy as np  # noqa: E402
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor  # noqa: E402

from ixplain import h_statistic  # noqa: E402

UNUSED = (8, 9)
CELLS = 2**21  # stacked rows x features per model call of the brute anchor


# ------------------------------------------------------------------------------ brute anchor
def _stacked(predict, X, cols, points):
    """Yield ``(start, stop, pred)``: ``pred[g, i] = f(x_i with x_cols := points[g])``."""
    n = X.shape[0]
    per = max(1, CELLS // (n * X.shape[1]))
    for s in range(0, len(points), per):
        e = min(s + per, len(points))
        Z = np.tile(X, (e - s, 1))
        Z[:, cols] = np.repeat(points[s:e], n, axis=0)
        yield s, e, predict(Z).reshape(e - s, n)


def brute_one_way(predict, X, w, j):
    """hstats' F_j and F_not_j at the rows (uncentred) from the n x n_distinct ICE matrix."""
    uniq, inv = np.unique(X[:, j], return_inverse=True)
    omega = np.bincount(inv, weights=w, minlength=len(uniq))
    W = w.sum()
    cols, notj = np.empty(len(uniq)), np.zeros(X.shape[0])
    for s, e, pred in _stacked(predict, X, [j], uniq[:, None]):
        cols[s:e] = pred @ w / W
        notj += omega[s:e] @ pred / W
    return cols[inv], notj


def brute_two_way(predict, X, w, j, k):
    uniq, inv = np.unique(X[:, [j, k]], axis=0, return_inverse=True)
    cols = np.empty(len(uniq))
    for s, e, pred in _stacked(predict, X, [j, k], uniq):
        cols[s:e] = pred @ w / w.sum()
    return cols[inv.reshape(-1)]


def brute_h(predict, X, w=None, features=None, pairs=None, pairwise_m=3):
    """The complete statistic (no guards): overall (num, h2) and {pair: (num, h2)}."""
    w = np.ones(len(X)) if w is None else w
    W = w.sum()
    features = range(X.shape[1]) if features is None else features

    def c(v):
        return v - w @ v / W

    F = c(predict(X))
    var = w @ F**2 / W
    main, num = {}, {}
    for j in features:
        pd_j, notj = brute_one_way(predict, X, w, j)
        main[j] = c(pd_j)
        num[j] = w @ (F - main[j] - c(notj)) ** 2 / W
    if pairs is None:
        top = sorted((j for j in num if num[j] > 0), key=lambda j: -num[j])[:pairwise_m]
        pairs = list(itertools.combinations(sorted(top), 2))
    out = {}
    for j, k in pairs:
        Fjk = c(brute_two_way(predict, X, w, j, k))
        n_jk = w @ (Fjk - main[j] - main[k]) ** 2 / W
        out[j, k] = (n_jk, n_jk / (w @ Fjk**2 / W))
    return {j: (num[j], num[j] / var) for j in num}, out


# ------------------------------------------------------------------------------ comparison
def max_diff(h, overall, pairs):
    d = [abs(h.overall_unnormalized[0, j] - v[0]) for j, v in overall.items()]
    d += [abs(h.overall_h2[0, j] - v[1]) for j, v in overall.items()]
    d += [abs(h.pairwise_unnormalized[0, j, k] - v[0]) for (j, k), v in pairs.items()]
    d += [abs(h.pairwise_h2[0, j, k] - v[1]) for (j, k), v in pairs.items()]
    return float(max(d))


def unused_max(h):
    pair = np.nan_to_num(h.pairwise_h2[0][list(UNUSED)], nan=0.0)
    return float(max(h.overall_h2[0, list(UNUSED)].max(), pair.max()))


def run(name, model, X, pairwise_m, repeats):
    predict = model.predict
    kw = dict(n_max=None, pairwise_m=pairwise_m, method="tree")
    times = []

    def tree():
        start = time.perf_counter()
        out = h_statistic(model, X, **kw)
        times.append(time.perf_counter() - start)
        return out

    h = [tree() for _ in range(repeats)][-1]
    start = time.perf_counter()
    overall, pairs = brute_h(predict, X, pairwise_m=pairwise_m)
    t_brute = time.perf_counter() - start
    for _ in range(repeats):
        tree()
    with np.errstate(invalid="ignore", divide="ignore"):
        noguard = brute_h(predict, X[:300], features=[0, *UNUSED], pairs=[(0, 8), (8, 9)])
    unguarded = [max(noguard[0][j][1] for j in UNUSED), noguard[1][0, 8][1], noguard[1][8, 9][1]]
    return {
        "model": name, "rows": len(X), "tree": float(np.median(times)), "tree_runs": times,
        "brute": t_brute, "predictions": n_predictions(X, list(pairs)),
        "diff": max_diff(h, overall, pairs), "same_pairs": sorted(pairs) == sorted(h.pairs),
        "unused": unused_max(h), "unused_brute": unguarded, "pairs": [list(p) for p in h.pairs],
    }


def n_predictions(X, pairs):
    n = len(X)
    total = sum(len(np.unique(X[:, j])) for j in range(X.shape[1]))
    total += sum(len(np.unique(X[:, list(p)], axis=0)) for p in pairs)
    return int(total * n)


HEAD = (f"{'model':14s} {'rows':>5s} {'tree s':>7s} {'brute s':>8s} {'x':>7s} "
        f"{'predictions':>11s} {'max|diff|':>9s} {'same pairs':>10s} {'unused H2':>9s} "
        f"{'unguarded j/(0,8)/(8,9)':>23s}")


def print_row(r):
    print(f"{r['model']:14s} {r['rows']:5d} {r['tree']:7.2f} {r['brute']:8.0f} "
          f"{r['brute'] / r['tree']:6.0f}x {r['predictions']:11.2e} {r['diff']:9.1e} "
          f"{str(r['same_pairs']):>10s} {r['unused']:9.2g} "
          f"{'/'.join(f'{v:.2g}' for v in r['unused_brute']):>23s}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000, help="explained rows (default 5,000)")
    parser.add_argument("--pairwise-m", type=int, default=3, help="features given pairs")
    parser.add_argument("--models", default="RandomForest,HGB,LightGBM",
                        help="comma-separated subset of RandomForest, HGB, LightGBM")
    parser.add_argument("--depth", type=int, default=8, help="the forest's max_depth")
    parser.add_argument("--repeats", type=int, default=2, help="tree runs before and after")
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args()
    import lightgbm as lgb

    Xt, yt = make_friedman1(n_samples=20_000, n_features=10, noise=1.0, random_state=0)
    Xt[:, list(UNUSED)] = 0.5
    X, _ = make_friedman1(n_samples=args.rows, n_features=10, random_state=1)
    models = {
        "HGB": HistGradientBoostingRegressor(max_iter=100, random_state=0),
        "LightGBM": lgb.LGBMRegressor(n_estimators=100, n_jobs=1, verbose=-1),
        "RandomForest": RandomForestRegressor(100, max_depth=args.depth, n_jobs=1,
                                              random_state=0),
    }
    h_statistic(models["HGB"].fit(Xt[:500], yt[:500]), X[:50])  # compile the numba kernels
    rows = []
    print(f"H-statistic, {args.rows} rows, 10 features, pairwise_m={args.pairwise_m}, "
          "single thread, tree and brute interleaved in one run (machine shared: see tree runs)")
    print(HEAD)
    print("-" * len(HEAD), flush=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.models.split(","):
            model = models[name].fit(Xt, yt)
            rows.append(run(name, model, X, args.pairwise_m, args.repeats))
            print_row(rows[-1])
            if args.json:
                with open(args.json, "w") as fh:
                    json.dump(rows, fh, indent=1)
    for r in rows:
        print(f"  {r['model']}: pairs {r['pairs']}, tree runs "
              f"{', '.join(f'{t:.2f}' for t in r['tree_runs'])} s")
    print("\ntree = ixplain h_statistic(method='tree'), median of the runs before and after the "
          "brute one; brute = the complete statistic by the plain numpy brute anchor (hstats' "
          "semantics, no guard) on the same rows, timed once; x = brute / tree; predictions = "
          "model rows the brute predicts; max|diff| = largest |tree - brute| over H^2 and "
          "numerators (overall and pairwise); unused H2 = largest H^2 ixplain gives x8/x9 (never "
          "split on); unguarded = the unguarded brute on 300 rows: max overall H^2 of x8/x9, "
          "then H^2 of the pairs (x0, x8) and (x8, x9).")


if __name__ == "__main__":
    main()
