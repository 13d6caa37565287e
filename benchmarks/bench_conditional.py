"""Conditional removal: ixplain vs ixai's tree imputer (stream), hidimstat CFI and fippy (static).

DGPs with closed forms (see ``tests/imputation/test_conditional.py``):

* Gaussian: corr(x0, x1) = 0.9, x2, x3 independent, y = x0 + x2 + N(0, 0.1^2), f = x0 + x2.
  CFI = 0.38, 0, 2, 0 and the pair {x0, x1} given {x2, x3} = 2.
* Cubic: x0 ~ U(-1, 1), x1 = x0^3 + N(0, 0.05^2), x2 ~ N(0, 1), f = x0 + x2: CFI(x0) = 0.0553.
* Real: California housing (bundled), a HistGradientBoosting model; no closed form: the values
  of each library side by side.

Static: ``ixplain.permutation_importance(removal="conditional")`` (trees fitted on X, one
repeat), ``hidimstat.CFI`` (its default RidgeCV imputation, one permutation) and fippy's
``Explainer.cfi`` with its GaussianSampler, on the same rows. Stream: ``ixplain.IncrementalPFI(
removal="conditional")`` and ixai's ``IncrementalPFI`` with ``TreeImputer(TreeStorage)``
(``use_storage=True``: leaf reservoirs, the sampler the issue measured), same rows, same alpha,
explain_one loops taking turns 100 rows at a time (the machine is shared: both sides see the
same load), plus both libraries' marginal iPFI for the cost ratios. The streaming pair value is
measured after the stream by drawing {x0, x1} for fresh rows of the DGP with each library's
sampler as it is then (ixai: ``imputer.impute(["x0", "x1"], x)``).

Times are CPU seconds of this process (one thread each). Run:
    PYTHONPATH=src /work/benchvenv/bin/python benchmarks/bench_conditional.py [--n 20000]
        [--n-stream 10000]
"""

from __future__ import annotations

import argparse
import os
import random
import time
import warnings

import _common  # noqa: F401  (one thread for BLAS/OpenMP)
import numpy as np
import pandas as pd

from ixplain import IncrementalPFI, as_table, permutation_importance

clock = time.process_time
os.environ.setdefault("TQDM_DISABLE", "1")  # fippy's progress bars
NAMES = ["x0", "x1", "x2", "x3"]


def gaussian(n, seed):
    rng = np.random.default_rng(seed)
    C = np.eye(4)
    C[0, 1] = C[1, 0] = 0.9
    X = rng.multivariate_normal(np.zeros(4), C, size=n)
    return X, X[:, 0] + X[:, 2] + rng.normal(0, 0.1, n)


def cubic(n, seed):
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-1, 1, n)
    X = np.column_stack([x0, x0**3 + rng.normal(0, 0.05, n), rng.normal(size=n)])
    return X, x0 + X[:, 2] + rng.normal(0, 0.1, n)


def linear(X, y):
    """The issue's model: a linear regression fitted on the rows (converges to x0 + x2)."""
    from sklearn.linear_model import LinearRegression

    return LinearRegression().fit(X, y)


def sq(y, p):
    return (np.asarray(y) - np.asarray(p)) ** 2


# ---------------------------------------------------------------------------- static
def static_ixplain(model, X, y, groups):
    t = clock()
    r = permutation_importance(model, X, y, loss="squared_error", n_repeats=1, random_state=0,
                               features=groups, removal="conditional")
    return r.importances_mean, clock() - t


def static_hidimstat(model, X, y, groups):
    from hidimstat import CFI

    t = clock()
    cfi = CFI(model, n_permutations=1, features_groups=groups, random_state=0)
    cfi.fit(X, y)
    out = cfi.importance(X, y)
    vals = out["importance"] if isinstance(out, dict) else out
    return np.asarray(vals, dtype=float), clock() - t


def static_fippy(model, X, y, groups):
    from fippy.explainer import Explainer
    from fippy.samplers.gaussian import GaussianSampler

    t = clock()
    ex = Explainer(lambda D: model.predict(np.asarray(D)), X, sq, sampler=GaussianSampler(X))
    res = ex.cfi(X, y, features=groups)
    imp = res.importance()
    vals = imp.iloc[:, 0].to_numpy(dtype=float) if imp.shape[1] else np.full(len(groups), np.nan)
    return vals, clock() - t


