"""Geometric (recency-weighted) reservoir."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._random import uniform_index
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
        Seed of the entry and slot decisions (None: the explainer's, see
        :mod:`ixplain.storage.base`).

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

    @property
    def _decision_width(self) -> int:  # type: ignore[override]
        return 1 if self.p >= 1.0 else 2  # (slot) or (entry, slot) per row

    def _plan(self, n: int) -> np.ndarray:
        # Once full, row t (t = rows offered before it) enters with probability p (its first
        # uniform, if p < 1) and replaces slot floor(u * size) (its last uniform): a decision
        # of row t alone, so any split of the stream into updates keeps the same rows.
        start = self.n_seen
        if n == 1:  # the per-row hot path: the same decision in Python scalars
            if start < self.size:
                return np.array([start], dtype=np.intp)
            if self.p >= 1.0:  # the slot alone, from the cached block's indices
                return self._decision_index(start, self.size).copy()
            u = self._decision(start)
            if self.p < 1.0 and not u[0] < self.p:
                return np.array([-1], dtype=np.intp)
            return np.array([min(int(u[-1] * self.size), self.size - 1)], dtype=np.intp)
        slots = np.full(n, -1, dtype=np.intp)
        fill = max(0, min(n, self.size - start))
        slots[:fill] = np.arange(start, start + fill)
        m = n - fill
        if m > 0:
            u = self._decisions(start + fill, m)
            slot = uniform_index(u[:, -1], self.size)
            slots[fill:] = slot if self.p >= 1.0 else np.where(u[:, 0] < self.p, slot, -1)
        return slots
