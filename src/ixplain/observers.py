"""What listens to an incremental explainer: the observer contract.

An incremental explainer (:class:`~ixplain.methods._incremental.IncrementalExplainer`)
*publishes* what it computes and knows nothing of who listens: the drift detector
(:class:`~ixplain.drift.ExplanationDriftDetector`), and any future output (a live report, a
writer) subscribe the same way. This module imports nothing from the rest of ixplain but the
error format; the explainers import it, never an observer.

The hooks, in the order a stream calls them
-------------------------------------------
``check_attach(explainer)`` then ``attach(explainer)``
    Subscribing (the explainer's ``drift_detector`` parameter and property call
    :func:`subscribe`). ``check_attach`` raises, changing nothing, when the observer cannot
    watch that explainer; ``attach`` sets the observer up. :func:`subscribe` then makes
    :meth:`ExplainerObserver.on_values` the explainer's per-row hook.
``cut_offsets(start, n_rows)``
    Before a batch of ``n_rows`` rows starting at stream row ``start``: the offsets after
    which the observer wants the explainer's state as it is after that row (the explainer
    cuts its parts there, so that what the observer sees does not depend on the batching).
``on_values(values, ok, rows, cols, y, losses=None, restarts=())``
    After each part: the per-row explanation values ``(B, *value_shape)`` (None when no row
    was explained), which of them enter the estimate (``ok``, bool, shape (B,)), their
    stream row indices ``rows`` (int, shape (B,)), the inputs (canonical columns, name ->
    array of shape (B,)) and labels ``y``, the model's own per-row loss when the method
    computed it (``losses``, shape (B,)), and from iPDP the rows from which its values are
    summaries on a core grid fixed again (``restarts``). All or nothing: when it raises, the
    observer must be as before the call; the explainer then takes its part back too.
``on_snapshot(n_seen, estimate, variance)``
    When the explainer appends a snapshot to its ``history_``.
``on_failure(exc)``
    When a part raised and was taken back (``exc`` is what the caller gets).
``on_call_end()``
    After ``explain_one`` / ``explain_many`` returned every row: the moment to hand results
    to user callbacks (the explainer and the observer have taken all the rows, so a callback
    that raises leaves both complete).
``detach(explainer)``
    Unsubscribing (assigning None or another observer).

``label_free`` (bool attribute) tells the explainer that the labels it is given may be the
model's own predictions (the wording of its messages).
"""

from __future__ import annotations

from typing import Any

from ._validation import param_error

__all__ = ["ExplainerObserver", "subscribe"]


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
    >>> counter = Count()
    >>> _ = subscribe(ipfi, counter)
    >>> _ = ipfi.explain_many(np.ones((5, 2)), np.ones(5))
    >>> counter.rows
    5
    """

    label_free: bool = False

    def check_attach(self, explainer: Any) -> None:
        """Raise if this observer cannot watch ``explainer`` (nothing changes then)."""

    def attach(self, explainer: Any) -> None:
        """Set up to watch ``explainer`` (called by :func:`subscribe`)."""

    def detach(self, explainer: Any) -> None:
        """Stop watching ``explainer``."""

    def cut_offsets(self, start: int, n_rows: int) -> list[int]:
        """Offsets in ``(0, n_rows)`` after which a batch starting at stream row ``start``
        is cut into parts (default: none)."""
        return []

    def on_values(self, values: Any, ok: Any, rows: Any, cols: Any, y: Any,
                  losses: Any = None, restarts: Any = ()) -> None:
        """One processed part's per-row values (see the module docstring)."""

    def on_snapshot(self, n_seen: int, estimate: Any, variance: Any) -> None:
        """A snapshot the explainer appended to its ``history_``."""

    def on_failure(self, exc: BaseException) -> None:
        """A part that raised ``exc`` was taken back."""

    def on_call_end(self) -> None:
        """An explain call took all its rows."""


def subscribe(explainer: Any, observer: ExplainerObserver | None, slot: str = "drift_detector",
              expected: str = "an ExplanationDriftDetector or None") -> Any:
    """Make ``observer`` the one in ``explainer``'s ``slot`` (the explainer's
    ``drift_detector`` parameter and property): the observer attached before (if another)
    is detached; None only detaches; the observer already attached changes nothing.

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
    """
    state = getattr(explainer, "__dict__", {})
    current = state.get(slot)
    if observer is not None and not isinstance(observer, ExplainerObserver):
        raise param_error(type(explainer).__name__, slot, expected, observer, exc=TypeError)
    if observer is not None and observer is current and (
            getattr(observer, "explainer", None) is explainer):
        return observer
    if observer is not None:
        observer.check_attach(explainer)
    if isinstance(current, ExplainerObserver):
        current.detach(explainer)
    state[slot] = None
    state.pop("_on_values", None)
    if observer is not None:
        observer.attach(explainer)
        state[slot] = observer
        explainer._on_values = observer.on_values
    return observer
