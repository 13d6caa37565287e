"""The core grid of an incremental PD: what its drift summaries are computed on.

A drift detector attached to an :class:`~ixplain.methods.ipdp.IncrementalPDP` watches, per
row, a few numbers describing the row's ICE curve (:mod:`ixplain.methods._curve_summary`).
For a numeric feature they are computed on the **core grid** alone, fixed per explainer from
the grid of the first row whose range came from enough values (:data:`CORE_AFTER`), less a
margin at each end, and fixed again when the range drifts off it; see the module docstring
of :mod:`ixplain.methods._curve_summary`. :class:`CoreGrid` is the part of
``IncrementalPDP`` that tracks the core and reports the summaries to the observer.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ._curve_summary import curve_labels, curve_summary
from ._pd_points import PointStore, grid_key

__all__ = ["CORE_AFTER", "OWNER", "CoreGrid"]

#: The explainer's name in its messages.
OWNER = "IncrementalPDP"

#: Range values (window or storage: at most ``range_window`` / the storage's size) behind a
#: row's grid before the drift summaries' core grid is fixed from it (see
#: :meth:`CoreGrid._fix_core`); also the consecutive rows whose grid misses a core value
#: after which the core is fixed again (:meth:`CoreGrid._track_core`).
CORE_AFTER = 1000

#: ``(first batch row, core grid or None, fixed again)`` of a run of a batch's rows whose grids
#: came after the same core (see :meth:`IncrementalPDP._grid_ids`).
CorePart = tuple[int, "np.ndarray | None", bool]


class CoreGrid:
    """Mixin of :class:`~ixplain.methods.ipdp.IncrementalPDP`: the core grid and the drift
    summaries reported to the observer (``_on_values``)."""

    _on_values: Any
    _core: np.ndarray | None
    _core_miss: int
    _core_epoch: int
    _store: PointStore
    _active: np.ndarray
    _ice: Any
    _model: Any
    _cache: Any
    feature_name_: str | None
    feature_kind_: str | None
    grid_resolution: int
    grid: Any
    aggregation: str
    n_seen_: int
    _sorted_active: Any

    def _track_core(self, ids: np.ndarray, row: int, n_range: int, need: int,
                    parts: list[CorePart]) -> None:
        """After batch row ``row`` got the grid ``ids`` from a range of ``n_range`` values: fix
        the core once the range came from ``need`` values (:data:`CORE_AFTER`, or fewer with a
        smaller window / storage), and fix it again -- the same way, from this row's grid --
        when the ``need`` last rows' grids all missed a core value (the range drifted off it,
        or the step coarsened past it): the range then came from rows of the miss run alone,
        as the first core's came from rows of the stream's start (a window of ``need`` values
        has turned over; a storage's reservoir mostly). Counted on the explainer's kept rows,
        so the same rows for any batching. Only with a drift hook (an attached detector, or
        the detector's copies of the explainer): the core serves nothing else."""
        if self._on_values is None:
            return
        if self._core is None:
            if n_range >= need and not self._fix_core(ids, row, False, parts):
                self._warn_no_core(len(ids))
            return
        if self._covers(ids):
            self._core_miss = 0
            return
        self._core_miss += 1
        if self._core_miss >= need and self._fix_core(ids, row, True, parts):
            self._core_miss = 0
            self._core_epoch += 1

    def _warn_no_core(self, n_grid: int) -> None:
        """Warn once that an attached drift detector gets no summaries: the grid (of
        ``n_grid`` < 3 values) cannot give a core."""
        if self._on_values is None or self.__dict__.get("_warned_core"):
            return
        self._warned_core = True
        warnings.warn(
            f"{OWNER}: the grid of {self.feature_name_!r} has {n_grid} value(s), fewer than the "
            f"3 a core grid needs, so the drift detector gets no PD summaries (raise "
            f"grid_resolution={self.grid_resolution}, or give a grid of at least 3 values).",
            RuntimeWarning, stacklevel=6,
        )

    def _covers(self, ids: np.ndarray) -> bool:
        """Whether the grid ``ids`` holds every core value (cached for the last grid: rows
        share their grid's array while the range stays on the same lattice points)."""
        cached = self.__dict__.get("_cover_cache")
        if cached is not None and cached[0] is ids and cached[1] is self._core:
            return bool(cached[2])
        assert self._core is not None
        index = self._store.index
        core_ids = [index.get(v, -1) for v in self._core.tolist()]
        covered = min(core_ids) >= 0 and bool(np.isin(core_ids, ids).all())
        self._cover_cache = (ids, self._core, covered)
        return covered

    def _fix_core(self, ids: np.ndarray, row: int, again: bool,
                  parts: list[CorePart]) -> bool:
        """Fix the core grid of the drift summaries from the grid ``ids`` of batch row ``row``
        (see :meth:`_track_core`): its values without a margin of ``max(2, n // 10)`` at each
        end (less for a grid of fewer than 7 values: at least 3 stay), so the edge points that
        the range's sampling noise adds and removes are never core points. A grid of fewer than
        3 values fixes nothing (a later row's does). Records ``(row, core, again)`` in the
        batch's ``parts``. Returns whether it fixed the core."""
        grid = np.sort(self._store.key_array(True)[ids])
        n = len(grid)
        if n < 3:
            return False
        margin = min(max(2, n // 10), (n - 3) // 2)
        self._core = grid[margin : n - margin].copy()
        parts.append((row, self._core, again))
        return True

    def _report_values(
        self, ids: np.ndarray, counts: np.ndarray, ice: np.ndarray, positions: np.ndarray,
        cols: dict[str, np.ndarray], y: np.ndarray | None, parts: list[CorePart],
        good: np.ndarray,
    ) -> None:
        """Give the ``_on_values`` hook (the drift detector) each kept row's ICE-curve
        summary (:func:`ixplain.methods._curve_summary.curve_summary`: slope and curvature on the core
        grid, see :meth:`_core_summary`, or the spread across levels), shape
        (B_kept, n_values), and as ``restarts`` the stream rows from which a core fixed again
        is used (``parts``, see :meth:`_grid_ids`: the detector starts the channel of these
        summaries afresh there). A row not in ``good`` (mask (B_kept,): its ICE curve is not
        finite, the row is skipped) is given as not ok, with its summary of zeros."""
        if not good.all():
            ice = np.where(good[np.repeat(np.arange(len(counts)), counts)][:, None], ice, 0.0)
        restarts: list[int] = []
        if self.feature_kind_ == "numeric":
            values, ok = self._core_summary(ids, counts, ice, parts)
            restarts = [int(self.n_seen_ + positions[i]) for i, _, again in parts if again]
        else:
            values, ok = curve_summary(np.zeros(len(ids)), counts, ice, False)
        self._on_values(values, ok & good, self.n_seen_ + positions, cols, y, restarts=restarts)

    def _core_summary(
        self, ids: np.ndarray, counts: np.ndarray, ice: np.ndarray, parts: list[CorePart]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Slope and curvature of each row's ICE curve on the core grid alone, ``(values
        (B, 2 * n_outputs), ok (B,))``: a row is ok only if its grid holds every value of the
        core its grid came after (``parts``, see :meth:`_grid_ids`; none before the first) -- its other
        grid values are left out."""
        B, k = len(counts), ice.shape[1]
        values, ok = np.zeros((B, 2 * k)), np.zeros(B, dtype=bool)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        ends = [start for start, _, _ in parts[1:]] + [B]
        for (a, core, _), b in zip(parts, ends):
            if core is not None and b > a:
                pairs = slice(offsets[a], offsets[b])
                values[a:b], ok[a:b] = self._core_part(core, ids[pairs], counts[a:b],
                                                       ice[pairs])
        return values, ok

    def _core_part(
        self, core: np.ndarray, ids: np.ndarray, counts: np.ndarray, ice: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_core_summary` of consecutive rows whose grids came after ``core``."""
        B, k = len(counts), ice.shape[1]
        values, ok = np.zeros((B, 2 * k)), np.zeros(B, dtype=bool)
        index = self._store.index
        core_ids = np.fromiter((index.get(v, -1) for v in core.tolist()), dtype=np.intp)
        if len(core_ids) == 0 or (core_ids < 0).any() or B == 0:
            return values, ok  # a core value is no longer held: no row has it
        where = np.full(len(self._store), -1, dtype=np.intp)
        where[core_ids] = np.arange(len(core_ids))
        pos = where[ids]  # the core position of each (row, grid value) pair, -1 if not core
        rows = np.repeat(np.arange(B), counts)
        covered = np.bincount(rows[pos >= 0], minlength=B) == len(core_ids)  # values distinct
        pairs = np.flatnonzero((pos >= 0) & covered[rows])
        pairs = pairs[np.lexsort((pos[pairs], rows[pairs]))]  # row by row, in core order
        n_ok = int(covered.sum())
        summary, fine = curve_summary(core[pos[pairs]], np.full(n_ok, len(core_ids)),
                                      ice[pairs], True)
        values[covered], ok[covered] = summary, fine
        return values, ok

    def _drift_value_names(self, k: int) -> list[str]:
        """Names of the ``k`` values given to the drift hook (:meth:`_report_values`)."""
        numeric = self.feature_kind_ == "numeric"
        n_out = k // 2 if numeric else k
        names = self._model.output_names if n_out > 1 else None
        if names is None or len(names) != n_out:
            names = None if n_out == 1 else [str(i) for i in range(n_out)]
        return curve_labels(str(self.feature_name_), numeric, names)

    def _use_grid(self, grid: Any) -> Any:
        """Restart as a probe of the drift detector: empty estimates, a running mean, and a
        fixed grid (``None``: the current one), the same at every check. Returns the grid."""
        if grid is None:
            grid = self._sorted_active()[0] if len(self._active) else None
        self._store = PointStore()
        self._active = np.empty(0, dtype=np.intp)
        self.__dict__.pop("_sorted_cache", None)
        self._ice.clear()
        self.aggregation = "mean"
        self._core, self._core_miss = None, 0
        if grid is not None:
            self.grid = np.asarray(grid)
            self._cache = ("fixed", self._store.ids([grid_key(v) for v in self.grid]))
            if self.feature_kind_ == "numeric":
                self._core = np.sort(np.asarray(self.grid, dtype=np.float64))
        return grid
