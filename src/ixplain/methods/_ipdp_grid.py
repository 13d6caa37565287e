"""The grid of an incremental PD, row by row: a window or storage range on a lattice, the
levels of a discrete or categorical feature, or a fixed grid.

Row ``t``'s grid comes from the feature's values before it (the range window's percentiles,
or the storage's values), on lattice points (:mod:`ixplain.methods._stream_grid`) that rows
share while the range stays put, so a grid point keeps its accumulated ICE values
(:class:`~ixplain.methods._pd_points.PointStore`) as the range moves. :class:`StreamGrid` is
the part of ``IncrementalPDP`` that gives each row its grid point ids.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._lazy import is_instance
from .._validation import (
    check_options,
    date_sort,
    missing_value,
    param_error,
    refuse_datetime,
    user_stacklevel,
)
from ..grids import MAX_LEVELS
from . import _stream_grid as sg
from ._ipdp_core import CORE_AFTER, OWNER, CoreGrid, CorePart
from ._pd_points import grid_key, sorted_quantile

__all__ = ["StreamGrid", "check_grid", "check_percentiles", "datetime_error"]



class StreamGrid(CoreGrid):
    """Mixin of :class:`~ixplain.methods.ipdp.IncrementalPDP`: each row's grid (and, from
    :class:`~ixplain.methods._ipdp_core.CoreGrid`, the core grid of its drift summaries)."""

    _window: Any
    _step: Any
    _schema: Any
    _store_rows: Any
    storage: Any
    percentiles: Any
    range_source: str
    range_window: int

    def _grid_ids(
        self, values: np.ndarray, cols: dict[str, np.ndarray], y: np.ndarray | None,
        parts: list[CorePart],
    ) -> list[np.ndarray]:
        """Per row, the ids of its grid values (row ``i`` sees the range of rows ``< i``);
        appends to ``parts`` (given as ``[(0, core before the batch, False)]``) the
        ``(first row, core, fixed again)`` of each later run of the batch's rows whose grids
        came after the same core (:meth:`_track_core`)."""
        if self.grid is not None:
            assert self._cache is not None
            return [self._cache[1]] * len(values)
        if self.feature_kind_ == "categorical":
            return [self._level_ids(v) for v in values]
        if self.range_source == "storage":
            return self._storage_range_ids(values, cols, y, parts)
        out = []
        window = self._window
        lo_q, hi_q = self.percentiles
        for v in values.tolist():
            missing = not math.isfinite(v)  # NaN and +-inf do not move the range
            if len(window) == 0:
                if missing:
                    out.append(self._point_ids(np.nan))
                    continue
                window.update(v)
            levels = window.levels(self.grid_resolution)
            out.append(self._level_values_ids(levels) if levels is not None else self._range_ids(
                window.percentile(lo_q), window.percentile(hi_q), window.integer_valued))
            self._track_core(out[-1], len(out) - 1, len(window),
                             min(self.range_window, CORE_AFTER), parts)
            if not missing:
                window.update(v)
        return out

    def _storage_range_ids(
        self, values: np.ndarray, cols: dict[str, np.ndarray], y: np.ndarray | None,
        parts: list[CorePart],
    ) -> list[np.ndarray]:
        storage = self.storage
        assert self._schema is not None
        storage._ensure_schema(self._schema)
        slots = storage._plan(len(values))
        held = storage._cols[str(self.feature_name_)].copy()
        n_held = len(storage)
        out = []
        for v, slot in zip(values.tolist(), slots.tolist()):
            part = held[:n_held]
            finite = np.sort(part[np.isfinite(part)])
            n_range = finite.size
            if n_range == 0:  # the first row's value starts the range
                finite = np.array([v]) if math.isfinite(v) else finite
            out.append(self._storage_grid_ids(finite))
            self._track_core(out[-1], len(out) - 1, n_range, min(storage.size, CORE_AFTER),
                             parts)
            if slot >= 0:
                held[slot] = v
                n_held = max(n_held, slot + 1)
        self._store_rows(cols, slots, y)
        return out

    def _storage_grid_ids(self, finite: np.ndarray) -> np.ndarray:
        """The grid of one row from the storage's ``finite`` values, increasing (the row's
        own value if the storage holds none; NaN if neither: the previous grid)."""
        if finite.size == 0:
            return self._point_ids(np.nan)
        levels = sg.discrete_levels(finite, self.grid_resolution)
        if levels is not None:
            return self._level_values_ids(levels)
        lo, hi = (sorted_quantile(finite, q) for q in self.percentiles)
        return self._range_ids(lo, hi, bool(np.all(finite == np.floor(finite))))

    def _level_values_ids(self, levels: list[float]) -> np.ndarray:
        """An integer feature with at most ``grid_resolution`` distinct values in the range's
        source (:func:`~ixplain.methods._stream_grid.is_discrete`): its grid is those values,
        as in static PD (scikit-learn's rule)."""
        cache_key = ("levels", tuple(levels))
        if self._cache is None or self._cache[0] != cache_key:
            self._cache = (cache_key, self._store.ids(levels))
        return self._cache[1]

    def _range_ids(self, lo: float, hi: float, integer: bool) -> np.ndarray:
        """The lattice of ``[lo, hi]``; an integer-valued feature's step is at least 1 (never
        a grid value between two integers, which such a feature never takes)."""
        if not hi > lo:
            return self._point_ids(lo)
        R = self.grid_resolution
        if not sg.keep_step(lo, hi, self._step, R):
            self._step = sg.choose_step(lo, hi, R)
        step = self._step
        assert step is not None
        if integer and step[1] < 0:  # finer than 1: the hysteresis keeps it, the grid does not
            step = (1, 0)
        cache_key = (step, *sg.index_bounds(lo, hi, step))
        if self._cache is not None and self._cache[0] == cache_key:
            return self._cache[1]
        values = sg.lattice_from_bounds(cache_key[1], cache_key[2], step)
        if not len(values):  # a range a few floats wide, between two lattice points
            return self._point_ids(float(round((lo + hi) / 2)) if integer else lo)
        ids = self._store.ids(values.tolist())
        self._cache = (cache_key, ids)
        return ids

    def _point_ids(self, value: float) -> np.ndarray:
        """A degenerate range (one value seen): the grid is that value."""
        if value != value:
            return self._active
        cache_key = ("point", value)
        if self._cache is None or self._cache[0] != cache_key:
            self._cache = (cache_key, self._store.ids([float(value)]))
        return self._cache[1]

    def _level_ids(self, value: Any) -> np.ndarray:
        if not missing_value(value):
            key = grid_key(value)
            if key not in self._store.index or self._cache is None:
                dates = date_sort((key,), np.dtype(object))
                if dates is not None:
                    raise datetime_error(str(self.feature_name_), *dates)
                self._store.ids([key])
                self._cache = ("levels", np.arange(len(self._store), dtype=np.intp))
                if len(self._store) == MAX_LEVELS + 1:
                    self._warn_many_levels()
        if self._cache is None:  # only missing levels so far: nothing to evaluate
            return np.empty(0, dtype=np.intp)
        return self._cache[1]

    def _warn_many_levels(self) -> None:
        """Warn once that a categorical feature passed :data:`~ixplain.grids.MAX_LEVELS`
        levels (static PD refuses more; a stream cannot know the count in advance)."""
        warnings.warn(
            f"{OWNER}: categorical feature {self.feature_name_!r} has more than "
            f"{MAX_LEVELS:,} levels; every row is evaluated at each of them ({MAX_LEVELS + 1:,}"
            " model rows per row, and growing with each new level). An identifier column? "
            "Give grid= with the levels to show.", RuntimeWarning, stacklevel=user_stacklevel())

    def _sorted_ids(self) -> np.ndarray:
        return self._active[self._sorted_active()[1]]

    def _sorted_active(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted grid values, order of ``_active`` that sorts them), cached per active set."""
        cached = getattr(self, "_sorted_cache", None)
        if cached is not None and cached[0] is self._active:
            return cached[1], cached[2]
        grid, order = self._sort_active()
        self._sorted_cache = (self._active, grid, order)
        return grid, order

    def _sort_active(self) -> tuple[np.ndarray, np.ndarray]:
        keys = [self._store.keys[i] for i in self._active]
        if self.feature_kind_ == "numeric":
            grid = np.asarray(keys, dtype=np.float64)
            order = np.argsort(grid, kind="stable")
            return grid[order], order
        rank = self._level_rank()  # levels outside the categories: after them, as seen
        sort_key = (lambda i: keys[i]) if rank is None else (lambda i: rank.get(keys[i], len(rank)))
        try:
            order = np.asarray(sorted(range(len(keys)), key=sort_key), dtype=np.intp)
        except TypeError:
            order = np.arange(len(keys))
        grid = np.empty(len(keys), dtype=object)
        grid[:] = [keys[i] for i in order]
        return grid, order

    def _level_rank(self) -> dict[Any, int] | None:
        """An ordered pandas categorical's levels by their position in its categories (the
        order static PD keeps); ``None`` for other features, whose levels are sorted."""
        schema = self._schema
        if schema is None:
            return None
        dtype = schema.dtypes[schema.index(str(self.feature_name_))]
        if not (is_instance(dtype, "pandas", "CategoricalDtype") and dtype.ordered):
            return None
        return {grid_key(c): i for i, c in enumerate(dtype.categories)}


def datetime_error(name: str, sort: str, what: str) -> ValueError:
    """The refusal of a feature of dates, datetimes, durations or periods (``sort`` and
    ``what`` from :func:`~ixplain._validation.date_sort`)."""
    return refuse_datetime(OWNER, name, what, (
        "its grid would get one value per distinct value, without end (partial_dependence "
        "and IncrementalALE refuse them too)."), sort)


def check_grid(grid: Any) -> np.ndarray | None:
    if isinstance(grid, str):
        check_options(grid, "grid", OWNER, ("range",))
        return None
    try:
        arr = np.asarray(grid)
    except Exception:
        arr = np.empty(0)
    rule = "'range' or a 1-D array of distinct, non-missing values"
    if arr.ndim != 1 or arr.size == 0:
        raise param_error(OWNER, "grid", rule, grid)
    keys = [grid_key(v) for v in arr]
    if any(missing_value(v) for v in keys) or len(set(keys)) != len(keys):
        raise param_error(OWNER, "grid", rule, grid)
    if arr.dtype.kind in "iuf":
        return np.sort(arr.astype(np.float64))
    return arr


def check_percentiles(percentiles: Any) -> tuple[float, float]:
    rule = "a pair (low, high) with 0 <= low < high <= 1"
    try:
        lo, hi = (float(p) for p in percentiles)
    except (TypeError, ValueError):
        raise param_error(OWNER, "percentiles", rule, percentiles) from None
    if not (0.0 <= lo < hi <= 1.0):
        raise param_error(OWNER, "percentiles", rule, percentiles)
    return lo, hi
