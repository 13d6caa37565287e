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
* ``lgb1`` / ``lgbm``: the same with LightGBM's LGBMClassifier;
* ``dnba1`` / ``dnbam`` / ``dhgb1`` / ``dhgbm``: ``nba`` and ``hgb`` with an
  ``ExplanationDriftDetector`` attached (default settings; ``static_model=True`` for the
  HistGradientBoosting model), ``explain_one`` / ``explain_many`` in batches of 32 (the
  tree learning each batch after it is explained), on 4,000 rows of the stationary stream
  (no alarm: the detector's steady per-row cost); the last column is the detector's own
  CPU time per row, the case's time minus that of the same case without the detector
  (``outside`` is not given: the detector's snapshot calls a copy of the model).
  Measured (session 6, medians of 7 runs alternating with the version before, a loaded
  two-core machine), the detector's CPU time per row before -> after the loss test's
  checkpoint replay and the explainer's base loss as the data channel's loss (no model
  call of its own): ``dnba1`` 1190 -> 817, ``dnbam`` 585 -> 515, ``dhgb1`` 2154 -> 523,
  ``dhgbm`` 91 -> 42 microseconds (same events). Session 10, the look's input memory as
  one ring buffer per column instead of a list of chunks (``--cases dhgbm,dnbam --n 2000``,
  5 runs alternating with ad5d520, a machine at load 1.5 to 5.6): ``dhgbm`` 41 -> 44,
  ``dnbam`` 400 -> 440 microseconds (medians; the runs of ad5d520 alone spread from 33 to
  65 and from 285 to 592). Timed alone (process time, 20,000 rows of 10 columns): a push
  costs 0.21 -> 0.27 microseconds per row in chunks of 32, 8.0 -> 6.5 in chunks of one; a
  look's read of one column 109 -> 13 microseconds in chunks of 32, 3,608 -> 14 in chunks
  of one.

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

from ixplain import ExplanationDriftDetector, GeometricReservoir, IncrementalPFI  # noqa: E402

CASES = ("nba", "mc", "hgb1", "hgbm", "lgb1", "lgbm", "dnba1", "dnbam", "dhgb1", "dhgbm")
DRIFT_ROWS = 4000  # the detector cases' rows: past the first snapshot (row 1,000) and warm-ups
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


def explainer(model, detector=None):
    e = IncrementalPFI(model, "zero_one", alpha=0.001, n_samples=1, random_state=0,
                       storage=GeometricReservoir(1000, p=1.0, random_state=0),
                       drift_detector=detector)
    e.timed = Timed(e._model._predict_native)
    e._model._predict_native = e.timed
    return e


def run(case, n, models, drift=False, batch=100):
    """(seconds explaining, seconds outside the model) for one pass over ``n`` rows (in
    batches of ``batch`` for the ``...m`` cases); with ``drift``, a detector attached."""
    if case[:3] in ("nba", "mc"):
        model = tree.HoeffdingTreeClassifier(leaf_prediction=case[:3].rstrip("1m"))
        e = explainer(model, ExplanationDriftDetector(random_state=0) if drift else None)
        total, rows = 0.0, list(Agrawal(classification_function=1, seed=0).take(n))
        step = batch if case.endswith("m") else 1
        for s in range(0, n, step):
            chunk = rows[s : s + step]
            start = clock()
            if step == 1:
                e.explain_one(*chunk[0])
            else:
                e.explain_many([x for x, _ in chunk], [t for _, t in chunk])
            total += clock() - start
            for x, y in chunk:
                model.learn_one(x, y)
        return total, total - e.timed.seconds
    kind = case[:3]
    if kind not in models:
        models[kind] = static_model(kind)
    data = list(Agrawal(classification_function=1, seed=2).take(n))
    X, y = [x for x, _ in data], np.array([t for _, t in data])
    det = ExplanationDriftDetector(static_model=True, random_state=0) if drift else None
    e = explainer(models[kind], det)
    start = clock()
    if case.endswith("m"):
        for s in range(0, n, batch):
            e.explain_many(X[s : s + batch], y[s : s + batch])
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
    print(f"{'case':<6} {'us/row':>9} {'outside us/row':>15} {'samples/s':>10} "
          f"{'detector us/row':>16}   (cpu time)")
    for case in args.cases.split(","):
        if case.startswith("d"):  # the case with and without the detector
            n = DRIFT_ROWS
            runs = [(run(case[1:], n, models, True, 32), run(case[1:], n, models, False, 32))
                    for _ in range(args.repeats)]
            total = min(r[0][0] for r in runs)
            extra = f"{1e6 * (total - min(r[1][0] for r in runs)) / n:16.1f}"
            print(f"{case:<6} {1e6 * total / n:9.1f} {'-':>15} {n / total:10.0f} {extra}",
                  flush=True)
            continue
        runs = [run(case, args.n, models) for _ in range(args.repeats)]
        total = min(r[0] for r in runs)
        outside = min(r[1] for r in runs)
        print(f"{case:<6} {1e6 * total / args.n:9.1f} {1e6 * outside / args.n:15.1f} "
              f"{args.n / total:10.0f}", flush=True)


if __name__ == "__main__":
    main()
