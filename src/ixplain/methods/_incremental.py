"""The base class of the incremental explainers (iPFI, iSAGE, iPDP).

An incremental explainer turns a stream of observations ``(x_t, y_t)`` into an explanation that
follows the model as it is *now*::

    phi_t = (1 - alpha) * phi_{t-1} + alpha * lambda_{f_t}(x_t, y_t, P_t)      # aggregation='ema'
    phi_t = mean of lambda_{f_s}(x_s, y_s, P_s), s <= t                        # aggregation='mean'

where ``lambda`` is the method's per-observation explanation function and ``P_t`` is a bounded
storage of past rows (:mod:`ixplain.storage`). This module does everything except ``lambda``:

* the model adapter, built once (:func:`~ixplain.models.as_model`); the model is *called* at
  explain time, so a model that learns online is explained as it is at that moment;
* feature names (from the first observation unless given) and the conversion of observations
  (dict record, pandas Series/DataFrame, numpy row/array, list of records) to table rows, checked
  by name (a missing key is an error naming it; extra keys are ignored; key order is irrelevant);
* the storage and aggregator updates, in order: row ``t`` is explained with the storage holding
  rows ``< t`` (the first row of a stream is only stored), then stored;
* ``history_`` snapshots, the confidence bound, the randomness, pickling.

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
round trip. ``_explain_batch`` gets a :class:`Sampler` whose every number for row ``t`` is read
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
the error says which rows were kept. Most of it costs nothing: the explainer's model call comes
before its writes, so only what precedes it is kept (a shallow copy of the attributes), and a
write is made undoable only when a fallible step can follow it (a drift hook, a class's own
pipeline). A subclass that changes state in place before its model call keeps it in
:meth:`IncrementalExplainer._part_state` (iPDP: its grid points and range window). When the
stream's first part fails (or its conversion), the schema its observations fixed (feature
names, kinds, dtypes, the storage's buffers) is taken back too
(:meth:`IncrementalExplainer._schema_undo`): a retry with other columns or dtypes is read as
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

import itertools
import math
import operator
import warnings
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import replace
from typing import Any

import numpy as np

from .._lazy import is_instance
from .._numeric import overflow_reported
from .._random import RowStream, keyed_generator, root_seed
from .._validation import (
    ModelEvaluationError,
    check_bool,
    check_feature_names,
    check_float,
    check_int,
    check_options,
    missing_value,
    param_error,
    refuse_complex_target,
    user_stacklevel,
)
from ..aggregation import EWMean, Mean
from ..losses import foreign_label, label_row_shape, label_shape_error, refuse_unusable_labels
from ..models import as_model
from ..observers import subscribe
from ..storage import GeometricReservoir, UniformReservoir
from ..storage.base import Batch, CachedRows, SlotStorage, canonical_columns
from ..tabular import (
    Schema,
    Table,
    _all_numbers,
    _is_na,
    as_table,
    date_unit_misfit,
    is_date_dtype,
)

__all__ = ["IncrementalExplainer", "Sampler"]

_NO_UNDO = nullcontext()  # (IncrementalExplainer._first_call once the schema is fixed)


class _RowStreams:
    """The explainer's named row streams: ``uniforms(name, k, rows)`` -> (len(rows), k)."""

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)
        self._streams: dict[tuple[str, int], RowStream] = {}
        self._cached: dict[tuple[str, int], CachedRows] = {}

    def cached(self, name: str, k: int) -> CachedRows:
        """Stream ``name`` of width ``k`` read one row at a time (the one-row hot path)."""
        cached = self._cached.get((name, k))
        if cached is None:
            cached = self._cached[(name, k)] = CachedRows(self.stream(name, k))
        return cached

    def stream(self, name: str, k: int) -> RowStream:
        key = (name, k)
        st = self._streams.get(key)
        if st is None:  # the width is part of the name: two widths never share numbers
            st = self._streams[key] = RowStream(self.seed, f"{name}/{k}", k)
        return st

    def uniforms(self, name: str, k: int, rows: np.ndarray) -> np.ndarray:
        st = self.stream(name, k)
        B = len(rows)
        t0 = int(rows[0])
        span = int(rows[-1]) - t0 + 1
        if span == B:  # consecutive rows (the usual case)
            return st.uniforms(t0, B)
        return st.uniforms(t0, span)[rows - t0]


#: Stream names of the draw calls of a batch (the c-th call uses ``"draw:<c>"``).
_DRAW_NAMES = tuple(f"draw:{c}" for c in range(16))


