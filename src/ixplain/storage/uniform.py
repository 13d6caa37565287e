"""Uniform reservoir sampling (Algorithm R, one keyed uniform per row)."""

from __future__ import annotations

import numpy as np

from .._random import uniform_index
from .base import SlotStorage

__all__ = ["UniformReservoir"]


class UniformReservoir(SlotStorage):
    """A uniform random sample of ``size`` rows of the whole stream (reservoir sampling).

    After ``n >= size`` rows, every row seen so far is held with probability ``size / n``,
    whatever its age: the right perturbation data for a *static* model and data distribution
    (a running mean of the explanation then estimates the static explanation).

    Implemented with Algorithm R (Vitter, 1985): row ``t`` (0-based, ``t >= size``) draws
    ``j = floor(u_t * (t + 1))`` and replaces slot ``j`` if ``j < size``. ``u_t`` is row ``t``'s
    number in a counter-based row stream (:mod:`ixplain.storage.base`), so the kept rows do not
    depend on how the stream was split into ``update`` / ``update_many`` calls. This costs one
    uniform per row, where Algorithm L (Li, 1994) skips ahead with a few numbers per
    *replacement*; skipping needs the state of the previous decision, which a per-row keyed
    decision must not depend on (the numbers are generated vectorised, so the cost is small).

    Parameters
    ----------
    size : int
        Capacity (>= 1).
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the keep/slot decisions (None: the explainer's, see :mod:`ixplain.storage.base`).

    Attributes
    ----------
    n_seen : int
        Rows offered so far.

    References
    ----------
    J. S. Vitter, "Random sampling with a reservoir", ACM Transactions on Mathematical Software
    11(1), 1985. K.-H. Li, "Reservoir-sampling algorithms of time complexity O(n(1 + log(N/n)))", ACM
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

    def _plan(self, n: int) -> np.ndarray:
        start = self.n_seen
        if n == 1 and start >= self.size:  # the per-row hot path, in Python scalars
            j = min(int(self._decision(start)[0] * (start + 1)), start)
            return np.array([j if j < self.size else -1], dtype=np.intp)
        slots = np.full(n, -1, dtype=np.intp)
        fill = max(0, min(n, self.size - start))
        slots[:fill] = np.arange(start, start + fill)
        m = n - fill
        if m > 0:
            t = np.arange(start + fill, start + n)
            pick = uniform_index(self._decisions(start + fill, m)[:, 0], t + 1)
            slots[fill:] = np.where(pick < self.size, pick, -1)
        return slots
