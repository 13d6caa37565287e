"""Incremental partial dependence (iPDP) for models that learn on a data stream.

Per observation ``x_t`` the explanation function is the observation's ICE curve on the grid,
``lambda_t(v) = f_t(x_t with x_S := v)``; the iPDP smooths these curves over time, one estimate per
grid value ``v``.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections import deque
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np

from .._lazy import is_instance
from .._numeric import moment_shift, overflow_reported, power_scaled
from .._validation import (
    check_float,
    check_int,
    check_options,
    date_sort,
    missing_value,
    param_error,
    refuse_datetime,
    user_stacklevel,
)
from ..grids import MAX_LEVELS
from ..models import as_model
from ..results.partial_dependence import PartialDependence
from ..tabular import Table
from . import _stream_grid as sg
from ._incremental import IncrementalExplainer
from ._skips import apply_nan_policy, warn_skipped
from .pdp import ice_predict

__all__ = ["IncrementalPDP", "NotStartedError", "PDSnapshot"]

_OWNER = "IncrementalPDP"
_ROW = "\x00row"  # private column: positions of the rows kept by the NaN policy
_FIRST = np.zeros(1, dtype=np.intp)


#: Largest ``grid_resolution`` of an IncrementalPDP: each observation costs one model row per
#: grid value, and a curve has no use for more points than a screen has pixels.
MAX_GRID_RESOLUTION = 10_000

#: Range values (window or storage: at most ``range_window`` / the storage's size) behind a
#: row's grid before the drift summaries' core grid is fixed from it (see
#: :meth:`IncrementalPDP._fix_core`); also the consecutive rows whose grid misses a core value
#: after which the core is fixed again (:meth:`IncrementalPDP._track_core`).
CORE_AFTER = 1000


class PDSnapshot(NamedTuple):
    """The iPDP at one moment of the stream (an entry of ``IncrementalPDP.history_``).

    Indexable like the other explainers' ``(n_seen, estimate, variance)`` snapshots.

    Attributes
    ----------
    n_seen : int
        Observations received when the snapshot was taken.
    average : ndarray of shape (n_outputs, n_grid)
        The PD at each grid value.
    variance : ndarray of shape (n_outputs, n_grid)
        Weighted variance of the ICE values at each grid value.
    grid_values : ndarray of shape (n_grid,)
        The active grid (feature values where the model was evaluated).
    """

    n_seen: int
    average: np.ndarray
    variance: np.ndarray
    grid_values: np.ndarray


#: ``(first batch row, core grid or None, fixed again)`` of a run of a batch's rows whose grids
#: came after the same core (see :meth:`IncrementalPDP._grid_ids`).
_CorePart = tuple[int, "np.ndarray | None", bool]


class _PointStore:
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


class IncrementalPDP(IncrementalExplainer):
    r"""Incremental partial dependence (iPDP) of one feature, for a model on a data stream.

    Each observation's ICE curve -- the model's output with the feature set to every grid value
    -- is evaluated in one batched model call and added to a per-value exponentially weighted
    mean. The grid follows the feature's range on the stream, and every grid value keeps its own
    estimate and weight, so the PD is only ever reported at values where the model was evaluated
    (unlike the reference implementation, which smooths the grid *positions* and so reports the PD
    at feature values no observation had and the model never saw).

    Parameters
    ----------
    model : estimator, River model, Booster, callable or Model
        The model to explain (see :func:`ixplain.as_model`). A River model may keep learning
        between calls: each ICE curve uses the model as it is at that step.
    feature : str or int
        The feature (its name, or its position in the data's columns). With
        ``feature_names`` given, a name not among them (or a position outside them) is
        refused at construction (``ValueError`` listing them).
    grid_resolution : int, default=20
        For ``grid="range"``: the largest number of grid values in the tracked range. The step is
        the smallest value of the 1-2-5 ladder (..., 0.5, 1, 2, 5, 10, ...) that puts at most
        ``grid_resolution`` of its multiples in the range (so the grid has between about
        ``0.4 * grid_resolution`` and ``grid_resolution`` values); it is kept until the range
        outgrows it or shrinks by about 20% (hysteresis, see
        :func:`~ixplain.methods._stream_grid.keep_step`). Ladder steps nest, so a value keeps
        its estimate when the step changes. An integer-valued feature's step is at least 1, and
        one with at most ``grid_resolution`` distinct values in the range's source (window or
        storage) is gridded at those values, percentiles aside, as static PD and scikit-learn grid a
        feature with few distinct values (an hour of day has 24: ``grid_resolution=24`` puts
        every hour on the grid; with the default 20 it is the lattice of step 2, every other
        hour). At most :data:`MAX_GRID_RESOLUTION` (10,000).
    grid : "range" or array-like of shape (n_grid,), default="range"
        ``"range"``: the lattice of the tracked range or an integer feature's few values
        (numeric features, see ``grid_resolution``) or the levels seen so far (categorical features). An array: a fixed grid, evaluated at every step.
    range_source : {"window", "storage"}, default="window"
        Where the range comes from: ``"window"`` tracks the ``percentiles`` of the feature's last
        ``range_window`` values (kept sorted: O(1) per percentile); ``"storage"`` takes the
        ``percentiles`` of the rows held by ``storage`` (e.g. a
        :class:`~ixplain.storage.UniformReservoir` for a static stream). Either way the range
        used at step ``t`` is that of the values *before* ``t`` (the first observation's value
        starts it), so for an i.i.d. stream the grid does not depend on the observation it
        explains.
    range_window : int, default=1000
        Length of the sliding window of feature values (``range_source="window"``).
    percentiles : tuple of float, default=(0.05, 0.95)
        Lower and upper percentile (fractions in [0, 1], as in scikit-learn) that bound the
        range.
    categorical : bool or None, default=None
        Treat the feature as categorical (grid = levels seen so far, new levels added as they
        appear; reported sorted, or in the category order of an ordered pandas categorical,
        as static PD reports them). ``None``: from the data's dtype (strings, booleans, pandas
        categoricals).
    kind : {"average", "both"}, default="average"
        ``"both"`` adds the recent ICE curves (see ``ice_history``) to :attr:`pd_` as
        ``individual``.
    ice_history : int, default=100
        Number of most recent ICE curves kept (:attr:`ice_history_`).
    aggregation : {"ema", "mean"}, default="ema"
        ``"ema"``: exponential smoothing with rate ``alpha`` (a model that changes); ``"mean"``:
        running mean (a static model).
    alpha : float in (0, 1], default=0.001
        Smoothing rate: each new ICE value gets weight ``alpha``, older ones decay by
        ``1 - alpha`` per observation.
    bias_corrected : bool, default=True
        Report each value's weighted *mean* (see Notes). ``False``: the paper's un-normalised
        iPDP, ``sum_s alpha (1-alpha)^(t-s) f_s(v)``, which starts at 0.
    storage : storage, optional
        For ``range_source="storage"``: the rows the range is computed from (default
        ``GeometricReservoir(1000)``, or ``UniformReservoir(1000)`` with ``aggregation="mean"``).
    feature_names : sequence of str, optional
        The model's features in order (default: the first observation's keys / columns).
    history_every : int, default=1000
        A :class:`PDSnapshot` is stored in :attr:`history_` every ``history_every`` observations
        (``0`` disables).
    history_size : int, default=100
        Number of most recent snapshots kept.
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
        The model output explained (see :func:`ixplain.as_model`).
    target : object, optional
        For multiclass output, the class whose output is explained.
    nan_policy : {"skip", "raise", "pass"}, default="skip"
        Observations with NaN in a numeric feature: skipped (counted in ``n_skipped_``), an
        error, or passed to the model; with ``"pass"`` a missing value of the explained feature
        does not move the range (its ICE curve is still evaluated). In every policy an
        observation whose ICE curve is not finite (the model returned NaN or +-inf at one of
        its grid values; NaN and inf alike) is skipped whole: it enters no grid value's
        estimate, counts in ``n_skipped_`` and gets the skip warning (once per explainer;
        one per ``explain_many`` call, counting its rows), as the other stream explainers
        skip explanations that are not finite. Its feature value still moves the range.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the default storage; the iPDP itself is deterministic.
    max_batch : int, default=10000
        Rows of :meth:`explain_many` whose ICE curves go through the model in one call (``B *
        n_grid`` model rows); it bounds the memory of a call and has no effect on the results.
    drift_detector : ExplanationDriftDetector, optional
        Tests every observation's ICE curve for a change of the PD curve (its slope and
        curvature, or its spread across levels, per output: :mod:`ixplain.methods._curve_summary`);
        label-free by nature. Events in ``drift_detector.events_``. A numeric feature's
        curves are summarised on a **core grid**: the grid of the first row whose range came
        from ``min(range_window, 1000)`` values (:data:`CORE_AFTER`), less ``max(2, n // 10)``
        of its ``n`` values at each end (a fixed ``grid``: all of it, from row 0), so the
        jitter of the range's ends does not move a nonlinear model's slope. Rows before it,
        and rows whose grid lacks a core value (the range drifted off the core, or the step
        coarsened past it), are not tested; after that many consecutive rows without the
        core, the core is fixed again from the current row's grid and the detector tests the
        new summaries on a fresh data channel (new tests, warm-up and scale: summaries on
        two cores are not compared). A grid of fewer than 3 values fixes no core: the
        detector then gets nothing, and a ``RuntimeWarning`` says so once. A categorical
        feature's spread across levels has no sign: an effect that only reverses is not
        seen in it.

    Attributes
    ----------
    pd_ : PartialDependence
        The current iPDP: ``grid_values[0]`` the active grid (n_grid,), ``average`` of shape
        (n_outputs, n_grid); ``extra`` holds ``"weight"`` (n_grid,), ``"standard_error"``
        (n_outputs, n_grid) and ``"n_effective"`` (n_grid,). Outputs near the float limits
        (1e300, 1e-300) are summed in units of a power of two fixed by the first non-zero
        ones, so the average and standard error stay finite; outputs that later grow far
        beyond those (about 1e120 times) can still overflow them, as in iALE.
    importances_ : ndarray of shape (n_outputs, n_grid)
        The current PD values (``pd_.average``), for the common incremental interface.
    variances_ : ndarray of shape (n_outputs, n_grid)
        Weighted variance of the ICE values at each grid value (``inf`` where it exceeds
        float64's range: a spread beyond about 1e154).
    n_seen_ : int
        Observations received.
    n_skipped_ : int
        Observations left out: those the ``nan_policy`` skipped, and those whose ICE curve
        was not finite.
    history_ : collections.deque of PDSnapshot
        ``(n_seen, average, variance, grid_values)`` every ``history_every`` observations.
    ice_history_ : list of tuple (ndarray of shape (g,), ndarray of shape (n_outputs, g))
        The most recent ICE curves (grid values, model outputs), oldest first.

    Raises
    ------
    TypeError, ValueError
        At construction, for a parameter that breaks its rule (the message names it, the rule
        and the value).
    ValueError
        At the first observation, for an unknown ``feature`` (the message lists the available
        ones), a non-numeric feature with ``categorical=False``, or a feature of dates,
        datetimes, durations or periods, with a fixed ``grid`` too (a grid value per distinct
        value would not end; the message names its dtype, or the value type for date
        objects, and the conversion to numbers, as :func:`~ixplain.partial_dependence` and
        ``IncrementalALE`` do); a later new level that is date-like is refused alike;
        later, for a record without a feature the stream had, or NaN with
        ``nan_policy="raise"`` (a model returning NaN is not an error: the row is skipped,
        see ``nan_policy``).
    ModelEvaluationError
        If the model raises (with the failing batch described).

    Notes
    -----
    For a grid value ``v`` let ``A_t(v)`` be the steps ``s <= t`` at which ``v`` was on the
    grid and ``w_s = alpha (1 - alpha)^(t - s)`` (``w_s = 1`` for ``aggregation="mean"``). The
    estimate is the weighted mean

    .. math:: \widehat{PD}_t(v) = \sum_{s \in A_t(v)} w_s f_s(v, x_{s,-S}) /
              \sum_{s \in A_t(v)} w_s .

    *Which rows each grid value averages.* ``A_t(v)`` holds the explained rows ``s <= t``
    (not those the ``nan_policy`` skipped or whose ICE curve was not finite) whose own grid
    contained ``v``. Row ``s``'s grid is, for a fixed ``grid``, all of it (every value
    averages the same rows: one ICE mean); for a numeric feature with ``grid="range"``, the
    lattice (or the few integer values) between the ``percentiles`` of the feature values
    the range is read from *before* ``s`` -- the last ``range_window`` rows (or the storage's
    values, ``range_source="storage"``; row 0: its own value) -- so a value joins the grid at
    the first row after that range reached it and leaves it while the range is elsewhere or
    the step is coarser (an extreme row drops out of the range ``range_window`` rows later);
    for a categorical feature, the levels of rows ``0..s``, row ``s``'s own included, so a
    level first seen at row ``r`` averages rows ``r..t``. The curve is therefore not one ICE
    mean over one set of rows: values that joined the grid later average fewer, later rows
    (``pd_.extra["n_effective"]`` counts them per value), and it matches a static PD of the
    same rows only where ``A_t(v)`` is all of them. E.g. ``x_0 = 1, 1, 3, 0`` with
    ``percentiles=(0, 1)``: the grids are ``[1], [1], [1], [1, 3]``, so ``PD_3(1)`` averages
    rows 0-3 and ``PD_3(3)`` row 3 alone.

    *What it converges to.* For a static model ``f`` and an i.i.d. stream, ``A_t(v)`` does not
    depend on the ICE values it averages, so ``E[PD_t(v)] = PD(v) = E[f(v, X_{-S})]`` at every
    step (no ``1 - (1-alpha)^t`` start-up bias). With a fixed grid its variance is
    ``sigma^2(v) alpha (1 - (1-alpha)^(2t)) / ((2 - alpha)(1 - (1-alpha)^t)^2)``, which tends to
    ``sigma^2(v) alpha / (2 - alpha)`` (``sigma^2(v)`` the variance of the ICE values at ``v``);
    with ``aggregation="mean"`` it is the running mean and converges to ``PD(v)`` almost surely.
    The paper's un-normalised iPDP (``bias_corrected=False``) is ``weight * mean`` with
    ``weight = 1 - (1-alpha)^t`` on a fixed grid, so its expectation is
    ``(1 - (1-alpha)^t) PD(v)``. For a changing model or stream the estimate tracks an
    exponentially weighted average over the last ``~1/alpha`` observations.

    References
    ----------
    M. Muschalik, F. Fumagalli, R. Jagtani, B. Hammer, E. Hüllermeier. "iPDP: On Partial
    Dependence Plots in Dynamic Modeling Scenarios". World Conference on Explainable Artificial
    Intelligence (xAI), 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import IncrementalPDP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 10, size=(500, 2))
    >>> explainer = IncrementalPDP(
    ...     lambda X: 2.0 * X[:, 0] + X[:, 1], "x0", grid_resolution=10, aggregation="mean"
    ... )
    >>> for x in X:
    ...     _ = explainer.explain_one(x)
    >>> pd_ = explainer.pd_
    >>> pd_.grid_values[0]
    array([1., 2., 3., 4., 5., 6., 7., 8., 9.])
    >>> bool(np.allclose(pd_.average[0], 2.0 * pd_.grid_values[0] + X[:, 1].mean(), atol=0.3))
    True
    """

    _owner = _OWNER
    requires_labels = False
    requires_storage = False
    #: The core grid of the drift summaries (numeric feature; None until fixed).
    _core: np.ndarray | None = None
    #: Consecutive rows (up to the last one) whose grid missed a core value.
    _core_miss = 0
    #: Times the core was fixed again after the range drifted off it (0: the first core).
    _core_epoch = 0
    #: Default ``max_batch``: rows whose ICE curves go through the model together.
    max_batch = 10_000

    def __init__(
        self,
        model: Any,
        feature: str | int,
        *,
        grid_resolution: int = 20,
        grid: Any = "range",
        range_source: str = "window",
        range_window: int = 1000,
        percentiles: tuple[float, float] = (0.05, 0.95),
        categorical: bool | None = None,
        kind: str = "average",
        ice_history: int = 100,
        aggregation: str = "ema",
        alpha: float = 0.001,
        bias_corrected: bool = True,
        storage: Any = None,
        feature_names: Any = None,
        history_every: int = 1000,
        history_size: int = 100,
        response_method: str = "auto",
        target: Any = None,
        nan_policy: str = "skip",
        random_state: Any = None,
        max_batch: int | None = None,
        drift_detector: Any = None,
    ) -> None:
        if not isinstance(feature, (str, numbers.Integral)) or isinstance(feature, bool):
            raise param_error(_OWNER, "feature", "a str or an int", feature, exc=TypeError)
        super().__init__(
            model,
            feature_names=feature_names,
            storage=storage,
            aggregation=aggregation,
            alpha=alpha,
            bias_corrected=bias_corrected,
            history_every=history_every,
            history_size=history_size,
            response_method=response_method,
            nan_policy=nan_policy,
            random_state=random_state,
            max_batch=max_batch,
        )
        self.feature = feature
        if self.feature_names is not None:  # the features are known: refuse a typo now
            self._feature_name(list(self.feature_names))
        self.grid_resolution = _int(grid_resolution, "grid_resolution", 2)
        if self.grid_resolution > MAX_GRID_RESOLUTION:
            raise ValueError(
                f"The 'grid_resolution' parameter of IncrementalPDP must be at most "
                f"{MAX_GRID_RESOLUTION:,} (every observation is evaluated at each grid value: "
                f"{self.grid_resolution:,} model rows per observation). Got "
                f"{self.grid_resolution:,} instead."
            )
        self.grid = _check_grid(grid)
        self.range_source = check_options(
            range_source, "range_source", _OWNER, ("window", "storage")
        )
        self.range_window = _int(range_window, "range_window", 1)
        self.percentiles = _check_percentiles(percentiles)
        if categorical is not None and not isinstance(categorical, (bool, np.bool_)):
            raise param_error(_OWNER, "categorical", "a bool or None", categorical, exc=TypeError)
        self.categorical = categorical
        self.kind = check_options(kind, "kind", _OWNER, ("average", "both"))
        self.ice_history = _int(ice_history, "ice_history", 0)
        self.target = target
        if target is not None:
            self._model = as_model(
                model, response_method=response_method, target=target, owner=_OWNER
            )
        self.model_ = self._model
        self.feature_name_: str | None = None
        self.feature_kind_: str | None = None
        self._store = _PointStore()
        self._window = sg.SortedWindow(self.range_window)
        self._step: sg.Step | None = None
        self._cache: tuple[Any, np.ndarray] | None = None
        self._active = np.empty(0, dtype=np.intp)
        self._ice: deque[tuple[np.ndarray, np.ndarray]] = deque(maxlen=self.ice_history)
        self.drift_detector = drift_detector

    # ------------------------------------------------------------------ public API
    def explain_many(self, X: Any, y: Any = None) -> np.ndarray:
        """Add the ICE curves of ``X``'s rows in order, as a loop of ``explain_one`` would.

        The ICE curves of up to ``max_batch`` rows at a time go through the model in one call;
        the smoothing takes them row after row, so the state after the call (estimate,
        variances, ``history_``, ICE history) is bit for bit that of the ``explain_one`` loop,
        for any split of the stream into calls, ``history_every`` or pickling in between.

        Parameters
        ----------
        X : ndarray of shape (B, n_features), DataFrame or list of dict
            Observations in stream order.
        y : array-like of shape (B,), optional
            Their labels (only told to River classifiers, which learn their class set).

        Returns
        -------
        ndarray of shape (n_outputs, n_grid)
            The PD values after the last row (:attr:`importances_`).

        Raises
        ------
        ModelEvaluationError
            If a model call raises: the parts of the batch before it are kept, the failing
            part is taken back whole, and the message says which rows were kept and how to
            go on (see ``IncrementalExplainer.explain_many``).
        """
        return super().explain_many(X, y)

    @property
    def pd_(self) -> Any:
        """The current iPDP as a :class:`~ixplain.results.PartialDependence`.

        Raises
        ------
        NotStartedError
            (a ``ValueError`` and ``AttributeError``) before the first explained observation.
        """
        grid, mean, se, W, n_eff = self._current()
        model = self._model
        return PartialDependence(
            grid_values=[grid],
            average=mean,
            individual=self._individual(grid) if self.kind == "both" else None,
            features=(str(self.feature_name_),),
            feature_kinds=(str(self.feature_kind_),),
            deciles=[self._deciles()],
            kind=self.kind,
            method="incremental",
            output_names=model.output_names if mean.shape[0] > 1 else None,
            target=self.target,
            response_method=model.response_method,
            grid_rules=("custom" if self.grid is not None else "range",),
            n_rows=self.n_explained_,
            extra={
                "weight": W,
                "standard_error": se,
                "n_effective": n_eff,
                "aggregation": self.aggregation,
                "alpha": self.alpha,
                "bias_corrected": self.bias_corrected,
                "n_seen": self.n_seen_,
            },
        )

    @property
    def importances_(self) -> np.ndarray:
        """The current PD values, shape (n_outputs, n_grid) (empty before any observation)."""
        if len(self._active) == 0:
            return np.zeros((0, 0))
        ids = self._sorted_ids()
        st = self._store
        S, _, W, _ = st.gather(ids)
        mean = S if not self.bias_corrected else S / W[:, None]
        return st.unscaled(mean).T.copy()

    @property
    def variances_(self) -> np.ndarray:
        """Weighted variance of the ICE values at each grid value, shape (n_outputs, n_grid)."""
        if len(self._active) == 0:
            return np.zeros((0, 0))
        ids = self._sorted_ids()
        st = self._store
        S, Q, W, _ = st.gather(ids)
        return st.unscaled(_mean_var(S, Q, W)[1], 2).T.copy()

    def confidence_bound(self, delta: float = 0.05) -> np.ndarray:
        """Chebyshev half-width per grid value: ``P(|PD_t(v) - E PD_t(v)| > eps) <= delta``.

        ``eps = sqrt(var(v) * sum w^2 / (sum w)^2 / delta)`` for the weighted mean; for
        ``bias_corrected=False`` it is scaled by the weight and adds the start-up bias bound
        ``1 - weight`` (outputs in [0, 1], as in iPFI).

        Parameters
        ----------
        delta : float in (0, 1], default=0.05

        Returns
        -------
        ndarray of shape (n_outputs, n_grid)
        """
        d = check_float(
            delta, "delta", f"{_OWNER}.confidence_bound", low=0.0, high=1.0, low_inclusive=False
        )
        assert d is not None
        _, _, se, W, _ = self._current()
        bound = se / np.sqrt(d)
        if not self.bias_corrected:
            bound = W * bound + (1.0 - W)
        return bound

    @property
    def ice_history_(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The most recent ICE curves ``(grid_values, values of shape (n_outputs, g))``."""
        return list(self._ice)

    # ------------------------------------------------------------------ pipeline
    def _process(
        self, cols: dict[str, np.ndarray], y: np.ndarray | None, has_nan: bool | None = None
    ) -> None:
        B = len(next(iter(cols.values())))
        if self.feature_name_ is None:
            self._start(cols)
        name = str(self.feature_name_)
        if B == 1 and (has_nan is False or self._clean_row(cols, y)):  # the streaming case
            positions, B_kept = _FIRST, 1
        else:
            cols = {**cols, _ROW: np.arange(B)}  # filtered along with the rows the policy drops
            cols, y, B_kept = apply_nan_policy(self, cols, y, B)
            positions = cols.pop(_ROW)
        if B_kept > 0:
            if y is not None:
                self._model.observe_labels(y)
            values = cols[name]
            parts = [(0, self._core, False)]  # the batch's runs of rows after one core
            row_ids = self._grid_ids(values, cols, y, parts)
            counts = np.fromiter((len(r) for r in row_ids), dtype=np.intp, count=B_kept)
            ids = np.concatenate(row_ids)
            rows = np.repeat(np.arange(B_kept), counts)
            with overflow_reported():  # (a non-finite value: our warning, not numpy's)
                ice = self._evaluate(self._make_table(cols), ids, rows)
                good = self._finite_rows(ice, rows, B_kept, y, positions)
                if self._on_values is not None:
                    self._report_values(ids, counts, ice, positions, cols, y, parts, good)
                if not good.all():  # the rows whose ICE curve is not finite: left out
                    ids, ice = ids[good[rows]], ice[good[rows]]
                    counts, positions = counts[good], positions[good]
                    row_ids = [r for r, g in zip(row_ids, good.tolist()) if g]
                self._store.ensure(ice.shape[1])
                self._accumulate(ids, counts, ice, positions, B)
            self._remember_ice(row_ids, counts, ice)
            if row_ids:
                self._active = row_ids[-1]
            self.n_explained_ += len(row_ids)
            self._prune()
        else:
            empty = np.empty(0, dtype=np.intp)
            self._accumulate(empty, empty, np.empty((0, 1)), positions, B)
        self.n_seen_ += B

    def _part_state(self, full: bool, n_rows: int) -> list[Any]:
        """The base class's, and what a part changes in place before its model call: the
        grid points it registers, the range window's values; with ``full`` also the
        accumulated sums and the ICE history (see ``IncrementalExplainer._part_state``)."""
        undos = super()._part_state(full, n_rows)
        store, window, ice = self._store, self._window, self._ice
        saved, n_keys = dict(store.__dict__), len(store.keys)
        mark = window.mark(n_rows)
        sums = [saved[a].copy() for a in ("_S", "_Q", "_W", "_W2")] if full else None
        curves = list(ice) if full else None

        def undo() -> None:
            keys, index = saved["keys"], saved["index"]
            for key in keys[n_keys:]:
                del index[key]
            del keys[n_keys:]
            store.__dict__.clear()
            store.__dict__.update(saved)
            if sums is not None:
                store._S, store._Q, store._W, store._W2 = sums
            if curves is not None:
                ice.clear()
                ice.extend(curves)
            window.undo_to(mark)

        return [*undos, undo]

    def _report_values(
        self, ids: np.ndarray, counts: np.ndarray, ice: np.ndarray, positions: np.ndarray,
        cols: dict[str, np.ndarray], y: np.ndarray | None, parts: list[_CorePart],
        good: np.ndarray,
    ) -> None:
        """Give the ``_on_values`` hook (the drift detector) each kept row's ICE-curve
        summary (:func:`ixplain.methods._curve_summary.curve_summary`: slope and curvature on the core
        grid, see :meth:`_core_summary`, or the spread across levels), shape
        (B_kept, n_values), and as ``restarts`` the stream rows from which a core fixed again
        is used (``parts``, see :meth:`_grid_ids`: the detector starts the channel of these
        summaries afresh there). A row not in ``good`` (mask (B_kept,): its ICE curve is not
        finite, the row is skipped) is given as not ok, with its summary of zeros."""
        from ._curve_summary import curve_summary

        if not good.all():
            ice = np.where(good[np.repeat(np.arange(len(counts)), counts)][:, None], ice, 0.0)
        restarts: list[int] = []
        if self.feature_kind_ == "numeric":
            values, ok = self._core_summary(ids, counts, ice, parts)
            restarts = [int(self.n_seen_ + positions[i]) for i, _, again in parts if again]
        else:
            values, ok = curve_summary(np.zeros(len(ids)), counts, ice, False)
        self._on_values(values, ok & good, self.n_seen_ + positions, cols, y, restarts=restarts)

    def _core_summary(
        self, ids: np.ndarray, counts: np.ndarray, ice: np.ndarray, parts: list[_CorePart]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Slope and curvature of each row's ICE curve on the core grid alone, ``(values
        (B, 2 * n_outputs), ok (B,))``: a row is ok only if its grid holds every value of the
        core its grid came after (``parts``, see :meth:`_grid_ids`; none before the first) -- its other
        grid values are left out."""
        B, k = len(counts), ice.shape[1]
        values, ok = np.zeros((B, 2 * k)), np.zeros(B, dtype=bool)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        ends = [start for start, _, _ in parts[1:]] + [B]
        for (a, core, _), b in zip(parts, ends):
            if core is not None and b > a:
                pairs = slice(offsets[a], offsets[b])
                values[a:b], ok[a:b] = self._core_part(core, ids[pairs], counts[a:b],
                                                       ice[pairs])
        return values, ok

    def _core_part(
        self, core: np.ndarray, ids: np.ndarray, counts: np.ndarray, ice: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_core_summary` of consecutive rows whose grids came after ``core``."""
        from ._curve_summary import curve_summary

        B, k = len(counts), ice.shape[1]
        values, ok = np.zeros((B, 2 * k)), np.zeros(B, dtype=bool)
        index = self._store.index
        core_ids = np.fromiter((index.get(v, -1) for v in core.tolist()), dtype=np.intp)
        if len(core_ids) == 0 or (core_ids < 0).any() or B == 0:
            return values, ok  # a core value is no longer held: no row has it
        where = np.full(len(self._store), -1, dtype=np.intp)
        where[core_ids] = np.arange(len(core_ids))
        pos = where[ids]  # the core position of each (row, grid value) pair, -1 if not core
        rows = np.repeat(np.arange(B), counts)
        covered = np.bincount(rows[pos >= 0], minlength=B) == len(core_ids)  # values distinct
        pairs = np.flatnonzero((pos >= 0) & covered[rows])
        pairs = pairs[np.lexsort((pos[pairs], rows[pairs]))]  # row by row, in core order
        n_ok = int(covered.sum())
        summary, fine = curve_summary(core[pos[pairs]], np.full(n_ok, len(core_ids)),
                                      ice[pairs], True)
        values[covered], ok[covered] = summary, fine
        return values, ok

    def _drift_value_names(self, k: int) -> list[str]:
        """Names of the ``k`` values given to the drift hook (:meth:`_report_values`)."""
        from ._curve_summary import curve_labels

        numeric = self.feature_kind_ == "numeric"
        n_out = k // 2 if numeric else k
        names = self._model.output_names if n_out > 1 else None
        if names is None or len(names) != n_out:
            names = None if n_out == 1 else [str(i) for i in range(n_out)]
        return curve_labels(str(self.feature_name_), numeric, names)

    def _use_grid(self, grid: Any) -> Any:
        """Restart as a probe of the drift detector: empty estimates, a running mean, and a
        fixed grid (``None``: the current one), the same at every check. Returns the grid."""
        if grid is None:
            grid = self._sorted_active()[0] if len(self._active) else None
        self._store = _PointStore()
        self._active = np.empty(0, dtype=np.intp)
        self.__dict__.pop("_sorted_cache", None)
        self._ice.clear()
        self.aggregation = "mean"
        self._core, self._core_miss = None, 0
        if grid is not None:
            self.grid = np.asarray(grid)
            self._cache = ("fixed", self._store.ids([_key(v) for v in self.grid]))
            if self.feature_kind_ == "numeric":
                self._core = np.sort(np.asarray(self.grid, dtype=np.float64))
        return grid

    def _clean_row(self, cols: dict[str, np.ndarray], y: np.ndarray | None) -> bool:
        """Whether the one-row batch has nothing for the NaN policy to act on."""
        if self.nan_policy == "pass":
            return True
        assert self._schema is not None
        for name, kind in zip(self._schema.names, self._schema.kinds):
            if kind == "numeric":
                if not math.isfinite(cols[name][0]):
                    return False
        return y is None or y.dtype.kind != "f" or bool(np.isfinite(y[0]).all())

    def _kind_changed(self, name: str) -> None:
        """The explained feature changed kind before any row (its values were all missing):
        its grid starts again at the next row."""
        if name == self.feature_name_:
            self.feature_name_ = None

    def _feature_name(self, names: Any) -> str:
        """The name of the explained feature among the features ``names`` (a name, or a
        position); ValueError naming it and listing them."""
        feature = self.feature
        if isinstance(feature, numbers.Integral):
            if not 0 <= int(feature) < len(names):
                raise param_error(
                    _OWNER, "feature", f"a feature name or a position in [0, {len(names) - 1}]",
                    feature,
                )
            return str(names[int(feature)])
        if feature not in names:
            raise ValueError(
                f"{_OWNER}: unknown feature {feature!r}. Available features: {list(names)}."
            )
        return str(feature)

    def _start(self, cols: dict[str, np.ndarray]) -> None:
        schema = self._schema
        assert schema is not None
        name = self._feature_name(schema.names)
        kind = schema.kind(name)
        dtype = schema.dtypes[schema.index(name)]
        # datetime64 (tz-aware too), timedelta64, Period, or objects that are all date-like
        dates = date_sort(cols[name], dtype if kind != "numeric" else np.dtype(np.float64))
        if dates is not None:
            raise _datetime_error(name, *dates)
        if self.categorical is not None:
            if not self.categorical and kind != "numeric":
                raise ValueError(
                    f"{_OWNER}: feature {name!r} holds non-numeric values (dtype "
                    f"{schema.dtypes[schema.index(name)]}); use categorical=True."
                )
            kind = "categorical" if self.categorical else "numeric"
        self.feature_name_, self.feature_kind_ = name, kind
        if self.grid is not None:
            grid = np.asarray(self.grid, dtype=np.float64 if kind == "numeric" else object)
            self._cache = ("fixed", self._store.ids([_key(v) for v in grid]))
            if kind == "numeric":
                self._core = np.sort(grid)

    # ------------------------------------------------------------------ grid
    def _grid_ids(
        self, values: np.ndarray, cols: dict[str, np.ndarray], y: np.ndarray | None,
        parts: list[_CorePart],
    ) -> list[np.ndarray]:
        """Per row, the ids of its grid values (row ``i`` sees the range of rows ``< i``);
        appends to ``parts`` (given as ``[(0, core before the batch, False)]``) the
        ``(first row, core, fixed again)`` of each later run of the batch's rows whose grids
        came after the same core (:meth:`_track_core`)."""
        if self.grid is not None:
            assert self._cache is not None
            return [self._cache[1]] * len(values)
        if self.feature_kind_ == "categorical":
            return [self._level_ids(v) for v in values]
        if self.range_source == "storage":
            return self._storage_range_ids(values, cols, y, parts)
        out = []
        window = self._window
        lo_q, hi_q = self.percentiles
        for v in values.tolist():
            missing = not math.isfinite(v)  # NaN and +-inf do not move the range
            if len(window) == 0:
                if missing:
                    out.append(self._point_ids(np.nan))
                    continue
                window.update(v)
            levels = window.levels(self.grid_resolution)
            out.append(self._level_values_ids(levels) if levels is not None else self._range_ids(
                window.percentile(lo_q), window.percentile(hi_q), window.integer_valued))
            self._track_core(out[-1], len(out) - 1, len(window),
                             min(self.range_window, CORE_AFTER), parts)
            if not missing:
                window.update(v)
        return out

    def _storage_range_ids(
        self, values: np.ndarray, cols: dict[str, np.ndarray], y: np.ndarray | None,
        parts: list[_CorePart],
    ) -> list[np.ndarray]:
        storage = self.storage
        assert self._schema is not None
        storage._ensure_schema(self._schema)
        slots = storage._plan(len(values))
        held = storage._cols[str(self.feature_name_)].copy()
        n_held = len(storage)
        out = []
        for v, slot in zip(values.tolist(), slots.tolist()):
            part = held[:n_held]
            finite = np.sort(part[np.isfinite(part)])
            n_range = finite.size
            if n_range == 0:  # the first row's value starts the range
                finite = np.array([v]) if math.isfinite(v) else finite
            out.append(self._storage_grid_ids(finite))
            self._track_core(out[-1], len(out) - 1, n_range, min(storage.size, CORE_AFTER),
                             parts)
            if slot >= 0:
                held[slot] = v
                n_held = max(n_held, slot + 1)
        self._store_rows(cols, slots, y)
        return out

    def _storage_grid_ids(self, finite: np.ndarray) -> np.ndarray:
        """The grid of one row from the storage's ``finite`` values, increasing (the row's
        own value if the storage holds none; NaN if neither: the previous grid)."""
        if finite.size == 0:
            return self._point_ids(np.nan)
        levels = sg.discrete_levels(finite, self.grid_resolution)
        if levels is not None:
            return self._level_values_ids(levels)
        lo, hi = (_sorted_quantile(finite, q) for q in self.percentiles)
        return self._range_ids(lo, hi, bool(np.all(finite == np.floor(finite))))

    def _level_values_ids(self, levels: list[float]) -> np.ndarray:
        """An integer feature with at most ``grid_resolution`` distinct values in the range's
        source (:func:`~ixplain.methods._stream_grid.is_discrete`): its grid is those values,
        as in static PD (scikit-learn's rule)."""
        cache_key = ("levels", tuple(levels))
        if self._cache is None or self._cache[0] != cache_key:
            self._cache = (cache_key, self._store.ids(levels))
        return self._cache[1]

    def _range_ids(self, lo: float, hi: float, integer: bool) -> np.ndarray:
        """The lattice of ``[lo, hi]``; an integer-valued feature's step is at least 1 (never
        a grid value between two integers, which such a feature never takes)."""
        if not hi > lo:
            return self._point_ids(lo)
        R = self.grid_resolution
        if not sg.keep_step(lo, hi, self._step, R):
            self._step = sg.choose_step(lo, hi, R)
        step = self._step
        assert step is not None
        if integer and step[1] < 0:  # finer than 1: the hysteresis keeps it, the grid does not
            step = (1, 0)
        cache_key = (step, *sg.index_bounds(lo, hi, step))
        if self._cache is not None and self._cache[0] == cache_key:
            return self._cache[1]
        values = sg.lattice_from_bounds(cache_key[1], cache_key[2], step)
        if not len(values):  # a range a few floats wide, between two lattice points
            return self._point_ids(float(round((lo + hi) / 2)) if integer else lo)
        ids = self._store.ids(values.tolist())
        self._cache = (cache_key, ids)
        return ids

    def _track_core(self, ids: np.ndarray, row: int, n_range: int, need: int,
                    parts: list[_CorePart]) -> None:
        """After batch row ``row`` got the grid ``ids`` from a range of ``n_range`` values: fix
        the core once the range came from ``need`` values (:data:`CORE_AFTER`, or fewer with a
        smaller window / storage), and fix it again -- the same way, from this row's grid --
        when the ``need`` last rows' grids all missed a core value (the range drifted off it,
        or the step coarsened past it): the range then came from rows of the miss run alone,
        as the first core's came from rows of the stream's start (a window of ``need`` values
        has turned over; a storage's reservoir mostly). Counted on the explainer's kept rows,
        so the same rows for any batching. Only with a drift hook (an attached detector, or
        the detector's copies of the explainer): the core serves nothing else."""
        if self._on_values is None:
            return
        if self._core is None:
            if n_range >= need and not self._fix_core(ids, row, False, parts):
                self._warn_no_core(len(ids))
            return
        if self._covers(ids):
            self._core_miss = 0
            return
        self._core_miss += 1
        if self._core_miss >= need and self._fix_core(ids, row, True, parts):
            self._core_miss = 0
            self._core_epoch += 1

    def _warn_no_core(self, n_grid: int) -> None:
        """Warn once that an attached drift detector gets no summaries: the grid (of
        ``n_grid`` < 3 values) cannot give a core."""
        if self._on_values is None or self.__dict__.get("_warned_core"):
            return
        self._warned_core = True
        warnings.warn(
            f"{_OWNER}: the grid of {self.feature_name_!r} has {n_grid} value(s), fewer than the "
            f"3 a core grid needs, so the drift detector gets no PD summaries (raise "
            f"grid_resolution={self.grid_resolution}, or give a grid of at least 3 values).",
            RuntimeWarning, stacklevel=6,
        )

    def _covers(self, ids: np.ndarray) -> bool:
        """Whether the grid ``ids`` holds every core value (cached for the last grid: rows
        share their grid's array while the range stays on the same lattice points)."""
        cached = self.__dict__.get("_cover_cache")
        if cached is not None and cached[0] is ids and cached[1] is self._core:
            return bool(cached[2])
        assert self._core is not None
        index = self._store.index
        core_ids = [index.get(v, -1) for v in self._core.tolist()]
        covered = min(core_ids) >= 0 and bool(np.isin(core_ids, ids).all())
        self._cover_cache = (ids, self._core, covered)
        return covered

    def _fix_core(self, ids: np.ndarray, row: int, again: bool,
                  parts: list[_CorePart]) -> bool:
        """Fix the core grid of the drift summaries from the grid ``ids`` of batch row ``row``
        (see :meth:`_track_core`): its values without a margin of ``max(2, n // 10)`` at each
        end (less for a grid of fewer than 7 values: at least 3 stay), so the edge points that
        the range's sampling noise adds and removes are never core points. A grid of fewer than
        3 values fixes nothing (a later row's does). Records ``(row, core, again)`` in the
        batch's ``parts``. Returns whether it fixed the core."""
        grid = np.sort(self._store.key_array(True)[ids])
        n = len(grid)
        if n < 3:
            return False
        margin = min(max(2, n // 10), (n - 3) // 2)
        self._core = grid[margin : n - margin].copy()
        parts.append((row, self._core, again))
        return True

    def _point_ids(self, value: float) -> np.ndarray:
        """A degenerate range (one value seen): the grid is that value."""
        if value != value:
            return self._active
        cache_key = ("point", value)
        if self._cache is None or self._cache[0] != cache_key:
            self._cache = (cache_key, self._store.ids([float(value)]))
        return self._cache[1]

    def _level_ids(self, value: Any) -> np.ndarray:
        if not missing_value(value):
            key = _key(value)
            if key not in self._store.index or self._cache is None:
                dates = date_sort((key,), np.dtype(object))
                if dates is not None:
                    raise _datetime_error(str(self.feature_name_), *dates)
                self._store.ids([key])
                self._cache = ("levels", np.arange(len(self._store), dtype=np.intp))
                if len(self._store) == MAX_LEVELS + 1:
                    self._warn_many_levels()
        if self._cache is None:  # only missing levels so far: nothing to evaluate
            return np.empty(0, dtype=np.intp)
        return self._cache[1]

    def _warn_many_levels(self) -> None:
        """Warn once that a categorical feature passed :data:`~ixplain.grids.MAX_LEVELS`
        levels (static PD refuses more; a stream cannot know the count in advance)."""
        warnings.warn(
            f"{_OWNER}: categorical feature {self.feature_name_!r} has more than "
            f"{MAX_LEVELS:,} levels; every row is evaluated at each of them ({MAX_LEVELS + 1:,}"
            " model rows per row, and growing with each new level). An identifier column? "
            "Give grid= with the levels to show.", RuntimeWarning, stacklevel=user_stacklevel())

    def _sorted_ids(self) -> np.ndarray:
        return self._active[self._sorted_active()[1]]

    def _sorted_active(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted grid values, order of ``_active`` that sorts them), cached per active set."""
        cached = getattr(self, "_sorted_cache", None)
        if cached is not None and cached[0] is self._active:
            return cached[1], cached[2]
        grid, order = self._sort_active()
        self._sorted_cache = (self._active, grid, order)
        return grid, order

    def _sort_active(self) -> tuple[np.ndarray, np.ndarray]:
        keys = [self._store.keys[i] for i in self._active]
        if self.feature_kind_ == "numeric":
            grid = np.asarray(keys, dtype=np.float64)
            order = np.argsort(grid, kind="stable")
            return grid[order], order
        rank = self._level_rank()  # levels outside the categories: after them, as seen
        sort_key = (lambda i: keys[i]) if rank is None else (lambda i: rank.get(keys[i], len(rank)))
        try:
            order = np.asarray(sorted(range(len(keys)), key=sort_key), dtype=np.intp)
        except TypeError:
            order = np.arange(len(keys))
        grid = np.empty(len(keys), dtype=object)
        grid[:] = [keys[i] for i in order]
        return grid, order

    def _level_rank(self) -> dict[Any, int] | None:
        """An ordered pandas categorical's levels by their position in its categories (the
        order static PD keeps); ``None`` for other features, whose levels are sorted."""
        schema = self._schema
        if schema is None:
            return None
        dtype = schema.dtypes[schema.index(str(self.feature_name_))]
        if not (is_instance(dtype, "pandas", "CategoricalDtype") and dtype.ordered):
            return None
        return {_key(c): i for i, c in enumerate(dtype.categories)}

    def _deciles(self) -> np.ndarray | None:
        if self.feature_kind_ != "numeric":
            return None
        if self.range_source == "storage":
            held = self.storage._cols[str(self.feature_name_)][: len(self.storage)]
            held = held[~np.isnan(held)]
        else:
            held = self._window.values()
        if not held.size:
            return None
        q = np.arange(10, 100, 10)
        with np.errstate(over="ignore", invalid="ignore"):
            deciles = np.percentile(held, q)
        # values straddling +-1e308: differences overflow; halve them (exact) and double back
        return deciles if np.isfinite(deciles).all() else 2.0 * np.percentile(held / 2.0, q)

    # ------------------------------------------------------------------ computation
    def _evaluate(self, table: Table, ids: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """ICE values of the pairs (row ``rows[i]``, grid value ``ids[i]``): shape (k, n_outputs),
        from the same batched ICE function as static PD (:func:`~ixplain.methods.pdp.ice_predict`)."""
        if len(ids) == 0:  # nothing to evaluate yet (only missing levels seen)
            return np.empty((0, max(1, self._store.n_outputs)))
        name = str(self.feature_name_)
        keys = self._store.key_array(self.feature_kind_ == "numeric")
        if self._needs_upcast(table, keys[ids]):
            table = replace(table, upcast=table.upcast | {name})
        out, _ = ice_predict(self._model, table, [name], [keys], rows, ids, owner=_OWNER)
        return out

    def _finite_rows(self, ice: np.ndarray, rows: np.ndarray, B: int, y: np.ndarray | None,
                     positions: np.ndarray) -> np.ndarray:
        """The mask (B,) of the rows whose ICE values (pairs ``ice`` of rows ``rows``) are all
        finite; the others (a NaN or +-inf at some grid value) are counted in ``n_skipped_``
        with the skip warning (:meth:`IncrementalExplainer._warn`)."""
        bad_pairs = ~np.isfinite(ice).all(axis=1)
        if not bad_pairs.any():
            return np.ones(B, dtype=bool)
        bad = np.bincount(rows[bad_pairs], minlength=B) > 0
        n_bad = int(bad.sum())
        self.n_skipped_ += n_bad
        i = int(np.flatnonzero(bad)[0])
        warn_skipped(self, "values", f"ICE curves that were not finite, first at stream row "
                     f"{self.n_seen_ + int(positions[i])}: the model returned NaN or inf at a "
                     f"value of feature {self.feature_name_!r}", n_bad, B)
        return ~bad

    def _needs_upcast(self, table: Table, grid_values: np.ndarray) -> bool:
        """An integer 2-D array source and non-integer grid values: the model gets floats
        (never truncated grid values; :attr:`Table.upcast` semantics)."""
        dtype = table.schema.array_dtype
        if self.feature_kind_ != "numeric" or dtype is None or np.dtype(dtype).kind not in "iub":
            return False
        values = np.asarray(grid_values, dtype=np.float64)
        return bool(np.any(values != np.round(values)))

    def _accumulate(
        self, ids: np.ndarray, counts: np.ndarray, ice: np.ndarray, positions: np.ndarray, B: int
    ) -> None:
        """Smooth the kept rows in segments that end where a history snapshot is due.

        ``positions`` are the kept rows' positions among the ``B`` received rows (skipped rows
        still count towards ``n_seen_`` and the snapshot schedule).
        """
        d, c = (1.0, 1.0) if self.aggregation == "mean" else (1.0 - self.alpha, self.alpha)
        every = self.history_every
        n0 = self.n_seen_
        if B == 1 and len(counts) == 1 and (not every or (n0 + 1) % every):
            self._store.accumulate(ids, _FIRST, ice, 1, d, c)  # one row, no snapshot due
            return
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        start = 0
        if every:
            for m in range((n0 // every + 1) * every, n0 + B + 1, every):
                stop = int(np.searchsorted(positions, m - n0 - 1, side="right"))
                self._apply(ids, offsets, ice, start, stop, d, c)
                if stop > 0:
                    self._active = ids[offsets[stop - 1] : offsets[stop]]
                if len(self._active):
                    self._snapshot(m)
                start = stop
        self._apply(ids, offsets, ice, start, len(counts), d, c)

    def _apply(
        self, ids: np.ndarray, offsets: np.ndarray, ice: np.ndarray, start: int, stop: int,
        d: float, c: float,
    ) -> None:
        if stop <= start:
            return
        sl = slice(offsets[start], offsets[stop])
        rows = np.repeat(np.arange(stop - start), np.diff(offsets[start : stop + 1]))
        self._store.accumulate(ids[sl], rows, ice[sl], stop - start, d, c)

    def _snapshot(self, n_seen: int) -> None:
        grid, mean, _, _, _ = self._current()
        self.history_.append(PDSnapshot(n_seen, mean, self.variances_, grid))

    def _current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(grid (g,), average (k, g), standard error (k, g), weight (g,), n_effective (g,))."""
        if len(self._active) == 0:
            seen = self.n_seen_
            raise NotStartedError(
                f"This {_OWNER} has not explained any observation yet; call explain_one or "
                "explain_many first." if not seen or self.n_skipped_ < seen else
                f"This {_OWNER} has not explained any observation yet: all {seen} seen were "
                "skipped (n_skipped_: NaN inputs, or ICE curves that were not finite; the "
                "warning said why)."
            )
        grid, order = self._sorted_active()
        ids = self._active[order]
        st = self._store
        S, Q, W, W2 = st.gather(ids)
        mean, var = _mean_var(S, Q, W)
        se = np.sqrt(var * (W2 / W**2)[:, None])
        if not self.bias_corrected:
            mean, se = mean * W[:, None], se * W[:, None]
        mean, se = st.unscaled(mean), st.unscaled(se)
        return grid, mean.T.copy(), se.T.copy(), W, W**2 / W2

    def _remember_ice(self, row_ids: list[np.ndarray], counts: np.ndarray, ice: np.ndarray) -> None:
        if self.ice_history == 0:
            return
        n = len(row_ids)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        keys = self._store.key_array(self.feature_kind_ == "numeric")
        for r in range(max(0, n - self.ice_history), n):
            grid = keys[row_ids[r]]
            self._ice.append((grid, ice[offsets[r] : offsets[r + 1]].T.copy()))

    def _individual(self, grid: np.ndarray) -> np.ndarray:
        """Recent ICE curves on the current grid; NaN where a curve was not evaluated."""
        k = self._store.n_outputs
        out = np.full((k, len(self._ice), len(grid)), np.nan)
        position = {_key(v): j for j, v in enumerate(grid)}
        for r, (g, values) in enumerate(self._ice):
            for jj, v in enumerate(g):
                j = position.get(_key(v))
                if j is not None:
                    out[: values.shape[0], r, j] = values[:, jj]
        return out

    def _prune(self) -> None:
        """Bound memory: drop the lowest-weight inactive values beyond 8 * grid_resolution."""
        st = self._store
        limit = 8 * self.grid_resolution + len(self._active)
        if self.grid is not None or self.feature_kind_ != "numeric" or len(st) <= limit:
            return
        inactive = np.setdiff1d(np.arange(len(st)), self._active)
        n_drop = len(st) - limit
        drop = inactive[np.argsort(st.weights()[inactive], kind="stable")[:n_drop]]
        keep = np.setdiff1d(np.arange(len(st)), drop)
        mapping = st.keep(keep)
        self._active = mapping[self._active]
        self._cache = None


