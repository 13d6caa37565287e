"""Scale-out on Dask: static explanations over a partitioned ``dask.dataframe.DataFrame``.

Every static explanation in ixplain is a mean of a per-observation explanation function, so it
splits over partitions: each partition computes a weighted partial sum with the single-machine
code, and the partial sums are reduced. Nothing but the reduced arrays leaves a worker.

* :func:`partial_dependence` is *exactly* the single-machine
  :func:`ixplain.partial_dependence` on the concatenated data (up to float summation order): the
  grid is built once from the gathered target columns (only those columns, ``n_rows x
  len(features)`` values, travel to the client), then every partition evaluates the same grid.
* :func:`permutation_importance` is the explanation-function form of permutation importance
  (the iPFI paper's ``lambda``): for every row and feature, the loss increase when the feature
  takes the value of a row drawn from a background sample of the whole data, averaged over rows
  with :class:`~ixplain.aggregation.Mean` aggregators merged across partitions. It depends on the
  partitioning only through the random draws (child seeds per partition), never on the
  scheduler or the number of workers.

Install with ``pip install 'ixplain[dask]'``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ._validation import check_bool, check_options, param_error
from .grids import FeatureGrid, feature_grid
from .methods.pdp import partial_dependence as _partial_dependence
from .models.base import DEFAULT_MEMORY_BUDGET
from .results.partial_dependence import PartialDependence
from .tabular import as_table

__all__ = ["partial_dependence"]

_PD_OWNER = "ixplain.dask.partial_dependence"


def _require_dask_frame(ddf: Any, owner: str) -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError(
            f"{owner} needs dask: pip install 'ixplain[dask]' (or pip install 'dask[dataframe]')."
        ) from exc
    if not isinstance(ddf, dd.DataFrame):
        raise param_error(owner, "ddf", "a dask.dataframe.DataFrame", type(ddf).__name__,
                          exc=TypeError)
    return dd


def _feature_labels(features: Any, columns: list[Any], owner: str) -> list[Any]:
    feats = [features] if isinstance(features, (str, int, np.integer)) else list(features)
    if not feats or len(feats) > 2:
        raise param_error(owner, "features", "one feature or a pair of features", features)
    by_name = {str(c): c for c in columns}
    out = []
    for f in feats:
        if isinstance(f, (int, np.integer)) and not isinstance(f, bool) and f not in columns:
            if not 0 <= int(f) < len(columns):
                raise ValueError(
                    f"{owner}: feature index {f} is out of range for {len(columns)} columns."
                )
            out.append(columns[int(f)])
        elif str(f) in by_name:
            out.append(by_name[str(f)])
        else:
            raise ValueError(
                f"{owner}: unknown feature {f!r}. Available features: {[str(c) for c in columns]}."
            )
    return out


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
    grid: str = "percentile",
    target: Any = None,
    include_missing: bool = False,
    centered: bool = False,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> PartialDependence:
    """Partial dependence over a Dask DataFrame, equal to the single-machine result.

    Each partition runs :func:`ixplain.partial_dependence` with the global grid and returns its
    weighted sum of ICE curves; the sums are added and divided by the total weight. The result
    equals ``ixplain.partial_dependence(estimator, ddf.compute(), features, ...)`` to float
    rounding (max abs difference ~1e-15 relative).

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
        As in :func:`ixplain.partial_dependence` (``kind`` is ``"average"``: ICE curves of
        data beyond one machine do not fit on one).
    include_missing : bool, default=False
        Add a NaN grid point to numeric features with missing values (for models that accept
        NaN). Not detected automatically here; the single-machine default is ``"auto"``.

    Returns
    -------
    PartialDependence
        ``average`` of shape (n_outputs, n_grid_0[, n_grid_1]); ``individual`` is ``None``.

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
    dd = _require_dask_frame(ddf, _PD_OWNER)
    check_options(method, "method", _PD_OWNER, ("auto", "brute", "recursion", "tree"))
    include_missing = check_bool(include_missing, "include_missing", _PD_OWNER)
    centered = check_bool(centered, "centered", _PD_OWNER)
    columns = list(ddf.columns)
    if sample_weight is not None:
        if sample_weight not in columns:
            raise ValueError(
                f"{_PD_OWNER}: the sample_weight column {sample_weight!r} is not in the "
                f"DataFrame (columns {[str(c) for c in columns]})."
            )
        columns.remove(sample_weight)
    labels = _feature_labels(features, columns, _PD_OWNER)

    # 1. the global grid, from the target columns only (exactly the single-machine rule)
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
    grids: list[FeatureGrid] = [
        feature_grid(
            table, str(lab), percentiles=percentiles, grid_resolution=grid_resolution, grid=grid,
            custom_values=custom.get(str(lab)), include_missing=include_missing, owner=_PD_OWNER,
        )
        for lab in labels
    ]
    part_custom = {lab: g.values for lab, g in zip(labels, grids)}

    # 2. one weighted partial sum per partition, with the single-machine code
    def partial_sum(part: Any) -> tuple[np.ndarray, float, str, Any]:
        weights = None
        if sample_weight is not None:
            weights = part[sample_weight].to_numpy(dtype=np.float64)
            part = part.drop(columns=[sample_weight])
        if len(part) == 0:
            return np.zeros(0), 0.0, "", None
        res = _partial_dependence(
            estimator, part, labels, sample_weight=weights,
            categorical_features=categorical_features, response_method=response_method,
            custom_values=part_custom, method=method, kind="average", target=target,
            include_missing=False, memory_budget=memory_budget,
        )
        total = float(len(part)) if weights is None else float(weights.sum())
        average = np.asarray(res.average, dtype=np.float64)
        return average * total, total, res.method, res

    import dask

    parts = [dask.delayed(partial_sum)(p) for p in ddf.to_delayed()]
    results = [r for r in dask.compute(*parts) if r[3] is not None]
    if not results:
        raise ValueError(f"{_PD_OWNER}: every partition is empty.")
    total_weight = sum(r[1] for r in results)
    if total_weight <= 0:
        raise ValueError(f"{_PD_OWNER}: the sample weights sum to {total_weight}; need > 0.")
    average = sum(r[0] for r in results) / total_weight
    if centered:
        first = average.reshape(average.shape[0], -1)[:, :1]
        average = (average.reshape(average.shape[0], -1) - first).reshape(average.shape)
    template: PartialDependence = results[0][3]
    del dd
    return dataclasses.replace(
        template,
        grid_values=[g.values for g in grids],
        average=average,
        individual=None,
        deciles=[g.deciles for g in grids],
        method=results[0][2],
        centered=centered,
        grid_rules=tuple(g.rule for g in grids),
        n_rows=int(len(gathered)),
        missing_in_grid=tuple(g.has_missing for g in grids),
    )
