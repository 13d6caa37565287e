"""ixplain ``sage`` vs sage-importance's ``PermutationEstimator`` on the same model and data.

Friedman-1 (10 features, 5 of them noise), a HistGradientBoosting regressor and a
StandardScaler + Ridge pipeline, 1,000 explained rows, the same background of 512 rows, squared
error, the same convergence threshold (0.025, the reference's default rule). Both estimators run
to convergence; we report wall time, the number of permutations, and each method's error against
a high-precision reference:

* Ridge pipeline: exact SAGE values, by enumerating all 1,024 coalitions (the model is affine, so
  the background-averaged prediction of every coalition has a closed form);
* HistGradientBoosting: ixplain's estimator at threshold 0.005 (bias-free by construction, see
  ``tests/methods/test_sage.py``), cached in ``benchmarks/.cache``.

Run:  PYTHONPATH=src python benchmarks/bench_sage.py [--ixplain-repeats 3]
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from pathlib import Path

import _common

_common.ensure_installed({"sklearn": "scikit-learn", "sage": "sage-importance"})

import numpy as np  # noqa: E402
import sage as sage_lib  # noqa: E402
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from ixplain import sage  # noqa: E402

CACHE = Path(__file__).with_name(".cache")
THRESHOLD = 0.025


def data():
    X, y = make_friedman1(n_samples=3000, n_features=10, noise=1.0, random_state=0)
    rng = np.random.default_rng(0)
    background = X[:2000][rng.choice(2000, 512, replace=False)]
    return X[:2000], y[:2000], X[2000:], y[2000:], background


def exact_affine_sage(model, X, y, background):
    """Exact SAGE of an affine model: enumerate all coalitions with closed-form averages."""
    d = X.shape[1]
    intercept = float(model.predict(np.zeros((1, d)))[0])
    w = model.predict(np.eye(d)) - intercept
    bbar = background.mean(axis=0)
    fbar = float(model.predict(background).mean())
    subsets = [S for r in range(d + 1) for S in itertools.combinations(range(d), r)]
    masks = np.zeros((len(subsets), d))
    for i, S in enumerate(subsets):
        masks[i, list(S)] = 1.0
    preds = fbar + ((X - bbar) * w) @ masks.T  # (n, 2^d): mean prediction of every coalition
    v = -((preds - y[:, None]) ** 2).mean(axis=0)
    value = dict(zip(subsets, v))
    phi = np.zeros(d)
    for j in range(d):
        others = [k for k in range(d) if k != j]
        for r in range(d):
            wt = math.factorial(r) * math.factorial(d - r - 1) / math.factorial(d)
            for S in itertools.combinations(others, r):
                phi[j] += wt * (value[tuple(sorted(S + (j,)))] - value[S])
    return phi


def hgb_reference(model, X, y, background):
    CACHE.mkdir(exist_ok=True)
    path = CACHE / "sage_reference_hgb.npy"
    if path.exists():
        return np.load(path)
    print("computing the high-precision HGB reference (cached afterwards)...", flush=True)
    ref = sage(model, X, y, loss="squared_error", background=background,
               convergence_threshold=0.005, random_state=12345).importances_mean
    np.save(path, ref)
    return ref


def errors(values, ref):
    err = values - ref
    return float(np.abs(err).max()), float(np.sqrt(np.mean(err**2)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ixplain-repeats", type=int, default=3)
    parser.add_argument("--models", default="ridge,hgb")
    args = parser.parse_args()
    X_train, y_train, X, y, background = data()
    models = {
        "ridge": make_pipeline(StandardScaler(), Ridge(alpha=1.0)).fit(X_train, y_train),
        "hgb": HistGradientBoostingRegressor(random_state=0).fit(X_train, y_train),
    }
    rows = []
    for name in args.models.split(","):
        model = models[name]
        if name == "ridge":
            ref, ref_kind = exact_affine_sage(model, X, y, background), "exact enumeration"
        else:
            ref, ref_kind = hgb_reference(model, X, y, background), "ixplain thr=0.005"
        # sage-importance: the model's predict on arrays, MarginalImputer with the background
        counted = [0]

        def predict(Z, _m=model, _c=counted):
            _c[0] += len(Z)
            return _m.predict(Z)

        imputer = sage_lib.MarginalImputer(predict, background)
        estimator = sage_lib.PermutationEstimator(imputer, "mse", random_state=0)
        start = time.perf_counter()
        expl = estimator(X, y, batch_size=512, thresh=THRESHOLD, bar=False)
        t_ref = time.perf_counter() - start
        # each permutation evaluates d + 1 coalitions on every background row (after a check call)
        n_ref = round(counted[0] / (len(background) * (X.shape[1] + 1)))
        std_ratio = float(expl.std.max() / (expl.values.max() - expl.values.min()))
        rows.append((name, "sage-importance", t_ref, n_ref, std_ratio,
                     *errors(expl.values, ref), ref_kind))
        for rep in range(args.ixplain_repeats):
            start = time.perf_counter()
            res = sage(model, X, y, loss="squared_error", background=background,
                       convergence_threshold=THRESHOLD, random_state=rep)
            t = time.perf_counter() - start
            rows.append((name, f"ixplain (seed {rep})", t, res.settings["n_permutations"],
                         res.settings["convergence_ratio"],
                         *errors(res.importances_mean, ref), ref_kind))
        print_table(rows)
    print_table(rows, final=True)


def print_table(rows, final=False):
    head = f"{'model':6} {'method':18} {'time s':>8} {'perms':>7} {'ratio':>6} " \
           f"{'max err':>8} {'rmse':>7}  speed-up"
    print("\n" + head)
    print("-" * len(head))
    for name in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == name]
        t_ref = next(r[2] for r in mine if r[1] == "sage-importance")
        for r in mine:
            perms = "-" if r[3] == 0 else str(r[3])
            print(f"{r[0]:6} {r[1]:18} {r[2]:8.2f} {perms:>7} {r[4]:6.3f} {r[5]:8.4f} "
                  f"{r[6]:7.4f}  {t_ref / r[2]:6.1f}x")
        print(f"{'':6} reference: {mine[0][7]}")


if __name__ == "__main__":
    main()
