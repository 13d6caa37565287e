"""Incremental accumulated local effects (iALE): ALE of a numeric feature on a data stream.

Each observation ``x_t`` falls in a bin ``k`` of the current edges ``z_0 < ... < z_K`` and gives
the ALE explanation function's value ``(k, f_t(x_t with x_j := z_k) - f_t(x_t with x_j :=
z_{k-1}))`` (the engine method :class:`~ixplain.methods.ale.ALEFunction`, a mini-batch in one
model call).
Its moments (:func:`~ixplain.methods.ale.row_moments`) placed in bin ``k`` are smoothed
(``aggregation='ema'``) or averaged (``'mean'``) by the engine, so every bin keeps an
exponentially smoothed mean difference, its spread and its share of the rows; the curve is
accumulated and centred exactly as the static ALE, with the accumulated band.

A bin without rows (before its first row, or a new bin after the range grew) takes the slope
of the nearest bin, so the curve stays drawn, but that effect is an interpolation, not an
estimate: its variance is unknown, so ``std`` is NaN at every point the bin's effect reaches
(with the centring: all of them), ``bin_counts`` is 0 there and ``ale_.empty_bins`` flags it;
the Display shades such bins and draws no band. A bin with a single (effective) row has a mean
but no variance either: NaN ``std`` as well, as in the static ALE.

Edges on a stream
-----------------
Unless ``edges`` are given, the first ``regrid_every`` rows are a warm-up: they are stored,
not explained, and the ``K = grid_resolution`` bins start at the quantiles of the feature in the
storage after them; a feature the static ALE reads as discrete (at most ``grid_resolution + 1``
distinct stored values, each held by at least 10 rows) takes its levels as edges instead: one
step per level, as :func:`~ixplain.accumulated_local_effects` does. The edges are re-estimated every ``regrid_every`` rows from the quantiles of
the feature in the storage (rows before that point), when the stored values leave the current range or a bin
holds fewer than a quarter of its share. Re-forming the bins never restarts the estimate: the
smoothed statistics of the old bins are carried to the new ones through their *slopes* (effect
per unit width): a new bin receives from every old bin the fraction of the old bin's rows it
overlaps, and its difference is the integral of the old slopes over it (each old bin weighted
by the width it covers, not by its rows, so merging outer bins left with few decayed rows
into busy inner ones keeps their effect; see :func:`rebin_moments`; merging and splitting are
the same rule). A new bin with no overlap (the range grew) takes the slope of the nearest bin until its
own rows arrive. The one exception: a range that jumps so far (from ~1 to ~1e308) that the
carried effects overflow restarts the estimate on the new bins, with a warning. Rows outside the current range count in the nearest outer bin until the next
re-grid (with fixed ``edges`` they are left out and counted, as in the static ALE). Re-grids happen at multiples of ``regrid_every`` of the rows seen, so the state after a
row does not depend on how the stream was batched.

With fixed ``edges`` and ``aggregation='mean'`` over a dataset the estimate equals
:func:`~ixplain.accumulated_local_effects` with ``custom_edges`` on the same rows (float
rounding).

The band of ``'ema'`` treats the smoothed moments as sums over the effective number of rows of
the exponential weights ``alpha (1 - alpha)^(n - i)`` of the ``n`` rows explained, ``(sum w)^2 /
sum w^2`` (about ``n`` early on, ``(2 - alpha) / alpha`` in the long run); the smoothed mean
starts at zero, so early on the weights sum to ``1 - (1 - alpha)^n``, not 1, and the moments are
scaled by that too (the bins' counts and the band are right from the first rows).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._numeric import power_scaled
from .._validation import check_int, date_sort, param_error, refuse_datetime
from ..aggregation import EWMean, Mean
from ..results.ale import AccumulatedLocalEffects
from ..storage.base import Batch
from ..tabular import Table
from ._ale_bins import discrete_levels
from ._engine import RowBatch
from ._incremental import IncrementalExplainer, Sampler
from ._skips import apply_nan_policy
from .ale import (
    ALEFunction,
    _interval_bins,
    accumulated_std,
    accumulation_matrix,
    bin_statistics,
)
from .ipdp import NotStartedError

__all__ = ["IncrementalALE"]

#: Rows per level for a feature to be read as discrete: the static ALE's default ``min_bin_size``.
_LEVEL_ROWS = 10
#: Power of the difference in each moment of :func:`row_moments` (how it scales with width).
_ORDERS = np.array([0, 1, 2, 1, 0, 0])


def stream_edges(values: np.ndarray, n_bins: int) -> np.ndarray | None:
    """``n_bins + 1`` strictly increasing edges at quantiles of ``values``.

    Ties are resolved by splitting the widest bin at its middle until there are ``n_bins``
    bins; ``None`` if ``values`` has fewer than two distinct finite values.

    Examples
    --------
    >>> stream_edges(np.array([0.0, 0.0, 0.0, 1.0]), 4)
    array([0.    , 0.25  , 0.4375, 0.625 , 1.    ])
    """
    values = values[np.isfinite(values)]
    if len(values) == 0 or values.min() == values.max():
        return None
    edges = np.unique(np.quantile(values, np.linspace(0, 1, n_bins + 1)))
    while len(edges) < n_bins + 1:
        k = int(np.argmax(np.diff(edges)))
        edges = np.insert(edges, k + 1, (edges[k] + edges[k + 1]) / 2)
    return edges


def rebin_matrix(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``R`` of shape (6, K_new, K_old): moments of the new bins = ``R[m] @`` moments of the old.

    ``R[m, b, k]`` is the fraction of old bin ``k`` inside new bin ``b`` times
    ``(width_b / width_k) ** order_m`` (a difference over a bin is its slope times its width).
    """
    lo = np.maximum(new[:-1, None], old[None, :-1])
    hi = np.minimum(new[1:, None], old[None, 1:])
    frac = np.clip(hi - lo, 0, None) / np.diff(old)[None, :]
    ratio = np.diff(new)[:, None] / np.diff(old)[None, :]
    return frac[None] * ratio[None] ** _ORDERS[:, None, None]


