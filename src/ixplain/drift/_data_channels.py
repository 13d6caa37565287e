"""The data channels of the drift detector: per-feature change tests on the explainer's
per-row values.

Each value the explainer publishes (``on_values``) goes to a channel (:class:`ValueChannel`:
its change test, warm-up, its row memory); with ``static_model`` or more draws the detector
explains the rows again with its own copies of the explainer (the *shadows*) so that the values
tested do not depend on the explainer's learning model. :class:`DataChannels` is that part of
:class:`~ixplain.drift.ExplanationDriftDetector`.

The ``error_detector`` (any detector with River's protocol) takes the model's per-row loss
before the chunk's values are pushed, row by row: the explainer's own loss with a static model
(the rows with values), the current model's with a learning one (one batched model call per
chunk; every row but the stream's first, which has no values either way); each row where it
fires opens an attribution window in the data channels at that row
(:mod:`ixplain.drift._attribution`, external triggers), so its windows, like the loss test's,
do not depend on how the stream is chunked."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from .._numeric import unit_shift
from .._validation import check_float, param_error
from ..change._stats import independent_change, paired_change
from ..results.drift import DriftExplanation
from ._attribution import LossTrigger, feed_error_detector, is_external, row_losses
from ._channel import ValueChannel
from ._snapshot import (
    Capture,
    detached_copy,
    pd_curves,
    pseudo_labels,
)
from ._state import OWNER, DetectorState
from .base import DriftEvent

#: Whose per-row loss the ``error_detector`` takes: ``"model"``, the current model's (one
#: batched model call per chunk with a learning model), or ``"snapshot"``, the newest frozen
#: snapshot's (its data channel's loss, no model call; the detector starts afresh at each
#: new snapshot, and there is none before the first model check). Measured on the
#: benchmark (``bench_explanation_drift.py --trigger``, module docstring): ``"model"``.
ERROR_OF = "model"


class DataChannels(DetectorState):
    """Mixin of :class:`~ixplain.drift.ExplanationDriftDetector`: the data channels."""

    error_detector: Any = None  # (detectors pickled before it: none)

    def _run_shadows(self, shadows: list[tuple[Any, ValueChannel, Capture]], cols: Any,
                     y: Any, undo: Any) -> list[tuple[int, Any, Any, Any, Any]]:
        """Each data-channel copy of the explainer takes the chunk (its model's labels with
        ``label_free``), all or nothing (the undo of each is kept in ``undo``); returns, per
        copy with values, ``(index, flat values, mask of the kept rows, their losses, its
        core restarts)``."""
        k = self._k
        if self.error_detector is not None and ERROR_OF == "model":  # (one model call)
            self.__dict__["_chunk_errors"] = self._model_errors(cols, y)
        out = []
        for i, (shadow, _, capture) in enumerate(shadows):
            yy = pseudo_labels(shadow._model, shadow._make_table(cols)) if self.label_free else y
            undo.parts.append(shadow._run_part(cols, yy, False, full=True))
            if capture.values is not None and capture.ok is not None:
                ok = capture.ok
                flat = capture.values.reshape(len(ok), -1)[:, :k]
                losses = self._losses(shadow, cols, y, capture.losses)
                out.append((i, flat, ok, losses, capture.restarts))
        return out

    def _push_shadows(self, fed: list, rows: np.ndarray) -> None:
        """Push the values of the data-channel copies (:meth:`_run_shadows`) to their
        channels (after the error detector took the chunk: its alarms open windows in
        them); drop the old snapshot once the new one is warmed up."""
        errors = self.__dict__.pop("_chunk_errors", None)
        if self.error_detector is not None and ERROR_OF == "snapshot":
            errors = self._snapshot_errors(fed, rows)
        elif errors is not None and getattr(self.explainer, "requires_storage", False):
            # the stream's first row has no perturbation data, no values (as with a static
            # model, whose error detector takes the rows with values): whatever the batching
            errors = np.where(rows > 0, errors, np.nan)
        self._feed_errors(rows, errors)
        for i, flat, ok, losses, restarts in fed:
            shadow, channel, capture = self._shadows[i]
            fresh = self._push_cores(restarts, channel, flat[ok], rows[ok],
                                     None if losses is None else losses[ok])
            self._shadows[i] = (shadow, fresh, capture)
        self.__dict__.pop("_alarm_rows", None)
        if len(self._shadows) > 1 and self._shadows[-1][1].n_rows >= 2 * self.warmup:
            self._shadows = self._shadows[-1:]  # the new snapshot is warmed up

    def _static_shadow(self) -> tuple[Any, ValueChannel, Capture]:
        """The data channel of a static model explained with ``data_samples`` draws per row:
        a copy of the explainer, fed the same rows from an empty storage (a copy of the one
        kept at attach time; the caller adds it to the shadows)."""
        shadow = detached_copy(self.explainer, keep_storage=False)
        shadow.storage = copy.deepcopy(self._blank_storage)
        shadow.n_seen_ = 0  # from the stream's first row: those before any value are replayed
        if self.data_samples > 1:
            set_draws(shadow, self.data_samples)
        for c, t in self.__dict__.get("_static_rows", []):
            shadow._process(c, pseudo_labels(shadow._model, shadow._make_table(c))
                            if self.label_free else t, False)
        capture = Capture()
        shadow._on_values = capture
        return shadow, self._new_channel("data"), capture

    def _set_features(self, names: list[str]) -> None:
        self.feature_names_ = list(names)
        self._k = len(names)

    def _watch_loss(self) -> bool:
        """Whether data channels test the model's own per-row loss (not label-free, and the
        explainer has a loss)."""
        return (not self.label_free and self.explainer is not None
                and getattr(self.explainer, "_loss", None) is not None)

    def _losses(self, explainer: Any, cols: Any, y: Any,
                reported: np.ndarray | None) -> np.ndarray | None:
        """The data channel's per-row loss of ``explainer``'s model on a chunk: the one its
        method reported with the values (``reported``: iPFI's and iSAGE's base loss, no model
        call), else one batched model call (:func:`row_losses`); None when not watched."""
        if not self._watch_loss():
            return None
        return reported if reported is not None else row_losses(explainer, cols, y)

    def _new_channel(self, name: str, with_loss: bool | None = None) -> ValueChannel:
        """A channel of per-feature tests; with the loss test and attribution for a data
        channel whose explainer has a loss (or ``with_loss``)."""
        assert self.feature_names_ is not None and self._k is not None
        k = self._k
        seed = self._seed + self._n_snapshots
        if with_loss is None:
            with_loss = name == "data" and self._watch_loss()
        if not with_loss:
            return ValueChannel(name, self.feature_names_, self.test, self.delta / k, seed,
                                self.warmup, self.memory)
        # k feature tests and the loss test: Bonferroni over k + 1
        level = self.delta / (k + 1)
        channel = ValueChannel(name, self.feature_names_, self.test, level, seed, self.warmup,
                               self.memory)
        alpha = float(getattr(self.explainer, "alpha", 0.001))
        channel.trigger = LossTrigger(channel, level, self.attribution_level,
                                      int(round(2.0 / alpha)), seed)
        channel.trigger.inputs = self.__dict__.get("_inputs")
        return channel

    def _push(self, name: str, values: np.ndarray, rows: np.ndarray,
              losses: np.ndarray | None = None, restarts: Any = ()) -> None:
        """Push to the channel ``name`` (made at its first values); from each row of
        ``restarts`` (iPDP's core fixed again), to a fresh one (:meth:`_push_cores`). The
        error detector takes the losses first (a static model's, or those given to
        ``update_values``: the current model's)."""
        self._feed_errors(rows, losses)
        channel = self._channels.get(name) or self._new_channel(name)
        self._channels[name] = self._push_cores(restarts, channel, values, rows, losses)
        self.__dict__.pop("_alarm_rows", None)

    def _push_cores(self, restarts: Any, channel: ValueChannel, values: np.ndarray,
                    rows: np.ndarray, losses: np.ndarray | None) -> ValueChannel:
        """Push a chunk's values to ``channel``, and from each of the stream rows ``restarts``
        (where the iPDP that computed them fixed its core grid again, as its hook reported)
        to a fresh channel (new tests, warm-up, scale and memory: summaries on another core
        are not comparable); returns the channel now in use."""
        for start in restarts:
            cut = int(np.searchsorted(rows, start))
            self._push_to(channel, values[:cut], rows[:cut],
                          None if losses is None else losses[:cut])
            values, rows = values[cut:], rows[cut:]
            losses = None if losses is None else losses[cut:]
            channel = self._new_channel(channel.name)
        self._push_to(channel, values, rows, losses)
        return channel

    def _push_to(self, channel: ValueChannel, values: np.ndarray, rows: np.ndarray,
                 losses: np.ndarray | None = None) -> None:
        before_starts = channel.last_start.copy()
        trigger = channel.trigger
        if trigger is not None and losses is not None and len(rows):
            n_changes = len(trigger.changes)
            external = [r for r in self.__dict__.get("_alarm_rows", ())
                        if rows[0] <= r <= rows[-1]]
            events = trigger.push(values, rows, losses, external)
            self._take_changes(channel, trigger.changes[n_changes:])
            events.sort(key=lambda e: (e.row, -abs(e.statistic)))
        else:
            events = channel.push(values, rows)
        self._emit_found(channel, events, before_starts)

    def _take_changes(self, channel: ValueChannel, changes: list[DriftEvent]) -> None:
        """A channel's new loss changes go to ``loss_changes_`` (a data channel's also mark
        the model channel's reference as out of date); external triggers do neither."""
        losses = [c for c in changes if not is_external(c)]
        self.loss_changes_ += losses
        if losses and channel.name == "data":
            self._stale_reference = True  # (the model channel's reference labels)
            self._stale_start = losses[-1].start

    def _emit_found(self, channel: ValueChannel, events: list[DriftEvent],
                    before_starts: np.ndarray) -> None:
        """Emit a channel's new events, each with its explanation (every feature before and
        after)."""
        for e in events:
            j = channel.labels.index(e.feature)
            # the comparison and regime start taken when the event was found (the memory as
            # it was then; a warm-up that ends in this push sets the regime start)
            known = channel.__dict__.get("compared", {}).pop((e.row, e.feature), None)
            prev = int(before_starts[j]) if known is None else int(known[-1])
            before_starts[j] = e.start
            mb, sb, ma, sa, _, before, after = (known[:-1] if known is not None
                                                else channel.compare(e, prev))
            change = DriftExplanation(
                feature_names=list(channel.labels), before=mb, before_se=sb, after=ma,
                after_se=sa, event=e, before_rows=(prev, e.start - 1), after_rows=(e.start, e.row),
                **self._curves(channel, e, prev), **change_statistics(before, after, ma - mb))
            self._emit(e, change)
        channel.__dict__.get("compared", {}).clear()

    # ------------------------------------------------------------------ external triggers

    def _model_errors(self, cols: Any, y: Any) -> np.ndarray:
        """The current model's per-row loss on a chunk (one batched model call), for the
        error detector; a ``ValueError`` when there is none (no labels or no loss)."""
        errors = row_losses(self.explainer, cols, y) if self._watch_loss() else None
        if errors is None:
            raise ValueError(no_errors(self))
        return errors

    def _snapshot_errors(self, fed: list, rows: np.ndarray) -> np.ndarray:
        """The newest snapshot's per-row loss on the chunk (NaN where it has none), for
        ``ERROR_OF = "snapshot"``; a new snapshot starts a fresh error detector (its loss
        level is another model's)."""
        errors = np.full(len(rows), np.nan)
        if not self._shadows:
            return errors
        newest = self._shadows[-1][0]
        if self.__dict__.get("_error_model") is not newest:
            if self.__dict__.get("_error_model") is not None:
                self.error_detector = self.error_detector.clone()
            self.__dict__["_error_model"] = newest
        for i, _, ok, losses, _ in fed:
            if i == len(self._shadows) - 1 and losses is not None:
                errors[ok] = losses[ok]
        return errors

    def _feed_errors(self, rows: np.ndarray, errors: np.ndarray | None) -> None:
        """Give the error detector the chunk's per-row errors in row order (non-finite ones
        skipped); each row where it fires is an external trigger (:attr:`triggers_`) whose
        window the pushes of this chunk open (``_alarm_rows``)."""
        det = self.error_detector
        if det is None:
            return
        if errors is None:
            raise ValueError(no_errors(self))
        alarms = feed_error_detector(det, rows, errors)  # (raises ModelEvaluationError)
        self.__dict__.setdefault("triggers_", []).extend(alarms)
        self.__dict__["_alarm_rows"] = alarms

    def _trigger(self, row: Any) -> None:
        """:meth:`~ixplain.drift.ExplanationDriftDetector.trigger`: check ``row``, then open
        a window at it in every data channel that tests a loss."""
        row = check_trigger_row(self, row)
        channels = [ch for _, ch, _ in self._shadows] + list(self._channels.values())
        channels = [ch for ch in channels if ch.trigger is not None]
        if not channels and not self._watch_loss():
            raise ValueError(no_errors(self, "trigger"))
        self.__dict__.setdefault("triggers_", []).append(row)
        for ch in channels:
            before_starts = ch.last_start.copy()
            n_changes = len(ch.trigger.changes)
            events = ch.trigger.open_external(row, self.n_rows_ - 1)
            self._take_changes(ch, ch.trigger.changes[n_changes:])
            self._emit_found(ch, events, before_starts)

    def _curves(self, channel: ValueChannel, event: DriftEvent, prev: int) -> dict[str, Any]:
        """iPDP: the PD curves of the channel's model before (at most 1,000 rows) and after
        the change, on the explainer's current grid (empty for other explainers)."""
        if self._rows is None:
            return {}
        model = self.explainer if self.static_model else next(
            (sh for sh, ch, _ in self._shadows if ch is channel), None)
        before = self._rows.between(max(prev, event.start - 1000), event.start)
        after = self._rows.between(event.start, event.row + 1)
        if model is None or before is None or after is None:
            return {}
        grid = curve_grid(self.explainer, before, after)
        b, sb = pd_curves(model, before, grid)
        a, sa = pd_curves(model, after, grid)
        return {"grid_values": grid, "before_curve": b, "before_curve_se": sb,
                "after_curve": a, "after_curve_se": sa}


def check_error_detector(detector: Any, label_free: bool) -> Any:
    """The ``error_detector`` parameter: None, or a drift detector with River's protocol
    (``update(x)`` and a ``drift_detected`` attribute, e.g. ``river.drift.ADWIN()``); not
    with ``label_free`` (no labels, no error)."""
    if detector is None:
        return None
    if isinstance(detector, type) or not callable(getattr(detector, "update", None)) or (
            not hasattr(detector, "drift_detected")):
        what = (f"the class {detector.__name__} (an instance: {detector.__name__}())"
                if isinstance(detector, type) else f"of type {type(detector).__name__}")
        raise param_error(OWNER, "error_detector",
                          "a River drift detector (with update(x) and drift_detected, e.g. "
                          f"river.drift.ADWIN()) or None, not {what}", detector, exc=TypeError)
    if label_free:
        raise ValueError(f"{OWNER}: error_detector watches the model's per-row error, which "
                         "needs labels; it cannot be used with label_free=True.")
    return detector


def check_trigger_row(detector: Any, row: Any) -> int:
    """``trigger``'s ``row`` as an int: None is the last row seen; a row not seen yet, or
    one no longer in the channels' memory, raises ``ValueError``."""
    n = detector.n_rows_
    if n == 0:
        raise ValueError(f"{OWNER}.trigger: no row has been seen yet; a trigger opens the "
                         "attribution window at a row the detector has seen (row=None: the "
                         "last one).")
    if row is None:
        return n - 1
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)):
        raise param_error(f"{OWNER}.trigger", "row", "an int (a stream row seen) or None",
                          row, exc=TypeError)
    row = int(row)
    if row >= n:
        raise ValueError(f"{OWNER}.trigger: row {row} is in the future: the last row seen is "
                         f"{n - 1}.")
    if row < max(n - detector.memory, 0):
        raise param_error(f"{OWNER}.trigger", "row",
                          f"a row in the channels' memory ({max(n - detector.memory, 0)} to "
                          f"{n - 1}, memory={detector.memory})", row)
    return row


