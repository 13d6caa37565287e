"""Loss-triggered attribution in a data channel: a change test on the channel model's own
per-row loss, and, when it fires, an anytime-valid comparison of every feature's values since
the change with those before it.

The per-row loss ``loss(y, f(x))`` of a fixed model moves by much more than any one feature's
explanation values when the data/target relation changes (a static rule's loss goes from 0 to
about 0.5 while its ``salary`` values move by about one standard deviation), so a test on it
says *when* early. It does not say *which* feature: the attribution step does. When the loss
test fires at row ``r`` with the estimated start ``s``, an attribution window opens. From row
``r`` on, at every row ``t``, each feature ``j`` not yet named compares the mean of its values
in ``[s, t]`` (``n`` of them) with the mean of its values in its previous regime before ``s``
(``m`` of them, mean ``mu_b``, standard deviation ``sd_b``), and is named when

``|mean_a - mu_b| > sigma * sqrt((n + rho) * log((n + rho) / (rho * (a / 2)**2))) / n
+ z(1 - a / 4) * sd_b / sqrt(m)``  and  ``n >= MIN_AFTER``,

``a = attribution_level / k``, ``sigma`` the larger of ``sd_b`` and the after values' own
standard deviation, ``rho`` = :data:`RHO` rows. The first term is the two-sided normal-mixture
(Robbins) confidence sequence for the mean of the after values at level ``a / 2``: were the
values i.i.d. ``sigma``-sub-Gaussian with mean ``mu``, the probability that ``|mean_a - mu|``
ever crosses it, at any ``n``, is at most ``a / 2`` (Robbins 1970; Howard et al. 2021, the
normal mixture). The second is a normal confidence interval for ``mu_b`` at level ``a / 2``.
So, given a loss change, the probability that a feature whose mean did not change is named
during the window is at most ``a``, and that any is named at most ``attribution_level``
(Bonferroni over the ``k`` features; approximate: ``sigma`` is estimated and neighbouring rows
may be correlated). The window closes ``horizon`` rows after ``s`` or when every feature has
been named or has fired on its own test. A named feature's own test restarts on the new
regime.

**The look at the alarm row.** At small ``n`` the sequence is loose (at ``n = 20`` and
``a / 2 = 0.0028`` its half-width is 1.12 standard deviations, a fixed-``n`` test's 0.67),
so when the alarm comes at most :data:`LOOK_MAX` (256) rows after ``s``, one fixed-``n`` test is
taken at the alarm row ``r`` on ``[s, r]``: feature ``j`` is named there when

``|mean_a - mu_b| > z(1 - a' / 2) * sigma * sqrt(1 / n + 1 / m)``  and  ``n >= MIN_AFTER``

(a normal two-sample z-test, ``sigma`` as above, ``a' = attribution_level / (2 k')`` for the
``k'`` features the look tests), and the window's sequence runs at half its
level (``a / 2`` per feature) for the rest. The look has the other half, ``attribution_level
/ 2``, Bonferroni over the features it tests: those whose values varied before ``s`` (a
feature whose values were constant, e.g. one the model ignores, has an iPFI of exactly 0; the
sequence still tests it) and, among them, only the ones whose **inputs also moved** when any
did: a two-sample Kolmogorov-Smirnov test of the feature's input values in ``[s, r]`` against
its last :data:`INPUT_BEFORE` before ``s`` (numeric inputs of a data channel; at level ``a``)
rejects. A change of the inputs (a swap, a covariate shift) is evidence of which feature
changed that a concept drift, which moves no input, does not give; the explanation values
alone can point elsewhere (under a swap of ``salary`` for another column, ``age``'s iPFI
drops by more standard errors than ``salary``'s, benchmark). Without a look the sequence has
the whole level. So the family-wise bound above holds per window (the look's allocation
depends on the input test, which is computed from the same rows as the values: approximate);
features named at the same row are ordered by ``|statistic|``. An event says which test
named it: its ``test`` reads ``"CUSUM(loss, level=...) + z-test at the alarm row (fixed n,
level=a')"`` and its ``statistic`` is the look's z, ``(mean_a - mu_b) / (sigma * sqrt(1 / n
+ 1 / m))``, when the look named it (at the alarm row the look is taken first), else
``"CUSUM(loss, level=...) + mixture sequence (level=...)"`` (the sequence's per-feature
level, ``a`` or ``a / 2``) and Welch's z of the event's means. Measured on the benchmark's
static streams (20 seeds; delay / first-ok / found no later than ADWIN): abrupt 46 rows /
70 % / 3 of 20 -> 26 / 65 % / 13; swap 66 / 30 % / 1 -> 35 / 100 % / 8; the look alone
(Bonferroni over all ``k``, no input test): abrupt 27 / 65 %, swap 43 / 10 % (``age``
first).

**External triggers.** A window can also be opened by an alarm from outside
(:meth:`~ixplain.drift.ExplanationDriftDetector.trigger`, or the detector's
``error_detector``, e.g. River's ADWIN on the current model's error, which fires at its row):
at row ``r`` the start ``s`` is the loss test's own change-point estimate made there (the split
of the channel's per-row losses since the loss test's regime start that maximises the CUSUM
score, :meth:`LossTrigger.external_change`), and the window runs as after a loss alarm at
``r`` (the look included); its events' ``test`` reads ``"external trigger at row r + ..."``.
An external trigger is not a loss change: it is not in ``loss_changes_`` and does not renew
the model channel's reference. What it adds is the *when* of a detector that may be faster
than the loss test on a learning model's snapshot (ADWIN on the current model's error); the
*which* is the window's, with the same level.

References
----------
H. Robbins, "Statistical Methods Related to the Law of the Iterated Logarithm", Annals of
Mathematical Statistics 41, 1970. S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon,
"Time-uniform, nonparametric, nonasymptotic confidence sequences", Annals of Statistics 49,
2021.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import ModelEvaluationError
from ._channel import ValueChannel, _quantile, _stats, make_event
from ._state import OWNER
from .base import DriftEvent

__all__ = ["INPUT_BEFORE", "InputMemory", "LOOK_MAX", "LOSS_LAG", "LOSS_SHIFTS", "LossTrigger",
           "MIN_AFTER", "RHO", "is_external", "mixture_bound", "row_losses"]

#: The normal mixture's prior scale in rows: the boundary is tightest near ``n`` of a few
#: times ``RHO`` after values (a change strong enough to move the loss is seen within tens of
#: rows).
RHO = 20.0
#: The loss CUSUMs' design shifts, in standard deviations of the loss before: one for the
#: small shifts of a learning model's snapshot (about 0.3-0.45 sd on the benchmark's Agrawal
#: streams), one for larger ones. The first to fire gives the alarm and restarts the other;
#: each runs at its share of the loss test's level. Measured on the benchmark (5 seeds):
#: 0.5 alone missed 1 of the 5 learning abrupt changes; 0.25 alone found all but took 90
#: rows instead of 58 on the static swap and raised the bike stream's false events from 150
#: to 173 per 100,000 rows; (0.25, 1) raised them to 208; (0.25, 0.5) finds all 5 in 447
#: rows, the static swap in 58, with 150 false events on the bike stream.
LOSS_SHIFTS = (0.25, 0.5)
#: The loss CUSUM's reference lag in rows (see :class:`~ixplain.drift.CUSUMTest`). Measured: a
#: lag of 500 detects the learning model's abrupt change about 25 rows earlier but raises the
#: false events on the stationary bike stream from 150 to 197 per 100,000 rows.
LOSS_LAG = 0
#: Values of the previous regime needed before a feature can be compared.
MIN_BEFORE = 30
#: Values since the change start needed before a feature can be named: the boundary assumes
#: sub-Gaussian values of scale ``sigma``, which one or two extreme rows of a heavy-tailed
#: stream (squared-error PFI) break, and the after values' own spread is not estimated from
#: fewer (a feature whose spread alone changed was named after 1 to 5 rows).
MIN_AFTER = 10
#: The look at the alarm row (a fixed-``n`` test, module docstring) is taken when the loss
#: alarm comes at most this many rows after the change start: a change the loss finds that
#: fast is strong, and at tens to hundreds of rows the sequence is loose against a
#: fixed-``n`` test. Measured (benchmark, bike stream, seed 0): with no limit the look named
#: the means of slow changes 400 to 550 rows long (``temp``, ``month``), raising the false
#: events from 115.7 to 161.9 per 100,000 rows; at 64 rows, 115.7 (the same events as
#: without a look); at 128 and at 256 rows, 127.2 (a loss change 66 rows after its start
#: gets a look, which names ``workingday`` besides ``holiday`` and ``humidity``: with the
#: model channel's 57.8, 185.0, just below ADWIN's 185.1). 256 rather than 64 (``--seeds
#: 5``): the learning model's abrupt change, whose loss alarm comes 180 to 425 rows after
#: its start, is named at the alarm no later than ADWIN in 1 of 5 runs instead of 0
#: (median delay 490 either way), Friedman ``gra`` in 131 rows instead of 173; every other
#: stream as at 64 (benchmark docstring, session 10). A window whose look names nothing
#: runs its sequence at half the level: 2 of the table's changes were named 10 and 25 rows
#: later, 8 earlier.
LOOK_MAX = 256
#: Input rows before the change start that the look's input test compares with those after.
INPUT_BEFORE = 1000


def mixture_bound(n: np.ndarray, level: float, rho: float = RHO) -> np.ndarray:
    """Half-width, in standard deviations, of the two-sided normal-mixture confidence sequence
    for a mean after ``n`` values at level ``level`` (valid simultaneously for every ``n``).

    Parameters
    ----------
    n : ndarray of int
        Numbers of values.
    level : float in (0, 1)
    rho : float, default=RHO
        The mixture's prior scale, in rows.

    Returns
    -------
    ndarray of float, shape of ``n``
        ``sqrt((n + rho) * log((n + rho) / (rho * level**2))) / n``.

    References
    ----------
    Robbins (1970); Howard et al. (2021), the two-sided normal mixture (module docstring).

    Examples
    --------
    >>> b = mixture_bound(np.array([10, 100, 1000]), 0.05)
    >>> bool(b[0] > b[1] > b[2]), round(float(b[2] * np.sqrt(1000)), 1)  # fixed n: 1.96
    (True, 3.2)
    """
    n = np.asarray(n, dtype=np.float64)
    v = n + rho
    return np.sqrt(v * np.log(v / (rho * level * level))) / np.maximum(n, 1.0)


class InputMemory:
    """The numeric input values of the last ``size`` stream rows *before* the newest chunk,
    and all of that chunk (so a look at any row of it sees the same rows, however the stream
    was chunked), for the look's input test.

    One preallocated ring buffer per numeric column (float64) and one of the rows' stream
    indices, of ``size`` plus the longest chunk's rows (grown only for a longer chunk); a
    pickle keeps the last ``size`` rows only (what the next chunk's looks read), so its size
    and the cost per row do not depend on the chunking.

    Parameters
    ----------
    size : int
        Rows kept before the newest chunk.

    Examples
    --------
    >>> mem = InputMemory(3)
    >>> for s in range(0, 6, 2):
    ...     mem.push(np.arange(s, s + 2), {"x": np.arange(s, s + 2) * 10, "c": ["a", "b"]})
    >>> mem.column("x", 1, 6).tolist(), mem.column("c", 0, 6)
    ([10.0, 20.0, 30.0, 40.0, 50.0], None)
    """

    def __init__(self, size: int) -> None:
        self.size = int(size)
        self.rows = np.zeros(0, dtype=np.int64)  # stream rows of the slots (-1: empty)
        self.cols: dict[str, np.ndarray] = {}
        self.pos = 0  # the next slot to write

    def push(self, rows: np.ndarray, cols: Any) -> None:
        """Keep the chunk's numeric columns (as float64; others are not tested: a column that
        is not numeric in this chunk is NaN in its rows, which the test leaves out)."""
        b = len(rows)
        if b == 0:
            return
        if self.size + b > len(self.rows):
            self._grow(self.size + b)
        idx = (self.pos + np.arange(b)) % len(self.rows)
        self.rows[idx] = rows
        numeric = {}
        for name, v in cols.items():
            arr = np.asarray(v)
            if arr.ndim == 1 and arr.dtype.kind in "biuf":
                numeric[name] = arr
                if name not in self.cols:
                    self.cols[name] = np.full(len(self.rows), np.nan)
        for name, col in self.cols.items():
            col[idx] = numeric.get(name, np.nan)
        self.pos = int((self.pos + b) % len(self.rows))

    def _last(self, n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The last ``n`` slots (at most the capacity) in the order they were written."""
        cap = len(self.rows)
        idx = (self.pos - min(n, cap) + np.arange(min(n, cap))) % max(cap, 1)
        return self.rows[idx], {name: col[idx] for name, col in self.cols.items()}

    def _grow(self, capacity: int) -> None:
        """Reallocate for ``capacity`` slots, keeping the last :attr:`size` rows (new arrays:
        a :meth:`saved` state refers to the old ones, untouched)."""
        rows, cols = self._last(self.size)
        self.rows = np.full(capacity, -1, dtype=np.int64)
        self.rows[:len(rows)] = rows
        for name, col in cols.items():
            self.cols[name] = np.full(capacity, np.nan)
            self.cols[name][:len(col)] = col
        self.pos = len(rows) % capacity

    def column(self, name: str, lo: int, hi: int) -> np.ndarray | None:
        """Input ``name`` of the stored rows in ``[lo, hi)`` in stream order (None if it was
        never numeric)."""
        col = self.cols.get(name)
        if col is None:
            return None
        mask = (self.rows >= max(lo, 0)) & (self.rows < hi)
        return col[mask][np.argsort(self.rows[mask], kind="stable")]

    def saved(self, n: int) -> tuple[Any, ...]:
        """What the next :meth:`push` of ``n`` rows changes (its slots, the position, the
        arrays), for :meth:`restore`: ``O(min(n, capacity))`` per column, not a copy."""
        cap = len(self.rows)
        idx = (self.pos + np.arange(min(n, cap))) % max(cap, 1)
        return (self.pos, self.rows, dict(self.cols), idx, self.rows[idx],
                {name: col[idx] for name, col in self.cols.items()})

    def restore(self, saved: tuple[Any, ...]) -> None:
        """Undo the push :meth:`saved` was taken before."""
        self.pos, self.rows, cols, idx, rows, values = saved
        self.cols = cols
        self.rows[idx] = rows
        for name, v in values.items():
            cols[name][idx] = v

    def __getstate__(self) -> dict[str, Any]:
        rows, cols = self._last(self.size)
        keep = rows >= 0
        return {"size": self.size, "rows": rows[keep],
                "cols": {name: col[keep] for name, col in cols.items()}}

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "chunks" in state:  # (pickled as chunks, before the ring buffers)
            state = _from_chunks(state["size"], state["chunks"])
        self.size, self.rows, self.cols = state["size"], state["rows"], state["cols"]
        self.pos = 0  # (full: the next push grows it, keeping these rows)


