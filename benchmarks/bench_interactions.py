"""Shapley interactions of the loss game: ixplain vs shapiq's approximators, and stream throughput.

(a) Static, California housing (8 features), a HistGradientBoostingRegressor trained on 15,000
    rows. The game is SAGE's global loss game on ``--n-explain`` held-out rows with the features
    outside a coalition averaged over ``--n-background`` training rows (the exact inner mean, no
    draws): ``v(S) = l(empty) - mean_x (mean_b f(x_S, b_-S) - y)^2``. shapiq gets this game as a
    callable on coalition matrices (every coalition costs n_explain * n_background model rows,
    evaluated for all coalitions of a call in one vectorised model call);
    ixplain gets the same rows (``shapley_interactions(..., background=bg, n_samples=None)``).
    The reference is ixplain's exact mode, checked against shapiq's ExactComputer on the same
    game. For each budget (coalitions for shapiq, the same number of model rows for ixplain's
    permutation estimator) the largest error over the 8 main and 28 pair k-SII terms is printed
    relative to ``v(D) - v(empty)``, with the wall time; then, per estimator, the model rows and
    time needed to reach an error of 0.01 (the issue's target).
(b) Stream, the same table as a stream: observations per second of
    IncrementalShapleyInteractions (permutation, 8 draws) next to IncrementalSAGE (8 draws) on a
    River Hoeffding tree (explain_one; River models predict one row at a time) and on a static
    LightGBM (explain_many in batches of 100). Runs are interleaved (A, B, A, B) and the better
    of two is printed, because the machine is shared.

All runs use one thread (``OMP_NUM_THREADS=1``, set by _common before numpy loads).

Run:  PYTHONPATH=src python benchmarks/bench_interactions.py [--n-explain 128] [--n-background 32]
"""

from __future__ import annotations

import argparse
import time
import warnings

import _common

_common.ensure_installed(
    {"shapiq": "shapiq>=1.1", "sklearn": "scikit-learn", "lightgbm": "lightgbm>=4.0",
     "river": "river>=0.21"}
)

import numpy as np  # noqa: E402
import shapiq  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor  # noqa: E402

from ixplain import IncrementalSAGE, IncrementalShapleyInteractions, shapley_interactions  # noqa: E402
from ixplain.datasets import load_california_housing  # noqa: E402

TARGET = 0.01


def load(n_explain: int, n_background: int):
    frame = load_california_housing()
    names = [c for c in frame.columns if c != "MedHouseVal"]
    X = frame[names].to_numpy(dtype=np.float64)
    y = frame["MedHouseVal"].to_numpy(dtype=np.float64)
    order = np.random.default_rng(0).permutation(len(X))
    X, y = X[order], y[order]
    model = HistGradientBoostingRegressor(max_iter=100, random_state=0).fit(X[:15000], y[:15000])
    Xe, ye = X[15000 : 15000 + n_explain], y[15000 : 15000 + n_explain]
    return model, X, y, Xe, ye, X[:n_background], names


