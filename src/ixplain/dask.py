"""Scale-out on Dask: static explanations over a partitioned ``dask.dataframe.DataFrame``.

Every static explanation in ixplain is a mean of a per-observation explanation function, so it
splits over partitions. Each function here builds the method's engine object on the client
(model adapter, grid or background rows, seed) and hands it to the engine's Dask driver
(:func:`ixplain.methods._engine.explain_partitions`): every partition evaluates the *same*
explanation function with the single-machine code, knowing the global index of its rows, and
only the partitions' :class:`~ixplain.aggregation.Mean` states (and ICE curves, if asked)
travel back to be merged. :func:`explain` runs any engine method this way.

What "equal to the single-machine result" means, method by method:

* :func:`partial_dependence` -- *equal* to :func:`ixplain.partial_dependence` on
  ``ddf.compute()`` (float rounding, ~1e-15): the grid is built once from the gathered target
  columns (only those columns travel to the client), and PD is deterministic.
* :func:`sage` -- *equal*, for the same ``random_state``, to :func:`ixplain.sage` on
  ``ddf.compute()`` with ``n_permutations=n_rows, convergence_threshold=None`` (one pass over
  the rows; float rounding, ~1e-15): row ``t`` takes the order and background draws that
  ``ixplain.sage``'s first pass gives it (keyed by the seed and the row's place in that pass,
  not by its partition), and the default background is the same rows. Only the stopping rule
  differs: ``ixplain.sage`` stops when its convergence ratio falls below the threshold, which
  a partitioned pass cannot do, so here every row is explained once.
* :func:`permutation_importance` -- for a fixed ``random_state`` the result does **not depend
  on the number of partitions** (row ``t``'s draws are keyed by ``(seed, t)``, the background
  rows picked by global row index), and equals the engine's static driver on ``ddf.compute()``
  with the same method object. It is *not* the number :func:`ixplain.permutation_importance`
  gives for the same seed, and cannot be: scikit-learn's definition pairs each row with the row
  a *global* permutation assigns, which a partition cannot form without a shuffle of the whole
  data, so each row here draws its replacement from a background sample of the whole data
  instead (the iPFI paper's marginal ``lambda``). Both estimate the mean loss increase under
  marginal replacement and agree within their reported standard errors
  (``settings["standard_error"]``); the tests check exactly that.
* ``removal="conditional"`` (:func:`permutation_importance`, :func:`sage`) -- the conditional
  sampler (:class:`~ixplain.imputation.ConditionalSampler`) is fitted **once, on the client**,
  on ``sampler_size`` rows (default 20,000) drawn without replacement by global row index with
  the seed (all rows when there are at most that many), and shipped to the workers with the
  rows it holds. Row ``t``'s draws are keyed by ``(seed, t)`` and exclude its own values when
  it is a fitted row, so the result does not depend on the number of partitions. When the
  data has at most ``sampler_size`` rows the result *equals* the single-machine one on
  ``ddf.compute()`` (float rounding): :func:`ixplain.permutation_importance` with
  ``removal="conditional"`` for the same ``n_repeats`` and seed -- a conditional draw is
  per row, so no global permutation is involved -- and :func:`ixplain.sage` with
  ``removal="conditional", n_permutations=n_rows, convergence_threshold=None``. Beyond that
  the sampler is learnt from the sample (an estimate of the same conditional distributions
  from fewer rows), which the single-machine functions, fitting on all rows, do not do.

Install with ``pip install 'ixplain[dask]'``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._random import keyed_generator, root_seed
from ._validation import check_bool, check_int, check_memory_budget, check_options, param_error
from .grids import FeatureGrid, feature_grid
from .imputation import ConditionalSampler, check_removal
from .imputation.conditional import averaged_sampler
from .losses import get_loss
from .methods import pdp as _pdp
from .methods import sage as _sage
from .methods._conditional import ConditionalPFI
from .methods._engine import Method, explain_partitions, make_progress
from .methods._sage_core import correction_for, resolve_players
from .methods.pfi import _SCORER_LOSSES, BackgroundPFI, _batched_scoring, _response_for
from .methods.pfi import _check_sizes as _check_pfi_sizes
from .models import as_model
from .models.base import DEFAULT_MEMORY_BUDGET
from .results.importance import FeatureImportance
from .results.partial_dependence import PartialDependence
from .tabular import Table, as_table

__all__ = ["explain", "partial_dependence", "permutation_importance", "sage"]


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


def _head(ddf: Any, columns: list[Any], owner: str) -> Table:
    """The first row of ``ddf[columns]`` (from the first non-empty partition) as a Table."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask warns when the first partitions are short
        head = ddf[columns].head(1, npartitions=-1)
    if len(head) == 0:
        raise ValueError(f"{owner}: the DataFrame has 0 rows.")
    return as_table(head.reset_index(drop=True), owner=owner)


