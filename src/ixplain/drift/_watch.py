"""The drift detector as an observer of its explainer (:mod:`ixplain.observers`).

The explainer publishes each processed part's per-row values, inputs, labels and losses
(``on_values``); the detector tests them, all or nothing: when one of its own model calls
raises, :class:`~ixplain.drift._hook_undo.HookUndo` puts it back and the explainer takes its
part back too. It asks the explainer to cut its batches after the rows where the model channel
checks (``cut_offsets``), so that what it sees does not depend on the batching, and hands the
events found to the user's callback once a call has taken all its rows (``on_call_end``).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np

from .._numeric import overflow_reported
from .._validation import param_error
from ._attribution import INPUT_BEFORE, LOOK_MAX, InputMemory
from ._channel import RowMemory
from ._data_channels import check_copyable, draws_of
from ._hook_undo import HookUndo
from ._model_channel import ModelChannel
from ._snapshot import value_labels
from ._state import OWNER


class ExplainerWatch(ModelChannel):
    """Mixin of :class:`~ixplain.drift.ExplanationDriftDetector`: its observer hooks."""

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks: the incidents (when the detector groups its
        events into incidents), else the events; a sentence when there are none
        (:func:`ixplain._html.render`)."""
        from .._html import render

        return render("detector", self)

    def attach(self, explainer: Any) -> None:
        """Watch ``explainer`` (:func:`~ixplain.observers.subscribe` checked it first)."""
        self.explainer = explainer
        if hasattr(explainer, "_use_grid"):
            self._rows = RowMemory(self.memory)
        # the input rows, for the attribution's look (its input test: _attribution)
        # (the look compares up to INPUT_BEFORE rows before a start at most LOOK_MAX rows
        # before the alarm: that many rows before the newest chunk, whatever ``memory``)
        self._inputs = InputMemory(INPUT_BEFORE + LOOK_MAX) if self._watch_loss() else None
        if self._more_draws(explainer) or self._label_free_static(explainer):
            # the static data channel's own copy (with more draws, or given the model's labels)
            # starts from this empty storage
            self._blank_storage = copy.deepcopy(explainer.storage)

    def detach(self, explainer: Any) -> None:
        """Stop watching ``explainer``: :attr:`explainer` is None (the events found so far
        stay; :func:`~ixplain.observers.subscribe` removes the explainer's hook)."""
        if self.explainer is explainer:
            self.explainer = None

    def check_attach(self, explainer: Any) -> None:
        """Raise if this detector cannot be attached to ``explainer`` (nothing changes)."""
        from ..methods._incremental import IncrementalExplainer

        if not isinstance(explainer, IncrementalExplainer) or not (
                type(explainer)._process is IncrementalExplainer._process
                or hasattr(explainer, "_report_values")):
            raise param_error(
                OWNER, "explainer",
                "an incremental explainer that reports its per-row values (IncrementalPFI, "
                "IncrementalSAGE, IncrementalPDP)", explainer, exc=TypeError)
        if self.explainer is not None and self.explainer is not explainer:
            raise ValueError(f"{OWNER} already watches another explainer; use one per explainer.")
        if explainer.n_seen_:
            raise ValueError(f"{OWNER} must be attached before the explainer sees rows "
                             f"(it has seen {explainer.n_seen_}).")
        if not self.static_model:
            check_copyable(explainer)
        if self.explainer is None and self.n_rows_:
            raise ValueError(f"{OWNER} has already tested {self.n_rows_} rows (from "
                             "update_values, or from an explainer it was detached from); "
                             "attach a new detector to the explainer.")

    def _more_draws(self, explainer: Any) -> bool:
        """Whether a static data channel explains the rows with more draws (its own copy)."""
        return self.static_model and self.data_samples > 1 and draws_of(explainer) is not None

    def _label_free_static(self, explainer: Any) -> bool:
        """Whether the explainer's own values may not be label-free: ``label_free`` with
        ``static_model`` for an explainer that uses labels (iPFI, iSAGE)."""
        return self.static_model and self.label_free and bool(
            getattr(explainer, "requires_labels", False))

    def _own_labels(self) -> bool:
        """``label_free`` with ``static_model``: whether this chunk's values were computed with
        labels other than the model's (the rows were given to the explainer directly), which
        the data channel must not use. The first chunk decides how the data channel is fed:
        rows given directly -- the explainer's estimate uses the caller's labels -- make it a
        copy of the explainer fed the model's predictions as labels (the values of
        :meth:`update` / :meth:`update_many`, at twice the model rows); rows fed through
        :meth:`update` / :meth:`update_many` use the explainer's own values. Rows given
        directly after that are not tested (a warning)."""
        explainer = self.explainer
        if not self._label_free_static(explainer) or self._labels_mode == "legacy":
            return False
        if self._labels_mode is None:
            self._labels_mode = "own" if self._feeding else "copy"
            if self._feeding and not self._more_draws(explainer):
                self._blank_storage = None  # the explainer's own values are label-free
        if self._labels_mode == "copy" or self._feeding:
            return False
        if not self.__dict__.get("_warned_labels"):
            self._warned_labels = True
            warnings.warn(
                f"{OWNER}(label_free=True, static_model=True): rows given to the explainer "
                "with their labels after rows fed through the detector's update/update_many "
                "are not tested (their values use those labels); feed every row one way.",
                RuntimeWarning, stacklevel=7)
        return True

    def on_values(self, values: Any, ok: np.ndarray, rows: np.ndarray, cols: Any,
                   y: Any, losses: np.ndarray | None = None, restarts: Any = ()) -> None:
        """The explainer's hook: one processed chunk (see ``ExplainerObserver.on_values``;
        ``losses``: the model's own per-row loss, if the explainer's method reported it;
        ``restarts``: iPDP's rows from which its summaries use a core fixed again).

        All or nothing: if a model call raises (a data channel's copy of the model, the
        model channel's check, a PD curve of an event), the detector is put back as it was
        before the chunk (:class:`HookUndo`) and the exception propagates (the explainer
        then takes back its part too). numpy's overflow warnings of the copies' arithmetic
        (a square of values near 1e200) are not shown: the detector's results are checked
        finite where they matter; the user's model runs with the caller's settings
        (:func:`~ixplain._numeric.overflow_reported`)."""
        undo = HookUndo(self, rows)
        try:
            with overflow_reported():
                self._take_values(values, ok, rows, cols, y, losses, restarts, undo)
        except BaseException:
            undo.restore()
            raise

    def values_undo(self) -> Any:
        """Before a part that another observer of the explainer may still refuse: a function
        that puts the detector back as it is now (from a checkpoint copy: ``_checkpoint``)."""
        saved = self._checkpoint()

        def undo() -> None:
            self.__dict__.clear()
            self.__dict__.update(saved.__dict__)

        return undo

    def _take_values(self, values: Any, ok: np.ndarray, rows: np.ndarray, cols: Any, y: Any,
                     losses: np.ndarray | None, restarts: Any, undo: HookUndo) -> None:
        """:meth:`on_values`' work: every model call of the data channels first (the copies
        of the explainer take the chunk, each undoable), then the changes of the detector,
        then the model channel's check (a checkpoint of the detector covers those two when
        they may call a model: :class:`HookUndo`)."""
        explainer = self.explainer
        skip = self._own_labels()
        if self._k is None:
            if values is None:
                self.n_rows_ = int(rows[-1]) + 1 if len(rows) else self.n_rows_
                self._remember_reference(cols, y)
                if self._blank_storage is not None:  # its copy with more draws sees them later
                    self.__dict__.setdefault("_static_rows", []).append(
                        ({k: np.array(v) for k, v in cols.items()},
                         None if y is None else np.array(y)))
                return
            names, _ = value_labels(explainer, int(np.prod(values.shape[1:])))
            self._set_features(names)
        k = self._k
        assert k is not None
        shadowed = self._blank_storage is not None or (self.static_model and self._shadows)
        new = None
        if shadowed and not self._shadows:  # static_model with data_samples > 1: a copy with more draws
            new = self._static_shadow()
        fed = self._run_shadows(self._shadows + ([new] if new else []), cols, y, undo) if (
            shadowed or not self.static_model) else []
        if not shadowed and self.static_model and values is not None and ok.any() and not skip:
            losses = self._losses(explainer, cols, y, losses)
        # (the model calls of the data channels are done: what follows changes the detector)
        if new is not None:
            self._blank_storage = None
            self.__dict__.pop("_static_rows", None)
            self._shadows.append(new)
        if self._rows is not None:
            self._rows.push(rows, cols)
        inputs = self.__dict__.get("_inputs")  # (absent from old pickles)
        if inputs is not None:
            inputs.push(rows, cols)
        if shadowed or not self.static_model:
            self._push_shadows(fed, rows)
        elif self.static_model and not shadowed:
            if values is not None and ok.any() and not skip:
                flat = values.reshape(len(ok), -1)[:, :k]
                self._push("data", flat[ok], rows[ok], None if losses is None else losses[ok],
                           restarts)
        if not self.static_model:
            self._remember_recent(rows, cols, y)
        self._remember_reference(cols, y)
        last = int(rows[-1]) + 1 if len(rows) else self.n_rows_
        before, self.n_rows_ = self.n_rows_, max(self.n_rows_, last)
        if self.static_model or self._ref_n < self.n_reference:
            return
        if self.n_rows_ // self.check_every > before // self.check_every:
            self._check_model(self.n_rows_ - 1)
        elif (self.screen_every and self._ref_values is not None
              and self.n_rows_ // self.screen_every > before // self.screen_every
              and self._predictions_moved(undo.screen)):
            self._check_model(self.n_rows_ - 1)

    def cut_offsets(self, start: int, B: int) -> list[int]:
        """Offsets in ``(0, B)`` of a batch starting at stream row ``start`` after which the
        model channel may check (multiples of ``check_every`` and ``screen_every`` rows): the
        explainer processes its batches in parts cut there (``IncrementalExplainer._parts``)."""
        if self.static_model:
            return []
        out: list[int] = []
        for period in (self.check_every, self.screen_every):
            if period:
                out.extend(range((period - start % period) % period or period, B, period))
        return out
