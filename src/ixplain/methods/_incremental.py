"""The base class of the incremental explainers (iPFI, iSAGE, iPDP).

An incremental explainer turns a stream of observations ``(x_t, y_t)`` into an explanation that
follows the model as it is *now*::

    phi_t = (1 - alpha) * phi_{t-1} + alpha * lambda_{f_t}(x_t, y_t, P_t)      # aggregation='ema'
    phi_t = mean of lambda_{f_s}(x_s, y_s, P_s), s <= t                        # aggregation='mean'

where ``lambda`` is the method's per-observation explanation function and ``P_t`` is a bounded
storage of past rows (:mod:`ixplain.storage`). :class:`IncrementalExplainer` is the loop that
carries a row through the layers, each in its own module:

1. the input boundary (:class:`~ixplain.boundary.StreamInput`, :mod:`ixplain.boundary`): the
   observations (dict record, pandas Series/DataFrame, numpy row/array, list of records,
   polars) become a typed columnar batch, once, in the schema the first observation fixed
   (names matched by name: a missing key is an error naming it; extra keys are ignored), and
   the labels are converted and checked;
2. the parts (:meth:`IncrementalExplainer._parts`): ``max_batch`` rows, cut where an observer
   asks; each all or nothing (:mod:`ixplain.methods._parts`);
3. the missing-value policy (:mod:`ixplain.methods._skips`), then the :class:`Sampler`
   (:mod:`ixplain.methods._sampler`) and the method's ``lambda`` on the batch, with the model
   adapter built once (:func:`~ixplain.models.as_model`) and *called* at explain time, so a
   model that learns online is explained as it is at that moment; row ``t`` is explained with
   the storage holding rows ``< t`` (the first row of a stream is only stored), then stored;
4. the aggregator, in segments that end at the ``history_`` snapshot rows;
5. the observers (:mod:`ixplain.observers`): the per-row values, snapshots and failures are
   published to every subscribed observer (:meth:`subscribe`; the ``drift_detector`` is one),
   which the explainer does not import.

A subclass writes only :meth:`IncrementalExplainer._explain_batch` -- the batched ``lambda`` --
and, if needed, :meth:`IncrementalExplainer._value_shape` and :meth:`_default_storage`. It may
add :meth:`IncrementalExplainer._explain_numeric_row`, the same ``lambda`` for one all-numeric
row given as an array (the per-observation hot path of ``explain_one``; it must give the values
``_explain_batch`` gives for that row, from the same draws).

Randomness (batch invariance)
-----------------------------
The state after row ``t`` (estimate, variances, ``history_``, storage) depends on the seed and
rows ``0..t`` alone, bit for bit, however the rows were split into ``explain_one`` /
``explain_many`` calls, whatever ``history_every`` and ``max_batch`` are, and across a pickle
round trip (for a model whose prediction for a row does not depend on the other rows of its
call: River's ``predict_many`` rounds by batch, 4e-16 relative, and moves the state by that
much). ``_explain_batch`` gets a :class:`Sampler` whose every number for row ``t`` is read
from a counter-based row stream at index ``t`` (:mod:`ixplain._random`):

* ``sampler.draw(n)`` / ``draw_blocks(n)`` / ``draw_columns(n)``: ``n`` storage rows per row;
* ``sampler.uniforms(k, name)``: ``(B, k)`` uniforms of the batch's rows from stream ``name``,
  for the method's own randomness (iSAGE: ``argsort(sampler.uniforms(G, "order"), axis=1)``);
* ``sampler.available``: which rows found a non-empty storage.

Never use a ``numpy.random.Generator`` in ``_explain_batch``: its numbers would depend on the
batching. The storage decides per offered row from its own row stream (seeded from the
explainer's seed unless given one), the model is evaluated on up to ``max_batch`` rows at once,
and the aggregator takes the values as a sequence of single updates
(:meth:`~ixplain.aggregation.base.Aggregator.update_sequence`) in segments that end at the
snapshot rows.

    >>> import numpy as np
    >>> from ixplain import IncrementalPFI
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)); y = X[:, 0] + 0.1 * rng.normal(size=300)
    >>> def f(A): return A[:, 0]
    >>> loop = IncrementalPFI(f, "squared_error", alpha=0.05, random_state=0)
    >>> for x, t in zip(X, y):
    ...     _ = loop.explain_one(x, t)
    >>> many = IncrementalPFI(f, "squared_error", alpha=0.05, random_state=0, max_batch=64)
    >>> _ = many.explain_many(X[:123], y[:123]); _ = many.explain_many(X[123:], y[123:])
    >>> bool((loop.importances_ == many.importances_).all())
    True

Failing model calls
-------------------
A batch is processed in parts (:meth:`IncrementalExplainer._parts`), each all or nothing
(:meth:`IncrementalExplainer._run_part`): when a model call of a part raises -- the
explainer's, or an attached drift detector's -- the explainer (attributes, storage, model
labels, the class's own state) and the detector are put back as they were before the part, and
the error says which rows were kept; so are the other observers that took the part, when one
observer refuses it (:mod:`ixplain.observers`). Most of it costs nothing: the explainer's model call comes
before its writes, so only what precedes it is kept (a shallow copy of the attributes), and a
write is made undoable only when a fallible step can follow it (a drift hook, a class's own
pipeline). A subclass that changes state in place before its model call keeps it in
:meth:`IncrementalExplainer._part_state` (iPDP: its grid points and range window). When the
stream's first part fails (or its conversion), the schema its observations fixed (feature
names, kinds, dtypes, the storage's buffers) is taken back too
(:func:`~ixplain.methods._parts.schema_undo`): a retry with other columns or dtypes is read as
the first observations.

Missing values (``nan_policy``)
-------------------------------
``"skip"`` (default)
    A row with NaN or +-inf in a numeric feature or in its label is neither explained nor
    stored (an infinite value would spoil the perturbation storage of later rows); it is
    counted in ``n_skipped_`` (a warning is issued once).
``"raise"``
    Such a row raises ``ValueError`` naming the feature.
``"pass"``
    NaN and +-inf go to the model as they are (for models that handle missing values) and
    into the storage.

In every policy an explanation value that comes out non-finite (e.g. a model returning NaN) is
not aggregated: that row is counted in ``n_skipped_`` and the estimate stays finite. The
warning (once) says why, from the first such row: a NaN label; a model returning NaN; or a loss
that overflowed float64 (squared error of ``y = 1e200`` is inf), naming the stream row, its
``y`` and the fix (rescale ``y`` and the model's outputs to ``|y| < 1e100``). Methods that
report the model's own per-row loss (PFI, SAGE) tell these apart; the others name both. With
a ``label_free`` drift detector the labels may be the model's own predictions: the text says
"label" instead of "y". The warning of an :meth:`IncrementalExplainer.explain_many` call comes
after its last part and counts every row the call skipped (``"399 of 400 observation(s) of
this call skipped (...)"``), whatever its parts (``max_batch``, a detector's check rows);
numpy's own overflow warnings of the loss arithmetic are not shown next to it (the model
itself runs with the caller's numpy settings).

A missing value does not fix a feature's kind: a feature whose values so far were all missing
(a first record's NaN, a CSV's empty cell, the NaN pandas makes of a None in a Series row)
becomes categorical at its first string, as long as
no row is stored (with ``"skip"`` or ``"raise"`` the rows with its NaN were not; with
``"pass"`` a string after stored rows raises, so give the first rows in one ``explain_many``
batch: its kinds are read from all its rows). A level that a pandas categorical's categories
lack (a later batch's own Categorical, a record's string) is appended to them and reaches the
model as itself; an ordered categorical refuses it.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np

from .._numeric import overflow_reported
from .._random import root_seed
from .._validation import (
    check_bool,
    check_feature_names,
    check_float,
    check_int,
    check_options,
    param_error,
)
from ..aggregation import EWMean, Mean
from ..boundary import (
    StreamInput,
    as_labels,
    label_shape_failure,
    refuse_first_labels,
    refuse_labels,
)
from ..models import as_model
from ..observers import Observed, observers_of
from ..storage import GeometricReservoir, UniformReservoir
from ..storage.base import Batch, SlotStorage
from ..tabular import Schema, Table
from ._parts import PartUndo, raise_part_failed, undo_first_call
from ._sampler import RowStreams, Sampler, child_seed, reported_losses
from ._skips import drop_nan_rows, nonfinite_reason, skip_warning, warn_skipped

__all__ = ["IncrementalExplainer", "Sampler"]

_RowStreams = RowStreams  # (the name in pickles made before the sampler had its module)

_NO_UNDO = nullcontext()  # (IncrementalExplainer._first_call once the schema is fixed)


class IncrementalExplainer(Observed):
    """Base class: explain a model on a stream, one observation or mini-batch at a time.

    Parameters
    ----------
    model : estimator, River model, Booster or callable
        Anything :func:`~ixplain.models.as_model` accepts.
    feature_names : sequence of str, optional
        The model's input features in order. Default: the first observation's keys / columns
        (``x0, x1, ...`` for arrays).
    storage : storage, optional
        Perturbation data (:mod:`ixplain.storage`); default from :meth:`_default_storage`.
    aggregation : {"ema", "mean"}, default="ema"
        Exponential smoothing with rate ``alpha`` (a changing model) or a running mean (a static
        model).
    alpha : float, default=0.001
        Smoothing rate in (0, 1] for ``"ema"`` (ignored for ``"mean"``).
    bias_corrected : bool, default=False
        Report ``phi_t / (1 - (1 - alpha) ** n)`` (``n`` = number of explained rows) instead of
        ``phi_t``, which starts at 0.
    history_every : int, default=100
        Take a snapshot of the estimate every ``history_every`` rows (``0`` disables).
    history_size : int, default=1000
        Keep at most this many snapshots (the oldest are dropped).
    response_method : str, default="auto"
        Passed to :func:`~ixplain.models.as_model`.
    nan_policy : {"skip", "raise", "pass"}, default="skip"
        What to do with NaN or +-inf in a numeric feature or label (see the module docstring).
    random_state : None, int or numpy.random.Generator, default=None
        The one seed of everything random in the explainer: row ``t``'s draws come from row
        streams keyed by (seed, purpose) at index ``t`` (:class:`Sampler`), and a storage given
        without its own ``random_state`` (and the default storage) is seeded from it.
    max_batch : int, optional
        Default 2048. Rows of :meth:`explain_many` explained in one model call (bounds the memory of the
        in-batch storage emulation and of the model input); no effect on the results.

    Attributes
    ----------
    feature_names_ : list of str
    n_seen_ : int
        Observations received.
    n_explained_ : int
        Observations whose explanation entered the estimate.
    n_skipped_ : int
        Observations skipped (missing values or a non-finite explanation).
    history_ : collections.deque of (int, ndarray, ndarray)
        ``(n_seen, estimate, variance)`` snapshots, at most ``history_size``.
    """

    _owner = "IncrementalExplainer"
    #: Optional hook ``f(values, ok, rows, cols, y, losses=None, restarts=())`` called after
    #: each processed chunk with the per-row explanation values (``(B, *value_shape)`` or None
    #: when no row was explained), which of them enter the estimate (``ok``, shape (B,)), their
    #: stream row indices, the rows themselves (canonical columns, labels), from a method that
    #: computed it (:attr:`Sampler.losses`) the model's own per-row loss (``(B,)``, else
    #: None), and from iPDP the stream rows from which its values are summaries on a core grid
    #: fixed again (the values before and after are not comparable): set when an observer
    #: that takes values subscribes (:mod:`ixplain.observers`).
    _on_values: Any = None
    #: Whether ``_explain_batch`` needs labels ``y``.
    requires_labels = True
    #: Whether ``_explain_batch`` draws from the storage (rows seen on an empty storage are skipped).
    requires_storage = True

    def __init__(
        self,
        model: Any,
        *,
        feature_names: Any = None,
        storage: SlotStorage | None = None,
        aggregation: str = "ema",
        alpha: float = 0.001,
        bias_corrected: bool = False,
        history_every: int = 100,
        history_size: int = 1000,
        response_method: str = "auto",
        nan_policy: str = "skip",
        random_state: Any = None,
        max_batch: int | None = None,
    ) -> None:
        owner = self._owner
        if max_batch is None:  # a subclass may set its own default as a class attribute
            max_batch = getattr(type(self), "max_batch", 2048)
        self.max_batch = int(check_int(max_batch, "max_batch", owner, min_value=1))  # type: ignore[arg-type]
        self.aggregation = check_options(aggregation, "aggregation", owner, ("ema", "mean"))
        self.alpha = float(
            check_float(alpha, "alpha", owner, low=0.0, high=1.0, low_inclusive=False)  # type: ignore[arg-type]
        )
        self.bias_corrected = check_bool(bias_corrected, "bias_corrected", owner)
        self.history_every = check_int(history_every, "history_every", owner, min_value=0)
        self.history_size = check_int(history_size, "history_size", owner, min_value=1)
        self.nan_policy = check_options(nan_policy, "nan_policy", owner, ("skip", "raise", "pass"))
        if storage is not None and not isinstance(storage, SlotStorage):
            raise TypeError(
                f"The 'storage' parameter of {owner} must be an ixplain storage (UniformReservoir, "
                f"GeometricReservoir, SlidingWindow, DatasetStorage) or None. Got "
                f"{type(storage).__name__} instead."
            )
        feature_names = check_feature_names(feature_names, owner)
        if feature_names is not None and len(feature_names) == 0:
            raise param_error(owner, "feature_names", "None or a non-empty list of names", [])
        self.feature_names = feature_names
        self.random_state = random_state
        self._seed = root_seed(random_state, owner)
        self._streams = RowStreams(self._seed)
        self.model = model
        self._model = as_model(model, response_method=response_method, owner=owner)
        self._set_storage(storage)
        self._aggregator: Mean | EWMean = Mean() if aggregation == "mean" else EWMean(self.alpha)
        self._input = StreamInput(owner)  # (the input boundary: the schema)
        self.feature_names_: list[str] | None = None
        self.n_seen_ = 0
        self.n_explained_ = 0
        self.n_skipped_ = 0
        self._warned = False
        self.history_: deque = deque(maxlen=self.history_size)

    def _set_storage(self, storage: SlotStorage | None) -> None:
        """Use ``storage`` (default: :meth:`_default_storage`), seeding it from the explainer's
        seed unless it was given its own ``random_state``."""
        if storage is None:
            storage = self._default_storage()
        else:
            storage._seed_from(child_seed(self._seed, "storage"))
        self.storage = storage

    # ------------------------------------------------------------------ subclass hooks
    def _explain_batch(self, X: Table, y: np.ndarray | None, sampler: Sampler) -> np.ndarray:
        """The batched explanation function: ``(B, *value_shape)`` values for the B rows of X.

        ``X`` is in the model's schema (call ``self._model.predict(X)``); ``sampler.draw(n)``
        gives perturbation rows. Rows with ``sampler.available == False`` are discarded by the
        caller when :attr:`requires_storage` is True, so their values may be anything.
        """
        raise NotImplementedError

    def _explain_numeric_row(
        self, xm: np.ndarray, y: np.ndarray | None, t: int, sampler: Sampler
    ) -> np.ndarray | None:
        """Optional fast form of :meth:`_explain_batch` for row ``t`` of the stream when all
        its features are numeric: ``xm`` of shape (1, n_features) float64 (do not modify it);
        the storage holds a row. Draw with :meth:`Sampler.draw_numeric_one` (the first draw call of
        ``_explain_batch`` for this row alone); ``sampler`` is the row's :class:`Sampler`,
        whose :attr:`Sampler.losses` it may set. Returns ``(1, *value_shape)`` values, or None
        to use :meth:`_explain_batch`."""
        return None

    def _value_shape(self) -> tuple[int, ...]:
        """Shape of one explanation (default: one value per feature)."""
        assert self.feature_names_ is not None
        return (len(self.feature_names_),)

    def _default_storage(self) -> SlotStorage:
        """``GeometricReservoir(1000, p=1)`` for 'ema' (recent rows: the model and data may
        drift), ``UniformReservoir(1000)`` for 'mean' (a uniform sample of the whole stream);
        seeded from the explainer's seed."""
        seed = child_seed(self._seed, "storage")
        if self.aggregation == "mean":
            return UniformReservoir(1000, random_state=seed)
        return GeometricReservoir(1000, p=1.0, random_state=seed)

    # ------------------------------------------------------------------ public API
    def explain_one(self, x: Any, y: Any = None) -> np.ndarray:
        """Explain one observation, update the estimate, store the row; return the estimate.

        Parameters
        ----------
        x : dict, pandas Series, ndarray of shape (n_features,)
            The observation (dict keys / Series labels are matched by feature name).
        y : object, optional
            Its label (required by loss-based methods).

        Returns
        -------
        ndarray
            The current estimate (:attr:`importances_`), a copy.

        Raises
        ------
        ValueError
            If a feature is missing from ``x``, a numeric feature holds a non-number (a
            string, ``"2.5"`` as much as ``"a"``: the message names the feature, the value,
            the row and the ``pandas.to_numeric`` conversion; nothing of the call is taken),
            (with ``nan_policy='raise'``) a value is NaN or infinite, or before any model call
            for a label the loss cannot use: ``y`` missing, a shape other than the loss and
            the model's outputs take (named as given: ``y has shape (2,) ... needs a single
            value``; a regression loss knows the model's outputs from its first call, which
            is then taken back), or with the class losses (``zero_one``, ``log_loss``,
            ``brier``) a label no class of the model can equal (None, a str among numbers:
            the message names it, its stream row and the classes). A label of the classes'
            type the model lacks is taken (River learners meet new classes).
        ModelEvaluationError
            If a model call raises (the explainer's, or an attached drift detector's): nothing
            of the row was taken (the explainer and the detector are as before the call, so
            the row can be explained again); the message says so and the model's error is
            chained. Any other exception also leaves nothing of the row, with that as a note.
            On the stream's first row, the schema it fixed is taken back too (a retry with
            other dtypes is read as a first row).
        """
        with self._first_call():
            has_nan = None
            if isinstance(x, Mapping):
                cols, has_nan = self._input.record(x, self)
            else:
                cols = self._input.columns(x, True, self)
            yarr = as_labels(self, y, 1, single=True)
            if yarr is not None:
                refuse_labels(self, y, yarr, "explain_one")
            try:
                if (self._on_values is None
                        and type(self)._process is IncrementalExplainer._process):
                    # (the one fallible step, the model call, comes before every change but
                    # the model adapter's label bookkeeping, which alone is put back)
                    labels = self._model._label_state()
                    try:
                        self._process(cols, yarr, has_nan)
                    except BaseException:
                        self._model._restore_labels(labels)
                        raise
                else:
                    self._run_part(cols, yarr, has_nan)
            except BaseException as exc:
                raise_part_failed(self, label_shape_failure(self, exc, y, yarr, "explain_one"),
                                  "explain_one", 0, self.n_seen_, yarr is not None)
        for observer in observers_of(self):  # (the call is complete: user callbacks)
            observer.on_call_end()
        return self.importances_

    def explain_many(self, X: Any, y: Any = None) -> np.ndarray:
        """Explain a mini-batch in order, vectorised; same semantics as a loop of explain_one.

        Row ``i`` is explained with the storage holding every earlier row of the stream
        (including the earlier rows of this batch), with the random numbers it would get in
        ``explain_one``: the state after the call (estimate, variances, ``history_``,
        storage) is bit for bit that of the loop (for a model whose batch predictions do not
        depend on the batch; a model that rounds by batch moves it by that rounding). The
        explanation values of up to ``max_batch`` rows are computed in one model call; the
        aggregator then takes them in
        segments that end at the ``history_`` snapshot rows. Rows skipped (NaN inputs,
        explanations that are not finite) get one warning after the call's last part, which
        counts them all (``"399 of 400 observation(s) of this call skipped (...)"``; once per
        explainer, as every such warning).

        Parameters
        ----------
        X : ndarray of shape (B, n_features), DataFrame or list of dict
        y : array-like of shape (B,), optional

        Returns
        -------
        ndarray
            The estimate after the last row (a copy).

        Raises
        ------
        ValueError
            For a bad observation or label (as :meth:`explain_one`); a refused label
            (its batch row is named) refuses the whole batch before any model call.
        ModelEvaluationError
            If a model call raises (the explainer's, or an attached drift detector's) while
            the batch is processed in parts (``max_batch`` rows, cut at the detector's check
            rows): the parts before it are kept, the failing part is taken back whole
            (estimate, storage, random streams, history, model labels, detector), and the
            message names the rows kept and how to go on, e.g. ``rows 0-749 of this batch
            were explained (n_seen_ is now 1750) ... call explain_many(X[750:], y[750:]) to
            continue``; going on from there gives the state of an uninterrupted run bit for
            bit. The model's error is chained. Any other exception also leaves nothing of its
            part and gets that as a note (how to go on only for an interruption such as
            ``KeyboardInterrupt``: a bad input, e.g. a NaN with ``nan_policy='raise'``,
            whose error names its batch and stream row, would raise again). When no row of
            the stream was taken, the schema the batch fixed (feature names, kinds, dtypes)
            is taken back too: a retry with other columns or dtypes is read as the first
            batch.
        """
        start = None if self._warned else (self.n_skipped_, self.n_seen_)
        if start is not None:
            self.__dict__["_deferred"] = {}  # (the reasons, for one warning: skip_warning)
        try:
            with self._first_call():
                self._explain_parts(X, y)
        finally:
            if start is not None:
                skip_warning(self, start)
        for observer in observers_of(self):  # (the call is complete: user callbacks)
            observer.on_call_end()
        return self.importances_

    def _explain_parts(self, X: Any, y: Any) -> None:
        """:meth:`explain_many` without the drift delivery: convert ``X``, run its parts."""
        cols = self._input.columns(X, False, self)
        B = len(next(iter(cols.values())))
        yarr = as_labels(self, y, B, single=False)
        if yarr is not None:
            refuse_labels(self, y, yarr, "explain_many")
        n0 = self.n_seen_
        self.__dict__["_batch_start"] = n0  # (the NaN error names the batch row)
        try:
            for s, e in self._parts(B):
                if s == 0 and e == B:
                    part = cols
                elif isinstance(cols, Batch):
                    part = cols.rows(slice(s, e))
                else:
                    part = {k: v[s:e] for k, v in cols.items()}
                try:
                    self._run_part(part, None if yarr is None else yarr[s:e])
                except BaseException as exc:
                    raise_part_failed(self, label_shape_failure(self, exc, y, yarr, "explain_many"),
                                      "explain_many", s, n0 + s, yarr is not None)
        finally:
            self.__dict__.pop("_batch_start", None)

    def _first_call(self) -> AbstractContextManager[None]:
        """Around an explain call: if it raises before any of its rows was taken, what
        converting its observations fixed is taken back (:func:`~ixplain.methods._parts.schema_undo`): the schema
        of the stream's first call, or the kind a feature of unknown kind took from the
        call's values. Once the stream has a schema and every feature a kind, nothing (a
        shared no-op context: the ``explain_one`` hot path; conversion then changes
        nothing)."""
        if self._input.schema is not None and not self._input.unsure:
            return _NO_UNDO
        return undo_first_call(self)

    def _run_part(self, cols: dict[str, np.ndarray], y: np.ndarray | None,
                  has_nan: bool | None = None, full: bool = False) -> PartUndo:
        """:meth:`_process` one part, all or nothing: if anything in it raises (a model call
        of the explainer or of its drift detector), the explainer is put back as it was
        before the part (:class:`~ixplain.methods._parts.PartUndo`) and the exception propagates. Returns the undo,
        which with ``full`` can also take back the part after it completed."""
        guard = full or self._on_values is not None or (
            type(self)._process is not IncrementalExplainer._process)
        undo = PartUndo(self, full, len(next(iter(cols.values()))), guard)
        try:
            self._process(cols, y, has_nan)
        except BaseException:
            undo.restore()
            raise
        self.__dict__.pop("_undo", None)
        return undo

    def _store_rows(self, cols: dict[str, np.ndarray], slots: np.ndarray,
                    y: np.ndarray | None) -> None:
        """Write a part's rows to the storage, first keeping their undo when a fallible step
        of the part can follow (see :class:`~ixplain.methods._parts.PartUndo`)."""
        undo = self.__dict__.get("_undo")
        if undo is not None and undo.guard_writes:
            undo.writes.append(self.storage._write_undo(slots))
        self.storage._write(cols, slots, y)

    def _part_state(self, full: bool, n_rows: int) -> list[Any]:
        """Undo functions of the state a part of ``n_rows`` rows changes in place beyond the
        attributes and the storage (:class:`~ixplain.methods._parts.PartUndo`): none for a part that fails before
        it aggregates; with ``full`` (a part that completed), the aggregator's and the
        history's."""
        if not full:
            return []
        agg, history = self._aggregator, self.history_
        # (the aggregators update their arrays in place and rebind everything else)
        saved = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in agg.__dict__.items()}
        snapshots = list(history)

        def undo() -> None:
            agg.__dict__.clear()
            agg.__dict__.update(saved)
            history.clear()
            history.extend(snapshots)

        return [undo]

    def _parts(self, B: int) -> list[tuple[int, int]]:
        """``(start, stop)`` of the parts of a ``B``-row batch that :meth:`explain_many`
        processes: at most ``max_batch`` rows, and cut after the rows where an observer asks
        (the drift detector: where it checks the model), so that what it sees is the
        explainer as it is after that row, however the caller batched the stream."""
        cuts = set(range(0, B, self.max_batch))
        for observer in observers_of(self):
            cuts.update(observer.cut_offsets(self.n_seen_, B))
        edges = [*sorted(cuts), B]
        return list(zip(edges[:-1], edges[1:]))

    @property
    def importances_(self) -> np.ndarray:
        """The current estimate (bias-corrected if ``bias_corrected``).

        An empty array before the first observation and zeros of the estimate's shape until a
        row is explained (River's and ixai's habit: no error); ``IncrementalPDP.pd_`` and
        ``IncrementalALE.ale_`` raise ``NotStartedError`` instead.
        """
        agg = self._aggregator
        if agg.n == 0:
            return np.zeros(self._value_shape()) if self.feature_names_ else np.zeros(0)
        if self.bias_corrected and isinstance(agg, EWMean):
            return agg.value_debiased
        return agg.get()

    @property
    def variances_(self) -> np.ndarray:
        """Variance of the per-observation explanations (element-wise)."""
        if self._aggregator.n == 0:
            return np.zeros_like(self.importances_)
        return self._aggregator.variance

    def confidence_bound(self, delta: float = 0.05) -> np.ndarray:
        """Half-width ``eps`` such that ``P(|phi_t - E phi_t| > eps) <= delta`` (Chebyshev).

        ``'ema'`` (iPFI, Theorem 2): ``(1 - alpha) ** n + sqrt(var) * sqrt(alpha / (2 - alpha))
        / sqrt(delta)`` -- the first term bounds the bias from the zero start (for values in
        [0, 1]), the second the spread of the smoothed value. ``'mean'``:
        ``sqrt(var / n) / sqrt(delta)``. ``n`` = explained rows.

        Parameters
        ----------
        delta : float in (0, 1]

        Returns
        -------
        ndarray of the estimate's shape (``inf`` before two updates for ``'mean'``).
        """
        delta = float(
            check_float(delta, "delta", f"{self._owner}.confidence_bound", low=0.0, high=1.0,
                        low_inclusive=False)  # type: ignore[arg-type]
        )
        var = self.variances_
        n = self._aggregator.n
        if self.aggregation == "ema":
            a = self.alpha
            return (1 - a) ** n + np.sqrt(var) * np.sqrt(a / (2 - a)) / np.sqrt(delta)
        if n < 2:
            return np.full_like(var, np.inf, dtype=np.float64)
        return np.sqrt(var / n) / np.sqrt(delta)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self._model.describe()}, aggregation="
            f"{self.aggregation!r}, alpha={self.alpha}, n_seen={self.n_seen_})"
        )

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks: the ranking with bounds and traces, or the
        current curve (:func:`ixplain._html.render`)."""
        from .._html import render

        return render("explainer", self)

    # ------------------------------------------------------------------ pipeline
    def _process(
        self, cols: dict[str, np.ndarray], y: np.ndarray | None, has_nan: bool | None = None
    ) -> None:
        """Explain, store and aggregate a batch of rows (the stream's next ``B`` rows)."""
        B = len(next(iter(cols.values())))
        if y is not None and not len(self.storage):
            refuse_first_labels(self, y)
        if has_nan is False and y is not None and y.dtype.kind == "f" and not np.isfinite(y).all():
            has_nan = None  # ``has_nan`` speaks of the features: a NaN label goes to the policy
        if B == 1 and (has_nan is False or self.nan_policy == "pass"):
            self._process_one(cols, y)
            return
        rows = self.n_seen_ + np.arange(B)
        if self.nan_policy != "pass" and has_nan is not False:
            cols, y, good = drop_nan_rows(self, cols, y, B)
            if good is not None:
                rows = rows[good]
        values, ok, losses = self._values(cols, y, rows) if len(rows) else (None, None, None)
        if self._on_values is not None and len(rows):
            self._on_values(values, np.zeros(len(rows), dtype=bool) if ok is None else ok, rows,
                            cols, y, losses=losses)
        self._aggregate(values, ok, rows, B)

    def _values(
        self, cols: dict[str, np.ndarray], y: np.ndarray | None, rows: np.ndarray
    ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """The explanation values of the batch (one model call), the mask of the rows
        whose values enter the estimate and the per-row loss the method reported
        (:attr:`Sampler.losses`, or None); stores the rows."""
        storage = self.storage
        if storage._schema is None:
            assert self._input.schema is not None
            storage._ensure_schema(self._input.schema)
        n = len(rows)
        slots = storage._plan(n)
        if y is not None:
            self._model.observe_labels(y)
        sampler = Sampler(storage, cols, slots, rows, self._streams, self._make_table)
        keep = sampler.available if self.requires_storage else np.ones(n, dtype=bool)
        values = None
        if keep.any():
            with overflow_reported():  # (a non-finite value: our warning, not numpy's)
                values = np.asarray(self._explain_batch(self._make_table(cols), y, sampler),
                                    dtype=np.float64)
        self._store_rows(cols, slots, y)
        if values is None:
            return None, None, None
        losses = reported_losses(sampler, n)
        if np.isfinite(values).all():
            return values, keep, losses
        finite = np.isfinite(values.reshape(n, -1)).all(axis=1)
        bad = int((keep & ~finite).sum())
        if bad:
            self.n_skipped_ += bad
            warn_skipped(self, "values", nonfinite_reason(self, y, keep & ~finite, rows, losses),
                         bad, n)
        return values, keep & finite, losses

    def _aggregate(
        self, values: np.ndarray | None, ok: np.ndarray | None, rows: np.ndarray, B: int
    ) -> None:
        """Feed the values of rows ``ok`` to the aggregator in segments that end at the
        ``history_`` snapshot rows, and advance ``n_seen_`` by ``B`` (snapshots included)."""
        n0, every = self.n_seen_, self.history_every
        if values is None or ok is None or not ok.any():
            vals, at = np.empty((0,)), np.empty(0, dtype=np.intp)
        elif ok.all():
            vals, at = values, rows
        else:
            vals, at = values[ok], rows[ok]
        ends = list(range((n0 // every + 1) * every, n0 + B, every)) if every else []
        ends.append(n0 + B)
        agg, start = self._aggregator, 0
        for end in ends:
            stop = int(np.searchsorted(at, end)) if len(ends) > 1 else len(at)
            if stop > start:
                agg.update_sequence(vals[start:stop])
                self.n_explained_ += stop - start
                start = stop
            self._after(end - self.n_seen_)

    def _process_one(self, cols: dict[str, np.ndarray], y: np.ndarray | None) -> None:
        """:meth:`_process` for one row that needs no NaN check (same steps, same draws)."""
        storage = self.storage
        if storage._schema is None:
            assert self._input.schema is not None
            storage._ensure_schema(self._input.schema)
        slots = storage._plan(1)
        if y is not None:
            self._model.observe_labels(y)
        values = losses = None
        held = len(storage) > 0
        if held or not self.requires_storage:
            sampler = Sampler(storage, cols, slots, (self.n_seen_,), self._streams,  # type: ignore[arg-type]
                              self._make_table)
            matrix = getattr(cols, "matrix", None)
            with overflow_reported():  # (a non-finite value: our warning, not numpy's)
                if matrix is not None and held:
                    values = self._explain_numeric_row(matrix, y, self.n_seen_, sampler)
                if values is None:
                    values = np.asarray(self._explain_batch(self._make_table(cols), y,
                                                            sampler), dtype=np.float64)
            losses = reported_losses(sampler, 1)
        self._store_rows(cols, slots, y)
        # finite only if every value is (the sum is cheaper than isfinite.all)
        finite = values is not None and (math.isfinite(values.sum())
                                         or bool(np.isfinite(values).all()))
        if self._on_values is not None:  # (its model calls come before the aggregator's
            # change, which the undo of a failing part does not cover: PartUndo)
            self._on_values(values, np.array([finite]), np.array([self.n_seen_]), cols, y,
                            losses=losses)
        if finite:
            assert values is not None
            self._aggregator.update(values[0])
            self.n_explained_ += 1
        elif values is not None:
            self.n_skipped_ += 1
            warn_skipped(self, "values", nonfinite_reason(self, y, np.ones(1, dtype=bool),
                                                          [self.n_seen_], losses), 1, 1)
        self._after(1)

    def _after(self, B: int) -> None:
        before = self.n_seen_
        self.n_seen_ += B
        every = self.history_every
        if every and self.n_seen_ // every > before // every and self._aggregator.n > 0:
            snapshot = (self.n_seen_, self.importances_, self.variances_)
            self.history_.append(snapshot)
            for observer in observers_of(self):
                observer.on_snapshot(*snapshot)

    # ------------------------------------------------------------------ the input boundary
    def __setstate__(self, state: dict[str, Any]) -> None:
        """Load a pickle; one made before the input boundary had its own object (the schema,
        its record getter and caches in the explainer's attributes) gets one from them."""
        if "_input" not in state:
            boundary = StreamInput(state.get("_owner", self._owner))
            boundary.schema = state.pop("_schema", None)
            boundary.unsure = state.pop("_unsure", [])
            for key in ("_get", "_levels", "_dates"):
                if key in state:
                    boundary.__dict__[key] = state.pop(key)
            state["_input"] = boundary
        self.__dict__.update(state)

    @property
    def _schema(self) -> Schema | None:
        """The stream's schema (owned by the input boundary, :attr:`_input`); None before the
        first observation."""
        return self._input.schema

    def _make_table(self, cols: dict[str, np.ndarray]) -> Table:
        """Canonical columns -> a Table in the model's schema (pandas categories restored;
        :meth:`~ixplain.boundary.StreamInput.make_table`)."""
        return self._input.make_table(cols)

    def _kind_changed(self, name: str) -> None:
        """Hook: feature ``name`` changed kind before any row was stored (the input boundary
        settled a kind the first observations left open)."""
