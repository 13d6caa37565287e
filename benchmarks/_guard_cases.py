"""The cases of ``guard.py``: each builds its data and model, then returns the two calls it times.

A case function takes ``full`` (larger shapes) and returns a :class:`Case` whose ``ixplain`` and
``anchor`` are argument-free calls doing the same work; ``guard.py`` times them in turn and
reports ``anchor time / ixplain time`` (per call: a cheap call is looped ``*_loops`` times per
sample). Fitting and warm-up happen here, untimed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import _setups
import numpy as np


@dataclass
class Case:
    """One timed comparison: ``ratio = time(anchor) / time(ixplain)`` (higher is better)."""

    shape: str
    anchor_name: str
    ixplain: Callable[[], object]
    anchor: Callable[[], object]
    #: calls per timed sample (a sample of a few milliseconds is mostly timer and cache noise)
    ixplain_loops: int = 1
    anchor_loops: int = 1


def _friedman(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import make_friedman1

    return make_friedman1(n_samples=n, n_features=10, noise=1.0, random_state=seed)


def _hgb(max_iter: int = 100):
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(max_iter=max_iter, random_state=0)


def pfi_ridge_wide(full: bool) -> Case:
    """Static PFI of Ridge on a wide table whose permutations do not fit a quarter of
    ``memory_budget`` (quick: 4,000 rows, 4 MB for 9.6 MB of permutations; full: the issue's 100,000 x 60 at
    the default budget), vs scikit-learn's ``permutation_importance``."""
    from sklearn.inspection import permutation_importance as sk_pfi
    from sklearn.linear_model import Ridge

    from ixplain import permutation_importance
    from ixplain.models import DEFAULT_MEMORY_BUDGET

    n, budget = (100_000, DEFAULT_MEMORY_BUDGET) if full else (4_000, 4 * 2**20)
    X, y = _setups.wide_linear(n)
    model = Ridge().fit(X, y)
    return Case(
        f"{n:,} x 60, n_repeats=5, memory_budget={budget >> 20} MB", "sklearn",
        lambda: permutation_importance(model, X, y, n_repeats=5, random_state=0,
                                       memory_budget=budget),
        lambda: sk_pfi(model, X, y, n_repeats=5, random_state=0),
    )


def pfi_hgb(full: bool) -> Case:
    """Static PFI of HistGradientBoosting on Friedman-1 vs scikit-learn's."""
    from sklearn.inspection import permutation_importance as sk_pfi

    from ixplain import permutation_importance

    n = 20_000 if full else 2_000
    X, y = _friedman(n)
    model = _hgb().fit(X, y)
    return Case(
        f"{n:,} x 10, n_repeats=5", "sklearn",
        lambda: permutation_importance(model, X, y, n_repeats=5, random_state=0),
        lambda: sk_pfi(model, X, y, n_repeats=5, random_state=0),
    )


