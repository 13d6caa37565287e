r"""Exact partial dependence of tree ensembles through the tree structure.

Derivation
----------
Partial dependence of a model ``f`` on the target features ``S`` (complement ``C``) over the
rows ``x_1..x_n`` with weights ``w_r`` is, by definition (brute force),

.. math:: PD(v) = \frac{1}{W} \sum_r w_r f(v, x_{r,C}),  \qquad W = \sum_r w_r.

A tree is a sum over its leaves, ``f(x) = sum_l v_l 1[x in B_l]``, and each leaf box is the
intersection of the split conditions on its root-to-leaf path. Split the conditions by the
feature they test: ``1[x in B_l] = 1[x_S in B_l^S] * 1[x_C in B_l^C]``. Then

.. math:: PD(v) = \sum_l v_l\, c_l\, 1[v \in B_l^S], \qquad
          c_l = \frac{1}{W} \sum_r w_r 1[x_{r,C} \in B_l^C].

``B_l^S`` depends only on the tree (intersect the target conditions along the path) and
``c_l`` is the weighted fraction of rows that satisfy the leaf's complement conditions. Both come
from one walk per row: at a split on a complement feature the row follows its branch; at a split
on a target feature it goes both ways, and the child's target box is the parent's narrowed by
the split (``(lo, hi]`` becomes ``(lo, min(hi, t)]`` on the left and ``(max(lo, t), hi]`` on the
right for a numeric split; a category set is intersected with the categories sent that way).
Every leaf a row reaches this way is a leaf whose complement conditions it satisfies, each
exactly once, so summing ``w_r`` over the rows reaching leaf ``l`` gives ``W c_l``. A branch
whose box holds no grid point is not walked. Ensembles are sums (or averages) of trees, so the
same holds tree by tree with the leaf values scaled (learning rate, ``1/n_trees``) and the
constant base score added.

``PD`` is a step function of ``v``: for a numeric target the boxes are intervals ``(lo, hi]``,
i.e. contiguous ranges ``[a, b)`` of the sorted grid; adding ``v_l c_l`` at ``a`` and subtracting
it at ``b`` in a difference array and taking a cumulative sum evaluates the whole curve in
``O(leaves + grid)``; for pairs the boxes are rectangles and the difference array is 2-D (four
corners, cumulative sums along both axes). Categorical targets (or a grid value the trees treat
as missing) use the exact set of grid points each box admits, written as runs of the grid. The
expensive part, the walk, costs about one prediction pass (``O(n * depth * trees)`` plus the
extra branches at target splits) and does not depend on the grid size.

ICE curves (``kind="individual"``) use the same walk keeping row identity: every (row, leaf)
pair adds ``v_l`` to the row's own difference array. A non-linear link (boosted classifiers'
sigmoid/softmax, log-link regressors' exp) does not commute with the average, so the raw score
is built per row this way, the link is applied per row, and the rows are averaged -- still
without a single model call. Probability averages of random forests are linear and use the
coverage path.

The result equals brute force up to floating-point summation order, because the converters
(``_convert``) reproduce each library's split rule exactly (float32 inputs and ``<=`` for
scikit-learn trees, ``<`` on float32 for XGBoost, missing-value directions, categorical bitsets).
With ``grid="thresholds"`` the grid is one point per piece of the step function (each distinct
threshold of the feature and one point above the largest), i.e. the exact curve at full
resolution, which brute force cannot afford.

References
----------
.. [1] J. H. Friedman, "Greedy function approximation: a gradient boosting machine", Annals of
   Statistics 29(5), 2001 (partial dependence; the tree "weighted traversal" approximation that
   scikit-learn's ``method="recursion"`` implements uses training covers, not the data).
.. [2] A. Goldstein, A. Kapelner, J. Bleich, E. Pitkin, "Peeking inside the black box:
   visualizing statistical learning with plots of individual conditional expectation", JCGS
   24(1), 2015.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import is_instance
from .._validation import check_options, param_error
from ..models import Model, as_model
from ..tabular import Table, as_table
from ._convert import UnsupportedModelError, as_tree_ensemble
from ._ensemble import TreeEnsemble, apply_link, encode_column
from ._traverse import coverage, has_numba, row_differences

__all__ = ["threshold_grid_values", "tree_method", "tree_partial_dependence", "tree_unsupported"]

_OWNER = "tree_partial_dependence"
_DIFF_BUDGET = 64 * 2**20  # bytes of per-row difference arrays held at once


@dataclass
class _Target:
    """One target feature: its model column, encoded grid and how boxes are represented."""

    name: str
    feature: int  # model feature index
    grid: np.ndarray  # user grid values (raw), shape (G,)
    encoded: np.ndarray  # encoded grid, shape (G,)
    mode: str  # "range" (sorted grid, intervals) or "mask" (any set of grid points)
    order: np.ndarray  # grid point i sits at position order_inv[i] of the internal axis
    position: np.ndarray

    @property
    def size(self) -> int:
        return len(self.grid)


def tree_partial_dependence(
    model: Any,
    X: Any,
    features: Any,
    grid_values: Any = "thresholds",
    *,
    sample_weight: Any = None,
    kind: str = "average",
    response_method: str = "auto",
    target: Any = None,
    engine: str = "auto",
) -> dict[str, Any]:
    """Exact partial dependence (and ICE) of a tree ensemble, computed through its trees.

    Equal to the brute-force average of the model's predictions over the rows of ``X`` with the
    target features set to each grid value (scikit-learn's ``method="brute"``), at about the cost
    of one prediction pass, without calling the model. See the module docstring for the
    derivation.

    Parameters
    ----------
    model : estimator, Booster or ixplain Model
        A fitted scikit-learn DecisionTree/ExtraTree, RandomForest/ExtraTrees, GradientBoosting,
        HistGradientBoosting, a LightGBM or XGBoost model (scikit-learn wrapper or ``Booster``),
        or an :class:`ixplain.models.Model` wrapping one (its response and target are used).
    X : array-like, DataFrame, list of dict records or Table of shape (n_rows, n_features)
        The data the dependence is averaged over.
    features : str, int or sequence of one or two of them
        The target feature(s): names or column positions. Two features give a 2-way PD.
    grid_values : sequence of array-like or "thresholds", default="thresholds"
        One 1-D array of grid values per target feature, or ``"thresholds"`` (also allowed per
        feature): every piece of the step function, i.e. each distinct split threshold of the
        feature plus one point above the largest -- the exact curve at full resolution.
    sample_weight : array-like of shape (n_rows,), optional
        Non-negative row weights of the average.
    kind : {"average", "individual", "both"}, default="average"
        Partial dependence, ICE curves, or both.
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
        Explained output (ignored when ``model`` is an ixplain Model).
    target : object, optional
        For multiclass classifiers, the one class to keep.
    engine : {"auto", "numpy", "numba"}, default="auto"
        Traversal engine: ``"numba"`` (compiled, needs the ``numba`` package), ``"numpy"`` (pure
        numpy), or ``"auto"`` (numba when installed).

    Returns
    -------
    dict
        ``"grid_values"``: list of 1-D arrays (one per feature); ``"average"``: ndarray of shape
        (n_outputs, G1) or (n_outputs, G1, G2); ``"individual"``: ndarray of shape (n_outputs,
        n_rows, G1[, G2]) -- the shapes of :func:`sklearn.inspection.partial_dependence`.
        ``n_outputs`` is 1 for regressors, binary classifiers (positive class) and a selected
        ``target``, else the number of classes or outputs.

    Raises
    ------
    TypeError
        If the model is not a supported tree ensemble (:func:`supports_tree_method`).
    ValueError
        For an unknown feature, an empty or non-1-D grid, bad ``sample_weight`` or ``kind``.

    References
    ----------
    .. [1] J. H. Friedman, "Greedy function approximation: a gradient boosting machine",
       Annals of Statistics 29(5), 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> tree = DecisionTreeRegressor().fit(X, X[:, 0] + 2 * X[:, 1])
    >>> pd_ = tree_partial_dependence(tree, X, "x0", [np.array([0.0, 1.0])])
    >>> pd_["average"]
    array([[1., 2.]])
    >>> tree_partial_dependence(tree, X, [1], "thresholds")["grid_values"]
    [array([0.5, 1. ])]
    """
    check_options(kind, "kind", _OWNER, ("average", "individual", "both"))
    check_options(engine, "engine", _OWNER, ("auto", "numpy", "numba"))
    engine = _resolve_engine(engine)
    table = as_table(X, owner=_OWNER)
    if table.n_rows == 0:
        raise ValueError(f"{_OWNER} got empty data (0 rows).")
    adapter = as_model(model, response_method=response_method, target=target, owner=_OWNER)
    names = _feature_names(features, table)
    w = _sample_weight(sample_weight, table.n_rows)
    try:
        plan = _plan(adapter, table, names, _grids(grid_values, len(names)))
    except UnsupportedModelError as exc:
        raise TypeError(f"{_OWNER}: {exc}") from exc
    out: dict[str, Any] = {"grid_values": [t.grid for t in plan.targets]}
    out.update(plan.run(w, kind, engine))
    return out


def _resolve_engine(engine: str) -> str:
    if engine == "auto":
        return "numba" if has_numba() else "numpy"
    if engine == "numba" and not has_numba():
        raise ImportError("engine='numba' needs the numba package: pip install numba")
    return engine


@dataclass
class _Plan:
    """A converted model, the data as its trees read it, and the target grids."""

    ens: TreeEnsemble
    X: np.ndarray
    targets: list[_Target]
    keep: Any

    def run(self, w: np.ndarray, kind: str, engine: str) -> dict[str, np.ndarray]:
        result = _compute(self.ens, self.X, w, self.targets, kind, engine)
        if self.keep is not None:
            result = {k: v[self.keep] for k, v in result.items()}
        return result


def _plan(adapter: Model, table: Table, names: list[str], grids: list[Any]) -> _Plan:
    """Convert the model, read the data and encode the grids (raises UnsupportedModelError)."""
    ens = as_tree_ensemble(adapter.model, response_method=adapter.response_method)
    Xm = _read(ens, adapter, table)
    targets = [_make_target(ens, adapter, table, Xm, n, g) for n, g in zip(names, grids)]
    return _Plan(ens, Xm, targets, _output_columns(adapter, ens))


# ---------------------------------------------------------------------------- partial_dependence
# Hooks for :func:`ixplain.partial_dependence` (``method="tree"``/``"auto"``, ``grid="thresholds"``).
# The plan (converted model, encoded data and grids) is kept on the request between the check and
# the computation, so ``method="auto"`` converts the model once.
_PLAN_ATTR = "_tree_plan"


def tree_unsupported(req: Any) -> str | None:
    """Why the tree method cannot compute ``req`` (a ``PDRequest``); None when it can."""
    if getattr(req, _PLAN_ATTR, None) is not None:
        return None
    try:
        plan = _plan(req.model, req.table, list(req.features), list(req.grid_values))
    except (UnsupportedModelError, TypeError, ValueError, KeyError) as exc:
        return str(exc)
    setattr(req, _PLAN_ATTR, plan)
    return None


def tree_method(req: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``method="tree"`` of :func:`ixplain.partial_dependence`: (average, individual)."""
    plan = getattr(req, _PLAN_ATTR, None)
    if plan is None:
        plan = _plan(req.model, req.table, list(req.features), list(req.grid_values))
    n = req.table.n_rows
    w = np.ones(n) if req.sample_weight is None else np.asarray(req.sample_weight, float)
    result = plan.run(w, req.kind, _resolve_engine("auto"))
    return result.get("average"), result.get("individual")


def threshold_grid_values(model: Model, table: Table, names: list[str]) -> dict[str, np.ndarray]:
    """``grid="thresholds"``: for each feature, one value in each piece of the PD step function.

    Raises
    ------
    ValueError
        If the model is not a supported tree ensemble or a feature has categorical splits.
    """
    try:
        plan = _plan(model, table, names, ["thresholds"] * len(names))
    except UnsupportedModelError as exc:
        raise ValueError(
            f"grid='thresholds' needs a tree model the tree method supports: {exc}"
        ) from exc
    return {t.name: t.grid for t in plan.targets}


# ---------------------------------------------------------------------------- inputs
def _feature_names(features: Any, table: Table) -> list[str]:
    if isinstance(features, (str, int, np.integer)):
        features = [features]
    features = list(features)
    if not 1 <= len(features) <= 2:
        raise param_error(_OWNER, "features", "one feature or a pair of features", features)
    names = []
    for f in features:
        if isinstance(f, (int, np.integer)) and not isinstance(f, bool):
            if not 0 <= int(f) < len(table.names):
                raise param_error(
                    _OWNER, "features", f"column positions in [0, {len(table.names)})", f
                )
            names.append(table.names[int(f)])
        elif str(f) not in table.names:  # the message partial_dependence gives
            raise ValueError(
                f"The 'features' parameter of {_OWNER} names an unknown feature {f!r}. "
                f"Available features: {list(table.names)}."
            )
        else:
            names.append(str(f))
    if len(set(names)) != len(names):
        raise param_error(_OWNER, "features", "distinct features", features)
    return names


def _sample_weight(sample_weight: Any, n: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise param_error(
            _OWNER,
            "sample_weight",
            f"an array of {n} finite non-negative weights with a positive sum",
            f"an array of shape {w.shape}",
        )
    return w


def _grids(grid_values: Any, n_features: int) -> list[Any]:
    if isinstance(grid_values, str):
        if grid_values != "thresholds":
            raise param_error(_OWNER, "grid_values", "'thresholds' or one array per feature",
                              grid_values)
        return ["thresholds"] * n_features
    grids = list(grid_values)
    if len(grids) != n_features:
        raise param_error(
            _OWNER, "grid_values", f"a sequence of {n_features} grids (one per feature)",
            f"{len(grids)} grids",
        )
    return grids


def _read(ens: TreeEnsemble, adapter: Model, table: Table) -> np.ndarray:
    """The table as the trees see it: encoded float64 of shape (n_rows, n_model_features)."""
    if ens.preprocess is not None:
        raw = ens.preprocess(table.to_native(adapter.native_kind(table)))
    else:
        # scikit-learn and XGBoost refuse renamed or reordered columns at predict time; LightGBM
        # reads columns by position (and sanitises the names it stores), as its trees do here
        fitted = getattr(adapter.model, "feature_names_in_", None)
        if (
            fitted is not None
            and ens.library != "lightgbm"
            and table.schema.source != "numpy"
            and [str(c) for c in fitted] != list(table.names)
        ):
            raise ValueError(
                f"{_OWNER}: the feature names of X {list(table.names)} do not match those the "
                f"model was fitted on {[str(c) for c in fitted]} (same columns in the same "
                "column order needed)."
            )
        if len(table.names) != ens.n_features:
            raise ValueError(
                f"{_OWNER}: the model has {ens.n_features} features; the data has "
                f"{len(table.names)} columns."
            )
        raw = np.empty((table.n_rows, ens.n_features))
        for j in range(ens.n_features):
            name = table.names[ens.column_position(j)]
            if is_instance(table.schema.dtypes[ens.column_position(j)], "pandas", "CategoricalDtype"):
                raise UnsupportedModelError(
                    f"{_OWNER}: column {name!r} is a pandas categorical; the tree method reads "
                    f"pandas categoricals only for HistGradientBoosting and LightGBM models "
                    f"fitted on them, not for this {ens.library} model."
                )
            try:
                raw[:, j] = table.numeric_column(name)
            except (TypeError, ValueError) as exc:
                raise TypeError(
                    f"{_OWNER}: column {name!r} is not numeric (dtype "
                    f"{table.schema.dtypes[ens.column_position(j)]}); the tree method reads "
                    f"numeric or integer-coded columns for {ens.library} models."
                ) from exc
    return ens.encode(raw)


def _make_target(
    ens: TreeEnsemble, adapter: Model, table: Table, Xm: np.ndarray, name: str, grid: Any
) -> _Target:
    position = table.schema.index(name)
    j = ens.model_feature(position)
    on_j = ens.feature == j
    has_cat = bool(np.any(ens.cat_index[on_j] >= 0))
    if isinstance(grid, str):
        if grid != "thresholds":
            raise param_error(_OWNER, "grid_values", "'thresholds' or an array", grid)
        if has_cat:
            raise ValueError(
                f"{_OWNER}: grid 'thresholds' needs a numeric feature; {name!r} has categorical "
                "splits. Pass its categories as the grid."
            )
        values = _threshold_grid(ens, j, Xm[:, j])
    else:
        values = np.asarray(grid)
        if values.ndim != 1 or values.size == 0:
            raise param_error(
                _OWNER, "grid_values", "1-D non-empty arrays", f"shape {values.shape} for {name!r}"
            )
    encoded = _encode_grid(ens, adapter, table, position, j, values)
    mode = "mask" if (has_cat or np.isnan(encoded).any()) else "range"
    if mode == "range":
        order = np.argsort(encoded, kind="stable")
    else:
        order = np.arange(len(values))
    pos = np.empty_like(order)
    pos[order] = np.arange(len(order))
    return _Target(name, j, values, encoded, mode, order, pos)


def _encode_grid(
    ens: TreeEnsemble, adapter: Model, table: Table, position: int, j: int, values: np.ndarray
) -> np.ndarray:
    """Encoded grid values: the grid written into a table and read like the data."""
    if ens.preprocess is None:
        try:
            raw = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"{_OWNER}: grid values of {table.names[position]!r} must be numeric for this "
                f"model; got {values[:5]!r}."
            ) from exc
        return encode_column(raw, ens.encoders[j], ens.known_categories.get(j))
    rows = table.take(np.zeros(len(values), dtype=np.intp))
    rows = rows.set_column(table.names[position], values)
    native = rows.to_native(adapter.native_kind(rows))
    return ens.encode(ens.preprocess(native))[:, j]


def _threshold_grid(ens: TreeEnsemble, j: int, column: np.ndarray) -> np.ndarray:
    """One grid value inside each piece of the step function of feature ``j``.

    ``column`` is the encoded data column (used for a featureless tree and for the last piece).
    """
    t = np.unique(ens.threshold[(ens.feature == j) & (ens.cat_index < 0)])
    t = t[np.isfinite(t)]
    if t.size == 0:
        finite = column[np.isfinite(column)]
        return np.array([finite[0] if finite.size else 0.0])
    enc = ens.encoders[j]
    if enc == "float32":
        # largest float32 <= t (inside the piece ending at t) and the first float32 above t_max
        down = t.astype(np.float32)
        down = np.where(down > t, np.nextafter(down, np.float32(-np.inf)), down)
        vals = down.astype(np.float64)
        top32 = np.float32(t[-1])
        if top32 <= t[-1]:
            top32 = np.nextafter(top32, np.float32(np.inf))
        top = float(top32)
    else:
        vals = t
        top = float(np.nextafter(t[-1], np.inf))
    finite = column[np.isfinite(column)]
    if finite.size and finite.max() > t[-1]:
        top = float(finite.max())  # the data's largest value is in the last piece: nicer to read
    encoded = encode_column(vals, enc)
    keep = np.concatenate([[True], encoded[1:] > encoded[:-1]])
    return np.concatenate([vals[keep], [top]])


def _output_columns(adapter: Model, ens: TreeEnsemble) -> Any:
    if adapter.target is not None and adapter.classes_ is not None and ens.n_outputs > 1:
        matches = np.flatnonzero(np.asarray(adapter.classes_, dtype=object) == adapter.target)
        return [int(matches[0])]
    return None


# ---------------------------------------------------------------------------- computation
def _compute(
    ens: TreeEnsemble,
    X: np.ndarray,
    w: np.ndarray,
    targets: list[_Target],
    kind: str,
    engine: str,
) -> dict[str, np.ndarray]:
    is_target, visit_left, visit_right, box_ptr, boxes = _boxes(ens, targets)
    shape = (targets[0].size, targets[1].size if len(targets) > 1 else 1)
    K = ens.n_outputs
    out: dict[str, np.ndarray] = {}
    if kind == "average" and ens.link == "identity":
        c = coverage(ens, X, w, is_target, visit_left, visit_right, engine)
        D = _leaf_differences(ens, c, box_ptr, boxes, shape)
        avg = _integrate(D)[None] / w.sum() + ens.base[None, :, None, None]
        out["average"] = _finish(avg[0], targets)
        return out
    n = X.shape[0]
    per_row = K * shape[0] * shape[1] * 8
    step = max(1, _DIFF_BUDGET // per_row)
    total = np.zeros((K, shape[0], shape[1]))
    ice = np.empty((n, K, shape[0], shape[1])) if kind != "average" else None
    for s in range(0, n, step):
        e = min(s + step, n)
        D = row_differences(
            ens, X[s:e], is_target, visit_left, visit_right, box_ptr, boxes, shape, engine
        )
        raw = _integrate(D) + ens.base[None, :, None, None]
        pred = apply_link(raw, ens.link, axis=1)
        total += np.tensordot(w[s:e], pred, axes=(0, 0))
        if ice is not None:
            ice[s:e] = pred
    if kind != "individual":
        out["average"] = _finish(total / w.sum(), targets)
    if ice is not None:
        out["individual"] = _finish(np.moveaxis(ice, 0, 1), targets)
    return out


def _integrate(D: np.ndarray) -> np.ndarray:
    """Cumulative sums of difference arrays along the last two axes (the grid axes)."""
    return np.cumsum(np.cumsum(D, axis=-2), axis=-1)


def _finish(values: np.ndarray, targets: list[_Target]) -> np.ndarray:
    """Internal grid axes -> user grid order; drop the dummy second axis of a 1-way PD."""
    values = np.take(values, targets[0].position, axis=-2)
    if len(targets) == 1:
        return values[..., 0]
    return np.take(values, targets[1].position, axis=-1)


def _leaf_differences(
    ens: TreeEnsemble, c: np.ndarray, box_ptr: np.ndarray, boxes: np.ndarray, shape: tuple
) -> np.ndarray:
    """Difference array (K, G1, G2) of ``sum_l c_l v_l 1[box_l]`` (corners past the grid dropped)."""
    K = ens.n_outputs
    g0, g1 = shape
    leaf_of_box = np.repeat(np.arange(ens.n_nodes), np.diff(box_ptr))
    a1, b1, a2, b2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    corners = [(a1, a2, 1.0), (b1, a2, -1.0), (a1, b2, -1.0), (b1, b2, 1.0)]
    D = np.zeros((K, g0, g1))
    for k in range(K):
        v = c[leaf_of_box] * ens.value[leaf_of_box, k]
        idx, vals = [], []
        for i, j, sign in corners:
            ok = (i < g0) & (j < g1)
            idx.append(i[ok] * g1 + j[ok])
            vals.append(sign * v[ok])
        D[k] = np.bincount(np.concatenate(idx), weights=np.concatenate(vals),
                           minlength=g0 * g1).reshape(g0, g1)
    return D


def _boxes(ens: TreeEnsemble, targets: list[_Target]) -> tuple[np.ndarray, ...]:
    """Static part: target boxes of every node, which children to visit, leaf boxes (CSR).

    Returns ``is_target`` (n_nodes,), ``visit_left``/``visit_right`` (n_nodes,) and the leaf
    boxes in grid-index space: ``box_ptr`` (n_nodes + 1,) and ``boxes`` (n_boxes, 4) with rows
    ``[a1, b1, a2, b2]`` meaning grid positions ``[a1, b1) x [a2, b2)``.
    """
    is_target = np.zeros(ens.n_nodes, dtype=bool)
    for t in targets:
        is_target |= ens.feature == t.feature
    state, cuts = _initial_boxes(ens, targets)
    nonempty = _narrow_boxes(ens, targets, state, cuts)
    visit_left = nonempty[np.maximum(ens.left, 0)] & (ens.left >= 0)
    visit_right = nonempty[np.maximum(ens.right, 0)] & (ens.right >= 0)
    box_ptr, boxes = _leaf_boxes(ens, targets, state, nonempty)
    return is_target, visit_left, visit_right, box_ptr, boxes


def _initial_boxes(ens: TreeEnsemble, targets: list[_Target]) -> tuple[list[Any], list[Any]]:
    """Every node's box before narrowing (the whole grid) and the grid cut of each threshold.

    Per dimension: for "range", the sorted-grid positions [a, b) inside the node's interval
    (lo, hi] (a threshold t maps once to cut[t] = #grid values <= t; the interval narrows to
    [a, min(b, cut)) on the left and [max(a, cut), b) on the right); for "mask", boolean masks
    over the grid.
    """
    n = ens.n_nodes
    state: list[Any] = []
    cuts: list[Any] = []
    for t in targets:
        if t.mode == "range":
            state.append([np.zeros(n, dtype=np.int64), np.full(n, t.size, dtype=np.int64)])
            on = ens.feature == t.feature
            cut = np.zeros(n, dtype=np.int64)
            cut[on] = np.searchsorted(t.encoded[t.order], ens.threshold[on], side="right")
            cuts.append(cut)
        else:
            state.append(np.ones((n, t.size), dtype=bool))
            cuts.append(None)
    return state, cuts


def _narrow_boxes(
    ens: TreeEnsemble, targets: list[_Target], state: list[Any], cuts: list[Any]
) -> np.ndarray:
    """Pass the boxes down the trees level by level (in place); returns which are non-empty."""
    nonempty = np.ones(ens.n_nodes, dtype=bool)
    frontier = ens.roots
    while frontier.size:
        internal = frontier[ens.feature[frontier] >= 0]
        if not internal.size:
            break
        L, R = ens.left[internal], ens.right[internal]
        for d, t in enumerate(targets):
            sn = internal[ens.feature[internal] == t.feature]
            if t.mode == "range":
                a, b = state[d]
                a[L], b[L], a[R], b[R] = a[internal], b[internal], a[internal], b[internal]
                b[ens.left[sn]] = np.minimum(b[sn], cuts[d][sn])
                a[ens.right[sn]] = np.maximum(a[sn], cuts[d][sn])
            else:
                M = state[d]
                M[L], M[R] = M[internal], M[internal]
                if sn.size:
                    gl = ens.go_left(np.tile(t.encoded, sn.size), np.repeat(sn, t.size))
                    gl = gl.reshape(sn.size, t.size)
                    M[ens.left[sn]] &= gl
                    M[ens.right[sn]] &= ~gl
        children = np.concatenate([L, R])
        ok = nonempty[np.concatenate([internal, internal])]
        for d, t in enumerate(targets):
            if t.mode == "range":
                ok &= state[d][0][children] < state[d][1][children]
            else:
                ok &= state[d][children].any(axis=1)
        nonempty[children] = ok
        frontier = children[ok]
    return nonempty


def _leaf_boxes(
    ens: TreeEnsemble, targets: list[_Target], state: list[Any], nonempty: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(box_ptr, boxes): the grid boxes of the reachable leaves with a non-empty box (CSR)."""
    leaves = np.flatnonzero(ens.is_leaf & nonempty)
    runs = []
    for d, t in enumerate(targets):
        if t.mode == "range":
            runs.append((np.arange(leaves.size), state[d][0][leaves], state[d][1][leaves]))
        else:
            runs.append(_mask_runs(state[d][leaves]))
    if len(targets) == 1:
        idx, a1, b1 = runs[0]
        a2 = np.zeros_like(a1)
        b2 = np.ones_like(b1)
    elif targets[0].mode == targets[1].mode == "range":  # one box per leaf
        idx, a1, b1 = runs[0]
        a2, b2 = runs[1][1], runs[1][2]
    else:
        idx, a1, b1, a2, b2 = _cross(runs[0], runs[1])
    if not np.all(idx[1:] >= idx[:-1]):
        order = np.argsort(idx, kind="stable")
        idx, a1, b1, a2, b2 = idx[order], a1[order], b1[order], a2[order], b2[order]
    counts = np.bincount(leaves[idx], minlength=ens.n_nodes)
    box_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    boxes = np.stack([a1, b1, a2, b2], axis=1).astype(np.int64)
    return box_ptr, boxes


def _mask_runs(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs of True in each row of ``M``: (row index, start, stop) arrays."""
    padded = np.zeros((M.shape[0], M.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = M
    step = np.diff(padded, axis=1)
    r_start, c_start = np.nonzero(step == 1)
    _, c_stop = np.nonzero(step == -1)
    return r_start, c_start, c_stop


def _cross(r1: tuple, r2: tuple) -> tuple[np.ndarray, ...]:
    """Cartesian product, per leaf, of the runs of two dimensions."""
    i1, a1, b1 = (np.asarray(x) for x in r1)
    i2, a2, b2 = (np.asarray(x) for x in r2)
    o1, o2 = np.argsort(i1, kind="stable"), np.argsort(i2, kind="stable")
    i1, a1, b1, i2, a2, b2 = i1[o1], a1[o1], b1[o1], i2[o2], a2[o2], b2[o2]
    n = int(max(i1.max(initial=-1), i2.max(initial=-1))) + 1
    c2 = np.bincount(i2, minlength=n)
    start2 = np.concatenate([[0], np.cumsum(c2)])[:-1]
    # every run of dim 1 pairs with all runs of dim 2 of the same leaf
    reps = c2[i1]
    j1 = np.repeat(np.arange(i1.size), reps)
    within = np.arange(j1.size) - np.repeat(np.cumsum(reps) - reps, reps)
    j2 = start2[i1[j1]] + within
    return i1[j1], a1[j1], b1[j1], a2[j2], b2[j2]
