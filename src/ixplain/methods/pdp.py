"""Static partial dependence (PD) and individual conditional expectation (ICE).

For a feature set ``S`` with grid values ``v`` the ICE curve of row ``x_i`` is
``f(x_i with x_S := v)`` and the PD is its (weighted) mean over the rows [1]_ [2]_. This module
computes both with scikit-learn's arguments and grid rule, so ``partial_dependence`` is a drop-in
replacement for :func:`sklearn.inspection.partial_dependence` (same keys, shapes and values).

How the values are computed is a *method*, picked by name from :data:`_METHODS`:

* ``"brute"`` -- :func:`_brute_partial_dependence`: rows x grid points are stacked into a few
  large model calls (chunked to a memory budget), never one call per grid point;
* ``"recursion"`` -- scikit-learn's tree traversal weighted by the training cover, for the
  scikit-learn tree models that support it, with the gradient-boosting baseline added back;
* ``"auto"`` -- always the brute (interventional) quantity on the user's data: it resolves to a
  method that equals brute force (today ``"brute"``; an exact tree method can register itself in
  :data:`_METHODS` and in :func:`_resolve_auto`).

Every method takes a :class:`PDRequest` and returns ``(average, individual)`` with the shapes of
:class:`~ixplain.results.PartialDependence`.

References
----------
.. [1] J. H. Friedman, "Greedy function approximation: a gradient boosting machine", Annals of
   Statistics 29(5), 2001.
.. [2] A. Goldstein, A. Kapelner, J. Bleich, E. Pitkin, "Peeking inside the black box: visualizing
   statistical learning with plots of individual conditional expectation", JCGS 24(1), 2015.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._random import keyed_generator, root_seed
from .._validation import (
    check_2d,
    check_allocation,
    check_bool,
    check_feature_names,
    check_int,
    check_memory_budget,
    check_n_jobs,
    check_options,
    param_error,
)
from ..grids import FeatureGrid, feature_grid
from ..models import DEFAULT_MEMORY_BUDGET, Model, as_model, call_rows, rows_for_budget
from ..models.adapters import BoosterModel, SklearnModel
from ..results.partial_dependence import PartialDependence
from ..tabular import Table, UnsupportedInputError, as_table
from ..tree.partial_dependence import threshold_grid_values, tree_method, tree_unsupported
from ._engine import (
    Explained,
    Method,
    ProgressInfo,
    RowBatch,
    explain_rows,
    make_progress,
    register,
)
from ._pd_sklearn import check_weights, ignored_custom_key, plain_if_equal, refuse_like_sklearn

__all__ = ["PDRequest", "partial_dependence"]

_OWNER = "partial_dependence"
_KINDS = ("average", "individual", "both")
_RESPONSES = ("auto", "predict", "predict_proba", "decision_function")


# ---------------------------------------------------------------------------------------- request
@dataclass
class PDRequest:
    """Everything a PD method needs (validated; internal).

    Attributes
    ----------
    model : Model
        The adapter (``model.model`` is the user's estimator).
    table : Table
        The rows averaged over (after ``subsample``), ``n_rows`` of them.
    features : list of str
        The features whose values are set, in grid order.
    grid_values : list of ndarray
        One grid per feature; the grid is their cartesian product (last feature fastest).
    sample_weight : ndarray of shape (n_rows,) or None
    kind : {"average", "individual", "both"}
    batch_rows : int
        Largest number of rows in one model call.
    n_jobs : int
        Number of threads evaluating chunks.
    memory_budget : int
        Bytes of model input per call.
    progress : callable(ProgressInfo) or None
        The reporter (see :func:`ixplain.methods._engine.make_progress`).
    upcast : set of str
        Filled by the method: integer features that received non-integer grid values.
    """

    model: Model
    table: Table
    features: list[str]
    grid_values: list[np.ndarray]
    sample_weight: np.ndarray | None
    kind: str
    batch_rows: int
    n_jobs: int = 1
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    progress: Any = None
    upcast: set[str] = field(default_factory=set)

    @property
    def grid_shape(self) -> tuple[int, ...]:
        """``(n_grid_0, ..., n_grid_{d-1})``."""
        return tuple(len(g) for g in self.grid_values)


MethodFn = Callable[[PDRequest], tuple[np.ndarray | None, np.ndarray | None]]


# ---------------------------------------------------------------------------------------- brute
def _grid_points(grid_values: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Cartesian product as one column per feature (first feature slowest, as sklearn)."""
    shape = tuple(len(g) for g in grid_values)
    idx = np.unravel_index(np.arange(math.prod(shape)), shape)
    return [np.asarray(g)[i] for g, i in zip(grid_values, idx)]


@dataclass
class _ArrayStack:
    """The numpy fast path: rows as one float array, grid points written into a few columns.

    ``base`` (n_rows, m) is what ``model`` receives for the original rows; grid point ``p`` sets
    columns ``cols`` to ``values[p]``. For a plain array model ``base`` is ``X`` and ``cols`` the
    feature positions; for a pipeline whose first step transforms each column on its own it is
    that step's output, and ``cols`` the output columns of the features (see
    :func:`_separable_first_step`).
    """

    base: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    model: Model
    first: Any = None  # the pipeline's first step that made ``base`` (None: ``base`` is X)


def _array_stack(
    model: Model, table: Table, features: list[str], points: list[np.ndarray],
    like: _ArrayStack | None = None,
) -> _ArrayStack | None:
    """The fast path when the model takes numpy, the data is a float array and the grid numeric.

    ``like``: a stack built for other rows of the same kind of table with the same grid: only
    ``base`` is computed (the grid part -- a pipeline's first step on the grid points -- does
    not depend on the rows).
    """
    if table.schema.source != "numpy" or model.native_kind(table) != "numpy":
        return None
    dtype = table.schema.array_dtype
    if dtype is None or np.dtype(dtype).kind != "f":
        return None
    if any(np.asarray(p).dtype.kind not in "iuf" for p in points):
        return None
    X = np.asarray(table.to_native("numpy"))
    if like is not None:
        if like.first is None:
            return replace(like, base=X)
        try:
            return replace(like, base=like.first.transform(X))
        except Exception:  # as in _separable_first_step: the generic path instead
            return None
    cols = np.asarray([table.schema.index(f) for f in features], dtype=np.intp)
    values = np.column_stack([np.asarray(p) for p in points]).astype(X.dtype, copy=False)
    return _separable_first_step(model, X, cols, values) or _ArrayStack(X, cols, values, model)


def _column_owners(step: Any, n_features: int) -> list[np.ndarray] | None:
    """Output columns of each input column, for transformers known to act column by column."""
    from sklearn.preprocessing import (
        MaxAbsScaler,
        MinMaxScaler,
        RobustScaler,
        SplineTransformer,
        StandardScaler,
    )

    if type(step) in (StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler):
        return [np.asarray([j]) for j in range(n_features)]
    if type(step) is SplineTransformer and not getattr(step, "sparse_output", False):
        inputs = list(getattr(step, "feature_names_in_", [f"x{j}" for j in range(n_features)]))
        names = list(step.get_feature_names_out())
        per = len(names) // max(1, n_features)
        if per * n_features != len(names):
            return None
        owners = [np.arange(j * per, (j + 1) * per) for j in range(n_features)]
        for j, cols in enumerate(owners):  # feature-major blocks "x{j}_sp_{i}"
            if not all(str(names[c]).startswith(f"{inputs[j]}_sp_") for c in cols):
                return None
        return owners
    return None


def _separable_first_step(
    model: Model, X: np.ndarray, cols: np.ndarray, values: np.ndarray
) -> _ArrayStack | None:
    """Evaluate a pipeline's column-wise first step once per row and once per grid point.

    ``Pipeline.predict(X) == rest.predict(first.transform(X))`` and a column-wise transformer's
    output columns for feature ``j`` depend on ``x_j`` alone, so the stacked input of the rest of
    the pipeline is ``first.transform(X)`` tiled, with the columns of the PD features replaced by
    ``first.transform`` of the grid points -- the same numbers, without transforming
    ``n_rows x n_points`` rows. Only for an allow-list of scikit-learn transformers.
    """
    try:
        from sklearn.pipeline import Pipeline
    except ImportError:  # pragma: no cover - sklearn missing
        return None
    est = model.model
    if not isinstance(model, SklearnModel) or not isinstance(est, Pipeline) or len(est.steps) < 2:
        return None
    first = est.steps[0][1]
    owners = _column_owners(first, X.shape[1])
    if owners is None:
        return None
    try:
        Z = first.transform(X)
        grid_rows = np.repeat(X[:1], len(values), axis=0)
        grid_rows[:, cols] = values
        Zg = first.transform(grid_rows)
        rest = SklearnModel(est[1:], response_method=model.response_method, target=model.target)
    except Exception:  # anything unexpected: the generic path gives the same numbers
        return None
    if not (isinstance(Z, np.ndarray) and isinstance(Zg, np.ndarray)) or Z.ndim != 2:
        return None
    out_cols = np.concatenate([owners[c] for c in cols])
    return _ArrayStack(Z, out_cols, Zg[:, out_cols], rest, first)


def ice_predict(
    model: Model,
    table: Table,
    features: Sequence[str],
    points: Sequence[np.ndarray],
    rows: np.ndarray,
    point_idx: np.ndarray,
    *,
    batch_rows: int | None = None,
    stack: _ArrayStack | None = None,
    owner: str = _OWNER,
) -> tuple[np.ndarray, frozenset[str]]:
    """The ICE function, batched: the model's output for row ``rows[i]`` of ``table`` with
    ``features`` set to grid point ``point_idx[i]``, for every ``i`` in one model call.

    PD/ICE evaluate it on every (row, grid point) pair of a rectangular grid; iPDP on each
    observation's own active grid values. How the rows are built is a choice inside it: a
    :class:`_ArrayStack` (float arrays, column-wise pipeline steps run once per row), one
    observation written directly in the model's input type (records or a numeric row: the
    streaming case), or the table's dtype-preserving ``take`` / ``set_column``.

    Parameters
    ----------
    model : Model
    table : Table
        The observations.
    features : sequence of str
        The features set to grid values.
    points : sequence of ndarray
        ``points[j]`` of shape (n_points,): feature ``j``'s value at each grid point.
    rows, point_idx : ndarray of int, shape (k,)
        The (row, grid point) pairs evaluated.
    batch_rows : int, optional
        Largest model call (the memory budget).
    stack : _ArrayStack, optional
        The array layout of ``table`` (from :func:`_array_stack`).
    owner : str, default="partial_dependence"
        Named in the error for non-numeric model output.

    Returns
    -------
    predictions : ndarray of shape (k, n_outputs) float64
    upcast : frozenset of str
        Integer features that had to hold non-integer grid values.
    """
    k = len(rows)
    if stack is not None:
        big = np.take(stack.base, rows, axis=0)  # row blocks: as fast as np.tile
        big[:, stack.cols] = np.take(stack.values, point_idx, axis=0)
        out = stack.model.predict_array(big, batch_rows=batch_rows)
        return _as_float(out, model, owner).reshape(k, -1), frozenset()
    if table.n_rows == 1 and len(features) == 1:
        one = _one_row_ice(model, table, features[0], np.asarray(points[0])[point_idx])
        if one is not None:
            return _as_float(one, model, owner).reshape(k, -1), table.upcast & {features[0]}
    stacked = table.take(rows)
    for name, col in zip(features, points):
        stacked = stacked.set_column(name, np.asarray(col)[point_idx])
    out = model.predict(stacked, batch_rows=batch_rows)
    return _as_float(out, model, owner).reshape(k, -1), stacked.upcast


def _one_row_ice(model: Model, table: Table, name: str, values: np.ndarray) -> np.ndarray | None:
    """One observation's ICE rows built directly in the model's input type (dict records or a
    numeric array row); None for other input types. ``name`` in ``table.upcast``: the row is
    given as floats."""
    kind = model.native_kind(table)
    n = len(values)
    if kind == "records":
        record = table.to_native("records")[0]
        label = table.schema.labels[table.schema.index(name)]
        native: Any = [{**record, label: v} for v in values.tolist()]
    elif kind == "numpy" and table.schema.kind(name) == "numeric":
        row = table.to_native("numpy")
        if row.dtype.kind not in "fiu" or np.asarray(values).dtype.kind not in "fiu":
            return None
        if name in table.upcast:
            row = row.astype(np.float64)
        native = np.repeat(row, n, axis=0)
        native[:, table.schema.index(name)] = values
    else:
        return None
    return np.asarray(model._call_native(native, n, kind, list(table.names)))


def _as_float(out: np.ndarray, model: Model, owner: str = _OWNER) -> np.ndarray:
    if out.dtype.kind in "fiub":
        return out.astype(np.float64, copy=False)
    try:
        return out.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}: {model.describe()} returned non-numeric values (e.g. {out.ravel()[:3]!r}); "
            "partial dependence averages the model output. For a classifier use "
            "response_method='predict_proba' or 'decision_function'."
        ) from None