def _pd_rows(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Friedman-1 (20,000 rows) and ``n`` of its rows drawn with seed 0 (the rows explained)."""
    X, y = _friedman(20_000)
    return X, y, X[np.random.default_rng(0).choice(len(X), n, replace=False)]


def pd_spline_ridge(full: bool) -> Case:
    """Brute-force 1-way PD (grid 50, kind='both') of a SplineTransformer + Ridge pipeline vs
    scikit-learn's brute method: a cheap model, so ixplain's own work per grid point shows."""
    from sklearn.inspection import partial_dependence as sk_pd
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import SplineTransformer

    from ixplain import partial_dependence

    X, y, X_eval = _pd_rows(2_000)
    model = make_pipeline(SplineTransformer(), Ridge()).fit(X, y)
    kw = dict(grid_resolution=50, kind="both")
    return Case(
        "2,000 rows, 1-way, grid 50", "sklearn brute",
        lambda: partial_dependence(model, X_eval, [0], **kw),
        lambda: sk_pd(model, X_eval, [0], method="brute", **kw),
        ixplain_loops=10,
    )


def pd_mlp(full: bool) -> Case:
    """Brute-force 2-way PD (50 x 50 grid, kind='both') of an MLP vs scikit-learn's brute
    method: the model's speed depends on the size of each call, so the stacking of rows x grid
    points into cache-sized calls shows."""
    from sklearn.inspection import partial_dependence as sk_pd

    from ixplain import partial_dependence

    X, y, X_eval = _pd_rows(400 if full else 200)
    model = _setups.mlp_regressor().fit(X[:2_000], y[:2_000])
    kw = dict(grid_resolution=50, kind="both")
    return Case(
        f"{len(X_eval):,} rows, 2-way, grid 50 x 50", "sklearn brute",
        lambda: partial_dependence(model, X_eval, [0, 1], **kw),
        lambda: sk_pd(model, X_eval, [0, 1], method="brute", **kw),
        ixplain_loops=2,
    )


def tree_pd_hgb(full: bool) -> Case:
    """Exact tree PD (``method="tree"``) of HistGradientBoosting vs scikit-learn's brute force
    on the same grid (the same values); the trees are converted and numba loaded untimed."""
    from sklearn.inspection import partial_dependence as sk_pd

    from ixplain import partial_dependence

    n = 20_000 if full else 2_000
    X, y = _friedman(n)
    model = _hgb(100 if full else 30).fit(X, y)
    partial_dependence(model, X[:50], [0], method="tree")  # warm-up: conversion, numba
    return Case(
        f"{n:,} rows, 1-way, grid 100", "sklearn brute",
        lambda: partial_dependence(model, X, [0], method="tree", grid_resolution=100),
        lambda: sk_pd(model, X, [0], method="brute", grid_resolution=100),
        ixplain_loops=40,
    )


def sage_hgb(full: bool) -> Case:
    """SAGE of HistGradientBoosting (Friedman-1, 512 background rows, squared error) vs
    sage-importance's ``PermutationEstimator``, the same number of orders each (no convergence
    stop: the same work asked of both)."""
    import sage as sage_lib

    from ixplain import sage

    X, y = _friedman(3_000)
    model = _hgb().fit(X[:2_000], y[:2_000])
    rng = np.random.default_rng(0)
    background = X[:2_000][rng.choice(2_000, 512, replace=False)]
    X_ex, y_ex = X[2_000:], y[2_000:]
    n_perm = 512 if full else 32

    def anchor():
        imputer = sage_lib.MarginalImputer(model.predict, background)
        estimator = sage_lib.PermutationEstimator(imputer, "mse", random_state=0)
        return estimator(X_ex, y_ex, batch_size=n_perm, detect_convergence=False,
                         n_permutations=n_perm, bar=False)

    return Case(
        f"1,000 rows, {n_perm} orders, background 512", "sage-importance",
        lambda: sage(model, X_ex, y_ex, loss="squared_error", background=background,
                     n_permutations=n_perm, convergence_threshold=None, random_state=0),
        anchor,
        ixplain_loops=4,
    )


def ipfi_hgb(full: bool) -> Case:
    """iPFI ``explain_one`` on the Agrawal stream explaining a static HistGradientBoosting
    classifier vs ixai's ``IncrementalPFI`` (alpha 0.001, geometric reservoir of 1,000 rows,
    p = 1, n_samples 1, 0-1 loss): the settings of ``bench_incremental_pfi.py``."""
    from ixai.utils.wrappers import SklearnWrapper
    from sklearn.ensemble import HistGradientBoostingClassifier

    from ixplain import GeometricReservoir, IncrementalPFI

    names, _, X_tr, y_tr = _setups.agrawal_table(5_000, seed=1)
    model = HistGradientBoostingClassifier(max_iter=100, random_state=0).fit(X_tr, y_tr)
    n = 2_000 if full else 150
    _, records, _, y = _setups.agrawal_table(n, seed=2)
    rows = list(zip(records, y.tolist()))

    def ours():
        explainer = IncrementalPFI(model, "zero_one", alpha=0.001, n_samples=1,
                                   storage=GeometricReservoir(1_000, p=1.0, random_state=0),
                                   random_state=0)
        for x, t in rows:
            explainer.explain_one(x, t)
        return explainer

    def anchor():
        explainer = _setups.make_ixai_pfi(SklearnWrapper(model.predict, feature_names=names),
                                          names, alpha=0.001, size=1_000, n_samples=1, seed=0)
        for x, t in rows:
            explainer.explain_one(x, t)
        return explainer

    return Case(f"{n:,} rows, explain_one", "ixai", ours, anchor)


def ale_numpy(full: bool) -> Case:
    """Static ALE of a numpy function (one feature, 20 bins, all rows) vs its floor: one model
    call on ``2 n`` rows (the rows at both edges of their bin), the least any ALE needs."""
    from ixplain import accumulated_local_effects

    n = 1_000_000 if full else 200_000
    X = _setups.ale_data(n, seed=1)
    X2 = np.r_[X, X]
    return Case(
        f"{n:,} rows, 20 bins", "2n predictions",
        lambda: accumulated_local_effects(_setups.ale_model, X, 0, grid_resolution=20),
        lambda: _setups.ale_model(X2),
        anchor_loops=5,
    )


def ale_hgb(full: bool) -> Case:
    """Static ALE of a HistGradientBoosting model of the same function vs its 2n-row floor."""
    from ixplain import accumulated_local_effects

    X_fit = _setups.ale_data(20_000, seed=0)
    model = _hgb().fit(X_fit, _setups.ale_model(X_fit))
    n = 200_000 if full else 20_000
    X = _setups.ale_data(n, seed=1)
    X2 = np.r_[X, X]
    return Case(
        f"{n:,} rows, 20 bins", "2n predictions",
        lambda: accumulated_local_effects(model.predict, X, 0, grid_resolution=20),
        lambda: model.predict(X2),
    )


#: The cases in the order they run; ``guard.py``'s FLOORS has one entry per name.
CASES: dict[str, Callable[[bool], Case]] = {
    "pfi_ridge_wide": pfi_ridge_wide,
    "pfi_hgb": pfi_hgb,
    "pd_spline_ridge": pd_spline_ridge,
    "pd_mlp": pd_mlp,
    "tree_pd_hgb": tree_pd_hgb,
    "sage_hgb": sage_hgb,
    "ipfi_hgb": ipfi_hgb,
    "ale_numpy": ale_numpy,
    "ale_hgb": ale_hgb,
}
