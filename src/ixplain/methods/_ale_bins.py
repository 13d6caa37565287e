"""Which rows fall in which ALE bin: quantile edges, discrete levels, datetimes, categorical order.

The binning rules of :func:`~ixplain.methods.ale.accumulated_local_effects` (its module docstring
describes them): a :class:`FeatureBins` per explained feature, built from the table by
``_numeric_bins`` (quantile or custom edges; datetimes on the integer ticks of their unit) or
``_categorical_bins`` (levels in the pandas order, Apley's similarity order or sorted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..grids import _sorted_levels
from ..tabular import Table

__all__ = ["FeatureBins", "is_datetime", "quantile_edges", "similarity_order"]

_OWNER = "accumulated_local_effects"
#: Above this many levels a categorical feature is sorted, not ordered by similarity (the
#: distances compare every pair of levels; 400 levels took 8.5 s on 5,000 rows).
MAX_SIMILARITY_LEVELS = 100


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
        levels = None if interval_only else discrete_levels(xs, grid_resolution, min_bin_size)
        if levels is not None:
            return _discrete_bins(name, x, levels, missing, integer)
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


def discrete_levels(xs: np.ndarray, grid_resolution: int, min_bin_size: int) -> np.ndarray | None:
    """The levels of the sorted values ``xs`` when they are read as discrete, else None.

    The rule: at most ``grid_resolution + 1`` distinct values, each held by at least
    ``min_bin_size`` rows (or a single value). Then ALE takes one step per level (the static
    ALE's ``"levels"`` rule; :class:`~ixplain.IncrementalALE` uses the levels as its edges).

    >>> discrete_levels(np.array([0.0] * 10 + [1.0] * 12), 20, 10)
    array([0., 1.])
    >>> discrete_levels(np.arange(30.0), 20, 1) is None
    True
    """
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])  # xs is sorted
    if len(starts) <= grid_resolution + 1 and (
            np.diff(np.r_[starts, len(xs)]).min() >= min_bin_size or len(starts) == 1):
        return xs[starts]
    return None


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
