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
  takes the value of a row drawn from a background sample of the whole data (marginal
  imputation), averaged over rows with :class:`~ixplain.aggregation.Mean` aggregators merged
  across partitions. Its expectation is the single-machine permutation importance with ``loss``;
  given ``random_state`` and the partitioning, the result is fixed (child seeds per partition),
  whatever the scheduler or the number of workers.

Install with ``pip install 'ixplain[dask]'``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ._validation import check_bool, check_int, check_options, check_random_state, param_error
from .aggregation import Mean
from .grids import FeatureGrid, feature_grid
from .losses import get_loss
from .methods._engine import Method, explain_partitions, make_progress
from .methods.pdp import partial_dependence as _partial_dependence
from .methods.pfi import _response_for, pfi_losses
from .models import as_model
from .models.base import DEFAULT_MEMORY_BUDGET, rows_for_budget
from .results.importance import FeatureImportance
from .results.partial_dependence import PartialDependence
from .tabular import Table, as_table

__all__ = ["explain", "partial_dependence", "permutation_importance"]

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


_EXPLAIN_OWNER = "ixplain.dask.explain"


def explain(
    method: Method,
    ddf: Any,
    *,
    y: Any = None,
    sample_weight: Any = None,
    features: Any = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Any = False,
) -> Any:
    """Run any engine method over a Dask DataFrame: its explanation function per partition.

    The generic Dask driver (:func:`ixplain.methods._engine.explain_partitions`): every
    partition evaluates ``method.explain`` on its rows, with the rows' global indices (so keyed
    random draws are those of the single-machine run), and the partitions' mean states are
    merged. The result is ``method.result`` of the merged values: the single-machine result of
    :func:`~ixplain.methods._engine.explain_rows` on ``ddf.compute()``, up to float rounding
    (~1e-16 relative), whatever the number of partitions.

    Parameters
    ----------
    method : ixplain.methods._engine.Method
        The method object (built on the client; it must pickle).
    ddf : dask.dataframe.DataFrame
        ``n_rows`` rows in any number of partitions.
    y : str, optional
        The label column (not passed to the method as a feature).
    sample_weight : str, optional
        A column of row weights (not a feature).
    features : list of str, optional
        The feature columns in the model's order (default: every other column).
    memory_budget : int, default=256 MB
        Bytes of model input per call on a worker.
    progress : bool or callable, default=False
        ``True``: a tqdm bar (or lines on stderr); a callable gets a
        :class:`~ixplain.ProgressInfo` (rows done, total) as partitions finish.

    Returns
    -------
    object
        What ``method.result`` returns.

    Raises
    ------
    TypeError
        If ``ddf`` is not a Dask DataFrame or ``method`` not an engine Method.
    ValueError
        For an unknown column or an empty DataFrame.

    References
    ----------
    .. [1] T. F. Chan, G. H. Golub, R. J. LeVeque, "Updating formulae and a pairwise algorithm
       for computing sample variances", 1979 (merging the partitions' means and variances).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> from ixplain.methods._engine import Method
    >>> class MeanOutput(Method):  # lambda(x) = f(x): the mean prediction
    ...     name = "doc_mean_output"
    ...     def __init__(self, f):
    ...         self.f = f
    ...     def explain(self, batch):
    ...         return self.f(batch.X.numeric_column("a"))[:, None]
    >>> df = pd.DataFrame({"a": np.arange(10.0)})
    >>> explain(MeanOutput(lambda a: 2 * a), dd.from_pandas(df, npartitions=3))
    array([9.])
    """
    _require_dask_frame(ddf, _EXPLAIN_OWNER)
    if not isinstance(method, Method):
        raise param_error(_EXPLAIN_OWNER, "method", "an ixplain engine Method", method,
                          exc=TypeError)
    columns = _plain_columns(ddf, features, (y, sample_weight), _EXPLAIN_OWNER)
    out = explain_partitions(
        method, ddf, columns=columns, y=y, sample_weight=sample_weight,
        memory_budget=int(check_int(memory_budget, "memory_budget", _EXPLAIN_OWNER,  # type: ignore[arg-type]
                                    min_value=1)),
        progress=make_progress(progress, _EXPLAIN_OWNER), owner=_EXPLAIN_OWNER,
    )
    return method.result(out)


