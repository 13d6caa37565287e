"""Sliding window of the most recent rows."""

from __future__ import annotations

import numpy as np

from .base import SlotStorage

__all__ = ["SlidingWindow"]


class SlidingWindow(SlotStorage):
    """The last ``size`` rows of the stream (a ring buffer; deterministic).

    Parameters
    ----------
    size : int
        Window length in rows (>= 1).

    Examples
    --------
    >>> w = SlidingWindow(size=2)
    >>> w.update_many([{"a": 1.0}, {"a": 2.0}, {"a": 3.0}])
    >>> sorted(w.table.columns["a"].tolist())
    [2.0, 3.0]
    """

    _owner = "SlidingWindow"

    def __init__(self, size: int) -> None:
        super().__init__(size, random_state=0)

    def _plan(self, n: int) -> np.ndarray:
        return (self.n_seen + np.arange(n, dtype=np.intp)) % self.size
