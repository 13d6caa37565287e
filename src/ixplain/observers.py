"""What listens to an incremental explainer: the observer contract.

An incremental explainer (:class:`~ixplain.methods._incremental.IncrementalExplainer`)
*publishes* what it computes and knows nothing of who listens: the drift detector
(:class:`~ixplain.drift.ExplanationDriftDetector`), the ``ixplain stream`` writers and any
future output (a live report) subscribe the same way, any number of them per explainer. This
module imports nothing from the rest of ixplain but the error format; the explainers import
it, never an observer.

Subscribing
-----------
``explainer.subscribe(observer)`` adds an observer, ``explainer.unsubscribe(observer)``
removes it; ``explainer.observers_`` lists them in subscription order, the order every hook
is published in. The explainer's ``drift_detector`` parameter and property is one of them (a
slot, :func:`subscribe`): assigning replaces only the detector (at its place in the order),
None removes it.

The hooks, in the order a stream calls them
-------------------------------------------
``check_attach(explainer)`` then ``attach(explainer)``
    Subscribing. ``check_attach`` raises, changing nothing, when the observer cannot watch
    that explainer; ``attach`` sets the observer up.
``cut_offsets(start, n_rows)``
    Before a batch of ``n_rows`` rows starting at stream row ``start``: the offsets after
    which the observer wants the explainer's state as it is after that row (the explainer
    cuts its parts at the union of every observer's offsets, so that what an observer sees
    does not depend on the batching).
``on_values(values, ok, rows, cols, y, losses=None, restarts=())``
    After each part: the per-row explanation values ``(B, *value_shape)`` (None when no row
    was explained), which of them enter the estimate (``ok``, bool, shape (B,)), their
    stream row indices ``rows`` (int, shape (B,)), the inputs (canonical columns, name ->
    array of shape (B,)) and labels ``y``, the model's own per-row loss when the method
    computed it (``losses``, shape (B,)), and from iPDP the rows from which its values are
    summaries on a core grid fixed again (``restarts``). Only observers that override it are
    called (an explainer with none skips the work of publishing values).
``on_snapshot(n_seen, estimate, variance)``
    When the explainer appends a snapshot to its ``history_`` (while the part is under way:
    the explainer's attributes are those after stream row ``n_seen - 1``; read them, never
    change them).
``on_failure(exc)``
    When a part raised and was taken back (``exc`` is what the caller gets); the
    explainer's ``n_seen_`` is then the rows it kept (an observer that recorded snapshots of
    the part drops those past it).
``on_call_end()``
    After ``explain_one`` / ``explain_many`` returned every row: the moment to hand results
    to user callbacks (the explainer and the observers have taken all the rows, so a callback
    that raises leaves them complete; the observers after it get theirs at the next call).
``detach(explainer)``
    Unsubscribing (``unsubscribe``, or assigning another detector or None).

All or nothing per part
-----------------------
A part (up to ``max_batch`` rows) is taken whole or not at all, by the explainer and by
every observer. ``on_values`` itself is all or nothing: when it raises, the observer must be
as before the call; the explainer then takes its part back, and so does every observer that
took the part before it. For that, when an explainer has more than one observer of values,
it asks each for :meth:`ExplainerObserver.values_undo` before giving it the part: a function
of no arguments that puts the observer back as it is now (the default restores a shallow copy
of the observer's attributes, which covers counters and rebound arrays; an observer that
changes objects in place overrides it; one that keeps no state returns None). With a single
observer of values nothing is asked (the case of the drift detector alone). Observers do not
change the explainer: its state after a stream is the same bits with or without them.

``label_free`` (bool attribute) tells the explainer that the labels it is given may be the
model's own predictions (the wording of its messages).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._validation import param_error

__all__ = ["ExplainerObserver", "Observed", "observers_of", "subscribe"]


class ExplainerObserver:
    """Base class of an observer of an incremental explainer (every hook does nothing).

    Subclass it and override the hooks you need; see the module docstring for when each is
    called and what it gets.

    Attributes
    ----------
    label_free : bool, default=False
        Whether the labels the explainer gets may be the model's own predictions.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import IncrementalPFI
    >>> class Count(ExplainerObserver):
    ...     rows = 0
    ...     def on_values(self, values, ok, rows, cols, y, losses=None, restarts=()):
    ...         self.rows += len(rows)
    >>> ipfi = IncrementalPFI(lambda A: A[:, 0], "squared_error", random_state=0)
    >>> counter = ipfi.subscribe(Count())
    >>> _ = ipfi.explain_many(np.ones((5, 2)), np.ones(5))
    >>> counter.rows
    5
    """

    label_free: bool = False

    def check_attach(self, explainer: Any) -> None:
        """Raise if this observer cannot watch ``explainer`` (nothing changes then)."""

    def attach(self, explainer: Any) -> None:
        """Set up to watch ``explainer`` (called when it subscribes)."""

    def detach(self, explainer: Any) -> None:
        """Stop watching ``explainer``."""

    def cut_offsets(self, start: int, n_rows: int) -> list[int]:
        """Offsets in ``(0, n_rows)`` after which a batch starting at stream row ``start``
        is cut into parts (default: none)."""
        return []

    def on_values(self, values: Any, ok: Any, rows: Any, cols: Any, y: Any,
                  losses: Any = None, restarts: Any = ()) -> None:
        """One processed part's per-row values (see the module docstring)."""

    def values_undo(self) -> Callable[[], None] | None:
        """Before :meth:`on_values` of a part that a later observer may still refuse: a
        function of no arguments that puts this observer back as it is now (None: nothing
        to put back). Default: the observer's attributes restored from a shallow copy
        (override it when :meth:`on_values` changes objects in place)."""
        saved = dict(self.__dict__)

        def undo() -> None:
            self.__dict__.clear()
            self.__dict__.update(saved)

        return undo

    def on_snapshot(self, n_seen: int, estimate: Any, variance: Any) -> None:
        """A snapshot the explainer appended to its ``history_``."""

    def on_failure(self, exc: BaseException) -> None:
        """A part that raised ``exc`` was taken back."""

    def on_call_end(self) -> None:
        """An explain call took all its rows."""


