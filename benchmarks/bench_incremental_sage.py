"""ixplain ``IncrementalSAGE`` vs ixai's ``IncrementalSage`` with the same settings.

The Agrawal stream (River, ``classification_function=1``), Brier loss on P(y = 1), exponential
smoothing with alpha = 0.001, a geometric reservoir of 100 rows (ixai's default), the same number
of storage draws per coalition (``--n-samples``, default 8: ixplain's default for Brier), one
observation at a time (``explain_one``) for both. Two models:

* a static LightGBM classifier trained beforehand on 5,000 rows (target >= 10x); ixai gets the
  fastest fair model function (a one-row float array to ``predict_proba``);
* a River Hoeffding tree learning on the stream (``learn_one`` after each explanation; target
  >= 2x). The learning time is the same for both and included.

A third run explains the true rule itself, where the SAGE values are known (age 0.0858,
salary 0.1509, every other feature 0), and reports each method's largest error: the reference
implementation's bias (negative dummies, inflated relevant features) against ixplain's.

Run:  PYTHONPATH=src python benchmarks/bench_incremental_sage.py [--n-rows 2000]
"""

from __future__ import annotations

import argparse
import time

import _common

_common.ensure_installed(
    {"river": "river", "ixai": "ixai", "lightgbm": "lightgbm", "sklearn": "scikit-learn"}
)

import random  # noqa: E402

import numpy as np  # noqa: E402
from ixai.explainer import IncrementalSage  # noqa: E402
from ixai.storage import GeometricReservoirStorage  # noqa: E402
from lightgbm import LGBMClassifier  # noqa: E402
from river.datasets import synth  # noqa: E402
from river.tree import HoeffdingTreeClassifier  # noqa: E402

from ixplain import GeometricReservoir, IncrementalSAGE  # noqa: E402

AGE, SALARY = 4150 / 48373, 40 / 169 - 4150 / 48373


def stream(n, seed):
    return list(synth.Agrawal(classification_function=1, seed=seed).take(n))


def rule_dict(x):
    age, sal = x["age"], x["salary"]
    hit = (
        (age < 40 and 50_000 <= sal <= 100_000)
        or (40 <= age < 60 and 75_000 <= sal <= 125_000)
        or (age >= 60 and 25_000 <= sal <= 75_000)
    )
    return float(hit)


def rule_array(names):
    ia, isal = names.index("age"), names.index("salary")

    def rule(Z):
        age, sal = Z[:, ia], Z[:, isal]
        return (
            ((age < 40) & (50_000 <= sal) & (sal <= 100_000))
            | ((age >= 40) & (age < 60) & (75_000 <= sal) & (sal <= 125_000))
            | ((age >= 60) & (25_000 <= sal) & (sal <= 75_000))
        ).astype(float)

    return rule


def brier_dict(y_true, y_pred):
    return (float(y_true == 1) - y_pred.get(1, 0.0)) ** 2


def run_ixai(model_function, rows, n_samples, learn=None, seed=0):
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 (ixai draws its permutations from the global RNG)
    names = list(rows[0][0])
    explainer = IncrementalSage(
        model_function=model_function, loss_function=brier_dict, feature_names=names,
        smoothing_alpha=0.001, storage=GeometricReservoirStorage(size=100, store_targets=False),
        n_inner_samples=n_samples, dynamic_setting=True,
    )
    start = time.perf_counter()
    for x, y in rows:
        explainer.explain_one(x, y)
        if learn is not None:
            learn(x, y)
    elapsed = time.perf_counter() - start
    return elapsed, np.array([explainer.importance_values.get(n, 0.0) for n in names])


def run_ixplain(model, rows, n_samples, learn=None, records=True, seed=0):
    names = list(rows[0][0])
    explainer = IncrementalSAGE(
        model, loss="brier", n_samples=n_samples, alpha=0.001, feature_names=names,
        storage=GeometricReservoir(100, random_state=seed), random_state=seed,
    )
    Xa = None if records else np.array([[x[k] for k in names] for x, _ in rows], dtype=float)
    start = time.perf_counter()
    for i, (x, y) in enumerate(rows):
        explainer.explain_one(x if records else Xa[i], y)
        if learn is not None:
            learn(x, y)
    elapsed = time.perf_counter() - start
    return elapsed, explainer.importances_


