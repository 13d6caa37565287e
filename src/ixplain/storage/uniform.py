"""Uniform reservoir sampling (Algorithm L)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .base import SlotStorage

__all__ = ["UniformReservoir"]


class UniformReservoir(SlotStorage):
    """A uniform random sample of ``size`` rows of the whole stream (reservoir sampling).

    After ``n >= size`` rows, every row seen so far is held with probability ``size / n``,
    whatever its age: the right perturbation data for a *static* model and data distribution
    (a running mean of the explanation then estimates the static explanation).

    Implemented with Algorithm L (Li, 1994): instead of one random number per row, the number of
    rows to skip until the next replacement is drawn from its (geometric-like) distribution, so the
    cost per row shrinks as the stream grows. Each accepted row replaces a uniformly drawn slot.

    Parameters
    ----------
    size : int
        Capacity (>= 1).
    random_state : None, int or numpy.random.Generator, default=None
        Drives which rows are kept.

    Attributes
    ----------
    n_seen : int
        Rows offered so far.

    References
    ----------
    K.-H. Li, "Reservoir-sampling algorithms of time complexity O(n(1 + log(N/n)))", ACM
    Transactions on Mathematical Software 20(4), 1994.

    Examples
    --------
    >>> import numpy as np
    >>> r = UniformReservoir(size=3, random_state=0)
    >>> for i in range(100):
    ...     r.update({"i": float(i), "c": "odd" if i % 2 else "even"})
    >>> len(r), r.n_seen
    (3, 100)
    >>> r.table.schema.kinds
    ('numeric', 'categorical')
    >>> r.sample(2, np.random.default_rng(0)).n_rows
    2
    """

    _owner = "UniformReservoir"

    def __init__(self, size: int, random_state: Any = None) -> None:
        super().__init__(size, random_state)
        self._w = 0.0
        self._next = -1  # absolute position of the next row to enter once the reservoir is full

    def _advance(self, position: int) -> None:
        """Draw the next accepted position after ``position`` (Algorithm L)."""
        u1 = 1.0 - self._rng.random()
        u2 = 1.0 - self._rng.random()
        self._w *= math.exp(math.log(u1) / self.size)
        if self._w >= 1.0:
            skip = 0
        elif self._w <= 0.0:
            skip = 2**62
        else:
            skip = int(math.floor(math.log(u2) / math.log1p(-self._w)))
        self._next = position + skip + 1

    def _plan(self, n: int) -> np.ndarray:
        start = self.n_seen
        slots = np.full(n, -1, dtype=np.intp)
        fill = max(0, min(n, self.size - start))
        slots[:fill] = np.arange(start, start + fill)
        if self._next < 0 and start + n > self.size:
            self._w = 1.0
            self._advance(self.size - 1)
        while 0 <= self._next < start + n:
            slots[self._next - start] = int(self._rng.integers(self.size))
            self._advance(self._next)
        return slots