def observers_of(explainer: Any) -> list[ExplainerObserver]:
    """The observers subscribed to ``explainer``, in subscription order (an explainer
    pickled before it could have several: its ``drift_detector`` alone)."""
    state = getattr(explainer, "__dict__", {})
    found = state.get("_observers")
    if found is not None:
        return found
    detector = state.get("drift_detector")
    return [] if detector is None else [detector]


class _Publish:
    """The ``_on_values`` hook of an explainer with several observers of values: gives each
    the part in subscription order, first registering its undo with the part's
    ``PartUndo`` (so that when a later one raises, the explainer takes back the part of
    every observer that took it)."""

    __slots__ = ("explainer", "observers")

    def __init__(self, explainer: Any, observers: list[ExplainerObserver]) -> None:
        self.explainer = explainer
        self.observers = observers

    def __getstate__(self) -> tuple[Any, Any]:
        return self.explainer, self.observers

    def __setstate__(self, state: tuple[Any, Any]) -> None:
        self.explainer, self.observers = state

    def __call__(self, values: Any, ok: Any, rows: Any, cols: Any, y: Any,
                 losses: Any = None, restarts: Any = ()) -> None:
        part = self.explainer.__dict__.get("_undo")
        for observer in self.observers:
            back = observer.values_undo() if part is not None else None
            observer.on_values(values, ok, rows, cols, y, losses=losses, restarts=restarts)
            if back is not None:
                part.extra.append(back)


def _takes_values(observer: ExplainerObserver) -> bool:
    return type(observer).on_values is not ExplainerObserver.on_values


def _wire(explainer: Any, observers: list[ExplainerObserver]) -> None:
    """Keep ``observers`` and make the explainer's ``_on_values`` hook publish to those that
    take values: none (no hook), one (its ``on_values`` itself) or several (:class:`_Publish`)."""
    state = explainer.__dict__
    state["_observers"] = observers
    takers = [o for o in observers if _takes_values(o)]
    state.pop("_on_values", None)
    if len(takers) == 1:
        state["_on_values"] = takers[0].on_values
    elif takers:
        state["_on_values"] = _Publish(explainer, takers)


