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

Two exceptions follow the data's own values. An integer feature with at most
``grid_resolution`` distinct values in the window or storage (:func:`is_discrete`) is gridded
at those values (:meth:`SortedWindow.levels`, :func:`discrete_levels`), as static PD grids a
feature with fewer distinct values than its resolution; and an integer-valued feature's lattice
step is at least 1. The lattice values of a
step >= 1 are integers, so the levels and the lattice share their values (and estimates) when
the grid switches between the two.

Every finite range can be gridded, from subnormal spreads (1e-310) to ranges that straddle
+-1e308: widths are computed as ``hi / R - lo / R`` (``hi - lo`` may overflow), powers of ten
beyond 1e300 in two factors (``10.0**309`` overflows, ``10.0**-309`` underflows), the steps
stop at the smallest float (5e-324), and a step far too fine for a range (the lattice index
``lo / step`` overflows) counts as holding more points than any resolution.
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
    "discrete_levels",
    "index_bounds",
    "is_discrete",
    "keep_step",
    "lattice",
    "lattice_count",
    "lattice_from_bounds",
]

#: A ladder step ``mantissa * 10**exponent`` with mantissa in {1, 2, 5}.
Step = tuple[int, int]

_MANTISSAS = (1, 2, 5)
#: The finest step: 5e-324, the smallest float (finer ladder steps round to 0 or to it).
_FINEST: Step = (5, -324)
#: ``10.0**e`` is formed in two factors beyond this exponent (one would overflow/underflow).
_SPLIT = 300
#: The count of a step whose lattice index overflows: more than any grid resolution.
_TOO_MANY = 2**63


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
        self._counts: dict[float, int] = {}  # distinct values held and their multiplicity
        self._n_fractional = 0  # held values that are not integers

    def __setstate__(self, state: dict) -> None:
        # windows pickled before the distinct values were counted: count them now
        self.__dict__.update(state)
        if "_counts" not in state:
            self._counts, self._n_fractional = {}, 0
            for v in self._fifo:
                self._count(v, 1)

    def __len__(self) -> int:
        return len(self._fifo)

    #: Values added so far (for :meth:`undo_to`; windows pickled before it count from 0).
    n_updates = 0

    def update(self, value: float) -> None:
        """Add ``value``; drop the oldest value when more than ``size`` are held."""
        self.n_updates += 1
        self._fifo.append(value)
        bisect.insort(self._sorted, value)
        self._count(value, 1)
        if len(self._fifo) > self.size:
            old = self._fifo.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, old)]
            self._count(old, -1)

    def _count(self, value: float, change: int) -> None:
        n = self._counts.get(value, 0) + change
        if n:
            self._counts[value] = n
        else:
            del self._counts[value]
        if value != math.floor(value):
            self._n_fractional += change

    @property
    def integer_valued(self) -> bool:
        """Whether every value held is an integer (``True`` for an empty window)."""
        return self._n_fractional == 0

    def levels(self, limit: int) -> list[float] | None:
        """The distinct values held, increasing, if they make a discrete feature's grid (see
        :func:`discrete_levels`); ``None`` otherwise.

        Examples
        --------
        >>> w = SortedWindow(10)
        >>> for v in [3.0, 1.0, 3.0, 0.0]:
        ...     w.update(v)
        >>> w.levels(5), w.levels(2)
        ([0.0, 1.0, 3.0], None)
        """
        counts = self._counts
        if not is_discrete(len(counts), self._n_fractional == 0, limit):
            return None
        return sorted(counts)

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
        return s[i] if frac == 0.0 else lerp(s[i], s[i + 1], frac)

    def values(self) -> np.ndarray:
        """The held values, oldest first."""
        return np.asarray(self._fifo, dtype=np.float64)


def is_discrete(n_distinct: int, integer: bool, limit: int) -> bool:
    """Whether values with ``n_distinct`` distinct ones (all integers if ``integer``) are a
    discrete feature whose grid is its distinct values: integers, at most ``limit`` of them
    (scikit-learn's rule, with ``grid_resolution``). Integers only: every lattice value of a
    step >= 1 is an integer, so the grid keeps its values (and their estimates) when it
    switches between levels and lattice; a float feature of few values (a temperature in
    steps of 0.82 early in a seasonal stream) would lose them at the switch."""
    return integer and 0 < n_distinct <= limit


