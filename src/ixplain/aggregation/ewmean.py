"""Exponentially weighted mean and variance."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._lazy import loaded
from .._validation import check_float
from .base import Aggregator

__all__ = ["EWMean"]


@functools.lru_cache(maxsize=32)
def _weights(alpha: float, B: int) -> np.ndarray:
    """``alpha * (1 - alpha) ** (B-1-i)`` for i = 0..B-1 (read-only, cached)."""
    w = alpha * (1.0 - alpha) ** np.arange(B - 1, -1, -1, dtype=np.float64)
    w.setflags(write=False)
    return w


class EWMean(Aggregator):
    """Exponentially weighted mean ``m_t = (1 - alpha) * m_{t-1} + alpha * v_t`` (from ``m_0 = 0``).

    The estimate forgets old values at rate ``alpha`` (an effective window of about
    ``2 / alpha - 1`` updates), so it follows a changing model or distribution. As in iPFI the
    estimate starts at zero: ``E[m_t] = (1 - (1 - alpha) ** t) * E[v]`` for a stationary stream;
    :attr:`value_debiased` divides that factor out.

    The variance of the values is estimated by ``s_t - m_t ** 2``, where ``s_t`` is the same
    exponential average of ``v_t ** 2`` (clipped at 0). Under stationarity,
    ``Var(m_t) -> sigma ** 2 * alpha / (2 - alpha)``, the basis of iPFI's confidence bound.

    Parameters
    ----------
    alpha : float
        Smoothing rate in (0, 1].

    Attributes
    ----------
    n : int
        Number of updates.

    References
    ----------
    F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental Permutation Feature
    Importance (iPFI): Towards Online Explanations on Data Streams", Machine Learning 112, 2023.

    Examples
    --------
    >>> import numpy as np
    >>> m = EWMean(alpha=0.5)
    >>> for v in (2.0, 4.0):
    ...     m.update(np.array([v]))
    >>> m.get(), m.value_debiased, m.n
    (array([2.5]), array([3.33333333]), 2)
    >>> b = EWMean(alpha=0.5); b.update_many(np.array([[2.0], [4.0]])); b.get()
    array([2.5])
    """

    def __init__(self, alpha: float) -> None:
        self.alpha = float(
            check_float(alpha, "alpha", "EWMean", low=0.0, high=1.0, low_inclusive=False)  # type: ignore[arg-type]
        )
        self.n = 0
        self._mean: np.ndarray | None = None
        self._sq: np.ndarray | None = None
        self._coef: tuple[np.ndarray, np.ndarray] | None = None

    def update(self, values: Any, weight: float = 1.0) -> None:
        """Add one array of values; ``weight`` k counts as k repeated updates (``1-(1-a)**k``)."""
        x = np.asarray(values, dtype=np.float64)
        self._shape_check(x, self._mean, "EWMean")
        if self._mean is None or self._sq is None:
            self._mean = np.zeros_like(x)
            self._sq = np.zeros_like(x)
        if weight == 1.0:
            # alpha and 1 - alpha as arrays of the values' shape: the same products as the
            # scalars give, without numpy converting a Python float on every operation
            a, decay = self._coefficients(x.shape)
        else:
            a = 1.0 - (1.0 - self.alpha) ** weight
            decay = 1.0 - a
        # in place, the same operations as m = (1 - a) * m + a * x and s = (1 - a) * s + a * x * x
        # (same roundings, so the same values; get() hands out copies)
        ax = a * x
        self._mean *= decay
        self._mean += ax
        ax *= x
        self._sq *= decay
        self._sq += ax
        self.n += 1

    def _coefficients(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """``(alpha, 1 - alpha)`` as arrays of ``shape`` (cached)."""
        coef = self.__dict__.get("_coef")
        if coef is None or coef[0].shape != shape:
            coef = self._coef = (np.full(shape, self.alpha), np.full(shape, 1.0 - self.alpha))
        return coef

    def update_many(self, values: Any) -> None:
        """Add ``values[0], values[1], ...`` (shape (B, ...)) in order, in closed form."""
        x = np.asarray(values, dtype=np.float64)
        B = x.shape[0]
        if B == 0:
            return
        if B == 1:
            self.update(x[0])
            return
        if self._mean is None or self._sq is None:
            self._mean = np.zeros_like(x[0])
            self._sq = np.zeros_like(x[0])
        self._shape_check(x[0], self._mean, "EWMean")
        w = _weights(self.alpha, B)
        decay = (1.0 - self.alpha) ** B
        flat = x.reshape(B, -1)
        shape = self._mean.shape
        self._mean = decay * self._mean + (w @ flat).reshape(shape)
        self._sq = decay * self._sq + (w @ (flat * flat)).reshape(shape)
        self.n += B

    def update_sequence(self, values: Any) -> None:
        """Add ``values[0], values[1], ...`` with the state a loop of :meth:`update` gives, bit
        for bit (the same two roundings per step). Short batches step the stacked
        (mean, mean square) state in place; longer ones run the recurrence
        ``m_t = a x_t + (1 - a) m_{t-1}`` as a first-order IIR filter
        (``scipy.signal.lfilter``, the same two roundings: from 32 rows when
        ``scipy.signal`` is loaded already, else from 512 rows, where its import -- 0.1 to
        0.3 s -- is worth it)."""
        x = np.asarray(values, dtype=np.float64)
        B = x.shape[0]
        if B == 0:
            return
        if self._mean is None or self._sq is None:
            self._mean = np.zeros_like(x[0])
            self._sq = np.zeros_like(x[0])
        self._shape_check(x[0], self._mean, "EWMean")
        a = self.alpha
        shape = self._mean.shape
        flat = x.reshape(B, -1)
        ax = a * flat  # what update adds to the mean; (a * x) * x to the mean square
        inc = np.stack((ax, ax * flat), axis=1)  # (B, 2, n)
        state = np.stack((self._mean.reshape(-1), self._sq.reshape(-1)))
        # the filter computes 0 * x_t, NaN for an infinite value: such batches take the loop
        short = B < (32 if loaded("scipy.signal") is not None else 512)
        if short or not np.isfinite(inc).all():
            decay = np.full(state.shape, 1.0 - a)  # an array: no float conversion per step
            for row in inc:
                state *= decay
                state += row
        else:
            from scipy.signal import lfilter

            out, _ = lfilter([1.0], np.array([1.0, -(1.0 - a)]), inc, axis=0,
                             zi=((1.0 - a) * state)[None])
            state = out[-1]
        self._mean = state[0].reshape(shape).copy()
        self._sq = state[1].reshape(shape).copy()
        self.n += B

    def get(self) -> np.ndarray:
        """The smoothed value ``m_t``."""
        return np.zeros(()) if self._mean is None else self._mean.copy()

    @property
    def value_debiased(self) -> np.ndarray:
        """``m_t / (1 - (1 - alpha) ** n)``: unbiased for a stationary stream."""
        if self._mean is None or self.n == 0:
            return self.get()
        return self._mean / (1.0 - (1.0 - self.alpha) ** self.n)

    @property
    def variance(self) -> np.ndarray:
        """Exponentially weighted variance of the values, ``max(s_t - m_t ** 2, 0)``."""
        if self._mean is None or self._sq is None:
            return np.zeros(())
        return np.maximum(self._sq - self._mean**2, 0.0)

    def __repr__(self) -> str:
        return f"EWMean(alpha={self.alpha}, n={self.n})"
