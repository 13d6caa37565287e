"""One channel of the explanation drift detector: scaling, one test per feature, a value memory.

A channel receives a stream of value vectors (one value per feature and row) and runs one
:class:`~ixplain.drift.base.ChangeTest` per feature. Values are scaled into [0, 1] (the range
ADWIN's bound assumes) from a warm-up: ``u = clip(0.5 + (v - c) / (4 s), 0, 1)`` with ``c`` the
warm-up median and ``s`` the 90 % quantile of the warm-up deviations from it (their maximum if
that is 0), so most warm-up values fall in [0.25, 0.75] and only the far tail of heavy-tailed
values (squared-error increments) is clipped; a bound set by the largest value would make
ADWIN's range term, ``2 / (3 m) log(2 / delta')``, swamp small shifts. The scaled values are
rounded to 1e-6 (round-off noise of a constant value is not a change). The transform is fixed
once, a monotone map of each value, so a stationary stream stays stationary and the tests'
guarantees carry over.

The scaling is computed on the values times ``2**shift`` (:attr:`ValueChannel.shift`, fixed
at the warm-up: the power of two that brings the warm-up's largest absolute value into
[0.5, 1)), so values near the float limit (1e308: their deviations overflow) and tiny ones
(1e-300, subnormal: the floors below would swamp their spread) are scaled as values of
order 1 are. Multiplying by a power of two is exact, so the scaled values, and the tests'
decisions, are those of the same stream at order 1 (for values that are not subnormal);
a later value beyond the float range after the shift counts as the end of the range (0 or
1).
"""

from __future__ import annotations

import copy
import math
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np

from .._numeric import power_scaled, unit_shift
from .._random import keyed_generator
from .._validation import check_allocation
from ..results.drift import _Z95
from .base import CUSUMTest, DriftEvent, make_test


