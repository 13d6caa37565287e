"""Accumulated local effects (ALE): first-order curves and second-order (2-way) surfaces.

Partial dependence evaluates every row at every grid value, including combinations of feature
values that never occur when features are correlated. ALE [1]_ averages *local* differences of
the prediction, using only the rows whose value lies in a bin, and accumulates them.

The explanation function
------------------------
For feature ``j`` with grid ``z_0 < z_1 < ... < z_K`` a row ``x`` that falls in bin ``k`` gives

    ``lambda(x) = (k, f(x with x_j := z_k) - f(x with x_j := z_{k-1}))``

(:func:`local_differences`, all rows of a chunk in one model call of ``2 B`` rows). The static
ALE aggregates it per bin: the per-bin (weighted) mean ``Delta_k`` of the differences, from
per-bin sums of the moments of :func:`row_moments` (so chunks, partitions and streams combine
by addition or smoothing). The uncentred curve is ``g(z_0) = 0``, ``g(z_k) = sum_{m <= k}
Delta_m``; the reported curve is centred so that its mean over the data is 0.

Which rows fall in which bin (the three feature kinds)
------------------------------------------------------
``"numeric"``
    Bins ``[z_0, z_1], (z_1, z_2], ..., (z_{K-1}, z_K]`` between quantile edges (the edges are
    data values: ``numpy.quantile(..., method="lower")`` at ``K + 1`` equally spaced
    probabilities, weighted quantiles with ``sample_weight``; duplicates removed). ``K`` is at
    most ``grid_resolution`` and at most ``n_rows // min_bin_size``; bins left with fewer than
    ``min_bin_size`` rows (ties) are merged into a neighbour. Centring as Apley's ``ALEPlot``
    (and PyALE): ``g`` is taken linear within a bin, so the constant removed is
    ``sum_k w_k (g(z_{k-1}) + g(z_k)) / 2`` with ``w_k`` the share of the rows (weights) in bin
    ``k``.
``"discrete"``
    A numeric feature with at most ``grid_resolution + 1`` distinct values, each held by at
    least ``min_bin_size`` rows (otherwise it gets quantile bins, whose edges are then among
    its values, so ``min_bin_size`` always holds): the grid is its levels and a row at level ``k >= 1`` gives the jump from level ``k - 1`` to ``k`` (rows at
    the lowest level give none). Centring: ``sum_k w_k g(z_k)``, ``w_k`` the share at level
    ``k`` (the exact mean of the curve over the rows).
``"categorical"``
    As ``"discrete"`` on an ordering of the levels: the categories' order for an ordered
    pandas Categorical; otherwise (``categorical_order="auto"``) Apley's: levels are placed by
    a one-dimensional classical scaling of the distance ``sum over the other features of the
    Kolmogorov-Smirnov distance (numeric) or total-variation distance (categorical) between
    the level's conditional distributions``, so similar levels are neighbours (ties and the
    sign are resolved towards the sorted order); ``"sorted"`` keeps the sorted levels.

A datetime feature (numpy ``datetime64``, pandas datetime with or without a time zone, or
objects that are all datetimes; durations, ``timedelta64``, alike) is numeric in time order: it is binned on the integer ticks of
its unit (UTC instants for a time zone) by the rules above, the model receives datetimes of the
column's own type at the edges, and ``grid_values`` holds datetimes (``IncrementalALE`` refuses
a datetime feature with the conversion to use).

Missing values are their own case: a row whose value of an explained feature is missing has no
position on the axis, so it enters no bin and not the centring; ``n_missing`` counts it
(``missing="raise"`` refuses such rows instead). Effects are never NaN because of a missing
value. Every row is used: nothing is subsampled.

The band
--------
Given the edges and the bin counts, the ``Delta_k`` are independent means, so the variance of
the centred curve accumulates along it: with ``ale = A @ Delta`` (``A`` the accumulation
followed by the centring), ``Var(ale) = (A * A) @ Var(Delta)`` with ``Var(Delta_k) = sum_i
w_i^2 (d_i - Delta_k)^2 / W_k^2 * n_k / (n_k - 1)`` over the rows of bin ``k``. (A per-bin
interval put around the accumulated value, as PyALE draws, is several times too narrow.)
The differences enter the moments times a power of two (exact; ``ScaledSums`` in
:mod:`ixplain.methods._ale_effects`), so effects above about 1e154, whose squares overflow
float64, keep a finite band, as in :class:`~ixplain.IncrementalALE`.

Second order
------------
For two numeric features the row in cell ``(k, m)`` gives the second difference
``f(z_k, u_m) - f(z_{k-1}, u_m) - f(z_k, u_{m-1}) + f(z_{k-1}, u_{m-1})``; cell means (an empty
cell takes the mean of the nearest non-empty cell, in bin-index units scaled to [0, 1]) are
accumulated over both axes, the two main effects of the accumulated surface are removed and the
result is centred, as in Apley's ``ALEPlot``.

References
----------
.. [1] D. W. Apley, J. Zhu, "Visualizing the effects of predictor variables in black box
   supervised learning models", Journal of the Royal Statistical Society B 82(4), 2020.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._numeric import moment_shift, power_scaled
from .._validation import (
    check_2d,
    check_feature_names,
    check_int,
    check_memory_budget,
    check_options,
    check_sample_weight,
    param_error,
)
from ..grids import feature_deciles
from ..models import DEFAULT_MEMORY_BUDGET, Model, as_model
from ..results.ale import AccumulatedLocalEffects
from ..tabular import Table, UnsupportedInputError, as_table

# The binning (_ale_bins) and the explanation function with its accumulation (_ale_effects) live
# in their own modules; the names below stay importable from here (``as`` marks a re-export).
from ._ale_bins import (
    _OWNER,
    FeatureBins,
    _categorical_bins,
    _interval_bins,
    _numeric_bins,
    _time_axis,
    is_datetime,
)
from ._ale_bins import MAX_SIMILARITY_LEVELS as MAX_SIMILARITY_LEVELS
from ._ale_bins import quantile_edges as quantile_edges
from ._ale_bins import similarity_order as similarity_order
from ._ale_effects import N_MOMENTS as N_MOMENTS
from ._ale_effects import (
    ScaledSums,
    _as_float,
    _bin_sums,
    _Evaluator,
    _fill_empty_1d,
    _fill_empty_2d,
    _first_order,
    accumulated_std,
    accumulation_matrix,
    bin_statistics,
    local_differences,
    row_moments,
    second_order_surface,
)
from ._engine import Explained, Method, RowBatch, register
from .pdp import effect_model

__all__ = ["ALEFunction", "accumulated_local_effects", "local_differences", "row_moments"]

_RESPONSES = ("auto", "predict", "predict_proba", "decision_function")


# ------------------------------------------------------------------------ the engine method
@register
class ALEFunction(Method):
    """The ALE explanation function of a numeric feature on fixed edges, for the engine.

    ``explain`` returns each row's :func:`row_moments` placed in its bin: values of shape
    ``(B, 6, n_outputs, K)``, zero outside the row's bin. Their mean over rows times the number
    of rows is the per-bin sums the static ALE is made of, so every engine driver gives the
    ALE: :func:`~ixplain.methods._engine.explain_rows` (static), ``ixplain.dask.explain``
    (Dask) and :class:`~ixplain.IncrementalALE` (streams). :func:`accumulated_local_effects`
    sums the same moments by bin directly (``numpy.bincount``): the dense per-row layout the
    engine's mean needs costs ``K`` times the memory traffic, measured 7-30x slower at 200,000
    rows than the per-bin sums (which run within 3x of the ``2 n``-prediction floor). With a
    driver's ``sample_weight`` the bin means are the weighted means and the band reads the
    weights as frequencies (``accumulated_local_effects`` uses the sandwich variance instead).

    Parameters
    ----------
    model : Model
        The adapter (:func:`ixplain.as_model`).
    feature : str
    edges : ndarray of shape (K + 1,)
        Strictly increasing edges.
    outside : {"exclude", "clip"}, default="exclude"
        A row outside the edges (or missing) gives zeros (``"exclude"``, as the static ALE)
        or counts in the nearest outer bin (``"clip"``, as the stream before a re-grid).
    owner : str, default="accumulated_local_effects"
        The name error messages start with.
    shift : int or None, default=0
        The differences are multiplied by ``2**shift`` (exact) before their moments are
        formed, so that effects near the float limits (1e300: their squares overflow; 1e-300:
        they underflow) keep finite, non-zero moments; the caller divides back. None: chosen
        at the first batch with a non-zero finite difference (0 for differences within
        ``2**-128 .. 2**128``, else the power of two that brings the largest into [0.5, 1))
        and kept in :attr:`shift` (:class:`~ixplain.IncrementalALE`).

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain.methods._engine import explain_rows
    >>> from ixplain.models import as_model
    >>> from ixplain.tabular import as_table
    >>> X = np.c_[np.linspace(0, 1, 11), np.ones(11)]
    >>> method = ALEFunction(as_model(lambda A: A[:, 0] ** 2), "x0", np.array([0, 0.5, 1]))
    >>> method.result(explain_rows(method, as_table(X))).average.round(3)
    array([[-0.352, -0.102,  0.648]])
    """

    name = "ale"

    def __init__(self, model: Model, feature: str, edges: np.ndarray,
                 outside: str = "exclude", owner: str = _OWNER, shift: int | None = 0) -> None:
        self.model, self.feature, self.owner = model, feature, owner
        self.edges = np.asarray(edges, dtype=np.float64)
        self.outside = outside
        self.shift = shift

    def rows_per_observation(self, table: Table) -> int:
        return 2

    def bins(self, x: np.ndarray) -> np.ndarray:
        """Bin of each value (``-1``: excluded)."""
        if self.outside == "clip":
            clipped = np.clip(x, self.edges[0], self.edges[-1])
            return np.clip(_interval_bins(clipped, self.edges), 0, len(self.edges) - 2)
        return _interval_bins(x, self.edges)

    def explain(self, batch: RowBatch) -> np.ndarray:
        b = self.bins(batch.X.numeric_column(self.feature))
        rows = np.flatnonzero(b >= 0)
        ev = _Evaluator.build(self.model, batch.X, DEFAULT_MEMORY_BUDGET, self.owner)
        probe = rows if len(rows) else np.zeros(1, dtype=np.intp)  # none inside: zeros, but
        lo, hi = self.edges[np.maximum(b[probe], 0)], self.edges[np.maximum(b[probe], 0) + 1]
        diffs = local_differences(ev.predict, probe, [(self.feature, lo, hi)])  # the outputs
        if self.shift is None:
            self.shift = moment_shift(diffs[:len(rows)])
        diffs = power_scaled(diffs, self.shift)  # (beyond the range: inf, a skipped row)
        moments = row_moments(diffs)[:len(rows)]
        out = np.zeros((batch.n_rows,) + moments.shape[1:] + (len(self.edges) - 1,))
        out[rows, :, :, b[rows]] = moments
        return out

    def result(self, explained: Explained) -> AccumulatedLocalEffects:
        sums = explained.mean.get() * explained.mean.weight_sum
        return ale_from_sums(self.feature, self.edges, sums, rule="custom", shift=self.shift)

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(300, 3))
        model = as_model(lambda A: np.sin(A[:, 0]) * A[:, 1] + A[:, 2], input_kind="numpy")
        return cls(model, "x0", np.linspace(-2, 2, 9)), X, np.zeros(300)


def ale_from_sums(feature: str, edges: np.ndarray, sums: np.ndarray, rule: str = "custom",
                  shift: int | None = 0, **fields: Any) -> AccumulatedLocalEffects:
    """A numeric first-order :class:`~ixplain.results.AccumulatedLocalEffects` from per-bin
    sums of :func:`row_moments` (shape (6, n_outputs, K)) of the differences times
    ``2**shift`` (:attr:`ALEFunction.shift`; divided back here); ``fields`` fill the rest."""
    mean, var, count = bin_statistics(sums)
    mean = _fill_empty_1d(mean)
    A = accumulation_matrix("numeric", sums[0, 0] if sums[0, 0].sum() > 0 else count + 1.0)
    values = {"deciles": [None], "n_rows": int(count.sum()), "n_missing": (0,),
              "n_outside": (0,), **fields}
    return AccumulatedLocalEffects(
        grid_values=[edges], average=power_scaled(mean @ A.T, -(shift or 0)),
        std=power_scaled(accumulated_std(var, A), -(shift or 0)),
        bin_counts=count, features=(feature,), feature_kinds=("numeric",), edge_rule=(rule,),
        **values,
    )


# ------------------------------------------------------------------------ static driver
def _chunk_rows(n_cols: int, n_settings: int, batch_rows: int) -> int:
    """Rows per chunk: about 2**20 stacked cells, within the model-call budget."""
    return max(1, min(max(1024, 2**20 // max(1, n_cols * n_settings)), batch_rows // n_settings))


def _corners(fb: FeatureBins, b: np.ndarray) -> tuple[str, np.ndarray, np.ndarray]:
    return fb.name, fb.grid[b], fb.grid[b + 1]


def _accumulate_sums(
    evaluator: _Evaluator, fbs: list[FeatureBins], weights: np.ndarray | None
) -> tuple[np.ndarray, ScaledSums]:
    """Per-cell sums of :func:`row_moments` over every usable row, in row chunks (shape (6,
    n_outputs, *bin_shape)), in units of ``2**-shift`` of the model's, and the accumulator
    that knows the shift (:class:`ScaledSums`)."""
    usable = np.flatnonzero(np.all([fb.bins >= 0 for fb in fbs], axis=0))
    shape = tuple(fb.n_bins for fb in fbs)
    n_cells = int(np.prod(shape))
    step = _chunk_rows(len(evaluator.table.names), 2 ** len(fbs), evaluator.batch_rows)
    acc = ScaledSums()  # (effects above ~1e154: their squares overflowed, the band was NaN)
    for s in range(0, len(usable), step):
        rows = usable[s:s + step]
        bs = [fb.bins[rows] for fb in fbs]
        diffs = local_differences(evaluator.predict, rows, [_corners(f, b) for f, b in zip(fbs, bs)])
        if not np.isfinite(diffs).all():  # non-finite predictions were refused: overflow
            _refuse_infinite(diffs, rows, evaluator.model)
        cell = bs[0] if len(fbs) == 1 else bs[0] * shape[1] + bs[1]
        w = None if weights is None else weights[rows]
        acc.add(diffs, lambda d, c=cell, w=w: _bin_sums(c, row_moments(d, w), n_cells))
    if acc.total is None:  # no usable row: no model call, so no output count either
        raise ValueError(
            f"{_OWNER}: no row has a value of {[fb.name for fb in fbs]} inside a bin; nothing "
            "to accumulate."
        )
    return acc.total.reshape(acc.total.shape[:2] + shape), acc


def _refuse_infinite(diffs: np.ndarray, rows: np.ndarray, model: Model) -> None:
    from .._validation import ModelEvaluationError

    bad = rows[~np.isfinite(diffs).all(axis=1)]
    raise ModelEvaluationError(
        f"{_OWNER}: the difference of {model.describe()}'s predictions across a bin is "
        f"infinite for {len(bad)} rows (first: row {int(bad[0])} of X; the predictions "
        "overflow float64 when subtracted), so the effect would be infinite or NaN. Rescale "
        "or clip the model's output, or use custom_edges inside the range where it is small.")


def _level_weights(fb: FeatureBins, weights: np.ndarray | None) -> np.ndarray:
    idx = fb.bins if fb.kind == "numeric" else fb.position
    keep = idx >= 0
    w = None if weights is None else weights[keep]
    size = fb.n_bins if fb.kind == "numeric" else fb.n_bins + 1
    return np.bincount(idx[keep], weights=w, minlength=size).astype(np.float64)


def _resolve_features(features: Any, table: Table) -> list[str]:
    names = list(table.names)
    rule = "an int or str naming a column of X, or a sequence of 1 or 2 of them"
    items = [features] if isinstance(features, (str, numbers.Integral)) else features
    if isinstance(items, (bool, np.bool_)) or not isinstance(items, (list, tuple, np.ndarray)):
        raise param_error(_OWNER, "features", rule, features, exc=TypeError)
    if not 1 <= len(items) <= 2:
        raise param_error(_OWNER, "features", rule, features)
    out = []
    for item in items:
        if isinstance(item, (bool, np.bool_)):
            raise param_error(_OWNER, "features", rule, features, exc=TypeError)
        if isinstance(item, numbers.Integral) and 0 <= int(item) < len(names):
            out.append(names[int(item)])
        elif isinstance(item, str) and item in names:
            out.append(item)
        else:
            raise ValueError(
                f"The 'features' parameter of {_OWNER} names an unknown feature {item!r}. "
                f"Available features: {names}."
            )
    if len(set(out)) != len(out):
        raise param_error(_OWNER, "features", f"{rule}, without duplicates", features)
    return out


def _check_custom_edges(custom: Any, features: list[str], table: Table) -> dict[str, Any]:
    if custom is None:
        return {}
    if not isinstance(custom, dict):
        raise param_error(_OWNER, "custom_edges", "None or a dict {feature: increasing edges}",
                          custom, exc=TypeError)
    out: dict[str, Any] = {}
    names = list(table.names)
    for key, values in custom.items():
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and key not in features:
            if not 0 <= int(key) < len(names):
                raise ValueError(f"The 'custom_edges' parameter of {_OWNER} has the key {key!r}, "
                                 f"which is no column index (the data has {len(names)} columns).")
            key = names[int(key)]  # a column index, as ``features`` accepts
        if key not in features:
            raise ValueError(f"The 'custom_edges' parameter of {_OWNER} has the key {key!r}, "
                             f"which is not an explained feature ({features}).")
        if is_datetime(table, str(key)):  # checked against the column's unit and zone
            out[str(key)] = values
            continue
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            arr = np.full(1, np.nan)  # the message below
        if arr.ndim != 1 or len(arr) < 2 or not np.all(np.diff(arr) > 0) \
                or not np.isfinite(arr).all():
            raise ValueError(
                f"The 'custom_edges' parameter of {_OWNER} must map explained features to at "
                f"least 2 finite, strictly increasing edges. Got {key!r}: {values!r} instead."
            )
        out[str(key)] = arr
    return out


def _select_output(values: list[np.ndarray | None], model: Model, target: Any) -> list[Any]:
    if model.is_classifier or target is None:
        return values
    n_out = values[0].shape[0]  # type: ignore[union-attr]
    if isinstance(target, bool) or not isinstance(target, numbers.Integral) or not (
        0 <= int(target) < n_out
    ):
        raise param_error(_OWNER, "target",
                          f"None or an output index in [0, {n_out - 1}] for this regressor", target)
    t = int(target)
    return [None if v is None else v[t:t + 1] for v in values]


def _prepare_table(X: Any, feature_names: Any, categorical_features: Any) -> Table:
    check_2d(X, _OWNER)
    feature_names = check_feature_names(feature_names, _OWNER)  # (its TypeError is not X's)
    try:
        table = as_table(X, feature_names, owner=_OWNER)
    except UnsupportedInputError as exc:
        raise param_error(_OWNER, "X", "a 2-D array, a pandas/polars DataFrame or dict records",
                          X, exc=TypeError) from exc
    if table.n_rows == 0:
        raise ValueError(f"{_OWNER}: X has 0 rows; ALE needs rows to bin.")
    if categorical_features is not None:
        cats = _resolve_features(categorical_features, table) if isinstance(
            categorical_features, (str, numbers.Integral)) else [
            table.names[c] if isinstance(c, numbers.Integral) else str(c)
            for c in categorical_features]
        for c in cats:
            if c not in table.names:
                raise ValueError(
                    f"The 'categorical_features' parameter of {_OWNER} names an unknown feature "
                    f"{c!r}. Available features: {list(table.names)}.")
        kinds = tuple("categorical" if n in cats else k
                      for n, k in zip(table.names, table.schema.kinds))
        from dataclasses import replace

        table = replace(table, schema=replace(table.schema, kinds=kinds))
    return table


def _feature_bins(table: Table, feats: list[str], w: np.ndarray | None, grid_resolution: int,
                  min_bin_size: int, custom: dict[str, np.ndarray], order: str) -> list[FeatureBins]:
    out = []
    for name in feats:
        if table.schema.kind(name) == "categorical" and not is_datetime(table, name):
            if len(feats) == 2:
                raise ValueError(
                    f"{_OWNER}: 2-way ALE needs two numeric features; {name!r} is categorical."
                )
            if name in custom:
                raise ValueError(f"{_OWNER}: custom_edges cannot be given for the categorical "
                                 f"feature {name!r}.")
            out.append(_categorical_bins(table, name, order))
        else:
            out.append(_numeric_bins(table, name, w, grid_resolution, min_bin_size,
                                     custom.get(name), interval_only=len(feats) == 2))
    return out


# ------------------------------------------------------------------------ public
def accumulated_local_effects(
    estimator: Any,
    X: Any,
    features: Any,
    *,
    sample_weight: Any = None,
    categorical_features: Any = None,
    feature_names: Any = None,
    response_method: str = "auto",
    target: Any = None,
    grid_resolution: int = 20,
    min_bin_size: int = 10,
    custom_edges: dict[str, Any] | None = None,
    categorical_order: str = "auto",
    missing: str = "exclude",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    input_kind: str = "auto",
) -> AccumulatedLocalEffects:
    """Accumulated local effects (ALE) of a feature, or second-order ALE of a numeric pair.

    Parameters
    ----------
    estimator : estimator, River model, Booster or callable
        The fitted model (see :func:`ixplain.as_model`).
    X : ndarray of shape (n_rows, n_features), pandas/polars DataFrame or list of dict
        The rows; all of them are used (no subsampling).
    features : int, str, or sequence of 1 or 2 of them
        One feature (first-order ALE) or two numeric features (second-order ALE).
    sample_weight : array-like of shape (n_rows,), default=None
        Row weights: of the bin means, of the quantile edges and of the centring.
    categorical_features : sequence of int or str, default=None
        Features to treat as categorical (non-numeric columns are anyway).
    feature_names : sequence of str, default=None
        Names of the columns of an array (default ``x0, x1, ...``).
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
        As :func:`ixplain.partial_dependence` (classifiers: probabilities; binary: the
        positive class).
    target : object, default=None
        A class of a multiclass classifier, or an output index of a multi-output regressor.
    grid_resolution : int, default=20
        Largest number of quantile bins of a numeric feature; a numeric feature with at most
        ``grid_resolution + 1`` distinct values, each on at least ``min_bin_size`` rows, is
        ``"discrete"`` (one step per level).
    min_bin_size : int, default=10
        Smallest number of rows per quantile bin or discrete level: at most
        ``n_rows // min_bin_size`` bins, and bins left smaller by ties are merged (the bins
        never shrink to a few rows each, whatever ``grid_resolution``). Custom edges and
        categorical levels are used as they are (``bin_counts`` shows their rows).
    custom_edges : dict, default=None
        ``{feature: increasing edges}`` for numeric features (rows outside are left out and
        counted in ``n_outside``).
    categorical_order : {"auto", "sorted"}, default="auto"
        Order of unordered categorical levels: ``"auto"`` by similarity of the other features
        (module docstring; a feature with more than 100 levels is sorted instead, with a
        ``UserWarning``: the similarity compares every pair of levels), ``"sorted"`` by value.
        Ordered pandas categories keep their order.
    missing : {"exclude", "raise"}, default="exclude"
        Rows with a missing value of an explained feature (NaN, or an infinite number): left
        out of the bins and the centring, counted in ``n_missing`` (``"exclude"``), or a
        ``ValueError``. A model that returns NaN or +-inf raises ``ModelEvaluationError``
        naming the rows (a bin of NaN differences is not an effect).
    memory_budget : int, default=268435456
        Bytes of model input per model call. At least
        ``MIN_MEMORY_BUDGET`` (4096 bytes; a smaller budget is refused).
    input_kind : {"auto", "numpy", "pandas", "polars", "records"}, default="auto"
        The input type a callable receives.

    Returns
    -------
    AccumulatedLocalEffects
        ``grid_values`` (edges or levels), ``average`` of shape (n_outputs, K + 1) (or
        (n_outputs, K1 + 1, K2 + 1)), ``std``, ``bin_counts`` and the settings used.

    Raises
    ------
    ValueError
        For a parameter with a wrong value (the message names it), an unknown feature, a
        feature without non-missing values or with fewer than ``min_bin_size`` of them
        (numeric, without ``custom_edges``), a categorical feature in a 2-way request, a
        constant feature in a 2-way request, missing values with ``missing="raise"``.
    TypeError
        For a parameter of the wrong type.
    ModelEvaluationError
        If the model raises.

    References
    ----------
    .. [1] D. W. Apley, J. Zhu, "Visualizing the effects of predictor variables in black box
       supervised learning models", Journal of the Royal Statistical Society B 82(4), 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import accumulated_local_effects
    >>> x = np.linspace(0.0, 1.0, 101)
    >>> X = np.c_[x, x]  # perfectly correlated; the model uses x1 only
    >>> ale = accumulated_local_effects(lambda A: A[:, 1] ** 2, X, "x0", grid_resolution=4)
    >>> ale.grid_values[0], ale.average.round(3)
    (array([0.  , 0.25, 0.5 , 0.75, 1.  ]), array([[0., 0., 0., 0., 0.]]))
    """
    check_options(response_method, "response_method", _OWNER, _RESPONSES)
    check_options(categorical_order, "categorical_order", _OWNER, ("auto", "sorted"))
    check_options(missing, "missing", _OWNER, ("exclude", "raise"))
    grid_resolution = int(check_int(grid_resolution, "grid_resolution", _OWNER, min_value=1) or 1)
    min_bin_size = int(check_int(min_bin_size, "min_bin_size", _OWNER, min_value=1) or 1)
    memory_budget = check_memory_budget(memory_budget, _OWNER)
    check_options(input_kind, "input_kind", _OWNER, ("auto", "numpy", "pandas", "polars", "records"))
    table = _prepare_table(X, feature_names, categorical_features)
    feats = _resolve_features(features, table)
    custom = _check_custom_edges(custom_edges, feats, table)
    weights = check_sample_weight(sample_weight, table.n_rows, _OWNER)
    model = effect_model(estimator, response_method, target, input_kind, _OWNER)
    fbs = _feature_bins(table, feats, weights, grid_resolution, min_bin_size, custom,
                        categorical_order)
    for fb in fbs:
        if missing == "raise" and fb.n_missing:
            raise ValueError(f"{_OWNER}: feature {fb.name!r} has {fb.n_missing} missing values "
                             "(missing='raise'; missing='exclude' leaves such rows out).")
        if len(fbs) == 2 and fb.n_bins < 1:
            raise ValueError(f"{_OWNER}: feature {fb.name!r} is constant; 2-way ALE needs two "
                             "numeric features with at least two values each.")
    return _compute(model, table, fbs, weights, memory_budget, target)


def _deciles(table: Table, fb: FeatureBins) -> Any:
    """Deciles of a numeric feature's values (datetimes for a datetime feature)."""
    if fb.kind == "categorical":
        return None
    time = _time_axis(table.column(fb.name), fb.name)
    if time is None:
        return feature_deciles(table.numeric_column(fb.name))
    ticks = np.where(time.missing, np.nan, time.ticks.astype(np.float64))
    return time.values(np.round(feature_deciles(ticks)).astype(np.int64))


