"""Grids of feature values for partial dependence: scikit-learn's rule, quantiles, custom values.

The default rule is scikit-learn's (``sklearn.inspection._partial_dependence._grid_from_X``), so
that results compare one to one:

* a categorical feature, or a numeric feature with fewer than ``grid_resolution`` distinct values,
  uses its sorted distinct values;
* otherwise the grid is ``grid_resolution`` equally spaced points between the empirical
  ``percentiles`` of the feature, computed as :func:`scipy.stats.mstats.mquantiles` at its
  default plotting positions (``alphap=0.4, betap=0.4``, as scikit-learn calls it; the same
  arithmetic here, so the same floats, without importing :mod:`scipy.stats`).

Where scikit-learn is silently wrong or refuses, this module differs on purpose:

* missing values (NaN, ``None``, ``pd.NA``) never enter the grid; the grid is built from the
  non-missing values (for a numeric feature the finite ones: +-inf is no grid point). A
  numeric NaN grid point can be appended on request (``include_missing=True``) for models
  that accept NaN; a categorical feature with missing
  values gets a missing level (``nan``) after its observed levels instead of a sort crash;
* "the percentiles collapse" is decided relative to the feature's own scale (a feature measured in
  units of ``1e-10`` works), and when they do collapse the grid falls back to the distinct values
  if there are at most ``2 * grid_resolution`` of them, else the error names the feature and the
  settings to change;
* ``grid="quantile"`` places the points at ``grid_resolution`` equally spaced quantiles between
  the two percentiles (duplicates removed), so the grid follows the data's density.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._lazy import is_instance
from ._validation import date_sort, refuse_datetime
from .tabular import Table, _is_integer_dtype

__all__ = ["FeatureGrid", "DECILES", "feature_deciles", "feature_grid"]

#: Probabilities of the deciles drawn as a rug under PD plots (scikit-learn's choice).
DECILES = np.arange(0.1, 1.0, 0.1)

#: Relative tolerance under which two percentiles count as equal (scale-free).
_RTOL = 1e-9

#: Most levels a categorical grid may have: every row is evaluated at every level, so a column
#: of identifiers (100,000 levels on 100,000 rows: 10^10 model rows) is refused with the fix.
MAX_LEVELS = 1000


@dataclass(frozen=True)
class FeatureGrid:
    """The grid of one feature.

    Attributes
    ----------
    name : str
        Feature name.
    values : ndarray of shape (n_grid,)
        The grid values, in the order used in the result arrays (numeric: increasing, with a
        trailing ``nan`` when ``has_missing``; categorical: sorted levels, then the missing level).
    kind : {"numeric", "categorical"}
    rule : {"unique", "percentile", "quantile", "custom", "unique-fallback"}
        How the values were chosen.
    has_missing : bool
        Whether the last grid point is the missing value (``nan``).
    deciles : ndarray of shape (9,) or None
        Deciles of the non-missing numeric values (for the plot's rug); ``None`` for categorical
        features.
    """

    name: str
    values: np.ndarray
    kind: str
    rule: str
    has_missing: bool
    deciles: np.ndarray | None


def _missing_mask(values: Any) -> np.ndarray:
    """``pandas.isna`` (NaN, None, NA, NaT); numbers in a numpy array need no pandas."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iufb":
        return np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, bool)
    import pandas as pd

    return np.asarray(pd.isna(values), dtype=bool)


def _as_numeric(values: Any) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype.kind in "iufb":
        return values.astype(np.float64, copy=False)
    import pandas as pd

    return pd.array(values).to_numpy(dtype=np.float64, na_value=np.nan)