class ValueMemory:
    """The last ``size`` rows of values (and their stream rows), for before/after means."""

    def __init__(self, size: int, k: int) -> None:
        check_allocation(8 * size * (k + 1), f"memory={size:,} rows of {k} values",
                         "ExplanationDriftDetector", "Give a smaller memory.")
        self.values = np.zeros((size, k))
        self.rows = np.full(size, -1, dtype=np.int64)
        self.pos = 0

    def push(self, values: np.ndarray, rows: np.ndarray) -> None:
        size = len(self.rows)
        if len(rows) >= size:
            values, rows = values[-size:], rows[-size:]
        idx = (self.pos + np.arange(len(rows))) % size
        self.values[idx] = values
        self.rows[idx] = rows
        self.pos = int((self.pos + len(rows)) % size)

    def saved(self, n: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """What the next :meth:`push` of ``n`` rows overwrites (its slots' values and rows
        and the position), for :meth:`restore`: ``O(min(n, size) k)``, not a copy of the
        memory."""
        idx = (self.pos + np.arange(min(n, len(self.rows)))) % len(self.rows)
        return self.pos, idx, self.values[idx], self.rows[idx]

    def restore(self, saved: tuple[int, np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Undo the push :meth:`saved` was taken before (the memory as it was then)."""
        self.pos, idx, values, rows = saved
        self.values[idx] = values
        self.rows[idx] = rows

    def between(self, lo: int, hi: int) -> np.ndarray:
        """Values of the stored rows in ``[lo, hi)`` in stream order, shape (n, k)."""
        mask = (self.rows >= lo) & (self.rows < hi)
        order = np.argsort(self.rows[mask], kind="stable")
        return self.values[mask][order]

    def rows_between(self, lo: int, hi: int) -> np.ndarray:
        """The stored rows in ``[lo, hi)``, in stream order."""
        rows = self.rows[(self.rows >= lo) & (self.rows < hi)]
        return np.sort(rows)


class RowMemory:
    """The last ``size`` (at least) stream rows themselves, in chunks (for iPDP's curves)."""

    def __init__(self, size: int) -> None:
        self.size = int(size)
        self.chunks: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
        self.n = 0

    def push(self, rows: np.ndarray, cols: Any) -> None:
        self.chunks.append((np.array(rows), {k: np.array(v) for k, v in cols.items()}))
        self.n += len(rows)
        while self.n - len(self.chunks[0][0]) >= self.size:
            self.n -= len(self.chunks.pop(0)[0])

    def between(self, lo: int, hi: int) -> dict[str, np.ndarray] | None:
        """The columns of the stored rows in ``[lo, hi)`` (None if there is none)."""
        parts = []
        for rows, cols in self.chunks:
            mask = (rows >= lo) & (rows < hi)
            if mask.any():
                parts.append({k: v[mask] for k, v in cols.items()})
        if not parts:
            return None
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def summary(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column mean and its standard error (``inf`` with fewer than 2 values) of values
    ``(n, k)``, computed on the values divided by the column's largest absolute value (then
    multiplied back), so that values near the float limit (1e300: their squares, even their
    sum, overflow) have a finite mean and standard error."""
    n = len(values)
    if n == 0:
        k = values.shape[1]
        return np.full(k, np.nan), np.full(k, np.inf)
    top = np.abs(values).max(axis=0)
    top = np.where(np.isfinite(top) & (top > 0), top, 1.0)
    scaled = values / top
    mean = scaled.mean(axis=0) * top
    if n < 2:
        return mean, np.full(values.shape[1], np.inf)
    return mean, scaled.std(axis=0, ddof=1) * (top / math.sqrt(n))


def make_event(
    row: int, start: int, feature: str, channel: str, test: str,
    before: tuple[float, float, int], after: tuple[float, float, int],
    statistic: float | None = None,
) -> DriftEvent:
    """An event from (mean, standard error, n) before and after; its ``statistic`` is the
    given one (the test's own), else Welch's z of the two means."""
    (mb, sb, nb), (ma, sa, na) = before, after
    # halves (exact): no overflow of the squares or the difference for values near 1e300
    spread = math.hypot(sb / 2.0, sa / 2.0)
    diff = ma / 2.0 - mb / 2.0
    z = diff / spread if spread > 0 else (0.0 if ma == mb else math.copysign(math.inf, diff))
    if statistic is not None:
        z = statistic
    return DriftEvent(
        row=int(row), start=int(start), feature=feature, channel=channel, test=test,
        before=float(mb), before_low=float(mb - _Z95 * sb), before_high=float(mb + _Z95 * sb),
        after=float(ma), after_low=float(ma - _Z95 * sa), after_high=float(ma + _Z95 * sa),
        n_before=int(nb), n_after=int(na),
        direction="increase" if ma >= mb else "decrease", statistic=float(z),
    )


class ValueChannel:
    """Per-feature change tests over value vectors (the ``"data"`` and ``"values"`` channels).

    Parameters
    ----------
    name : str
        The channel named in events.
    labels : list of str
        One per value column.
    test : str
        A name of :func:`~ixplain.drift.base.make_test`.
    level : float
        Per-feature level (the detector's ``delta`` over the number of tests, Bonferroni).
    seed : int
    warmup : int
        Rows used to fix the scaling before any test runs.
    memory : int
        Rows of values kept for before/after means.
    shift : float, optional
        The CUSUM's design shift (default: the test's own). Given for the loss tests of
        :class:`~ixplain.drift._attribution.LossTrigger`, whose CUSUMs run without the mean
        confirmation (``confirm=False``).
    lag : int, default=0
        With ``shift``: the CUSUM's ``lag`` (see :class:`~ixplain.drift.CUSUMTest`).
    """

    shift = 0  # the power of two the values are scaled by (channels pickled before it: none)

    def __init__(self, name: str, labels: list[str], test: str, level: float, seed: int,
                 warmup: int, memory: int, shift: float | None = None, lag: int = 0) -> None:
        self.name = name
        self.labels = list(labels)
        k = len(labels)
        self._spec = (test, float(level), int(seed), int(warmup), shift, int(lag))
        self.tests = [self._new_test(j) for j in range(k)]
        self.warmup = int(warmup)
        self._pending: list[tuple[np.ndarray, np.ndarray]] = []
        self._n_pending = 0
        self.center: np.ndarray | None = None
        self.scale: np.ndarray | None = None
        self.memory = ValueMemory(memory, k)
        self.last_start = np.full(k, -1, dtype=np.int64)  # the current regime's first row
        self.n_rows = 0
        self.trigger: Any = None  # a data channel's LossTrigger (ixplain.drift._attribution)
        # the before/after comparisons of the events of the current push, taken when found
        self.compared: dict[tuple[int, str], tuple[np.ndarray, ...]] = {}

    def _new_test(self, j: int) -> Any:
        test, level, seed, warmup, shift, lag = self._spec
        if self._is_loss and shift is not None:  # (shift: for the type checker)
            # a loss test (its own design shift): any change of the loss opens an attribution
            # window, which tests the features' means itself, so no mean confirmation (it
            # delayed the benchmark's static loss alarms by about 10 rows, the swap's by 20)
            return CUSUMTest(level, warmup=warmup, shift=shift, lag=lag, confirm=False)
        return make_test(test, level, int(keyed_generator(seed, "test", self.name, j)
                                          .integers(2**31)), warmup=warmup)

    def restart(self, j: int, start: int) -> None:
        """A change of feature ``j`` from row ``start`` found elsewhere: its test starts
        again (warming up on the values that follow) and its regime begins at ``start``."""
        self.tests[j] = self._new_test(j)
        self.last_start[j] = start

    def found(self, event: DriftEvent, j: int) -> None:
        """Keep, in :attr:`compared`, what the explanation of ``event`` (on feature ``j``,
        found now) needs: its :meth:`compare` and the first row of the regime it closes, both
        as they are now (a warm-up or an earlier event in the same push moves them later), so
        the explanation does not depend on how the stream was chunked."""
        prev = int(self.last_start[j])
        self.__dict__.setdefault("compared", {})[(event.row, event.feature)] = (
            *self.compare(event, prev), prev)  # ("compared": absent from old pickles)

    def checkpoint(self, n: int) -> tuple[Any, ...]:
        """The channel's state before a :meth:`push` of ``n`` rows, for :meth:`rollback`:
        copies of the tests, the warm-up and regime state and what the push overwrites in the
        memory (not the whole memory: cheap for a small ``n``)."""
        return (self.memory.saved(n), [copy.deepcopy(t) for t in self.tests], self.n_rows,
                list(self._pending), self._n_pending, self.center, self.scale,
                self.last_start.copy(), self.shift)

    def rollback(self, state: tuple[Any, ...]) -> None:
        """Return to the :meth:`checkpoint` ``state``, taken before the pushes since (at
        most the ``n`` rows it was taken for)."""
        memory, tests, self.n_rows, pending, self._n_pending, self.center, self.scale, \
            last_start, self.shift = state
        self.memory.restore(memory)
        self.tests, self._pending, self.last_start = tests, pending, last_start

    def push(self, values: np.ndarray, rows: np.ndarray) -> list[DriftEvent]:
        """Feed ``(B, k)`` values of stream rows ``rows`` (increasing); return new events."""
        if len(rows) == 0:
            return []
        self.n_rows += len(rows)
        if self.center is None:
            stored = self._n_pending  # the warm-up rows before this push are in the memory
            self._pending.append((values, rows))
            self._n_pending += len(rows)
            if self._n_pending < self.warmup:
                self.memory.push(values, rows)
                return []
            values = np.concatenate([v for v, _ in self._pending])
            rows = np.concatenate([r for _, r in self._pending])
            self._pending = []
            self._fix_scale(values[: self.warmup])  # the first rows: the same for any chunking
            self.last_start[:] = rows[0]
            return self._run_tests(values, rows, stored)
        return self._run_tests(values, rows)

    def _fix_scale(self, values: np.ndarray) -> None:
        """The warm-up ``values``' centre and scale, in units of ``2**-shift`` (module)."""
        top = float(np.abs(values).max())
        if top > 0:  # (finite: the detector refuses others)
            self.shift = unit_shift(top)  # top * 2**shift in [0.5, 1)
            values = self.scaled(values)
        self.center = np.median(values, axis=0)
        dev = np.abs(values - self.center)
        spread = np.quantile(dev, 0.9, axis=0)
        spread = np.where(spread > 0, spread, dev.max(axis=0))  # mostly-constant values
        # a floor for constant columns, relative to the largest spread and to the column's
        # own level (round-off of a constant value is not a change)
        floor = np.maximum(max(float(spread.max()) * 1e-9, 1e-300), 1e-9 * np.abs(self.center))
        self.scale = np.maximum(spread, floor)

    def _run_tests(self, values: np.ndarray, rows: np.ndarray,
                   stored: int = 0) -> list[DriftEvent]:
        """Run the tests on values of which the first ``stored`` are in the memory already;
        the rest enter it row by row up to each event, so an event's means (and its
        :meth:`compare`, kept in :attr:`compared`) see the last ``size`` rows up to its row,
        however the stream was chunked."""
        assert self.center is not None and self.scale is not None
        u = self.unit(values)
        hits: list[tuple[int, int]] = []  # (row index in batch, feature)
        for j, test in enumerate(self.tests):
            update = test.update
            hits.extend((i, j) for i, v in enumerate(u[:, j].tolist()) if update(v))
        events = []
        for i, j in sorted(hits):
            if i >= stored:
                self.memory.push(values[stored:i + 1], rows[stored:i + 1])
                stored = i + 1
            row = int(rows[i])
            start = self._change_point(j, row)
            event = self._event(row, start, j)
            if not self._mean_moved(event):
                continue
            self.found(event, j)
            events.append(event)
            self.last_start[j] = start
        self.memory.push(values[stored:], rows[stored:])
        # same row: the strongest change first
        events.sort(key=lambda e: (e.row, -abs(e.statistic)))
        return events

    def unit(self, values: np.ndarray) -> np.ndarray:
        """The values the tests see: ``u = clip(0.5 + (v - c) / (4 s), 0, 1)`` (module),
        rounded to 1e-6 of the range (round-off noise of a constant value, an exactly linear
        model's ICE slope on a grid that moves, is not a change)."""
        assert self.center is not None and self.scale is not None
        return np.round(np.clip(0.5 + (self.scaled(values) - self.center) / (4.0 * self.scale),
                                0.0, 1.0), 6)

    def _mean_moved(self, event: DriftEvent) -> bool:
        """Whether an alarm of a feature test is an event: the means it reports before and
        after differ at the test's level (``|statistic| >= z(1 - level / 2)``, Welch's z).
        The tests watch the bounded values :meth:`unit` (clipped at the warm-up's tails), whose
        mean also moves when only the spread of the values grows (clipping a wider
        distribution that is not symmetric about the clip range's centre); an explanation's
        *mean* is what an event claims changed. The loss tests' alarms (``shift`` given) open
        attribution windows, which test the features' means themselves: not confirmed."""
        return self._is_loss or abs(event.statistic) >= _quantile(1.0 - self._spec[1] / 2.0)

    @property
    def _is_loss(self) -> bool:
        """The channel tests a loss (:class:`~ixplain.drift._attribution.LossTrigger`)."""
        test, _, _, _, shift, _ = self._spec
        return test == "cusum" and shift is not None

    def scaled(self, values: np.ndarray) -> np.ndarray:
        """``values * 2**shift`` (exact; a value beyond the float range becomes +-inf,
        which the scaling clips to 0 or 1)."""
        return power_scaled(values, self.shift)

    def _change_point(self, j: int, row: int) -> int:
        """First row of the new regime: the split of feature ``j``'s values since its last
        change that maximises ``|mean_after - mean_before| * sqrt(n_b n_a / n)``, computed on
        the bounded values the test saw (:meth:`unit`: one extreme row of a heavy-tailed
        stream cannot place the split just before itself), with at least 2 values after it
        (so the after mean has a standard error). A loss test's split is that of the raw
        losses (the start of an attribution window; measured on the benchmark, the bounded
        values moved Friedman ``gra``'s model checks: 2.5 more model events per 100,000
        rows)."""
        lo = int(self.last_start[j])
        v = self.memory.between(lo, row + 1)
        v = (v if self._is_loss else self.unit(v))[:, j]
        seg_rows = self.memory.rows_between(lo, row + 1)
        n = len(v)
        if n < 4:
            return int(seg_rows[max(n - 2, 0)]) if n else row
        top = float(np.abs(v).max())
        c = np.cumsum(v / top if math.isfinite(top) and top > 0 else v)  # (no overflow)
        t = np.arange(1, n - 1)  # split after t values
        diff = (c[-1] - c[:-2]) / (n - t) - c[:-2] / t
        score = np.abs(diff) * np.sqrt(t * (n - t) / n)
        return int(seg_rows[int(np.argmax(score)) + 1])

    def _event(self, row: int, start: int, j: int) -> DriftEvent:
        before = self.memory.between(int(self.last_start[j]), start)[:, j]
        after = self.memory.between(start, row + 1)[:, j]
        return make_event(
            row, start, self.labels[j], self.name, self.tests[j].name,
            _stats(before), _stats(after),
        )

    def compare(self, event: DriftEvent, previous_start: int) -> tuple[np.ndarray, ...]:
        """Means and standard errors of every feature before and after ``event``, the
        counts, and the values themselves (``(n_before, k)``, ``(n_after, k)``: for the
        change's test)."""
        before = self.memory.between(previous_start, event.start)
        after = self.memory.between(event.start, event.row + 1)
        mb, sb = summary(before)
        ma, sa = summary(after)
        return mb, sb, ma, sa, np.array([len(before), len(after)]), before, after


@lru_cache(maxsize=64)
def _quantile(p: float) -> float:
    """The standard normal quantile at ``p`` (cached: the tests ask for the same few levels
    at every row and every alarm)."""
    return NormalDist().inv_cdf(p)


def _stats(v: np.ndarray) -> tuple[float, float, int]:
    """Mean, its standard error and the count of one feature's values (see :func:`summary`)."""
    mean, se = summary(np.asarray(v, dtype=np.float64).reshape(-1, 1))
    return float(mean[0]), float(se[0]), len(v)


def as_float_rows(values: Any, k: int | None, owner: str) -> np.ndarray:
    """Values as float64 ``(B, k)``; raises for a changed width or non-finite values."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{owner}: explanation values must be numbers, an array of shape "
                        f"(n_rows, n_features); got {type(values).__name__}.") from None
    if arr.ndim == 0 or arr.size == 0 or arr.ndim > 2:
        raise ValueError(f"{owner}: explanation values must be an array of shape (n_rows, "
                         f"n_features) (or one row of n_features) with at least one value; got "
                         f"shape {arr.shape}.")
    if arr.ndim == 1:
        arr = arr.reshape(1, -1) if k is None or arr.shape[0] == k else arr.reshape(-1, 1)
    arr = arr.reshape(arr.shape[0], -1)
    if k is not None and arr.shape[1] != k:
        raise ValueError(
            f"{owner}: got {arr.shape[1]} values per row, but the detector watches {k} "
            "features (the feature set cannot change; build a new detector)."
        )
    return arr
