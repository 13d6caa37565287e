"""The ALE explanation function and its accumulation into a centred curve with a band.

:func:`local_differences` evaluates the rows of a batch at the edges of their bins (one stacked
model call, :class:`_Evaluator`); :func:`row_moments` turns the differences into per-row moments
whose per-bin sums give the bin means and their variances (:func:`bin_statistics`);
:func:`accumulation_matrix` and :func:`accumulated_std` accumulate and centre them, and
:func:`second_order_surface` does the same for a pair of features (see the module docstring of
:mod:`ixplain.methods.ale`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numeric import moment_shift, power_scaled
from ..models import Model, rows_for_budget
from ..tabular import Table
from ._ale_bins import _OWNER, FeatureBins, _is_int_column

__all__ = [
    "accumulated_std", "accumulation_matrix", "bin_statistics", "local_differences",
    "rescale_moments", "row_moments", "second_order_surface", "ScaledSums",
]

#: Number of per-row moments (see :func:`row_moments`).
N_MOMENTS = 6


# ------------------------------------------------------------------------ the explanation function
@dataclass
class _Evaluator:
    """Sets features of some rows to given values and predicts, in one stacked model call."""

    model: Model
    table: Table
    array: np.ndarray | None
    batch_rows: int
    owner: str = _OWNER

    @classmethod
    def build(cls, model: Model, table: Table, memory_budget: int,
              owner: str = _OWNER) -> _Evaluator:
        array = None
        dtype = table.schema.array_dtype
        if (
            table.schema.source == "numpy" and model.native_kind(table) == "numpy"
            and dtype is not None and np.dtype(dtype).kind == "f"
        ):
            array = np.asarray(table.to_native("numpy"))
        return cls(model, table, array, rows_for_budget(len(table.names), memory_budget), owner)

    def predict(self, rows: np.ndarray, settings: Sequence[dict[str, np.ndarray]]) -> np.ndarray:
        """Predictions of shape (len(settings), len(rows), n_outputs)."""
        B, P = len(rows), len(settings)
        if self.array is not None:
            big = np.tile(self.array[rows], (P, 1))
            for p, setting in enumerate(settings):
                for name, vals in setting.items():
                    big[p * B:(p + 1) * B, self.table.schema.index(name)] = vals
            out = self.model.predict_array(big, batch_rows=self.batch_rows)
        else:
            stacked = self.table.take(np.tile(rows, P))
            for name in settings[0]:
                vals = _concat([s[name] for s in settings])
                if self.table.schema.kind(name) == "numeric":
                    vals = vals.astype(np.float64)
                    if np.all(vals == np.round(vals)) and _is_int_column(self.table, name):
                        vals = vals.astype(np.int64)
                stacked = stacked.set_column(name, vals)
            out = self.model.predict(stacked, batch_rows=self.batch_rows)
        return _as_float(out, self.model, self.owner).reshape(P, B, -1)


def _concat(parts: list[Any]) -> Any:
    """Values of several settings of one feature, stacked in their own type (datetimes stay
    datetimes; mixed or object values become an object array)."""
    if all(isinstance(p, np.ndarray) for p in parts) and len({p.dtype for p in parts}) == 1:
        return np.concatenate(parts)
    if all(type(p) is type(parts[0]) for p in parts) and hasattr(parts[0], "_concat_same_type"):
        return type(parts[0])._concat_same_type(parts)
    return np.concatenate([np.asarray(p, dtype=object) for p in parts])


def _as_float(out: np.ndarray, model: Model, owner: str = _OWNER) -> np.ndarray:
    try:
        return np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}: {model.describe()} returned non-numeric values (e.g. "
            f"{np.ravel(out)[:3]!r}); ALE averages differences of the model output. For a "
            "classifier use response_method='predict_proba' or 'decision_function'."
        ) from None


def local_differences(
    evaluate: Any, rows: np.ndarray, corners: Sequence[tuple[str, np.ndarray, np.ndarray]]
) -> np.ndarray:
    """The ALE explanation function's value on a batch of rows: their local differences.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(rows, settings) -> (len(settings), B, n_outputs)`` predictions with each
        setting's ``{feature: values}`` written into the rows.
    rows : ndarray of int of shape (B,)
        Rows of the data being explained.
    corners : sequence of (name, lower, upper)
        One entry per feature (1 or 2), with the lower and upper edge of each row's bin,
        ``lower`` and ``upper`` of shape (B,).

    Returns
    -------
    ndarray of shape (B, n_outputs)
        ``f(upper) - f(lower)`` (1 feature) or the second difference
        ``f(u, u) - f(l, u) - f(u, l) + f(l, l)`` (2 features).
    """
    if len(corners) == 1:
        name, lo, hi = corners[0]
        out = evaluate(rows, [{name: lo}, {name: hi}])
        # inf - inf, or finite outputs that overflow when subtracted: refused or skipped by
        # the caller
        with np.errstate(invalid="ignore", over="ignore"):
            return out[1] - out[0]
    (a, alo, ahi), (b, blo, bhi) = corners
    out = evaluate(rows, [{a: alo, b: blo}, {a: ahi, b: blo}, {a: alo, b: bhi}, {a: ahi, b: bhi}])
    with np.errstate(invalid="ignore", over="ignore"):
        return out[3] - out[1] - out[2] + out[0]


def row_moments(diffs: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Per-row moments whose per-bin sums give the bin mean and its variance.

    Parameters
    ----------
    diffs : ndarray of shape (B, n_outputs)
    weights : ndarray of shape (B,), optional
        Row weights (default 1).

    Returns
    -------
    ndarray of shape (B, 6, n_outputs)
        ``[w, w d, w^2 d^2, w^2 d, w^2, 1]`` for each row (see :func:`bin_statistics`).
    """
    w = np.ones(len(diffs)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w[:, None]
    w2 = w * w
    ones = np.ones_like(diffs)
    return np.stack([w * ones, w * diffs, w2 * diffs * diffs, w2 * diffs, w2 * ones, ones], axis=1)


def rescale_moments(sums: np.ndarray, by: int) -> np.ndarray:
    """Summed :func:`row_moments` of differences ``d`` turned into those of ``d * 2**by``.

    The moments of degree 1 in ``d`` (``w d``, ``w^2 d``) are multiplied by ``2**by``, the
    one of degree 2 (``w^2 d^2``) by ``2**(2 by)``, the others kept: exact (a power of two),
    up to values that underflow to 0 (negligible next to the largest, which set ``by``).

    Parameters
    ----------
    sums : ndarray of shape (6, ...)
    by : int

    Returns
    -------
    ndarray of the shape of ``sums`` (a new array)
    """
    out = sums.copy()
    out[[1, 3]] = power_scaled(sums[[1, 3]], by)
    out[2] = power_scaled(sums[2], 2 * by)
    return out


class ScaledSums:
    """Per-cell sums of :func:`row_moments` kept in units of ``2**-shift`` of the model's.

    Effects above about 1e154 in magnitude overflowed their squares (the band was NaN), and
    sums of effects near 1e308 overflowed too: each batch of differences is scaled by the
    power of two :func:`~ixplain._numeric.moment_shift` picks for it, and the running sums are
    brought to the smaller of the two shifts when a batch needs a smaller one (exact: powers
    of two). ``shift`` is 0 for effects within ``2**-128 .. 2**128`` (nothing scaled), None
    while no finite non-zero difference was seen.

    Examples
    --------
    >>> acc = ScaledSums()
    >>> acc.add(np.array([[2.0 ** 600], [2.0 ** 601]]),
    ...         lambda d: row_moments(d).sum(axis=0)[..., None])
    >>> acc.shift, float(acc.total[1, 0, 0])
    (-602, 0.75)
    """

    def __init__(self) -> None:
        self.total: np.ndarray | None = None
        self.shift: int | None = None

    def add(self, diffs: np.ndarray, to_sums: Any) -> None:
        """Add a batch of differences ``diffs`` (B, n_outputs): ``to_sums`` maps them, in the
        sums' units, to their summed :func:`row_moments` per cell (6, n_outputs, ...)."""
        own = moment_shift(diffs)
        if own is not None and (self.shift is None or own < self.shift):
            if self.total is not None:  # (shift None: the sums so far are unscaled)
                self.total = rescale_moments(self.total, own - (self.shift or 0))
            self.shift = own
        part = to_sums(power_scaled(diffs, self.shift))
        self.total = part if self.total is None else self.total + part

    def unscaled(self, values: np.ndarray) -> np.ndarray:
        """Values in the sums' units (a mean, a standard error) back in the model's units
        (+-inf beyond the float range)."""
        return power_scaled(values, -(self.shift or 0))


def bin_statistics(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-bin mean, variance of the mean and row count from summed :func:`row_moments`.

    Parameters
    ----------
    sums : ndarray of shape (6, n_outputs, *bin_shape)

    Returns
    -------
    mean, var : ndarray of shape (n_outputs, *bin_shape)
        NaN mean for an empty bin; NaN variance for a bin with fewer than two rows.
    count : ndarray of shape bin_shape
    """
    W, S, Q2, S2, W2, N = sums
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = S / W
        ss = np.maximum(Q2 - 2 * mean * S2 + mean * mean * W2, 0.0)
        var = ss / (W * W) * N / (N - 1)
    var = np.where(N >= 2, var, np.nan)
    return mean, var, N[0]


def _bin_sums(bins: np.ndarray, moments: np.ndarray, n_cells: int) -> np.ndarray:
    """Sum ``moments`` (B, 6, n_out) by bin into (6, n_out, n_cells); rows with bin -1 ignored."""
    if bins.min(initial=0) < 0:
        keep = bins >= 0
        bins, moments = bins[keep], moments[keep]
    b, m = bins, moments
    out = np.empty((m.shape[1], m.shape[2], n_cells))
    for i in range(m.shape[1]):
        for o in range(m.shape[2]):
            out[i, o] = np.bincount(b, weights=m[:, i, o], minlength=n_cells)
    return out


# ------------------------------------------------------------------------ accumulation
def accumulation_matrix(kind: str, weights: np.ndarray) -> np.ndarray:
    """``A`` of shape (K + 1, K) with ``centred ALE = A @ Delta`` (module docstring).

    Parameters
    ----------
    kind : {"numeric", "discrete", "categorical"}
    weights : ndarray
        Rows (weights) per bin, shape (K,), for ``"numeric"``; per level, shape (K + 1,),
        otherwise.

    Examples
    --------
    >>> accumulation_matrix("discrete", np.array([1.0, 1.0]))
    array([[-0.5],
           [ 0.5]])
    """
    K = len(weights) - (0 if kind == "numeric" else 1)
    L = np.tril(np.ones((K + 1, K)), -1)
    omega = np.asarray(weights, dtype=np.float64) / np.sum(weights)
    if kind == "numeric":
        a = omega @ ((L[:-1] + L[1:]) / 2)
    else:
        a = omega @ L
    return L - a[None, :]


def accumulated_std(var: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Standard error of ``Delta @ A.T`` from per-bin variances ``var`` (n_outputs, K).

    A bin with an unknown variance (NaN: fewer than two rows) makes every point whose value
    depends on it (``A[:, k] != 0``) NaN; the other points keep their standard error.
    """
    A2 = (A * A).T
    unknown = np.isnan(var)
    std = np.sqrt(np.where(unknown, 0.0, var) @ A2)
    if unknown.any():
        std[(unknown.astype(np.float64) @ A2) > 0] = np.nan
    return std


def _first_order(fb: FeatureBins, sums: np.ndarray, level_w: np.ndarray) -> tuple[np.ndarray, ...]:
    mean, var, count = bin_statistics(sums)
    mean = _fill_empty_1d(mean)
    A = accumulation_matrix(fb.kind, level_w)
    return mean @ A.T, accumulated_std(var, A), count


def _fill_empty_1d(mean: np.ndarray) -> np.ndarray:
    """An empty bin (possible with custom edges) takes the mean of the nearest non-empty bin."""
    if not np.isnan(mean).any():
        return mean
    ok = np.flatnonzero(~np.isnan(mean[0]))
    if len(ok) == 0:
        return np.zeros_like(mean)
    idx = np.arange(mean.shape[1])
    nearest = ok[np.abs(idx[:, None] - ok[None, :]).argmin(axis=1)]
    return mean[:, nearest]


def _fill_empty_2d(mean: np.ndarray) -> np.ndarray:
    """Empty cells take the mean of the nearest non-empty cell (indices scaled to [0, 1])."""
    empty = np.isnan(mean[0])
    if not empty.any():
        return mean
    K1, K2 = empty.shape
    ii, jj = np.meshgrid(np.arange(K1) / max(1, K1 - 1), np.arange(K2) / max(1, K2 - 1),
                         indexing="ij")
    ok = np.flatnonzero(~empty.ravel())
    if len(ok) == 0:
        return np.zeros_like(mean)
    pts = np.c_[ii.ravel(), jj.ravel()]
    d = ((pts[:, None, :] - pts[None, ok, :]) ** 2).sum(axis=2)
    nearest = ok[d.argmin(axis=1)]
    flat = mean.reshape(mean.shape[0], -1)
    return flat[:, nearest].reshape(mean.shape)


def second_order_surface(delta: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Accumulate cell means, remove the main effects and centre (Apley's ``ALEPlot``).

    Parameters
    ----------
    delta : ndarray of shape (n_outputs, K1, K2)
        Mean second difference per cell (no NaN).
    counts : ndarray of shape (K1, K2)
        Rows (weights) per cell.

    Returns
    -------
    ndarray of shape (n_outputs, K1 + 1, K2 + 1)
    """
    n_out, K1, K2 = delta.shape
    h = np.zeros((n_out, K1 + 1, K2 + 1))
    h[:, 1:, 1:] = np.cumsum(np.cumsum(delta, axis=1), axis=2)
    c = np.asarray(counts, dtype=np.float64)
    # main effect along the first feature: its differences averaged over the second's bins
    d1 = h[:, 1:, :] - h[:, :-1, :]
    avg1 = ((d1[:, :, 1:] + d1[:, :, :-1]) / 2 * c).sum(axis=2) / np.maximum(c.sum(axis=1), 1e-300)
    f1 = np.concatenate([np.zeros((n_out, 1)), np.cumsum(avg1, axis=1)], axis=1)
    d2 = h[:, :, 1:] - h[:, :, :-1]
    avg2 = ((d2[:, 1:, :] + d2[:, :-1, :]) / 2 * c).sum(axis=1) / np.maximum(c.sum(axis=0), 1e-300)
    f2 = np.concatenate([np.zeros((n_out, 1)), np.cumsum(avg2, axis=1)], axis=1)
    h = h - f1[:, :, None] - f2[:, None, :]
    corners = (h[:, 1:, 1:] + h[:, :-1, 1:] + h[:, 1:, :-1] + h[:, :-1, :-1]) / 4
    return h - ((corners * c).sum(axis=(1, 2)) / c.sum())[:, None, None]