def subscribe(explainer: Any, observer: ExplainerObserver | None, slot: str = "drift_detector",
              expected: str = "an ExplanationDriftDetector or None") -> Any:
    """Make ``observer`` the one in ``explainer``'s ``slot`` (the explainer's
    ``drift_detector`` parameter and property): the observer in the slot before (if another)
    is detached and leaves the explainer's observers, the new one takes its place in their
    order (or comes last); None only detaches; the observer already in the slot changes
    nothing. The other observers (``explainer.subscribe``) stay.

    Parameters
    ----------
    explainer : IncrementalExplainer
    observer : ExplainerObserver or None
    slot : str, default="drift_detector"
        The explainer attribute that holds the observer.
    expected : str, default="an ExplanationDriftDetector or None"
        What the slot takes, for the error message.

    Returns
    -------
    ExplainerObserver or None
        ``observer``.

    Raises
    ------
    TypeError
        For anything but an :class:`ExplainerObserver` or None (the message names the
        explainer's class, ``slot`` and the value), or what ``observer.check_attach``
        raises. Nothing changes when it raises.
    ValueError
        If ``observer`` is already subscribed to the explainer outside the slot.
    """
    state = getattr(explainer, "__dict__", {})
    current = state.get(slot)
    if observer is not None and not isinstance(observer, ExplainerObserver):
        raise param_error(type(explainer).__name__, slot, expected, observer, exc=TypeError)
    if observer is not None and observer is current and (
            getattr(observer, "explainer", None) is explainer):
        return observer
    observers = list(observers_of(explainer))
    if observer is not None and observer is not current and observer in observers:
        raise ValueError(f"{type(explainer).__name__}.{slot}: the observer is already "
                         "subscribed to this explainer; unsubscribe it first.")
    if observer is not None:
        observer.check_attach(explainer)
    at = len(observers)
    if isinstance(current, ExplainerObserver):
        current.detach(explainer)
        if current in observers:
            at = observers.index(current)
            observers.remove(current)
    state[slot] = None
    if observer is not None:
        observer.attach(explainer)
        state[slot] = observer
        observers.insert(at, observer)
    _wire(explainer, observers)
    return observer


class Observed:
    """Mixin of :class:`~ixplain.methods._incremental.IncrementalExplainer`: its observers
    (:meth:`subscribe`, :meth:`unsubscribe`, :attr:`observers_`, :attr:`drift_detector`)."""

    def subscribe(self, observer: ExplainerObserver) -> ExplainerObserver:
        """Publish this explainer's values, snapshots and failures to ``observer`` too (after
        the observers subscribed before it).

        Parameters
        ----------
        observer : ExplainerObserver

        Returns
        -------
        ExplainerObserver
            ``observer`` (subscribing it again changes nothing).

        Raises
        ------
        TypeError
            For anything but an :class:`ExplainerObserver` (naming the value), or what
            ``observer.check_attach`` raises (a drift detector: use the ``drift_detector``
            property). Nothing changes when it raises.
        """
        if not isinstance(observer, ExplainerObserver):
            raise param_error(f"{type(self).__name__}.subscribe", "observer",
                              "an ExplainerObserver", observer, exc=TypeError)
        observers = observers_of(self)
        if observer in observers:
            return observer
        observer.check_attach(self)
        observer.attach(self)
        _wire(self, [*observers, observer])
        return observer

    def unsubscribe(self, observer: ExplainerObserver) -> None:
        """Stop publishing to ``observer`` (the drift detector: as ``drift_detector = None``).

        Raises
        ------
        ValueError
            If ``observer`` is not subscribed to this explainer.
        """
        observers = observers_of(self)
        if observer not in observers:
            raise param_error(f"{type(self).__name__}.unsubscribe", "observer",
                              "an observer subscribed to this explainer", observer)
        if observer is self.__dict__.get("drift_detector"):
            subscribe(self, None)
            return
        observer.detach(self)
        _wire(self, [o for o in observers if o is not observer])

    @property
    def observers_(self) -> tuple[ExplainerObserver, ...]:
        """The subscribed observers, in the order they are published to."""
        return tuple(observers_of(self))

    @property
    def drift_detector(self) -> Any:
        """The attached :class:`~ixplain.drift.ExplanationDriftDetector` (None: none).

        Assigning a detector attaches it, as the ``drift_detector`` parameter does (see
        :func:`subscribe`: a ``TypeError`` for anything but an observer
        (:class:`ExplainerObserver`) or None, a ``ValueError`` once the explainer has seen
        rows or when the detector watches another explainer; nothing changes then); None
        detaches the current one (the explainer stops reporting to it). The other observers
        stay subscribed.
        """
        return self.__dict__.get("drift_detector")

    @drift_detector.setter
    def drift_detector(self, detector: Any) -> None:
        subscribe(self, detector)