def _plain_columns(ddf: Any, features: Any, special: tuple[Any, ...], owner: str) -> list[Any]:
    """The feature columns: ``features`` (checked) or every column but the special ones."""
    columns = list(ddf.columns)
    for name, what in zip(special, ("label", "sample_weight")):
        if name is not None and name not in columns:
            raise ValueError(f"{owner}: the {what} column {name!r} is not in the DataFrame "
                             f"(columns {[str(c) for c in columns]}).")
    rest = [c for c in columns if c not in special]
    if features is None:
        return rest
    unknown = [f for f in features if f not in rest]
    if unknown:
        raise ValueError(f"{owner}: unknown feature(s) {unknown!r}. Available features: "
                         f"{[str(c) for c in rest]}.")
    return list(features)


_PFI_OWNER = "ixplain.dask.permutation_importance"


def _background_rows(ddf: Any, n: int, rng: np.random.Generator) -> Any:
    """``n`` rows drawn uniformly (without replacement) from all of ``ddf``, as pandas."""
    import dask
    import pandas as pd

    lengths = np.asarray(ddf.map_partitions(len).compute(), dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        raise ValueError(f"{_PFI_OWNER}: the DataFrame has 0 rows.")
    picks = np.sort(rng.choice(total, size=min(n, total), replace=False))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    parts = []
    for i, part in enumerate(ddf.to_delayed()):
        local = picks[(picks >= starts[i]) & (picks < starts[i] + lengths[i])] - starts[i]
        if len(local):
            parts.append(dask.delayed(lambda p, idx: p.iloc[idx])(part, local))
    return pd.concat(dask.compute(*parts)), total


def permutation_importance(
    estimator: Any,
    ddf: Any,
    y: str,
    *,
    loss: Any,
    n_repeats: int = 5,
    background_size: int = 1000,
    features: Any = None,
    response_method: str = "auto",
    random_state: Any = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> FeatureImportance:
    """Permutation importance over a Dask DataFrame (marginal imputation from a background).

    For every row ``x`` of every partition, every feature ``j`` and every repeat ``r``, the
    feature takes the value of a row drawn from a background sample of the whole data and the
    loss increase ``loss(y, f(x with x_j := x'_j)) - loss(y, f(x))`` is recorded (PFI's
    per-observation explanation function, [1]_). Importances are the means over rows, one per
    repeat, reduced across partitions with :meth:`Mean.merge` -- exact sums, so the result does
    not depend on the scheduler.

    Parameters
    ----------
    estimator : estimator, Booster or callable
        The fitted model (shipped to the workers; it must pickle).
    ddf : dask.dataframe.DataFrame
        Features and the target column, ``n_rows`` rows in all.
    y : str
        Name of the target column (not passed to the model).
    loss : str or callable
        ``"squared_error"``, ``"absolute_error"``, ``"log_loss"``, ``"brier"``, ``"zero_one"``
        or ``loss(y_true, y_pred) -> per-row losses`` (see :func:`ixplain.get_loss`).
    n_repeats : int, default=5
        Draws per row and feature; ``importances`` has one column per repeat.
    background_size : int, default=1000
        Rows drawn (without replacement) from the whole data as the replacement values.
    features : list of str, optional
        Features to explain (default: all but ``y``).
    response_method : str, default="auto"
        Model output used with the loss (default: what the loss needs).
    random_state : int, Generator or None, default=None
        Seeds the background sample and, through one child seed per partition, the draws.
    memory_budget : int, default=256 MB
        Bound on one model input per worker, in bytes.

    Returns
    -------
    FeatureImportance
        ``importances_mean`` (n_features,), ``importances_std`` (n_features,; over repeats) and
        ``importances`` (n_features, n_repeats): mean loss increases.

    Raises
    ------
    TypeError
        If ``ddf`` is not a Dask DataFrame.
    ValueError
        For an unknown target or feature column, an empty DataFrame, a bad parameter value.
    ModelEvaluationError
        If the model raises on a partition.

    References
    ----------
    .. [1] F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental permutation
       feature importance (iPFI): towards online explanations on data streams", AAAI 2023.
    .. [2] L. Breiman, "Random Forests", Machine Learning 45, 2001.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(2000, 2)), columns=["a", "b"]).assign(y=0.0)
    >>> df["y"] = 2 * df["a"]
    >>> r = permutation_importance(lambda X: 2 * X["a"].to_numpy(), dd.from_pandas(df, npartitions=4),
    ...                            "y", loss="squared_error", random_state=0)
    >>> r.importances_mean.round(0)  # 2 * beta**2 * Var(a) = 8; b is ignored
    array([8., 0.])
    """
    _require_dask_frame(ddf, _PFI_OWNER)
    n_repeats = int(check_int(n_repeats, "n_repeats", _PFI_OWNER, min_value=1))  # type: ignore[arg-type]
    background_size = int(
        check_int(background_size, "background_size", _PFI_OWNER, min_value=1)  # type: ignore[arg-type]
    )
    memory_budget = int(check_int(memory_budget, "memory_budget", _PFI_OWNER, min_value=1))  # type: ignore[arg-type]
    rng = check_random_state(random_state, _PFI_OWNER)
    loss_ = get_loss(loss, _PFI_OWNER)
    if not isinstance(y, (str, int, np.integer)) or isinstance(y, bool):
        raise param_error(_PFI_OWNER, "y", "the name of the target column of ddf",
                          type(y).__name__, exc=TypeError)
    columns = list(ddf.columns)
    if y not in columns:
        raise ValueError(
            f"{_PFI_OWNER}: the target column {y!r} is not in the DataFrame "
            f"(columns {[str(c) for c in columns]})."
        )
    columns.remove(y)
    names = [str(c) for c in columns]
    feats = names if features is None else [str(f) for f in features]
    unknown = [f for f in feats if f not in names]
    if unknown or not feats:
        raise ValueError(
            f"{_PFI_OWNER}: unknown feature(s) {unknown or feats!r}. Available features: {names}."
        )
    groups = [[f] for f in feats]

    background, _ = _background_rows(ddf[columns], background_size, rng)
    bg_table = as_table(background.reset_index(drop=True), owner=_PFI_OWNER)
    seeds = np.random.SeedSequence(int(rng.integers(2**63))).spawn(ddf.npartitions)
    model = as_model(estimator, response_method=_response_for(estimator, loss_, response_method),
                     owner=_PFI_OWNER)

    def partition_mean(part: Any, seed: np.random.SeedSequence) -> Mean:
        agg = Mean()
        if len(part) == 0:
            return agg
        part_rng = np.random.default_rng(seed)
        targets = part[y].to_numpy()
        if targets.dtype.kind in "fc" and not np.isfinite(targets).all():
            bad = part.index[int((~np.isfinite(targets)).argmax())]
            raise ValueError(
                f"{_PFI_OWNER}: the target column {y!r} contains NaN or infinite values (first "
                f"at index {bad!r}); drop or fill those rows."
            )
        table = as_table(part[columns].reset_index(drop=True), owner=_PFI_OWNER)
        model.observe_labels(targets)
        source = Table.concat([table, bg_table])
        rows_per_call = max(1, rows_for_budget(len(names), memory_budget) // (1 + len(feats) * n_repeats))
        for start in range(0, len(table), rows_per_call):
            rows = np.arange(start, min(start + rows_per_call, len(table)))
            repl = part_rng.integers(len(bg_table), size=(len(rows), len(feats), n_repeats))
            diffs, _ = pfi_losses(model, loss_, source, rows, repl + len(table), groups,
                                  targets[rows])
            agg.update_many(diffs)
        return agg

    import dask

    tasks = [dask.delayed(partition_mean)(p, s) for p, s in zip(ddf.to_delayed(), seeds)]
    total = Mean()
    for part_mean in dask.compute(*tasks):
        if part_mean.n:
            total = total.merge(part_mean)
    if total.n == 0:
        raise ValueError(f"{_PFI_OWNER}: the DataFrame has 0 rows.")
    return FeatureImportance.from_importances(
        total.get(),
        feats,
        settings={
            "method": "dask permutation_importance (marginal imputation)",
            "loss": loss_.name,
            "n_repeats": n_repeats,
            "background_size": len(bg_table),
            "n_rows": total.n,
            "npartitions": ddf.npartitions,
        },
    )
