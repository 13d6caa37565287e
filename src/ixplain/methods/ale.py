"""Accumulated local effects (ALE): first-order curves and second-order (2-way) surfaces.

Partial dependence evaluates every row at every grid value, including combinations of feature
values that never occur when features are correlated. ALE [1]_ averages *local* differences of
the prediction, using only the rows whose value lies in a bin, and accumulates them.

The explanation function
------------------------
For feature ``j`` with grid ``z_0 < z_1 < ... < z_K`` a row ``x`` that falls in bin ``k`` gives

    ``lambda(x) = (k, f(x with x_j := z_k) - f(x with x_j := z_{k-1}))``

(:func:`local_differences`, all rows of a chunk in one model call of ``2 B`` rows). The static
ALE aggregates it per bin: the per-bin (weighted) mean ``Delta_k`` of the differences, from
per-bin sums of the moments of :func:`row_moments` (so chunks, partitions and streams combine
by addition or smoothing). The uncentred curve is ``g(z_0) = 0``, ``g(z_k) = sum_{m <= k}
Delta_m``; the reported curve is centred so that its mean over the data is 0.

Which rows fall in which bin (the three feature kinds)
------------------------------------------------------
``"numeric"``
    Bins ``[z_0, z_1], (z_1, z_2], ..., (z_{K-1}, z_K]`` between quantile edges (the edges are
    data values: ``numpy.quantile(..., method="lower")`` at ``K + 1`` equally spaced
    probabilities, weighted quantiles with ``sample_weight``; duplicates removed). ``K`` is at
    most ``grid_resolution`` and at most ``n_rows // min_bin_size``; bins left with fewer than
    ``min_bin_size`` rows (ties) are merged into a neighbour. Centring as Apley's ``ALEPlot``
    (and PyALE): ``g`` is taken linear within a bin, so the constant removed is
    ``sum_k w_k (g(z_{k-1}) + g(z_k)) / 2`` with ``w_k`` the share of the rows (weights) in bin
    ``k``.
``"discrete"``
    A numeric feature with at most ``grid_resolution + 1`` distinct values, each held by at
    least ``min_bin_size`` rows (otherwise it gets quantile bins, whose edges are then among
    its values, so ``min_bin_size`` always holds): the grid is its levels and a row at level ``k >= 1`` gives the jump from level ``k - 1`` to ``k`` (rows at
    the lowest level give none). Centring: ``sum_k w_k g(z_k)``, ``w_k`` the share at level
    ``k`` (the exact mean of the curve over the rows).
``"categorical"``
    As ``"discrete"`` on an ordering of the levels: the categories' order for an ordered
    pandas Categorical; otherwise (``categorical_order="auto"``) Apley's: levels are placed by
    a one-dimensional classical scaling of the distance ``sum over the other features of the
    Kolmogorov-Smirnov distance (numeric) or total-variation distance (categorical) between
    the level's conditional distributions``, so similar levels are neighbours (ties and the
    sign are resolved towards the sorted order); ``"sorted"`` keeps the sorted levels.

A datetime feature (numpy ``datetime64``, pandas datetime with or without a time zone, or
objects that are all datetimes; durations, ``timedelta64``, alike) is numeric in time order: it is binned on the integer ticks of
its unit (UTC instants for a time zone) by the rules above, the model receives datetimes of the
column's own type at the edges, and ``grid_values`` holds datetimes (``IncrementalALE`` refuses
a datetime feature with the conversion to use).

Missing values are their own case: a row whose value of an explained feature is missing has no
position on the axis, so it enters no bin and not the centring; ``n_missing`` counts it
(``missing="raise"`` refuses such rows instead). Effects are never NaN because of a missing
value. Every row is used: nothing is subsampled.

The band
--------
Given the edges and the bin counts, the ``Delta_k`` are independent means, so the variance of
the centred curve accumulates along it: with ``ale = A @ Delta`` (``A`` the accumulation
followed by the centring), ``Var(ale) = (A * A) @ Var(Delta)`` with ``Var(Delta_k) = sum_i
w_i^2 (d_i - Delta_k)^2 / W_k^2 * n_k / (n_k - 1)`` over the rows of bin ``k``. (A per-bin
interval put around the accumulated value, as PyALE draws, is several times too narrow.)

Second order
------------
For two numeric features the row in cell ``(k, m)`` gives the second difference
``f(z_k, u_m) - f(z_{k-1}, u_m) - f(z_k, u_{m-1}) + f(z_{k-1}, u_{m-1})``; cell means (an empty
cell takes the mean of the nearest non-empty cell, in bin-index units scaled to [0, 1]) are
accumulated over both axes, the two main effects of the accumulated surface are removed and the
result is centred, as in Apley's ``ALEPlot``.

References
----------
.. [1] D. W. Apley, J. Zhu, "Visualizing the effects of predictor variables in black box
   supervised learning models", Journal of the Royal Statistical Society B 82(4), 2020.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numeric import moment_shift, power_scaled
from .._validation import (
    check_2d,
    check_feature_names,
    check_int,
    check_memory_budget,
    check_options,
    check_sample_weight,
    param_error,
)
from ..grids import _sorted_levels, feature_deciles
from ..models import DEFAULT_MEMORY_BUDGET, Model, as_model, rows_for_budget
from ..results.ale import AccumulatedLocalEffects
from ..tabular import Table, UnsupportedInputError, as_table
from ._engine import Explained, Method, RowBatch, register
from .pdp import effect_model

__all__ = ["ALEFunction", "accumulated_local_effects", "local_differences", "row_moments"]

_OWNER = "accumulated_local_effects"
_RESPONSES = ("auto", "predict", "predict_proba", "decision_function")
#: Above this many levels a categorical feature is sorted, not ordered by similarity (the
#: distances compare every pair of levels; 400 levels took 8.5 s on 5,000 rows).
MAX_SIMILARITY_LEVELS = 100
#: Number of per-row moments (see :func:`row_moments`).
N_MOMENTS = 6


# ------------------------------------------------------------------------------ feature bins
@dataclass
class FeatureBins:
    """How the rows of one feature are binned (internal).

    Attributes
    ----------
    name : str
    kind : {"numeric", "discrete", "categorical"}
    grid : ndarray of shape (K + 1,)
        Edges (numeric) or ordered levels.
    bins : ndarray of int of shape (n_rows,)
        Bin ``0..K-1`` of each row (bin ``k`` ends at ``grid[k + 1]``); ``-1`` for a row that
        gives no difference (missing, outside custom edges, lowest level).
    position : ndarray of int of shape (n_rows,)
        Index of the row's bin (numeric) or level (discrete, categorical) for the centring
        weights; ``-1`` for missing / outside rows.
    rule : str
    n_missing, n_outside : int
    """

    name: str
    kind: str
    grid: np.ndarray
    bins: np.ndarray
    position: np.ndarray
    rule: str
    n_missing: int = 0
    n_outside: int = 0

    @property
    def n_bins(self) -> int:
        """Number of differences ``K`` (bins, or jumps between levels)."""
        return len(self.grid) - 1


def _weighted_lower_quantiles(xs: np.ndarray, w: np.ndarray | None, probs: np.ndarray) -> np.ndarray:
    """Data values at ``probs`` of sorted ``xs``: ``numpy.quantile(method="lower")`` without
    weights, the inverted weighted CDF with weights (``w`` in the order of ``xs``)."""
    if w is None:
        return xs[np.floor(probs * (len(xs) - 1) + 1e-9).astype(np.intp)]
    cw = np.cumsum(w)
    idx = np.searchsorted(cw, probs * cw[-1], side="left")
    return xs[np.clip(idx, 0, len(xs) - 1)]


def _interval_counts(xs: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Rows of sorted ``xs`` in ``[z_0, z_1], (z_1, z_2], ...``."""
    cum = np.searchsorted(xs, edges, side="right")
    counts = np.diff(cum)
    counts[0] += cum[0] - np.searchsorted(xs, edges[0], side="left")
    return counts