def no_errors(detector: Any, what: str = "error_detector") -> str:
    """The message for an external trigger on a detector whose data channels test no
    per-row loss."""
    why = ("label_free=True" if detector.label_free else
           "the explainer has no loss (iPDP)" if detector.explainer is not None else
           "update_values was given no losses")
    return (f"{OWNER}: {what} needs the model's per-row loss (labels and an explainer with a "
            f"loss, or update_values(..., losses=...)), and here {why}.")


def check_copyable(explainer: Any) -> None:
    """Raise ``TypeError`` now if the explainer's model cannot be deep-copied: with a
    learning model the detector freezes copies of it (the snapshots, the model channel's
    reference), the first at the first model check, ``check_every`` rows later."""
    try:
        copy.deepcopy(explainer._model)
    except Exception as exc:  # any failure of the model's own copying
        raise TypeError(
            f"{OWNER}: the model cannot be copied ({type(exc).__name__}: {exc}); with a "
            "model that learns (static_model=False) the detector freezes copies of it. Pass "
            "static_model=True for a model that does not learn, or make it deep-copyable."
        ) from exc


def draws_of(explainer: Any) -> str | None:
    """The attribute holding an explainer's perturbation draws per row (iSAGE's
    ``n_samples_``, iPFI's ``n_samples``), or None for an explainer without draws."""
    if hasattr(explainer, "n_samples_"):
        return "n_samples_"
    if isinstance(getattr(explainer, "n_samples", None), int):
        return "n_samples"
    return None


