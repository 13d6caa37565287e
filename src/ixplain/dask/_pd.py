"""``ixplain.dask.partial_dependence``: PD and ICE over partitions, equal to the single-machine
result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_bool, check_int, check_memory_budget, check_options, param_error
from ..grids import FeatureGrid, feature_grid
from ..methods import pdp as _pdp
from ..methods._engine import explain_partitions, make_progress
from ..models.base import DEFAULT_MEMORY_BUDGET
from ..results.partial_dependence import PartialDependence
from ..tabular import as_table
from ._partitions import (
    _feature_labels,
    _head,
    _plain_columns,
    _require_dask_frame,
)

__all__ = ["partial_dependence"]


_PD_OWNER = "ixplain.dask.partial_dependence"


def partial_dependence(
    estimator: Any,
    ddf: Any,
    features: Any,
    *,
    sample_weight: str | None = None,
    categorical_features: Any = None,
    response_method: str = "auto",
    percentiles: tuple[float, float] = (0.05, 0.95),
    grid_resolution: int = 100,
    custom_values: dict[Any, Any] | None = None,
    method: str = "auto",
    kind: str = "average",
    grid: str = "percentile",
    target: Any = None,
    include_missing: bool = False,
    centered: bool = False,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Any = False,
) -> PartialDependence:
    """Partial dependence and ICE over a Dask DataFrame, equal to the single-machine result.

    The grid is built on the client from the gathered target columns; every partition then
    evaluates PD/ICE's explanation function (the ICE curve of each row on that grid, the same
    function :func:`ixplain.partial_dependence` averages) and returns the weighted mean state
    of its curves; the states are merged. The result equals
    ``ixplain.partial_dependence(estimator, ddf.compute(), features, ...)`` to float rounding
    (max abs difference ~1e-15 relative), for any number of partitions.

    Parameters
    ----------
    estimator : estimator, Booster or callable
        The fitted model; it is shipped to the workers (it must pickle).
    ddf : dask.dataframe.DataFrame
        The rows to average over (``n_rows`` in all, any number of partitions).
    features : str, int, or a pair of them
        The feature (1-way) or two features (2-way) whose PD is computed.
    sample_weight : str, optional
        Name of a column of ``ddf`` holding row weights (that column is not passed to the model).
    categorical_features, response_method, percentiles, grid_resolution, custom_values, method, grid, target, centered, memory_budget
        As in :func:`ixplain.partial_dependence`. ``method="recursion"`` does not read the rows
        (it uses the trees' training cover) and runs on the client.
    kind : {"average", "individual", "both"}, default="average"
        ``"individual"`` / ``"both"`` gather every row's ICE curve on the client (n_rows x
        n_grid values per output): only for data whose curves fit in memory.
    include_missing : bool, default=False
        Add a NaN grid point to numeric features with missing values (for models that accept
        NaN). Not detected automatically here; the single-machine default is ``"auto"``.
    progress : bool or callable, default=False
        ``True``: a tqdm bar (or lines on stderr); a callable receives a
        :class:`~ixplain.ProgressInfo` (rows done, total) as partitions finish.

    Returns
    -------
    PartialDependence
        ``average`` of shape (n_outputs, n_grid_0[, n_grid_1]) (None for ``"individual"``);
        ``individual`` of shape (n_outputs, n_rows, n_grid_0[, n_grid_1]) or ``None``.

    Raises
    ------
    TypeError
        If ``ddf`` is not a Dask DataFrame.
    ValueError
        For an unknown feature or weight column, an empty DataFrame, or any argument that
        :func:`ixplain.partial_dependence` refuses (same messages).
    ImportError
        If dask is not installed.

    References
    ----------
    .. [1] J. H. Friedman, "Greedy function approximation: a gradient boosting machine",
       Annals of Statistics 29(5), 2001.
    .. [2] A. Goldstein et al., "Peeking inside the black box: visualizing statistical learning
       with plots of individual conditional expectation", JCGS 24(1), 2015.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> from ixplain.dask import partial_dependence
    >>> df = pd.DataFrame({"a": np.arange(8.0), "b": np.arange(8.0) % 3})
    >>> res = partial_dependence(lambda X: X["a"] * X["b"], dd.from_pandas(df, npartitions=3), "a",
    ...                          custom_values={"a": [0.0, 1.0]})
    >>> res.average  # mean of b is 7/8
    array([[0.   , 0.875]])
    """
    _require_dask_frame(ddf, _PD_OWNER)
    _check_pd_options(grid_resolution, percentiles, method, kind, include_missing, centered)
    memory_budget = check_memory_budget(memory_budget, _PD_OWNER)
    report = make_progress(progress, _PD_OWNER)
    columns = _plain_columns(ddf, None, (None, sample_weight), _PD_OWNER)
    labels = _feature_labels(features, columns, _PD_OWNER)
    grids = _pd_grids(ddf, labels, categorical_features, percentiles, grid_resolution,
                      custom_values, grid, include_missing)
    _pdp._check_sizes(grids, 0, len(columns), "average", grid_resolution, memory_budget,
                      _PD_OWNER)  # the grid's smallest model call (ICE: gathered per partition)
    model = _pdp._make_model(estimator, response_method, target, "auto", method)
    head = _head(ddf, columns, _PD_OWNER)
    req = _pdp.PDRequest(
        model=model, table=head, features=[str(lab) for lab in labels],
        grid_values=[g.values for g in grids],
        sample_weight=None if sample_weight is None else np.ones(1), kind=kind, batch_rows=1,
    )
    used, average, individual, n_rows = _pd_compute(req, method, ddf, columns, sample_weight,
                                                    memory_budget, report)
    average, individual, output_names = _pdp._select_regression_target(
        average, individual, model, target
    )
    if centered:
        average, individual = _pdp._center(average, individual)
    return PartialDependence(
        grid_values=[g.values for g in grids], average=average, individual=individual,
        features=tuple(req.features), feature_kinds=tuple(g.kind for g in grids),
        deciles=[g.deciles for g in grids], kind=kind, method=used, centered=centered,
        output_names=output_names, target=target, response_method=model.response_method,
        upcast=tuple(sorted(req.upcast)), missing_in_grid=tuple(g.has_missing for g in grids),
        grid_rules=tuple(g.rule for g in grids), n_rows=n_rows,
    )


def _check_pd_options(grid_resolution: Any, percentiles: Any, method: Any, kind: Any,
                      include_missing: Any, centered: Any) -> None:
    check_int(grid_resolution, "grid_resolution", _PD_OWNER, min_value=2)
    try:
        lo, hi = (float(p) for p in percentiles)
        ok = 0 <= lo < hi <= 1 and not isinstance(percentiles, (str, bytes))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise param_error(_PD_OWNER, "percentiles",
                          "a tuple of two floats (low, high) with 0 <= low < high <= 1",
                          percentiles)
    check_options(method, "method", _PD_OWNER, ("auto", "brute", "recursion", "tree"))
    check_options(kind, "kind", _PD_OWNER, ("average", "individual", "both"))
    check_bool(include_missing, "include_missing", _PD_OWNER)
    check_bool(centered, "centered", _PD_OWNER)


def _pd_grids(ddf: Any, labels: list[Any], categorical_features: Any, percentiles: Any,
              grid_resolution: int, custom_values: Any, grid: str,
              include_missing: bool) -> list[FeatureGrid]:
    """The global grid, from the target columns only (exactly the single-machine rule)."""
    gathered = ddf[labels].compute()
    if len(gathered) == 0:
        raise ValueError(f"{_PD_OWNER}: the DataFrame has 0 rows; partial dependence needs rows.")
    cat = None
    if categorical_features is not None:
        cats = (
            [categorical_features]
            if isinstance(categorical_features, (str, int))
            else list(categorical_features)
        )
        cat = [str(c) for c in cats]
    table = as_table(gathered, categorical_features=cat, owner=_PD_OWNER)
    custom = {str(k): v for k, v in (custom_values or {}).items()}
    return [
        feature_grid(
            table, str(lab), percentiles=percentiles, grid_resolution=grid_resolution, grid=grid,
            custom_values=custom.get(str(lab)), include_missing=include_missing, owner=_PD_OWNER,
        )
        for lab in labels
    ]


def _pd_compute(req: Any, method: str, ddf: Any, columns: list[Any], sample_weight: Any,
                memory_budget: int, report: Any) -> tuple[str, Any, Any, int]:
    """``(method used, average, individual, n_rows)``: ICEFunction over the partitions (or
    recursion on the client)."""
    name = _pdp._resolve_auto(req) if method == "auto" else method
    _pdp.refuse_unsupported(name, req, _PD_OWNER)
    if name == "recursion":
        average, _ = _pdp._recursion_method(req)
        return name, average, None, int(ddf.map_partitions(len).compute().sum())
    fn = _pdp.ICEFunction(req.model, req.features, req.grid_values, method=name,
                          memory_budget=memory_budget)
    explained = explain_partitions(fn, ddf, columns=columns, sample_weight=sample_weight,
                                   memory_budget=memory_budget, progress=report,
                                   keep_values=req.kind != "average", owner=_PD_OWNER)
    if explained.mean.weight_sum <= 0:
        raise ValueError(f"{_PD_OWNER}: the sample weights sum to {explained.mean.weight_sum}; "
                         "need > 0.")
    average, individual = fn.result(explained)
    req.upcast |= fn.upcast(req.table)
    n_rows = len(explained.values) if explained.values is not None else explained.mean.n
    if sample_weight is not None and explained.values is None:
        n_rows = int(ddf.map_partitions(len).compute().sum())
    return name, (None if req.kind == "individual" else average), individual, n_rows