class LossGame:
    """The global loss game as shapiq's callable: coalitions (C, d) bool -> v (C,)."""

    def __init__(self, predict, Xe, ye, bg):
        self.predict, self.Xe, self.ye, self.bg = predict, Xe, ye, bg
        self.rows = 0
        self.empty = self._loss(np.zeros((1, Xe.shape[1]), dtype=bool))[0]

    def _loss(self, coalitions):
        """Losses of a batch of coalitions, in model calls of up to ~2**20 rows (vectorised
        across the coalitions of a call, so shapiq is not slowed by per-coalition calls)."""
        n, m, d = len(self.Xe), len(self.bg), self.Xe.shape[1]
        coalitions = np.asarray(coalitions, dtype=bool).reshape(-1, d)
        step = max(1, 2**20 // (n * m))
        out = []
        for c in range(0, len(coalitions), step):
            keep = coalitions[c : c + step]
            Z = np.where(keep[:, None, None, :], self.Xe[None, :, None, :],
                         self.bg[None, None, :, :])
            pred = self.predict(Z.reshape(-1, d)).reshape(len(keep), n, m).mean(axis=2)
            out.append(np.mean((pred - self.ye[None, :]) ** 2, axis=1))
            self.rows += len(keep) * n * m
        return np.concatenate(out)

    def __call__(self, coalitions):
        return self.empty - self._loss(coalitions)


def kvec(iv, d):
    """Main then pair (i < j) terms of a shapiq InteractionValues."""
    mains = [iv[(i,)] for i in range(d)]
    pairs = [iv[(i, j)] for i in range(d) for j in range(i + 1, d)]
    return np.array(mains + pairs)


def ixvec(res):
    ii, jj = np.triu_indices(len(res.feature_names), 1)
    return np.concatenate([res.main_values, res.pair_values[ii, jj]])


def static_part(args):
    model, _, _, Xe, ye, bg, names = load(args.n_explain, args.n_background)
    d = len(names)
    game = LossGame(model.predict, Xe, ye, bg)
    t_exact = t_shapiq = float("inf")
    for _ in range(2):  # interleaved, best of two (the machine is shared)
        t = time.perf_counter()
        exact = shapley_interactions(model.predict, Xe, ye, loss="squared_error",
                                     background=bg, n_samples=None, method="exact")
        t_exact = min(t_exact, time.perf_counter() - t)
        t = time.perf_counter()
        computed = shapiq.ExactComputer(game, n_players=d)(index="k-SII", order=2)
        t_shapiq = min(t_shapiq, time.perf_counter() - t)
    ref, ref_shapiq = ixvec(exact), kvec(computed, d)
    n_rows = (2**d - 1) * len(Xe) * len(bg)
    block = np.tile(Xe, (2**18 // len(Xe) + 1, 1))[: 2**18]
    t = time.perf_counter()
    for _ in range(n_rows // 2**18):
        model.predict(block)
    t_model = (time.perf_counter() - t) * n_rows / (2**18 * max(1, n_rows // 2**18))
    scale = abs(exact.total)
    print(f"(a) California housing, HGB, n_explain={len(Xe)}, n_background={len(bg)}; "
          f"v(D) - v(empty) = {exact.total:.4f}")
    print(f"    exact: ixplain {t_exact:.2f} s, shapiq ExactComputer {t_shapiq:.2f} s "
          f"(same {n_rows:,} model rows; the model alone on that many rows: {t_model:.2f} s); "
          f"max |diff| {np.abs(ref - ref_shapiq).max():.1e}")
    per_coalition = len(Xe) * len(bg)
    per_sample = (2 * d - 1) * len(bg) + 1
    rows_needed: dict[str, tuple[int, float]] = {
        "ixplain exact": ((2**d - 1) * per_coalition, t_exact),
        "shapiq ExactComputer": (2**d * per_coalition, t_shapiq),
    }
    print(f"    {'estimator':<24}{'budget':>8}{'model rows':>13}{'max err / v':>13}{'time s':>9}")
    for budget in args.budgets:
        runs = {
            "shapiq permutation SII": shapiq.PermutationSamplingSII(d, 2, "k-SII", random_state=0),
            "shapiq SVARM-IQ": shapiq.SVARMIQ(d, 2, "k-SII", random_state=0),
            "shapiq KernelSHAP-IQ": shapiq.KernelSHAPIQ(d, 2, "k-SII", random_state=0),
        }
        results = []
        for name, approx in runs.items():
            game.rows = 0
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = kvec(approx.approximate(budget, game), d)
            results.append((name, game.rows, est, time.perf_counter() - t))
        n_perm = max(1, budget * per_coalition // per_sample)
        t = time.perf_counter()
        res = shapley_interactions(model.predict, Xe, ye, loss="squared_error", background=bg,
                                   n_samples=None, method="permutation", n_permutations=n_perm,
                                   convergence_threshold=None, random_state=0)
        results.append(("ixplain permutation", n_perm * per_sample, ixvec(res),
                        time.perf_counter() - t))
        for name, rows, est, secs in results:
            err = float(np.abs(est - ref).max() / scale)
            print(f"    {name:<24}{budget:>8}{rows:>13,}{err:>13.4f}{secs:>9.2f}")
            if err < TARGET and name not in rows_needed:
                rows_needed[name] = (rows, secs)
    print(f"    first budget with max error < {TARGET} of v(D) - v(empty):")
    for name in ("ixplain exact", "ixplain permutation", "shapiq ExactComputer",
                 "shapiq permutation SII", "shapiq SVARM-IQ", "shapiq KernelSHAP-IQ"):
        got = rows_needed.get(name)
        print(f"      {name:<24}" + ("not reached" if got is None else
                                     f"{got[0]:,} model rows, {got[1]:.2f} s"))


def throughput(make, X, y, n, batch):
    e = make()
    e.explain_one(X[0], y[0])
    t = time.perf_counter()
    if batch == 1:
        for i in range(1, n + 1):
            e.explain_one(X[i], y[i])
    else:
        for s in range(1, n + 1, batch):
            e.explain_many(X[s : s + batch], y[s : s + batch])
    return n / (time.perf_counter() - t)


def stream_part(args):
    import lightgbm
    from river import tree

    _, X, y, _, _, _, names = load(16, 8)
    lgb = lightgbm.LGBMRegressor(n_estimators=100, num_threads=1, verbose=-1).fit(X[:15000], y[:15000])
    ht = tree.HoeffdingTreeRegressor(grace_period=100)
    for xi, yi in zip(X[:3000], y[:3000]):
        ht.learn_one(dict(zip(names, xi)), yi)
    Xs, ys = X[15000:], y[15000:]
    recs = [dict(zip(names, row)) for row in Xs[: args.n_river + 1]]
    cases = [
        ("River Hoeffding tree, explain_one", ht, recs, 1, args.n_river),
        ("static LightGBM, explain_many(100)", lgb, Xs, 100, args.n_stream),
    ]
    print("(b) stream throughput, observations / s (better of 2 interleaved runs)")
    for label, mdl, data, batch, n in cases:
        makers = {
            "interactions": lambda m=mdl: IncrementalShapleyInteractions(
                m, loss="squared_error", method="permutation", n_samples=8, random_state=0),
            "iSAGE": lambda m=mdl: IncrementalSAGE(m, loss="squared_error", n_samples=8,
                                                   random_state=0),
        }
        best = {k: 0.0 for k in makers}
        for _ in range(2):
            for k, make in makers.items():
                best[k] = max(best[k], throughput(make, data, ys, n, batch))
        print(f"    {label:<38} interactions {best['interactions']:>9.1f}   iSAGE "
              f"{best['iSAGE']:>9.1f}   ratio {best['interactions'] / best['iSAGE']:.2f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-explain", type=int, default=128)
    p.add_argument("--n-background", type=int, default=32)
    p.add_argument("--budgets", type=int, nargs="+", default=[64, 128, 192, 256])
    p.add_argument("--n-river", type=int, default=300)
    p.add_argument("--n-stream", type=int, default=2000)
    p.add_argument("--skip-static", action="store_true")
    args = p.parse_args()
    if not args.skip_static:
        static_part(args)
    stream_part(args)


if __name__ == "__main__":
    main()
