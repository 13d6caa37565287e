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
from dataclasses import replace
from typing import Any

import numpy as np

from .._numeric import overflow_reported
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
from ..models import DEFAULT_MEMORY_BUDGET, Model, as_model, call_rows
from ..models.adapters import BoosterModel, SklearnModel
from ..results.partial_dependence import PartialDependence
from ..tabular import Table, UnsupportedInputError, as_table
from ..tree.partial_dependence import threshold_grid_values, tree_method, tree_unsupported
from ._engine import (
    ProgressInfo,
    make_progress,
)
from ._pd_brute import (  # noqa: F401  (re-exported: importable from pdp)
    ICEFunction,
    MethodFn,
    PDRequest,
    _array_stack,
    _ArrayStack,
    _as_float,
    _brute_method,
    _column_owners,
    _grid_points,
    _one_row_ice,
    _separable_first_step,
    ice_predict,
)
from ._pd_recursion import (  # noqa: F401  (re-exported: importable from pdp)
    _boosting_baseline,
    _recursion_classes,
    _recursion_method,
    _recursion_unsupported,
)
from ._pd_sklearn import check_weights, ignored_custom_key, refuse_like_sklearn

__all__ = ["PDRequest", "partial_dependence"]

_OWNER = "partial_dependence"
_KINDS = ("average", "individual", "both")
_RESPONSES = ("auto", "predict", "predict_proba", "decision_function")


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
    with overflow_reported():  # (a variance of huge outputs overflows; the PD does not)
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