class NotStartedError(ValueError, AttributeError):
    """An incremental explainer was asked for its estimate before it explained anything."""


def _sorted_quantile(values: np.ndarray, q: float) -> float:
    """``np.quantile(values, q)`` (linear interpolation) of an already sorted array."""
    pos = q * (values.size - 1)
    i = int(pos)
    if i >= values.size - 1:
        return float(values[-1])
    return float(sg.lerp(float(values[i]), float(values[i + 1]), pos - i))


def _mean_var(S: np.ndarray, Q: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean and variance (each (n_points, n_outputs)) from the sums ``S = sum w f``,
    ``Q = sum w f**2`` and ``W = sum w`` (n_points,) of :class:`_PointStore` (in its units,
    ``2**-shift``). Where ``Q`` overflowed float64 (the store's scaling keeps the first values'
    squares in range; values grown far beyond them) the variance is ``inf``, without numpy's
    overflow warnings (the mean is still right).

    Examples
    --------
    >>> mean, var = _mean_var(np.array([[2e300]]), np.array([[np.inf]]), np.array([2.0]))
    >>> mean, var
    (array([[1.e+300]]), array([[inf]]))
    """
    with np.errstate(over="ignore", invalid="ignore"):
        mean = S / W[:, None]
        second = Q / W[:, None]
        var = np.where(np.isinf(second), np.inf, np.maximum(second - mean**2, 0.0))
    return mean, var


def _int(value: Any, name: str, min_value: int) -> int:
    checked = check_int(value, name, _OWNER, min_value=min_value)
    assert checked is not None
    return checked


def _key(value: Any) -> Any:
    """A hashable grid key: python floats for numbers, the value itself otherwise."""
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _datetime_error(name: str, sort: str, what: str) -> ValueError:
    """The refusal of a feature of dates, datetimes, durations or periods (``sort`` and
    ``what`` from :func:`~ixplain._validation.date_sort`)."""
    return refuse_datetime(_OWNER, name, what, (
        "its grid would get one value per distinct value, without end (partial_dependence "
        "and IncrementalALE refuse them too)."), sort)


def _check_grid(grid: Any) -> np.ndarray | None:
    if isinstance(grid, str):
        check_options(grid, "grid", _OWNER, ("range",))
        return None
    try:
        arr = np.asarray(grid)
    except Exception:
        arr = np.empty(0)
    rule = "'range' or a 1-D array of distinct, non-missing values"
    if arr.ndim != 1 or arr.size == 0:
        raise param_error(_OWNER, "grid", rule, grid)
    keys = [_key(v) for v in arr]
    if any(missing_value(v) for v in keys) or len(set(keys)) != len(keys):
        raise param_error(_OWNER, "grid", rule, grid)
    if arr.dtype.kind in "iuf":
        return np.sort(arr.astype(np.float64))
    return arr


def _check_percentiles(percentiles: Any) -> tuple[float, float]:
    rule = "a pair (low, high) with 0 <= low < high <= 1"
    try:
        lo, hi = (float(p) for p in percentiles)
    except (TypeError, ValueError):
        raise param_error(_OWNER, "percentiles", rule, percentiles) from None
    if not (0.0 <= lo < hi <= 1.0):
        raise param_error(_OWNER, "percentiles", rule, percentiles)
    return lo, hi