def _merge_small_bins(xs: np.ndarray, edges: np.ndarray, min_bin_size: int) -> np.ndarray:
    """Remove edges until every bin holds ``min_bin_size`` rows (or one bin is left)."""
    edges = np.asarray(edges)
    while len(edges) > 2:
        counts = _interval_counts(xs, edges)
        small = np.flatnonzero(counts < min_bin_size)
        if len(small) == 0:
            break
        k = int(small[0])
        if k == len(counts) - 1:
            drop = k  # the last bin joins its left neighbour
        elif k == 0:
            drop = 1
        else:  # join the smaller neighbour
            drop = k if counts[k - 1] <= counts[k + 1] else k + 1
        edges = np.delete(edges, drop)
    return edges


def quantile_edges(
    x: np.ndarray, w: np.ndarray | None, grid_resolution: int, min_bin_size: int
) -> np.ndarray:
    """Quantile bin edges of the non-missing values ``x`` (see the module docstring).

    Parameters
    ----------
    x : ndarray of shape (n,)
        Finite values.
    w : ndarray of shape (n,) or None
        Weights of the quantiles.
    grid_resolution : int
        Largest number of bins.
    min_bin_size : int
        Smallest number of rows per bin.

    Returns
    -------
    ndarray of shape (K + 1,)
        Increasing edges (a single value for a constant feature).

    Examples
    --------
    >>> quantile_edges(np.arange(10.0), None, 3, 1)
    array([0., 3., 6., 9.])
    >>> quantile_edges(np.arange(10.0), None, 3, 4)
    array([0., 4., 9.])
    """
    if w is None:
        return _sorted_quantile_edges(np.sort(x), None, grid_resolution, min_bin_size)
    order = np.argsort(x, kind="stable")
    return _sorted_quantile_edges(x[order], w[order], grid_resolution, min_bin_size)


