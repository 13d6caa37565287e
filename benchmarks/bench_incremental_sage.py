"""iSAGE: ixplain.IncrementalSAGE vs ixai.explainer.IncrementalSage, same stream, same settings.

Both explainers get: the same stream (River Agrawal, classification_function=1), the same model,
alpha = 0.001, a geometric reservoir of 1000 rows with p = 1 (ixai's ``constant_probability`` set
explicitly), the same number of storage draws per coalition (``--n-samples``, default 8 =
ixplain's default for Brier), Brier loss on P(y = 1), one observation at a time
(``explain_one``), seeded randomness. ixai's model functions are its own wrappers
(``SklearnWrapper(model.predict_proba)``, ``RiverWrapper(model.predict_proba_one)``).

(a) River HoeffdingTreeClassifier learning prequentially (explain, then learn; two copies learn
    the same rows); explain time only. River trees have no batch prediction, so both libraries
    evaluate the G * n_samples + 1 rows of an observation one ``predict_proba_one`` at a time.
(b) A static LightGBM classifier (HistGradientBoosting with --model hgb) trained once on 5,000
    rows, explained on a separate stream with explain_one, and with explain_many (batches of 100).
(c) The true rule of the stream as the model: the SAGE values are known (age 0.0858, salary
    0.1509, others 0; see tests/methods/test_isage.py), and each estimate's largest error
    against E[phi_t] = (1 - 0.999 ** t) * phi shows the reference implementation's bias.

Printed: samples per second, the ratio, model calls and rows, seconds inside/outside the model.

Run:  PYTHONPATH=src python benchmarks/bench_incremental_sage.py [--n 2000] [--model lightgbm|hgb]
"""

from __future__ import annotations

import argparse
import random
import time
import warnings

import _common

_common.ensure_installed(
    {"river": "river>=0.21", "ixai": "ixai==0.1.3", "sklearn": "scikit-learn",
     "lightgbm": "lightgbm>=4.0"}
)

import numpy as np  # noqa: E402
from ixai.explainer import IncrementalSage  # noqa: E402
from ixai.storage import GeometricReservoirStorage  # noqa: E402
from ixai.utils.wrappers import RiverWrapper, SklearnWrapper  # noqa: E402
from river import tree  # noqa: E402
from river.datasets.synth import Agrawal  # noqa: E402

from ixplain import GeometricReservoir, IncrementalSAGE  # noqa: E402

ALPHA, SIZE, SEED = 0.001, 1000, 0
AGE, SALARY = 4150 / 48373, 40 / 169 - 4150 / 48373


class Timed:
    """Wrap a prediction function: count calls/rows and time spent inside."""

    def __init__(self, fn):
        self.fn, self.calls, self.rows, self.seconds = fn, 0, 0, 0.0

    def __call__(self, x):
        start = time.perf_counter()
        out = self.fn(x)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        self.rows += len(x) if isinstance(x, (list, np.ndarray)) else 1
        return out


def brier_ixai(y_true, y_pred):
    return (float(y_true == 1) - float(y_pred.get(1, 0.0))) ** 2


def make_ixai(model_function, names, n_samples):
    random.seed(SEED)
    np.random.seed(SEED)  # noqa: NPY002 (ixai draws its permutations from the global RNG)
    warnings.filterwarnings("ignore", message="The provided model function cannot")
    storage = GeometricReservoirStorage(size=SIZE, constant_probability=1.0)
    return IncrementalSage(model_function, brier_ixai, names, storage=storage,
                           smoothing_alpha=ALPHA, n_inner_samples=n_samples)


def make_ixplain(model, n_samples, names=None):
    return IncrementalSAGE(model, loss="brier", alpha=ALPHA, n_samples=n_samples,
                           feature_names=names,
                           storage=GeometricReservoir(SIZE, p=1.0, random_state=SEED),
                           random_state=SEED)


def header(title):
    print(f"\n{title}")
    print(f"  {'explainer':<30} {'samples/s':>10} {'ratio':>9} {'calls':>8} {'rows':>9} "
          f"{'in model':>9} {'outside':>9}")


def row(name, n, seconds, calls, rows, in_model, ref_sps=None):
    sps = n / seconds
    ratio = "" if ref_sps is None else f"{sps / ref_sps:8.1f}x"
    print(f"  {name:<30} {sps:10.0f} {ratio:>9} {calls:8d} {rows:9d} {in_model:8.2f}s "
          f"{seconds - in_model:8.2f}s")
    return sps


def bench_river(n, s, leaf_prediction):
    data = list(Agrawal(classification_function=1, seed=SEED).take(n))
    names = list(data[0][0])
    header(f"(a) River HoeffdingTreeClassifier(leaf_prediction={leaf_prediction!r}), prequential, "
           f"{n} rows (explain time only)")
    m1 = tree.HoeffdingTreeClassifier(leaf_prediction=leaf_prediction)
    f1 = Timed(RiverWrapper(m1.predict_proba_one))
    ix = make_ixai(f1, names, s)
    t = 0.0
    for x, y in data:
        start = time.perf_counter()
        ix.explain_one(x, y)
        t += time.perf_counter() - start
        m1.learn_one(x, y)
    ref = row("ixai explain_one", n, t, f1.calls, f1.rows, f1.seconds)
    m2 = tree.HoeffdingTreeClassifier(leaf_prediction=leaf_prediction)
    ours = make_ixplain(m2, s)
    t = 0.0
    for x, y in data:
        start = time.perf_counter()
        ours.explain_one(x, y)
        t += time.perf_counter() - start
        m2.learn_one(x, y)
    mdl = ours._model
    row("ixplain explain_one", n, t, mdl.n_calls, mdl.n_rows, mdl.time_in_model, ref)


