"""Grids for partial dependence on a stream: a tracked range and a nested lattice of grid values.

The incremental PD (:class:`ixplain.methods.ipdp.IncrementalPDP`) keeps one estimate per grid
*value*. For that to survive drift, grid values must be reusable when the feature's range moves:
a grid rebuilt as ``linspace(min, max)`` at every step would put every point at a new value. Here
the grid is a subset of a fixed lattice instead:

* the *range* ``[lo, hi]`` of the feature is tracked from the stream (:class:`SortedWindow`:
  percentiles of the last ``size`` values, kept sorted so each percentile costs O(1));
* the *step* comes from the 1-2-5 ladder (..., 0.1, 0.2, 0.5, 1, 2, 5, 10, ...): the smallest
  step that puts at most ``grid_resolution`` lattice points in the range
  (:func:`choose_step`);
* the *active grid* is every multiple of the step inside ``[lo, hi]`` (:func:`lattice`). Values
  are computed as ``numerator * 10**exponent`` with one correctly rounded operation, so the same
  decimal value gets the same float whichever step produced it (a point on the 10-lattice is the
  same key on the 5-, 2- and 1-lattices).

A grid value is therefore always a value inside the range of the data seen recently, and the same
value keeps its identity (and its estimate) when the range grows, shrinks or the step changes.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import deque
from typing import Any

import numpy as np

__all__ = [
    "SortedWindow",
    "Step",
    "choose_step",
    "index_bounds",
    "keep_step",
    "lattice",
    "lattice_count",
    "lattice_from_bounds",
]

#: A ladder step ``mantissa * 10**exponent`` with mantissa in {1, 2, 5}.
Step = tuple[int, int]

_MANTISSAS = (1, 2, 5)


class SortedWindow:
    """The last ``size`` values of a stream, kept sorted: O(1) percentiles, O(size) updates.

    Parameters
    ----------
    size : int
        Number of most recent values held.

    Examples
    --------
    >>> w = SortedWindow(3)
    >>> for v in [5.0, 1.0, 3.0, 9.0]:
    ...     w.update(v)
    >>> w.percentile(0.0), w.percentile(0.5), w.percentile(1.0)
    (1.0, 3.0, 9.0)
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._fifo: deque[float] = deque()
        self._sorted: list[float] = []

    def __len__(self) -> int:
        return len(self._fifo)

    #: Values added so far (for :meth:`undo_to`; windows pickled before it count from 0).
    n_updates = 0

    def update(self, value: float) -> None:
        """Add ``value``; drop the oldest value when more than ``size`` are held."""
        self.n_updates += 1
        self._fifo.append(value)
        bisect.insort(self._sorted, value)
        if len(self._fifo) > self.size:
            old = self._fifo.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, old)]

    def mark(self, n: int) -> tuple[int, int, list[float]]:
        """What :meth:`undo_to` needs to take back up to ``n`` later updates: the count of
        updates, the number held and the oldest ``n`` values (those the updates may drop)."""
        return self.n_updates, len(self._fifo), list(itertools.islice(self._fifo, 0, n))

    def undo_to(self, mark: tuple[int, int, list[float]]) -> None:
        """Take back the updates since :meth:`mark` (at most the ``n`` it was given)."""
        n0, held, oldest = mark
        for _ in range(min(self.n_updates - n0, len(self._fifo))):  # the new values kept
            del self._sorted[bisect.bisect_left(self._sorted, self._fifo.pop())]
        for value in reversed(oldest[: held - len(self._fifo)]):
            self._fifo.appendleft(value)
            bisect.insort(self._sorted, value)
        self.n_updates = n0

    def percentile(self, q: float) -> float:
        """The ``q``-quantile (``q`` in [0, 1]) with numpy's default linear interpolation."""
        s = self._sorted
        pos = q * (len(s) - 1)
        i = int(math.floor(pos))
        if i >= len(s) - 1:
            return s[-1]
        frac = pos - i
        return s[i] if frac == 0.0 else s[i] + (s[i + 1] - s[i]) * frac

    def values(self) -> np.ndarray:
        """The held values, oldest first."""
        return np.asarray(self._fifo, dtype=np.float64)