class Sampler:
    """Draws perturbation rows and random numbers for a mini-batch, row by row.

    Passed to :meth:`IncrementalExplainer._explain_batch`. Row ``i`` of the batch draws from the
    storage as it was when row ``i`` arrived (holding the stream's rows before it, including the
    earlier rows of the same batch), exactly as a loop of ``explain_one`` calls would.

    Every random number a row gets depends only on the explainer's seed, the row's index ``t``
    in the stream (``n_seen_`` when it arrived) and what the numbers are for, never on how the
    rows were batched (see :mod:`ixplain._random`):

    * ``uniforms(k, name)``: ``(B, k)`` uniforms in [0, 1), row ``i``'s from the row stream
      ``name`` at index ``t_i``; a method's own randomness (e.g. SAGE's feature orders:
      ``argsort(sampler.uniforms(G, "order"), axis=1)``). Use one name per purpose: the same
      ``(k, name)`` gives the same numbers again within a batch.
    * ``draw(n)``, ``draw_blocks(n)``, ``draw_columns(n)``: ``n`` storage rows per batch row,
      uniformly with replacement; the ``c``-th draw call of a batch uses its own stream
      (names ``"draw:<c>"`` are reserved), so calling them in the same order for every batch
      -- as ``_explain_batch`` does -- gives each row the same draws alone or in a batch.

    Attributes
    ----------
    available : ndarray of bool, shape (B,)
        False for rows that arrived while the storage was empty (nothing to draw from).
    rows : sequence of int, length B
        The stream index ``t`` of each batch row.
    losses : ndarray of shape (B,) or None
        Set by a method that computes the model's own per-row loss ``loss(y, f(x))`` as the
        base of its values (iPFI, iSAGE); the engine hands it to the drift hook
        (:attr:`IncrementalExplainer._on_values`), so the detector's loss test needs no model
        call of its own. None (default): not computed.
    """

    def __init__(
        self,
        storage: SlotStorage,
        batch: dict[str, np.ndarray],
        slots: np.ndarray,
        rows: np.ndarray,
        streams: _RowStreams,
        make_table: Any,
    ) -> None:
        self._storage = storage
        self._batch = batch
        self._slots = slots
        self.rows = rows
        self._streams = streams
        self._make_table = make_table
        self._n_draws = 0
        self._available: np.ndarray | None = None
        self.losses: np.ndarray | None = None

    @property
    def available(self) -> np.ndarray:
        """False for rows that arrived while the storage was empty, shape (B,)."""
        if self._available is None:
            storage, slots = self._storage, self._slots
            len0 = len(storage)
            if len(slots) == 1 or len0 > 0:  # held rows never decrease: all or none available
                self._available = np.full(len(slots), len0 > 0)
            else:
                self._available = storage._held(slots) > 0
        return self._available

    def uniforms(self, k: int, name: str) -> np.ndarray:
        """``(B, k)`` float64 uniforms in [0, 1): row ``i``'s numbers of stream ``name``.

        They depend on (seed, ``name``, ``k``, the row's stream index) alone. Raises
        ``ValueError`` for a reserved name (``"draw:..."``) or ``k < 1``.
        """
        if str(name).startswith("draw:"):
            raise ValueError(f"Sampler.uniforms: the stream name {name!r} is reserved.")
        if int(k) < 1:
            raise ValueError(f"Sampler.uniforms: k must be >= 1. Got {k!r} instead.")
        return self._streams.uniforms(str(name), int(k), self.rows)

    def _draw_name(self) -> str:
        c = self._n_draws
        self._n_draws = c + 1
        return _DRAW_NAMES[c] if c < len(_DRAW_NAMES) else f"draw:{c}"

    def _draw_uniforms(self, n: int) -> np.ndarray:
        return self._streams.uniforms(self._draw_name(), int(n), self.rows)

    def draw_blocks(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` rows per batch row as (numeric, categorical) 2-D blocks, ``B * n`` rows each;
        columns in feature order within each block (numeric features, then categorical)."""
        num, cat, _ = self._storage._sample_blocks(self._batch, self._slots,
                                                   self._draw_uniforms(n))
        return num, cat

    def draw_columns(self, n: int) -> dict[str, np.ndarray]:
        """``n`` rows per batch row as canonical columns (``B * n`` rows, row-major)."""
        cols, _ = self._storage._sample_during(self._batch, self._slots, self._draw_uniforms(n))
        return cols

    def draw(self, n: int) -> Table:
        """``n`` rows per batch row as a :class:`~ixplain.Table` in the model's schema
        (``B * n`` rows; row ``i``'s draws at ``i*n .. i*n+n-1``)."""
        return self._make_table(self.draw_columns(n))

    @property
    def storage(self) -> SlotStorage:
        """The stream's storage as the batch's first row finds it (the batch's rows are
        written after it is explained); a method with its own draws reads it, e.g. the
        conditional sampler of a :class:`~ixplain.imputation.ConditionalStorage`."""
        return self._storage

    def make_table(self, cols: dict[str, np.ndarray]) -> Table:
        """Canonical columns (float64 / object arrays) -> a Table in the model's schema."""
        return self._make_table(cols)  # type: ignore[no-any-return]


class _PartUndo:
    """How to put an explainer back as it was before one part of its stream
    (:meth:`IncrementalExplainer._run_part`) when a model call of the part raises.

    It keeps what is cheap to keep and lets the part register the rest as it goes: a shallow
    copy of the explainer's attributes (every counter, flag, cache and rebound array), the
    model adapter's label bookkeeping, the storage's read-side state (a conditional
    storage's sampler), the undo of each storage write the part makes
    (:meth:`IncrementalExplainer._store_rows`; only when a fallible step can follow the write:
    ``guard_writes``), and what the class keeps for the rest
    (:meth:`IncrementalExplainer._part_state`; with ``full``, also the aggregator and the
    history, so that a part that *completed* can be undone -- the drift detector's copies).
    """

    __slots__ = ("explainer", "state", "labels", "storage", "writes", "extra", "guard_writes")

    def __init__(self, explainer: IncrementalExplainer, full: bool, n_rows: int) -> None:
        self.explainer = explainer
        self.state = dict(explainer.__dict__)
        self.labels = explainer._model._label_state()
        self.storage = explainer.storage._undo_state()
        self.writes: list[Any] = []
        self.guard_writes = full or explainer._on_values is not None or (
            type(explainer)._process is not IncrementalExplainer._process)
        self.extra = explainer._part_state(full, n_rows)
        explainer.__dict__["_undo"] = self

    def restore(self) -> None:
        """Put the explainer back (its attributes, storage, labels and the class's state)."""
        e = self.explainer
        for undo in reversed(self.writes):
            undo()
        e.__dict__.clear()
        e.__dict__.update(self.state)
        e._model._restore_labels(self.labels)
        e.storage._restore_state(self.storage)
        for undo in reversed(self.extra):
            undo()


class IncrementalExplainer:
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
    #: fixed again (the values before and after are not comparable). Set by
    #: :mod:`ixplain.drift`.
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
        self._streams = _RowStreams(self._seed)
        self.model = model
        self._model = as_model(model, response_method=response_method, owner=owner)
        self._set_storage(storage)
        self._aggregator: Mean | EWMean = Mean() if aggregation == "mean" else EWMean(self.alpha)
        self._schema: Schema | None = None
        self._get: _Getter | None = None
        self._unsure: list[str] = []  # features whose values were all missing so far
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
        the storage holds a row. Draw with :meth:`_draw_numeric_one` (the first draw call of
        ``_explain_batch`` for this row alone); ``sampler`` is the row's :class:`Sampler`,
        whose :attr:`Sampler.losses` it may set. Returns ``(1, *value_shape)`` values, or None
        to use :meth:`_explain_batch`."""
        return None

    def _draw_numeric_one(self, n: int, t: int) -> np.ndarray:
        """Row ``t``'s ``n`` draws as a numeric block (n, n_numeric): what the first
        ``sampler.draw_blocks(n)`` of a one-row batch gives (the storage must hold a row)."""
        return self.storage._draw_numeric(self._streams.cached(_DRAW_NAMES[0], n), t)

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
                cols, has_nan = self._convert_record(x)
            else:
                cols = self._convert(x, single=True)
            yarr = self._convert_y(y, 1, single=True)
            if yarr is not None:
                self._refuse_labels(y, yarr, "explain_one")
            try:
                if (self._on_values is None
                        and type(self)._process is IncrementalExplainer._process):
                    self._process_plain(cols, yarr, has_nan)
                else:
                    self._run_part(cols, yarr, has_nan)
            except BaseException as exc:
                exc = self._label_shape_failure(exc, y, yarr, "explain_one")
                self._raise_part_failed(exc, "explain_one", 0, self.n_seen_, yarr is not None)
        self._deliver_drift()
        return self.importances_

    def explain_many(self, X: Any, y: Any = None) -> np.ndarray:
        """Explain a mini-batch in order, vectorised; same semantics as a loop of explain_one.

        Row ``i`` is explained with the storage holding every earlier row of the stream
        (including the earlier rows of this batch), with the random numbers it would get in
        ``explain_one``: the state after the call (estimate, variances, ``history_``,
        storage) is bit for bit that of the loop. The explanation values of up to
        ``max_batch`` rows are computed in one model call; the aggregator then takes them in
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
            self.__dict__["_deferred"] = {}  # (the reasons, for one warning: _skip_warning)
        try:
            with self._first_call():
                self._explain_parts(X, y)
        finally:
            if start is not None:
                self._skip_warning(start)
        self._deliver_drift()
        return self.importances_

    def _explain_parts(self, X: Any, y: Any) -> None:
        """:meth:`explain_many` without the drift delivery: convert ``X``, run its parts."""
        cols = self._convert(X, single=False)
        B = len(next(iter(cols.values())))
        yarr = self._convert_y(y, B, single=False)
        if yarr is not None:
            self._refuse_labels(y, yarr, "explain_many")
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
                    exc = self._label_shape_failure(exc, y, yarr, "explain_many")
                    self._raise_part_failed(exc, "explain_many", s, n0 + s, yarr is not None)
        finally:
            self.__dict__.pop("_batch_start", None)

    def _first_call(self) -> AbstractContextManager[None]:
        """Around an explain call: if it raises before any of its rows was taken, what
        converting its observations fixed is taken back (:meth:`_schema_undo`): the schema
        of the stream's first call, or the kind a feature of unknown kind took from the
        call's values. Once the stream has a schema and every feature a kind, nothing (a
        shared no-op context: the ``explain_one`` hot path; conversion then changes
        nothing)."""
        if self._schema is not None and not self._unsure:
            return _NO_UNDO
        return self._undo_first_call()

    @contextmanager
    def _undo_first_call(self) -> Iterator[None]:
        n_seen = self.n_seen_
        first = self._schema_undo()
        try:
            yield
        except BaseException:
            if self.n_seen_ == n_seen:  # no part of the call was taken
                first()
            raise

    def _schema_undo(self) -> Any:
        """For an explain call that can fix the schema (the first call, or one while a
        feature's kind is unknown): a function of no arguments that takes back what
        converting its observations and processing its first part fixed, for when the call
        fails before any of its rows was taken -- the explainer's attributes as before the
        call (the schema and what is read from it: ``feature_names_``, the features of
        unknown kind, the record getter, the level cache, a class's own, e.g. iPDP's
        feature), the storage's claim and its buffers when they were made or dropped since
        (they were made from the failed call's kinds) -- so that a retry with other columns
        or dtypes is read as if the failed call had not been made. Called only while no row
        was taken (the part's own undo has run): the storage holds no row of the call."""
        storage = self.storage
        owner = storage.__dict__.get("_owned_by")
        buffers = storage._schema  # a storage given with rows keeps its columns
        state, unsure = dict(self.__dict__), list(self._unsure)  # (_settle_kinds edits it)

        def undo() -> None:
            self.__dict__.clear()
            self.__dict__.update(state)
            self._unsure = unsure
            storage._owned_by = owner
            if storage._schema is not buffers:
                storage._schema = None  # its buffers are made again at the next stored row
        return undo

    def _run_part(self, cols: dict[str, np.ndarray], y: np.ndarray | None,
                  has_nan: bool | None = None, full: bool = False) -> _PartUndo:
        """:meth:`_process` one part, all or nothing: if anything in it raises (a model call
        of the explainer or of its drift detector), the explainer is put back as it was
        before the part (:class:`_PartUndo`) and the exception propagates. Returns the undo,
        which with ``full`` can also take back the part after it completed."""
        undo = _PartUndo(self, full, len(next(iter(cols.values()))))
        try:
            self._process(cols, y, has_nan)
        except BaseException:
            undo.restore()
            raise
        self.__dict__.pop("_undo", None)
        return undo

    def _process_plain(self, cols: dict[str, np.ndarray], y: np.ndarray | None,
                       has_nan: bool | None) -> None:
        """:meth:`_run_part` of one row for an explainer without a drift hook (the
        ``explain_one`` hot path): its one fallible step, the model call, comes before every
        change but the model adapter's label bookkeeping, which alone is put back."""
        labels = self._model._label_state()
        try:
            self._process(cols, y, has_nan)
        except BaseException:
            self._model._restore_labels(labels)
            raise

    def _raise_part_failed(self, exc: BaseException, method: str, start: int, row: int,
                           labels: bool = True) -> None:
        """Raise the error of the part that starts at batch row ``start`` (stream row ``row``)
        and raised ``exc`` (the part was taken back): for a :class:`ModelEvaluationError`, a
        new one chained to it whose message says what was committed and how to continue
        (``labels``: whether the call had labels to slice too); any other exception
        propagates with that as a note -- with how to go on only for an interruption (a
        ``BaseException`` such as ``KeyboardInterrupt``): an error of the input (a NaN with
        ``nan_policy='raise'``) would raise again. The drift detector's ``update`` /
        ``update_many`` name themselves (``_resume_as``: the method and whether the caller
        gave labels)."""
        where = f"{self._owner}.{method}"
        call, labels = self.__dict__.get("_resume_as") or (method, labels)
        if method == "explain_one":
            done = f"nothing was taken (n_seen_ is still {self.n_seen_})"
            how = f"call {call}(x{', y' if labels else ''}) again to retry"
        elif start == 0:
            done = f"no row of this batch was taken (n_seen_ is still {self.n_seen_})"
            how = f"call {call}(X{', y' if labels else ''}) again to retry"
        else:
            done = (f"rows 0-{start - 1} of this batch were explained (n_seen_ is now "
                    f"{self.n_seen_}); the part starting at batch row {start} (stream row "
                    f"{row}) raised and nothing of it was taken")
            rest = f"X[{start}:], y[{start}:]" if labels else f"X[{start}:]"
            how = f"call {call}({rest}) to continue"
        if isinstance(exc, ModelEvaluationError):
            raise ModelEvaluationError(f"{where}: {done}: {how}. {exc}") from exc
        exc.add_note(f"{where}: {done}: {how}." if not isinstance(exc, Exception)
                     else f"{where}: {done}.")
        raise exc

    def _store_rows(self, cols: dict[str, np.ndarray], slots: np.ndarray,
                    y: np.ndarray | None) -> None:
        """Write a part's rows to the storage, first keeping their undo when a fallible step
        of the part can follow (see :class:`_PartUndo`)."""
        undo = self.__dict__.get("_undo")
        if undo is not None and undo.guard_writes:
            undo.writes.append(self.storage._write_undo(slots))
        self.storage._write(cols, slots, y)

    def _part_state(self, full: bool, n_rows: int) -> list[Any]:
        """Undo functions of the state a part of ``n_rows`` rows changes in place beyond the
        attributes and the storage (:class:`_PartUndo`): none for a part that fails before
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

    def _deliver_drift(self) -> None:
        """Give an attached drift detector's callback the events of this call, now that the
        explainer and the detector have taken all its rows (a callback that raises leaves
        both complete)."""
        detector = self.__dict__.get("drift_detector")
        if detector is not None:
            detector.on_call_end()

    def _parts(self, B: int) -> list[tuple[int, int]]:
        """``(start, stop)`` of the parts of a ``B``-row batch that :meth:`explain_many`
        processes: at most ``max_batch`` rows, and cut after the rows where an attached drift
        detector checks the model, so that its checks and snapshots see the explainer as it
        is after that row, however the caller batched the stream."""
        cuts = set(range(0, B, self.max_batch))
        detector = self.__dict__.get("drift_detector")
        if detector is not None:
            cuts.update(detector.cut_offsets(self.n_seen_, B))
        edges = [*sorted(cuts), B]
        return list(zip(edges[:-1], edges[1:]))

    @property
    def drift_detector(self) -> Any:
        """The attached :class:`~ixplain.drift.ExplanationDriftDetector` (None: none).

        Assigning a detector attaches it, as the ``drift_detector`` parameter does (see
        :func:`~ixplain.observers.subscribe`: a ``TypeError`` for anything but an observer
        (:class:`~ixplain.observers.ExplainerObserver`) or None, a ``ValueError`` once the explainer has seen rows or when the
        detector watches another explainer; nothing changes then); None detaches the
        current one (the explainer stops reporting to it).
        """
        return self.__dict__.get("drift_detector")

    @drift_detector.setter
    def drift_detector(self, detector: Any) -> None:
        subscribe(self, detector)

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

    # ------------------------------------------------------------------ pipeline
    def _process(
        self, cols: dict[str, np.ndarray], y: np.ndarray | None, has_nan: bool | None = None
    ) -> None:
        """Explain, store and aggregate a batch of rows (the stream's next ``B`` rows)."""
        B = len(next(iter(cols.values())))
        if y is not None and not len(self.storage):
            self._refuse_first_labels(y)
        if has_nan is False and y is not None and y.dtype.kind == "f" and not np.isfinite(y).all():
            has_nan = None  # ``has_nan`` speaks of the features: a NaN label goes to the policy
        if B == 1 and (has_nan is False or self.nan_policy == "pass"):
            self._process_one(cols, y)
            return
        rows = self.n_seen_ + np.arange(B)
        if self.nan_policy != "pass" and has_nan is not False:
            cols, y, good = self._drop_nan_rows(cols, y, B)
            if good is not None:
                rows = rows[good]
        values, ok, losses = self._values(cols, y, rows) if len(rows) else (None, None, None)
        if self._on_values is not None and len(rows):
            self._on_values(values, np.zeros(len(rows), dtype=bool) if ok is None else ok, rows,
                            cols, y, losses=losses)
        self._aggregate(values, ok, rows, B)

    def _refuse_first_labels(self, y: np.ndarray) -> None:
        """Refuse labels the loss refuses before any row is stored (the first rows, which no
        model call evaluates, were taken with only a warning; the second row raised), for a
        model whose classes are fixed (scikit-learn, a booster, a River model given
        ``classes``; a River model learns its classes from the stream: it warns instead).
        The adapter's warning comes first, as for later rows."""
        loss, model = getattr(self, "_loss", None), self._model
        if loss is not None and model.classes_fixed:
            model.observe_labels(y)  # its warning first, as for the later rows
            refuse_unusable_labels(loss, y, model.classes_)

    def _values(
        self, cols: dict[str, np.ndarray], y: np.ndarray | None, rows: np.ndarray
    ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """The explanation values of the batch (one model call), the mask of the rows
        whose values enter the estimate and the per-row loss the method reported
        (:attr:`Sampler.losses`, or None); stores the rows."""
        storage = self.storage
        if storage._schema is None:
            assert self._schema is not None
            storage._ensure_schema(self._schema)
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
        losses = _reported_losses(sampler, n)
        if np.isfinite(values).all():
            return values, keep, losses
        finite = np.isfinite(values.reshape(n, -1)).all(axis=1)
        bad = int((keep & ~finite).sum())
        if bad:
            self.n_skipped_ += bad
            self._warn("values", self._nonfinite_reason(y, keep & ~finite, rows, losses), bad, n)
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
            assert self._schema is not None
            storage._ensure_schema(self._schema)
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
            losses = _reported_losses(sampler, 1)
        self._store_rows(cols, slots, y)
        # finite only if every value is (the sum is cheaper than isfinite.all)
        finite = values is not None and (math.isfinite(values.sum())
                                         or bool(np.isfinite(values).all()))
        if self._on_values is not None:  # (its model calls come before the aggregator's
            # change, which the undo of a failing part does not cover: _PartUndo)
            self._on_values(values, np.array([finite]), np.array([self.n_seen_]), cols, y,
                            losses=losses)
        if finite:
            assert values is not None
            self._aggregator.update(values[0])
            self.n_explained_ += 1
        elif values is not None:
            self.n_skipped_ += 1
            self._warn("values", self._nonfinite_reason(y, np.ones(1, dtype=bool),
                                                        [self.n_seen_], losses), 1, 1)
        self._after(1)

    def _nonfinite_reason(self, y: np.ndarray | None, bad: np.ndarray, rows: Any,
                          losses: np.ndarray | None) -> str:
        """Why the explanations of the batch rows ``bad`` (mask, shape (B,)) are not finite,
        for the warning (:meth:`_warn`, which adds the count): a NaN or infinite label; else,
        from the first such row (stream index ``rows[i]``) and the model's own loss
        ``losses`` a method reported (shape (B,)): an infinite loss of finite values
        overflowed float64 (e.g. squared error of ``y = 1e200``); a NaN one, or no loss at
        all (iPDP, iALE), means the model returned NaN; with a finite one, a perturbed copy's
        prediction or loss was not finite. With a ``label_free`` drift detector the labels
        may be the model's own predictions: the text calls them "the label", not "y"."""
        free = bool(getattr(self.__dict__.get("drift_detector"), "label_free", False))
        y_name = "label" if free else "y"  # (in |prediction - y|)
        if _nan_labels(y, bad):
            return f"a NaN or infinite label{'' if free else ' y'}"
        head = "explanations that were not finite"
        i = int(np.flatnonzero(bad)[0])
        big = "|label|" if free else "|y|"
        rescale = (f"rescale {'the labels and' if free else 'y (and'} the model's outputs"
                   f"{'' if free else ')'} to units where {big} < 1e100, e.g. thousands "
                   "instead of units")
        if getattr(self, "_loss", None) is None:
            return f"{head} (does the model return NaN or inf?)"
        if losses is None or np.isnan(losses[i]):
            return (f"{head}, first at stream row {rows[i]}: the model returned NaN, or the "
                    f"loss overflowed float64 (|prediction - {y_name}| too large to square); "
                    f"if {big} is large, {rescale}")
        value = None if y is None else np.asarray(y[i]).tolist()
        y_text = "" if y is None else (f" with label {value!r}" if free else f" with y = {value!r}")
        if np.isinf(losses[i]):
            return (f"{head}: the loss overflowed float64 at stream row {rows[i]} (the loss "
                    f"of the model's prediction{y_text} is inf: |prediction - {y_name}| is too "
                    f"large to square, or the prediction itself is infinite); {rescale}")
        return (f"{head}, first at stream row {rows[i]}{y_text}: the loss of a perturbed copy "
                f"overflowed float64 or the model returned NaN for it; if {big} or the "
                f"predictions are large, {rescale}")

    def _after(self, B: int) -> None:
        before = self.n_seen_
        self.n_seen_ += B
        every = self.history_every
        if every and self.n_seen_ // every > before // every and self._aggregator.n > 0:
            self.history_.append((self.n_seen_, self.importances_, self.variances_))

    def _warn(self, kind: str, reason: str, n: int, B: int) -> None:
        """The warning of skipped rows (once per explainer): ``n`` of a part's ``B`` rows
        were skipped for ``reason`` (of sort ``kind``: ``"nan"`` inputs or ``"values"`` not
        finite). Inside :meth:`explain_many` it is kept for the call's one warning
        (:meth:`_skip_warning`), whose count covers every part of the call (the call is cut
        in parts of ``max_batch`` rows, at a drift detector's check rows, at iALE's re-grid
        rows); elsewhere (:meth:`explain_one`, a drift detector's own copies) it is issued
        at once."""
        if self._warned:
            return
        deferred = self.__dict__.get("_deferred")
        if deferred is not None:
            if kind not in deferred:  # (rebound, not changed: a failing part's undo drops it)
                self.__dict__["_deferred"] = {**deferred, kind: reason}
            return
        self._warned = True
        warnings.warn(f"{self._owner}: {n} of {B} observation(s) skipped ({reason}); "
                      "n_skipped_ counts them.", RuntimeWarning, stacklevel=user_stacklevel())

    def _skip_warning(self, start: tuple[int, int]) -> None:
        """After :meth:`explain_many` (also when a later part raised): one warning of the
        rows the call skipped (NaN inputs, explanations not finite), kept by :meth:`_warn`,
        with the number ``n_skipped_`` counted for the call (``start``: ``n_skipped_`` and
        ``n_seen_`` before it) out of the rows it took, and the first reason of each sort."""
        reasons = self.__dict__.pop("_deferred", None)
        k = self.n_skipped_ - start[0]
        if reasons and k > 0 and not self._warned:
            self._warned = True
            warnings.warn(
                f"{self._owner}: {k} of {self.n_seen_ - start[1]} observation(s) of this call "
                f"skipped ({'; '.join(reasons.values())}); n_skipped_ counts them.",
                RuntimeWarning, stacklevel=user_stacklevel())

    def _apply_nan_policy(
        self, cols: dict[str, np.ndarray], y: np.ndarray | None, B: int
    ) -> tuple[dict[str, np.ndarray], np.ndarray | None, int]:
        """:meth:`_drop_nan_rows` with the number of kept rows instead of their mask."""
        cols, y, good = self._drop_nan_rows(cols, y, B)
        return cols, y, B if good is None else int(good.sum())

    def _drop_nan_rows(
        self, cols: dict[str, np.ndarray], y: np.ndarray | None, B: int
    ) -> tuple[dict[str, np.ndarray], np.ndarray | None, np.ndarray | None]:
        """Drop (``"skip"``) or reject (``"raise"``) rows with NaN; returns the kept columns,
        labels and the mask of kept rows (None: all kept)."""
        if self.nan_policy == "pass":
            return cols, y, None
        assert self._schema is not None
        bad = np.zeros(B, dtype=bool)
        first_bad = None
        numeric = [n for n, k in zip(self._schema.names, self._schema.kinds) if k == "numeric"]
        stacked = getattr(cols, "matrix", None)
        if stacked is None or not np.isfinite(stacked).all():
            for name in numeric:
                nan = ~np.isfinite(cols[name])
                if nan.any():
                    bad |= nan
                    first_bad = first_bad or f"feature {name!r}"
        if y is not None and y.dtype.kind == "f":
            nan = (~np.isfinite(y)).reshape(B, -1).any(axis=1)  # (B,) or (B, n_outputs) labels
            if nan.any():
                bad |= nan
                first_bad = first_bad or "the label y"
        if not bad.any():
            return cols, y, None
        if self.nan_policy == "raise":
            self._raise_nan(cols, y, int(np.argmax(bad)), numeric)
        self.n_skipped_ += int(bad.sum())
        self._warn("nan", f"NaN or infinite values (first in {first_bad})", int(bad.sum()), B)
        good = ~bad
        return {k: v[good] for k, v in cols.items()}, None if y is None else y[good], good

    def _raise_nan(self, cols: dict[str, np.ndarray], y: np.ndarray | None, i: int,
                   numeric: list[str]) -> None:
        """The ``nan_policy='raise'`` error for row ``i`` of the part, the first bad one:
        names its first bad value and the row (of the caller's batch, and of the stream)."""
        what = next((f"feature {n!r}" for n in numeric if not np.isfinite(cols[n][i])),
                    "the label y")
        start = self.__dict__.get("_batch_start")
        stream_row = self.n_seen_ + i
        where = (f"batch row {stream_row - start} (stream row {stream_row})"
                 if start is not None else f"the observation (stream row {stream_row})")
        raise ValueError(f"{self._owner}: {what} is NaN or infinite in {where} "
                         "(nan_policy='raise'; use nan_policy='skip' to skip such rows).")

    # ------------------------------------------------------------------ conversion
    def _init_schema(self, table: Table, row: bool = False) -> None:
        names = self.feature_names
        if names is not None and table.schema.source != "numpy":
            unknown = [n for n in names if n not in table.names]
            if unknown:
                raise ValueError(
                    f"{self._owner}: feature_names {unknown} are not columns of the "
                    f"observations (their columns: {list(table.names)}).")
            table = table.select(names)
        elif names is not None and len(names) != len(table.names):
            raise ValueError(
                f"{self._owner} got {len(names)} feature_names for observations with "
                f"{len(table.names)} values."
            )
        schema = table.schema
        if schema.source == "records" and all(k == "numeric" for k in schema.kinds):
            # canonical numeric columns are float64: tell to_native("numpy") so it need not
            # work the dtype out on every call
            schema = replace(schema, array_dtype=np.dtype(np.float64))
        self.storage._check_compatible(schema, self._owner)
        self._schema = schema
        self.feature_names_ = list(table.names)
        self._unsure = _missing_only(table, row)

    def _settle_kinds(self, columns: Mapping[str, Any]) -> None:
        """Decide the kind of the features whose values were all missing so far (a first
        record's NaN or None, a CSV's empty cells: a missing value does not fix the kind) from
        their first other values in ``columns`` (name -> values): numeric if they are
        numbers, categorical otherwise."""
        for name, values in columns.items():
            present = [v for v in values if not _is_missing(v)]
            if not present:
                continue
            self._unsure.remove(name)
            kind = "numeric" if _all_numbers(present) else "categorical"
            assert self._schema is not None
            if self._schema.kind(name) != kind:
                example = present[0] if kind == "numeric" else next(
                    v for v in present if not _all_numbers([v]))
                self._set_kind(name, kind, example)

    def _set_kind(self, name: str, kind: str, example: Any) -> None:
        """Make feature ``name`` of kind ``kind``; possible while no row has been stored (rows
        with a missing numeric value are skipped by nan_policy 'skip' and 'raise'). Once rows
        are stored, a categorical feature stays one (its numbers reach the model as they are).

        Raises
        ------
        ValueError
            If rows are stored (``nan_policy='pass'``) as numbers and ``kind`` is categorical.
        """
        storage, schema = self.storage, self._schema
        assert schema is not None
        if len(storage) or storage.n_seen or self.n_explained_:
            if kind == "numeric":
                return
            raise ValueError(
                f"{self._owner}: feature {name!r} held only missing values in the first "
                f"{self.n_seen_} observation(s), stored as a {schema.kind(name)} feature "
                f"(nan_policy={self.nan_policy!r}); now an observation holds {example!r}. Give "
                f"the first rows with a value of {name!r} in one explain_many batch (its "
                "kind is read from the whole batch), or use nan_policy='skip'."
            )
        i = schema.index(name)
        kinds = schema.kinds[:i] + (kind,) + schema.kinds[i + 1:]
        dtype = np.dtype(np.float64 if kind == "numeric" else object)
        array_dtype = schema.array_dtype
        if schema.source == "records":
            numeric = all(k == "numeric" for k in kinds)
            array_dtype = np.dtype(np.float64) if numeric else None
        self._schema = replace(schema, kinds=kinds, array_dtype=array_dtype,
                               dtypes=schema.dtypes[:i] + (dtype,) + schema.dtypes[i + 1:])
        storage._schema = None  # its buffers are made for the new kinds at the first row
        self._kind_changed(name)

    def _kind_changed(self, name: str) -> None:
        """Hook: feature ``name`` changed kind before any row was stored (:meth:`_set_kind`)."""

    def _convert_record(self, x: Mapping) -> tuple[dict[str, np.ndarray], bool]:
        """Fast path for one dict record: (columns, whether a numeric value is NaN)."""
        if self._schema is None:
            self._init_schema(as_table(dict(x), self.feature_names, owner=self._owner))
        schema = self._schema
        assert schema is not None
        try:
            values = self._getter()(x)
        except KeyError:
            missing = next(label for label in schema.labels if label not in x)
            raise ValueError(
                f"{self._owner}: the observation has no feature {missing!r} (expected keys "
                f"{list(schema.labels)}; got {list(x.keys())})."
            ) from None
        if self._unsure:
            self._settle_kinds({n: [v] for n, v in zip(schema.names, values) if n in self._unsure})
            schema = self._schema
            assert schema is not None
        kinds = schema.kinds
        if "categorical" not in kinds and _FLOAT_TYPES.issuperset(map(type, values)):
            num = np.array(values, dtype=np.float64)
            # the dot product is finite when every value is (inf or NaN give inf or NaN; a
            # finite overflow only sends the row through the policy's check), and cheaper
            # than np.isfinite(num).all() on one row
            dot = num @ num
            return Batch.from_matrix(num.reshape(1, -1), schema.names), not math.isfinite(dot)
        cols = self._as_columns(((name, kind, [v]) for name, kind, v in
                                 zip(schema.names, kinds, values)), True, "record")
        has_nan = any(
            kind == "numeric" and not bool(np.isfinite(cols[name][0]))
            for name, kind in zip(schema.names, kinds)
        )
        return cols, has_nan

    def _getter(self) -> _Getter:
        """Returns a record's feature values as a tuple, in feature order (one C call)."""
        assert self._schema is not None
        if self._get is None:
            self._get = _Getter(self._schema.labels)
        return self._get

    def _as_columns(self, items: Iterable[tuple[str, str, Any]], single: bool,
                    source: str | None) -> dict[str, np.ndarray]:
        """The canonical columns (:meth:`_as_column`) of ``items``, (name, kind, values) in
        feature order, refusing the call once for every numeric feature that holds a value
        that is not a number, each named with its first such value and row
        (:meth:`_not_a_number`; it named the first such feature alone, QA).

        Raises
        ------
        ValueError
            As :meth:`_as_column`.
        """
        cols: dict[str, np.ndarray] = {}
        bad: list[tuple[str, Any, int]] = []
        for name, kind, values in items:
            try:
                cols[name] = self._as_column(name, kind, values, single)
            except _NotANumber as e:
                bad.append((name, e.value, e.row))
        if bad:
            raise self._not_a_number(bad, single, source)
        return cols

    def _as_column(self, name: str, kind: str, values: Any,
                   single: bool = False) -> np.ndarray:
        """Feature ``name``'s values (a list, or a 1-D array of the call's rows) as a canonical
        column: float64 for a numeric feature (missing values NaN), object otherwise.

        Raises
        ------
        _NotANumber
            For a value of a numeric feature that is not a number (the first; the caller,
            :meth:`_as_columns`, words the refusal): a string among them, ``"2.5"`` as much
            as ``"a"`` (numpy would read ``"2.5"`` as 2.5, a string of another row of the
            same column as an error).
        ValueError
            For a date or
            duration that the feature's dtype, fixed by the stream's first observations,
            cannot hold exactly (:meth:`_check_date_unit`), and for a naive datetime in a
            tz-aware feature or the reverse (:meth:`_check_time_zone`).
        """
        if kind != "numeric":
            out = np.asarray(values, dtype=object).reshape(-1)
            dates = self._date_dtypes()
            if dates and name in dates:
                self._check_date_unit(name, out, dates[name], single)
            return out
        if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
            return values.astype(np.float64, copy=False).reshape(-1)
        flat = np.asarray(values, dtype=object).reshape(-1)
        if _FLOAT_TYPES.issuperset(map(type, flat)):
            return flat.astype(np.float64)
        for i, v in enumerate(flat):
            if isinstance(v, _TEXT) or not (_is_number(v) or _is_na(v)):
                raise _NotANumber(v, i)
        # pandas NA (a missing value, for the nan_policy), Decimal, ...
        return np.array([np.nan if _is_na(v) else v for v in flat], dtype=np.float64)

    def _where(self, i: int, single: bool) -> str:
        """Row ``i`` of the call being converted, e.g. ``"batch row 3, stream row 1003"``."""
        stream_row = self.n_seen_ + i  # (a call is converted before any of its rows is taken)
        return ("the observation" if single else f"batch row {i}") + f", stream row {stream_row}"

    def _date_dtypes(self) -> dict[str, Any]:
        """The features whose dtype (fixed by the stream's first observations) is a
        datetime64/timedelta64 one, name -> dtype (kept per schema)."""
        cache = self.__dict__.get("_dates")
        schema = self._schema
        if cache is None or cache[0] is not schema:
            assert schema is not None
            dates = {n: d for n, d in zip(schema.names, schema.dtypes) if is_date_dtype(d)}
            cache = self.__dict__["_dates"] = (schema, dates)
        return cache[1]  # type: ignore[no-any-return]

    def _check_date_unit(self, name: str, values: np.ndarray, dtype: Any, single: bool) -> None:
        """Refuse a date or duration of feature ``name`` that its ``dtype`` cannot hold
        exactly (:func:`~ixplain.tabular.date_unit_misfit`): the rows reach the model, and the
        storage's draws, in ``dtype``, and the cast would truncate a finer unit's fraction or
        wrap a value out of the unit's range around, silently. A lossless cast (whole
        seconds in ``datetime64[ns]`` into a ``datetime64[s]`` stream) goes through.

        Raises
        ------
        ValueError
            Naming the feature, the value, its row, both units and what to do.
        """
        self._check_time_zone(name, values, dtype, single)
        misfit = date_unit_misfit(values, dtype)
        if misfit is None:
            return
        i, value, own, why = misfit
        unit, n = np.datetime_data(np.dtype(getattr(dtype, "base", dtype)))[0], repr(name)
        if why.startswith("not a whole"):
            fix = (f"round the values yourself if the loss is acceptable (df[{n}] = "
                   f"df[{n}].dt.floor({unit!r})), or start the stream with the finer unit")
        else:
            fix = ("start the stream with a unit whose range holds the values (e.g. "
                   f"df[{n}].astype('{own}') for the first observations too)")
        raise ValueError(
            f"{self._owner}: feature {name!r} holds {value!r} ({self._where(i, single)}), a "
            f"{own} value, but the stream's first observations fixed it as {dtype}, which "
            f"cannot hold it exactly ({why}); casting it would change it. Give every call the "
            f"same unit: {fix}.")

    def _check_time_zone(self, name: str, values: np.ndarray, dtype: Any, single: bool) -> None:
        """Refuse a naive datetime of feature ``name`` in a stream whose first observations
        made it tz-aware, or an aware one in a naive stream: pandas reads the first as wall
        time in the stream's zone and turns the second into naive UTC, silently (QA).

        Raises
        ------
        ValueError
            Naming the feature, the value, its row, both kinds and the conversion.
        """
        if np.dtype(getattr(dtype, "base", dtype)).kind != "M":
            return
        zone = getattr(dtype, "tz", None)
        for i, v in enumerate(values):
            if missing_value(v) or not (hasattr(v, "tzinfo") or isinstance(v, np.datetime64)):
                continue  # (numbers, strings: not a matter of zones)
            if (getattr(v, "tzinfo", None) is not None) == (zone is not None):
                continue
            n = repr(name)
            if zone is not None:
                what = "a naive datetime"
                fix = (f"df[{n}] = df[{n}].dt.tz_localize({str(zone)!r}) reads naive values as "
                       "wall time there")
            else:
                what = "a tz-aware datetime"
                fix = (f"df[{n}] = df[{n}].dt.tz_convert(None) gives the UTC instant, "
                       ".dt.tz_localize(None) the wall time")
            raise ValueError(
                f"{self._owner}: feature {name!r} holds {v!r} ({self._where(i, single)}), "
                f"{what}, but the stream's first observations fixed it as {dtype}; give every "
                f"call the same kind of datetimes ({fix}).")

    def _not_a_number(self, bad: list[tuple[str, Any, int]], single: bool,
                      source: str | None = None) -> ValueError:
        """The refusal of a call whose numeric features hold values that are not numbers,
        ``bad``: (feature, its first such value, the value's row in the call) for every such
        feature. Names each feature with its value and row (of the batch and of the stream),
        how to convert the strings for that sort of input (``source``, :meth:`_number_fix`)
        and, for a batch, that none of its rows was taken."""
        held = [f"{value!r} ({self._where(i, single)})" for _, value, i in bad]
        if len(bad) == 1:
            what = f"feature {bad[0][0]!r} is numeric but an observation holds {held[0]}"
        else:
            names = ", ".join(repr(name) for name, _, _ in bad[:-1]) + f" and {bad[-1][0]!r}"
            what = (f"features {names} are numeric but observations hold values that are "
                    "not numbers: " + ", ".join(f"{name!r} holds {h}"
                                                for (name, _, _), h in zip(bad, held)))
        text = [name for name, value, _ in bad if isinstance(value, _TEXT)]
        why = []
        if text:
            why.append("a string is not read as a number, even one that looks like it. "
                       + self._number_fix(text, source))
        if len(text) < len(bad):
            why.append("a numeric feature takes real numbers and missing values (None, NaN) "
                       "only")
        taken = "" if single else (f" Nothing of this call was taken (n_seen_ is still "
                                   f"{self.n_seen_}).")
        return ValueError(f"{self._owner}: {what}; {'; '.join(why)}.{taken}")

    def _number_fix(self, names: list[str], source: str | None) -> str:
        """The conversion of numbers given as text in the features ``names``, as code for the
        input's sort ``source`` (:func:`_input_kind`, or ``"record"``, ``"records"``,
        ``"series"`` for dict records and a pandas Series row; None: every sort), one
        statement per feature. A numpy array of strings (dtype ``<U``, ``S``) is converted whole: an
        assignment into it writes the numbers back as text."""
        assert self._schema is not None
        numeric = [k for k, kind in enumerate(self._schema.kinds) if kind == "numeric"]
        coerce = ("with errors='coerce' the strings that are not numbers become NaN, which "
                  "nan_policy handles")
        if source in ("text", "text row"):
            v, at = ("X", f"[:, {numeric}]") if source == "text" else ("x", f"[{numeric}]")
            if len(numeric) < len(self._schema.kinds):  # categorical strings too: keep them
                return (f"Convert the numeric columns first: {v} = {v}.astype(object); "
                        f"{v}{at} = {v}{at}.astype(float)")
            return (f"Convert the array first: {v} = {v}.astype(float) ({v} = "
                    f"pandas.to_numeric({v}.ravel(), errors='coerce').reshape({v}.shape) "
                    "makes the strings that are not numbers NaN, which nan_policy handles)")
        keys = [(repr(n), self._schema.index(n)) for n in names]
        fixes = {
            "frame": [f"df[{n}] = pandas.to_numeric(df[{n}])" for n, _ in keys],
            "record": [f"x[{n}] = pandas.to_numeric(x[{n}])" for n, _ in keys],
            "array": [f"X[:, {j}] = pandas.to_numeric(X[:, {j}])" for _, j in keys],
            "row": [f"x[{j}] = pandas.to_numeric(x[{j}])" for _, j in keys],
        }
        code = {sort: "; ".join(lines) for sort, lines in fixes.items()}
        code["records"] = "for x in records: " + code["record"]  # (one loop body)
        # (a Series of strings only has pandas' str dtype, which refuses a number)
        code["series"] = "x = x.astype(object); " + code["record"]
        if source in code:
            return f"Convert the values first: {code[source]} ({coerce})"
        return (f"Convert the values first with pandas.to_numeric: {code['frame']} for a "
                f"DataFrame, {code['record']} for a record, {code['array']} for an "
                "object array (X = X.astype(float) for a numpy array of strings, dtype '<U' "
                f"or 'S'); {coerce}")

    def _convert(self, X: Any, single: bool) -> dict[str, np.ndarray]:
        """Any observation(s) -> canonical columns in feature order."""
        if isinstance(X, (list, tuple)) and len(X) == 0:
            raise ValueError(f"{self._owner} got an empty batch (0 rows).")
        if isinstance(X, Table):
            table = X
        elif is_instance(X, "pandas", "Series"):
            # a row's dtype is the row's, not its features' (pandas makes a None NaN in a
            # float row): a missing value in it does not fix its feature's kind, as in a dict
            return self._table_columns(as_table(X, owner=self._owner), single, row=True,
                                       source="series")
        elif isinstance(X, (list, tuple)) and X and isinstance(X[0], Mapping):
            return self._convert_records(X)
        else:
            if isinstance(X, np.ndarray) and X.ndim == 1 and not single:
                X = X.reshape(1, -1)
            arr_names: list[str] | None = None
            if _is_array(X):
                if self._schema is not None:
                    arr_names = list(self._schema.names)
                    self._check_width(X)
                elif self.feature_names is not None:
                    arr_names = list(self.feature_names)
            table = as_table(X, arr_names, owner=self._owner)
        return self._table_columns(table, single, source=_input_kind(X))

    def _check_width(self, X: Any) -> None:
        """Refuse an array whose rows have another number of values than the explainer's
        features (it read as "2 feature_names for data with 1 columns", names the user never
        gave)."""
        assert self._schema is not None
        try:
            shape = np.shape(X)
        except ValueError:  # ragged lists: the conversion says what is wrong
            return
        d = len(self._schema.names)
        if len(shape) in (1, 2) and shape[-1] != d:
            raise ValueError(
                f"{self._owner}: the observations have {shape[-1]} values each (shape {shape}); "
                f"the explainer's features, fixed by its first observation, are {d}: "
                f"{list(self._schema.names)}."
            )

    def _table_columns(self, table: Table, single: bool, row: bool = False,
                       source: str | None = None) -> dict[str, np.ndarray]:
        """A table's columns in the explainer's schema (fixed by the first table; ``row``: the
        table is one pandas Series, whose dtypes say nothing of a missing value's kind;
        ``source``: the sort of input, :func:`_input_kind`)."""
        if not table.columns:
            raise ValueError(f"{self._owner} got observations without features (0 columns).")
        if table.n_rows == 0:
            raise ValueError(f"{self._owner} got an empty batch (0 rows).")
        if single and table.n_rows != 1:
            raise ValueError(
                f"{self._owner}.explain_one expects one observation; got {table.n_rows} rows "
                "(use explain_many)."
            )
        if self._schema is None:
            self._init_schema(table, row)
        assert self._schema is not None
        if table.names != self._schema.names:
            missing = [n for n in self._schema.names if n not in table.names]
            if missing:
                raise ValueError(
                    f"{self._owner}: the observation has no feature {missing[0]!r} (expected "
                    f"{list(self._schema.names)}; got {list(table.names)})."
                )
            table = table.select(self._schema.names)
        if self._unsure:
            self._settle_kinds({n: table.columns[n] for n in list(self._unsure)})
        raw = canonical_columns(table)
        return self._as_columns(((name, kind, raw[name]) for name, kind in
                                 zip(self._schema.names, self._schema.kinds)), single, source)

    def _convert_records(self, X: Any) -> dict[str, np.ndarray]:
        """A list of dict records -> canonical columns (all-numeric records in one C pass)."""
        if self._schema is None:
            self._init_schema(as_table(dict(X[0]), self.feature_names, owner=self._owner))
        if self._unsure:
            assert self._schema is not None
            where = dict(zip(self._schema.names, self._schema.labels))
            self._settle_kinds({n: [r.get(where[n]) for r in X] for n in list(self._unsure)})
        schema = self._schema
        assert schema is not None
        labels = list(schema.labels)
        getter = self._getter()
        numeric = all(k == "numeric" for k in schema.kinds)
        try:
            if numeric:
                matrix = _records_matrix(X, getter, len(labels))
                if matrix is not None:
                    return Batch.from_matrix(matrix, schema.names)
            rows = [getter(rec) for rec in X]
        except KeyError:
            i, rec = next((i, r) for i, r in enumerate(X) if any(n not in r for n in labels))
            missing = next(n for n in labels if n not in rec)
            raise ValueError(
                f"{self._owner}: observation {i} has no feature {missing!r} (expected keys "
                f"{labels}; got {list(rec.keys())})."
            ) from None
        obj = np.empty((len(rows), len(labels)), dtype=object)
        obj[:] = rows
        return self._as_columns(((name, kind, obj[:, j]) for j, (name, kind) in
                                 enumerate(zip(schema.names, schema.kinds))), False, "records")

    def _convert_y(self, y: Any, B: int, single: bool) -> np.ndarray | None:
        if y is None:
            if self.requires_labels:
                self._refuse_missing_labels(single)
            return None
        if single:
            if isinstance(y, (bool, int, float, np.number)) and not isinstance(y, _COMPLEX):
                return np.array([y])
            if isinstance(y, _COMPLEX):
                refuse_complex_target(np.array([y]), self._owner)
            if isinstance(y, np.ndarray) and y.ndim >= 1:  # a multi-output label: one row of it
                return self._convert_y(y.reshape(1, *y.shape), 1, single=False)
            arr = np.empty(1, dtype=object)  # any label (str, tuple, ...) as one object
            arr[0] = y
            return arr
        pandas = is_instance(y, "pandas", "Series", "DataFrame")
        arr = np.asarray(y.to_numpy() if pandas else y)
        if arr.dtype.kind in "US" and arr.ndim == 1 and not all(isinstance(v, str) for v in y):
            arr = np.array(list(y), dtype=object)  # numpy made [0, 1, "yes"] all str
        if arr.ndim == 0:
            raise ValueError(
                f"{self._owner}.explain_many needs one label per observation ({B} of them); "
                f"got the single value {y!r}."
            )
        if arr.shape[0] != B:
            raise ValueError(f"{self._owner} got {B} observations but {arr.shape[0]} labels.")
        if arr.ndim == 2 and arr.shape[1:] == (1,):  # one target column, as scikit-learn ravels it
            arr = arr[:, 0]  # (the model adapter ravels a one-output model's predictions)
        refuse_complex_target(arr, self._owner)
        return arr

    def _refuse_missing_labels(self, single: bool) -> None:
        """Raise for ``y=None`` (an explainer that needs labels): for one observation of a
        classifier, the message of a None among the labels (:meth:`_refuse_labels`); with an
        attached ``label_free`` detector, the pointer to its :meth:`update`, which labels the
        rows with the model's predictions."""
        loss = getattr(self, "_loss", None)
        if single and loss is not None and label_row_shape(loss, None) == ():
            classes = self._model.label_classes()
            if classes is not None and len(classes):
                self._refuse_foreign(None, None, classes, "explain_one")
        msg = f"{self._owner} needs the label y of each observation."
        detector = self.__dict__.get("drift_detector")
        if detector is not None and getattr(detector, "label_free", False):
            x = "x" if single else "X"
            msg += (f" For label-free drift detection call detector.update{'' if single else '_many'}"
                    f"({x}) on the attached detector (label_free=True): it gives the explainer "
                    "the model's predictions as labels.")
        raise ValueError(msg)

    def _refuse_labels(self, y_given: Any, y: np.ndarray, method: str) -> None:
        """Refuse, before any model call and for the whole call, labels the loss cannot use:
        a shape other than the loss and the model's output need (:meth:`_label_shape_msg`),
        and for the class losses a label no class can equal (None, a str among numbers:
        :func:`~ixplain.losses.foreign_label`), naming its row and the classes. A label of
        the classes' type that the model lacks passes (River learners meet new classes)."""
        msg = self._label_shape_msg(y_given, y, method)
        if msg is not None:
            raise ValueError(msg)
        loss = getattr(self, "_loss", None)
        if loss is None or y.ndim != 1 or label_row_shape(loss, None) != ():
            return
        classes = self._model.label_classes()
        if classes is None or not len(classes):
            return
        i = foreign_label(y, classes)
        if i is not None:
            self._refuse_foreign(y[i], None if method == "explain_one" else i, classes, method)

    def _refuse_foreign(self, v: Any, i: int | None, classes: Any, method: str) -> None:
        """The error of :meth:`_refuse_labels` for the label ``v`` of batch row ``i`` (None:
        the one observation of ``explain_one``)."""
        row = self.n_seen_ + (i or 0)
        where = (f"the observation (stream row {row})" if i is None
                 else f"batch row {i} (stream row {row})")
        v = v.item() if isinstance(v, np.generic) else v
        class_list = [c.item() if isinstance(c, np.generic) else c for c in classes]
        try:
            class_list.sort()
        except TypeError:  # classes that do not compare (mixed types): as they are
            pass
        types = ", ".join(sorted({type(c).__name__ for c in class_list}))
        what = "None" if v is None else f"{v!r} ({type(v).__name__})"
        need = ("every observation needs its label" if v is None
                else "give y with the model's class labels")
        raise ValueError(
            f"{self._owner}.{method}: the label y of {where} is {what}, which cannot be one of "
            f"the model's classes {class_list} ({types}): {need}. Nothing of this call was "
            "taken.")

    def _label_shape_msg(self, y_given: Any, y: np.ndarray, method: str) -> str | None:
        """The error for labels whose shape is not the one the built-in loss needs (one
        class label per observation; for a regression loss the model's output shape, known
        from its last call): :func:`~ixplain.losses.label_shape_error`; else None."""
        loss = getattr(self, "_loss", None)
        if loss is None:
            return None
        return label_shape_error(loss, f"{self._owner}.{method}", y_given, y,
                                 self._model.output_shape, method == "explain_one")

    def _label_shape_failure(self, exc: BaseException, y_given: Any, y: np.ndarray | None,
                             method: str) -> BaseException:
        """For a part that raised a ValueError: the label shape error of
        :meth:`_label_shape_msg` (chained to ``exc``) if the model call told an output shape
        the labels do not fit (the stream's first model call: not known before); else
        ``exc``."""
        if not isinstance(exc, ValueError) or y is None:
            return exc
        msg = self._label_shape_msg(y_given, y, method)
        if msg is None:
            return exc
        new = ValueError(msg)
        new.__cause__ = exc
        return new

    def _make_table(self, cols: dict[str, np.ndarray]) -> Table:
        """Canonical columns -> a Table in the model's schema (pandas categories restored)."""
        schema = self._schema
        assert schema is not None
        out: dict[str, Any] = cols
        if schema.source in ("pandas", "polars"):
            import pandas as pd

            out = dict(cols)
            for i, dtype in enumerate(schema.dtypes):
                if isinstance(dtype, pd.CategoricalDtype):
                    name = schema.names[i]
                    out[name], schema = self._categorical(name, i, cols[name], schema)
        return Table(out, schema)

    def _categorical(self, name: str, i: int, values: np.ndarray,
                     schema: Schema) -> tuple[Any, Schema]:
        """Feature ``name`` (position ``i``, a pandas categorical) as a Categorical of its
        values, and the schema: a level the categories lack (a later batch's own Categorical,
        a record's string) is appended to them, in the explainer's schema too, so that the
        model sees the value, as it would in an object column, and later tables keep the
        level's code (pandas made it NaN, with a deprecation warning).

        Raises
        ------
        ValueError
            For a new level of an ordered categorical (its place in the order is unknown).
        """
        import pandas as pd

        dtype = schema.dtypes[i]
        codes = self._level_codes(name, dtype, values)
        new = (codes < 0) & ~pd.isna(values)
        if new.any():
            levels = list(pd.unique(values[new]))
            if dtype.ordered:
                raise ValueError(
                    f"{self._owner}: feature {name!r} is an ordered categorical with categories "
                    f"{list(dtype.categories)}; got the new level(s) "
                    f"{', '.join(repr(v) for v in levels[:5])}, whose place in the order is "
                    "unknown. Give every batch the full categories (pandas.Categorical(..., "
                    "categories=..., ordered=True))."
                )
            dtype = pd.CategoricalDtype(dtype.categories.append(pd.Index(levels)))
            schema = replace(schema, dtypes=schema.dtypes[:i] + (dtype,) + schema.dtypes[i + 1:])
            self._schema = schema
            codes = self._level_codes(name, dtype, values)
        return pd.Categorical.from_codes(codes, dtype=dtype), schema

    def _level_codes(self, name: str, dtype: Any, values: np.ndarray) -> np.ndarray:
        """The position of each value among ``dtype``'s categories (-1: not one of them), by a
        dict kept per feature (pandas' lookup costs about 50 us on a one-row stream batch)."""
        cache = self.__dict__.setdefault("_levels", {})
        hit = cache.get(name)
        if hit is None or hit[0] is not dtype:
            hit = cache[name] = (dtype, {c: k for k, c in enumerate(dtype.categories.tolist())})
        lookup = hit[1]
        try:
            return np.fromiter((lookup.get(v, -1) for v in values.tolist()), dtype=np.intp,
                               count=len(values))
        except TypeError:  # an unhashable value (not a category): pandas' lookup
            import pandas as pd

            return np.asarray(dtype.categories.get_indexer(pd.Index(values, dtype=object)))


class _Getter:
    """``operator.itemgetter`` over the feature labels that always returns a tuple."""

    def __init__(self, labels: Any) -> None:
        self.single = len(labels) == 1
        self.get = operator.itemgetter(*labels)

    def __call__(self, record: Any) -> tuple:
        values = self.get(record)
        return (values,) if self.single else values


def child_seed(seed: int, name: str) -> int:
    """A seed derived from ``seed`` for the part ``name`` (e.g. an explainer's storage)."""
    return int(keyed_generator(seed, "child", name).integers(0, 2**63 - 1))


def _records_matrix(X: Any, getter: _Getter, d: int) -> np.ndarray | None:
    """All-numeric records as a (len(X), d) float64 matrix, every value converted in C
    (itemgetter per record, one fromiter); None if a value is not of a number type
    (:data:`_FLOAT_TYPES`: a string, a missing value, ...; numpy would read ``"2.5"`` as
    2.5), for the general path. Raises KeyError for a missing feature."""
    get = getter.get  # the C itemgetter (one value for one feature)
    values = list(map(get, X) if getter.single else itertools.chain.from_iterable(map(get, X)))
    if not _FLOAT_TYPES.issuperset(map(type, values)):
        return None
    return np.fromiter(values, dtype=np.float64, count=len(X) * d).reshape(len(X), d)


def _reported_losses(sampler: Sampler, n: int) -> np.ndarray | None:
    """The per-row loss a method reported through ``sampler`` (float64, shape (n,)), or None;
    raises for another shape (a method's bug: the losses would not line up with the rows)."""
    if sampler.losses is None:
        return None
    losses = np.asarray(sampler.losses, dtype=np.float64)
    if losses.shape != (n,):
        raise ValueError(f"The explanation method reported losses of shape {losses.shape} for "
                         f"{n} rows (Sampler.losses must have one loss per batch row).")
    return losses


def _nan_labels(y: np.ndarray | None, rows: np.ndarray) -> bool:
    """Whether one of ``rows`` has a NaN or infinite numeric label."""
    if y is None:
        return False
    try:
        return not np.isfinite(np.asarray(y[rows], dtype=np.float64)).all()
    except (TypeError, ValueError):  # class labels
        return False


_COMPLEX = (complex, np.complexfloating)
_TEXT = (str, bytes)  # (numpy's str_ and bytes_ subclass them)
#: The value types a numeric feature's values are converted from in one C call (the record
#: fast paths, an object column); a value of any other type (a string, None, pandas NA, a
#: Decimal) takes the general path of ``_as_column``, which refuses strings.
_FLOAT_TYPES = frozenset({
    float, int, bool, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16,
    np.int8, np.uint64, np.uint32, np.uint16, np.uint8, np.bool_,
})


def _is_missing(v: Any) -> bool:
    """None, pandas NA or a float NaN."""
    return _is_na(v) or (isinstance(v, float) and v != v)


def _missing_only(table: Table, row: bool = False) -> list[str]:
    """The features of ``table`` read from objects (records, object arrays or columns, or any
    pandas Series row if ``row``) whose values are all missing: their kind (numeric or
    categorical) is not known yet."""
    schema = table.schema
    return [
        name for name, dtype in zip(schema.names, schema.dtypes)
        if (row or schema.source == "records" or getattr(dtype, "kind", None) == "O")
        and all(_is_missing(v) for v in table.columns[name])
    ]


class _NotANumber(ValueError):
    """A numeric feature's ``value``, row ``row`` of the call, is not a number (raised by
    :meth:`IncrementalExplainer._as_column`, worded by its caller for every such feature)."""

    def __init__(self, value: Any, row: int) -> None:
        super().__init__(value, row)
        self.value, self.row = value, row


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _input_kind(X: Any) -> str | None:
    """The sort of observations ``X`` for the fix of a refused string
    (:meth:`IncrementalExplainer._number_fix`): ``"frame"`` (a DataFrame), ``"text"`` /
    ``"text row"`` (a 2-D / 1-D numpy array of strings, dtype ``<U`` or ``S``), ``"array"`` /
    ``"row"`` (any other 2-D / 1-D numpy array); None for anything else (lists, tables).

    Examples
    --------
    >>> _input_kind(np.array([["1.5"]])), _input_kind(np.array([1.0, "a"], dtype=object))
    ('text', 'row')
    """
    if is_instance(X, "pandas", "DataFrame"):
        return "frame"
    if not isinstance(X, np.ndarray) or X.ndim not in (1, 2):
        return None
    text = X.dtype.kind in "US"
    if X.ndim == 1:
        return "text row" if text else "row"
    return "text" if text else "array"


def _is_array(X: Any) -> bool:
    return isinstance(X, np.ndarray) or (
        isinstance(X, (list, tuple)) and not (X and isinstance(X[0], Mapping))
    )