def error(values, names, n_rows):
    """Largest deviation from E[phi_t] = (1 - (1 - alpha) ** t) * phi (both start at 0)."""
    truth = np.zeros(len(names))
    truth[names.index("age")], truth[names.index("salary")] = AGE, SALARY
    return float(np.abs(values - (1 - 0.999 ** (n_rows - 1)) * truth).max())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-rows", type=int, default=2000)
    parser.add_argument("--n-samples", type=int, default=8)
    args = parser.parse_args()
    s = args.n_samples
    train = stream(5000, seed=1)
    rows = stream(args.n_rows, seed=2)
    names = list(rows[0][0])
    Xtr = np.array([[x[k] for k in names] for x, _ in train], dtype=float)
    ytr = np.array([int(y) for _, y in train])
    lgbm = LGBMClassifier(n_estimators=100, verbose=-1, n_jobs=1).fit(Xtr, ytr)

    def lgbm_function(x):
        p = lgbm.predict_proba(np.array([[x[k] for k in names]], dtype=float))[0]
        return {0: float(p[0]), 1: float(p[1])}

    table = []
    t_ixai, v_ixai = run_ixai(lgbm_function, rows, s)
    t_ours, v_ours = run_ixplain(lgbm, rows, s, records=False)
    table.append(("LightGBM (static)", t_ixai, t_ours, "", ""))

    ht_ixai, ht_ours = HoeffdingTreeClassifier(), HoeffdingTreeClassifier()
    t_ixai, _ = run_ixai(ht_ixai.predict_proba_one, rows, s, learn=ht_ixai.learn_one)
    t_ours, _ = run_ixplain(ht_ours, rows, s, learn=ht_ours.learn_one)
    table.append(("Hoeffding tree (River)", t_ixai, t_ours, "", ""))

    t_ixai, v_ixai = run_ixai(lambda x: {1: rule_dict(x), 0: 1 - rule_dict(x)}, rows, s)
    t_ours, v_ours = run_ixplain(rule_array(names), rows, s, records=False)
    table.append(("true rule (accuracy)", t_ixai, t_ours, error(v_ixai, names, len(rows)),
                  error(v_ours, names, len(rows))))
    t_ixai1, v_ixai1 = run_ixai(lambda x: {1: rule_dict(x), 0: 1 - rule_dict(x)}, rows, 1)

    print(f"\nAgrawal fn 1, {args.n_rows} rows, explain_one, n_samples={s}, alpha=0.001, "
          "geometric reservoir of 100, Brier loss")
    head = f"{'model':24} {'ixai s':>8} {'ixplain s':>10} {'speed-up':>9}  " \
           f"{'max err ixai':>12} {'max err ixplain':>15}"
    print(head)
    print("-" * len(head))
    for name, a, b, ea, eb in table:
        ea_s = f"{ea:12.4f}" if ea != "" else f"{'':12}"
        eb_s = f"{eb:15.4f}" if eb != "" else f"{'':15}"
        print(f"{name:24} {a:8.2f} {b:10.2f} {a / b:8.1f}x  {ea_s} {eb_s}")
    print("\ntrue-rule values (ground truth age 0.0858, salary 0.1509, others 0):")
    for label, v in (("ixai", v_ixai), ("ixai n_inner=1", v_ixai1), ("ixplain", v_ours)):
        print(f"  {label:15}", " ".join(f"{n}={val:+.3f}" for n, val in zip(names, v)))
    print("  (errors against E[phi_t]: alpha=0.001 starts at 0, so after t rows the expected "
          f"values are the truth times 1 - 0.999**t = {1 - 0.999 ** (args.n_rows - 1):.3f})")


if __name__ == "__main__":
    main()
