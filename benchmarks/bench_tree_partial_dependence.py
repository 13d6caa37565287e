"""Exact tree partial dependence vs scikit-learn's brute and recursion methods and one predict pass.

Extends ``bench_partial_dependence.py`` (kept as a separate script so the two can evolve without
conflicts): for tree ensembles, ixplain's ``method="tree"`` computes the brute-force partial
dependence exactly through the trees. This script times, in one run and on the same input,

* ``tree``    -- :func:`ixplain.tree_partial_dependence` (numba engine when installed; the
  pure-numpy engine is timed too); ``cold`` is the first call on a model, which also converts its
  trees (the conversion is cached per fitted model),
* ``brute``   -- :func:`sklearn.inspection.partial_dependence` with ``method="brute"``,
* ``recursion`` -- the same with ``method="recursion"`` (training-cover approximation; only for
  the scikit-learn models that have it),
* ``predict`` -- one ``predict``/``predict_proba`` call over the same rows (the physical floor),

on Friedman-1 (10 features): 1-way PD of ``x0`` over 20,000 rows with scikit-learn's default
100-point grid, and 2-way PD of ``(x0, x1)`` on a 50 x 50 grid over 2,000 rows. All models and
libraries run single-threaded. The columns ``x brute`` and ``x predict`` are time ratios; ``max
|tree - brute|`` checks that the values are identical (XGBoost predicts in float32, so its brute
values carry float32 rounding).

Run: ``PYTHONPATH=src python benchmarks/bench_tree_partial_dependence.py [--quick]``
"""

from __future__ import annotations

import argparse
import time
import warnings

import _common

_common.ensure_installed(
    {"sklearn": "scikit-learn>=1.4", "lightgbm": "lightgbm>=4.0", "xgboost": "xgboost>=2.0",
     "numba": "numba>=0.59"}
)

import numpy as np  # noqa: E402
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    GradientBoostingRegressor,
    HistGradientBoostingRegressor,
    RandomForestRegressor,
)
from sklearn.inspection import partial_dependence as sk_partial_dependence  # noqa: E402

from ixplain import tree_partial_dependence  # noqa: E402
from ixplain.tree._convert import _CACHE  # noqa: E402


def models(quick: bool) -> dict[str, object]:
    import lightgbm as lgb
    import xgboost as xgb

    n = 30 if quick else 100
    return {
        "HistGradientBoosting": HistGradientBoostingRegressor(max_iter=n, random_state=0),
        "RandomForest(100, d10)": RandomForestRegressor(n, max_depth=10, n_jobs=1, random_state=0),
        "GradientBoosting": GradientBoostingRegressor(n_estimators=n, random_state=0),
        "LightGBM": lgb.LGBMRegressor(n_estimators=n, n_jobs=1, verbose=-1),
        "XGBoost": xgb.XGBRegressor(n_estimators=n, n_jobs=1),
    }


def timed(fn, repeats):
    t, out = _common.median_time(fn, repeats)
    return t, out


def run_case(name, model, X, features, grid_values, repeats, brute_repeats):
    has_recursion = type(model).__module__.startswith("sklearn")
    # warm up (numba compilation is cached on disk, but the first call loads it)
    tree_partial_dependence(model, X[:50], features, grid_values)
    _CACHE.clear()  # first call on a model: includes converting its trees (cached afterwards)
    t_cold, _ = timed(lambda: tree_partial_dependence(model, X, features, grid_values), 1)
    t_tree, tree = timed(lambda: tree_partial_dependence(model, X, features, grid_values), repeats)
    t_numpy, _ = timed(
        lambda: tree_partial_dependence(model, X, features, grid_values, engine="numpy"), repeats
    )
    t_pred, _ = timed(lambda: model.predict(X), repeats)
    t_brute, brute = timed(
        lambda: sk_partial_dependence(
            model, X, features, method="brute", custom_values=dict(zip(features, grid_values))
        ),
        brute_repeats,
    )
    if has_recursion:
        t_rec, _ = timed(
            lambda: sk_partial_dependence(
                model, X, features, method="recursion",
                custom_values=dict(zip(features, grid_values)),
            ),
            repeats,
        )
    else:
        t_rec = float("nan")
    diff = float(np.max(np.abs(tree["average"] - brute["average"])))
    return {
        "model": name, "cold": t_cold, "tree": t_tree, "numpy": t_numpy, "brute": t_brute,
        "recursion": t_rec, "predict": t_pred, "diff": diff,
    }


def print_table(title, rows):
    print(f"\n{title}")
    head = (f"{'model':24s} {'cold s':>7s} {'tree s':>7s} {'numpy s':>8s} {'brute s':>8s} {'recur s':>8s} "
            f"{'predict s':>9s} {'x brute':>8s} {'x predict':>9s} {'cold x pred':>11s} "
            f"{'numpy x pred':>12s} "
            f"{'max |tree - brute|':>18s}")
    print(head)
    print("-" * len(head))
    for r in rows:
        rec = "n/a" if np.isnan(r["recursion"]) else f"{r['recursion']:.3f}"
        print(
            f"{r['model']:24s} {r['cold']:7.3f} {r['tree']:7.3f} {r['numpy']:8.3f} {r['brute']:8.3f} {rec:>8s} "
            f"{r['predict']:9.3f} {r['brute'] / r['tree']:7.1f}x {r['tree'] / r['predict']:8.2f}x "
            f"{r['cold'] / r['predict']:10.2f}x "
            f"{r['numpy'] / r['predict']:11.2f}x {r['diff']:18.1e}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller models and data")
    args = parser.parse_args()
    n1, n2 = (4_000, 500) if args.quick else (20_000, 2_000)
    X, y = make_friedman1(n_samples=n1, n_features=10, noise=1.0, random_state=0)
    fitted = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, model in models(args.quick).items():
            start = time.perf_counter()
            fitted[name] = model.fit(X, y)
            print(f"fitted {name} in {time.perf_counter() - start:.1f} s", flush=True)
    grid1 = [sk_partial_dependence(fitted["GradientBoosting"], X, [0], method="recursion",
                                   grid_resolution=100)["grid_values"][0]]
    X2 = X[:n2]
    grid2 = [np.linspace(np.quantile(X2[:, j], 0.05), np.quantile(X2[:, j], 0.95), 50)
             for j in (0, 1)]
    rows1, rows2 = [], []
    for name, model in fitted.items():
        rows1.append(run_case(name, model, X, [0], grid1, repeats=3, brute_repeats=1))
        print(f"  1-way {name} done", flush=True)
        rows2.append(run_case(name, model, X2, [0, 1], grid2, repeats=3, brute_repeats=1))
        print(f"  2-way {name} done", flush=True)
    print_table(f"1-way PD of x0, {len(X)} rows, {len(grid1[0])} grid points (single thread)",
                rows1)
    print_table(f"2-way PD of (x0, x1), {len(X2)} rows, 50 x 50 grid (single thread)", rows2)
    print("\ntree = ixplain tree method (numba engine, median of 3, trees already converted); "
          "cold = its first call on the model (tree conversion included); numpy = the pure-numpy "
          "engine; x brute = brute / tree; x predict = tree / one predict pass over the same rows.")


if __name__ == "__main__":
    main()