def _sorted_quantile_edges(
    xs: np.ndarray, w: np.ndarray | None, grid_resolution: int, min_bin_size: int
) -> np.ndarray:
    """:func:`quantile_edges` of sorted values ``xs`` (weights ``w`` in their order)."""
    n_bins = max(1, min(grid_resolution, len(xs) // max(1, min_bin_size)))
    probs = np.linspace(0.0, 1.0, n_bins + 1)
    edges = np.unique(_weighted_lower_quantiles(xs, w, probs))
    edges[0], edges[-1] = xs[0], xs[-1]
    return _merge_small_bins(xs, np.unique(edges), min_bin_size)


def _interval_bins(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin ``0..K-1`` of each value (``[z_0, z_1]`` is bin 0); ``-1`` for NaN or outside."""
    k = np.searchsorted(edges, x, side="left") - 1
    k[x == edges[0]] = 0
    outside = ~np.isfinite(x) | (x < edges[0]) | (x > edges[-1])
    k[outside] = -1
    return k


def _numeric_bins(
    table: Table, name: str, w: np.ndarray | None, grid_resolution: int, min_bin_size: int,
    custom: Any, interval_only: bool,
) -> FeatureBins:
    time = _time_axis(table.column(name), name)
    if time is not None:  # in time order, on integer ticks of the column's unit
        if custom is not None:
            custom = time.ticks_of(custom, name)
            if len(custom) < 2 or not np.all(np.diff(custom) > 0):
                raise ValueError(f"The 'custom_edges' parameter of {_OWNER} must give at least "
                                 f"2 strictly increasing datetimes for {name!r}.")
        fb = _value_bins(name, time.ticks, time.missing, w, grid_resolution, min_bin_size,
                         custom, interval_only, True)
        fb.grid = time.values(fb.grid)
        return fb
    x = table.numeric_column(name)
    fb = _value_bins(name, x, ~np.isfinite(x), w, grid_resolution, min_bin_size, custom,
                     interval_only, _is_int_column(table, name))
    return fb


def _value_bins(
    name: str, x: np.ndarray, missing: np.ndarray, w: np.ndarray | None, grid_resolution: int,
    min_bin_size: int, custom: Any, interval_only: bool, integer: bool,
) -> FeatureBins:
    """Bins of the values ``x`` (float, or int64 ticks of a datetime) where not ``missing``
    (NaN, +-inf, NaT: counted, never binned)."""
    present = x[~missing]
    if len(present) == 0:
        raise ValueError(f"{_OWNER}: feature {name!r} has no non-missing value.")
    if custom is not None:
        edges, rule = custom, "custom"
    else:
        order = np.argsort(present, kind="stable") if w is not None else None
        xs = np.sort(present) if order is None else present[order]
        starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])  # xs is sorted
        if not interval_only and len(starts) <= grid_resolution + 1 and (
                np.diff(np.r_[starts, len(xs)]).min() >= min_bin_size or len(starts) == 1):
            return _discrete_bins(name, x, xs[starts], missing, integer)
        if len(xs) < min_bin_size:
            raise ValueError(
                f"{_OWNER}: feature {name!r} has {len(xs)} non-missing values, fewer than "
                f"min_bin_size={min_bin_size} (the smallest number of rows per bin); pass a "
                "smaller min_bin_size or custom_edges."
            )
        ws = None if w is None or order is None else w[~missing][order]
        edges = _sorted_quantile_edges(xs, ws, grid_resolution, min_bin_size)
        rule = "quantile"
        if len(edges) < 2:
            return _discrete_bins(name, x, edges, missing, integer)
    bins = _interval_bins(x, edges)
    bins[missing] = -1
    n_outside = int(((bins < 0) & ~missing).sum())
    grid = _as_int_if_integral(edges) if integer and edges.dtype.kind == "f" else edges
    return FeatureBins(name, "numeric", grid, bins, bins.copy(), rule, int(missing.sum()), n_outside)


def _discrete_bins(name: str, x: np.ndarray, levels: np.ndarray, missing: np.ndarray,
                   integer: bool) -> FeatureBins:
    if x.dtype.kind == "f":
        return _level_bins(name, "discrete", x, levels, missing, "levels")
    position = np.where(missing, -1, np.searchsorted(levels, x))  # int ticks: exact levels
    bins = np.where(position >= 1, position - 1, -1)
    return FeatureBins(name, "discrete", levels, bins, position, "levels", int(missing.sum()), 0)


@dataclass
class _TimeAxis:
    """A datetime column as int64 ticks of its unit (UTC for a time zone) and back."""

    ticks: np.ndarray
    missing: np.ndarray
    unit: np.dtype
    tz: Any
    kind: str  # "numpy", "pandas" (a DatetimeArray) or "object" (datetime objects)

    def values(self, ticks: Any) -> Any:
        """Ticks as values the column holds (for the model and ``grid_values``)."""
        import pandas as pd

        naive = np.asarray(ticks, dtype=np.int64).view(self.unit)
        if self.kind == "numpy":
            return naive
        idx = pd.Index(naive)  # a DatetimeIndex, or a TimedeltaIndex for durations
        if self.tz is not None:
            idx = pd.DatetimeIndex(idx).tz_localize("UTC").tz_convert(self.tz)
        return idx.array if self.kind == "pandas" else np.asarray(idx.astype(object))

    def ticks_of(self, values: Any, name: str) -> np.ndarray:
        """Ticks of user datetimes (``custom_edges``); naive ones are in the column's zone."""
        import warnings

        import pandas as pd

        try:
            with warnings.catch_warnings():  # pandas' format guess: the error below says it
                warnings.simplefilter("ignore", UserWarning)
                raw = np.asarray(values, dtype=object)
                if self.unit.kind == "m":  # durations
                    return np.asarray(pd.to_timedelta(raw), dtype=self.unit).view(np.int64)
                idx = pd.DatetimeIndex(pd.to_datetime(raw))
            if self.tz is not None:
                idx = idx.tz_localize(self.tz) if idx.tz is None else idx
                idx = idx.tz_convert("UTC").tz_localize(None)
            elif idx.tz is not None:
                raise ValueError("time-zone-aware edges for a column without a time zone")
            return np.asarray(idx, dtype=self.unit).view(np.int64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"The 'custom_edges' parameter of {_OWNER} must give datetimes for the datetime "
                f"feature {name!r} ({exc}). Got {values!r} instead.") from None


def is_datetime(table: Table, name: str) -> bool:
    """Whether feature ``name`` holds datetimes or durations (ALE bins them in time order)."""
    col = table.column(name)
    if isinstance(col, np.ndarray) and col.dtype.kind not in "MmO":
        return False
    return _time_axis(col, name) is not None


def _time_axis(col: Any, name: str) -> _TimeAxis | None:
    """The :class:`_TimeAxis` of a datetime column (numpy datetime64, pandas datetime with or
    without a time zone, objects that are all datetimes); ``None`` for any other column."""
    import pandas as pd

    if isinstance(col, np.ndarray) and col.dtype.kind in "Mm":
        return _TimeAxis(col.view(np.int64), np.isnat(col), col.dtype, None, "numpy")
    kind = "pandas"
    if isinstance(col, np.ndarray) and col.dtype == object:
        inferred = pd.api.types.infer_dtype(col, skipna=True) if len(col) else ""
        if inferred in ("timedelta", "timedelta64"):
            naive = np.asarray(pd.to_timedelta(col))
            return _TimeAxis(naive.view(np.int64), np.isnat(naive), naive.dtype, None, "object")
        if inferred not in ("datetime", "datetime64"):
            return None
        try:
            col = pd.DatetimeIndex(pd.to_datetime(col)).array
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{_OWNER}: feature {name!r} holds datetimes that do not share one "
                             f"time zone ({exc}); convert them to one time zone first.") from None
        kind = "object"
    if not isinstance(col, pd.api.extensions.ExtensionArray) or col.dtype.kind not in "Mm":
        return None
    if col.dtype.kind == "m":
        naive = np.asarray(col)
        return _TimeAxis(naive.view(np.int64), np.isnat(naive), naive.dtype, None, "pandas")
    tz = getattr(col.dtype, "tz", None)
    utc = pd.DatetimeIndex(col)
    naive = np.asarray(utc.tz_convert("UTC").tz_localize(None) if tz is not None else utc)
    return _TimeAxis(naive.view(np.int64), np.isnat(naive), naive.dtype, tz, kind)


def _is_int_column(table: Table, name: str) -> bool:
    col = table.column(name)
    return isinstance(col, np.ndarray) and col.dtype.kind in "iu"


def _as_int_if_integral(edges: np.ndarray) -> np.ndarray:
    if np.all(np.asarray(edges) == np.round(edges)):
        return np.asarray(edges).astype(np.int64)
    return np.asarray(edges)


def _level_bins(
    name: str, kind: str, x: Any, levels: np.ndarray, missing: np.ndarray, rule: str
) -> FeatureBins:
    """Rows at level ``k >= 1`` give jump ``k - 1``; rows at level 0 give none."""
    position = np.full(len(missing), -1, dtype=np.intp)
    lookup = {_key(v): i for i, v in enumerate(levels)}
    vals = np.asarray(x, dtype=object)
    for i in np.flatnonzero(~missing):
        position[i] = lookup[_key(vals[i])]
    bins = np.where(position >= 1, position - 1, -1)
    grid = levels
    if kind == "discrete":
        grid = _as_int_if_integral(np.asarray(levels, dtype=np.float64))
    return FeatureBins(name, kind, grid, bins, position, rule, int(missing.sum()), 0)


def _key(v: Any) -> Any:
    if isinstance(v, (float, np.floating, int, np.integer)) and not isinstance(v, bool):
        return float(v)
    return v


def _categorical_bins(table: Table, name: str, order: str) -> FeatureBins:
    import pandas as pd

    col = table.column(name)
    missing = np.asarray(pd.isna(col), dtype=bool)
    if missing.all():
        raise ValueError(f"{_OWNER}: feature {name!r} has no non-missing value.")
    values = np.asarray(col, dtype=object)
    levels = np.asarray(_sorted_levels(values[~missing]), dtype=object)
    dtype = table.schema.dtypes[table.schema.index(name)]
    if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:
        rank = {c: i for i, c in enumerate(dtype.categories)}
        levels = np.asarray(sorted(levels, key=lambda v: rank[v]), dtype=object)
        rule = "ordered"
    elif order == "auto" and 2 < len(levels) <= MAX_SIMILARITY_LEVELS:
        levels, rule = levels[similarity_order(table, name, levels, values, missing)], "similarity"
    else:
        if order == "auto" and len(levels) > MAX_SIMILARITY_LEVELS:
            import warnings

            warnings.warn(
                f"{_OWNER}: feature {name!r} has {len(levels)} levels; the similarity order "
                f"compares every pair of levels (more than {MAX_SIMILARITY_LEVELS} levels: "
                "minutes to hours), so the sorted order is used. Pass "
                "categorical_order='sorted', or group rare levels, to silence this.",
                UserWarning, stacklevel=4)
        rule = "sorted"
    return _level_bins(name, "categorical", values, levels, missing, rule)


# ------------------------------------------------------------------------ categorical order
def _ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Kolmogorov-Smirnov distance between the empirical distributions of ``a`` and ``b``."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / len(a)
    fb = np.searchsorted(b, grid, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


def _level_distances(table: Table, name: str, levels: np.ndarray, values: np.ndarray,
                     missing: np.ndarray) -> np.ndarray:
    """Sum over the other features of the distance between the levels' conditional laws."""
    import pandas as pd

    L = len(levels)
    masks = [(values == lv) & ~missing for lv in levels]
    D = np.zeros((L, L))
    for other in table.names:
        if other == name:
            continue
        time = _time_axis(table.column(other), other)
        if table.schema.kind(other) == "numeric" or time is not None:  # datetimes: in time
            x = table.numeric_column(other) if time is None else np.where(
                time.missing, np.nan, time.ticks.astype(np.float64))
            groups = [x[m & ~np.isnan(x)] for m in masks]
            for i in range(L):
                for j in range(i + 1, L):
                    if len(groups[i]) and len(groups[j]):
                        D[i, j] += _ks_distance(groups[i], groups[j])
        else:
            codes, _ = pd.factorize(np.asarray(table.column(other), dtype=object))
            freq = np.stack([np.bincount(codes[m] + 1, minlength=codes.max() + 2) / max(1, m.sum())
                             for m in masks])
            D += 0.5 * np.abs(freq[:, None, :] - freq[None, :, :]).sum(axis=2) * np.triu(
                np.ones((L, L)), 1)
    return D + D.T


def similarity_order(
    table: Table, name: str, levels: np.ndarray, values: np.ndarray, missing: np.ndarray
) -> np.ndarray:
    """Order of ``levels`` by a 1-D classical scaling of their distances (Apley & Zhu, 5.2).

    Returns
    -------
    ndarray of int of shape (n_levels,)
        A permutation of ``range(n_levels)``; the sign of the scaling is chosen so that the
        first sorted level comes no later than the last one.
    """
    D = _level_distances(table, name, levels, values, missing)
    L = len(levels)
    J = np.eye(L) - np.ones((L, L)) / L
    B = -0.5 * J @ (D**2) @ J
    vals, vecs = np.linalg.eigh(B)
    coord = vecs[:, -1] * np.sqrt(max(vals[-1], 0.0))
    if coord[0] > coord[-1]:
        coord = -coord
    return np.lexsort((np.arange(L), np.round(coord, 12)))


# ------------------------------------------------------------------------ the explanation function
@dataclass
class _Evaluator:
    """Sets features of some rows to given values and predicts, in one stacked model call."""

    model: Model
    table: Table
    array: np.ndarray | None
    batch_rows: int
    owner: str = _OWNER

    @classmethod
    def build(cls, model: Model, table: Table, memory_budget: int,
              owner: str = _OWNER) -> _Evaluator:
        array = None
        dtype = table.schema.array_dtype
        if (
            table.schema.source == "numpy" and model.native_kind(table) == "numpy"
            and dtype is not None and np.dtype(dtype).kind == "f"
        ):
            array = np.asarray(table.to_native("numpy"))
        return cls(model, table, array, rows_for_budget(len(table.names), memory_budget), owner)

    def predict(self, rows: np.ndarray, settings: Sequence[dict[str, np.ndarray]]) -> np.ndarray:
        """Predictions of shape (len(settings), len(rows), n_outputs)."""
        B, P = len(rows), len(settings)
        if self.array is not None:
            big = np.tile(self.array[rows], (P, 1))
            for p, setting in enumerate(settings):
                for name, vals in setting.items():
                    big[p * B:(p + 1) * B, self.table.schema.index(name)] = vals
            out = self.model.predict_array(big, batch_rows=self.batch_rows)
        else:
            stacked = self.table.take(np.tile(rows, P))
            for name in settings[0]:
                vals = _concat([s[name] for s in settings])
                if self.table.schema.kind(name) == "numeric":
                    vals = vals.astype(np.float64)
                    if np.all(vals == np.round(vals)) and _is_int_column(self.table, name):
                        vals = vals.astype(np.int64)
                stacked = stacked.set_column(name, vals)
            out = self.model.predict(stacked, batch_rows=self.batch_rows)
        return _as_float(out, self.model, self.owner).reshape(P, B, -1)


def _concat(parts: list[Any]) -> Any:
    """Values of several settings of one feature, stacked in their own type (datetimes stay
    datetimes; mixed or object values become an object array)."""
    if all(isinstance(p, np.ndarray) for p in parts) and len({p.dtype for p in parts}) == 1:
        return np.concatenate(parts)
    if all(type(p) is type(parts[0]) for p in parts) and hasattr(parts[0], "_concat_same_type"):
        return type(parts[0])._concat_same_type(parts)
    return np.concatenate([np.asarray(p, dtype=object) for p in parts])


def _as_float(out: np.ndarray, model: Model, owner: str = _OWNER) -> np.ndarray:
    try:
        return np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}: {model.describe()} returned non-numeric values (e.g. "
            f"{np.ravel(out)[:3]!r}); ALE averages differences of the model output. For a "
            "classifier use response_method='predict_proba' or 'decision_function'."
        ) from None


def local_differences(
    evaluate: Any, rows: np.ndarray, corners: Sequence[tuple[str, np.ndarray, np.ndarray]]
) -> np.ndarray:
    """The ALE explanation function's value on a batch of rows: their local differences.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(rows, settings) -> (len(settings), B, n_outputs)`` predictions with each
        setting's ``{feature: values}`` written into the rows.
    rows : ndarray of int of shape (B,)
        Rows of the data being explained.
    corners : sequence of (name, lower, upper)
        One entry per feature (1 or 2), with the lower and upper edge of each row's bin,
        ``lower`` and ``upper`` of shape (B,).

    Returns
    -------
    ndarray of shape (B, n_outputs)
        ``f(upper) - f(lower)`` (1 feature) or the second difference
        ``f(u, u) - f(l, u) - f(u, l) + f(l, l)`` (2 features).
    """
    if len(corners) == 1:
        name, lo, hi = corners[0]
        out = evaluate(rows, [{name: lo}, {name: hi}])
        # inf - inf, or finite outputs that overflow when subtracted: refused or skipped by
        # the caller
        with np.errstate(invalid="ignore", over="ignore"):
            return out[1] - out[0]
    (a, alo, ahi), (b, blo, bhi) = corners
    out = evaluate(rows, [{a: alo, b: blo}, {a: ahi, b: blo}, {a: alo, b: bhi}, {a: ahi, b: bhi}])
    with np.errstate(invalid="ignore", over="ignore"):
        return out[3] - out[1] - out[2] + out[0]


def row_moments(diffs: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Per-row moments whose per-bin sums give the bin mean and its variance.

    Parameters
    ----------
    diffs : ndarray of shape (B, n_outputs)
    weights : ndarray of shape (B,), optional
        Row weights (default 1).

    Returns
    -------
    ndarray of shape (B, 6, n_outputs)
        ``[w, w d, w^2 d^2, w^2 d, w^2, 1]`` for each row (see :func:`bin_statistics`).
    """
    w = np.ones(len(diffs)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w[:, None]
    w2 = w * w
    ones = np.ones_like(diffs)
    return np.stack([w * ones, w * diffs, w2 * diffs * diffs, w2 * diffs, w2 * ones, ones], axis=1)


def bin_statistics(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-bin mean, variance of the mean and row count from summed :func:`row_moments`.

    Parameters
    ----------
    sums : ndarray of shape (6, n_outputs, *bin_shape)

    Returns
    -------
    mean, var : ndarray of shape (n_outputs, *bin_shape)
        NaN mean for an empty bin; NaN variance for a bin with fewer than two rows.
    count : ndarray of shape bin_shape
    """
    W, S, Q2, S2, W2, N = sums
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = S / W
        ss = np.maximum(Q2 - 2 * mean * S2 + mean * mean * W2, 0.0)
        var = ss / (W * W) * N / (N - 1)
    var = np.where(N >= 2, var, np.nan)
    return mean, var, N[0]


def _bin_sums(bins: np.ndarray, moments: np.ndarray, n_cells: int) -> np.ndarray:
    """Sum ``moments`` (B, 6, n_out) by bin into (6, n_out, n_cells); rows with bin -1 ignored."""
    if bins.min(initial=0) < 0:
        keep = bins >= 0
        bins, moments = bins[keep], moments[keep]
    b, m = bins, moments
    out = np.empty((m.shape[1], m.shape[2], n_cells))
    for i in range(m.shape[1]):
        for o in range(m.shape[2]):
            out[i, o] = np.bincount(b, weights=m[:, i, o], minlength=n_cells)
    return out


# ------------------------------------------------------------------------ accumulation
def accumulation_matrix(kind: str, weights: np.ndarray) -> np.ndarray:
    """``A`` of shape (K + 1, K) with ``centred ALE = A @ Delta`` (module docstring).

    Parameters
    ----------
    kind : {"numeric", "discrete", "categorical"}
    weights : ndarray
        Rows (weights) per bin, shape (K,), for ``"numeric"``; per level, shape (K + 1,),
        otherwise.

    Examples
    --------
    >>> accumulation_matrix("discrete", np.array([1.0, 1.0]))
    array([[-0.5],
           [ 0.5]])
    """
    K = len(weights) - (0 if kind == "numeric" else 1)
    L = np.tril(np.ones((K + 1, K)), -1)
    omega = np.asarray(weights, dtype=np.float64) / np.sum(weights)
    if kind == "numeric":
        a = omega @ ((L[:-1] + L[1:]) / 2)
    else:
        a = omega @ L
    return L - a[None, :]


def accumulated_std(var: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Standard error of ``Delta @ A.T`` from per-bin variances ``var`` (n_outputs, K).

    A bin with an unknown variance (NaN: fewer than two rows) makes every point whose value
    depends on it (``A[:, k] != 0``) NaN; the other points keep their standard error.
    """
    A2 = (A * A).T
    unknown = np.isnan(var)
    std = np.sqrt(np.where(unknown, 0.0, var) @ A2)
    if unknown.any():
        std[(unknown.astype(np.float64) @ A2) > 0] = np.nan
    return std


def _first_order(fb: FeatureBins, sums: np.ndarray, level_w: np.ndarray) -> tuple[np.ndarray, ...]:
    mean, var, count = bin_statistics(sums)
    mean = _fill_empty_1d(mean)
    A = accumulation_matrix(fb.kind, level_w)
    return mean @ A.T, accumulated_std(var, A), count


def _fill_empty_1d(mean: np.ndarray) -> np.ndarray:
    """An empty bin (possible with custom edges) takes the mean of the nearest non-empty bin."""
    if not np.isnan(mean).any():
        return mean
    ok = np.flatnonzero(~np.isnan(mean[0]))
    if len(ok) == 0:
        return np.zeros_like(mean)
    idx = np.arange(mean.shape[1])
    nearest = ok[np.abs(idx[:, None] - ok[None, :]).argmin(axis=1)]
    return mean[:, nearest]


def _fill_empty_2d(mean: np.ndarray) -> np.ndarray:
    """Empty cells take the mean of the nearest non-empty cell (indices scaled to [0, 1])."""
    empty = np.isnan(mean[0])
    if not empty.any():
        return mean
    K1, K2 = empty.shape
    ii, jj = np.meshgrid(np.arange(K1) / max(1, K1 - 1), np.arange(K2) / max(1, K2 - 1),
                         indexing="ij")
    ok = np.flatnonzero(~empty.ravel())
    if len(ok) == 0:
        return np.zeros_like(mean)
    pts = np.c_[ii.ravel(), jj.ravel()]
    d = ((pts[:, None, :] - pts[None, ok, :]) ** 2).sum(axis=2)
    nearest = ok[d.argmin(axis=1)]
    flat = mean.reshape(mean.shape[0], -1)
    return flat[:, nearest].reshape(mean.shape)


def second_order_surface(delta: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Accumulate cell means, remove the main effects and centre (Apley's ``ALEPlot``).

    Parameters
    ----------
    delta : ndarray of shape (n_outputs, K1, K2)
        Mean second difference per cell (no NaN).
    counts : ndarray of shape (K1, K2)
        Rows (weights) per cell.

    Returns
    -------
    ndarray of shape (n_outputs, K1 + 1, K2 + 1)
    """
    n_out, K1, K2 = delta.shape
    h = np.zeros((n_out, K1 + 1, K2 + 1))
    h[:, 1:, 1:] = np.cumsum(np.cumsum(delta, axis=1), axis=2)
    c = np.asarray(counts, dtype=np.float64)
    # main effect along the first feature: its differences averaged over the second's bins
    d1 = h[:, 1:, :] - h[:, :-1, :]
    avg1 = ((d1[:, :, 1:] + d1[:, :, :-1]) / 2 * c).sum(axis=2) / np.maximum(c.sum(axis=1), 1e-300)
    f1 = np.concatenate([np.zeros((n_out, 1)), np.cumsum(avg1, axis=1)], axis=1)
    d2 = h[:, :, 1:] - h[:, :, :-1]
    avg2 = ((d2[:, 1:, :] + d2[:, :-1, :]) / 2 * c).sum(axis=1) / np.maximum(c.sum(axis=0), 1e-300)
    f2 = np.concatenate([np.zeros((n_out, 1)), np.cumsum(avg2, axis=1)], axis=1)
    h = h - f1[:, :, None] - f2[:, None, :]
    corners = (h[:, 1:, 1:] + h[:, :-1, 1:] + h[:, 1:, :-1] + h[:, :-1, :-1]) / 4
    return h - ((corners * c).sum(axis=(1, 2)) / c.sum())[:, None, None]


# ------------------------------------------------------------------------ the engine method
@register
class ALEFunction(Method):
    """The ALE explanation function of a numeric feature on fixed edges, for the engine.

    ``explain`` returns each row's :func:`row_moments` placed in its bin: values of shape
    ``(B, 6, n_outputs, K)``, zero outside the row's bin. Their mean over rows times the number
    of rows is the per-bin sums the static ALE is made of, so every engine driver gives the
    ALE: :func:`~ixplain.methods._engine.explain_rows` (static), ``ixplain.dask.explain``
    (Dask) and :class:`~ixplain.IncrementalALE` (streams). :func:`accumulated_local_effects`
    sums the same moments by bin directly (``numpy.bincount``): the dense per-row layout the
    engine's mean needs costs ``K`` times the memory traffic, measured 7-30x slower at 200,000
    rows than the per-bin sums (which run within 3x of the ``2 n``-prediction floor). With a
    driver's ``sample_weight`` the bin means are the weighted means and the band reads the
    weights as frequencies (``accumulated_local_effects`` uses the sandwich variance instead).

    Parameters
    ----------
    model : Model
        The adapter (:func:`ixplain.as_model`).
    feature : str
    edges : ndarray of shape (K + 1,)
        Strictly increasing edges.
    outside : {"exclude", "clip"}, default="exclude"
        A row outside the edges (or missing) gives zeros (``"exclude"``, as the static ALE)
        or counts in the nearest outer bin (``"clip"``, as the stream before a re-grid).
    owner : str, default="accumulated_local_effects"
        The name error messages start with.
    shift : int or None, default=0
        The differences are multiplied by ``2**shift`` (exact) before their moments are
        formed, so that effects near the float limits (1e300: their squares overflow; 1e-300:
        they underflow) keep finite, non-zero moments; the caller divides back. None: chosen
        at the first batch with a non-zero finite difference (0 for differences within
        ``2**-128 .. 2**128``, else the power of two that brings the largest into [0.5, 1))
        and kept in :attr:`shift` (:class:`~ixplain.IncrementalALE`).

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain.methods._engine import explain_rows
    >>> from ixplain.models import as_model
    >>> from ixplain.tabular import as_table
    >>> X = np.c_[np.linspace(0, 1, 11), np.ones(11)]
    >>> method = ALEFunction(as_model(lambda A: A[:, 0] ** 2), "x0", np.array([0, 0.5, 1]))
    >>> method.result(explain_rows(method, as_table(X))).average.round(3)
    array([[-0.352, -0.102,  0.648]])
    """

    name = "ale"

    def __init__(self, model: Model, feature: str, edges: np.ndarray,
                 outside: str = "exclude", owner: str = _OWNER, shift: int | None = 0) -> None:
        self.model, self.feature, self.owner = model, feature, owner
        self.edges = np.asarray(edges, dtype=np.float64)
        self.outside = outside
        self.shift = shift

    def rows_per_observation(self, table: Table) -> int:
        return 2

    def bins(self, x: np.ndarray) -> np.ndarray:
        """Bin of each value (``-1``: excluded)."""
        if self.outside == "clip":
            clipped = np.clip(x, self.edges[0], self.edges[-1])
            return np.clip(_interval_bins(clipped, self.edges), 0, len(self.edges) - 2)
        return _interval_bins(x, self.edges)

    def explain(self, batch: RowBatch) -> np.ndarray:
        b = self.bins(batch.X.numeric_column(self.feature))
        rows = np.flatnonzero(b >= 0)
        ev = _Evaluator.build(self.model, batch.X, DEFAULT_MEMORY_BUDGET, self.owner)
        probe = rows if len(rows) else np.zeros(1, dtype=np.intp)  # none inside: zeros, but
        lo, hi = self.edges[np.maximum(b[probe], 0)], self.edges[np.maximum(b[probe], 0) + 1]
        diffs = local_differences(ev.predict, probe, [(self.feature, lo, hi)])  # the outputs
        if self.shift is None:
            self.shift = moment_shift(diffs[:len(rows)])
        diffs = power_scaled(diffs, self.shift)  # (beyond the range: inf, a skipped row)
        moments = row_moments(diffs)[:len(rows)]
        out = np.zeros((batch.n_rows,) + moments.shape[1:] + (len(self.edges) - 1,))
        out[rows, :, :, b[rows]] = moments
        return out

    def result(self, explained: Explained) -> AccumulatedLocalEffects:
        sums = explained.mean.get() * explained.mean.weight_sum
        return ale_from_sums(self.feature, self.edges, sums, rule="custom")

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(300, 3))
        model = as_model(lambda A: np.sin(A[:, 0]) * A[:, 1] + A[:, 2], input_kind="numpy")
        return cls(model, "x0", np.linspace(-2, 2, 9)), X, np.zeros(300)


def ale_from_sums(feature: str, edges: np.ndarray, sums: np.ndarray, rule: str = "custom",
                  **fields: Any) -> AccumulatedLocalEffects:
    """A numeric first-order :class:`~ixplain.results.AccumulatedLocalEffects` from per-bin
    sums of :func:`row_moments` (shape (6, n_outputs, K)); ``fields`` fill the rest."""
    mean, var, count = bin_statistics(sums)
    mean = _fill_empty_1d(mean)
    A = accumulation_matrix("numeric", sums[0, 0] if sums[0, 0].sum() > 0 else count + 1.0)
    values = {"deciles": [None], "n_rows": int(count.sum()), "n_missing": (0,),
              "n_outside": (0,), **fields}
    return AccumulatedLocalEffects(
        grid_values=[edges], average=mean @ A.T, std=accumulated_std(var, A),
        bin_counts=count, features=(feature,), feature_kinds=("numeric",), edge_rule=(rule,),
        **values,
    )


# ------------------------------------------------------------------------ static driver
def _chunk_rows(n_cols: int, n_settings: int, batch_rows: int) -> int:
    """Rows per chunk: about 2**20 stacked cells, within the model-call budget."""
    return max(1, min(max(1024, 2**20 // max(1, n_cols * n_settings)), batch_rows // n_settings))


def _corners(fb: FeatureBins, b: np.ndarray) -> tuple[str, np.ndarray, np.ndarray]:
    return fb.name, fb.grid[b], fb.grid[b + 1]


def _accumulate_sums(
    evaluator: _Evaluator, fbs: list[FeatureBins], weights: np.ndarray | None
) -> np.ndarray:
    """Per-cell sums of :func:`row_moments` over every usable row, in row chunks."""
    usable = np.flatnonzero(np.all([fb.bins >= 0 for fb in fbs], axis=0))
    shape = tuple(fb.n_bins for fb in fbs)
    n_cells = int(np.prod(shape))
    step = _chunk_rows(len(evaluator.table.names), 2 ** len(fbs), evaluator.batch_rows)
    total: np.ndarray | None = None
    for s in range(0, len(usable), step):
        rows = usable[s:s + step]
        bs = [fb.bins[rows] for fb in fbs]
        diffs = local_differences(evaluator.predict, rows, [_corners(f, b) for f, b in zip(fbs, bs)])
        if not np.isfinite(diffs).all():  # non-finite predictions were refused: overflow
            _refuse_infinite(diffs, rows, evaluator.model)
        cell = bs[0] if len(fbs) == 1 else bs[0] * shape[1] + bs[1]
        part = _bin_sums(cell, row_moments(diffs, None if weights is None else weights[rows]),
                         n_cells)
        total = part if total is None else total + part
    if total is None:  # no usable row: no model call, so no output count either
        raise ValueError(
            f"{_OWNER}: no row has a value of {[fb.name for fb in fbs]} inside a bin; nothing "
            "to accumulate."
        )
    return total.reshape(total.shape[:2] + shape)


def _refuse_infinite(diffs: np.ndarray, rows: np.ndarray, model: Model) -> None:
    from .._validation import ModelEvaluationError

    bad = rows[~np.isfinite(diffs).all(axis=1)]
    raise ModelEvaluationError(
        f"{_OWNER}: the difference of {model.describe()}'s predictions across a bin is "
        f"infinite for {len(bad)} rows (first: row {int(bad[0])} of X; the predictions "
        "overflow float64 when subtracted), so the effect would be infinite or NaN. Rescale "
        "or clip the model's output, or use custom_edges inside the range where it is small.")


def _level_weights(fb: FeatureBins, weights: np.ndarray | None) -> np.ndarray:
    idx = fb.bins if fb.kind == "numeric" else fb.position
    keep = idx >= 0
    w = None if weights is None else weights[keep]
    size = fb.n_bins if fb.kind == "numeric" else fb.n_bins + 1
    return np.bincount(idx[keep], weights=w, minlength=size).astype(np.float64)


def _resolve_features(features: Any, table: Table) -> list[str]:
    names = list(table.names)
    rule = "an int or str naming a column of X, or a sequence of 1 or 2 of them"
    items = [features] if isinstance(features, (str, numbers.Integral)) else features
    if isinstance(items, (bool, np.bool_)) or not isinstance(items, (list, tuple, np.ndarray)):
        raise param_error(_OWNER, "features", rule, features, exc=TypeError)
    if not 1 <= len(items) <= 2:
        raise param_error(_OWNER, "features", rule, features)
    out = []
    for item in items:
        if isinstance(item, (bool, np.bool_)):
            raise param_error(_OWNER, "features", rule, features, exc=TypeError)
        if isinstance(item, numbers.Integral) and 0 <= int(item) < len(names):
            out.append(names[int(item)])
        elif isinstance(item, str) and item in names:
            out.append(item)
        else:
            raise ValueError(
                f"The 'features' parameter of {_OWNER} names an unknown feature {item!r}. "
                f"Available features: {names}."
            )
    if len(set(out)) != len(out):
        raise param_error(_OWNER, "features", f"{rule}, without duplicates", features)
    return out


def _check_custom_edges(custom: Any, features: list[str], table: Table) -> dict[str, Any]:
    if custom is None:
        return {}
    if not isinstance(custom, dict):
        raise param_error(_OWNER, "custom_edges", "None or a dict {feature: increasing edges}",
                          custom, exc=TypeError)
    out: dict[str, Any] = {}
    names = list(table.names)
    for key, values in custom.items():
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and key not in features:
            if not 0 <= int(key) < len(names):
                raise ValueError(f"The 'custom_edges' parameter of {_OWNER} has the key {key!r}, "
                                 f"which is no column index (the data has {len(names)} columns).")
            key = names[int(key)]  # a column index, as ``features`` accepts
        if key not in features:
            raise ValueError(f"The 'custom_edges' parameter of {_OWNER} has the key {key!r}, "
                             f"which is not an explained feature ({features}).")
        if is_datetime(table, str(key)):  # checked against the column's unit and zone
            out[str(key)] = values
            continue
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            arr = np.full(1, np.nan)  # the message below
        if arr.ndim != 1 or len(arr) < 2 or not np.all(np.diff(arr) > 0) \
                or not np.isfinite(arr).all():
            raise ValueError(
                f"The 'custom_edges' parameter of {_OWNER} must map explained features to at "
                f"least 2 finite, strictly increasing edges. Got {key!r}: {values!r} instead."
            )
        out[str(key)] = arr
    return out


def _select_output(values: list[np.ndarray | None], model: Model, target: Any) -> list[Any]:
    if model.is_classifier or target is None:
        return values
    n_out = values[0].shape[0]  # type: ignore[union-attr]
    if isinstance(target, bool) or not isinstance(target, numbers.Integral) or not (
        0 <= int(target) < n_out
    ):
        raise param_error(_OWNER, "target",
                          f"None or an output index in [0, {n_out - 1}] for this regressor", target)
    t = int(target)
    return [None if v is None else v[t:t + 1] for v in values]


def _prepare_table(X: Any, feature_names: Any, categorical_features: Any) -> Table:
    check_2d(X, _OWNER)
    feature_names = check_feature_names(feature_names, _OWNER)  # (its TypeError is not X's)
    try:
        table = as_table(X, feature_names, owner=_OWNER)
    except UnsupportedInputError as exc:
        raise param_error(_OWNER, "X", "a 2-D array, a pandas/polars DataFrame or dict records",
                          X, exc=TypeError) from exc
    if table.n_rows == 0:
        raise ValueError(f"{_OWNER}: X has 0 rows; ALE needs rows to bin.")
    if categorical_features is not None:
        cats = _resolve_features(categorical_features, table) if isinstance(
            categorical_features, (str, numbers.Integral)) else [
            table.names[c] if isinstance(c, numbers.Integral) else str(c)
            for c in categorical_features]
        for c in cats:
            if c not in table.names:
                raise ValueError(
                    f"The 'categorical_features' parameter of {_OWNER} names an unknown feature "
                    f"{c!r}. Available features: {list(table.names)}.")
        kinds = tuple("categorical" if n in cats else k
                      for n, k in zip(table.names, table.schema.kinds))
        from dataclasses import replace

        table = replace(table, schema=replace(table.schema, kinds=kinds))
    return table


def _feature_bins(table: Table, feats: list[str], w: np.ndarray | None, grid_resolution: int,
                  min_bin_size: int, custom: dict[str, np.ndarray], order: str) -> list[FeatureBins]:
    out = []
    for name in feats:
        if table.schema.kind(name) == "categorical" and not is_datetime(table, name):
            if len(feats) == 2:
                raise ValueError(
                    f"{_OWNER}: 2-way ALE needs two numeric features; {name!r} is categorical."
                )
            if name in custom:
                raise ValueError(f"{_OWNER}: custom_edges cannot be given for the categorical "
                                 f"feature {name!r}.")
            out.append(_categorical_bins(table, name, order))
        else:
            out.append(_numeric_bins(table, name, w, grid_resolution, min_bin_size,
                                     custom.get(name), interval_only=len(feats) == 2))
    return out


# ------------------------------------------------------------------------ public
def accumulated_local_effects(
    estimator: Any,
    X: Any,
    features: Any,
    *,
    sample_weight: Any = None,
    categorical_features: Any = None,
    feature_names: Any = None,
    response_method: str = "auto",
    target: Any = None,
    grid_resolution: int = 20,
    min_bin_size: int = 10,
    custom_edges: dict[str, Any] | None = None,
    categorical_order: str = "auto",
    missing: str = "exclude",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    input_kind: str = "auto",
) -> AccumulatedLocalEffects:
    """Accumulated local effects (ALE) of a feature, or second-order ALE of a numeric pair.

    Parameters
    ----------
    estimator : estimator, River model, Booster or callable
        The fitted model (see :func:`ixplain.as_model`).
    X : ndarray of shape (n_rows, n_features), pandas/polars DataFrame or list of dict
        The rows; all of them are used (no subsampling).
    features : int, str, or sequence of 1 or 2 of them
        One feature (first-order ALE) or two numeric features (second-order ALE).
    sample_weight : array-like of shape (n_rows,), default=None
        Row weights: of the bin means, of the quantile edges and of the centring.
    categorical_features : sequence of int or str, default=None
        Features to treat as categorical (non-numeric columns are anyway).
    feature_names : sequence of str, default=None
        Names of the columns of an array (default ``x0, x1, ...``).
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
        As :func:`ixplain.partial_dependence` (classifiers: probabilities; binary: the
        positive class).
    target : object, default=None
        A class of a multiclass classifier, or an output index of a multi-output regressor.
    grid_resolution : int, default=20
        Largest number of quantile bins of a numeric feature; a numeric feature with at most
        ``grid_resolution + 1`` distinct values, each on at least ``min_bin_size`` rows, is
        ``"discrete"`` (one step per level).
    min_bin_size : int, default=10
        Smallest number of rows per quantile bin or discrete level: at most
        ``n_rows // min_bin_size`` bins, and bins left smaller by ties are merged (the bins
        never shrink to a few rows each, whatever ``grid_resolution``). Custom edges and
        categorical levels are used as they are (``bin_counts`` shows their rows).
    custom_edges : dict, default=None
        ``{feature: increasing edges}`` for numeric features (rows outside are left out and
        counted in ``n_outside``).
    categorical_order : {"auto", "sorted"}, default="auto"
        Order of unordered categorical levels: ``"auto"`` by similarity of the other features
        (module docstring; a feature with more than 100 levels is sorted instead, with a
        ``UserWarning``: the similarity compares every pair of levels), ``"sorted"`` by value.
        Ordered pandas categories keep their order.
    missing : {"exclude", "raise"}, default="exclude"
        Rows with a missing value of an explained feature (NaN, or an infinite number): left
        out of the bins and the centring, counted in ``n_missing`` (``"exclude"``), or a
        ``ValueError``. A model that returns NaN or +-inf raises ``ModelEvaluationError``
        naming the rows (a bin of NaN differences is not an effect).
    memory_budget : int, default=268435456
        Bytes of model input per model call. At least
        ``MIN_MEMORY_BUDGET`` (4096 bytes; a smaller budget is refused).
    input_kind : {"auto", "numpy", "pandas", "polars", "records"}, default="auto"
        The input type a callable receives.

    Returns
    -------
    AccumulatedLocalEffects
        ``grid_values`` (edges or levels), ``average`` of shape (n_outputs, K + 1) (or
        (n_outputs, K1 + 1, K2 + 1)), ``std``, ``bin_counts`` and the settings used.

    Raises
    ------
    ValueError
        For a parameter with a wrong value (the message names it), an unknown feature, a
        feature without non-missing values or with fewer than ``min_bin_size`` of them
        (numeric, without ``custom_edges``), a categorical feature in a 2-way request, a
        constant feature in a 2-way request, missing values with ``missing="raise"``.
    TypeError
        For a parameter of the wrong type.
    ModelEvaluationError
        If the model raises.

    References
    ----------
    .. [1] D. W. Apley, J. Zhu, "Visualizing the effects of predictor variables in black box
       supervised learning models", Journal of the Royal Statistical Society B 82(4), 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import accumulated_local_effects
    >>> x = np.linspace(0.0, 1.0, 101)
    >>> X = np.c_[x, x]  # perfectly correlated; the model uses x1 only
    >>> ale = accumulated_local_effects(lambda A: A[:, 1] ** 2, X, "x0", grid_resolution=4)
    >>> ale.grid_values[0], ale.average.round(3)
    (array([0.  , 0.25, 0.5 , 0.75, 1.  ]), array([[0., 0., 0., 0., 0.]]))
    """
    check_options(response_method, "response_method", _OWNER, _RESPONSES)
    check_options(categorical_order, "categorical_order", _OWNER, ("auto", "sorted"))
    check_options(missing, "missing", _OWNER, ("exclude", "raise"))
    grid_resolution = int(check_int(grid_resolution, "grid_resolution", _OWNER, min_value=1) or 1)
    min_bin_size = int(check_int(min_bin_size, "min_bin_size", _OWNER, min_value=1) or 1)
    memory_budget = check_memory_budget(memory_budget, _OWNER)
    check_options(input_kind, "input_kind", _OWNER, ("auto", "numpy", "pandas", "polars", "records"))
    table = _prepare_table(X, feature_names, categorical_features)
    feats = _resolve_features(features, table)
    custom = _check_custom_edges(custom_edges, feats, table)
    weights = check_sample_weight(sample_weight, table.n_rows, _OWNER)
    model = effect_model(estimator, response_method, target, input_kind, _OWNER)
    fbs = _feature_bins(table, feats, weights, grid_resolution, min_bin_size, custom,
                        categorical_order)
    for fb in fbs:
        if missing == "raise" and fb.n_missing:
            raise ValueError(f"{_OWNER}: feature {fb.name!r} has {fb.n_missing} missing values "
                             "(missing='raise'; missing='exclude' leaves such rows out).")
        if len(fbs) == 2 and fb.n_bins < 1:
            raise ValueError(f"{_OWNER}: feature {fb.name!r} is constant; 2-way ALE needs two "
                             "numeric features with at least two values each.")
    return _compute(model, table, fbs, weights, memory_budget, target)


def _deciles(table: Table, fb: FeatureBins) -> Any:
    """Deciles of a numeric feature's values (datetimes for a datetime feature)."""
    if fb.kind == "categorical":
        return None
    time = _time_axis(table.column(fb.name), fb.name)
    if time is None:
        return feature_deciles(table.numeric_column(fb.name))
    ticks = np.where(time.missing, np.nan, time.ticks.astype(np.float64))
    return time.values(np.round(feature_deciles(ticks)).astype(np.int64))


def _compute(model: Model, table: Table, fbs: list[FeatureBins], weights: np.ndarray | None,
             memory_budget: int, target: Any) -> AccumulatedLocalEffects:
    evaluator = _Evaluator.build(model, table, memory_budget)
    extra: dict[str, Any] = {}
    if len(fbs) == 1 and fbs[0].n_bins == 0:  # constant feature: no step, the curve is 0
        n_out = _as_float(model.predict(table.take(np.arange(1))), model).reshape(1, -1).shape[1]
        ale, std, counts = np.zeros((n_out, 1)), np.zeros((n_out, 1)), np.zeros(0)
        level_counts = _level_weights(fbs[0], None)
    else:
        sums = _accumulate_sums(evaluator, fbs, weights)
        if len(fbs) == 1 and fbs[0].kind == "numeric":  # bins: the sums hold the weights
            ale, std, counts = _first_order(fbs[0], sums, sums[0, 0])
            level_counts = counts
            extra["empty_bins"] = sums[0, 0] == 0  # no rows, or only rows of weight 0
        elif len(fbs) == 1:  # levels: the lowest level's rows give no difference
            ale, std, counts = _first_order(fbs[0], sums, _level_weights(fbs[0], weights))
            level_counts = _level_weights(fbs[0], None)
        else:
            mean, _, counts = bin_statistics(sums)
            ale = second_order_surface(_fill_empty_2d(mean), sums[0, 0])
            std, level_counts = None, counts
    ale, std = _select_output([ale, std], model, target)
    kept = np.all([fb.position >= 0 for fb in fbs], axis=0)
    return AccumulatedLocalEffects(
        grid_values=[fb.grid for fb in fbs],
        average=ale,
        std=std,
        bin_counts=np.asarray(level_counts if len(fbs) == 1 else counts).astype(np.int64),
        features=tuple(fb.name for fb in fbs),
        feature_kinds=tuple(fb.kind for fb in fbs),
        deciles=[_deciles(table, fb) for fb in fbs],
        output_names=model.output_names,
        target=target,
        response_method=model.response_method,
        n_rows=int(kept.sum()),
        n_missing=tuple(fb.n_missing for fb in fbs),
        n_outside=tuple(fb.n_outside for fb in fbs),
        edge_rule=tuple(fb.rule for fb in fbs),
        extra=extra,
    )
