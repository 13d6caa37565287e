"""Incidents, not alarms: the drift detector's events grouped into one entry per change.

A change of the data or of the model makes the detector report several events (a loss change
names three features; a learning model's check names the feature whose role grew; a weak
feature's test fires on its own). :func:`group_events` groups them -- one group per loss
change with the events of its attribution window, one per model check, and the other events
of a channel that start within ``horizon`` rows of each other -- and measures each group on
the **plotted** importances: the explainer's smoothed estimate (its ``history_`` snapshots,
recorded by the detector as it observes the explainer, :class:`SmoothedTrace`) before the
change began and ``horizon`` rows after it, with the explainer's 95 % bounds. The per-row
means of a frozen snapshot that the events carry are on another scale (a frozen model's
values, a few hundred rows' mean): an incident reports what a person sees on the plot.

Which groups are shown
----------------------
``kind="model_update"``
    A scheduled check of a model that keeps learning (a Hoeffding tree growing, SGD steps)
    that found its explanation moved: the model changed as it learned. Shown on the timeline,
    not an alert.
``kind="incident"``
    Every other group whose largest plotted change of a feature it names is at least
    ``min_change`` times the total absolute plotted importance before it (the model
    channel's own ``min_change`` rule, applied to the plotted scale). Groups below that (a
    weak feature's values moved by a test's standards, invisible on the plot) are left out;
    their events stay in :attr:`~ixplain.drift.ExplanationDriftDetector.events_`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._numeric import overflow_reported
from ._state import OWNER
from .base import DriftEvent

__all__ = ["Incident", "IncidentFeature", "SmoothedTrace", "build_incidents", "group_events",
           "incidents_of", "pair_text", "record_snapshot", "event_in_words", "trace_arrays"]

_Z95_DELTA = 0.05  # the bound's delta: the 95 % band the plots draw
#: Rows after a change's start at which ``after`` is read when the explainer does not smooth
#: with a rate (the values channel's attribution window).
DEFAULT_HORIZON = 2000


@dataclass(frozen=True)
class IncidentFeature:
    """One feature an incident moved, in the units and scale of the plotted importances.

    Attributes
    ----------
    name : str
    before, after : float
        The explainer's smoothed estimate at the last snapshot at or before the incident's
        start and at its end (without a trace: the events' own means, see :class:`Incident`).
    change : float
        ``after - before``.
    before_lower, before_upper, after_lower, after_upper : float or None
        The explainer's 95 % bounds around ``before`` and ``after`` (None when unknown).
    named : bool, default=True
        Whether an event of the incident named the feature (False: it is listed because its
        plotted importance moved by the ``min_change`` rule in the same rows).
    """

    name: str
    before: float
    after: float
    change: float
    before_lower: float | None = None
    before_upper: float | None = None
    after_lower: float | None = None
    after_upper: float | None = None
    named: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict of str, float, bool and None (JSON-ready)."""
        return {"name": self.name, "before": _f(self.before), "after": _f(self.after),
                "change": _f(self.change), "before_lower": _f(self.before_lower),
                "before_upper": _f(self.before_upper), "after_lower": _f(self.after_lower),
                "after_upper": _f(self.after_upper), "named": bool(self.named)}


@dataclass(frozen=True)
class Incident:
    """One change of the data or of the model, with the detector's events that found it.

    Built by :meth:`ixplain.drift.ExplanationDriftDetector.incidents`.

    Attributes
    ----------
    id : int
        The incidents are numbered 1, 2, ... in the order of detection, the model updates
        after them (the list is in the order of detection).
    kind : {"incident", "model_update"}
        ``"model_update"``: a scheduled check of a learning model found that its explanation
        moved (the model changed as it learned; a timeline mark, not an alert).
    channel : {"data", "model", "values"}
        Where the change was seen (:class:`~ixplain.drift.DriftEvent`).
    start : int
        First row of the change, 1-based (the estimated start of its first event plus one:
        the number of rows seen when the new regime's first row arrived, the x axis of the
        importance plots).
    detected : int
        Rows seen when the change was found (the first event's row plus one).
    end : int or None
        Rows seen at the snapshot ``after`` is read at (the report: "after read at row N";
        not where the change ended): of the snapshots from ``detected`` to ``horizon`` rows
        after ``start`` (and before the next change of the data; for a model check: at
        ``detected``), the one whose importances are farthest from those before (the sum of
        absolute differences): where the plot shows the change largest, a transient dip
        included. When no snapshot falls in that range, the first one after ``detected``
        (snapshots come every ``history_every`` rows). So ``end >= detected``, unless the
        trace ends before ``detected`` (its last snapshot). None without a trace
        (``scale="event means"``).
    headline : str
        The change in words, e.g. ``"the data changed: the frozen model's loss rose 40 %"``.
    features : tuple of IncidentFeature
        The features the events named and those whose plotted importance moved by at least
        ``min_change`` times the total absolute importance (``named=False``), ranked by
        ``|change|`` on the plotted scale.
    events : tuple of int
        Indices into the detector's ``events_``.
    loss_before, loss_after : float or None
        The frozen model's mean loss before and after (a loss change; else None).
    scale : {"smoothed", "event means"}
        ``"smoothed"``: the numbers are the explainer's smoothed estimate (the plotted
        traces); ``"event means"``: no trace was available (``history_every=0``, values fed
        with ``update_values``), they are the events' means of the per-row values.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain.drift import ExplanationDriftDetector
    >>> rng = np.random.default_rng(0)
    >>> v = rng.normal(0, 0.1, (4000, 2)); v[2000:, 1] += 0.5
    >>> det = ExplanationDriftDetector().update_values(v, feature_names=["a", "b"])
    >>> [i.headline for i in det.incidents()]
    ['the values changed: b rose (-0.001 -> 0.549)']
    """

    id: int
    kind: str
    channel: str
    start: int
    detected: int
    end: int | None
    headline: str
    features: tuple[IncidentFeature, ...]
    events: tuple[int, ...]
    loss_before: float | None = None
    loss_after: float | None = None
    scale: str = "smoothed"

    def to_dict(self) -> dict[str, Any]:
        """The incident as plain JSON types (the report payload's ``incidents`` entries:
        ``id``, ``kind``, ``channel``, ``start``, ``detected``, ``end``, ``headline``,
        ``features`` (list of dicts), ``events``, plus ``loss_before``, ``loss_after``,
        ``scale``)."""
        return {"id": int(self.id), "kind": self.kind, "channel": self.channel,
                "start": int(self.start), "detected": int(self.detected),
                "end": None if self.end is None else int(self.end),
                "headline": self.headline,
                "features": [f.to_dict() for f in self.features],
                "events": [int(i) for i in self.events],
                "loss_before": _f(self.loss_before), "loss_after": _f(self.loss_after),
                "scale": self.scale}


def _f(x: float | None) -> float | None:
    """A float for JSON (None for None or a non-finite number)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


# ---------------------------------------------------------------------- the smoothed trace


class SmoothedTrace:
    """A bounded, thinned record of an explainer's smoothed estimate and its 95 % bounds.

    The detector adds one snapshot each time its explainer publishes one (``on_snapshot``,
    every ``history_every`` rows). At most ``capacity`` snapshots are kept: when full, every
    second one is dropped and from then on only every second snapshot is recorded (the
    stride doubles), so a stream of any length keeps an evenly thinned record of
    ``capacity / 2`` to ``capacity`` snapshots.

    Parameters
    ----------
    k : int
        Features per snapshot.
    capacity : int, default=1024
        Snapshots kept at most (an even number >= 2).

    Attributes
    ----------
    rows : ndarray of shape (n,)
        Rows seen at each snapshot (increasing).
    values, lower, upper : ndarray of shape (n, k)
        The estimate and its 95 % bounds (``lower``/``upper`` NaN when the explainer had no
        bound).

    Examples
    --------
    >>> import numpy as np
    >>> t = SmoothedTrace(1, capacity=4)
    >>> for r in range(1, 11):
    ...     t.add(r * 10, np.array([r]), np.array([0.5]))
    >>> t.rows.tolist(), t.stride        # (the newest snapshot is always kept)
    ([10, 50, 90, 100], 4)
    """

    def __init__(self, k: int, capacity: int = 1024) -> None:
        self.k, self.capacity = int(k), int(capacity)
        self._rows = np.zeros(self.capacity, dtype=np.int64)
        self._values = np.zeros((self.capacity, self.k))
        self._half = np.zeros((self.capacity, self.k))
        self.n = 0
        self.stride = 1
        self._seen = 0  # snapshots offered (the stride picks every stride-th)
        self._last: tuple[int, np.ndarray, np.ndarray] | None = None  # the newest, always

    def add(self, row: int, value: np.ndarray, half_width: np.ndarray) -> None:
        """Offer one snapshot at ``row`` rows seen (kept when it falls on the stride)."""
        self._seen += 1
        self._last = (int(row), np.array(value, dtype=np.float64),
                      np.array(half_width, dtype=np.float64))
        if (self._seen - 1) % self.stride:
            return
        if self.n == self.capacity:
            keep = slice(0, self.capacity, 2)
            m = len(range(*keep.indices(self.capacity)))
            self._rows[:m], self._values[:m], self._half[:m] = (
                self._rows[keep].copy(), self._values[keep].copy(), self._half[keep].copy())
            self.n, self.stride = m, self.stride * 2
            if (self._seen - 1) % self.stride:
                return
        self._rows[self.n] = int(row)
        self._values[self.n] = value
        self._half[self.n] = half_width
        self.n += 1

    def drop_after(self, row: int) -> None:
        """Forget the snapshots past ``row`` rows seen (a part taken back)."""
        self.n = int(np.searchsorted(self._rows[: self.n], row, side="right"))
        if self._last is not None and self._last[0] > row:
            self._last = None

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kept snapshots and, when the stride skipped it, the newest one."""
        rows, values, half = self._rows[: self.n], self._values[: self.n], self._half[: self.n]
        last = self._last
        if last is not None and (self.n == 0 or last[0] > rows[-1]):
            rows = np.append(rows, last[0])
            values = np.vstack([values, last[1][None, :]])
            half = np.vstack([half, last[2][None, :]])
        return rows.copy(), values.copy(), half.copy()

    @property
    def rows(self) -> np.ndarray:
        """Rows seen at each snapshot, shape (n,)."""
        return self._arrays()[0]

    @property
    def values(self) -> np.ndarray:
        """The smoothed estimate at each snapshot, shape (n, k)."""
        return self._arrays()[1]

    @property
    def lower(self) -> np.ndarray:
        """Its lower 95 % bound, shape (n, k)."""
        _, values, half = self._arrays()
        return values - half

    @property
    def upper(self) -> np.ndarray:
        """Its upper 95 % bound, shape (n, k)."""
        _, values, half = self._arrays()
        return values + half


def record_snapshot(detector: Any, n_seen: int, estimate: Any) -> None:
    """The detector's ``on_snapshot``: add the explainer's estimate and its 95 % bound (the
    explainer's ``confidence_bound(0.05)``, the band the plots draw) to the detector's
    :class:`SmoothedTrace` (made at the first snapshot; none for an estimate that is not one
    value per watched feature, e.g. iPDP's curves)."""
    k = detector._k
    value = np.asarray(estimate, dtype=np.float64).reshape(-1)
    if k is None or value.size != k:
        return
    trace = detector.__dict__.get("_smoothed")
    if trace is None:
        trace = detector.__dict__["_smoothed"] = SmoothedTrace(k)
    try:  # (values near 1e200: the bound's squares overflow; a non-finite bound is no band)
        with overflow_reported():
            half = np.asarray(detector.explainer.confidence_bound(_Z95_DELTA),
                              dtype=np.float64).reshape(-1)
    except Exception:  # an explainer without a bound: no band
        half = np.full(k, np.nan)
    if half.size != k:
        half = np.full(k, np.nan)
    trace.add(int(n_seen), value, half)


def trace_arrays(traces: Any, names: list[str]) -> tuple[np.ndarray, ...]:
    """``(rows, values, lower, upper)`` from a ``traces=`` argument: a mapping (or an object
    with these attributes) with ``rows`` (T,) rows seen, ``values`` (T, k) and either
    ``bounds`` (T, k) half-widths or ``lower`` and ``upper`` (T, k); optional
    ``feature_names`` (k,) puts the columns in the detector's order."""
    owner = f"{OWNER}.incidents"

    def get(key: str) -> Any:
        return traces.get(key) if isinstance(traces, dict) else getattr(traces, key, None)

    rows, values = get("rows"), get("values")
    if rows is None or values is None:
        raise ValueError(f"{owner}: traces must have 'rows' and 'values' (and 'bounds' or "
                         f"'lower' and 'upper'); got {type(traces).__name__}.")
    rows = np.asarray(rows, dtype=np.float64).reshape(-1)
    values = np.asarray(values, dtype=np.float64).reshape(len(rows), -1)
    bounds, lower, upper = get("bounds"), get("lower"), get("upper")
    if bounds is not None:
        half = np.asarray(bounds, dtype=np.float64).reshape(values.shape)
        lower, upper = values - half, values + half
    elif lower is not None and upper is not None:
        lower = np.asarray(lower, dtype=np.float64).reshape(values.shape)
        upper = np.asarray(upper, dtype=np.float64).reshape(values.shape)
    else:
        lower = upper = np.full(values.shape, np.nan)
    given = get("feature_names")
    if given is not None:
        given = [str(n) for n in given]
        if sorted(given) != sorted(names):
            raise ValueError(f"{owner}: the traces' feature_names {given} are not the "
                             f"watched features {names}.")
        order = [given.index(n) for n in names]
        values, lower, upper = values[:, order], lower[:, order], upper[:, order]
    elif values.shape[1] != len(names):
        raise ValueError(f"{owner}: the traces have {values.shape[1]} values per row; the "
                         f"detector watches {len(names)} features {names}.")
    if len(rows) > 1 and (np.diff(rows) <= 0).any():
        raise ValueError(f"{owner}: the traces' rows must increase.")
    return rows, values, lower, upper


# ---------------------------------------------------------------------- grouping


@dataclass
class _Group:
    """Events (indices) of one change, while grouping (rows 0-based)."""

    channel: str
    start: int
    detected: int
    events: list[int] = field(default_factory=list)
    losses: list[DriftEvent] = field(default_factory=list)
    scheduled: bool = False


def _attributed(event: DriftEvent) -> bool:
    """Whether an event was named by the attribution after a loss change or an external
    trigger (:meth:`~ixplain.drift.ExplanationDriftDetector.trigger`, whose events' test
    reads ``"external trigger at row N + ..."``)."""
    return "(loss" in event.test or _external(event)


def _external(event: DriftEvent) -> bool:
    """Whether an opener of an attribution window is an external trigger (not a loss
    change)."""
    return event.test.startswith("external trigger")


def trigger_openers(events: list[DriftEvent]) -> list[DriftEvent]:
    """One opener per external trigger that named features (the detector keeps only the
    trigger's row, in ``triggers_``): ``feature="loss"``, the row of the trigger (from the
    events' ``test``, ``"external trigger at row N + ..."``), the start its events share,
    no loss means (NaN)."""
    out: dict[tuple[str, int, int], DriftEvent] = {}
    for e in events:
        found = re.match(r"external trigger at row (\d+)", e.test)
        if found is None:
            continue
        row = int(found.group(1))
        key = (e.channel, row, e.start)
        if key not in out:
            nan = math.nan
            out[key] = DriftEvent(row, e.start, "loss", e.channel, found.group(0), nan, nan,
                                  nan, nan, nan, nan, 0, 0, "increase", nan)
    return list(out.values())


def _loss_of(g: _Group) -> DriftEvent | None:
    """The group's first loss change, else its first external trigger with finite loss
    means (None: neither)."""
    real = [c for c in g.losses if not _external(c)]
    if real:
        return real[0]
    return next((c for c in g.losses if math.isfinite(c.before) and math.isfinite(c.after)),
                None)


def _loss_groups(loss_changes: list[DriftEvent], horizon: int) -> list[_Group]:
    """One group per loss change; a loss change that starts within ``horizon`` rows after an
    earlier one's start (of the same channel) joins it (the same change, seen again)."""
    groups: list[_Group] = []
    for change in sorted(loss_changes, key=lambda e: e.row):
        g = next((g for g in groups if g.channel == change.channel
                  and g.start <= change.start <= g.start + horizon), None)
        if g is None:
            g = _Group(change.channel, change.start, change.row)
            groups.append(g)
        g.losses.append(change)
        g.detected = min(g.detected, change.row)
    return groups


def _home(e: DriftEvent, losses: list[_Group], own: list[_Group], horizon: int
          ) -> _Group | None:
    """The group a data or values event joins: its loss change's (an attribution event of
    the same start), a loss change's whose window holds its start, or the latest group of
    its channel's own events whose window holds it; None: a new group."""
    for g in losses:
        if g.channel == e.channel and _attributed(e) and any(c.start == e.start
                                                             for c in g.losses):
            return g
    for g in [*losses, *reversed(own)]:
        if g.channel == e.channel and g.start <= e.start <= g.start + horizon:
            return g
    return None


def group_events(events: list[DriftEvent], loss_changes: list[DriftEvent], horizon: int,
                 check_every: int) -> list[_Group]:
    """The events grouped into changes, in the order of detection.

    One group per loss change (with the events its attribution named: the same start), one
    per model check (its row; ``scheduled`` when the row is a multiple of ``check_every``
    rows seen), and the other events of a data or values channel: in the loss change's
    group when they start within ``horizon`` rows after its start, else with the events of
    the same channel that started at most ``horizon`` rows before them.
    """
    losses = _loss_groups(loss_changes, horizon)
    models: dict[int, _Group] = {}
    own: list[_Group] = []
    for i in sorted(range(len(events)), key=lambda i: (events[i].start, events[i].row, i)):
        e = events[i]
        if e.channel == "model":
            g = models.setdefault(e.row, _Group("model", e.start, e.row,
                                                scheduled=(e.row + 1) % check_every == 0))
        else:
            found = _home(e, losses, own, horizon)
            if found is None:
                found = _Group(e.channel, e.start, e.row)
                own.append(found)
            g = found
        g.events.append(i)
        g.start, g.detected = min(g.start, e.start), min(g.detected, e.row)
    groups = losses + list(models.values()) + own
    return sorted(groups, key=lambda g: (g.detected, g.start))


# ---------------------------------------------------------------------- measuring


@dataclass(frozen=True)
class _Scale:
    """What incidents are measured on: the plotted trace (rows seen (T,), values, lower,
    upper (T, k)) or, without one, the events' explanations (``changes``)."""

    names: list[str]
    rows: np.ndarray | None
    values: np.ndarray | None
    lower: np.ndarray | None
    upper: np.ndarray | None
    changes: list[Any]

    def at(self, row: int) -> int:
        """Index of the last snapshot at or before ``row`` rows seen (the first if none)."""
        assert self.rows is not None
        return max(int(np.searchsorted(self.rows, row, side="right")) - 1, 0)


def _measure(group: _Group, scale: _Scale, horizon: int, cap: int | None
             ) -> tuple[list[IncidentFeature], int | None]:
    """Every feature's before/after on the plotted scale, and the row ``after`` is read at:
    a snapshot at or after detection (at most ``cap`` rows seen, before the next change of
    the data, unless the first snapshot after detection is later; before detection only
    when the trace ends before it)."""
    start, detected = group.start + 1, group.detected + 1
    if scale.rows is None or not len(scale.rows):
        first = scale.changes[group.events[0]] if group.events else None
        if first is None:
            return [], None
        b, a = np.asarray(first.before), np.asarray(first.after)
        se_b, se_a = np.asarray(first.before_se), np.asarray(first.after_se)
        z = 1.959963984540054
        return [IncidentFeature(n, float(b[j]), float(a[j]), float(a[j] - b[j]),
                                float(b[j] - z * se_b[j]), float(b[j] + z * se_b[j]),
                                float(a[j] - z * se_a[j]), float(a[j] + z * se_a[j]))
                for j, n in enumerate(scale.names)], None
    assert scale.values is not None and scale.lower is not None and scale.upper is not None
    v, lo, hi = scale.values, scale.lower, scale.upper
    i0 = scale.at(start - 1)  # the rows before the change's first row
    last = detected if group.channel == "model" else max(start + horizon, detected)
    if cap is not None:
        last = max(min(last, cap), detected)
    rows = scale.rows
    first = int(np.searchsorted(rows, detected, side="left"))  # at or after detection
    if first >= len(rows):  # (the trace ends before detection: its last snapshot)
        first = len(rows) - 1
    i1 = _farthest(scale, i0, first, max(scale.at(last), first))
    return [IncidentFeature(n, float(v[i0, j]), float(v[i1, j]), float(v[i1, j] - v[i0, j]),
                            _f(lo[i0, j]), _f(hi[i0, j]), _f(lo[i1, j]), _f(hi[i1, j]))
            for j, n in enumerate(scale.names)], int(scale.rows[i1])


def _farthest(scale: _Scale, i0: int, first: int, last: int) -> int:
    """The snapshot in ``first..last`` whose importances are farthest (sum of absolute
    differences) from snapshot ``i0``'s: where the plot shows the change largest."""
    assert scale.values is not None
    window = scale.values[first:last + 1]
    if not len(window):
        return first
    return first + int(np.argmax(np.abs(window - scale.values[i0]).sum(axis=1)))


def _relevant(feats: list[IncidentFeature], min_change: float) -> list[IncidentFeature]:
    """The features whose ``|change|`` is at least ``min_change`` times the larger of the
    total absolute importance before and after."""
    total = max(sum(abs(f.before) for f in feats), sum(abs(f.after) for f in feats))
    return [f for f in feats if abs(f.change) >= min_change * total and f.change != 0]


def build_incidents(events: list[DriftEvent], loss_changes: list[DriftEvent], scale: _Scale,
                    *, horizon: int, check_every: int, min_change: float,
                    static: bool) -> list[Incident]:
    """The incidents and model updates of a detector (see
    :meth:`~ixplain.drift.ExplanationDriftDetector.incidents`)."""
    out: list[Incident] = []
    groups = group_events(events, loss_changes, horizon, check_every)
    starts = sorted(g.start + 1 for g in groups if g.channel != "model")
    for g in groups:
        nxt = next((s for s in starts if s > g.start + 1), None)
        every, end = _measure(g, scale, horizon, None if nxt is None else nxt - 1)
        named = {events[i].feature for i in g.events}
        moved = {f.name for f in _relevant(every, min_change)}
        opened = any(not _external(c) for c in g.losses) or (g.losses and named)
        if not opened and g.channel != "model" and not named & moved:
            continue  # a change no plot shows (the events stay in events_)
        feats = sorted((replace(f, named=f.name in named) for f in every
                        if f.name in named | moved), key=lambda f: -abs(f.change))
        first = _loss_of(g)
        loss = (None, None) if first is None else (first.before, first.after)
        out.append(Incident(
            id=0, kind="model_update" if g.scheduled else "incident",
            channel=g.channel, start=g.start + 1, detected=g.detected + 1, end=end,
            headline=_headline(g, feats, static, scale.rows is not None),
            features=tuple(feats), events=tuple(sorted(g.events)),
            loss_before=loss[0], loss_after=loss[1],
            scale="smoothed" if scale.rows is not None else "event means"))
    # incidents numbered 1, 2, ... (the numbers a reader sees), then the model updates
    order = [i for i in out if i.kind == "incident"] + [i for i in out if i.kind != "incident"]
    ids = {id(inc): n for n, inc in enumerate(order, start=1)}
    return [replace(inc, id=ids[id(inc)]) for inc in out]


# ---------------------------------------------------------------------- words


def _num(x: float) -> str:
    """A number to 3 significant digits with thousands separators (``-46,300``, ``0.5``)."""
    if not math.isfinite(x):
        return "n/a"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag >= 3:
        return f"{round(x, 2 - mag):,.0f}"
    return f"{float(f'{x:.3g}'):g}"


def pair_text(before: float, after: float) -> str:
    """``"before -> after"`` to 3 significant digits of the larger of the two (``"-0.001 ->
    0.549"``, ``"18,300 -> 12,300"``)."""
    top = max(abs(before), abs(after))
    if not math.isfinite(top) or top == 0:
        return f"{_num(before)} -> {_num(after)}"
    mag = math.floor(math.log10(top))
    digits = max(0, 2 - mag)

    def fmt(x: float) -> str:
        return f"{round(x, 2 - mag) + 0.0:,.{digits}f}"

    return f"{fmt(before)} -> {fmt(after)}"


def _ratio(before: float, after: float) -> str:
    """``"rose 40 %"``, ``"rose 5.3-fold"``, ``"fell 80 %"``."""
    if before <= 0 or not math.isfinite(before) or not math.isfinite(after):
        return ("rose" if after > before else "fell") + f" ({pair_text(before, after)})"
    r = after / before
    if r >= 2:
        return f"rose {r:.1f}-fold"
    return f"{'rose' if r >= 1 else 'fell'} {abs(r - 1) * 100:.0f} %"


def _feature_words(feats: list[IncidentFeature], smoothed: bool) -> str:
    if not feats:
        return "no feature's importance moved on the plot"
    f = feats[0]
    verb = "rose" if f.change > 0 else "fell"
    most = " most" if len(feats) > 1 else ""
    what = f"{f.name}'s importance" if smoothed else f.name
    return f"{what} {verb}{most} ({pair_text(f.before, f.after)})"


def _headline(g: _Group, feats: list[IncidentFeature], static: bool, smoothed: bool) -> str:
    """The change in words: the channel, the loss (if it moved), the top feature."""
    top = _feature_words(feats, smoothed)
    if g.channel == "model":
        how = "as it learned" if g.scheduled else "(retrained or replaced)"
        return f"the model changed {how}: {top}"
    what = "the data" if g.channel == "data" else "the values"
    model = "the loss" if g.channel == "values" else (
        "the model's loss" if static else "the frozen model's loss")
    loss = _loss_of(g)
    alarm = next((f"an external alarm at row {c.row + 1}; " for c in g.losses
                  if _external(c)), "")
    if loss is not None and not _external(loss):
        return f"{what} changed: {model} {_ratio(loss.before, loss.after)}; {top}"
    if loss is not None:
        return f"{what} changed: {alarm}{model} {_ratio(loss.before, loss.after)}; {top}"
    if alarm:
        return f"{what} changed: {alarm}{top}"
    if g.channel == "data":
        return f"the data changed without moving the loss: {top}"
    return f"the values changed: {top}"


def event_in_words(event: DriftEvent) -> str:
    """How an event was found, in words a person reads (the technical name stays in
    ``event.test``).

    Parameters
    ----------
    event : DriftEvent

    Returns
    -------
    str

    Examples
    --------
    >>> from ixplain.drift import DriftEvent
    >>> e = DriftEvent(2968, 2460, "temp", "data", "CUSUM(loss, level=0.000154) + mixture "
    ...                "sequence (level=0.00417)", 848, 800, 900, 5126, 5000, 5200, 1000,
    ...                500, "increase", 9.0)
    >>> event_in_words(e)
    "named after the frozen model's loss changed (its values moved since the loss change)"
    """
    test = event.test
    if event.channel == "model":
        return "a check of the current model on the reference rows"
    if "trigger" in test.lower():
        return "named after an external trigger (its values moved since then)"
    if _attributed(event):
        model = "the loss" if event.channel == "values" else "the frozen model's loss"
        if "z-test at the alarm" in test:
            return f"named when {model} changed (its values moved at the alarm)"
        return f"named after {model} changed (its values moved since the loss change)"
    name = test.split("(")[0] or test
    return f"its own values moved ({name} change test)"


def incidents_of(detector: Any, traces: Any, min_change: float | None,
                 horizon: int | None) -> list[Incident]:
    """:meth:`~ixplain.drift.ExplanationDriftDetector.incidents` (its parameters checked,
    its defaults filled in, its scale chosen)."""
    from .._validation import check_float, check_int

    owner = f"{OWNER}.incidents"
    min_change = detector.min_change if min_change is None else float(
        check_float(min_change, "min_change", owner, low=0.0))  # type: ignore[arg-type]
    if horizon is None:
        explainer = detector.explainer
        alpha = getattr(explainer, "alpha", None)
        ema = getattr(explainer, "aggregation", None) == "ema"
        horizon = math.ceil(2.0 / alpha) if ema and alpha else DEFAULT_HORIZON
    horizon = int(check_int(horizon, "horizon", owner, min_value=1))  # type: ignore[arg-type]
    names = list(detector.feature_names_ or [])
    record = detector.__dict__.get("_smoothed")
    rows = values = lower = upper = None
    with overflow_reported():  # (huge importances: non-finite numbers become None)
        if traces is not None:
            rows, values, lower, upper = trace_arrays(traces, names)
        elif record is not None and record.n:
            rows, values, lower, upper = record.rows, record.values, record.lower, record.upper
        scale = _Scale(names, rows, values, lower, upper, detector._changes)
        openers = [*detector.loss_changes_, *trigger_openers(detector.events_)]
        return build_incidents(detector.events_, openers, scale, horizon=horizon,
                               check_every=detector.check_every, min_change=min_change,
                               static=detector.static_model)
