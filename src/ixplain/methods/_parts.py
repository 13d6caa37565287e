"""Each part of a stream all or nothing: the per-part undo of an incremental explainer and
the messages of a part that failed.

``explain_many`` processes a batch in parts (``max_batch`` rows, cut where an observer asks);
:class:`PartUndo` puts the explainer back as it was before a part whose model call raised,
:func:`raise_part_failed` words the error (which rows were kept, how to go on), and
:func:`schema_undo` / :func:`undo_first_call` take back what the stream's first call fixed
(the schema) when none of its rows was taken. Each function takes the explainer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .._validation import ModelEvaluationError
from ..observers import observers_of

__all__ = ["PartUndo", "raise_part_failed", "schema_undo", "undo_first_call"]


class PartUndo:
    """How to put an explainer back as it was before one part of its stream
    (:meth:`IncrementalExplainer._run_part`) when a model call of the part raises.

    It keeps what is cheap to keep and lets the part register the rest as it goes: a shallow
    copy of the explainer's attributes (every counter, flag, cache and rebound array), the
    model adapter's label bookkeeping, the storage's read-side state (a conditional
    storage's sampler), the undo of each storage write the part makes
    (:meth:`IncrementalExplainer._store_rows`; only when a fallible step can follow the write:
    ``guard_writes``), and what the class keeps for the rest
    (:meth:`IncrementalExplainer._part_state`; with ``full``, also the aggregator and the
    history, so that a part that *completed* can be undone -- the drift detector's copies),
    and the undo of each observer that took the part (``extra``, appended by the publisher of
    several observers' values: :mod:`ixplain.observers`).
    """

    __slots__ = ("explainer", "state", "input", "labels", "storage", "writes", "extra",
                 "guard_writes")

    def __init__(self, explainer: Any, full: bool, n_rows: int, guard_writes: bool) -> None:
        self.explainer = explainer
        self.state = dict(explainer.__dict__)
        self.input = dict(explainer._input.__dict__)  # (a new pandas level rebinds the schema)
        self.labels = explainer._model._label_state()
        self.storage = explainer.storage._undo_state()
        self.writes: list[Any] = []
        self.guard_writes = guard_writes
        self.extra = explainer._part_state(full, n_rows)
        explainer.__dict__["_undo"] = self

    def restore(self) -> None:
        """Put the explainer back (its attributes, storage, labels and the class's state)."""
        e = self.explainer
        for undo in reversed(self.writes):
            undo()
        e.__dict__.clear()
        e.__dict__.update(self.state)
        e._input.__dict__.clear()
        e._input.__dict__.update(self.input)
        e._model._restore_labels(self.labels)
        e.storage._restore_state(self.storage)
        for undo in reversed(self.extra):
            undo()


def raise_part_failed(explainer: Any, exc: BaseException, method: str, start: int, row: int,
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
    where = f"{explainer._owner}.{method}"
    call, labels = explainer.__dict__.get("_resume_as") or (method, labels)
    if method == "explain_one":
        done = f"nothing was taken (n_seen_ is still {explainer.n_seen_})"
        how = f"call {call}(x{', y' if labels else ''}) again to retry"
    elif start == 0:
        done = f"no row of this batch was taken (n_seen_ is still {explainer.n_seen_})"
        how = f"call {call}(X{', y' if labels else ''}) again to retry"
    else:
        done = (f"rows 0-{start - 1} of this batch were explained (n_seen_ is now "
                f"{explainer.n_seen_}); the part starting at batch row {start} (stream row "
                f"{row}) raised and nothing of it was taken")
        rest = f"X[{start}:], y[{start}:]" if labels else f"X[{start}:]"
        how = f"call {call}({rest}) to continue"
    if isinstance(exc, ModelEvaluationError):
        failure = ModelEvaluationError(f"{where}: {done}: {how}. {exc}")
        failure.__cause__ = exc
        for observer in observers_of(explainer):
            observer.on_failure(failure)
        raise failure
    exc.add_note(f"{where}: {done}: {how}." if not isinstance(exc, Exception)
                 else f"{where}: {done}.")
    for observer in observers_of(explainer):
        observer.on_failure(exc)
    raise exc


def schema_undo(explainer: Any) -> Any:
    """For an explain call that can fix the schema (the first call, or one while a
    feature's kind is unknown): a function of no arguments that takes back what
    converting its observations and processing its first part fixed, for when the call
    fails before any of its rows was taken -- the explainer's and its input boundary's attributes as
    before the call (the schema and what is read from it: ``feature_names_``, the features of
    unknown kind, the record getter, the level cache, a class's own, e.g. iPDP's
    feature), the storage's claim and its buffers when they were made or dropped since
    (they were made from the failed call's kinds) -- so that a retry with other columns
    or dtypes is read as if the failed call had not been made. Called only while no row
    was taken (the part's own undo has run): the storage holds no row of the call."""
    storage = explainer.storage
    owner = storage.__dict__.get("_owned_by")
    buffers = storage._schema  # a storage given with rows keeps its columns
    boundary = explainer._input
    state, given = dict(explainer.__dict__), dict(boundary.__dict__)
    unsure = list(boundary.unsure)  # (_settle_kinds edits it)

    def undo() -> None:
        explainer.__dict__.clear()
        explainer.__dict__.update(state)
        boundary.__dict__.clear()
        boundary.__dict__.update(given)
        boundary.unsure = unsure
        storage._owned_by = owner
        if storage._schema is not buffers:
            storage._schema = None  # its buffers are made again at the next stored row
    return undo


@contextmanager
def undo_first_call(explainer: Any) -> Iterator[None]:
    """Around an explain call that can fix the schema: if it raises before any of its rows
    was taken, what converting its observations fixed is taken back (:func:`schema_undo`)."""
    n_seen = explainer.n_seen_
    first = schema_undo(explainer)
    try:
        yield
    except BaseException:
        if explainer.n_seen_ == n_seen:  # no part of the call was taken
            first()
        raise