def _compute(model: Model, table: Table, fbs: list[FeatureBins], weights: np.ndarray | None,
             memory_budget: int, target: Any) -> AccumulatedLocalEffects:
    evaluator = _Evaluator.build(model, table, memory_budget)
    extra: dict[str, Any] = {}
    if len(fbs) == 1 and fbs[0].n_bins == 0:  # constant feature: no step, the curve is 0
        n_out = _as_float(model.predict(table.take(np.arange(1))), model).reshape(1, -1).shape[1]
        ale, std, counts = np.zeros((n_out, 1)), np.zeros((n_out, 1)), np.zeros(0)
        level_counts = _level_weights(fbs[0], None)
    else:
        sums, acc = _accumulate_sums(evaluator, fbs, weights)
        if len(fbs) == 1 and fbs[0].kind == "numeric":  # bins: the sums hold the weights
            ale, std, counts = _first_order(fbs[0], sums, sums[0, 0])
            level_counts = counts
            extra["empty_bins"] = sums[0, 0] == 0  # no rows, or only rows of weight 0
        elif len(fbs) == 1:  # levels: the lowest level's rows give no difference
            ale, std, counts = _first_order(fbs[0], sums, _level_weights(fbs[0], weights))
            level_counts = _level_weights(fbs[0], None)
        else:
            mean, _, counts = bin_statistics(sums)
            ale = second_order_surface(_fill_empty_2d(mean), sums[0, 0])
            std, level_counts = None, counts
        ale = acc.unscaled(ale)  # (exact; +-inf beyond the float range)
        std = None if std is None else acc.unscaled(std)
    ale, std = _select_output([ale, std], model, target)
    kept = np.all([fb.position >= 0 for fb in fbs], axis=0)
    return AccumulatedLocalEffects(
        grid_values=[fb.grid for fb in fbs],
        average=ale,
        std=std,
        bin_counts=np.asarray(level_counts if len(fbs) == 1 else counts).astype(np.int64),
        features=tuple(fb.name for fb in fbs),
        feature_kinds=tuple(fb.kind for fb in fbs),
        deciles=[_deciles(table, fb) for fb in fbs],
        output_names=model.output_names,
        target=target,
        response_method=model.response_method,
        n_rows=int(kept.sum()),
        n_missing=tuple(fb.n_missing for fb in fbs),
        n_outside=tuple(fb.n_outside for fb in fbs),
        edge_rule=tuple(fb.rule for fb in fbs),
        extra=extra,
    )
