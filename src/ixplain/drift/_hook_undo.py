"""How to put the drift detector back as it was before a chunk whose model call raised."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._channel import ValueChannel

__all__ = ["HookUndo"]


class HookUndo:
    """How to put a detector back as it was before a chunk (:meth:`ExplanationDriftDetector.
    on_values`).

    Always: a shallow copy of its attributes and of its list of data-channel copies, and the
    undo of each copy's part (the copies take the chunk first, before anything else changes,
    so a failing model call of theirs finds nothing else changed). When what follows may
    call a model too: before a model check, a checkpoint copy of the whole detector
    (:meth:`~ExplanationDriftDetector._checkpoint`; every ``check_every`` rows, and when a
    screen finds a jump -- the screen's own model call is made first, before anything
    changes);
    for an iPDP, whose events draw PD curves while the chunk is pushed, the channels'
    own checkpoints (:meth:`ValueChannel.checkpoint`: what the push overwrites), the row
    memory's chunks and the lengths of the event lists."""

    __slots__ = ("detector", "state", "shadows", "parts", "copy", "channels", "pushed",
                 "screen", "inputs")

    def __init__(self, detector: Any, rows: np.ndarray) -> None:
        self.detector = detector
        last = int(rows[-1]) + 1 if len(rows) else detector.n_rows_
        check, screen = detector._checks_due(last)
        # a screen alone changes nothing before its model call: made now, it needs no
        # checkpoint unless it finds a jump (which runs the check)
        self.screen = detector._screen() if screen else None
        if self.screen is not None and self.screen[2]:
            check = True
        self.copy = detector._checkpoint() if check else None
        self.state = dict(detector.__dict__)
        self.shadows = list(detector._shadows)
        inputs = detector.__dict__.get("_inputs")
        self.inputs = None if inputs is None else inputs.saved(len(rows))
        self.parts: list[Any] = []
        self.channels: dict[str, ValueChannel] | None = None
        if self.copy is None and detector._rows is not None:  # iPDP: the curves of events
            self.channels = dict(detector._channels)
            channels = list(self.channels.values()) + [ch for _, ch, _ in self.shadows]
            memory = detector._rows
            self.pushed = ([(ch, ch.checkpoint(len(rows))) for ch in channels],
                           list(memory.chunks), memory.n, len(detector.events_),
                           len(detector.loss_changes_), len(detector._changes),
                           len(detector.__dict__.get("_unsent", ())))

    def restore(self) -> None:
        """Put the detector (and its copies of the explainer) back."""
        for part in reversed(self.parts):
            part.restore()
        d = self.detector
        if self.inputs is not None and d._inputs is not None:  # (pushed in place)
            d._inputs.restore(self.inputs)
        if self.copy is not None:
            d.__dict__.clear()
            d.__dict__.update(self.copy.__dict__)
            return
        if self.channels is not None:
            pushed, chunks, n, n_events, n_losses, n_changes, n_unsent = self.pushed
            for channel, saved in pushed:
                channel.rollback(saved)
                channel.compared = {}
            d._channels.clear()
            d._channels.update(self.channels)
            assert d._rows is not None
            d._rows.chunks[:] = chunks
            d._rows.n = n
            del d.events_[n_events:], d.loss_changes_[n_losses:], d._changes[n_changes:]
            del d.__dict__.get("_unsent", [])[n_unsent:]
        self.state["_shadows"][:] = self.shadows
        d.__dict__.clear()
        d.__dict__.update(self.state)