def step_size(step: Step) -> float:
    """The step as a float."""
    m, e = step
    return m * 10.0**e if e >= 0 else m / 10.0 ** (-e)


def _value(numerator: Any, exponent: int) -> Any:
    # one correctly rounded operation: equal decimals give equal floats whatever the step
    if exponent >= 0:
        return numerator * 10.0**exponent
    return numerator / 10.0 ** (-exponent)


def index_bounds(lo: float, hi: float, step: Step) -> tuple[int, int]:
    """First and last lattice index ``k`` with ``k * step`` in ``[lo, hi]`` (exact at the ends)."""
    m, e = step
    h = step_size(step)
    kmin = math.ceil(lo / h - 1e-9)
    if _value(np.float64(kmin * m), e) < lo:
        kmin += 1
    kmax = math.floor(hi / h + 1e-9)
    if _value(np.float64(kmax * m), e) > hi:
        kmax -= 1
    return kmin, kmax


def lattice(lo: float, hi: float, step: Step) -> np.ndarray:
    """The multiples of ``step`` in ``[lo, hi]``, increasing (float64).

    Examples
    --------
    >>> lattice(0.25, 1.0, (2, -1)).tolist()
    [0.4, 0.6, 0.8, 1.0]
    """
    return lattice_from_bounds(*index_bounds(lo, hi, step), step)


def lattice_from_bounds(kmin: int, kmax: int, step: Step) -> np.ndarray:
    """The lattice values ``k * step`` for ``kmin <= k <= kmax``."""
    m, e = step
    if kmax < kmin:
        return np.empty(0)
    return _value(np.arange(kmin, kmax + 1, dtype=np.float64) * m, e)


def lattice_count(lo: float, hi: float, step: Step) -> int:
    """Number of multiples of ``step`` in ``[lo, hi]``."""
    kmin, kmax = index_bounds(lo, hi, step)
    return max(0, kmax - kmin + 1)


def _ladder_below(width: float) -> Step:
    """The largest ladder step <= ``width`` (``width`` > 0)."""
    e = math.floor(math.log10(width))
    best: Step = (5, e - 1)
    for m in _MANTISSAS:
        if step_size((m, e)) <= width * (1 + 1e-12):
            best = (m, e)
    return best


def _next_step(step: Step) -> Step:
    m, e = step
    return (_MANTISSAS[_MANTISSAS.index(m) + 1], e) if m != 5 else (1, e + 1)


def choose_step(lo: float, hi: float, grid_resolution: int) -> Step:
    """The smallest 1-2-5 ladder step with at most ``grid_resolution`` lattice points in range.

    Parameters
    ----------
    lo, hi : float
        The range, ``lo < hi``.
    grid_resolution : int
        Largest number of grid points, >= 2.

    Examples
    --------
    >>> choose_step(20_000.0, 150_000.0, 20)
    (1, 4)
    >>> lattice(20_000.0, 150_000.0, (1, 4)).size
    14
    """
    step = _ladder_below((hi - lo) / grid_resolution)
    while lattice_count(lo, hi, step) > grid_resolution:
        step = _next_step(step)
    return step


def _finer_step(step: Step) -> Step:
    m, e = step
    return (_MANTISSAS[_MANTISSAS.index(m) - 1], e) if m != 1 else (5, e - 1)


def keep_step(lo: float, hi: float, step: Step | None, grid_resolution: int) -> bool:
    """Whether the current ``step`` still fits the range (hysteresis against flip-flopping).

    The step is kept while the range holds at most ``grid_resolution`` of its multiples and the
    next finer ladder step would hold more than ``0.8 * grid_resolution``: a freshly chosen step
    is only replaced once the range grows past the resolution or shrinks by about 20%.

    Examples
    --------
    >>> step = choose_step(0.0, 1.0, 20)  # 0.1: 11 points; 0.05 would give 21
    >>> keep_step(0.0, 0.9, step, 20), keep_step(0.0, 0.7, step, 20)
    (True, False)
    """
    if step is None:
        return False
    if lattice_count(lo, hi, step) > grid_resolution:
        return False
    return lattice_count(lo, hi, _finer_step(step)) > 0.8 * grid_resolution