def _sorted_levels(values: Any) -> np.ndarray:
    """Sorted distinct values (np.unique order, as scikit-learn); first-seen order if unsortable."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iufb":
        return np.unique(values)
    obj = np.asarray(values, dtype=object)
    try:
        uniques = np.unique(obj)
    except TypeError:  # mixed types (e.g. str and int) cannot be sorted
        import pandas as pd

        uniques = np.asarray(pd.unique(obj), dtype=object)
    if len(uniques) and all(isinstance(v, (bool, np.bool_)) for v in uniques):
        return uniques.astype(bool)
    if len(uniques) and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        for v in uniques
    ):
        return np.array(list(uniques))
    return uniques


def _mquantiles(x: np.ndarray, prob: Any) -> np.ndarray:
    """Empirical quantiles of the non-empty float array ``x`` at probabilities ``prob``.

    :func:`scipy.stats.mstats.mquantiles` with ``alphap = betap = 0.4`` (Hyndman and Fan's
    plotting positions ``m = 0.4 + 0.2 p``), operation for operation: with ``x`` sorted,
    ``aleph = n p + m``, ``k = floor(clip(aleph, 1, n - 1))``, ``gamma = clip(aleph - k, 0, 1)``
    and the quantile is ``(1 - gamma) x[k - 1] + gamma x[k]`` (one value: that value).
    """
    p = np.atleast_1d(np.asarray(prob))
    m = 0.4 + p * (1.0 - 0.4 - 0.4)
    x = np.sort(x)
    n = len(x)
    if n == 1:
        return np.resize(x, p.shape)
    aleph = n * p + m
    k = np.floor(aleph.clip(1, n - 1)).astype(int)
    gamma = (aleph - k).clip(0, 1)
    return (1.0 - gamma) * x[k - 1] + gamma * x[k]


def feature_deciles(column: Any) -> np.ndarray:
    """Deciles of the non-missing values of a numeric column (``mquantiles``, as scikit-learn).

    Examples
    --------
    >>> feature_deciles(np.arange(11.0))
    array([0.52, 1.64, 2.76, 3.88, 5.  , 6.12, 7.24, 8.36, 9.48])
    """
    x = _as_numeric(column)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return np.full(len(DECILES), np.nan)
    return np.asarray(_mquantiles(x, DECILES), dtype=np.float64)


def feature_grid(
    table: Table,
    name: str,
    *,
    percentiles: tuple[float, float] = (0.05, 0.95),
    grid_resolution: int = 100,
    grid: str = "percentile",
    custom_values: Any = None,
    include_missing: bool = False,
    owner: str = "partial_dependence",
) -> FeatureGrid:
    """Build the grid of feature ``name`` from the rows of ``table``.

    Parameters
    ----------
    table : Table
        The data; only column ``name`` is read.
    name : str
        The feature.
    percentiles : tuple of two floats in [0, 1], default=(0.05, 0.95)
        Lower and upper percentile bounding a numeric grid (as fractions, scikit-learn's unit).
    grid_resolution : int, default=100
        Number of grid points for a numeric feature with at least that many distinct values.
    grid : {"percentile", "quantile"}, default="percentile"
        ``"percentile"``: equally spaced values between the two percentiles (scikit-learn).
        ``"quantile"``: values at equally spaced probabilities between the two percentiles.
    custom_values : array-like of shape (n_values,), optional
        Use these values as the grid (overrides the three settings above).
    include_missing : bool, default=False
        Append a ``nan`` grid point to a numeric feature that has missing values (for models
        that accept NaN). Categorical features with missing values always get a missing level.
    owner : str
        Public function name for error messages.

    Returns
    -------
    FeatureGrid

    Raises
    ------
    ValueError
        If the column has no non-missing value, if ``custom_values`` is not a non-empty 1-D
        array, if the percentiles collapse on a feature with many distinct values, if the
        column holds datetimes, durations or periods (a datetime64, timedelta64 or Period
        dtype, or objects that are all dates, datetimes, durations or pandas Periods;
        with ``custom_values`` too; the message names the dtype and the conversion to a
        number), or if a categorical feature has more than :data:`MAX_LEVELS` levels (the
        message names the fix).

    Examples
    --------
    >>> from ixplain.tabular import as_table
    >>> t = as_table(np.c_[np.arange(10.0), np.r_[np.zeros(5), np.ones(5)]])
    >>> feature_grid(t, "x0", grid_resolution=5, percentiles=(0, 1)).values
    array([0.  , 2.25, 4.5 , 6.75, 9.  ])
    >>> feature_grid(t, "x1").values
    array([0., 1.])
    """
    column = table.column(name)
    kind = table.schema.kind(name)
    dtype = table.schema.dtypes[table.schema.index(name)]
    dates = date_sort(column, dtype)  # dtypes, or object columns of date-like values only
    if dates is not None:
        raise refuse_datetime(owner, name, dates[1], (
            "a grid over every distinct value would not end, and grid values given for it "
            "are refused too."), dates[0])
    missing = _missing_mask(column)
    has_missing_data = bool(missing.any())
    present = column if not has_missing_data else _take_mask(column, ~missing)

    if custom_values is not None:
        values = _custom(custom_values, name, owner, list(table.names).index(name))
        deciles = feature_deciles(present) if kind == "numeric" and len(present) else None
        return FeatureGrid(name, values, kind, "custom", False, deciles)

    if len(present) == 0:
        raise ValueError(
            f"{owner}: feature {name!r} has no non-missing value; a grid cannot be built from it."
        )

    if kind == "categorical":
        return _categorical_grid(present, dtype, name, has_missing_data, table.n_rows, owner)

    x, present = _finite(_as_numeric(present), present, name, owner)
    uniques = np.unique(x)
    deciles = feature_deciles(x)
    integer = _is_integer_dtype(dtype) or (isinstance(present, np.ndarray) and present.dtype.kind in "iu")
    if len(uniques) < grid_resolution:
        values, rule = (_sorted_levels(present) if integer else uniques), "unique"
        if integer:
            values = np.asarray(values).astype(np.int64)
    else:
        lo, hi = (float(v) for v in _mquantiles(x, percentiles))
        if hi - lo <= _RTOL * max(abs(lo), abs(hi)):
            values, rule = _collapsed(x, uniques, (lo, hi), name, percentiles, grid_resolution,
                                      owner)
        elif grid == "quantile":
            probs = np.linspace(percentiles[0], percentiles[1], grid_resolution)
            values, rule = np.unique(np.asarray(_mquantiles(x, probs), dtype=float)), "quantile"
        else:
            values, rule = np.linspace(lo, hi, num=grid_resolution, endpoint=True), "percentile"
    add_nan = include_missing and has_missing_data
    if add_nan:
        values = np.append(np.asarray(values, dtype=np.float64), np.nan)
    return FeatureGrid(name, np.asarray(values), kind, rule, add_nan, deciles)


def _categorical_grid(present: Any, dtype: Any, name: str, has_missing: bool, n_rows: int,
                      owner: str) -> FeatureGrid:
    """The grid of a categorical feature: its levels, sorted (an ordered pandas categorical's
    in category order), and a missing level if ``has_missing``. ``ValueError`` beyond
    :data:`MAX_LEVELS` levels (``n_rows`` model rows per level)."""
    levels = _sorted_levels(present)
    if len(levels) > MAX_LEVELS:
        raise ValueError(
            f"{owner}: feature {name!r} has {len(levels):,} distinct levels (more than "
            f"{MAX_LEVELS:,}); every row would be evaluated at each of them "
            f"({len(levels) * n_rows:,} model rows). Give the levels to show with "
            f"custom_values={{{name!r}: [...]}}, or leave the feature out."
        )
    if is_instance(dtype, "pandas", "CategoricalDtype") and dtype.ordered:
        order = {c: i for i, c in enumerate(dtype.categories)}
        levels = np.asarray(sorted(levels, key=lambda v: order[v]), dtype=object)
    if has_missing:
        levels = np.append(np.asarray(levels, dtype=object), np.nan)
    return FeatureGrid(name, levels, "categorical", "unique", has_missing, None)


def _finite(x: np.ndarray, present: Any, name: str, owner: str) -> tuple[np.ndarray, Any]:
    """The finite values ``x`` of a numeric column and the same rows of ``present``: +-inf is
    no grid point (a PD at inf, or a NaN grid from ``inf - inf``). ``ValueError`` if none."""
    finite = np.isfinite(x)
    if finite.all():
        return x, present
    if not finite.any():
        raise ValueError(f"{owner}: feature {name!r} has no finite value; a grid cannot be built "
                         "from it.")
    return x[finite], _take_mask(present, finite)


def _take_mask(column: Any, mask: np.ndarray) -> Any:
    if isinstance(column, np.ndarray):
        return column[mask]
    return column[mask]


def _collapsed(
    x: np.ndarray,
    uniques: np.ndarray,
    bounds: tuple[float, float],
    name: str,
    percentiles: Sequence[float],
    grid_resolution: int,
    owner: str,
) -> tuple[np.ndarray, str]:
    """Percentiles ``bounds = (lo, hi)`` equal on this feature, or closer than :data:`_RTOL`
    of their magnitude: fall back to its distinct values or explain, printing both values in
    full (``repr``: the shortest digits that round-trip, up to 17 significant)."""
    if len(uniques) <= 2 * grid_resolution:
        return uniques, "unique-fallback"
    lo, hi = bounds
    many = f"{len(uniques)} distinct values (more than 2 * grid_resolution)"
    if lo == hi:
        share = float(np.mean(x == lo))
        raise ValueError(
            f"{owner}: the percentiles {tuple(percentiles)} of feature {name!r} are both {lo!r} "
            f"({share:.0%} of its values), so no grid can be built between them, and it has "
            f"{many}. Widen `percentiles` (e.g. (0, 1)), use grid='quantile', or give the grid "
            "with `custom_values`."
        )
    raise ValueError(
        f"{owner}: the percentiles {tuple(percentiles)} of feature {name!r} are {lo!r} and "
        f"{hi!r}, which differ by {hi - lo!r}: less than {_RTOL:g} of their magnitude, so they "
        "count as equal. Grid values between them would differ only in their last digits, "
        "which a model computing in float32 (scikit-learn's trees, LightGBM) cannot tell "
        f"apart; and with {many} its distinct values are not used instead. Give the model the feature minus "
        f"an offset (here about {lo:.6g}), or give the grid with `custom_values`."
    )


def _custom(values: Any, name: str, owner: str, column: int = -1) -> np.ndarray:
    if is_instance(values, "pandas", "Series", "Index"):
        values = values.to_numpy()
    dtype = object if any(isinstance(v, str) for v in np.ravel(np.asarray(values, dtype=object))) else None
    arr = np.asarray(values, dtype=dtype)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(
            f"The 'custom_values' parameter of {owner} must map each feature to a non-empty 1-D "
            f"array. Got shape {arr.shape} for feature {name!r} instead (The custom grid for "
            f"some features is not a one-dimensional array. Feature {column}: {arr.ndim} "
            "dimensions)."
        )
    return arr
