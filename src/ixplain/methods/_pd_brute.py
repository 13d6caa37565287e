"""Brute-force partial dependence: the request every PD method takes and the batched ICE function.

Split from :mod:`ixplain.methods.pdp` (which re-exports these names): :class:`PDRequest`, the
numpy fast path that writes grid points into a few columns of one stacked array
(:class:`_ArrayStack`, also through a pipeline's column-wise first step), :func:`ice_predict`
(rows x grid points in a few large model calls) and the engine method :class:`ICEFunction`
behind ``method="brute"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..models import DEFAULT_MEMORY_BUDGET, Model, as_model, call_rows, rows_for_budget
from ..models.adapters import SklearnModel
from ..tabular import Table
from ..tree.partial_dependence import tree_method
from ._engine import (
    Explained,
    Method,
    RowBatch,
    explain_rows,
    register,
)
from ._pd_sklearn import plain_if_equal

_OWNER = "partial_dependence"


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
            g = np.asarray(g)  # every grid value, not one: the first value may be an integer
            rows = table.take(np.resize(np.arange(table.n_rows, dtype=np.intp), len(g)))
            if len(g) and rows.set_column(name, g).upcast - table.upcast:
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