def rebin_moments(state: np.ndarray, old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Carry summed :func:`~ixplain.methods.ale.row_moments` (6, n_out, K_old) to ``new`` edges.

    The rows' shares (``w``, ``w^2``, ``1``) move by overlap (:func:`rebin_matrix`). A new
    bin's mean difference is the *integral* of the old bins' slopes over it: old bin ``k``
    counts by the width it covers (``overlap / covered width``), not by its rows, so a wide
    new bin that merges old bins of very different row counts (the range shrank, the outer
    bins kept only a few decayed rows) still has the difference of the whole bin; its variance
    sums the old bins' variances with the squared weights (independent bins). Old bins without
    rows do not count; a new bin covering none stays empty.

    Examples
    --------
    >>> old, new = np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0])
    >>> m = np.zeros((6, 1, 2)); m[0] = [[9.0, 1.0]]; m[1] = [[9.0, 3.0]]  # slopes 1 and 3
    >>> float(rebin_moments(m, old, new)[1, 0, 0] / rebin_moments(m, old, new)[0, 0, 0])
    4.0
    """
    R = rebin_matrix(old, new)
    out = np.einsum("mbk,mok->mob", R, state)
    W, S, Q2, S2, W2 = state[:5]
    has = W > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(has, S / W, 0.0)
        v = np.where(has, np.maximum(Q2 - 2 * mean * S2 + mean * mean * W2, 0.0) / (W * W), 0.0)
    lo = np.maximum(new[:-1, None], old[None, :-1])
    hi = np.minimum(new[1:, None], old[None, 1:])
    overlap = np.clip(hi - lo, 0, None)  # (K_new, K_old)
    ratio = np.diff(new)[:, None] / np.diff(old)[None, :]
    cover = overlap[None] * has[:, None, :]  # (n_out, K_new, K_old)
    total = cover.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(total[..., None] > 0, cover / total[..., None], 0.0)
    mean_b = np.einsum("obk,bk,ok->ob", p, ratio, mean)
    v_b = np.einsum("obk,bk,ok->ob", p * p, ratio * ratio, v)
    Wb, W2b = out[0], out[4]
    out[1] = Wb * mean_b
    out[3] = W2b * mean_b
    out[2] = v_b * Wb * Wb + mean_b * mean_b * W2b
    return out


class IncrementalALE(IncrementalExplainer):
    """Accumulated local effects of one numeric feature on a data stream (iALE).

    Parameters
    ----------
    model : estimator, River model, Booster or callable
        Anything :func:`ixplain.as_model` accepts; called at explain time.
    feature : str or int
        The numeric feature (a name, or a position in the observations). A categorical
        feature is refused, and so is one of dates, datetimes, durations or periods (a
        datetime64, timedelta64 or Period dtype, or objects that are all date-like:
        ``ValueError`` naming its dtype or value type and the conversion to a number; the
        static :func:`~ixplain.accumulated_local_effects` bins datetimes and durations in
        time order).
    grid_resolution : int, default=20
        Number of bins ``K`` (ignored when ``edges`` are given), at most the number of values
        stored at the end of the warm-up minus one.
    edges : array-like of shape (K + 1,), optional
        Fixed, strictly increasing edges (no re-grid).
    regrid_every : int, default=100
        Re-estimate the edges from the storage every this many rows (see the module docstring).
    feature_names, storage, aggregation, alpha, history_every, history_size, response_method,
    nan_policy, random_state
        As in :class:`~ixplain.methods._incremental.IncrementalExplainer` (the storage only
        serves the edges; default ``GeometricReservoir(1000)`` for ``'ema'``).

    Attributes
    ----------
    ale_ : AccumulatedLocalEffects
        The current curve, band and effective bin counts (``extra["n_seen"]``).
    edges_ : ndarray of shape (K + 1,) or None
    n_regrids_ : int
        How many times the bins were re-formed.
    n_warmup_ : int
        Rows that only filled the storage before the first edges (the first ``regrid_every``
        rows when ``edges`` is None; a constant feature extends the warm-up).
    n_missing_ : int
        With ``nan_policy='pass'``: explained rows whose value of the feature is NaN or
        infinite; they enter no bin, as in the static ALE. With the default
        ``nan_policy='skip'`` such rows (NaN or +-inf in any feature) are skipped before they
        are explained and counted in ``n_skipped_`` instead, so this stays 0.
    n_outside_ : int
        Explained rows outside fixed ``edges``: left out, as the static ALE with
        ``custom_edges`` leaves them (with estimated edges such rows count in the nearest
        outer bin until the next re-grid).
    history_ : deque of (n_seen, ale, std)
        Snapshots of the centred curve (shape (n_outputs, K + 1)) and its standard error.
    edges_history_ : deque of ndarray
        The edges at each snapshot of ``history_``.

    References
    ----------
    D. W. Apley, J. Zhu, "Visualizing the effects of predictor variables in black box
    supervised learning models", JRSS-B 82(4), 2020. M. Muschalik, F. Fumagalli, R. Jagtani,
    B. Hammer, E. Hüllermeier, "iPDP: On partial dependence plots in dynamic modeling
    scenarios", xAI 2023 (the incremental scheme).

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import IncrementalALE
    >>> x = np.random.default_rng(0).uniform(size=(2000, 2))
    >>> iale = IncrementalALE(lambda A: 3 * A[:, 0] + A[:, 1], "x0", grid_resolution=4,
    ...                       aggregation="mean")
    >>> _ = iale.explain_many(x)
    >>> np.diff(iale.ale_.average[0]) / np.diff(iale.edges_)  # slope 3 in every bin
    array([3., 3., 3., 3.])
    >>> iale.n_warmup_, iale.n_explained_
    (100, 1900)
    """

    _owner = "IncrementalALE"
    _shift: int | None = 0  # explainers pickled before the moments were scaled: unscaled
    requires_labels = False
    requires_storage = False

    def __init__(
        self,
        model: Any,
        feature: str | int,
        *,
        grid_resolution: int = 20,
        edges: Any = None,
        regrid_every: int = 100,
        feature_names: Any = None,
        storage: Any = None,
        aggregation: str = "ema",
        alpha: float = 0.001,
        history_every: int = 100,
        history_size: int = 1000,
        response_method: str = "auto",
        nan_policy: str = "skip",
        random_state: Any = None,
    ) -> None:
        owner = self._owner
        if isinstance(feature, bool) or not isinstance(feature, (str, int, np.integer)):
            raise param_error(owner, "feature", "a feature name (str) or position (int)", feature,
                              exc=TypeError)
        self.feature = feature
        self.grid_resolution = int(check_int(grid_resolution, "grid_resolution", owner,
                                             min_value=1) or 1)
        self.regrid_every = int(check_int(regrid_every, "regrid_every", owner, min_value=1) or 1)
        self.edges = edges
        self.edges_ = _check_edges(edges, owner)
        self.n_regrids_ = 0
        self.n_warmup_ = 0
        self.n_missing_ = 0
        self.n_outside_ = 0
        self._method: ALEFunction | None = None
        self._shift: int | None = None  # the moments' power of two (ALEFunction's shift)
        super().__init__(
            model, feature_names=feature_names, storage=storage, aggregation=aggregation,
            alpha=alpha, bias_corrected=False, history_every=history_every,
            history_size=history_size, response_method=response_method, nan_policy=nan_policy,
            random_state=random_state,
        )
        if self.feature_names is not None:  # the features are known: refuse a typo now
            self._feature_name(tuple(self.feature_names))
        from collections import deque

        self.edges_history_: deque = deque(maxlen=self.history_size)

    # ------------------------------------------------------------------ the explanation function
    def __setstate__(self, state: dict) -> None:
        # explainers pickled before the rows without an ALE bin were counted
        state.setdefault("n_missing_", 0)
        state.setdefault("n_outside_", 0)
        super().__setstate__(state)

    def _feature_name(self, names: tuple[str, ...]) -> str:
        f = self.feature
        if isinstance(f, str):
            if f not in names:
                raise ValueError(f"{self._owner}: unknown feature {f!r}; the observations have "
                                 f"{list(names)}.")
            return f
        if not 0 <= int(f) < len(names):
            raise param_error(self._owner, "feature", f"a position in [0, {len(names) - 1}]", f)
        return names[int(f)]

    def _numeric_feature(self, cols: Any = None) -> str:
        """The explained feature's name; refuses a feature that is not numeric (a date-like
        one with the date text, read from its dtype or from its values in the batch columns
        ``cols``, a mapping of name to values)."""
        assert self._schema is not None
        name = self._feature_name(self._schema.names)
        if self._schema.kind(name) != "numeric":
            dtype = self._schema.dtypes[self._schema.index(name)]
            dates = date_sort(() if cols is None else cols[name], dtype)
            if dates is not None:
                raise refuse_datetime(self._owner, name, dates[1],
                                      "iALE bins numbers on a stream.", dates[0])
            raise ValueError(f"{self._owner}: feature {name!r} is not numeric; iALE explains a "
                             "numeric feature.")
        return name

    def _explain_batch(self, X: Table, y: np.ndarray | None, sampler: Sampler) -> np.ndarray:
        name = self._numeric_feature(X.columns)
        assert self.edges_ is not None
        if self._method is None or self._method.edges is not self.edges_:
            outside = "clip" if self.edges is None else "exclude"  # fixed edges: as static
            self._method = ALEFunction(self._model, name, self.edges_, outside=outside,
                                       owner=self._owner, shift=self._shift)
        values = self._method.explain(RowBatch(X, y, self.n_seen_))
        self._shift = self._method.shift  # (fixed at the first non-zero difference)
        x = X.numeric_column(name)
        missing = ~np.isfinite(x)  # +-inf (NaN with nan_policy='pass'): no bin, no difference
        if missing.any():
            values[missing] = 0.0
            self.n_missing_ += int(missing.sum())
        if self.edges is not None:
            out = (x < self.edges_[0]) | (x > self.edges_[-1])
            self.n_outside_ += int((out & ~missing).sum())
        return values

    def _part_state(self, full: bool, n_rows: int) -> list[Any]:
        """A part of iALE runs in pieces cut at the re-grid rows, each aggregated before the
        next one calls the model: keep the aggregator, the histories and the explanation
        function's scale as a completed part would (``full``, see
        ``IncrementalExplainer._part_state``)."""
        undos = super()._part_state(True, n_rows)
        edges, saved = self.edges_history_, list(self.edges_history_)
        method = self._method
        shift = None if method is None else method.shift

        def undo() -> None:
            edges.clear()
            edges.extend(saved)
            if method is not None:
                method.shift = shift

        return [*undos, undo]

    # ------------------------------------------------------------------ re-gridding
    def _process(self, cols: Any, y: np.ndarray | None, has_nan: bool | None = None) -> None:
        B = len(next(iter(cols.values())))
        every, s = self.regrid_every, 0
        while s < B:
            if self.edges is None and self.n_seen_ and self.n_seen_ % every == 0:
                self._regrid()
            e = min(B, s + every - self.n_seen_ % every)
            if s == 0 and e == B:
                part, part_nan = cols, has_nan
            else:
                part = cols.rows(slice(s, e)) if isinstance(cols, Batch) else {
                    k: v[s:e] for k, v in cols.items()}
                part_nan = None
            part_y = None if y is None else y[s:e]
            if self.edges_ is None:
                self._warm_up(part, part_y, e - s)
            else:
                super()._process(part, part_y, part_nan)
            s = e

    def _warm_up(self, cols: Any, y: np.ndarray | None, B: int) -> None:
        """Rows before the first edges: stored (the edges come from them), not explained."""
        self._numeric_feature(cols)
        n_rows = B
        if self.nan_policy != "pass":  # the same rows the engine would store
            cols, y, B = apply_nan_policy(self, cols, y, B)
        storage = self.storage
        if storage._schema is None:
            assert self._schema is not None
            storage._ensure_schema(self._schema)
        if B:
            self._store_rows(cols, storage._plan(B), y)
        self.n_warmup_ += B
        self._after(n_rows)

    def _regrid(self) -> None:
        n = len(self.storage)
        if n < 2 or self._schema is None:
            return
        name = self._feature_name(self._schema.names)
        values = np.asarray(self.storage._cols[name][:n], dtype=np.float64)
        values = values[np.isfinite(values)]
        old = self.edges_
        levels = self._levels(values)
        if old is None:  # end of the warm-up
            # at most one bin per stored value (a huge grid_resolution is not a huge matrix)
            self.edges_ = levels if levels is not None else stream_edges(
                values, min(self.grid_resolution, max(1, len(values) - 1)))
            return
        if levels is not None and np.array_equal(levels, old):
            return
        counts = np.bincount(np.clip(_interval_bins(np.clip(values, old[0], old[-1]), old), 0,
                                     None), minlength=len(old) - 1)
        outside = values.min() < old[0] or values.max() > old[-1]
        if levels is None and not outside and counts.min() >= 0.25 * len(values) / (len(old) - 1):
            return
        new = levels if levels is not None else stream_edges(values, len(old) - 1)
        if new is None:
            return
        agg = self._aggregator
        with np.errstate(over="ignore", invalid="ignore"):
            R = rebin_matrix(old, new)
            carried = {attr: np.einsum("bk,mok->mob", R[0], state) if attr != "_mean"
                       else rebin_moments(state, old, new)
                       for attr in ("_mean", "_sq", "_m2")
                       if (state := getattr(agg, attr, None)) is not None}
        if all(np.isfinite(v).all() for v in carried.values()):
            for attr, state in carried.items():
                setattr(agg, attr, state)
        else:
            self._restart(old, new)
        self.edges_ = new
        self.n_regrids_ += 1

    def _levels(self, values: np.ndarray) -> np.ndarray | None:
        """The stored values' levels when the static ALE reads them as discrete (one step per
        level: :func:`~ixplain.methods._ale_bins.discrete_levels` with its default
        ``min_bin_size``), at least two; else None (quantile edges)."""
        levels = discrete_levels(np.sort(values), self.grid_resolution, _LEVEL_ROWS)
        return levels if levels is not None and len(levels) >= 2 else None

    def _restart(self, old: np.ndarray, new: np.ndarray) -> None:
        """Start the estimate afresh on the ``new`` edges (with a new power of two for the
        moments): the old bins' slopes carried over bins ``1e308`` times wider (the range
        jumped from ~1 to ~1e308) overflow, and an estimate of inf or NaN helps nobody."""
        warnings.warn(
            f"{self._owner}: the range of feature {self._feature_name(self._schema.names)!r} "  # type: ignore[union-attr]
            f"moved from [{old[0]:.6g}, {old[-1]:.6g}] to [{new[0]:.6g}, {new[-1]:.6g}] at row "
            f"{self.n_seen_}, too far to carry the estimate to the new bins (the carried "
            "effects overflow); the estimate starts afresh on them.",
            RuntimeWarning, stacklevel=5,
        )
        self._aggregator = Mean() if self.aggregation == "mean" else EWMean(self.alpha)
        self._shift, self._method = None, None

    # ------------------------------------------------------------------ results
    def _scale(self) -> float:
        agg = self._aggregator
        if isinstance(agg, Mean):
            return float(agg.n)
        assert isinstance(agg, EWMean)
        # the smoothed moments weigh row i by a (1 - a)^(n - i): total w = 1 - (1 - a)^n (it
        # starts at zero), effective rows (sum w)^2 / sum w^2; scale so they count that many
        a, n = self.alpha, agg.n
        q = (1.0 - a) ** n
        if q >= 1.0:  # a * n below float resolution: uniform weights
            return 1.0 / a
        return float((2.0 - a) * (1.0 - q) / (a * (1.0 - q * q)))

    def _curve(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(centred ALE, its std, effective rows per bin) from the smoothed moments."""
        if self.edges_ is None and self.n_seen_:
            raise NotStartedError(
                f"{self._owner} is still warming up: the first edges come from the stored values "
                f"of the feature at a multiple of regrid_every={self.regrid_every} rows, and need "
                f"two distinct finite values ({self.n_seen_} rows seen, {self.n_warmup_} stored, "
                f"{self.n_skipped_} skipped). A constant feature has no ALE.")
        if self._aggregator.n == 0 or self.edges_ is None:
            after = self.n_seen_ - self.n_warmup_  # (rows since the warm-up)
            raise NotStartedError(
                f"This {self._owner} has not explained any observation yet; call explain_one or "
                "explain_many first." if after <= 0 or self.n_skipped_ < after else
                f"This {self._owner} has not explained any observation yet: of the "
                f"{self.n_seen_} rows seen, {self.n_warmup_} were its warm-up and the other "
                f"{after} were skipped (n_skipped_: NaN inputs, or effects that were not "
                "finite; the warning said why).")
        sums = self._aggregator.get() * self._scale()
        mean, var, _ = bin_statistics(sums)
        # an empty bin's effect is the nearest bin's slope times its width (an interpolation,
        # not an estimate): its variance stays unknown, so the band is NaN where it matters
        mean = _fill_by_slope(mean, np.diff(self.edges_))
        share = sums[0, 0]
        A = accumulation_matrix("numeric", share if share.sum() > 0 else np.ones_like(share))
        ale, std = mean @ A.T, accumulated_std(var, A)
        # the moments are those of the effects times 2**shift: back (exact; +-inf beyond the
        # float range: ale_ warns)
        back = -(self._shift or 0)
        ale, std = power_scaled(ale, back), power_scaled(std, back)
        return ale, std, share

    @property
    def ale_(self) -> AccumulatedLocalEffects:
        """The current ALE as an :class:`~ixplain.results.AccumulatedLocalEffects`.

        Raises
        ------
        NotStartedError
            (a ``ValueError`` and ``AttributeError``, as ``IncrementalPDP.pd_`` raises) before
            the first explained observation, and while the first edges are not yet fixed
            (the warm-up: the message says how many rows were seen and stored).

        Warns
        -----
        RuntimeWarning
            When the curve is beyond the float range at some edges (``|ALE| > 1.8e308``: the
            model's effects are near 1e308 per bin, e.g. an empty bin that takes such a
            slope over its width): those values are ``+-inf``. The rows whose own effect
            was not finite were skipped (``n_skipped_``); the effects kept are finite, their
            sum is not.
        """
        ale, std, share = self._curve()
        assert self._schema is not None and self.edges_ is not None
        name = self._feature_name(self._schema.names)
        if np.isinf(ale).any():
            warnings.warn(
                f"{self._owner}: the ALE of feature {name!r} is beyond the float range "
                f"(|ALE| > 1.8e308) at {int(np.isinf(ale).any(axis=0).sum())} of {ale.shape[1]} "
                "edges, where it is +-inf: the model's effects are too large to add up in "
                "float64; rescale its outputs (e.g. thousands instead of units).",
                RuntimeWarning, stacklevel=2)
        return AccumulatedLocalEffects(
            grid_values=[self.edges_.copy()], average=ale, std=std, bin_counts=share,
            features=(name,), feature_kinds=("numeric",), deciles=[None],
            output_names=self._model.output_names, response_method=self._model.response_method,
            n_rows=self.n_explained_ - self.n_missing_ - self.n_outside_,
            n_missing=(self.n_missing_,), n_outside=(self.n_outside_,), edge_rule=("stream",),
            extra={"n_seen": self.n_seen_, "aggregation": self.aggregation, "alpha": self.alpha,
                   "n_regrids": self.n_regrids_},
        )

    @property
    def importances_(self) -> np.ndarray:
        """The centred ALE at ``edges_``, shape (n_outputs, K + 1); empty before any row."""
        if self._aggregator.n == 0:
            return np.zeros(0)
        return self._curve()[0]

    @property
    def variances_(self) -> np.ndarray:
        """Squared standard error of :attr:`importances_` (``inf``, or 0, where that square
        is beyond the float range: effects near 1e300, or 1e-300, whose standard error in
        :attr:`ale_` is finite and non-zero)."""
        if self._aggregator.n == 0:
            return np.zeros(0)
        with np.errstate(over="ignore"):
            return self._curve()[1] ** 2

    def _after(self, B: int) -> None:
        n_before = len(self.history_)
        last = self.history_[-1] if n_before else None
        super()._after(B)
        if len(self.history_) and self.history_[-1] is not last and self.edges_ is not None:
            self.edges_history_.append(self.edges_.copy())


def _fill_by_slope(values: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Bins without rows (NaN) take the nearest bin's value per unit ``scale`` times theirs."""
    if not np.isnan(values).any():
        return values
    ok = np.flatnonzero(~np.isnan(values[0]))
    if len(ok) == 0:
        return np.zeros_like(values)
    idx = np.arange(values.shape[1])
    nearest = ok[np.abs(idx[:, None] - ok[None, :]).argmin(axis=1)]
    return values[:, nearest] / scale[nearest] * scale


def _check_edges(edges: Any, owner: str) -> np.ndarray | None:
    if edges is None:
        return None
    arr = np.asarray(edges, dtype=np.float64)
    if arr.ndim != 1 or len(arr) < 2 or not np.isfinite(arr).all() or not np.all(np.diff(arr) > 0):
        raise param_error(owner, "edges", "None or at least 2 finite, strictly increasing values",
                          edges)
    return arr
