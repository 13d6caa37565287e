"""A conditional storage for streams: a window of recent rows and a sampler that follows it.

:class:`ConditionalStorage` is a :class:`~ixplain.SlidingWindow` (the marginal draws, the
explainer's bookkeeping) that also keeps a
:class:`~ixplain.imputation.ConditionalSampler` learnt from the window: its trees and leaf
pools are rebuilt from the last ``size`` rows at fixed stream positions -- rows 1, 2, 4, ...
up to ``refit_every``, then every ``refit_every`` rows. Row ``t`` is explained with the
sampler of the last position ``b <= t``, fitted on rows ``[b - size, b)``: it depends on the
stream's rows before ``t`` only, never on how the rows were batched (a mini-batch that crosses
a position is explained in segments). When the dependence between features drifts, the window
holds the new dependence after ``size`` rows and the sampler follows at the next refit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .._validation import check_int
from ..storage.window import SlidingWindow
from ..tabular import Table
from .conditional import ConditionalSampler

__all__ = ["ConditionalStorage"]


class ConditionalStorage(SlidingWindow):
    """The last ``size`` rows of a stream and a conditional sampler refitted on them.

    Parameters
    ----------
    size : int, default=2000
        Window length (rows the trees learn from; the memory bound).
    refit_every : int, default=500
        Rows between two refits once ``refit_every`` rows were seen (before: at rows 1, 2, 4,
        ...).
    min_samples_leaf : int or "auto", default="auto"
        Passed to :class:`~ixplain.imputation.ConditionalSampler`.

    Attributes
    ----------
    sampler_ : ConditionalSampler or None
        The sampler of the last refit.
    fitted_at_ : int
        The stream position it was fitted at (-1 before the first).

    References
    ----------
    F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental Permutation Feature
    Importance (iPFI)", Machine Learning 112, 2023 (observational sampling on streams).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = ConditionalStorage(size=500, refit_every=100)
    >>> a = rng.normal(size=1000)
    >>> s.update_many(np.column_stack([a, a + 0.1 * rng.normal(size=1000)]))
    >>> len(s), s.fitted_at_, s.sampler_.n_rows_
    (500, 1000, 500)
    """

    _owner = "ConditionalStorage"

    def __init__(self, size: int = 2000, refit_every: int = 500,
                 min_samples_leaf: int | str = "auto") -> None:
        super().__init__(size)
        self.refit_every = int(
            check_int(refit_every, "refit_every", self._owner, min_value=1)  # type: ignore[arg-type]
        )
        ConditionalSampler(min_samples_leaf)  # validates
        self.min_samples_leaf = min_samples_leaf
        self.allow_nan = True
        self.sampler_: ConditionalSampler | None = None
        self.fitted_at_ = -1

    def boundary(self, t: int) -> int:
        """The refit position row ``t`` is explained with (0 for ``t = 0``: no sampler)."""
        k = self.refit_every
        if t >= k:
            return (t // k) * k
        return 0 if t < 1 else 1 << (int(t).bit_length() - 1)

    def segments(self, n_rows: int) -> Iterator[tuple[int, int, int]]:
        """``(start, stop, position)`` runs of the next ``n_rows`` rows sharing a sampler."""
        t0 = self.n_seen
        start = 0
        while start < n_rows:
            b = self.boundary(t0 + start)
            stop = start + 1
            while stop < n_rows and self.boundary(t0 + stop) == b:
                stop += 1
            yield start, stop, b
            start = stop

    def sampler_at(self, b: int, batch: dict[str, np.ndarray]) -> ConditionalSampler:
        """The sampler fitted at position ``b`` (``self.n_seen <= b <= n_seen + len(batch)``,
        or the last one), with ``batch`` the canonical columns of the rows being written."""
        if b != self.fitted_at_ or self.sampler_ is None:
            self.sampler_ = ConditionalSampler(self.min_samples_leaf, allow_nan=True,
                                               cross_fit=False).fit(self._window_at(b, batch))
            self.fitted_at_ = b
        return self.sampler_

    def _window_at(self, b: int, batch: dict[str, np.ndarray]) -> Table:
        """Rows ``[b - size, b)``: held rows, then rows of ``batch`` (it starts at ``n_seen``)."""
        n0 = self.n_seen
        held = np.arange(max(0, b - self.size), min(b, n0)) % self.size
        cols = self._rows_at(held)
        lo, k = max(0, b - self.size - n0), max(0, b - n0)
        if k:
            num, cat = self._blocks(batch, slice(lo, k))
            new = self._views(num, cat)
            cols = {n: np.concatenate([cols[n], new[n]]) for n in cols}
        assert self._schema is not None
        return Table(cols, self._schema)

    def _write(self, cols: dict[str, np.ndarray], slots: np.ndarray, y: Any) -> None:
        b = self.boundary(self.n_seen + len(slots))  # the position the next row will need
        if b > self.fitted_at_ and b > 0:
            self.sampler_at(b, cols)
        super()._write(cols, slots, y)