def run_static(label, model, X, y, groups, truth):
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    print(f"\n[static] {label}: {len(df)} rows")
    rows = []
    for name, fn in (("ixplain", static_ixplain), ("hidimstat", static_hidimstat),
                     ("fippy", static_fippy)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vals, secs = fn(model, df if name != "ixplain" else X, y, groups)
        except Exception as exc:  # an anchor's API or failure: report, keep going
            print(f"  {name:10s} failed: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        rows.append((name, vals, secs))
    for name, vals, secs in rows:
        shown = " ".join(f"{k}={v:.4f}" for k, v in zip(groups, vals))
        err = ""
        if truth is not None:
            rel = [abs(v / t - 1) * 100 if t else abs(v) for v, t in zip(vals, truth)]
            err = " | rel. err. %: " + " ".join(
                f"{r:.1f}" if t else f"(abs {r:.3f})" for r, t in zip(rel, truth))
        print(f"  {name:10s} {secs:7.2f} s  {shown}{err}")


# ---------------------------------------------------------------------------- stream
def ixai_explainers(alpha, seed, names):
    from ixai.explainer import IncrementalPFI as IxaiPFI
    from ixai.imputer import TreeImputer
    from ixai.storage import GeometricReservoirStorage, TreeStorage

    def f(x):
        return x["x0"] + x["x2"]

    storage = TreeStorage(cat_feature_names=[], num_feature_names=names, seed=seed)
    cond = IxaiPFI(f, lambda yt, yp: (yt - yp) ** 2, names, storage=storage,
                   imputer=TreeImputer(f, storage, use_storage=True), smoothing_alpha=alpha)
    marg = IxaiPFI(f, lambda yt, yp: (yt - yp) ** 2, names, smoothing_alpha=alpha,
                   storage=GeometricReservoirStorage(size=1000, store_targets=False,
                                                     constant_probability=1.0))
    return cond, marg, storage


def timed_parts(storage):
    """Wrap the storage's refit (scikit-learn trees on the window) and leaf-pool updates to
    accumulate their CPU time (instance attributes shadow the methods)."""
    parts = {"refits": 0.0, "pool updates": 0.0}

    def wrap(name, key):
        method = getattr(storage, name)

        def timed(*args, **kwargs):
            t = clock()
            try:
                return method(*args, **kwargs)
            finally:
                parts[key] += clock() - t
        setattr(storage, name, timed)

    wrap("_fit_window", "refits")
    wrap("_commit", "pool updates")
    return parts


def f_records(rows):
    return np.array([r["x0"] + r["x2"] for r in rows])


def run_stream(label, gen, truth, n, alpha):
    X, y = gen(n, seed=1)
    names = NAMES[: X.shape[1]]
    recs = [dict(zip(names, r)) for r in X.tolist()]
    random.seed(0)
    np.random.seed(0)  # noqa: NPY002  (ixai draws from the global numpy and random states)
    ix_cond = IncrementalPFI(f_records, "squared_error", alpha=alpha, random_state=0,
                             removal="conditional")
    ix_marg = IncrementalPFI(f_records, "squared_error", alpha=alpha, random_state=0)
    ai_cond, ai_marg, _ = ixai_explainers(alpha, 0, names)
    parts = timed_parts(ix_cond.storage)
    times = dict.fromkeys(["ixplain cond", "ixplain marg", "ixai cond", "ixai marg"], 0.0)
    block = 100
    for s in range(0, n, block):
        part = range(s, min(s + block, n))
        for key, step in (("ixplain cond", lambda i: ix_cond.explain_one(recs[i], y[i])),
                          ("ixai cond", lambda i: ai_cond.explain_one(recs[i], y[i])),
                          ("ixplain marg", lambda i: ix_marg.explain_one(recs[i], y[i])),
                          ("ixai marg", lambda i: ai_marg.explain_one(recs[i], y[i]))):
            t = clock()
            for i in part:
                step(i)
            times[key] += clock() - t
    truth = np.asarray(truth)
    print(f"\n[stream] {label}, {n} rows, alpha={alpha}, explain_one (CPU s, rows/s)")
    for key, vals in (("ixplain cond", ix_cond.importances_),
                      ("ixai cond", np.array([ai_cond.importance_values[k] for k in names]))):
        print(f"  {key:13s} {times[key]:7.2f} s {n / times[key]:8.0f} rows/s  "
              + " ".join(f"{v:.3f}" for v in vals)
              + "  | rel. err. % x0, x2: "
              + " ".join(f"{abs(v / t - 1) * 100:.1f}" for v, t in zip(vals[[0, 2]], truth[[0, 2]])))
    for key in ("ixplain marg", "ixai marg"):
        print(f"  {key:13s} {times[key]:7.2f} s {n / times[key]:8.0f} rows/s")
    total = times["ixplain cond"]
    print("  where ixplain cond's time goes: "
          + ", ".join(f"{k} {v / total * 100:.0f} %" for k, v in parts.items())
          + f", draws + model + smoothing {(total - sum(parts.values())) / total * 100:.0f} %")
    print(f"  cost per row: ixplain cond / ixai cond = "
          f"{times['ixplain cond'] / times['ixai cond']:.2f}; ixplain cond / ixplain marg = "
          f"{times['ixplain cond'] / times['ixplain marg']:.1f}; ixai cond / ixai marg = "
          f"{times['ixai cond'] / times['ixai marg']:.1f}")
    if X.shape[1] == 4:
        pair_after_stream(ix_cond, ai_cond)


def pair_after_stream(ix_cond, ai_cond, m=3000):
    Xn, yn = gaussian(m, seed=7)
    base = (Xn[:, 0] + Xn[:, 2] - yn) ** 2
    s = ix_cond.storage.sampler_
    removed = np.zeros((m, 4), dtype=bool)
    removed[:, :2] = True
    u = np.random.default_rng(0).random((m, s.width(4)))
    don = s.donors(s.encode(as_table(Xn, NAMES)), np.arange(m), removed, u)
    data = np.column_stack([s.data_.numeric_column(c) for c in NAMES])
    drawn = Xn.copy()
    drawn[:, :2] = data[don[:, :2], [0, 1]]
    ix = np.mean((drawn[:, 0] + drawn[:, 2] - yn) ** 2 - base)
    preds = [ai_cond._imputer.impute(["x0", "x1"], dict(zip(NAMES, r)), 1)[0]
             for r in Xn.tolist()]
    ai = np.mean((np.array(preds) - yn) ** 2 - base)
    print(f"  pair {{x0, x1}} | x2, x3 (truth 2.0) on {m} fresh rows: ixplain {ix:.3f} "
          f"({abs(ix / 2 - 1) * 100:.1f} %), ixai {ai:.3f} ({abs(ai / 2 - 1) * 100:.1f} %)")


def real_table():
    from sklearn.ensemble import HistGradientBoostingRegressor

    from ixplain.datasets import load_california_housing

    df = load_california_housing()
    target = df.columns[-1]
    X = df.drop(columns=[target]).to_numpy(dtype=float)[:8000]
    y = df[target].to_numpy(dtype=float)[:8000]
    model = HistGradientBoostingRegressor(max_iter=100, random_state=0).fit(X, y)
    names = [f"x{j}" for j in range(X.shape[1])]
    return model, X, y, {n: [n] for n in names}, list(df.columns[:-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=20_000)
    p.add_argument("--n-stream", type=int, default=10_000)
    p.add_argument("--alpha", type=float, default=0.001)
    a = p.parse_args()
    X, y = gaussian(a.n, seed=0)
    groups = {"x0": ["x0"], "x1": ["x1"], "x2": ["x2"], "x3": ["x3"], "pair": ["x0", "x1"]}
    run_static("Gaussian", linear(X, y), X, y, groups, [0.38, 0.0, 2.0, 0.0, 2.0])
    Xc, yc = cubic(a.n, seed=0)
    run_static("cubic", linear(Xc, yc), Xc, yc, {"x0": ["x0"], "x1": ["x1"], "x2": ["x2"]},
               [0.0553, 0.0, 2.0])
    model, Xr, yr, gr, labels = real_table()
    print(f"\ncalifornia columns: {labels}")
    run_static("california housing (HistGradientBoosting)", model, Xr, yr, gr, None)
    run_stream("Gaussian", gaussian, [0.38, 0.0, 2.0, 0.0], a.n_stream, a.alpha)
    run_stream("cubic", cubic, [0.0553, 0.0, 2.0], a.n_stream, a.alpha)


if __name__ == "__main__":
    main()