def bench_static(n, s, kind, batch=100):
    train = list(Agrawal(classification_function=1, seed=SEED + 1).take(5000))
    names = list(train[0][0])
    Xtr = np.array([[x[k] for k in names] for x, _ in train], dtype=float)
    ytr = np.array([y for _, y in train])
    if kind == "lightgbm":
        from lightgbm import LGBMClassifier

        model = LGBMClassifier(n_estimators=100, verbose=-1, n_jobs=1).fit(Xtr, ytr)
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(max_iter=100, random_state=0).fit(Xtr, ytr)
    data = list(Agrawal(classification_function=1, seed=SEED + 2).take(n))
    X = [x for x, _ in data]
    y = np.array([t for _, t in data])
    Xa = np.array([[x[k] for k in names] for x in X], dtype=float)
    header(f"(b) static {type(model).__name__} (trained once on 5,000 rows), {n} rows")
    f1 = Timed(SklearnWrapper(model.predict_proba, feature_names=names))
    ix = make_ixai(f1, names, s)
    start = time.perf_counter()
    for x, t in zip(X, y):
        ix.explain_one(x, t)
    ref = row("ixai explain_one", n, time.perf_counter() - start, f1.calls, f1.rows, f1.seconds)
    ours = make_ixplain(model, s, names)
    start = time.perf_counter()
    for x, t in zip(Xa, y):
        ours.explain_one(x, t)
    mdl = ours._model
    row("ixplain explain_one", n, time.perf_counter() - start, mdl.n_calls, mdl.n_rows,
        mdl.time_in_model, ref)
    ours = make_ixplain(model, s, names)
    start = time.perf_counter()
    for i in range(0, n, batch):
        ours.explain_many(Xa[i : i + batch], y[i : i + batch])
    mdl = ours._model
    row(f"ixplain explain_many({batch})", n, time.perf_counter() - start, mdl.n_calls,
        mdl.n_rows, mdl.time_in_model, ref)


def bench_truth(n, s):
    data = list(Agrawal(classification_function=1, seed=SEED + 3).take(n))
    names = list(data[0][0])
    ia, isal = names.index("age"), names.index("salary")

    def rule_dict(x):
        a, sal = x["age"], x["salary"]
        return float((a < 40 and 50_000 <= sal <= 100_000)
                     or (40 <= a < 60 and 75_000 <= sal <= 125_000)
                     or (a >= 60 and 25_000 <= sal <= 75_000))

    def rule(Z):
        a, sal = Z[:, ia], Z[:, isal]
        return (((a < 40) & (50_000 <= sal) & (sal <= 100_000))
                | ((a >= 40) & (a < 60) & (75_000 <= sal) & (sal <= 125_000))
                | ((a >= 60) & (25_000 <= sal) & (sal <= 75_000))).astype(float)

    truth = np.zeros(len(names))
    truth[ia], truth[isal] = AGE, SALARY
    expected = (1 - (1 - ALPHA) ** (n - 1)) * truth
    Xa = np.array([[x[k] for k in names] for x, _ in data], dtype=float)
    y = np.array([t for _, t in data])
    print(f"\n(c) true rule as the model, {n} rows: values (truth x {1 - 0.999 ** (n - 1):.3f} "
          "= E[phi_t]: age "
          f"{expected[ia]:.3f}, salary {expected[isal]:.3f}, others 0)")
    for label, k in (("ixai", s), ("ixai n_inner_samples=1", 1)):
        ix = make_ixai(lambda x: {1: rule_dict(x), 0: 1.0 - rule_dict(x)}, names, k)
        for x, t in data:
            ix.explain_one(x, t)
        v = np.array([ix.importance_values[name] for name in names])
        print(f"  {label:<24} max error {np.abs(v - expected).max():.4f}   "
              + " ".join(f"{name}={val:+.3f}" for name, val in zip(names, v)))
    ours = make_ixplain(rule, s, names)
    ours.explain_many(Xa, y)
    v = ours.importances_
    bound = ours.confidence_bound(0.05).max()
    print(f"  {'ixplain':<24} max error {np.abs(v - expected).max():.4f}   "
          + " ".join(f"{name}={val:+.3f}" for name, val in zip(names, v))
          + f"   (95% bound {bound:.3f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="stream rows per case")
    parser.add_argument("--n-samples", type=int, default=8)
    parser.add_argument("--model", choices=["hgb", "lightgbm"], default="lightgbm")
    args = parser.parse_args()
    print(f"alpha={ALPHA}, geometric reservoir size={SIZE} p=1, n_samples={args.n_samples}, "
          f"seed={SEED}, Brier loss on P(y=1)")
    bench_river(args.n, args.n_samples, "nba")
    bench_river(args.n, args.n_samples, "mc")
    bench_static(args.n, args.n_samples, args.model)
    bench_truth(args.n, args.n_samples)


if __name__ == "__main__":
    main()