def _n_rows(ddf: Any, owner: str) -> tuple[np.ndarray, int]:
    lengths = np.asarray(ddf.map_partitions(len).compute(), dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        raise ValueError(f"{owner}: the DataFrame has 0 rows.")
    return lengths, total


def _background(ddf: Any, columns: list[Any], n: int, seed: int, owner: str,
                key: str = "background") -> Table:
    """``n`` rows drawn without replacement from all of ``ddf`` by *global* row index (the
    same rows for any partitioning; all rows when there are at most ``n``), as a Table in row
    order: ``sort(keyed_generator(seed, key).choice(n_rows, n, replace=False))``."""
    return _sample_rows(ddf, columns, n, seed, owner, key)[0]


def _conditional_sampler(ddf: Any, columns: list[Any], n: int, seed: int, owner: str,
                         averaged: bool = False) -> tuple[ConditionalSampler, np.ndarray | None]:
    """The sampler of ``removal="conditional"``, fitted on the client on ``n`` rows drawn by
    global row index (key ``"conditional-sampler"``; all rows when there are at most ``n``),
    and the sorted global ids of its rows (None: all rows, in order). ``averaged`` (SAGE):
    :func:`~ixplain.imputation.conditional.averaged_sampler`'s leaves, as :func:`ixplain.sage`."""
    table, picks, total = _sample_rows(ddf, columns, n, seed, owner, "conditional-sampler")
    sampler = averaged_sampler(table) if averaged else ConditionalSampler().fit(table)
    return sampler, None if len(picks) == total else picks


def _sample_rows(ddf: Any, columns: list[Any], n: int, seed: int, owner: str,
                 key: str) -> tuple[Table, np.ndarray, int]:
    """:func:`_background`'s rows, their global ids and the number of rows of ``ddf``."""
    import dask
    import pandas as pd

    lengths, total = _n_rows(ddf, owner)
    if total <= n:
        picks = np.arange(total)
    else:
        picks = np.sort(keyed_generator(seed, key).choice(total, n, replace=False))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    parts = []
    for i, part in enumerate(ddf[columns].to_delayed()):
        local = picks[(picks >= starts[i]) & (picks < starts[i] + lengths[i])] - starts[i]
        if len(local):
            parts.append(dask.delayed(lambda p, idx: p.iloc[idx])(part, local))
    frame = pd.concat(dask.compute(*parts)).reset_index(drop=True)
    return as_table(frame, owner=owner), picks, total


def _label_column(y: Any, ddf: Any, owner: str) -> Any:
    if not isinstance(y, (str, int, np.integer)) or isinstance(y, bool):
        raise param_error(owner, "y", "the name of the target column of ddf",
                          type(y).__name__, exc=TypeError)
    if y not in list(ddf.columns):
        raise ValueError(
            f"{owner}: the target column {y!r} is not in the DataFrame "
            f"(columns {[str(c) for c in ddf.columns]})."
        )
    return y


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
        Bytes of model input per call on a worker (at least ``MIN_MEMORY_BUDGET``, 4096).
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
        memory_budget=check_memory_budget(memory_budget, _EXPLAIN_OWNER),
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


# ---------------------------------------------------------------------------- PD and ICE
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


# ---------------------------------------------------------------------------- PFI
_PFI_OWNER = "ixplain.dask.permutation_importance"


def permutation_importance(
    estimator: Any,
    ddf: Any,
    y: str,
    *,
    loss: Any = None,
    scoring: Any = None,
    n_repeats: int = 5,
    background_size: int = 1000,
    features: Any = None,
    response_method: str = "auto",
    random_state: Any = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Any = False,
    removal: str = "marginal",
    sampler_size: int = 20_000,
) -> FeatureImportance:
    """Permutation importance over a Dask DataFrame (marginal replacement from a background).

    With ``removal="conditional"``: conditional feature importance (CFI), each feature drawn
    from its conditional distribution given the others by a sampler fitted once on the client
    (see the module docstring), equal to :func:`ixplain.permutation_importance` with
    ``removal="conditional"`` on ``ddf.compute()`` when it has at most ``sampler_size`` rows.

    For every row ``x`` (global index ``t``), every feature ``j`` and every repeat ``r``, the
    feature takes the value of a row drawn from a background sample of the whole data, with
    the draws of row ``t`` (keyed by the seed and ``t``), and the loss increase
    ``loss(y, f(x with x_j := x'_j)) - loss(y, f(x))`` is recorded (PFI's per-observation
    explanation function, [1]_). Importances are the means over rows, one per repeat, merged
    across partitions. For a given ``random_state`` the result does not depend on the number
    of partitions (nor on the scheduler).

    It is not the same number as :func:`ixplain.permutation_importance` for the same seed: that
    function replaces a feature by a *global* permutation of its column, which a partition
    cannot form without shuffling the whole data. Both estimate the expected loss increase
    under marginal replacement, and agree within their standard errors
    (``settings["standard_error"]`` of each).

    Parameters
    ----------
    estimator : estimator, Booster or callable
        The fitted model (shipped to the workers; it must pickle).
    ddf : dask.dataframe.DataFrame
        Features and the target column, ``n_rows`` rows in all.
    y : str
        Name of the target column (not passed to the model).
    loss : str or callable, optional
        ``"squared_error"``, ``"absolute_error"``, ``"log_loss"``, ``"brier"``, ``"zero_one"``
        or ``loss(y_true, y_pred) -> per-row losses`` (see :func:`ixplain.get_loss`);
        importance = loss increase. Takes precedence over ``scoring``.
    scoring : str or None, default=None
        With ``loss=None``: importance = score decrease, for the scores that are a mean of
        per-row losses (so they decompose over partitions): ``None`` (a scikit-learn
        estimator's default accuracy or R^2), ``"accuracy"``, ``"r2"``,
        ``"neg_mean_squared_error"``, ``"neg_mean_absolute_error"``. R^2's scale, the
        variance of ``y``, is taken over the whole data.
    n_repeats : int, default=5
        Draws per row and feature; ``importances`` has one column per repeat.
    background_size : int, default=1000
        Rows drawn (without replacement, by global row index) from the whole data as the
        replacement values.
    features : list of str, optional
        Features to explain (default: all but ``y``).
    response_method : str, default="auto"
        Model output used with the loss (default: what the loss needs).
    random_state : int, Generator or None, default=None
        Seeds the background sample and the draws.
    memory_budget : int, default=256 MB
        Bound on one model input per worker, in bytes (at least ``MIN_MEMORY_BUDGET``, 4096).
    progress : bool or callable, default=False
        ``True``: a tqdm bar (or lines on stderr); a callable receives a
        :class:`~ixplain.ProgressInfo` (rows done, total) as partitions finish.
    removal : {"marginal", "conditional"}, default="marginal"
        How a feature is replaced: from the background (marginal), or drawn given the other
        features (conditional; ``background_size`` is then unused).
    sampler_size : int, default=20000
        ``removal="conditional"``: rows (drawn by global row index with the seed; all rows
        when there are at most that many) the sampler is fitted on, on the client.

    Returns
    -------
    FeatureImportance
        ``importances_mean`` (n_features,), ``importances_std`` (n_features,; over repeats),
        ``importances`` (n_features, n_repeats): mean loss increases (score decreases);
        ``settings["standard_error"]`` (n_features,): standard error of ``importances_mean``
        from the spread of the rows' values.

    Raises
    ------
    TypeError
        If ``ddf`` is not a Dask DataFrame, ``y`` not a column name, or ``scoring`` is used
        with a model that is not a scikit-learn estimator.
    ValueError
        For an unknown target or feature column, an empty DataFrame, a bad parameter value,
        a scorer that is not a mean of per-row losses, NaN or infinite targets.
    ModelEvaluationError
        If the model raises on a partition.

    References
    ----------
    .. [1] F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental permutation
       feature importance (iPFI): towards online explanations on data streams", Machine
       Learning 112, 2023.
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
    memory_budget = check_memory_budget(memory_budget, _PFI_OWNER)
    seed = root_seed(random_state, _PFI_OWNER)
    report = make_progress(progress, _PFI_OWNER)
    y = _label_column(y, ddf, _PFI_OWNER)
    columns = _plain_columns(ddf, None, (y, None), _PFI_OWNER)
    names = [str(c) for c in columns]
    feats = names if features is None else [str(f) for f in features]
    unknown = [f for f in feats if f not in names]
    if unknown or not feats:
        raise ValueError(
            f"{_PFI_OWNER}: unknown feature(s) {unknown or feats!r}. Available features: {names}."
        )
    loss_obj, model, scale, what = _pfi_loss(estimator, loss, scoring, response_method, ddf, y)
    for budget in (None, memory_budget):  # the importances; one observation's model call
        _check_pfi_sizes(_PFI_OWNER, 1, 1, len(columns), len(feats), n_repeats, budget)
    fn, method, rows = _pfi_method(ddf, columns, feats, model, loss_obj, n_repeats, seed,
                                   removal, background_size, sampler_size)
    explained = explain_partitions(fn, ddf, columns=columns, y=y, memory_budget=memory_budget,
                                   progress=report, owner=_PFI_OWNER,
                                   label="permutation_importance")
    settings = {
        "method": method, **what, "n_repeats": n_repeats, **rows,
        "n_rows": explained.mean.n, "npartitions": ddf.npartitions,
        "random_state": random_state if isinstance(random_state, (int, type(None))) else "Generator",
        "standard_error": (explained.standard_error[:, 0] / scale).tolist(),
    }
    return FeatureImportance.from_importances(explained.mean.get()[:, 1:] / scale, feats,
                                              settings)


def _pfi_method(ddf: Any, columns: list[Any], feats: list[str], model: Any, loss: Any,
                n_repeats: int, seed: int, removal: Any, background_size: int,
                sampler_size: Any) -> tuple[Method, str, dict[str, Any]]:
    """The engine method of ``removal`` (validated), its description and row counts."""
    groups = [[f] for f in feats]
    if check_removal(removal, _PFI_OWNER) == "conditional":
        n = int(check_int(sampler_size, "sampler_size", _PFI_OWNER, min_value=2))  # type: ignore[arg-type]
        sampler, fitted = _conditional_sampler(ddf, columns, n, seed, _PFI_OWNER)
        return (ConditionalPFI(model, loss, groups, sampler, seed, range(n_repeats),
                               fitted=fitted),
                "dask permutation_importance (conditional draws, removal='conditional')",
                {"removal": "conditional", "sampler_size": sampler.n_rows_})
    bg = _background(ddf, columns, background_size, seed, _PFI_OWNER)
    return (BackgroundPFI(model, loss, groups, bg, n_repeats, seed),
            "dask permutation_importance (marginal replacement from a background)",
            {"background_size": bg.n_rows})


def _pfi_loss(estimator: Any, loss: Any, scoring: Any, response_method: str, ddf: Any,
              y: Any) -> tuple[Any, Any, float, dict[str, Any]]:
    """``(loss, model adapter, scale, settings)``: the loss whose mean increase (divided by
    ``scale``) is the importance, for ``loss`` or a batched ``scoring``."""
    if loss is not None:
        loss_obj = get_loss(loss, _PFI_OWNER)
        model = as_model(estimator, response_method=_response_for(estimator, loss_obj,
                                                                  response_method),
                         owner=_PFI_OWNER).refuse_nonfinite_outputs(_PFI_OWNER)
        return loss_obj, model, 1.0, {"loss": loss_obj.name}
    if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
        raise TypeError(
            f"{_PFI_OWNER}: 'scoring' needs a scikit-learn-API estimator; got "
            f"{type(estimator).__name__}. Pass loss=... (e.g. loss='squared_error') instead."
        )
    batched = _batched_scoring(estimator, scoring, np.zeros(1))
    if batched is None:
        raise param_error(
            _PFI_OWNER, "scoring",
            f"None (the estimator's accuracy or R^2) or one of {sorted(_SCORER_LOSSES)} (a mean "
            "of per-row losses, which decomposes over partitions)", scoring,
        )
    scale = float(ddf[y].astype("float64").var(ddof=0).compute()) if batched == "r2" else 1.0
    if not scale > 0:
        raise ValueError(f"{_PFI_OWNER}: scoring='r2' needs a target with positive variance.")
    model = as_model(estimator, response_method="predict", owner=_PFI_OWNER)
    model.refuse_nonfinite_outputs(_PFI_OWNER)
    return get_loss(_SCORER_LOSSES[batched]), model, scale, {"scoring": batched}


# ---------------------------------------------------------------------------- SAGE
_SAGE_OWNER = "ixplain.dask.sage"


def sage(
    model: Any,
    ddf: Any,
    y: str,
    *,
    loss: Any,
    background: Any = None,
    background_size: int = 512,
    groups: dict[str, list[str]] | None = None,
    n_samples: int | str | None = "auto",
    random_state: Any = None,
    control_variate: bool = True,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Any = False,
    removal: str = "marginal",
    sampler_size: int = 20_000,
) -> FeatureImportance:
    """SAGE values over a Dask DataFrame, equal to one pass of :func:`ixplain.sage`.

    With ``removal="conditional"`` the features outside a coalition are drawn from their
    conditional distribution given it, by a sampler fitted once on the client on
    ``sampler_size`` rows (on ``background`` if one is given); equal to one pass of
    :func:`ixplain.sage` with ``removal="conditional"`` when the data has at most
    ``sampler_size`` rows (module docstring).

    Every row ``(x, y)`` of every partition walks one uniform random order of the players
    (features or groups) and contributes its marginal contributions ``l(S_{k-1}) - l(S_k)``
    (SAGE's per-observation explanation function, [1]_; features outside ``S`` imputed from
    ``background``). The values are their control-variate mean over all rows, merged across
    partitions (``n_permutations == n_rows``).

    The order and background draws of row ``t`` are those :func:`ixplain.sage` gives it in its
    first pass over the rows for the same ``random_state`` (keyed by the seed and the row's
    place in that pass, never by the partition), and the default background is the rows it
    would pick: the result equals ``ixplain.sage(model, X, y, loss=..., random_state=seed,
    n_permutations=n_rows, convergence_threshold=None)`` on ``ddf.compute()`` to float
    rounding, for any number of partitions. (``ixplain.sage``'s default stops earlier, at
    convergence, which a partitioned pass cannot test.)

    Parameters
    ----------
    model : estimator, Booster or callable
        The fitted model (shipped to the workers; it must pickle).
    ddf : dask.dataframe.DataFrame
        Features and the target column.
    y : str
        Name of the target column.
    loss : str or callable
        As in :func:`ixplain.sage`.
    background : array-like or DataFrame, optional
        Rows used to impute removed features (on every worker). Default: ``background_size``
        rows drawn from the whole data by global row index, as :func:`ixplain.sage` draws its
        512 (all rows when there are at most that many).
    background_size : int, default=512
        Size of the default background (512: the same rows as :func:`ixplain.sage`).
    groups, n_samples, control_variate
        As in :func:`ixplain.sage`.
    random_state : int, Generator or None, default=None
        Seeds the background sample, the orders and the draws.
    memory_budget : int, default=256 MB
        Bound on one model input per worker, in bytes (at least ``MIN_MEMORY_BUDGET``, 4096).
    progress : bool or callable, default=False
        ``True``: a tqdm bar (or lines on stderr); a callable receives a
        :class:`~ixplain.ProgressInfo` (rows done, total) as partitions finish.
    removal : {"marginal", "conditional"}, default="marginal"
        How the features outside a coalition are removed (:func:`ixplain.sage`).
    sampler_size : int, default=20000
        ``removal="conditional"`` without ``background``: rows the sampler is fitted on
        (drawn by global row index with the seed; all rows when there are at most that many).

    Returns
    -------
    FeatureImportance
        ``importances_mean`` (the SAGE values, shape (n_players,)), ``importances_std``
        (their standard errors), the players as ``feature_names``, and ``settings`` with
        ``n_permutations`` (= rows), ``explained_loss``, ``convergence_ratio``.

    Raises
    ------
    TypeError
        If ``ddf`` is not a Dask DataFrame or ``y`` not a column name.
    ValueError
        For an unknown target or group feature, an empty DataFrame, a bad parameter value,
        NaN in the features or the target.

    References
    ----------
    .. [1] I. Covert, S. Lundberg, S.-I. Lee, "Understanding global feature contributions with
       additive importance measures", NeurIPS 2020.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(3000, 3)), columns=["a", "b", "c"])
    >>> df["y"] = 2 * df["a"] + df["b"]
    >>> res = sage(lambda X: 2 * X["a"].to_numpy() + X["b"].to_numpy(),
    ...            dd.from_pandas(df, npartitions=3), "y", loss="squared_error", random_state=0)
    >>> res.importances_mean.round(0)  # Var(2 a) = 4, Var(b) = 1, c unused
    array([4., 1., 0.])
    """
    _require_dask_frame(ddf, _SAGE_OWNER)
    seed = root_seed(random_state, _SAGE_OWNER)
    report = make_progress(progress, _SAGE_OWNER)
    size = int(check_int(background_size, "background_size", _SAGE_OWNER, min_value=1))  # type: ignore[arg-type]
    memory_budget = check_memory_budget(memory_budget, _SAGE_OWNER)
    control_variate = check_bool(control_variate, "control_variate", _SAGE_OWNER)
    loss_obj = get_loss(loss, _SAGE_OWNER)
    y = _label_column(y, ddf, _SAGE_OWNER)
    columns = _plain_columns(ddf, None, (y, None), _SAGE_OWNER)
    if background is None:  # the rows ixplain.sage would take from ddf.compute()
        bg = _background(ddf, columns, size, seed, _SAGE_OWNER, key="sage-background")
    else:
        bg = _sage._background_table(background, _head(ddf, columns, _SAGE_OWNER), seed,
                                     _SAGE_OWNER)
    players, col_player = resolve_players(bg.names, groups, _SAGE_OWNER)
    correction = correction_for(loss_obj)
    s = _sage.resolve_n_samples(n_samples, correction, bg.n_rows, _SAGE_OWNER)
    exact = n_samples is None or (n_samples == "auto" and correction == "plugin")
    mdl = as_model(model, owner=_SAGE_OWNER).refuse_nonfinite_outputs(_SAGE_OWNER)
    n_rows = _n_rows(ddf, _SAGE_OWNER)[1]
    if check_removal(removal, _SAGE_OWNER) == "conditional":
        fn: _sage.SAGEFunction = _conditional_sage(
            ddf, columns, mdl, loss_obj, bg, background is None, col_player, players,
            s if not exact else None, seed, n_rows, control_variate, sampler_size)
    else:
        fn = _sage.SAGEFunction(mdl, loss_obj, bg, col_player, players, s, exact, seed, n_rows,
                                control_variate)
    explained = explain_partitions(fn, ddf, columns=columns, y=y, memory_budget=memory_budget,
                                   progress=report, owner=_SAGE_OWNER, label="sage")
    settings = {
        "method": "dask sage (one order per row)", "loss": loss_obj.name,
        "groups": None if groups is None else {str(k): list(v) for k, v in groups.items()},
        "random_state": random_state if isinstance(random_state, (int, type(None))) else "Generator",
        "control_variate": control_variate, "npartitions": ddf.npartitions,
    }
    if isinstance(fn, _sage.ConditionalSAGEFunction):
        assert fn.sampler is not None  # fitted on the client
        settings.update(removal="conditional", sampler_size=fn.sampler.n_rows_)
    result = _sage._to_result(fn.result(explained), settings)
    result.settings.pop("converged", None)
    return result


def _conditional_sage(ddf: Any, columns: list[Any], model: Any, loss: Any, bg: Table,
                      default_bg: bool, col_player: np.ndarray, players: list[str],
                      n_samples: int | None, seed: int, n_rows: int, control_variate: bool,
                      sampler_size: Any) -> _sage.ConditionalSAGEFunction:
    """SAGE's conditional engine method: the sampler fitted on ``sampler_size`` rows of the
    data (a given ``background``: on it, as :func:`ixplain.sage` does); ``n_samples`` None
    (the exact inner average of the marginal form): 32 draws, as :func:`ixplain.sage`."""
    if default_bg:
        n = int(check_int(sampler_size, "sampler_size", _SAGE_OWNER, min_value=2))  # type: ignore[arg-type]
        sampler, fitted = _conditional_sampler(ddf, columns, n, seed, _SAGE_OWNER, True)
    else:
        sampler, fitted = averaged_sampler(bg), np.empty(0, dtype=np.intp)
    s = min(32, sampler.n_rows_) if n_samples is None else n_samples
    return _sage.ConditionalSAGEFunction(model, loss, bg, col_player, players, s, seed, n_rows,
                                         sampler, fitted, control_variate)
