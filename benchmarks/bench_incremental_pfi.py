"""iPFI: ixplain.IncrementalPFI vs ixai.explainer.IncrementalPFI, same stream, same settings.

Both explainers get: the same stream (river Agrawal, classification_function=1), the same model,
alpha, storage kind and size (geometric reservoir of 1000 rows with p = 1 -- ixai's
``constant_probability`` is set explicitly, its default is 1/size), n_samples = 1, 0-1 loss on
predicted labels, and seeded randomness (ixai draws from Python's ``random``; seeded here).

(a) River HoeffdingTreeClassifier learning prequentially (explain, then learn); two copies of the
    model learn the same rows, so both explainers see the same model at every step.
(b) A static classifier trained once on 5,000 Agrawal rows -- HistGradientBoosting and LightGBM
    (``--model both``, the default, or one of them) -- explained on a separate stream with
    explain_one and with explain_many in batches of 100 (ixai has no batch method: its
    explain_one loop is the reference).

The explain_one loops of ixai and ixplain take turns, 100 rows at a time (each explainer with its
own copy of a learning model), so that the slow drifts of a shared machine's speed fall on both
alike. Printed: samples per second, the ratio, model calls and rows, seconds inside vs outside
the model, and the largest difference between the two final importance vectors (both are noisy
estimates of the same quantity: expect differences of the order of the confidence bound).

Times are the CPU time of this process (``time.process_time``; the model runs single-threaded),
measured the same way for both libraries, so the ratios hold on a shared, busy machine; use
``--clock wall`` for wall-clock time. "in model" is the time inside the model's own predict
calls (ixai: its wrapped model function; ixplain: the adapter's native call). For LightGBM the
adapter's native call is its exact path to the booster (``ixplain.models._lightgbm``), which
skips about 0.6 ms of wrapper overhead per call: the model time shrinks by about 4x, so the same
seconds outside the model are a larger share of the total than with HistGradientBoosting, whose
``predict`` is called as is.

Run:  python benchmarks/bench_incremental_pfi.py [--n 3000] [--model both|hgb|lightgbm] [--clock cpu|wall]
"""

from __future__ import annotations

import _common

_common.ensure_installed({"river": "river>=0.21", "ixai": "ixai==0.1.3", "sklearn": "scikit-learn"})

import argparse  # noqa: E402
import gc  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import _setups  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ixai.utils.wrappers import RiverWrapper, SklearnWrapper  # noqa: E402
from river import tree  # noqa: E402
from river.datasets.synth import Agrawal  # noqa: E402

from ixplain import GeometricReservoir, IncrementalPFI  # noqa: E402

ALPHA, SIZE, N_SAMPLES, SEED = 0.001, 1000, 1, 0
BLOCK = 100  # rows per turn when ixai's and ixplain's explain_one loops alternate
clock = time.process_time


class Timed:
    """Wrap a prediction function: count calls/rows and time spent inside."""

    def __init__(self, fn):
        self.fn, self.calls, self.rows, self.seconds = fn, 0, 0, 0.0

    def __call__(self, x):
        start = clock()
        out = self.fn(x)
        self.seconds += clock() - start
        self.calls += 1
        self.rows += len(x) if isinstance(x, (list, np.ndarray)) else 1
        return out


def make_ixai(model_function, names):
    return _setups.make_ixai_pfi(model_function, names, alpha=ALPHA, size=SIZE,
                                 n_samples=N_SAMPLES, seed=SEED)


def make_ixplain(model):
    explainer = IncrementalPFI(model, "zero_one", alpha=ALPHA, n_samples=N_SAMPLES,
                               storage=GeometricReservoir(SIZE, p=1.0, random_state=SEED),
                               random_state=SEED)
    # time the native model call with the same clock as ixai's wrapped model function
    explainer.timed = Timed(explainer._model._predict_native)
    explainer._model._predict_native = explainer.timed
    return explainer


def blocks(items, size=BLOCK):
    """``items`` in consecutive blocks of ``size``."""
    return [items[s : s + size] for s in range(0, len(items), size)]


def row(name, n, seconds, calls, rows, in_model, imp, ref_sps=None):
    sps = n / seconds
    ratio = "" if ref_sps is None else f"{sps / ref_sps:8.1f}x"
    outside = 100 * (seconds - in_model) / seconds
    print(f"  {name:<30} {sps:10.0f} {ratio:>9} {calls:8d} {rows:9d} {in_model:8.2f}s "
          f"{seconds - in_model:8.2f}s {outside:6.1f}%")
    return sps


def header(title):
    print(f"\n{title}")
    print(f"  {'explainer':<30} {'samples/s':>10} {'ratio':>9} {'calls':>8} {'rows':>9} "
          f"{'in model':>9} {'outside':>9} {'out %':>7}")