def set_draws(explainer: Any, n: int) -> None:
    """Give a data-channel copy ``n`` draws per row (its estimator rebuilt at the next row;
    same expectation, less variance)."""
    name = draws_of(explainer)
    if name is not None:
        setattr(explainer, name, int(n))
        explainer._method = None


def curve_grid(explainer: Any, before: dict[str, np.ndarray],
                after: dict[str, np.ndarray]) -> np.ndarray:
    """The explainer's current grid, or -- inside its first chunk, before it has one --
    ``grid_resolution`` values spanning the explainer's percentiles of the rows around the
    event (the levels seen, for a categorical feature)."""
    from ..methods.ipdp import NotStartedError

    try:
        return np.asarray(explainer.pd_.grid_values[0])
    except NotStartedError:
        pass
    name = str(explainer.feature_name_)
    values = np.concatenate([before[name], after[name]])
    if explainer.feature_kind_ != "numeric":
        return np.asarray(sorted(set(values.tolist()), key=str), dtype=object)
    finite = values[np.isfinite(values)]
    lo, hi = np.quantile(finite, explainer.percentiles)
    return np.unique(np.linspace(lo, hi, explainer.grid_resolution))


def explained(detector: Any, event: Any, level: Any) -> DriftExplanation:
    """:meth:`~ixplain.drift.ExplanationDriftDetector.explain_change`: the explanation of
    ``event`` kept when it was found (itself at its own ``level``, else a copy at ``level``)."""
    change = detector._changes[event_index(detector, event)]
    level = check_float(level, "level", f"{OWNER}.explain_change", low=0.0, high=1.0,
                        low_inclusive=False, high_inclusive=False)
    return change if level == change.level else dataclasses.replace(change, level=level)


