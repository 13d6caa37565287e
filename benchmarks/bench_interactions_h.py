"""Friedman's H-statistic on 5,000 rows: ixplain's exact tree paths vs brute force (hstats' semantics).

The anchor is a plain brute-force implementation of R ``hstats``' algorithm written here with
numpy and stacked model calls (pyartemis, the Python package, is not installed in the benchmark
venv: it pins an old pandas). For every feature ``j`` it predicts the ``n x n_distinct(j)`` ICE
matrix (``PD_j`` = weighted column mean, ``PD_{-j}`` = row mean weighted by the value counts,
exactly ``hstats``' ``F_j`` and ``F_not_j``), picks the ``pairwise_m = 5`` features with the
largest overall numerator and predicts ``PD_jk`` at the distinct data pairs: ``n^2`` predictions
per feature and per pair. It applies no guard, so it also shows what an unguarded ratio gives for
features the model does not use.

Data: Friedman-1 (10 features; ``x0 x1`` interact through ``sin``, ``x5..x9`` are noise), 20,000
training rows, in which ``x8`` and ``x9`` are constant -- the models cannot use them -- while the
explained rows are fresh draws where they vary. Models: HistGradientBoosting, LightGBM and a
random forest (100 trees each, single-threaded).

Measured in one run, interleaved per model:

* ``tree`` -- ``h_statistic(model, X, n_max=None, method="tree")`` on 5,000 rows (median of 3;
  numba compiled beforehand);
* ``brute 5k`` -- the brute anchor on the same 5,000 rows for one feature and one pair (the full
  statistic would take tens of minutes per model: 10 features + 10 pairs, 25 million predictions
  each). ``brute 5k est`` scales it by the number of stacked predictions of the full run (every
  unit costs ``n x n_distinct``); the ratio ``x`` is ``brute 5k est / tree``;
* ``brute 1k`` / ``tree 1k`` -- the complete statistic by both on the first 1,000 rows (the
  brute timed once), and ``max |diff|`` between their ``H^2`` and numerators (the tree values
  against this plain numpy reference) -- and ixplain's own ``method="brute"`` too;
* ``unused`` -- the largest ``H^2`` (overall and pairwise) that ixplain and the unguarded brute
  give the features ``x8, x9`` the model never splits on.

Run: ``PYTHONPATH=src python benchmarks/bench_interactions_h.py [--quick]``
"""

from __future__ import annotations

import argparse
import itertools
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
PAIRWISE_M = 5
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


def brute_h(predict, X, w=None, features=None, pairs=None):
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
        top = sorted((j for j in num if num[j] > 0), key=lambda j: -num[j])[:PAIRWISE_M]
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


def timed(fn, repeats):
    return _common.median_time(fn, repeats)


def run(name, model, X, X1k, quick):
    predict = model.predict
    kw = dict(n_max=None, pairwise_m=PAIRWISE_M, method="tree")
    t_tree, h = timed(lambda: h_statistic(model, X, **kw), 1 if quick else 3)
    # brute on the full rows, one feature and one pair (the rest scales with the row count)
    start = time.perf_counter()
    brute_one_way(predict, X, np.ones(len(X)), 0)
    brute_two_way(predict, X, np.ones(len(X)), 0, 1)
    t_unit = time.perf_counter() - start
    unit_rows = len(np.unique(X[:, 0])) + len(np.unique(X[:, [0, 1]], axis=0))
    full_rows = sum(len(np.unique(X[:, j])) for j in range(X.shape[1]))
    full_rows += sum(len(np.unique(X[:, list(p)], axis=0)) for p in h.pairs)
    t_brute_est = t_unit * full_rows / unit_rows
    # complete statistic on 1,000 rows by all three
    t_tree1k, h1k = timed(lambda: h_statistic(model, X1k, **kw), 3)
    start = time.perf_counter()
    overall, pairs = brute_h(predict, X1k, pairs=h1k.pairs)
    t_brute1k = time.perf_counter() - start
    own = h_statistic(model, X1k, n_max=None, pairs=h1k.pairs, method="brute")
    with np.errstate(invalid="ignore", divide="ignore"):
        noguard = brute_h(predict, X1k[:300], features=[0, *UNUSED], pairs=[(0, 8), (8, 9)])
    unguarded = [max(noguard[0][j][1] for j in UNUSED), noguard[1][0, 8][1], noguard[1][8, 9][1]]
    return {
        "model": name, "tree": t_tree, "unit": t_unit, "brute_est": t_brute_est,
        "tree1k": t_tree1k, "brute1k": t_brute1k, "diff": max_diff(h1k, overall, pairs),
        "diff_own": max_diff(own, overall, pairs), "unused": unused_max(h),
        "unused_brute": unguarded,
        "pairs": h.pairs,
    }