def _from_chunks(size: int, chunks: list[Any]) -> dict[str, Any]:
    """An :class:`InputMemory` state from the chunks that older versions kept."""
    rows = np.concatenate([r for r, _ in chunks] or [np.zeros(0, dtype=np.int64)])
    names = dict.fromkeys(name for _, cols in chunks for name in cols)
    cols = {name: np.concatenate([c[name] if name in c else np.full(len(r), np.nan)
                                  for r, c in chunks] or [np.zeros(0)]) for name in names}
    keep = slice(max(len(rows) - size, 0), None)
    return {"size": size, "rows": rows[keep].astype(np.int64),
            "cols": {name: col[keep].astype(np.float64) for name, col in cols.items()}}


@dataclass
class _Window:
    """An open attribution window after a loss change found at ``row`` with start ``start``."""

    row: int
    start: int
    close: int
    loss_index: int  # the change in ``LossTrigger.changes``
    todo: list[int]  # features still to compare
    mean_b: np.ndarray
    sd_b: np.ndarray
    n_b: np.ndarray
    prev: np.ndarray  # each feature's regime start before the change
    look_z: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the look's z per feature
    look_level: float = math.nan  # the look's per-feature level (nan: no look)
    sums: np.ndarray = field(default_factory=lambda: np.zeros(0))
    squares: np.ndarray = field(default_factory=lambda: np.zeros(0))
    n: int = 0
    source: str = ""  # what opened it, for an external trigger ("": the loss test)


