"""The grid points of an incremental PD and their accumulated ICE values.

:class:`PointStore` keeps, for every feature value that has been a grid point of some row
(a float for a numeric feature, the level itself otherwise), the weighted sums of the ICE
values observed there: ``S = sum w f``, ``Q = sum w f**2``, ``W = sum w`` and ``W2 = sum
w**2``, scaled by ``2**-shift`` (exactly) so that they stay in float64's range on a long
stream; :func:`mean_var` turns them into the PD and its variance.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._numeric import moment_shift, power_scaled
from . import _stream_grid as sg

__all__ = ["PointStore", "grid_key", "mean_var", "sorted_quantile"]


class PointStore:
    """Per-grid-value accumulators: weighted sums of ICE values, their squares and the weights.

    For a value ``v`` and the steps ``s <= t`` at which ``v`` was on the active grid, with weight
    ``w_s = c * d**(t - s)`` (``d = 1 - alpha``, ``c = alpha``; ``d = c = 1`` for a running mean):
    ``S = sum w_s f_s``, ``Q = sum w_s f_s**2``, ``W = sum w_s``, ``W2 = sum w_s**2``.

    The decay is applied lazily: the arrays hold the sums divided by ``scale = d**t`` (``scale**2``
    for ``W2``), so a step touches only the observation's grid values; they are renormalised when
    ``scale`` gets small.

    The ICE values enter ``S`` and ``Q`` times ``2**shift`` (exact), ``shift`` fixed at the
    first non-zero finite values (:func:`~ixplain._numeric.moment_shift`, as iALE scales its
    moments): outputs near 1e300 overflowed ``Q`` at once and ``S`` once the weights
    ``c / scale`` grew (from about 200 rows at ``alpha=0.5``, 19,000 at 0.001), giving an
    infinite PD. :meth:`unscaled` takes a mean, standard error or variance back.
    """

    _RENORMALISE_BELOW = 1e-60
    #: Stores pickled before the values were scaled hold them unscaled.
    shift: int | None = 0

    def __init__(self) -> None:
        self.shift = None  # (set at the first non-zero finite values)
        self.keys: list[Any] = []
        self.index: dict[Any, int] = {}
        self._S = np.zeros((0, 0))
        self._Q = np.zeros((0, 0))
        self._W = np.zeros(0)
        self._W2 = np.zeros(0)
        self.scale = 1.0
        self._key_array: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def n_outputs(self) -> int:
        return int(self._S.shape[1])

    def ids(self, values: Any) -> np.ndarray:
        """Ids of ``values``, registering new ones (with zero weight)."""
        out = np.empty(len(values), dtype=np.intp)
        for j, v in enumerate(values):
            i = self.index.get(v)
            if i is None:
                i = len(self.keys)
                self.index[v] = i
                self.keys.append(v)
            out[j] = i
        return out

    def key_array(self, numeric: bool) -> np.ndarray:
        """The keys as an array (float64 or object), rebuilt only when points were added."""
        cached = self._key_array
        if cached is None or len(cached) != len(self.keys):
            if numeric:
                cached = np.asarray(self.keys, dtype=np.float64)
            else:
                cached = np.empty(len(self.keys), dtype=object)
                cached[:] = self.keys
            self._key_array = cached
        return cached

    def gather(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(S (g, k), Q (g, k), W (g,), W2 (g,))`` of the points ``ids``."""
        sc = self.scale
        return self._S[ids] * sc, self._Q[ids] * sc, self._W[ids] * sc, self._W2[ids] * sc * sc

    def unscaled(self, values: np.ndarray, power: int = 1) -> np.ndarray:
        """Values in the store's units (``2**-shift`` of the model's) back in the model's:
        ``power`` 1 for means and standard errors, 2 for variances (exact; +-inf beyond the
        float range, without numpy's warning)."""
        return power_scaled(values, -power * (self.shift or 0))

    def weights(self) -> np.ndarray:
        """``W`` of every point, up to a common positive factor."""
        return self._W

    def ensure(self, n_outputs: int) -> None:
        """Grow the arrays to the registered points and ``n_outputs`` columns (zero-filled)."""
        n, k = len(self.keys), max(n_outputs, self._S.shape[1])
        if self._S.shape == (n, k):
            return
        S, Q = np.zeros((n, k)), np.zeros((n, k))
        S[: self._S.shape[0], : self._S.shape[1]] = self._S
        Q[: self._Q.shape[0], : self._Q.shape[1]] = self._Q
        W, W2 = np.zeros(n), np.zeros(n)
        W[: self._W.size] = self._W
        W2[: self._W2.size] = self._W2
        self._S, self._Q, self._W, self._W2 = S, Q, W, W2

    def accumulate(
        self, ids: np.ndarray, rows: np.ndarray, values: np.ndarray, n_rows: int, d: float, c: float
    ) -> None:
        """Apply ``n_rows`` smoothing steps; row ``r`` adds ``values`` at ``ids`` where ``rows == r``.

        The state is bit for bit that of ``n_rows`` one-row calls (the ``explain_one`` loop):
        the scale is stepped row by row (a sequential ``multiply.accumulate``, renormalised at
        the same rows), and each point's sums take the rows' terms one after the other, in row
        order (``numpy.add.at``: unbuffered, in index order) -- the aggregation
        ``update_sequence`` gives the other explainers. ``values`` are scaled by
        ``2**shift`` first (see the class).
        """
        if self.shift is None:
            self.shift = moment_shift(values)
        values = power_scaled(values, self.shift)  # (beyond the range: inf, as unscaled)
        if n_rows == 1:  # one observation: its grid values are distinct
            if d != 1.0:
                self.scale *= d
                if self.scale < self._RENORMALISE_BELOW:
                    self._renormalise()
            w1 = c / self.scale
            self._W[ids] += w1
            self._W2[ids] += w1 * w1
            self._S[ids] += w1 * values
            self._Q[ids] += w1 * values * values
            return
        start = 0
        while start < n_rows:
            w_row, stop = self._row_weights(n_rows - start, d, c)
            sel = slice(None) if start == 0 and stop == n_rows - start else (
                (rows >= start) & (rows < start + stop))
            self._add_rows(ids[sel], w_row[rows[sel] - start], values[sel])
            start += stop
            if start < n_rows:
                self._renormalise_then_step(d)
                self._add_rows(ids[rows == start], np.full(int((rows == start).sum()), c),
                               values[rows == start])
                start += 1

    def _row_weights(self, n_rows: int, d: float, c: float) -> tuple[np.ndarray, int]:
        """The weights ``c / scale_r`` of the next rows, stepping ``scale`` by ``d`` per row, up
        to (not including) the first row whose scale falls below the renormalisation level:
        ``(weights, number of rows)``; ``scale`` is left at the last of those rows."""
        if d == 1.0:
            return np.full(n_rows, c / self.scale), n_rows
        steps = np.full(n_rows + 1, d)
        steps[0] = self.scale
        scales = np.multiply.accumulate(steps)[1:]  # sequential: scale * d * d * ...
        low = np.flatnonzero(scales < self._RENORMALISE_BELOW)
        stop = int(low[0]) if low.size else n_rows
        if stop:
            self.scale = float(scales[stop - 1])
        return c / scales[:stop], stop

    def _renormalise_then_step(self, d: float) -> None:
        """One row's scale step that falls below the renormalisation level (as a one-row call)."""
        self.scale *= d
        self._renormalise()

    def _add_rows(self, ids: np.ndarray, w: np.ndarray, values: np.ndarray) -> None:
        """Add the terms of consecutive rows point by point in row order (``w`` per entry)."""
        np.add.at(self._W, ids, w)
        np.add.at(self._W2, ids, w * w)
        for j in range(values.shape[1]):
            wf = w * values[:, j]
            np.add.at(self._S[:, j], ids, wf)
            np.add.at(self._Q[:, j], ids, wf * values[:, j])

    def _renormalise(self) -> None:
        sc = self.scale
        self._S *= sc
        self._Q *= sc
        self._W *= sc
        self._W2 *= sc * sc
        self.scale = 1.0

    def keep(self, ids: np.ndarray) -> np.ndarray:
        """Keep only the points ``ids`` (in that order); return the old-to-new id map."""
        mapping = np.full(len(self.keys), -1, dtype=np.intp)
        mapping[ids] = np.arange(len(ids))
        self.keys = [self.keys[i] for i in ids]
        self._key_array = None
        self.index = {k: i for i, k in enumerate(self.keys)}
        self._S, self._Q = self._S[ids], self._Q[ids]
        self._W, self._W2 = self._W[ids], self._W2[ids]
        return mapping


