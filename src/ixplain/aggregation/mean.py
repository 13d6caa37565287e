"""Running (weighted) mean and variance, Welford's algorithm; mergeable."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Aggregator

__all__ = ["Mean"]


class Mean(Aggregator):
    """Running mean and variance of arrays of values (Welford / West; mergeable).

    Every update has the same weight in the estimate (``alpha_t = 1/t``): the right aggregator for
    a static model explained over a stream, and for static explanations computed in pieces.

    Attributes
    ----------
    n : int
        Number of updates.
    weight_sum : float
        Sum of the update weights (``n`` for unit weights).

    References
    ----------
    B. P. Welford, "Note on a method for calculating corrected sums of squares and products",
    Technometrics 4(3), 1962. D. H. D. West, "Updating mean and variance estimates: an improved
    method", CACM 22(9), 1979. T. F. Chan, G. H. Golub, R. J. LeVeque, "Updating formulae and a
    pairwise algorithm for computing sample variances", 1979 (``merge``).

    Examples
    --------
    >>> import numpy as np
    >>> m = Mean()
    >>> for v in ([1.0, 10.0], [2.0, 20.0], [3.0, 30.0]):
    ...     m.update(np.array(v))
    >>> m.get(), m.variance, m.n
    (array([ 2., 20.]), array([  1., 100.]), 3)
    >>> a, b = Mean(), Mean()
    >>> a.update_many(np.array([[1.0], [2.0]])); b.update(np.array([3.0]))
    >>> a.merge(b).get()
    array([2.])
    """

    def __init__(self) -> None:
        self.n = 0
        self.weight_sum = 0.0
        self._mean: np.ndarray | None = None
        self._m2: np.ndarray | None = None

    def update(self, values: Any, weight: float = 1.0) -> None:
        """Add one array of values with a non-negative ``weight``."""
        x = np.asarray(values, dtype=np.float64)
        self._shape_check(x, self._mean, "Mean")
        if weight <= 0:
            return
        if self._mean is None or self._m2 is None:
            self._mean = np.zeros_like(x)
            self._m2 = np.zeros_like(x)
        self.n += 1
        self.weight_sum += weight
        delta = x - self._mean
        self._mean = self._mean + (weight / self.weight_sum) * delta
        self._m2 = self._m2 + weight * delta * (x - self._mean)

    def update_many(self, values: Any, weights: Any = None) -> None:
        """Add ``values[0], values[1], ...`` (array of shape (B, ...)).

        ``weights`` (shape (B,), non-negative; default all 1) weigh the rows as
        :meth:`update` does; rows of weight 0 are not counted.
        """
        x = np.asarray(values, dtype=np.float64)
        if x.shape[0] == 0:
            return
        other = Mean()
        if weights is None:
            other.n = x.shape[0]
            other.weight_sum = float(x.shape[0])
            other._mean = x.mean(axis=0)
            other._m2 = ((x - other._mean) ** 2).sum(axis=0)
        else:
            w = np.asarray(weights, dtype=np.float64).reshape(-1)
            if w.shape[0] != x.shape[0]:
                raise ValueError(
                    f"Mean.update_many got {w.shape[0]} weights for {x.shape[0]} rows of values."
                )
            total = float(w.sum())
            if total <= 0:
                return
            other.n = int(np.count_nonzero(w > 0))
            other.weight_sum = total
            other._mean = np.tensordot(w, x, axes=1) / total
            other._m2 = np.tensordot(w, (x - other._mean) ** 2, axes=1)
        self._merge_into(other)

    def merge(self, other: Mean) -> Mean:
        """A new aggregate equal to having seen both ``self``'s and ``other``'s updates."""
        out = Mean()
        out._merge_into(self)
        out._merge_into(other)
        return out

    def _merge_into(self, other: Mean) -> None:
        if other._mean is None or other._m2 is None:
            return
        if self._mean is None or self._m2 is None:
            self.n, self.weight_sum = other.n, other.weight_sum
            self._mean, self._m2 = other._mean.copy(), other._m2.copy()
            return
        self._shape_check(other._mean, self._mean, "Mean")
        w = self.weight_sum + other.weight_sum
        delta = other._mean - self._mean
        self._mean = self._mean + delta * (other.weight_sum / w)
        self._m2 = self._m2 + other._m2 + delta**2 * (self.weight_sum * other.weight_sum / w)
        self.n += other.n
        self.weight_sum = w

    def get(self) -> np.ndarray:
        """The running mean (zeros-shaped ``()`` before the first update)."""
        return np.zeros(()) if self._mean is None else self._mean.copy()

    @property
    def variance(self) -> np.ndarray:
        """Sample variance of the values (``ddof=1``; zeros while ``n < 2``)."""
        if self._m2 is None or self.n < 2:
            return np.zeros(()) if self._mean is None else np.zeros_like(self._mean)
        return self._m2 / (self.weight_sum - self.weight_sum / self.n)

    def __repr__(self) -> str:
        return f"Mean(n={self.n})"