HEAD = (f"{'model':14s} {'tree s':>7s} {'brute 1f+1p s':>13s} {'brute est s':>11s} "
        f"{'x':>8s} {'tree 1k s':>9s} {'brute 1k s':>10s} {'x 1k':>7s} "
        f"{'max|diff| 1k':>12s} {'own brute':>9s} {'unused H2':>9s} {'unguarded j/(0,8)/(8,9)':>22s}")


def print_row(r):
    print(f"{r['model']:14s} {r['tree']:7.2f} {r['unit']:13.1f} {r['brute_est']:11.0f} "
          f"{r['brute_est'] / r['tree']:7.0f}x {r['tree1k']:9.3f} {r['brute1k']:10.1f} "
          f"{r['brute1k'] / r['tree1k']:6.0f}x {r['diff']:12.1e} {r['diff_own']:9.1e} "
          f"{r['unused']:9.2g} {'/'.join(f'{v:.2g}' for v in r['unused_brute']):>22s}",
          flush=True)


def print_rows(rows, n):
    print(f"\nH-statistic, {n} rows, 10 features, pairwise_m={PAIRWISE_M} (single thread)")
    print(HEAD)
    print("-" * len(HEAD))
    for r in rows:
        print_row(r)
    for r in rows:
        print(f"  {r['model']}: pairs {r['pairs']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 rows and smaller models")
    parser.add_argument("--models", default="HGB,LightGBM,RandomForest",
                        help="comma-separated subset of HGB, LightGBM, RandomForest")
    args = parser.parse_args()
    import lightgbm as lgb

    n = 1_000 if args.quick else 5_000
    trees = 30 if args.quick else 100
    Xt, yt = make_friedman1(n_samples=20_000, n_features=10, noise=1.0, random_state=0)
    Xt[:, list(UNUSED)] = 0.5
    X, _ = make_friedman1(n_samples=n, n_features=10, random_state=1)
    models = {
        "HGB": HistGradientBoostingRegressor(max_iter=trees, random_state=0),
        "LightGBM": lgb.LGBMRegressor(n_estimators=trees, n_jobs=1, verbose=-1),
        "RandomForest": RandomForestRegressor(trees, max_depth=8, n_jobs=1, random_state=0),
    }
    h_statistic(models["HGB"].fit(Xt[:500], yt[:500]), X[:50])  # compile the numba kernels
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print(HEAD, flush=True)
        for name in args.models.split(","):
            model = models[name].fit(Xt, yt)
            rows.append(run(name, model, X, X[:1000], args.quick))
            print_row(rows[-1])
    print_rows(rows, n)
    print("\ntree = ixplain h_statistic(method='tree'), full statistic; brute 1f+1p = the brute "
          "anchor on the same rows for feature x0 and pair (x0, x1); brute est = that scaled to "
          "the full statistic by the number of stacked predictions; x = brute est / tree. 1k: "
          "the complete statistic by both on 1,000 rows; max|diff| = tree vs the plain numpy "
          "brute; own brute = ixplain method='brute' vs it. unused H2 = largest H^2 ixplain gives "
          "x8/x9 (never split on); unguarded = what the unguarded brute ratio gives (300 rows): "
          "max overall H^2 of x8/x9, then H^2 of the pairs (x0, x8) and (x8, x9).")


if __name__ == "__main__":
    main()