class LossTrigger:
    """The loss test and the attribution windows of one data channel (see the module).

    Parameters
    ----------
    channel : ValueChannel
        The channel whose feature values are attributed (its memory and tests).
    level : float
        The loss test's level (a share of the family-wise level).
    attribution_level : float
        Family-wise level of the attribution step.
    horizon : int
        Rows after the change start during which attribution runs.
    seed : int
    """

    def __init__(self, channel: ValueChannel, level: float, attribution_level: float,
                 horizon: int, seed: int) -> None:
        self.channel = channel
        # one CUSUM per design shift, each at its share of the level
        self.losses = [
            ValueChannel(channel.name, ["loss"], "cusum", level / len(LOSS_SHIFTS), seed,
                         channel.warmup, channel.memory.values.shape[0], shift=d, lag=LOSS_LAG)
            for d in LOSS_SHIFTS
        ]
        self.level = float(attribution_level) / len(channel.labels)
        self.horizon = int(horizon)
        self.windows: list[_Window] = []
        self.inputs: InputMemory | None = None  # the detector's input rows (or none)
        self.changes: list[DriftEvent] = []
        self.named: list[tuple[int, ...]] = []  # features named for each change
        self._z_before = _quantile(1.0 - self.level / 4.0)
        self.loss_name = f"CUSUM(loss, level={level:.3g})"  # events add the test that named

    def push(self, values: np.ndarray, rows: np.ndarray, losses: np.ndarray | None,
             external: Any = ()) -> list[DriftEvent]:
        """Feed ``(B, k)`` values and ``(B,)`` losses (None: no loss test, windows opened by
        ``external`` only) of stream rows ``rows`` to the channel and the loss test; return
        the channel's events (its own tests and the attribution; the loss changes and the
        external triggers go to :attr:`changes`).

        Row by row, the feature tests see row ``t`` first, then the loss test, then the open
        windows, then an external trigger at ``t`` (``external``: its stream rows, each
        opening a window as a loss change there would, :meth:`external_change`); a feature
        named at row ``t`` restarts its test from row ``t + 1``. The chunk is cut where this
        order matters (while a window is open, one row at a time), so the events do not
        depend on how the stream is chunked.
        """
        ch = self.channel
        alarms, outside = self._alarms(losses, rows, external)
        events: list[DriftEvent] = []
        i, n = 0, len(rows)
        while i < n:
            if self.windows:
                stop = i + 1
            else:  # up to the next alarm
                later = [r for r in alarms if r >= rows[i]]
                stop = int(np.searchsorted(rows, min(later), side="right")) if later else n
            events += ch.push(values[i:stop], rows[i:stop])
            row = int(rows[stop - 1])
            if self.windows:
                events += self._advance(row)
            for change in alarms.get(row, ()):
                w = self._open(change)
                if w is not None:
                    events += self._advance(row, [w])
            i = stop
        for change in outside:  # (triggers at rows without values: nothing to compare)
            self._record(change)
        return events

    def _alarms(self, losses: np.ndarray | None, rows: np.ndarray,
                external: Any) -> tuple[dict[int, list[DriftEvent]], list[DriftEvent]]:
        """The windows to open in these rows, by row (the loss changes first, then the
        external triggers), and the external triggers at rows without values. The loss test
        takes the rows up to each external trigger before its start is estimated there (as
        it would, row by row)."""
        out: dict[int, list[DriftEvent]] = {}
        outside: list[DriftEvent] = []
        i = 0
        for r in sorted(int(t) for t in external):
            cut = int(np.searchsorted(rows, r, side="right"))
            if losses is not None:
                for row, c in self._loss_alarms(losses[i:cut].reshape(-1, 1), rows[i:cut]).items():
                    out.setdefault(row, []).append(c)
            i = max(i, cut)
            change = self.external_change(r)
            (out.setdefault(r, []) if cut and rows[cut - 1] == r else outside).append(change)
        if losses is not None:
            for row, c in self._loss_alarms(losses[i:].reshape(-1, 1), rows[i:]).items():
                out.setdefault(row, []).append(c)
        return out, outside

    def external_change(self, row: int) -> DriftEvent:
        """The change an external trigger at ``row`` stands for (``feature="loss"``, its
        ``test`` ``"external trigger at row N"``): its start is the split of the channel's
        per-row losses since the loss test's regime start that maximises the CUSUM score
        (the loss test's own change-point estimate, made at ``row``; without losses, the row
        itself), ``before`` / ``after`` the mean losses either side of it."""
        loss = self.losses[0]
        source = f"external trigger at row {row}"
        if loss.memory.rows_between(int(loss.last_start[0]), row + 1).size == 0:
            nan = (math.nan, math.nan, 0)
            return make_event(row, row, "loss", self.channel.name, source, nan, nan, 0.0)
        start = loss._change_point(0, row)
        lo = int(loss.last_start[0])
        before = loss.memory.between(lo, start)[:, 0]
        after = loss.memory.between(start, row + 1)[:, 0]
        return make_event(row, start, "loss", self.channel.name, source, _stats(before),
                          _stats(after))

    def open_external(self, row: int, last: int) -> list[DriftEvent]:
        """An external trigger at ``row`` called after the rows up to ``last`` were pushed
        (:meth:`~ixplain.drift.ExplanationDriftDetector.trigger`): the window opens at
        ``row`` and takes the channel's values of the rows ``row`` to ``last`` at once;
        returns the events it names."""
        w = self._open(self.external_change(row))
        if w is None:
            return []
        ch = self.channel
        events = self._extend(w, ch.scaled(ch.memory.between(row, last + 1)),
                              ch.memory.rows_between(row, last + 1))
        if not w.todo or last + 1 >= w.close:
            self.windows.remove(w)
        events.sort(key=lambda e: (e.row, -abs(e.statistic)))
        return events

    def _loss_alarms(self, losses: np.ndarray, rows: np.ndarray) -> dict[int, DriftEvent]:
        """The loss changes in these rows. At the first row where one of the loss CUSUMs
        fires, the others restart too (one change, one alarm): the chunk is replayed up to
        that row from the tests' state before it (a checkpoint of the channels, which
        copies their tests' state, not their memories), so the alarms do not depend on the
        chunking."""
        out: dict[int, DriftEvent] = {}
        i = 0
        while i < len(rows):
            saved = [ch.checkpoint(len(rows) - i) for ch in self.losses]
            found = [e for ch in self.losses for e in ch.push(losses[i:], rows[i:])]
            if not found:
                break
            first = min(found, key=lambda e: (e.row, -abs(e.statistic)))
            cut = int(np.searchsorted(rows, first.row, side="right"))
            for ch, state in zip(self.losses, saved):
                ch.rollback(state)
            for ch in self.losses:
                if not any(e.row == first.row for e in ch.push(losses[i:cut], rows[i:cut])):
                    ch.restart(0, first.start)
            out[first.row] = first
            i = cut
        for ch in self.losses:  # (their events' comparisons are not used)
            ch.__dict__.pop("compared", None)
        return out

    def _record(self, change: DriftEvent) -> None:
        """Keep ``change`` (a loss change or an external trigger) and its named features."""
        self.changes.append(change)
        self.named.append(())

    def _open(self, change: DriftEvent) -> _Window | None:
        ch = self.channel
        s = change.start
        k = len(ch.labels)
        mean_b, sd_b, n_b = np.zeros(k), np.zeros(k), np.zeros(k, dtype=np.int64)
        todo = []
        for j in range(k):
            if ch.last_start[j] >= s or ch.center is None:
                continue  # its own test found a change since (or it is not warmed up)
            # (in the channel's units of 2**-shift: no overflow of the squares near 1e308)
            before = ch.scaled(ch.memory.between(int(ch.last_start[j]), s)[:, j])
            if len(before) < MIN_BEFORE:
                continue
            mean_b[j], sd_b[j], n_b[j] = before.mean(), before.std(ddof=1), len(before)
            todo.append(j)
        self._record(change)
        if not todo:
            return None
        look_z, look_level = self._look_levels([j for j in todo if sd_b[j] > 0], s, change.row)
        w = _Window(change.row, s, s + self.horizon, len(self.changes) - 1, todo, mean_b, sd_b,
                    n_b, ch.last_start.copy(), look_z, look_level, np.zeros(k), np.zeros(k),
                    source=change.test if is_external(change) else "")
        # the values already seen since the change start
        seen = ch.scaled(ch.memory.between(s, change.row))
        if len(seen):
            w.sums += seen.sum(axis=0)
            w.squares += (seen * seen).sum(axis=0)
            w.n = len(seen)
        self.windows.append(w)
        return w

    def _look_levels(self, todo: list[int], s: int, row: int) -> tuple[np.ndarray, float]:
        """The z threshold of each feature's look at the alarm ``row`` (inf: no look) and
        the look's per-feature level (nan: no look): half the attribution level, Bonferroni
        over the features ``todo`` (those whose values varied before ``s``) whose inputs
        moved if any did, else over all of them."""
        out = np.full(len(self.channel.labels), math.inf)
        if not todo or row - s + 1 > LOOK_MAX:
            return out, math.nan
        chosen = [j for j in todo if self._input_moved(j, s, row)] or todo
        share = self.level * len(self.channel.labels) / 2.0 / len(chosen)
        out[chosen] = _quantile(1.0 - share / 2.0)
        return out, share

    def _input_moved(self, j: int, s: int, row: int) -> bool:
        """Whether feature ``j``'s input values in ``[s, row]`` differ from its last
        :data:`INPUT_BEFORE` before ``s`` in its regime (two-sample Kolmogorov-Smirnov at the
        per-feature attribution level; numeric inputs only)."""
        from scipy.stats import ks_2samp  # (not at import: ``import ixplain`` stays light)

        mem = getattr(self, "inputs", None)  # (absent from old pickles)
        name = self.channel.labels[j]
        if mem is None:
            return False
        lo = max(int(self.channel.last_start[j]), s - INPUT_BEFORE)
        before, after = mem.column(name, lo, s), mem.column(name, s, row + 1)
        if before is not None and after is not None:  # (NaN inputs, nan_policy="pass")
            before, after = before[np.isfinite(before)], after[np.isfinite(after)]
        if before is None or after is None or len(before) < MIN_BEFORE or len(after) < MIN_AFTER:
            return False
        return bool(ks_2samp(before, after).pvalue < self.level)

    def _advance(self, row: int, windows: list[_Window] | None = None) -> list[DriftEvent]:
        """Extend the open windows (or ``windows``) by the channel's values at ``row``; name
        the features that cross their boundary; close the windows that are done."""
        values = self.channel.scaled(self.channel.memory.between(row, row + 1))
        if len(values) == 0:
            return []
        at = np.array([row])
        events: list[DriftEvent] = []
        for w in list(self.windows if windows is None else windows):
            events += self._extend(w, values, at)
            if not w.todo or row + 1 >= w.close:
                self.windows.remove(w)
        return events

    def _extend(self, w: _Window, values: np.ndarray, at: np.ndarray) -> list[DriftEvent]:
        ch = self.channel
        keep = (at >= w.row) & (at < w.close)
        if not keep.any():
            return []
        v, r = values[keep], at[keep]
        todo = [j for j in w.todo if ch.last_start[j] == w.prev[j]]  # own test not fired
        w.todo = todo
        if not todo:
            return []
        n = w.n + np.arange(1, len(r) + 1)
        sums = w.sums[todo] + np.cumsum(v[:, todo], axis=0)
        squares = w.squares[todo] + np.cumsum(v[:, todo] ** 2, axis=0)
        w.sums[todo], w.squares[todo], w.n = sums[-1], squares[-1], int(n[-1])
        mean = sums / n[:, None]
        var_a = np.where(n[:, None] > 1, (squares - n[:, None] * mean**2)
                         / np.maximum(n[:, None] - 1, 1), 0.0)
        sd_b = w.sd_b[todo]
        look_z = getattr(w, "look_z", None)  # (absent from old pickles: no look)
        sigma = np.sqrt(np.maximum(np.maximum(sd_b**2, var_a), 1e-300))
        # with a look, the sequence runs at half the level (the look has the other half)
        part = 1.0 if look_z is None or not np.isfinite(look_z).any() else 0.5
        z_b = self._z_before if part == 1.0 else _quantile(1.0 - self.level / 8.0)
        bound = (sigma * mixture_bound(n, part * self.level / 2.0)[:, None]
                 + z_b * sd_b / np.sqrt(w.n_b[todo]))
        # the one fixed-n look at the alarm row: a normal z-test of the two means
        diff, enough = mean - w.mean_b[todo], n[:, None] >= MIN_AFTER
        look_se = sigma * np.sqrt(1.0 / n[:, None] + 1.0 / w.n_b[todo])
        by_look = (np.zeros_like(enough) if look_z is None else
                   (r == w.row)[:, None] & (np.abs(diff) > look_z[todo] * look_se) & enough)
        cross = by_look | ((np.abs(diff) > bound) & enough)
        events = []
        for c, j in enumerate(todo):
            hit = np.flatnonzero(cross[:, c])
            if len(hit):  # (the look's z when the look named it)
                h = hit[0]
                z = float(diff[h, c] / look_se[h, c]) if by_look[h, c] else None
                events.append(self._name(w, j, int(r[h]), z, part))
        w.todo = [j for j in todo if j not in {ch.labels.index(e.feature) for e in events}]
        return events

    def _name(self, w: _Window, j: int, row: int, look: float | None,
              part: float) -> DriftEvent:
        """The event naming feature ``j`` at ``row``; its own test restarts on the new regime.

        ``look``: the look's z when the look named it (the event's ``statistic``; its
        ``test`` names the look and its level), else None (the sequence, at ``part`` of the
        per-feature level, named it; ``statistic`` is Welch's z of the event's means)."""
        ch = self.channel
        after = ch.scaled(ch.memory.between(w.start, row + 1)[:, j])
        back = -ch.shift  # the window's statistics are in units of 2**-shift: back (exact)
        se_b = math.ldexp(w.sd_b[j], back) / math.sqrt(w.n_b[j])
        se_a = (math.ldexp(after.std(ddof=1), back) / math.sqrt(len(after)) if len(after) > 1
                else math.inf)
        loss = (getattr(w, "source", "") or getattr(self, "loss_name", None)
                or self.__dict__["test_name"].split(" + ")[0])
        test = (f"{loss} + mixture sequence (level={part * self.level:.3g})" if look is None
                else f"{loss} + z-test at the alarm row (fixed n, level={w.look_level:.3g})")
        event = make_event(row, w.start, ch.labels[j], ch.name, test,
                           (math.ldexp(w.mean_b[j], back), se_b, int(w.n_b[j])),
                           (math.ldexp(float(after.mean()), back), se_a, len(after)),
                           statistic=look)  # (the look's z when it named it: scale-free)
        ch.found(event, j)  # the memory and regime up to this row
        ch.restart(j, w.start)
        self.named[w.loss_index] = (*self.named[w.loss_index], j)
        return event


