"""Incremental partial dependence (iPDP) for models that learn on a data stream.

Per observation ``x_t`` the explanation function is the observation's ICE curve on the grid,
``lambda_t(v) = f_t(x_t with x_S := v)``; the iPDP smooths these curves over time, one estimate per
grid value ``v``.
"""

from __future__ import annotations

import math
import numbers
from collections import deque
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np

from .._numeric import overflow_reported
from .._validation import (
    check_float,
    check_int,
    check_options,
    date_sort,
    param_error,
)
from ..models import as_model
from ..observers import observers_of
from ..results.partial_dependence import PartialDependence
from ..tabular import Table
from . import _stream_grid as sg
from ._incremental import IncrementalExplainer
from ._ipdp_core import CORE_AFTER, OWNER  # noqa: F401 (CORE_AFTER: re-exported)
from ._ipdp_grid import StreamGrid, check_grid, check_percentiles, datetime_error
from ._pd_points import PointStore, grid_key, mean_var
from ._skips import apply_nan_policy, warn_skipped
from .pdp import ice_predict

__all__ = ["IncrementalPDP", "NotStartedError", "PDSnapshot"]

_PointStore = PointStore  # (the name in pickles made before the grid points had their module)

_ROW = "\x00row"  # private column: positions of the rows kept by the NaN policy
_FIRST = np.zeros(1, dtype=np.intp)


#: Largest ``grid_resolution`` of an IncrementalPDP: each observation costs one model row per
#: grid value, and a curve has no use for more points than a screen has pixels.
MAX_GRID_RESOLUTION = 10_000



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




class IncrementalPDP(StreamGrid, IncrementalExplainer):
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

    _owner = OWNER
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
            raise param_error(OWNER, "feature", "a str or an int", feature, exc=TypeError)
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
        self.grid = check_grid(grid)
        self.range_source = check_options(
            range_source, "range_source", OWNER, ("window", "storage")
        )
        self.range_window = _int(range_window, "range_window", 1)
        self.percentiles = check_percentiles(percentiles)
        if categorical is not None and not isinstance(categorical, (bool, np.bool_)):
            raise param_error(OWNER, "categorical", "a bool or None", categorical, exc=TypeError)
        self.categorical = categorical
        self.kind = check_options(kind, "kind", OWNER, ("average", "both"))
        self.ice_history = _int(ice_history, "ice_history", 0)
        self.target = target
        if target is not None:
            self._model = as_model(
                model, response_method=response_method, target=target, owner=OWNER
            )
        self.model_ = self._model
        self.feature_name_: str | None = None
        self.feature_kind_: str | None = None
        self._store = PointStore()
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
        return st.unscaled(mean_var(S, Q, W)[1], 2).T.copy()

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
            delta, "delta", f"{OWNER}.confidence_bound", low=0.0, high=1.0, low_inclusive=False
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
                    OWNER, "feature", f"a feature name or a position in [0, {len(names) - 1}]",
                    feature,
                )
            return str(names[int(feature)])
        if feature not in names:
            raise ValueError(
                f"{OWNER}: unknown feature {feature!r}. Available features: {list(names)}."
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
            raise datetime_error(name, *dates)
        if self.categorical is not None:
            if not self.categorical and kind != "numeric":
                raise ValueError(
                    f"{OWNER}: feature {name!r} holds non-numeric values (dtype "
                    f"{schema.dtypes[schema.index(name)]}); use categorical=True."
                )
            kind = "categorical" if self.categorical else "numeric"
        self.feature_name_, self.feature_kind_ = name, kind
        if self.grid is not None:
            grid = np.asarray(self.grid, dtype=np.float64 if kind == "numeric" else object)
            self._cache = ("fixed", self._store.ids([grid_key(v) for v in grid]))
            if kind == "numeric":
                self._core = np.sort(grid)

    # ------------------------------------------------------------------ grid
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
        out, _ = ice_predict(self._model, table, [name], [keys], rows, ids, owner=OWNER)
        return out

    def _finite_rows(self, ice: np.ndarray, rows: np.ndarray, B: int, y: np.ndarray | None,
                     positions: np.ndarray) -> np.ndarray:
        """The mask (B,) of the rows whose ICE values (pairs ``ice`` of rows ``rows``) are all
        finite; the others (a NaN or +-inf at some grid value) are counted in ``n_skipped_``
        with the skip warning (:func:`~ixplain.methods._skips.warn_skipped`)."""
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
        snapshot = PDSnapshot(n_seen, mean, self.variances_, grid)
        self.history_.append(snapshot)
        for observer in observers_of(self):  # (the grid: the snapshot in history_[-1])
            observer.on_snapshot(n_seen, mean, snapshot.variance)

    def _current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(grid (g,), average (k, g), standard error (k, g), weight (g,), n_effective (g,))."""
        if len(self._active) == 0:
            seen = self.n_seen_
            raise NotStartedError(
                f"This {OWNER} has not explained any observation yet; call explain_one or "
                "explain_many first." if not seen or self.n_skipped_ < seen else
                f"This {OWNER} has not explained any observation yet: all {seen} seen were "
                "skipped (n_skipped_: NaN inputs, or ICE curves that were not finite; the "
                "warning said why)."
            )
        grid, order = self._sorted_active()
        ids = self._active[order]
        st = self._store
        S, Q, W, W2 = st.gather(ids)
        mean, var = mean_var(S, Q, W)
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
        position = {grid_key(v): j for j, v in enumerate(grid)}
        for r, (g, values) in enumerate(self._ice):
            for jj, v in enumerate(g):
                j = position.get(grid_key(v))
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


def _int(value: Any, name: str, min_value: int) -> int:
    checked = check_int(value, name, OWNER, min_value=min_value)
    assert checked is not None
    return checked
