"""iPFI's own time per row outside the model: for A/B runs of two ixplain versions.

``bench_incremental_pfi.py`` compares ixplain with ixai; this script times ixplain alone on the
same workloads -- the Agrawal stream (classification_function=1), 0-1 loss on predicted labels,
alpha=0.001, a geometric reservoir of 1,000 rows with p=1, n_samples=1, seed 0 -- and prints,
per case, the CPU time per row of the explainer call and the part of it spent outside the
model's native predict call (ixplain's own per-row work: conversion, row streams, storage,
perturbation, loss, aggregation):

* ``nba`` / ``mc``: River HoeffdingTreeClassifier (leaf_prediction='nba' / 'mc') learning
  prequentially, ``explain_one`` (``learn_one`` not timed);
* ``hgb1`` / ``hgbm``: HistGradientBoostingClassifier trained once on 5,000 rows,
  ``explain_one`` / ``explain_many`` in batches of 100;
* ``lgb1`` / ``lgbm``: the same with LightGBM's LGBMClassifier.

To compare two versions, run it alternately from each source tree, several times (a shared
machine's speed drifts), and compare the medians::

    for i in 1 2 3 4 5; do
      (cd /tmp/base && PYTHONPATH=src python benchmarks/bench_ipfi_overhead.py)
      (cd . && PYTHONPATH=src python benchmarks/bench_ipfi_overhead.py)
    done

Run:  python benchmarks/bench_ipfi_overhead.py [--n 2000] [--repeats 1] [--cases nba,hgbm]
"""

from __future__ import annotations

import _common

_common.ensure_installed({"river": "river>=0.21", "sklearn": "scikit-learn",
                          "lightgbm": "lightgbm>=4.0"})

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from river import tree  # noqa: E402
from river.datasets.synth import Agrawal  # noqa: E402

from ixplain import GeometricReservoir, IncrementalPFI  # noqa: E402

CASES = ("nba", "mc", "hgb1", "hgbm", "lgb1", "lgbm")
clock = time.process_time


class Timed:
    """Wrap the adapter's native call: seconds spent inside it."""

    def __init__(self, fn):
        self.fn, self.seconds = fn, 0.0

    def __call__(self, x):
        start = clock()
        out = self.fn(x)
        self.seconds += clock() - start
        return out


def static_model(kind):
    train = list(Agrawal(classification_function=1, seed=1).take(5000))
    names = list(train[0][0])
    X = np.array([[x[k] for k in names] for x, _ in train])
    y = np.array([t for _, t in train])
    if kind == "lgb":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(n_estimators=100, n_jobs=1, verbose=-1).fit(X, y)
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=100, random_state=0).fit(X, y)


def explainer(model):
    e = IncrementalPFI(model, "zero_one", alpha=0.001, n_samples=1, random_state=0,
                       storage=GeometricReservoir(1000, p=1.0, random_state=0))
    e.timed = Timed(e._model._predict_native)
    e._model._predict_native = e.timed
    return e


def run(case, n, models):
    """(seconds explaining, seconds outside the model) for one pass over ``n`` rows."""
    if case in ("nba", "mc"):
        model = tree.HoeffdingTreeClassifier(leaf_prediction=case)
        e, total = explainer(model), 0.0
        for x, y in Agrawal(classification_function=1, seed=0).take(n):
            start = clock()
            e.explain_one(x, y)
            total += clock() - start
            model.learn_one(x, y)
        return total, total - e.timed.seconds
    kind = case[:3]
    if kind not in models:
        models[kind] = static_model(kind)
    data = list(Agrawal(classification_function=1, seed=2).take(n))
    X, y = [x for x, _ in data], np.array([t for _, t in data])
    e = explainer(models[kind])
    start = clock()
    if case.endswith("m"):
        for s in range(0, n, 100):
            e.explain_many(X[s : s + 100], y[s : s + 100])
    else:
        for x, t in zip(X, y):
            e.explain_one(x, t)
    total = clock() - start
    return total, total - e.timed.seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="stream rows per case")
    parser.add_argument("--repeats", type=int, default=1, help="passes per case (best kept)")
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    models = {}
    print(f"{'case':<6} {'us/row':>9} {'outside us/row':>15} {'samples/s':>10}   (cpu time)")
    for case in args.cases.split(","):
        runs = [run(case, args.n, models) for _ in range(args.repeats)]
        total = min(r[0] for r in runs)
        outside = min(r[1] for r in runs)
        print(f"{case:<6} {1e6 * total / args.n:9.1f} {1e6 * outside / args.n:15.1f} "
              f"{args.n / total:10.0f}", flush=True)


if __name__ == "__main__":
    main()