def is_external(change: DriftEvent) -> bool:
    """Whether a change of :attr:`LossTrigger.changes` is an external trigger (not a loss
    change)."""
    return change.test.startswith("external trigger")


def feed_error_detector(detector: Any, rows: np.ndarray, errors: np.ndarray) -> list[int]:
    """Give the ``error_detector`` the per-row ``errors`` of stream ``rows`` in row order
    (non-finite ones skipped); return the rows where it fired.

    If its ``update`` (or ``drift_detected``) raises, the detector is put back in place as it
    was before these rows (from a copy made first) and a :class:`ModelEvaluationError`
    naming ``error_detector``, the row and the error is raised from it: as for a failing
    model, nothing of the part is taken and the explainer says which rows were kept and
    where to continue (an interruption, ``KeyboardInterrupt``, propagates as it is).
    """
    saved = _copy_or_none(detector)
    alarms = []
    r, e = -1, math.nan
    try:
        for r, e in zip(np.asarray(rows).tolist(), np.asarray(errors, dtype=float).tolist()):
            if math.isfinite(e):
                detector.update(e)
                if detector.drift_detected:
                    alarms.append(int(r))
    except BaseException as exc:
        back = _put_back(detector, saved)
        if not isinstance(exc, Exception):
            raise
        raise ModelEvaluationError(
            f"{OWNER}: error_detector {type(detector).__name__} raised {type(exc).__name__} on "
            f"the model's loss at stream row {r} (update({e!r})): {exc}. "
            + (f"It was put back as it was before stream row {int(rows[0])}." if back else
               f"It could not be copied: it keeps the rows from {int(rows[0])} to before "
               f"{r} it took.")) from exc
    return alarms


def _copy_or_none(obj: Any) -> Any:
    """A deep copy of ``obj`` (None if it cannot be copied)."""
    try:
        return copy.deepcopy(obj)
    except Exception:
        return None


def _put_back(obj: Any, saved: Any) -> bool:
    """Put ``obj``'s attributes back to those of its copy ``saved`` (its ``__dict__`` and
    slots), in place; False when there is no copy."""
    if saved is None:
        return False
    if hasattr(obj, "__dict__"):
        obj.__dict__.clear()
        obj.__dict__.update(saved.__dict__)
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(saved, name):
                setattr(obj, name, getattr(saved, name))
    return True


def row_losses(explainer: Any, cols: Any, y: Any) -> np.ndarray | None:
    """``loss(y, f(x))`` of ``explainer``'s model on the rows ``cols`` (one batched model
    call through its adapter and loss), or None without labels or a loss."""
    loss = getattr(explainer, "_loss", None)
    if loss is None or y is None:
        return None
    model = explainer._model
    return np.asarray(loss(y, model.predict(explainer._make_table(cols)), model.classes_),
                      dtype=np.float64)