def discrete_levels(values: np.ndarray, limit: int) -> list[float] | None:
    """:meth:`SortedWindow.levels` of the finite, increasing ``values`` (a storage's).

    Examples
    --------
    >>> discrete_levels(np.array([0.0, 0.0, 2.0, 4.0]), 3), discrete_levels(np.array([0.5]), 3)
    ([0.0, 2.0, 4.0], None)
    """
    if values.size == 0:
        return None
    new = np.flatnonzero(values[1:] != values[:-1]) + 1
    n_distinct = int(new.size) + 1
    if n_distinct > limit:  # (cheap test first: a continuous feature stops here)
        return None
    integer = bool(np.all(values == np.floor(values)))
    if not is_discrete(n_distinct, integer, limit):
        return None
    return values[np.r_[0, new]].tolist()


def lerp(a: float, b: float, frac: float) -> float:
    """``a + (b - a) * frac`` (numpy's linear interpolation), without overflow when ``b - a``
    does (``a = -1e308, b = 1e308``: then ``a * (1 - frac) + b * frac``).

    Examples
    --------
    >>> lerp(1.0, 3.0, 0.5), lerp(-1e308, 1e308, 0.75)
    (2.0, 5e+307)
    """
    d = b - a
    if math.isinf(d):
        return a * (1.0 - frac) + b * frac
    return a + d * frac


def step_size(step: Step) -> float:
    """The step as a float (``inf`` for a step beyond the largest float)."""
    return float(_value(step[0], step[1]))


def _value(numerator: Any, exponent: int) -> Any:
    # one correctly rounded operation: equal decimals give equal floats whatever the step
    # (beyond 1e+-300, two: the same two for every step, so equal decimals stay equal floats)
    if exponent > _SPLIT:
        big = 10.0 ** min(exponent - _SPLIT, _SPLIT)  # 1e308 * 1e300 is inf, as it should be
        with np.errstate(over="ignore"):
            return numerator * big * 10.0**_SPLIT
    if exponent >= 0:
        return numerator * 10.0**exponent
    if -exponent > _SPLIT:
        return numerator / 10.0 ** (-exponent - _SPLIT) / 10.0**_SPLIT
    return numerator / 10.0 ** (-exponent)


def index_bounds(lo: float, hi: float, step: Step) -> tuple[int, int]:
    """First and last lattice index ``k`` with ``k * step`` in ``[lo, hi]`` (exact at the ends).

    Raises
    ------
    OverflowError
        If ``step`` is so fine for the range that ``lo / step`` or ``hi / step`` overflows (see
        :func:`lattice_count`, which counts such a lattice as :data:`_TOO_MANY` points).
    """
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
    """Number of multiples of ``step`` in ``[lo, hi]`` (:data:`_TOO_MANY` for a step so fine
    that the lattice index overflows, e.g. a step of 1e-5 kept when the range jumps to 5e307)."""
    h = step_size(step)
    if not (math.isfinite(lo / h) and math.isfinite(hi / h)):
        return _TOO_MANY
    kmin, kmax = index_bounds(lo, hi, step)
    return max(0, kmax - kmin + 1)


def _ladder_below(width: float) -> Step:
    """The largest ladder step <= ``width``, at least :data:`_FINEST` (also for ``width`` 0:
    ``hi / grid_resolution`` underflows to 0 for values at the smallest subnormal, 5e-324)."""
    if not width > 0.0:
        return _FINEST
    e = math.floor(math.log10(width))
    best: Step = (5, e - 1)
    for m in _MANTISSAS:
        if step_size((m, e)) <= width * (1 + 1e-12):
            best = (m, e)
    return best if best[1] > _FINEST[1] else _FINEST


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

    Returns
    -------
    Step
        At least ``2**-50 * max(|lo|, |hi|)`` (so the lattice points are distinct floats: a
        range narrower than that may hold one point, or none) and at least 5e-324.

    Examples
    --------
    >>> choose_step(20_000.0, 150_000.0, 20)
    (1, 4)
    >>> lattice(20_000.0, 150_000.0, (1, 4)).size
    14
    """
    # hi - lo may overflow; a step below 2**-50 of the values would put lattice indices past
    # 2**53, where k * mantissa is no longer exact and neighbouring points round to one float
    floor = 2.0**-50 * max(abs(lo), abs(hi))
    step = _ladder_below(max(hi / grid_resolution - lo / grid_resolution, floor))
    if step_size(step) < floor:  # the largest ladder step below the floor: the next is above
        step = _next_step(step)
    while lattice_count(lo, hi, step) > grid_resolution:
        step = _next_step(step)
    return step


def _finer_step(step: Step) -> Step:
    m, e = step
    if step == _FINEST:
        return step
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
