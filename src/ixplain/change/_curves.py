"""How the PD and ALE curves changed between two models or two datasets, with bands.

Both sides are evaluated on **one common grid** (PD: built from the rows of both sides by
:func:`ixplain.grids.feature_grid`, scikit-learn's percentile rule; ALE: quantile edges of the
pooled rows, :func:`ixplain.methods.ale.quantile_edges`), with the existing explanation
functions of :mod:`ixplain.methods` (PD: :class:`~ixplain.methods.pdp.ICEFunction`, ALE:
:class:`~ixplain.methods.ale.ALEFunction`) run by the engine's static driver (or, through
:mod:`ixplain.change._dask`, its Dask driver: the same numbers).

Two designs, chosen by what is given:

* **two models, the same rows** (``X_b=None``): *paired*. Every row's ICE curve (or ALE local
  difference) of model b minus that of model a, on the same grid -- common random numbers: the
  same rows and grid points for both models, so the band measures how the *change* varies over
  the rows, not the two curves' own spread. For PD the delta is the mean of the per-row ICE
  differences, its covariance their sample covariance over ``n``; for ALE the per-bin means of
  the differences ``f_b(z_k) - f_b(z_{k-1}) - (f_a(z_k) - f_a(z_{k-1}))`` are accumulated and
  centred as one ALE of ``f_b - f_a`` (ALE is linear in the model for fixed edges and rows).
* **two datasets** (``X_b`` given, ``model_b`` defaulting to ``model_a``): *independent
  samples*. Each side's curve from its own rows; ``Cov(delta) = Cov(a) + Cov(b)``. (ALE: the
  edges are quantiles of the pooled rows inside the range both sides cover -- outside it one
  side's curve would be extrapolated -- and both sides are centred with the pooled bin counts, so the delta is the change of
  the local effects, not of where each side's rows lie.)

The band is pointwise, ``delta +- z * se`` with ``z`` the normal quantile of ``confidence``.
The summary ``max_abs_delta = max over the grid of |delta|`` comes with a simultaneous test:
``p_value`` is the probability, under ``delta = 0`` everywhere, that the largest studentised
deviation ``max_g |Z_g| / se_g`` with ``Z ~ N(0, Cov(delta))`` (simulated, ``n_simulations``
draws from ``random_state``; the Monte Carlo p-value ``(1 + #exceed) / (1 + n_simulations)``)
reaches the observed one; its ``confidence`` quantile ``c`` gives the simultaneous band
``delta +- c * se``, and the interval of ``max |delta|`` is the range of ``max_g |d_g|`` over
the curves ``d`` inside that band (coverage at least ``confidence``).

References
----------
.. [1] J. H. Friedman, "Greedy function approximation: a gradient boosting machine", Annals of
   Statistics 29(5), 2001 (PD).
.. [2] D. W. Apley, J. Zhu, "Visualizing the effects of predictor variables in black box
   supervised learning models", JRSS B 82(4), 2020 (ALE).
.. [3] J. Muschalik, F. Fumagalli, B. Hammer, E. Huellermeier, "Agnostic explanation of model
   change based on feature importance", KI - Kuenstliche Intelligenz 36, 2022.
.. [4] J. L. Montiel Olea, M. Plagborg-Moller, "Simultaneous confidence bands: theory,
   implementation, and an application to SVARs", J. Applied Econometrics 34(1), 2019
   (the sup-t band).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from .._random import keyed_generator, root_seed
from .._validation import check_float, check_int, check_options, param_error
from ..grids import feature_grid
from ..methods._ale_bins import quantile_edges
from ..methods._ale_effects import _fill_empty_1d, accumulation_matrix, bin_statistics
from ..methods._engine import Explained, Method, RowBatch, explain_rows
from ..methods._pd_brute import ICEFunction
from ..methods.ale import ALEFunction
from ..methods.pdp import effect_model
from ..models import DEFAULT_MEMORY_BUDGET, Model
from ..tabular import Table, as_table

__all__ = ["CurveChange", "CurveChanges", "curve_changes"]

_OWNER = "curve_changes"

#: ``runner(method, side) -> Explained``: the engine driver over side "a" or "b"'s rows.
Runner = Callable[[Method, str], Explained]


# ----------------------------------------------------------------------------------- result
@dataclass(frozen=True)
class CurveChange:
    """The change of one feature's PD or ALE curve, ``b - a``, on a common grid.

    Attributes
    ----------
    feature : str
    method : {"pd", "ale"}
    grid : ndarray of shape (n_grid,)
        PD: the grid values; ALE: the bin edges (the curve's points).
    a, b : ndarray of shape (n_grid,)
        The curve of side a and side b (model output units).
    delta : ndarray of shape (n_grid,)
        ``b - a``.
    lower, upper : ndarray of shape (n_grid,)
        Pointwise band of ``delta`` at ``confidence``.
    std_error : ndarray of shape (n_grid,)
        Standard error of ``delta`` (paired or independent, see ``paired``).
    a_lower, a_upper, b_lower, b_upper : ndarray of shape (n_grid,)
        Pointwise bands of the two curves.
    max_abs_delta : float
        ``max |delta|`` over the grid.
    max_abs_lower, max_abs_upper : float
        Its interval (from the simultaneous band; module docstring).
    p_value : float
        Of the simultaneous test of ``delta = 0`` at every grid point.
    critical_value : float
        ``c`` of the simultaneous band ``delta +- c * std_error``.
    confidence : float
    paired : bool
        True for two models on the same rows (per-row differences), False for two datasets.
    n_a, n_b : int
        Rows of each side.
    feature_kind : {"numeric", "categorical"}
    """

    feature: str
    method: str
    grid: np.ndarray
    a: np.ndarray
    b: np.ndarray
    delta: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    std_error: np.ndarray
    a_lower: np.ndarray
    a_upper: np.ndarray
    b_lower: np.ndarray
    b_upper: np.ndarray
    max_abs_delta: float
    max_abs_lower: float
    max_abs_upper: float
    p_value: float
    critical_value: float
    confidence: float
    paired: bool
    n_a: int
    n_b: int
    feature_kind: str = "numeric"
    settings: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (lists, floats; grid values as str for a categorical)."""
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            if isinstance(value, np.ndarray):
                out[name] = _plain_list(value)
            elif isinstance(value, (np.floating, np.integer, np.bool_)):
                out[name] = value.item()
            else:
                out[name] = value
        return out

    def to_frame(self) -> Any:
        """One row per grid point: grid, a, b, delta, lower, upper, std_error (pandas)."""
        import pandas as pd

        return pd.DataFrame({
            "feature": self.feature, "method": self.method, "grid": list(self.grid),
            "a": self.a, "b": self.b, "delta": self.delta, "lower": self.lower,
            "upper": self.upper, "std_error": self.std_error,
        })


def _plain_list(values: np.ndarray) -> list[Any]:
    if values.dtype.kind in "fiub":
        return [None if not np.isfinite(v) else float(v) for v in values.astype(np.float64)]
    return [str(v) for v in values]


# ----------------------------------------------------------------------------------- statistics
def curve_statistics(delta: np.ndarray, cov: np.ndarray, confidence: float,
                     rng: np.random.Generator, n_simulations: int) -> dict[str, Any]:
    """Pointwise band, simultaneous critical value, ``max |delta|`` interval and p-value.

    Parameters
    ----------
    delta : ndarray of shape (G,)
    cov : ndarray of shape (G, G)
        Covariance of ``delta`` (positive semi-definite).
    confidence : float in (0, 1)
    rng : numpy.random.Generator
    n_simulations : int
        Draws of ``N(0, cov)``.

    Returns
    -------
    dict
        ``std_error, lower, upper`` (arrays of shape (G,)), ``critical_value, max_abs_delta,
        max_abs_lower, max_abs_upper, p_value`` (floats).

    Examples
    --------
    >>> out = curve_statistics(np.array([0.0, 3.0]), np.eye(2), 0.95,
    ...                        np.random.default_rng(0), 2000)
    >>> round(out["max_abs_delta"], 1), out["p_value"] < 0.05
    (3.0, True)
    """
    cov = 0.5 * (cov + cov.T)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    w, V = np.linalg.eigh(cov)
    root = V * np.sqrt(np.clip(w, 0.0, None))
    draws = rng.standard_normal((n_simulations, len(delta))) @ root.T
    live = se > 1e-12 * max(1.0, float(np.max(np.abs(delta), initial=0.0)))
    if live.any():
        sup = np.max(np.abs(draws[:, live]) / se[live], axis=1)
        crit = float(np.quantile(sup, confidence))
        observed = float(np.max(np.abs(delta[live]) / se[live]))
    else:
        sup, crit, observed = np.zeros(n_simulations), 0.0, 0.0
    if np.any(~live & (np.abs(delta) > 0)):  # a change with no spread: certain
        observed = np.inf
    p = (1.0 + float(np.sum(sup >= observed))) / (1.0 + n_simulations)
    absd = np.abs(delta)
    return {
        "std_error": se, "lower": delta - z * se, "upper": delta + z * se,
        "critical_value": crit, "max_abs_delta": float(np.max(absd)),
        "max_abs_lower": float(np.max(np.clip(absd - crit * se, 0.0, None))),
        "max_abs_upper": float(np.max(absd + crit * se)), "p_value": min(1.0, p),
    }


def _moments_cov(mean: np.ndarray, second: np.ndarray, variance: np.ndarray, n: int) -> np.ndarray:
    """Covariance of a mean of ``n`` rows from the rows' means, mean outer products and
    (Welford) variances: ``(E[dd'] - E[d]E[d]') * n / (n - 1) / n`` with the diagonal taken
    from the Welford variance (stabler)."""
    if n < 2:
        return np.zeros((len(mean), len(mean)))
    cov = (second - np.outer(mean, mean)) / (n - 1)
    sd_row = np.sqrt(np.clip(variance, 0.0, None))
    np.fill_diagonal(cov, np.clip(variance, 0.0, None) / n)
    bound = np.outer(sd_row, sd_row) / n  # |cov_ij| <= sd_i sd_j
    return np.clip(cov, -bound, bound)


# ----------------------------------------------------------------------------------- PD
class CurveMoments(Method):
    """Per-row values whose means give the PD curves and the covariance of their change.

    With two ICE functions (paired, the same rows): ``[ice_a, ice_b, d, vec(d d')]`` with
    ``d = ice_b - ice_a``; with one (a side of two datasets): ``[ice, vec(ice ice')]``. Each
    ICE function is :class:`~ixplain.methods.pdp.ICEFunction` (one output).

    Parameters
    ----------
    first : ICEFunction
    second : ICEFunction or None, default=None
    owner : str, default="curve_changes"
    """

    name = "curve_change_moments"

    def __init__(self, first: ICEFunction, second: ICEFunction | None = None,
                 owner: str = _OWNER) -> None:
        self.first, self.second, self.owner = first, second, owner

    def chunk_rows(self, table: Table, memory_budget: int) -> int:
        rows = self.first.chunk_rows(table, memory_budget)
        g = self.first.n_points
        return max(1, min(rows, (1 << 22) // max(1, g * g)))  # outer products: ~32 MB a chunk

    def _ice(self, fn: ICEFunction, batch: RowBatch) -> np.ndarray:
        ice = fn.explain(batch)
        if ice.shape[1] != 1:
            raise ValueError(
                f"{self.owner}: the model has {ice.shape[1]} outputs; curves compare one. Pass "
                "target= (a class of a multiclass classifier or an output index).")
        return ice[:, 0, :]

    def explain(self, batch: RowBatch) -> np.ndarray:
        a = self._ice(self.first, batch)
        if self.second is None:
            return np.concatenate([a, (a[:, :, None] * a[:, None, :]).reshape(len(a), -1)], 1)
        b = self._ice(self.second, batch)
        d = b - a
        return np.concatenate([a, b, d, (d[:, :, None] * d[:, None, :]).reshape(len(d), -1)], 1)


def _side_stats(ex: Explained, g: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of the block ``offset:offset + g`` of the values."""
    mean = ex.mean.get()[offset:offset + g]
    return mean, ex.standard_error[offset:offset + g]


def _pd_change(fns: tuple[ICEFunction, ICEFunction], paired: bool, runner: Runner,
               owner: str) -> tuple[dict[str, np.ndarray], np.ndarray, int, int]:
    """``(curves {a, b, delta, a_se, b_se}, cov of delta, n_a, n_b)`` of one PD feature."""
    g = fns[0].n_points
    if paired:
        ex = runner(CurveMoments(fns[0], fns[1], owner), "a")
        m, var, n = ex.mean.get(), np.asarray(ex.mean.variance), ex.mean.n
        cov = _moments_cov(m[2 * g:3 * g], m[3 * g:].reshape(g, g), var[2 * g:3 * g], n)
        (a, a_se), (b, b_se) = _side_stats(ex, g, 0), _side_stats(ex, g, g)
        return {"a": a, "b": b, "delta": b - a, "a_se": a_se, "b_se": b_se}, cov, n, n
    covs, out, ns = [], {}, []
    for fn, side in zip(fns, ("a", "b")):
        ex = runner(CurveMoments(fn, None, owner), side)
        m, var, n = ex.mean.get(), np.asarray(ex.mean.variance), ex.mean.n
        covs.append(_moments_cov(m[:g], m[g:].reshape(g, g), var[:g], n))
        out[side], out[side + "_se"] = _side_stats(ex, g, 0)
        ns.append(n)
    out["delta"] = out["b"] - out["a"]
    return out, covs[0] + covs[1], ns[0], ns[1]


# ----------------------------------------------------------------------------------- ALE
class DifferenceModel(Model):
    """``f_b - f_a`` as one model adapter (the paired ALE's per-row differences).

    Parameters
    ----------
    model_a, model_b : Model
        Adapters with one output each.
    """

    def __init__(self, model_a: Model, model_b: Model) -> None:
        super().__init__((model_a, model_b))
        self.model_a, self.model_b = model_a, model_b

    def native_kind(self, table: Table) -> str:
        return "table"  # never the numpy fast path: each side converts for itself

    def predict(self, table: Table, *, batch_rows: int | None = None) -> np.ndarray:
        a = np.asarray(self.model_a.predict(table, batch_rows=batch_rows), dtype=np.float64)
        b = np.asarray(self.model_b.predict(table, batch_rows=batch_rows), dtype=np.float64)
        return b - a

    def describe(self) -> str:
        return f"({self.model_b.describe()} - {self.model_a.describe()})"


def _bin_sums_of(ex: Explained) -> np.ndarray:
    """Per-bin sums of the moments (6, n_outputs, K) from the engine mean of
    :class:`ALEFunction`'s values."""
    return ex.mean.get() * ex.mean.weight_sum


def _ale_curve(sums: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Centred ALE curve (K + 1,), its covariance and the rows in bins, from per-bin sums,
    centred with the bin ``weights`` (K,)."""
    mean, var, count = bin_statistics(sums)
    if mean.shape[0] != 1:
        raise ValueError(f"{_OWNER}: the model has {mean.shape[0]} outputs; curves compare "
                         "one. Pass target= (a class of a multiclass classifier).")
    mean = _fill_empty_1d(mean)[0]
    A = accumulation_matrix("numeric", weights if weights.sum() > 0 else count + 1.0)
    v = np.where(np.isfinite(var[0]), var[0], 0.0)
    return A @ mean, (A * v) @ A.T, int(count.sum())


def _ale_change(models: tuple[Model, Model], feature: str, edges: np.ndarray, paired: bool,
                runner: Runner, owner: str) -> tuple[dict[str, np.ndarray], np.ndarray, int, int]:
    """Paired: the ALE of ``f_b - f_a`` on the rows; two datasets: both sides centred with the
    pooled bin counts (so the delta holds the change of the local effects only)."""
    sums = [_bin_sums_of(runner(ALEFunction(model, feature, edges, owner=owner),
                                "a" if paired else side))
            for model, side in zip(models, ("a", "b"))]
    weights = sums[0][0, 0] if paired else sums[0][0, 0] + sums[1][0, 0]
    out: dict[str, np.ndarray] = {}
    ns, covs = [], []
    for s, side in zip(sums, ("a", "b")):
        curve, cov, n = _ale_curve(s, weights)
        out[side], out[side + "_se"] = curve, np.sqrt(np.clip(np.diag(cov), 0, None))
        covs.append(cov)
        ns.append(n)
    if paired:
        diff = _bin_sums_of(runner(ALEFunction(DifferenceModel(*models), feature, edges,
                                               owner=owner), "a"))
        out["delta"], cov, _ = _ale_curve(diff, weights)
        return out, cov, ns[0], ns[1]
    out["delta"] = out["b"] - out["a"]
    return out, covs[0] + covs[1], ns[0], ns[1]


# ----------------------------------------------------------------------------------- driver
@dataclass
class Sides:
    """The rows of the two sides as the curve code sees them (pandas or Dask).

    Attributes
    ----------
    head : Table
        Rows of side a in the model's schema (a few, for the model's input layout).
    pooled : Table
        The explained features' values of both sides, side a's rows first (the common grid is
        built from them).
    runner : callable
        ``runner(method, side) -> Explained``: the engine driver over side ``"a"`` or ``"b"``.
    paired : bool
        True when both models are evaluated on side a's rows.
    n_a : int or None
        Rows of side a in ``pooled`` (two datasets).
    tables : dict or None
        In-memory data: ``{"a": Table, "b": Table}`` (b is a for the paired design).
    """

    head: Table
    pooled: Table
    runner: Runner
    paired: bool
    n_a: int | None = None
    tables: dict[str, Table] | None = None


def _check_opts(method: Any, confidence: Any, grid_resolution: Any, min_bin_size: Any,
                n_simulations: Any, percentiles: Any, owner: str) -> dict[str, Any]:
    check_options(method, "method", owner, ("pd", "ale"))
    rule = "a tuple of two floats (low, high) with 0 <= low < high <= 1"
    try:
        lo, hi = (float(p) for p in percentiles)
        ok = 0 <= lo < hi <= 1 and not isinstance(percentiles, (str, bytes))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise param_error(owner, "percentiles", rule, percentiles)
    return {
        "method": method,
        "confidence": check_float(confidence, "confidence", owner, low=0.0, high=1.0,
                                  low_inclusive=False, high_inclusive=False),
        "grid_resolution": check_int(grid_resolution, "grid_resolution", owner, min_value=2),
        "min_bin_size": check_int(min_bin_size, "min_bin_size", owner, min_value=1),
        "n_simulations": check_int(n_simulations, "n_simulations", owner, min_value=100),
        "percentiles": (lo, hi),
    }


def resolve_features(features: Any, names: Sequence[str], pooled: Table, method: str,
                     owner: str) -> list[str]:
    """The explained features: ``None`` is every feature (ALE: every numeric, non-constant
    one); a str or a sequence of str names columns."""
    if features is None:
        if method == "pd":
            return list(names)
        return [n for n in names if pooled.schema.kind(n) == "numeric"
                and len(np.unique(pooled.numeric_column(n)[np.isfinite(
                    pooled.numeric_column(n))])) > 1]
    single = isinstance(features, (str, numbers.Integral)) and not isinstance(features, bool)
    items = [features] if single else features
    if not isinstance(items, (list, tuple, np.ndarray)) or len(items) == 0:
        raise param_error(owner, "features", "None, a column name or a non-empty list of them",
                          features, exc=TypeError)
    out = []
    for f in items:
        if isinstance(f, numbers.Integral) and not isinstance(f, bool) and \
                0 <= int(f) < len(names):
            f = names[int(f)]
        if f not in names:
            raise ValueError(f"The 'features' parameter of {owner} names an unknown feature "
                             f"{f!r}. Available features: {list(names)}.")
        if method == "ale" and pooled.schema.kind(str(f)) != "numeric":
            raise ValueError(f"{owner}: ALE changes are computed for numeric features; {f!r} "
                             "is categorical (use method='pd').")
        out.append(str(f))
    return out


def _pd_functions(models: tuple[Model, Model], sides: Sides, feature: str,
                  grid_values: np.ndarray,
                  memory_budget: int) -> tuple[ICEFunction, ICEFunction]:
    from ..methods import pdp as _pdp

    out = []
    for model in models:
        req = _pdp.PDRequest(model=model, table=sides.head, features=[feature],
                             grid_values=[grid_values], sample_weight=None, kind="individual",
                             batch_rows=1)
        out.append(ICEFunction(model, [feature], [grid_values], method=_pdp._resolve_auto(req),
                               memory_budget=memory_budget))
    return out[0], out[1]


def _overlap(sides: Sides, feature: str) -> np.ndarray:
    """The pooled finite values of ``feature`` inside the range both sides cover (ALE of two
    datasets: a bin outside one side's range would be that side's extrapolation)."""
    x = sides.pooled.numeric_column(feature)
    ok = np.isfinite(x)
    if sides.paired or sides.n_a is None:
        return x[ok]
    xa, xb = x[:sides.n_a][ok[:sides.n_a]], x[sides.n_a:][ok[sides.n_a:]]
    if len(xa) == 0 or len(xb) == 0:
        return x[ok]
    lo, hi = max(xa.min(), xb.min()), min(xa.max(), xb.max())
    inside = x[ok]
    return inside[(inside >= lo) & (inside <= hi)]


class CurveSkipped(ValueError):
    """A feature whose curve cannot be computed (ALE without two distinct values in the range
    both sides cover); :func:`ixplain.compare` skips it with a note."""


def _no_ale_range(sides: Sides, feature: str, owner: str) -> str:
    """Why ALE has no bins for ``feature``: constant on both sides, or the sides' ranges
    share at most one value (each side's range named)."""
    x = sides.pooled.numeric_column(feature)
    ok = np.isfinite(x)
    if len(np.unique(x[ok])) < 2 or sides.paired or sides.n_a is None:
        return (f"{owner}: feature {feature!r} is constant on both sides; ALE needs at least "
                "two distinct values.")
    xa, xb = x[:sides.n_a][ok[:sides.n_a]], x[sides.n_a:][ok[sides.n_a:]]
    rng = {k: "no finite values" if len(v) == 0 else f"[{v.min():.6g}, {v.max():.6g}]"
           for k, v in (("a", xa), ("b", xb))}
    return (f"{owner}: feature {feature!r} takes values in {rng['a']} on side a and {rng['b']} "
            "on side b; these ranges share fewer than two distinct values, and ALE of two "
            "datasets needs at least two inside the range both sides cover.")


def _one_feature(models: tuple[Model, Model], sides: Sides, feature: str, opts: dict[str, Any],
                 custom: dict[str, Any], seed: int, owner: str) -> CurveChange:
    kind = sides.pooled.schema.kind(feature)
    if opts["method"] == "pd":
        fg = feature_grid(sides.pooled, feature, percentiles=opts["percentiles"],
                          grid_resolution=opts["grid_resolution"],
                          custom_values=custom.get(feature), owner=owner)
        grid = fg.values
        fns = _pd_functions(models, sides, feature, grid, opts["memory_budget"])
        curves, cov, n_a, n_b = _pd_change(fns, sides.paired, sides.runner, owner)
    else:
        x = _overlap(sides, feature)
        grid = (np.asarray(custom[feature], dtype=np.float64) if feature in custom else
                quantile_edges(x, None, opts["grid_resolution"], opts["min_bin_size"]))
        if len(grid) < 2:
            raise CurveSkipped(_no_ale_range(sides, feature, owner))
        curves, cov, n_a, n_b = _ale_change(models, feature, grid, sides.paired, sides.runner,
                                            owner)
    rng = keyed_generator(seed, "curve_changes", opts["method"], feature)
    stats = curve_statistics(curves["delta"], cov, opts["confidence"], rng,
                             opts["n_simulations"])
    z = NormalDist().inv_cdf(0.5 + opts["confidence"] / 2)
    return CurveChange(
        feature=feature, method=opts["method"], grid=np.asarray(grid), a=curves["a"],
        b=curves["b"], delta=curves["delta"], lower=stats["lower"], upper=stats["upper"],
        std_error=stats["std_error"], a_lower=curves["a"] - z * curves["a_se"],
        a_upper=curves["a"] + z * curves["a_se"], b_lower=curves["b"] - z * curves["b_se"],
        b_upper=curves["b"] + z * curves["b_se"], max_abs_delta=stats["max_abs_delta"],
        max_abs_lower=stats["max_abs_lower"], max_abs_upper=stats["max_abs_upper"],
        p_value=stats["p_value"], critical_value=stats["critical_value"],
        confidence=opts["confidence"], paired=sides.paired, n_a=n_a, n_b=n_b,
        feature_kind="numeric" if opts["method"] == "ale" else kind,
        settings={"grid_resolution": opts["grid_resolution"],
                  "n_simulations": opts["n_simulations"],
                  "design": "paired" if sides.paired else "independent"},
    )


def curve_changes_on(sides: Sides, models: tuple[Model, Model], features: Any,
                     opts: dict[str, Any], custom: dict[str, Any] | None, seed: int,
                     owner: str = _OWNER, skipped: list[str] | None = None
                     ) -> dict[str, CurveChange]:
    """:func:`curve_changes` on prepared sides (the pandas and the Dask front ends).

    With a list ``skipped``, a feature whose curve cannot be computed (:class:`CurveSkipped`)
    is left out and the reason appended to the list; without it the error is raised."""
    feats = resolve_features(features, sides.head.names, sides.pooled, opts["method"], owner)
    custom = {str(k): v for k, v in (custom or {}).items()}
    out = {}
    for f in feats:
        try:
            out[f] = _one_feature(models, sides, f, opts, custom, seed, owner)
        except CurveSkipped as exc:
            if skipped is None:
                raise
            skipped.append(f"{opts['method'].upper()} of {f!r} skipped: "
                           f"{str(exc).split(': ', 1)[-1]}")
    return out


def check_models(model_a: Any, model_b: Any, X_b: Any, response_method: str, target: Any,
                 owner: str) -> tuple[Model, Model]:
    """Adapters of the two sides' models (``model_b=None``: model a on both sides)."""
    if model_b is None and X_b is None:
        raise ValueError(f"{owner}: give model_b (two models on the same rows), X_b (two "
                         "datasets) or both; with neither there is nothing to compare.")
    check_options(response_method, "response_method", owner,
                  ("auto", "predict", "predict_proba", "decision_function"))
    ma = effect_model(model_a, response_method, target, "auto", owner)
    mb = ma if model_b is None else effect_model(model_b, response_method, target, "auto", owner)
    return ma, mb


def pandas_sides(X_a: Any, X_b: Any, memory_budget: int, owner: str) -> Sides:
    """:class:`Sides` of in-memory data (arrays, pandas/polars frames, records)."""
    ta = as_table(X_a, owner=owner)
    if ta.n_rows < 2:
        raise ValueError(f"{owner}: X_a has {ta.n_rows} rows; a band needs at least 2.")
    if X_b is None:
        return Sides(ta.take(np.arange(1)), ta,
                     lambda m, side: explain_rows(m, ta, memory_budget=memory_budget), True,
                     None, {"a": ta, "b": ta})
    if hasattr(X_b, "columns") and hasattr(X_a, "columns") and \
            set(map(str, X_b.columns)) == set(map(str, X_a.columns)):
        X_b = X_b[list(X_a.columns)]  # the same columns in another order: model a's order
    tb = as_table(X_b, owner=owner)
    if tuple(tb.names) != tuple(ta.names):
        raise ValueError(
            f"{owner}: X_a and X_b have different columns: only in X_a "
            f"{sorted(set(ta.names) - set(tb.names))}, only in X_b "
            f"{sorted(set(tb.names) - set(ta.names))}. Both sides need the model's columns.")
    if tb.n_rows < 2:
        raise ValueError(f"{owner}: X_b has {tb.n_rows} rows; a band needs at least 2.")
    tables = {"a": ta, "b": tb}
    return Sides(ta.take(np.arange(1)), pooled_table(ta, tb),
                 lambda m, side: explain_rows(m, tables[side], memory_budget=memory_budget),
                 False, ta.n_rows, tables)


def pooled_table(ta: Table, tb: Table) -> Table:
    """The rows of both tables (for the common grid)."""
    try:
        return Table.concat([ta, tb])
    except (TypeError, ValueError, AttributeError):  # e.g. categoricals with other levels
        cols = {n: np.concatenate([np.asarray(ta.column(n), dtype=object),
                                   np.asarray(tb.column(n), dtype=object)]) for n in ta.names}
        import pandas as pd

        frame = pd.DataFrame(cols)
        for n, k in zip(ta.names, ta.schema.kinds):
            if k == "numeric":
                frame[n] = pd.to_numeric(frame[n])
        return as_table(frame)


def curve_changes(
    model_a: Any,
    X_a: Any,
    model_b: Any = None,
    X_b: Any = None,
    *,
    features: Any = None,
    method: str = "pd",
    grid_resolution: int = 20,
    percentiles: tuple[float, float] = (0.05, 0.95),
    custom_values: dict[str, Any] | None = None,
    min_bin_size: int = 10,
    response_method: str = "auto",
    target: Any = None,
    confidence: float = 0.95,
    n_simulations: int = 10_000,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    random_state: Any = None,
    methods: Sequence[str] | None = None,
    groups: Any = None,
    paired: bool | None = None,
) -> dict[str, Any]:
    """PD or ALE curves of two models or two datasets on one grid, and their change ``b - a``.

    Parameters
    ----------
    model_a : estimator, Booster or callable
        The reference model (see :func:`ixplain.as_model`).
    X_a : ndarray of shape (n_a, n_features), DataFrame or records
        The reference rows (with ``X_b=None``: the rows both models are evaluated on).
    model_b : estimator, Booster or callable, default=None
        The other model (default: ``model_a``, i.e. two datasets, one model).
    X_b : like X_a, default=None
        The other dataset (``n_b`` rows, the same columns). None: paired design.
    features : str, int or list of them, default=None
        Features to compare; None: every feature (ALE: every numeric non-constant one).
    method : {"pd", "ale"}, default="pd"
    grid_resolution : int, default=20
        PD: grid points of a numeric feature (percentile grid of the pooled rows); ALE: largest
        number of quantile bins of the pooled rows.
    percentiles : tuple of float, default=(0.05, 0.95)
        PD grid bounds, as fractions.
    custom_values : dict, default=None
        ``{feature: grid}`` (PD grid values or ALE edges, increasing).
    min_bin_size : int, default=10
        ALE: smallest number of pooled rows per bin.
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
    target : object, default=None
        A class of a multiclass classifier (one output is compared).
    confidence : float, default=0.95
        Of the pointwise bands and the ``max |delta|`` interval.
    n_simulations : int, default=10000
        Gaussian draws of the simultaneous test (module docstring).
    memory_budget : int, default=268435456
        Bytes of model input per call.
    random_state : int, Generator or None, default=None
        Seeds the simulations (the curves themselves are deterministic).
    methods, groups, paired
        :func:`ixplain.compare`'s call, ``curve_changes(side_a, side_b, methods=["pd",
        "ale"], features=names, groups=groups, paired=paired, ...)`` with its two sides (model
        adapter and rows each): the result is then ``{method: CurveChanges}``. ``groups`` is
        not used (curves are per feature).

    Returns
    -------
    dict of str to CurveChange
        One entry per feature, in the order asked (with sides: one :class:`CurveChanges` per
        method).

    Raises
    ------
    ValueError
        Neither ``model_b`` nor ``X_b``; different columns on the two sides; an unknown
        feature; a categorical feature with ``method="ale"``; fewer than 2 rows on a side; a
        model with several outputs and no ``target``; any bad parameter (the message names it).
    ModelEvaluationError
        If a model fails on the rows.

    References
    ----------
    .. [1] J. H. Friedman, "Greedy function approximation: a gradient boosting machine",
       Annals of Statistics 29(5), 2001.
    .. [2] D. W. Apley, J. Zhu, "Visualizing the effects of predictor variables in black box
       supervised learning models", JRSS B 82(4), 2020.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> out = curve_changes(lambda A: A[:, 0], X, lambda A: 3 * A[:, 0], features="x0",
    ...                     custom_values={"x0": [-1.0, 0.0, 1.0]}, random_state=0)
    >>> out["x0"].delta.round(6)
    array([-2.,  0.,  2.])
    """
    if _is_side(model_a):  # compare()'s call: (side_a, side_b, methods=..., paired=...)
        return _from_sides(model_a, X_a, methods=methods, features=features, paired=paired,
                           grid_resolution=grid_resolution, percentiles=percentiles,
                           min_bin_size=min_bin_size, confidence=confidence,
                           n_simulations=n_simulations, memory_budget=memory_budget,
                           random_state=random_state)
    opts = _check_opts(method, confidence, grid_resolution, min_bin_size, n_simulations,
                       percentiles, _OWNER)
    from .._validation import check_memory_budget

    opts["memory_budget"] = check_memory_budget(memory_budget, _OWNER)
    if custom_values is not None and not isinstance(custom_values, dict):
        raise param_error(_OWNER, "custom_values", "None or a dict {feature: values}",
                          custom_values, exc=TypeError)
    models = check_models(model_a, model_b, X_b, response_method, target, _OWNER)
    sides = pandas_sides(X_a, X_b, opts["memory_budget"], _OWNER)
    seed = root_seed(random_state, _OWNER)
    return curve_changes_on(sides, models, features, opts, custom_values, seed)


# ----------------------------------------------------------------------------------- compare()
class CurveChanges(dict):  # type: ignore[type-arg]
    """``{feature: CurveChange}`` of one method, with a JSON form (``to_dict``); ``skipped``
    lists the features left out and why (e.g. ALE without a common range)."""

    skipped: list[str] = []

    def to_dict(self) -> dict[str, Any]:
        """``{feature: CurveChange.to_dict()}``."""
        return {k: v.to_dict() for k, v in self.items()}


def _is_side(obj: Any) -> bool:
    """Whether ``obj`` is one of :func:`ixplain.compare`'s sides (a model adapter and rows)."""
    return isinstance(getattr(obj, "table", None), Table) and isinstance(
        getattr(obj, "model", None), Model)


def _from_sides(side_a: Any, side_b: Any, *, methods: Sequence[str] | None, features: Any,
                paired: bool | None, memory_budget: int, random_state: Any,
                **kw: Any) -> dict[str, CurveChanges]:
    """The curve changes of :func:`ixplain.compare`'s two sides, per method."""
    methods = list(methods or ["pd"])
    same = side_a.table is side_b.table if paired is None else bool(paired)
    ta, tb = side_a.table, side_b.table
    tables = {"a": ta, "b": ta if same else tb}
    sides = Sides(ta.take(np.arange(1)), ta if same else pooled_table(ta, tb),
                  lambda m, side: explain_rows(m, tables[side], memory_budget=memory_budget),
                  same, None if same else ta.n_rows, tables)
    seed = root_seed(random_state, _OWNER)
    out = {}
    for method in methods:
        opts = _check_opts(method, kw["confidence"], kw["grid_resolution"], kw["min_bin_size"],
                           kw["n_simulations"], kw["percentiles"], _OWNER)
        opts["memory_budget"] = memory_budget
        feats = features
        if method == "ale" and features is not None:  # compare() names every feature
            feats = [f for f in features if sides.pooled.schema.kind(str(f)) == "numeric"]
        skipped: list[str] = []
        out[method] = CurveChanges(curve_changes_on(sides, (side_a.model, side_b.model), feats,
                                                    opts, None, seed, skipped=skipped))
        out[method].skipped = skipped
    return out