@register
class ICEFunction(Method):
    """PD/ICE's explanation function for the engine: a row's ICE curve on a fixed grid.

    ``lambda(x) = [f(x with x_S := v) for v in grid]`` of shape (n_outputs, n_points) (grid
    points in :func:`_grid_points` order); its mean over rows is the PD. ``method="brute"``
    evaluates it with :func:`ice_predict`: the batch's rows at several whole grid points per
    model call, stacked up to :func:`~ixplain.models.call_rows` rows (never one call per grid
    point when they fit, never less than all rows at one grid point); ``method="tree"`` with
    the exact tree paths of :mod:`ixplain.tree` (the same values).

    Parameters
    ----------
    model : Model
    features : list of str
    grid_values : list of ndarray
        One grid per feature (their cartesian product is the grid).
    method : {"brute", "tree"}, default="brute"
    memory_budget : int
        Bytes of model input per call.
    n_jobs : int, default=1
        Threads of the static driver (more, smaller chunks when > 1).
    """

    name = "partial_dependence"

    def __init__(
        self,
        model: Model,
        features: Sequence[str],
        grid_values: Sequence[np.ndarray],
        *,
        method: str = "brute",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        n_jobs: int = 1,
    ) -> None:
        self.model = model
        self.features = list(features)
        self.grid_values = [np.asarray(g) for g in grid_values]
        self.points = _grid_points(self.grid_values)
        self.grid_shape = tuple(len(g) for g in self.grid_values)
        self.n_points = math.prod(self.grid_shape)
        self.method = method
        self.memory_budget = int(memory_budget)
        self.n_jobs = int(n_jobs)
        self._like: _ArrayStack | None = None

    def chunk_rows(self, table: Table, memory_budget: int) -> int:
        """Rows per :meth:`explain` call: all their stacked rows would fit ``memory_budget``
        (one call is split into cache-sized model calls); fewer with ``n_jobs > 1``."""
        rows = max(1, rows_for_budget(self._width(table), memory_budget) // self.n_points)
        if self.n_jobs > 1:
            rows = min(rows, max(1, math.ceil(table.n_rows / self.n_jobs)))
        return rows

    def _width(self, table: Table) -> int:
        """Columns of the model input (a pipeline's column-wise first step may widen it)."""
        if self.method != "brute" or table.n_rows == 0:
            return len(table.names)
        stack = _array_stack(self.model, table.take(np.zeros(1, dtype=np.intp)), self.features,
                             self.points, self._like)
        if stack is not None and self._like is None:  # the grid part serves every batch
            self._like = replace(stack, base=stack.base[:0])
        return len(table.names) if stack is None else stack.base.shape[1]

    def explain(self, batch: RowBatch) -> np.ndarray:
        """ICE curves of the batch's rows: shape (B, n_outputs, n_points)."""
        X, B, k = batch.X, batch.n_rows, self.n_points
        batch_rows = rows_for_budget(len(X.names), self.memory_budget)
        if self.method == "tree":
            req = PDRequest(self.model, X, self.features, self.grid_values, None, "individual",
                            batch_rows)
            individual = tree_method(req)[1]
            assert individual is not None
            return individual.reshape(individual.shape[0], B, k).transpose(1, 0, 2)
        stack = _array_stack(self.model, X, self.features, self.points, self._like)
        width = len(X.names) if stack is None else stack.base.shape[1]
        if stack is not None and self._like is None:  # keep the grid part for later batches
            self._like = replace(stack, base=stack.base[:0])
        batch_rows = call_rows(width, self.memory_budget, n_rows=B)
        per_call = max(1, batch_rows // max(1, B))  # whole grid points (all B rows) per call
        parts = []
        for p0 in range(0, k, per_call):
            points = np.arange(p0, min(p0 + per_call, k))
            pred, _ = ice_predict(self.model, X, self.features, self.points,
                                  np.tile(np.arange(B), len(points)), np.repeat(points, B),
                                  batch_rows=batch_rows, stack=stack)
            parts.append(pred.reshape(len(points), B, -1))
        out = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return out.transpose(1, 2, 0)  # (k, B, n_outputs) -> (B, n_outputs, k)

    def result(self, explained: Explained) -> tuple[np.ndarray, np.ndarray | None]:
        """``(average (n_outputs, *grid_shape), individual (n_outputs, n_rows, *grid_shape) or
        None)``."""
        mean = explained.mean.get()
        average = mean.reshape(mean.shape[0], *self.grid_shape)
        values = explained.values
        if values is None:
            return average, None
        individual = values.transpose(1, 0, 2).reshape(mean.shape[0], len(values),
                                                        *self.grid_shape)
        return average, individual

    def upcast(self, table: Table) -> frozenset[str]:
        """Integer features of ``table`` that the grid gives non-integer values."""
        out: set[str] = set()
        for name, g in zip(self.features, self.grid_values):
            if table.set_column(name, np.resize(g, table.n_rows)).upcast - table.upcast:
                out.add(name)
        return frozenset(out)

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        X = np.random.default_rng(0).normal(size=(150, 3))
        model = as_model(_example_model)
        grid = [np.linspace(-1, 1, 5), np.array([-1.0, 0.5])]
        return cls(model, ["x0", "x1"], grid), X, np.zeros(len(X))


def _example_model(X: Any) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    return np.sin(A[:, 0]) * A[:, 1] + A[:, 2] ** 2


def _brute_method(req: PDRequest) -> tuple[np.ndarray | None, np.ndarray | None]:
    """PD/ICE by brute force: the engine's static mean of :class:`ICEFunction` over the rows."""
    fn = ICEFunction(req.model, req.features, req.grid_values, memory_budget=req.memory_budget,
                     n_jobs=req.n_jobs)
    explained = explain_rows(fn, req.table, sample_weight=plain_if_equal(req.sample_weight),
                             memory_budget=req.memory_budget, n_jobs=req.n_jobs,
                             progress=req.progress, keep_values=req.kind != "average")
    average, individual = fn.result(explained)
    req.upcast |= fn.upcast(req.table.take(np.zeros(1, dtype=np.intp)))
    return (None if req.kind == "individual" else average), individual


# ---------------------------------------------------------------------------------------- recursion
def _recursion_classes() -> tuple[type, ...]:
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.ensemble._gb import BaseGradientBoosting
    from sklearn.ensemble._hist_gradient_boosting.gradient_boosting import (
        BaseHistGradientBoosting,
    )
    from sklearn.tree import DecisionTreeRegressor

    return (BaseGradientBoosting, BaseHistGradientBoosting, DecisionTreeRegressor, RandomForestRegressor)


def _recursion_unsupported(req: PDRequest) -> str | None:
    """Why ``method='recursion'`` cannot run on this request (None if it can)."""
    est = req.model.model
    try:
        classes = _recursion_classes()
    except ImportError:
        return "scikit-learn is not installed"
    if req.kind != "average":
        return (
            f"it only computes kind='average' (got kind={req.kind!r}); use method='brute' (The "
            "'recursion' method only applies when 'kind' is set to 'average')"
        )
    if req.sample_weight is not None:
        return (
            "it cannot use sample_weight (it averages over the training data); use "
            "method='brute' (The 'recursion' method can only be applied when sample_weight is "
            "None)"
        )
    if not isinstance(est, classes):
        return (
            f"{type(est).__name__} does not support it; supported: GradientBoostingClassifier, "
            "GradientBoostingRegressor, HistGradientBoostingClassifier, "
            "HistGradientBoostingRegressor, DecisionTreeRegressor, RandomForestRegressor. "
            "Use method='brute' (Only the following estimators support the 'recursion' method: "
            "those listed)"
        )
    if req.model.is_classifier and req.model.response_method != "decision_function":
        return (
            "it explains the decision function of a classifier; use "
            "response_method='decision_function' or 'auto' (With the 'recursion' method, the "
            f"response_method must be 'decision_function'. Got {req.model.response_method}.)"
        )
    for name, g in zip(req.features, req.grid_values):
        if np.asarray(g).dtype.kind not in "iufb" or np.isnan(np.asarray(g, dtype=float)).any():
            return f"feature {name!r} has a non-numeric or missing grid value; use method='brute'"
    init = getattr(est, "init", None)
    if hasattr(est, "init_") and not (init is None or init == "zero"):
        return "the gradient boosting model has a non-constant init estimator; use method='brute'"
    return None


def _recursion_method(req: PDRequest) -> tuple[np.ndarray | None, np.ndarray | None]:
    """scikit-learn's recursion (training-cover weighted) PD, with the boosting baseline added.

    scikit-learn's ``_compute_partial_dependence_recursion`` omits the constant initial
    prediction of (Hist)GradientBoosting models; it is added back here so the values are on the
    scale of ``decision_function`` (for regressors: of ``predict`` with the identity link).
    """
    est = req.model.model
    names = list(getattr(est, "feature_names_in_", req.table.names))
    idx = np.asarray([names.index(str(f)) for f in req.features], dtype=np.intp)
    grid = np.column_stack([np.asarray(p, dtype=np.float64) for p in _grid_points(req.grid_values)])
    try:
        avg = est._compute_partial_dependence_recursion(grid, idx)
    except NotImplementedError as exc:
        raise ValueError(f"{_OWNER}: method='recursion' is unavailable: {exc}") from exc
    avg = np.atleast_2d(np.asarray(avg, dtype=np.float64))
    avg = avg + _boosting_baseline(est, req.table).reshape(-1, 1)
    if req.model.target is not None and avg.shape[0] > 1:
        from ..models.base import _class_index

        avg = avg[[_class_index(np.asarray(req.model.classes_), req.model.target)]]
    return avg.reshape(avg.shape[0], *req.grid_shape), None


def _boosting_baseline(est: Any, table: Table) -> np.ndarray:
    """The constant raw prediction a boosting model starts from (0 for trees and forests)."""
    if hasattr(est, "_baseline_prediction"):  # HistGradientBoosting*
        return np.asarray(est._baseline_prediction, dtype=np.float64).ravel()
    if hasattr(est, "_raw_predict_init"):  # GradientBoosting* with a constant init
        X0 = np.zeros((1, est.n_features_in_))
        return np.asarray(est._raw_predict_init(X0), dtype=np.float64).ravel()
    return np.zeros(1)


#: The methods by name; ``"auto"`` resolves through :func:`_resolve_auto`.
_METHODS: dict[str, MethodFn] = {
    "brute": _brute_method,
    "recursion": _recursion_method,
    "tree": tree_method,
}
#: Why a method cannot run on a request (None when it can); methods without an entry always can.
def _tree_unsupported(req: PDRequest) -> str | None:
    """The exact tree method reads 1- and 2-way grids; more features go to brute force."""
    if len(req.features) > 2:
        return (f"it computes 1- and 2-way PD (got {len(req.features)} features); use "
                "method='brute' or 'auto'")
    return tree_unsupported(req)


_UNSUPPORTED: dict[str, Callable[[PDRequest], str | None]] = {
    "recursion": _recursion_unsupported,
    "tree": _tree_unsupported,
}


def _resolve_auto(req: PDRequest) -> str:
    """``method='auto'``: a method equal to the brute-force definition on the user's data.

    The exact tree method (:mod:`ixplain.tree`) for the tree ensembles it supports, else brute.
    """
    return "tree" if _tree_unsupported(req) is None else "brute"


def refuse_unsupported(name: str, req: PDRequest, owner: str) -> None:
    """Raise ``ValueError`` naming ``owner``, the method and why it cannot compute ``req``
    (the reason's own final period is not doubled); nothing when it can."""
    check = _UNSUPPORTED.get(name)
    reason = check(req) if check is not None else None
    if reason is not None:
        raise ValueError(f"{owner}: method={name!r} cannot be used here: {reason.rstrip('.')}.")


def _run_method(method: str, req: PDRequest) -> tuple[str, np.ndarray | None, np.ndarray | None]:
    name = _resolve_auto(req) if method == "auto" else method
    refuse_unsupported(name, req, _OWNER)
    average, individual = _METHODS[name](req)
    if name != "brute" and req.progress is not None:
        req.progress(ProgressInfo(req.table.n_rows, req.table.n_rows, _OWNER))
    return name, average, individual


# ---------------------------------------------------------------------------------------- validation
def _check_percentiles(percentiles: Any) -> tuple[float, float]:
    rule = "a tuple of two floats (low, high) with 0 <= low < high <= 1"
    try:
        lo, hi = (float(p) for p in percentiles)
        ok = 0 <= lo < hi <= 1
    except (TypeError, ValueError):
        raise param_error(_OWNER, "percentiles", rule, percentiles, exc=TypeError) from None
    if isinstance(percentiles, (str, bytes)) or not ok:
        raise param_error(_OWNER, "percentiles", rule, percentiles)
    return lo, hi


def _resolve_names(spec: Any, table: Table, param: str, allow_mask: bool = True) -> list[str]:
    """Features given as one int/str, a list of ints/strs, or a boolean mask -> names."""
    names = list(table.names)
    rule = "an int, a str, or a sequence of ints/strs naming columns of X"
    if isinstance(spec, (str, numbers.Integral)) and not isinstance(spec, (bool, np.bool_)):
        items = [spec]
    elif isinstance(spec, (list, tuple, np.ndarray)) or hasattr(spec, "__array__"):
        arr = np.asarray(spec)
        if arr.ndim != 1 or arr.size == 0:
            raise param_error(_OWNER, param, f"{rule} (non-empty, 1-D)", spec)
        if arr.dtype.kind == "b":
            if not allow_mask or arr.size != len(names):
                raise param_error(
                    _OWNER, param, f"a boolean mask of length n_features={len(names)}", spec
                )
            return [n for n, m in zip(names, arr) if m]
        items = list(spec)
    else:
        raise param_error(_OWNER, param, rule, spec, exc=TypeError)
    out = []
    for item in items:
        if isinstance(item, numbers.Integral) and not isinstance(item, (bool, np.bool_)):
            if not 0 <= int(item) < len(names):
                raise ValueError(
                    f"The {param!r} parameter of {_OWNER} must hold column indices in "
                    f"[0, {len(names) - 1}]. Got {item!r} instead (all features must be in "
                    f"[0, {len(names) - 1}])."
                )
            out.append(names[int(item)])
        elif isinstance(item, str):
            if item not in names:
                frame = table.schema.source in ("pandas", "polars")
                raise ValueError(
                    f"The {param!r} parameter of {_OWNER} names an unknown feature {item!r}. "
                    f"Available features: {names}."
                    + (" (Some column names are not columns of the dataframe.)" if frame else "")
                )
            out.append(item)
        else:
            raise param_error(_OWNER, param, rule, spec, exc=TypeError)
    if len(set(out)) != len(out):
        raise param_error(_OWNER, param, f"{rule} without duplicates", spec)
    return out


def _check_subsample(subsample: Any) -> int | float | None:
    rule = "None, an int >= 1 or a float in (0, 1]"
    if subsample is None:
        return None
    if isinstance(subsample, numbers.Integral) and not isinstance(subsample, (bool, np.bool_)):
        if int(subsample) < 1:
            raise param_error(_OWNER, "subsample", rule, subsample)
        return int(subsample)
    if isinstance(subsample, numbers.Real) and not isinstance(subsample, (bool, np.bool_)):
        if not 0 < float(subsample) <= 1:
            raise param_error(_OWNER, "subsample", rule, subsample)
        return float(subsample)
    raise param_error(_OWNER, "subsample", rule, subsample, exc=TypeError)



def _check_custom_values(custom_values: Any, table: Table, features: list[str],
                         given: Any = None) -> dict[str, Any]:
    if custom_values is None:
        return {}
    if not isinstance(custom_values, dict):
        raise param_error(
            _OWNER, "custom_values", "None or a dict {feature: 1-D array}", custom_values,
            exc=TypeError,
        )
    out = {}
    for key, values in custom_values.items():
        if given is not None and ignored_custom_key(key, given, _OWNER):
            continue
        name = _resolve_names(key, table, "custom_values")[0]
        if name not in features:
            raise ValueError(
                f"The 'custom_values' parameter of {_OWNER} must have keys among features "
                f"{features}. Got key {key!r} instead."
            )
        out[name] = values
    return out


def _with_categoricals(table: Table, names: list[str]) -> Table:
    if not names:
        return table
    kinds = tuple(
        "categorical" if n in names else k for n, k in zip(table.names, table.schema.kinds)
    )
    return replace(table, schema=replace(table.schema, kinds=kinds))


def _accepts_nan(model: Model) -> bool:
    if isinstance(model, BoosterModel):
        return True
    if isinstance(model, SklearnModel):
        try:
            return bool(model.model.__sklearn_tags__().input_tags.allow_nan)
        except Exception:
            return False
    return False


def _subsample_rows(n: int, subsample: int | float | None, rng: np.random.Generator) -> np.ndarray | None:
    if subsample is None:
        return None
    size = subsample if isinstance(subsample, int) else max(1, int(subsample * n))
    if size >= n:
        return None
    return np.sort(rng.choice(n, size=size, replace=False))


# ---------------------------------------------------------------------------------------- public
def _check_sizes(grids: Sequence[Any], n_rows: int, d: int, kind: str,
                 grid_resolution: int, memory_budget: int, owner: str = _OWNER) -> None:
    """Refuse up front (:func:`~ixplain._validation.check_allocation`) a grid that cannot
    run within the budget or whose outputs cannot fit in memory: one row's model input
    (n_points rows of d cells, the smallest stacked call) must fit ``memory_budget``; the
    average (n_points values per output) and, for ``kind`` other than "average", the ICE
    curves (n_rows x n_points) the memory available."""
    n_points = math.prod(len(g.values) for g in grids)
    grid = (f"{n_points:,} grid points (grid_resolution={grid_resolution:,}, {len(grids)} "
            "feature(s))")
    fix = "Use a smaller grid_resolution or fewer features per partial dependence"
    check_allocation(8 * n_points * max(d, 1), f"{grid} for one row of {d} features", owner,
                     fix + " (or a larger memory_budget).", memory_budget=memory_budget)
    ice = n_rows * n_points if kind != "average" else 0
    check_allocation(8 * (n_points + ice), f"kind={kind!r} with {grid} for {n_rows:,} rows",
                     owner, fix + ", kind='average' or subsample=.")


def partial_dependence(
    estimator: Any,
    X: Any,
    features: Any,
    *,
    sample_weight: Any = None,
    categorical_features: Any = None,
    feature_names: Any = None,
    response_method: str = "auto",
    percentiles: tuple[float, float] = (0.05, 0.95),
    grid_resolution: int = 100,
    custom_values: dict[Any, Any] | None = None,
    method: str = "auto",
    kind: str = "average",
    centered: bool = False,
    subsample: int | float | None = None,
    random_state: Any = None,
    grid: str = "percentile",
    target: Any = None,
    include_missing: bool | str = "auto",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    n_jobs: int | None = None,
    input_kind: str = "auto",
    progress: Any = False,
) -> PartialDependence:
    """Partial dependence (PD) and ICE curves of a feature or a set of features.

    A drop-in for :func:`sklearn.inspection.partial_dependence` (same arguments, same meaning,
    same keys, shapes and values with ``method="brute"``), for any model ixplain can wrap
    (scikit-learn estimators and pipelines, LightGBM/XGBoost, River models, callables) and any
    table type (numpy, pandas, polars, dict records).

    Parameters
    ----------
    estimator : estimator, River model, Booster or callable
        The fitted model (see :func:`ixplain.as_model`).
    X : ndarray of shape (n_rows, n_features), pandas/polars DataFrame or list of dict
        Rows to average over; also the data the grid is built from.
    features : int, str, or sequence of int/str (or a boolean mask)
        The feature, or the features whose *joint* PD is computed (``[0, 1]`` gives a 2-way PD).
    sample_weight : array-like of shape (n_rows,), default=None
        Weights of the average (ignored by ``individual``).
    categorical_features : array-like of bool, int or str, default=None
        Features to treat as categorical (grid = their observed values). Non-numeric columns
        (strings, pandas categoricals, booleans) are categorical anyway.
    feature_names : sequence of str, default=None
        Names of the columns of an array (default ``x0, x1, ...``).
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
        Classifiers: probabilities, else decision function (scikit-learn's rule); binary
        classifiers give the positive class ``classes_[1]``.
    percentiles : tuple of float, default=(0.05, 0.95)
        Lower and upper percentile (as fractions in [0, 1]) bounding a numeric grid.
    grid_resolution : int, default=100
        Number of grid points of a numeric feature with at least that many distinct values
        (else its sorted distinct values are used).
    custom_values : dict, default=None
        ``{feature: 1-D array}``: the grid of that feature (overrides the rule above).
    method : {"auto", "brute", "recursion", "tree"}, default="auto"
        ``"brute"``: the definition, on ``X``. ``"tree"``: the same values computed exactly
        through the trees of scikit-learn trees/forests, (Hist)GradientBoosting, LightGBM and
        XGBoost models at about the cost of one prediction pass (:mod:`ixplain.tree`).
        ``"recursion"``: scikit-learn's fast tree
        traversal for GradientBoosting*, HistGradientBoosting*, DecisionTreeRegressor and
        RandomForestRegressor, weighted by the *training* cover and returning the decision
        function, with the boosting baseline (which scikit-learn omits) added back.
        ``"auto"``: always the brute (interventional) quantity -- ``"tree"`` for the models it
        supports, else ``"brute"``; unlike scikit-learn, ``auto`` never silently switches to
        recursion, which is a different quantity. The result's ``method`` says which ran.
        XGBoost models with categorical splits (``enable_categorical=True``) are not read by
        the tree method: ``"auto"`` computes them by brute force (same quantity, more model
        calls) and ``"tree"`` raises a ValueError saying so.
    kind : {"average", "individual", "both"}, default="average"
        Return the PD, the ICE curves, or both.
    centered : bool, default=False
        Shift every curve (and the PD) to 0 at the first grid point (centred ICE, [2]_).
    subsample : int or float, default=None
        Average over a random subset of rows: a count, or a fraction of ``n_rows``. The grid is
        still built from all rows.
    random_state : int, Generator or None, default=None
        Seeds ``subsample``.
    grid : {"percentile", "quantile", "thresholds"}, default="percentile"
        ``"percentile"``: equally spaced values (scikit-learn). ``"quantile"``: values at equally
        spaced quantiles between the percentiles. ``"thresholds"`` (tree models, numeric
        features): one value in every piece of the PD step function -- each distinct split
        threshold of the feature and one point above the largest -- i.e. the exact curve at
        full resolution.
    target : object, default=None
        Select one output: a class label of a multiclass classifier, or the index of the output
        of a multi-output regressor. ``n_outputs`` becomes 1.
    include_missing : bool or "auto", default="auto"
        Add a NaN grid point to numeric features with missing values. ``"auto"``: when the model
        accepts NaN (scikit-learn's ``allow_nan`` tag: HistGradientBoosting, LightGBM, XGBoost;
        Boosters). Categorical features with missing values always get a missing level.
    memory_budget : int, default=268435456
        Bytes of model input per model call (8 bytes per cell); rows x grid points are stacked
        into calls of at most this size. At least
        ``MIN_MEMORY_BUDGET`` (4096 bytes; a smaller budget is refused).
    n_jobs : int, default=None
        Threads evaluating chunks concurrently (``-1``: all cores); ``None`` is 1.
    input_kind : {"auto", "numpy", "pandas", "polars", "records"}, default="auto"
        The input type a callable receives (default: the type of ``X``).
    progress : bool or callable, default=False
        Report rows done: ``True`` shows a tqdm bar (or prints lines to stderr without tqdm);
        a callable receives a :class:`~ixplain.ProgressInfo` (``done``, ``total`` rows) after
        every chunk. The values do not depend on it. The tree and recursion methods report
        once, at the end.

    Returns
    -------
    PartialDependence
        ``grid_values`` (list of arrays of shape (n_grid_j,)), ``average`` of shape
        (n_outputs, n_grid_0, ...), ``individual`` of shape (n_outputs, n_rows, n_grid_0, ...),
        plus features, deciles, kind, method and the settings used.

    Raises
    ------
    ValueError
        For an argument with a wrong value (the message names it), an unknown feature (the
        message lists the available ones), empty ``X``, a grid that cannot be built.
    TypeError
        For an argument of the wrong type.
    ModelEvaluationError
        If the model raises or returns NaN or +-inf; the message describes the failing
        batch.

    References
    ----------
    .. [1] J. H. Friedman, "Greedy function approximation: a gradient boosting machine",
       Annals of Statistics 29(5), 2001.
    .. [2] A. Goldstein et al., "Peeking inside the black box: visualizing statistical learning
       with plots of individual conditional expectation", JCGS 24(1), 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import partial_dependence
    >>> X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]])
    >>> res = partial_dependence(lambda X: X[:, 0] + 2 * X[:, 1], X, [0], kind="both")
    >>> res.grid_values[0], res.average
    (array([0., 1., 2.]), array([[4., 5., 6.]]))
    >>> res.individual.shape
    (1, 3, 3)
    """
    opts = _check_options(
        kind=kind, method=method, response_method=response_method, grid=grid,
        percentiles=percentiles, grid_resolution=grid_resolution, centered=centered,
        subsample=subsample, memory_budget=memory_budget, n_jobs=n_jobs,
        include_missing=include_missing, feature_names=feature_names, progress=progress,
    )
    rng = keyed_generator(root_seed(random_state, _OWNER), "partial_dependence", "subsample")
    table, feats = _data_and_features(X, features, feature_names, categorical_features)
    custom = _check_custom_values(custom_values, table, feats, features)
    weights = check_weights(sample_weight, table.n_rows, _OWNER)
    model = _make_model(estimator, response_method, target, input_kind, method)
    grids = _grids(model, table, feats, custom, opts)
    rows = _subsample_rows(table.n_rows, opts["subsample"], rng)
    _check_sizes(grids, table.n_rows if rows is None else len(rows), len(table.names), kind,
                 opts["grid_resolution"], opts["memory_budget"])
    data = table if rows is None else table.take(rows)
    if rows is not None and weights is not None:
        weights = weights[rows]
    req = PDRequest(
        model=model, table=data, features=feats, grid_values=[g.values for g in grids],
        sample_weight=weights, kind=kind,
        batch_rows=call_rows(len(table.names), opts["memory_budget"], n_rows=data.n_rows),
        n_jobs=opts["n_jobs"], memory_budget=opts["memory_budget"], progress=opts["progress"],
    )
    used, average, individual = _run_method(method, req)
    average, individual, output_names = _select_regression_target(
        average, individual, model, target
    )
    if opts["centered"]:
        average, individual = _center(average, individual)
    return PartialDependence(
        grid_values=[g.values for g in grids],
        average=average,
        individual=individual,
        features=tuple(feats),
        feature_kinds=tuple(g.kind for g in grids),
        deciles=[g.deciles for g in grids],
        kind=kind,
        method=used,
        centered=opts["centered"],
        output_names=output_names,
        target=target,
        response_method=model.response_method,
        upcast=tuple(f for f in feats if f in req.upcast),
        missing_in_grid=tuple(g.has_missing for g in grids),
        grid_rules=tuple(g.rule for g in grids),
        n_rows=data.n_rows,
    )


def _check_options(**kw: Any) -> dict[str, Any]:
    """Validate the scalar arguments of :func:`partial_dependence`; return them normalised."""
    check_options(kw["kind"], "kind", _OWNER, _KINDS)
    check_options(kw["method"], "method", _OWNER, ("auto", *_METHODS))
    check_options(kw["response_method"], "response_method", _OWNER, _RESPONSES)
    check_options(kw["grid"], "grid", _OWNER, ("percentile", "quantile", "thresholds"))
    out = dict(kw)
    out["percentiles"] = _check_percentiles(kw["percentiles"])
    out["grid_resolution"] = check_int(kw["grid_resolution"], "grid_resolution", _OWNER,
                                       min_value=2) or 2
    out["centered"] = check_bool(kw["centered"], "centered", _OWNER)
    out["subsample"] = _check_subsample(kw["subsample"])
    out["memory_budget"] = check_memory_budget(kw["memory_budget"], _OWNER)
    out["n_jobs"] = check_n_jobs(kw["n_jobs"], _OWNER)
    if kw["include_missing"] != "auto":
        out["include_missing"] = check_bool(kw["include_missing"], "include_missing", _OWNER)
    out["feature_names"] = check_feature_names(kw["feature_names"], _OWNER)
    out["progress"] = make_progress(kw["progress"], _OWNER)
    return out


def _data_and_features(
    X: Any, features: Any, feature_names: Any, categorical_features: Any
) -> tuple[Table, list[str]]:
    """The rows as a Table (named, with the declared categoricals) and the feature names."""
    check_2d(X, _OWNER)
    try:
        table = as_table(X, owner=_OWNER)
    except UnsupportedInputError as exc:
        raise param_error(
            _OWNER, "X", "a 2-D array, a pandas/polars DataFrame or a list of dict records", X,
            exc=TypeError,
        ) from exc
    if feature_names is not None:
        if len(feature_names) != len(table.names):
            raise param_error(
                _OWNER, "feature_names", f"a sequence of {len(table.names)} names (one per column)",
                feature_names,
            )
        if table.schema.source == "numpy":
            table = as_table(X, list(feature_names), owner=_OWNER)
    if table.n_rows == 0:
        raise ValueError(f"{_OWNER}: X has 0 rows; partial dependence needs at least one row.")
    feats = _resolve_names(features, table, "features")
    if categorical_features is not None:
        if not isinstance(categorical_features, (str, numbers.Integral)) and len(
            np.asarray(categorical_features).ravel()
        ) == 0:
            raise param_error(
                _OWNER, "categorical_features",
                "None or a non-empty array-like (Passing an empty list (`[]`) to "
                "`categorical_features` is not supported. Use `None` instead to indicate that "
                "there are no categorical features.)", categorical_features,
            )
        table = _with_categoricals(
            table, _resolve_names(categorical_features, table, "categorical_features")
        )
    return table, feats


def _grids(
    model: Model, table: Table, feats: list[str], custom: dict[str, Any], opts: dict[str, Any]
) -> list[FeatureGrid]:
    """One grid per feature, by the rule of ``opts["grid"]`` (or the custom values)."""
    include_missing = opts["include_missing"]
    if include_missing == "auto":
        include_missing = _accepts_nan(model)
    grid = opts["grid"]
    if grid == "thresholds":  # the exact step function at full resolution (tree models)
        missing = [f for f in feats if f not in custom]
        custom = {**threshold_grid_values(model, table, missing), **custom}
        grid = "percentile"
    return [
        feature_grid(
            table, name, percentiles=opts["percentiles"],
            grid_resolution=opts["grid_resolution"], grid=grid, custom_values=custom.get(name),
            include_missing=bool(include_missing), owner=_OWNER,
        )
        for name in feats
    ]


def _make_model(estimator: Any, response_method: str, target: Any, input_kind: str, method: str) -> Model:
    if method == "recursion" and not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
        raise param_error(
            _OWNER, "method",
            "'auto', 'brute' or 'tree' for this model ('recursion' needs a fitted scikit-learn "
            "tree or gradient-boosting estimator)", method,
        )
    if method == "recursion" and response_method == "auto":
        from sklearn.base import is_classifier

        if is_classifier(estimator):
            response_method = "decision_function"
    return effect_model(estimator, response_method, target, input_kind, _OWNER)


def effect_model(estimator: Any, response_method: str, target: Any, input_kind: str,
                 owner: str) -> Model:
    """The adapter of a curve method (PD, ALE): ``target`` picks a classifier's class (a
    regressor's output is selected afterwards), NaN outputs refused; a bad estimator or class
    is a ``param_error`` of ``owner`` naming it."""
    refuse_like_sklearn(estimator, response_method, owner)
    is_classifier_like = hasattr(estimator, "classes_") or hasattr(estimator, "predict_proba_one")
    model_target = target if is_classifier_like else None
    try:
        return as_model(
            estimator, response_method=response_method, target=model_target,
            input_kind=input_kind, owner=owner,
        ).refuse_nonfinite_outputs(owner)
    except TypeError as exc:
        raise param_error(
            owner, "estimator",
            "a fitted scikit-learn-API estimator, a River model, a Booster or a callable",
            estimator, exc=TypeError,
        ) from exc
    except ValueError as exc:
        if model_target is not None and "target class" in str(exc):
            classes = getattr(estimator, "classes_", None)
            raise param_error(
                owner, "target", f"one of the model's classes {np.asarray(classes).tolist()}", target
            ) from None
        raise


def _select_regression_target(
    average: np.ndarray | None, individual: np.ndarray | None, model: Model, target: Any
) -> tuple[np.ndarray | None, np.ndarray | None, list[str] | None]:
    if model.is_classifier:
        return average, individual, model.output_names
    arr = average if average is not None else individual
    n_out = 0 if arr is None else arr.shape[0]
    if target is None:
        return average, individual, None
    if (
        isinstance(target, bool)
        or not isinstance(target, numbers.Integral)
        or not 0 <= int(target) < n_out
    ):
        raise param_error(
            _OWNER, "target", f"None or an output index in [0, {n_out - 1}] for this regressor",
            target,
        )
    t = int(target)
    return (
        None if average is None else average[t : t + 1],
        None if individual is None else individual[t : t + 1],
        None,
    )


def _center(
    average: np.ndarray | None, individual: np.ndarray | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Subtract each curve's value at the first grid point (centred PD / c-ICE)."""
    if average is not None:
        first = average.reshape(average.shape[0], -1)[:, :1]
        average = average - first.reshape((average.shape[0],) + (1,) * (average.ndim - 1))
    if individual is not None:
        s = individual.shape
        first = individual.reshape(s[0], s[1], -1)[:, :, :1]
        individual = individual - first.reshape(s[:2] + (1,) * (individual.ndim - 2))
    return average, individual