def event_index(detector: Any, event: Any) -> int:
    """The index in ``events_`` of :meth:`~ixplain.drift.ExplanationDriftDetector.explain_change`'s
    ``event`` (an event of it, or an index; negative from the end)."""
    owner = f"{OWNER}.explain_change"
    events = detector.events_
    if isinstance(event, DriftEvent):
        idx = next((i for i, e in enumerate(events) if e is event), None)
        if idx is None:
            raise ValueError(f"{owner}: the event is not one of events_.")
        return idx
    if isinstance(event, bool) or not isinstance(event, (int, np.integer)):
        raise param_error(owner, "event", "a DriftEvent of events_ or its index", event,
                          exc=TypeError)
    if not events:
        raise ValueError(f"{owner}: there are no events yet.")
    n = len(events)
    if not -n <= int(event) < n:
        raise param_error(owner, "event", f"an index of events_ (0..{n - 1}, or -{n}..-1 from "
                          "the end)", event)
    return int(event)


def change_statistics(before: np.ndarray, after: np.ndarray, change: np.ndarray,
                      paired: bool = False) -> dict[str, Any]:
    """The test of an event's change, as :func:`ixplain.compare` computes it: the
    :class:`~ixplain.results.DriftExplanation` fields ``delta``, ``std_error``, ``lower``,
    ``upper``, ``p_value``, ``design`` and ``confidence`` (95 %).

    ``before``, ``after``: per-row values ``(n_before, k)`` and ``(n_after, k)``; with
    ``paired`` the same rows (and draws) at two checks (``n_before == n_after``, row ``i``
    of both the same observation), else two independent samples (Welch). Each column is
    first multiplied by the power of two that brings its largest absolute value into
    [0.5, 1) (exact), so values near the float limit give finite statistics, then the
    results are scaled back (the p-values do not depend on the scale). With fewer than two
    rows a side: ``delta = change`` (the means' difference), ``std_error = inf``, the
    interval ``(-inf, inf)`` and ``p_value = 1``.
    """
    out: dict[str, Any] = {"design": "paired" if paired else "independent",
                           "confidence": _CONFIDENCE}
    k = len(change)
    if min(len(before), len(after)) < 2:
        inf = np.full(k, np.inf)
        return {**out, "delta": np.asarray(change, dtype=float), "std_error": inf,
                "lower": -inf, "upper": inf.copy(), "p_value": np.ones(k)}
    top = np.maximum(np.abs(before).max(axis=0), np.abs(after).max(axis=0))
    shift = np.array([unit_shift(float(t)) if 0 < t < np.inf else 0 for t in top])
    test = paired_change if paired else independent_change
    with np.errstate(over="ignore", invalid="ignore"):  # (non-finite values: NaN statistics)
        ch = test(np.ldexp(before, shift), np.ldexp(after, shift), confidence=_CONFIDENCE)
        back = -shift
        return {**out, "delta": np.ldexp(ch.delta, back),
                "std_error": np.ldexp(ch.std_error, back), "lower": np.ldexp(ch.lower, back),
                "upper": np.ldexp(ch.upper, back), "p_value": ch.p_value}


#: Coverage of the intervals of :func:`change_statistics` (that of the before/after bounds).
_CONFIDENCE = 0.95