def max_diff(ixai_expl, ours):
    ref = np.array([ixai_expl.importance_values[n] for n in ours.feature_names_])
    return float(np.max(np.abs(ref - ours.importances_)))


def bench_river(n, leaf_prediction):
    data = list(Agrawal(classification_function=1, seed=SEED).take(n))
    names = list(data[0][0])
    header(f"(a) River HoeffdingTreeClassifier(leaf_prediction={leaf_prediction!r}), prequential, "
           f"{n} Agrawal rows (explain time only; learn_one excluded)")
    m1 = tree.HoeffdingTreeClassifier(leaf_prediction=leaf_prediction)
    f1 = Timed(RiverWrapper(m1.predict_one))
    ix = make_ixai(f1, names)
    m2 = tree.HoeffdingTreeClassifier(leaf_prediction=leaf_prediction)
    ours = make_ixplain(m2)
    t1 = t2 = 0.0
    for part in blocks(data):  # ixai, then ixplain, block by block (see the module docstring)
        for x, y in part:
            s = clock()
            ix.explain_one(x, y)
            t1 += clock() - s
            m1.learn_one(x, y)
        for x, y in part:
            s = clock()
            ours.explain_one(x, y)
            t2 += clock() - s
            m2.learn_one(x, y)
    ref = row("ixai explain_one", n, t1, f1.calls, f1.rows, f1.seconds, None)
    tm = ours.timed
    row("ixplain explain_one", n, t2, tm.calls, tm.rows, tm.seconds, None, ref)
    print(f"  max |importance difference| = {max_diff(ix, ours):.4f}  "
          f"(ixplain 95% bound: {ours.confidence_bound(0.05).max():.4f})")


def bench_static(n, kind, batch=100):
    names, _, Xtr, ytr = _setups.agrawal_table(5000, seed=SEED + 1)
    if kind == "lightgbm":
        _common.ensure_installed({"lightgbm": "lightgbm>=4.0"})
        from lightgbm import LGBMClassifier

        model = LGBMClassifier(n_estimators=100, n_jobs=1, verbose=-1).fit(Xtr, ytr)
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(max_iter=100, random_state=0).fit(Xtr, ytr)
    _, X, _, y = _setups.agrawal_table(n, seed=SEED + 2)
    header(f"(b) static {type(model).__name__} (trained once on 5,000 rows), {n} Agrawal rows")
    f1 = Timed(SklearnWrapper(model.predict, feature_names=names))
    ix = make_ixai(f1, names)
    ours = make_ixplain(model)
    t1 = t2 = 0.0
    for part in blocks(list(zip(X, y))):  # as in (a)
        s = clock()
        for x, t in part:
            ix.explain_one(x, t)
        t1 += clock() - s
        s = clock()
        for x, t in part:
            ours.explain_one(x, t)
        t2 += clock() - s
    ref = row("ixai explain_one", n, t1, f1.calls, f1.rows, f1.seconds, None)
    tm = ours.timed
    row("ixplain explain_one", n, t2, tm.calls, tm.rows, tm.seconds, None, ref)
    d1 = max_diff(ix, ours)
    ours = make_ixplain(model)
    s = clock()
    for start in range(0, n, batch):
        ours.explain_many(X[start : start + batch], y[start : start + batch])
    tm = ours.timed
    row(f"ixplain explain_many({batch})", n, clock() - s, tm.calls, tm.rows, tm.seconds, None,
        ref)
    print(f"  max |importance difference| vs ixai: explain_one {d1:.4f}, explain_many "
          f"{max_diff(ix, ours):.4f} (ixplain 95% bound: {ours.confidence_bound(0.05).max():.4f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000, help="stream rows per case")
    parser.add_argument("--model", choices=["both", "hgb", "lightgbm"], default="both",
                        help="static model of case (b)")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    args = parser.parse_args()
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"alpha={ALPHA}, geometric reservoir size={SIZE} p=1, n_samples={N_SAMPLES}, "
          f"seed={SEED}, 0-1 loss on predicted labels, {args.clock} time")
    cases = [(bench_river, "nba"), (bench_river, "mc")]
    cases += [(bench_static, k) for k in (("hgb", "lightgbm") if args.model == "both"
                                         else (args.model,))]
    for bench, kind in cases:
        # one case's garbage (reference cycles of its explainers) is collected before the
        # next is timed: a collection inside a timed model call was measured as the model's
        # time (LightGBM explain_one 0.17 s alone, 0.26 s after the HGB case)
        gc.collect()
        bench(args.n, kind)


if __name__ == "__main__":
    main()
