"""The model channel of the drift detector: whether the model itself moved.

Every ``check_every`` rows (and when a cheap screen of ``_SCREEN_ROWS`` reference rows finds the
predictions jumped) the detector explains a fixed set of reference rows with a frozen copy of
the model as it is now and compares the explanation with the one of the reference model
(:meth:`ModelChannel._check_model`); a change beyond ``min_change`` is an event of the model.
:class:`ModelChannel` is that part of :class:`~ixplain.drift.ExplanationDriftDetector`, with
the checkpoint that lets a chunk whose check raises be taken back."""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

import numpy as np

from ..results.drift import DriftExplanation
from ._channel import _quantile, make_event, summary
from ._data_channels import DataChannels, change_statistics, set_draws
from ._snapshot import (
    Capture,
    detached_copy,
    pseudo_labels,
    reference_predictions,
    reference_values,
)
from .base import DriftEvent


class ModelChannel(DataChannels):
    """Mixin of :class:`~ixplain.drift.ExplanationDriftDetector`: the model channel."""

    def _checks_due(self, last: int) -> tuple[bool, bool]:
        """Whether the model channel checks, and whether it screens, the model at the end of
        a chunk that ends before stream row ``last`` (multiples of ``check_every`` and
        ``screen_every`` rows; a screen once a check set the reference; :class:`~ixplain.drift._hook_undo.HookUndo`)."""
        if self.static_model:
            return False, False
        before = self.n_rows_
        check = last // self.check_every > before // self.check_every
        screen = bool(self.screen_every) and self._ref_values is not None and (
            last // self.screen_every > before // self.screen_every)
        return check, screen and not check

    def _checkpoint(self) -> Any:
        """A copy of the detector to go back to (:class:`~ixplain.drift._hook_undo.HookUndo`): everything but the
        explainer it watches and what never changes (the models its copies froze, the events
        and their explanations). The copy keeps the callback and the events not yet given
        to it, which pickling (``__getstate__``) drops."""
        memo: dict[int, Any] = {id(self.explainer): self.explainer}
        for frozen in [sh for sh, _, _ in self._shadows] + [self._ref_model]:
            if frozen is not None:  # (and the method objects: caches of what never changes)
                for kept in (frozen.model, frozen._model.model, frozen.__dict__.get("_method")):
                    memo[id(kept)] = kept
        for kept in (*self.events_, *self.loss_changes_, *self._changes):
            memo[id(kept)] = kept
        saved = copy.deepcopy(self, memo)
        saved.callback = self.callback
        if "_unsent" in self.__dict__:
            saved.__dict__["_unsent"] = list(self.__dict__["_unsent"])
        return saved

    def _snapshot(self) -> None:
        """Freeze the current model: a new data-channel copy of the explainer, warmed up on
        the last ``warmup`` rows (explained by a throw-away copy of it), so its tests hold a
        regime before any change that follows."""
        shadow = detached_copy(self.explainer)
        # the hook runs before the explainer counts the chunk it is processing (whose rows its
        # storage holds already): the copy goes on from the next stream row
        shadow.n_seen_ = self.n_rows_
        if self.data_samples > 1:
            set_draws(shadow, self.data_samples)
        capture = Capture()
        shadow._on_values = capture
        self._n_snapshots += 1
        channel = self._new_channel("data")
        probe = detached_copy(shadow)
        probe._on_values = warm = Capture()
        k = self._k
        for rows, cols, y in self._last_rows():
            yy = pseudo_labels(probe._model, probe._make_table(cols)) if self.label_free else y
            probe._process(cols, yy, False)
            if warm.values is not None and warm.ok is not None:
                flat = warm.values.reshape(len(warm.ok), -1)[:, :k]
                losses = self._losses(probe, cols, y, warm.losses)
                channel = self._push_cores(warm.restarts, channel, flat[warm.ok],
                                           rows[warm.ok],
                                           None if losses is None else losses[warm.ok])
        if hasattr(shadow, "_track_core"):
            # iPDP: the core grid the warm-up's values used (fixed, or fixed again, while
            # warming up) is the one the snapshot's values use, with its run of misses
            shadow._core, shadow._core_miss = probe._core, probe._core_miss
            shadow._core_epoch = probe._core_epoch
        self._shadows.append((shadow, channel, capture))

    def _last_rows(self, n: int | None = None) -> list[tuple[np.ndarray, dict[str, np.ndarray],
                                                             Any]]:
        """The last ``n`` (default ``warmup``) rows seen, as one block ``(rows, columns,
        labels)`` (none before the first row): exactly those rows, however they arrived in
        chunks."""
        if not self._recent:
            return []
        rows = np.concatenate([r for r, _, _ in self._recent])[-(n or self.warmup):]
        n = len(rows)
        cols = {k: np.concatenate([c[k] for _, c, _ in self._recent])[-n:]
                for k in self._recent[0][1]}
        ys = [t for _, _, t in self._recent]
        return [(rows, cols, None if ys[0] is None else np.concatenate(ys)[-n:])]

    def _remember_recent(self, rows: np.ndarray, cols: Any, y: Any) -> None:
        """Keep the last ``warmup`` rows (at least) for warming up a new snapshot, and the last
        ``n_reference`` for the model channel's new reference sample."""
        self._recent.append((rows, {k: np.array(v) for k, v in cols.items()},
                             None if y is None else np.array(y)))
        self._n_recent += len(rows)
        keep = max(self.warmup, self.n_reference)
        while self._n_recent - len(self._recent[0][0]) >= keep:
            self._n_recent -= len(self._recent.popleft()[0])

    def _remember_reference(self, cols: Any, y: Any) -> None:
        need = self.n_reference - self._ref_n
        if need <= 0 or self.static_model:
            return
        n = len(next(iter(cols.values())))
        take = min(need, n)
        for name, col in cols.items():
            self._ref_cols.setdefault(name, []).append(np.array(col[:take]))
        if y is not None:
            self._ref_y.append(np.asarray(y[:take]))
        self._ref_n += take

    def _reference_rows(self) -> dict[str, np.ndarray]:
        return {k: np.concatenate(v) for k, v in self._ref_cols.items()}

    def _screen_rows(self) -> dict[str, np.ndarray]:
        """The first ``_SCREEN_ROWS`` reference rows (a model replaced in a step moves its
        predictions on almost every row; fewer rows make the screen cheap)."""
        return {k: v[:_SCREEN_ROWS] for k, v in self._reference_rows().items()}

    def _predictions_moved(self, screen: tuple | None = None) -> bool:
        """The screen: the model's predictions on the reference rows moved since the last
        screen after a quiet spell (no move at at least half of the last 20 screens, and at
        least 3 screens seen): a model replaced or retrained in a step. Moves are mean
        absolute changes over the predictions' mean absolute deviation. ``screen``: the
        outcome of :meth:`_screen` taken before the chunk changed anything (its model call)."""
        pred, move, jump = self._screen() if screen is None else screen
        self._ref_pred = pred
        if move is None:
            return False
        moves = self.__dict__.setdefault("_moves", deque())  # (absent from old pickles)
        moves.append(move)
        if len(moves) > 20:
            moves.popleft()
        return jump

    def _screen(self) -> tuple[np.ndarray, float | None, bool]:
        """The screen's model call and verdict, changing nothing: ``(predictions, move (None
        when there is nothing to compare with), whether it is a jump)``."""
        pred = reference_predictions(self.explainer, self._screen_rows())
        last = self._ref_pred
        if last is None or last.shape != pred.shape:
            return pred, None, False
        spread = float(np.abs(last - last.mean()).mean())
        move = float(np.abs(pred - last).mean()) / (spread if spread > 0 else 1.0)
        moves = self.__dict__.get("_moves") or ()
        jump = len(moves) >= 3 and move > 1e-12 and float(np.median(moves)) <= 1e-12
        return pred, move, jump

    def _check_model(self, row: int) -> None:
        if self._stale_reference and self._ref_model is not None:
            self._move_reference_rows()
        cols = self._reference_rows()
        y = np.concatenate(self._ref_y) if self._ref_y else None
        k = self._k
        assert k is not None
        if self.screen_every and self._ref_pred is None:
            self._ref_pred = reference_predictions(self.explainer, self._screen_rows())
        now = reference_values(self.explainer, cols, y, self._seed, self.label_free,
                               self._ref_fixed)
        now = now.reshape(len(now), -1)[:, :k]
        if self._ref_values is None:
            self._new_reference(now, row)
            return
        self._n_checks += 1
        level = self.delta / k
        events = self._model_events(row, now, level)
        if events:
            self._record_model(events, now, row)
            return
        self._quiet = row  # (the model had not changed by this row)
        if self._stale_reference:
            # a loss change since the reference point: its rows' labels are out of date
            self._new_reference(now, row, snapshot=False)

    def _model_events(self, row: int, now: np.ndarray, level: float) -> list[DriftEvent]:
        ref = self._ref_values
        assert ref is not None and self.feature_names_ is not None
        diff = now - ref
        n = len(diff)
        mean, se = summary(diff)  # (scaled: no overflow for values near 1e300)
        z = np.where(se > 0, mean / np.where(se > 0, se, 1.0),
                     np.where(mean == 0, 0.0, np.inf))
        crit = _quantile(1.0 - level / 2.0)
        units = self._term_sizes(len(mean))  # (iPDP: slope and curvature in output units)
        size = max(float(np.abs(ref.mean(axis=0) * units).sum()),
                   float(np.abs(now.mean(axis=0) * units).sum()))
        fire = (np.abs(z) > crit) & (np.abs(mean) * units >= self.min_change * size) & (size > 0)
        mb, sb = summary(ref)
        ma, sa = summary(now)
        test = f"paired z (level={level:.3g}, min_change={self.min_change})"
        # the last row the model was found unchanged: the reference row or a later check
        # that raised nothing (absent from old pickles: the reference row)
        quiet = int(self.__dict__.get("_quiet", self._ref_row))
        events = [
            make_event(row, quiet + 1, self.feature_names_[j], "model", test,
                       (mb[j], sb[j], n), (ma[j], sa[j], n), statistic=float(z[j]))
            for j in np.flatnonzero(fire)
        ]
        events.sort(key=lambda e: -abs(e.statistic))
        return events

    def _term_sizes(self, k: int) -> np.ndarray:
        """Factors to output units of the ``k`` watched values for ``min_change``: for iPDP,
        :func:`~ixplain.methods._curve_summary.term_sizes` on the model channel's fixed grid (slope
        and curvature have the units of the output per feature unit and per feature unit
        squared); 1 for importances, which share the loss's units."""
        grid = self._ref_fixed.get("grid")
        if grid is None:
            return np.ones(k)
        from ..methods._curve_summary import term_sizes

        return term_sizes(grid, k, getattr(self.explainer, "feature_kind_", None) == "numeric")

    def _record_model(self, events: list[DriftEvent], now: np.ndarray, row: int) -> None:
        ref = self._ref_values
        assert ref is not None and self.feature_names_ is not None
        mb, sb = summary(ref)
        ma, sa = summary(now)
        curve = self._ref_fixed.get("curve")
        curves = {}
        if self._ref_curve is not None and curve is not None:
            curves = {"grid_values": self._ref_fixed["grid"],
                      "before_curve": self._ref_curve[0], "before_curve_se": self._ref_curve[1],
                      "after_curve": curve[0], "after_curve_se": curve[1]}
        # the same reference rows and draws at both checks (common random numbers): paired
        stats = change_statistics(ref, now, ma - mb, paired=True)
        for e in events:
            change = DriftExplanation(
                feature_names=list(self.feature_names_), before=mb, before_se=sb, after=ma,
                after_se=sa, event=e, before_rows=(self._ref_row, self._ref_row),
                after_rows=(row, row), **curves, **stats)
            self._emit(e, change)
        self._n_checks = 0
        self._new_reference(now, row)

    def _move_reference_rows(self) -> None:
        """After a data channel's loss change: the reference sample becomes the last
        ``n_reference`` rows seen (those since the change's start if fewer, at least 100),
        with their labels, and the reference values are those of
        the model *at the reference point* (a frozen copy) on them, so the check that follows
        compares the model then and now on rows of the new concept (on the old rows' old
        labels, a model that changed with the concept shows a feature that became relevant
        as harmful: a negative SAGE value, a 'decrease')."""
        since = self.n_rows_ - self._stale_start  # rows of the new concept, when enough
        take = max(_SCREEN_ROWS, min(self.n_reference, since))
        last = self._last_rows(take)
        if not last or len(last[0][0]) < take:
            return
        _, cols, y = last[0]
        self._stale_reference = False
        self._ref_cols = {name: [col] for name, col in cols.items()}
        self._ref_y = [] if y is None else [y]
        self._ref_n = self.n_reference  # complete (no more rows join it)
        self._ref_fixed.pop("storage", None)  # conditional removal: the reference model's
        before = reference_values(self._ref_model, cols, y, self._seed, self.label_free,
                                  self._ref_fixed)
        self._ref_values = before.reshape(len(before), -1)[:, :self._k]
        self._ref_curve = self._ref_fixed.get("curve")
        if self.screen_every:
            self._ref_pred = reference_predictions(self.explainer, self._screen_rows())

    def _new_reference(self, now: np.ndarray, row: int, snapshot: bool = True) -> None:
        """The reference point moves to ``row`` (the first check, a model event, the first
        check after a data channel's loss change), with the values ``now``. After a loss
        change the reference sample becomes the last ``n_reference`` rows seen, with their
        labels (``now`` is recomputed on them, the screen's predictions too), so that after
        a real drift the checks compare the model on rows of the new concept -- on the old
        rows' old labels a feature that became relevant (Agrawal 1 -> 2: elevel) gains no
        importance. (At every reference point instead, the benchmark's model-channel false
        events rose: stationary learning Agrawal 8.3 -> 16.7, bike 34.7 -> 81.0 per 100,000
        rows.) With ``snapshot`` a new snapshot freezes the model (not after a loss change
        alone: the model did not move)."""
        stale, self._stale_reference = self._stale_reference, False
        last = self._last_rows(self.n_reference) if stale else []
        if last and len(last[0][0]) >= self.n_reference:
            _, cols, y = last[0]
            self._ref_cols = {name: [col] for name, col in cols.items()}
            self._ref_y = [] if y is None else [y]
            self._ref_n = self.n_reference
            self._ref_fixed.pop("storage", None)  # conditional removal: freeze it anew
            now = reference_values(self.explainer, cols, y, self._seed, self.label_free,
                                   self._ref_fixed)
            now = now.reshape(len(now), -1)[:, :self._k]
            if self.screen_every:
                self._ref_pred = reference_predictions(self.explainer, self._screen_rows())
        self._ref_values, self._ref_row, self._quiet = now, row, row
        self._ref_curve = self._ref_fixed.get("curve")
        self._ref_model = detached_copy(self.explainer)  # the model at the reference point
        if snapshot:
            self._snapshot()


_SCREEN_ROWS = 100  # reference rows the model channel's screen predicts