def sorted_quantile(values: np.ndarray, q: float) -> float:
    """``np.quantile(values, q)`` (linear interpolation) of an already sorted array."""
    pos = q * (values.size - 1)
    i = int(pos)
    if i >= values.size - 1:
        return float(values[-1])
    return float(sg.lerp(float(values[i]), float(values[i + 1]), pos - i))


def mean_var(S: np.ndarray, Q: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean and variance (each (n_points, n_outputs)) from the sums ``S = sum w f``,
    ``Q = sum w f**2`` and ``W = sum w`` (n_points,) of :class:`PointStore` (in its units,
    ``2**-shift``). Where ``Q`` overflowed float64 (the store's scaling keeps the first values'
    squares in range; values grown far beyond them) the variance is ``inf``, without numpy's
    overflow warnings (the mean is still right).

    Examples
    --------
    >>> mean, var = mean_var(np.array([[2e300]]), np.array([[np.inf]]), np.array([2.0]))
    >>> mean, var
    (array([[1.e+300]]), array([[inf]]))
    """
    with np.errstate(over="ignore", invalid="ignore"):
        mean = S / W[:, None]
        second = Q / W[:, None]
        var = np.where(np.isinf(second), np.inf, np.maximum(second - mean**2, 0.0))
    return mean, var


def grid_key(value: Any) -> Any:
    """A hashable grid key: python floats for numbers, the value itself otherwise."""
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, np.generic):
        return value.item()
    return value
