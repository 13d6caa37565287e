"""Geometric (recency-weighted) reservoir."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_float
from .base import SlotStorage

__all__ = ["GeometricReservoir"]


class GeometricReservoir(SlotStorage):
    """A reservoir that favours recent rows: each new row replaces a random slot with prob. ``p``.

    Once full, every slot is overwritten with probability ``p / size`` per incoming row, so the age
    of a held row is geometric with mean ``size / p`` rows: the storage forgets old data at a
    constant rate, which suits a *changing* model or distribution (concept drift). The iPFI and
    iSAGE papers use ``p = 1`` (every row enters); ``ixai``'s default is ``p = 1 / size``.

    Parameters
    ----------
    size : int
        Capacity (>= 1).
    p : float, default=1.0
        Probability in (0, 1] that an incoming row enters a full reservoir.
    random_state : None, int or numpy.random.Generator, default=None

    References
    ----------
    F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental Permutation Feature
    Importance (iPFI): Towards Online Explanations on Data Streams", Machine Learning 112, 2023.

    Examples
    --------
    >>> g = GeometricReservoir(size=2, p=1.0, random_state=0)
    >>> g.update_many([{"a": 1.0}, {"a": 2.0}, {"a": 3.0}])
    >>> len(g), sorted(g.table.columns["a"].tolist()) in ([1.0, 3.0], [2.0, 3.0])
    (2, True)
    """

    _owner = "GeometricReservoir"

    def __init__(self, size: int, p: float = 1.0, random_state: Any = None) -> None:
        super().__init__(size, random_state)
        self.p = float(
            check_float(p, "p", self._owner, low=0.0, high=1.0, low_inclusive=False)  # type: ignore[arg-type]
        )

    def _plan(self, n: int) -> np.ndarray:
        # Once full, each row uses one uniform for its slot, preceded (p < 1) by one for its
        # entry, whether it enters or not: a batch uses the generator exactly as row-by-row
        # updates do, so both keep the same rows.
        start = self.n_seen
        if n == 1:
            if start < self.size:
                return np.array([start], dtype=np.intp)
            if self.p < 1.0:
                enter, u = self._rng.random(2)
                if enter >= self.p:
                    return np.array([-1], dtype=np.intp)
            else:
                u = self._rng.random()
            return np.array([int(u * self.size)], dtype=np.intp)
        slots = np.full(n, -1, dtype=np.intp)
        fill = max(0, min(n, self.size - start))
        slots[:fill] = np.arange(start, start + fill)
        m = n - fill
        if m > 0:
            if self.p < 1.0:
                draws = self._rng.random((m, 2))  # (entry, slot) per row, in row order
                slot = (draws[:, 1] * self.size).astype(np.intp)
                slots[fill:] = np.where(draws[:, 0] < self.p, slot, -1)
            else:
                slots[fill:] = (self._rng.random(m) * self.size).astype(np.intp)
        return slots
