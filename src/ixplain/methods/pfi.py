"""Permutation feature importance: one batched explanation function, a static and an
incremental form.

The per-observation explanation function of PFI for a feature group ``S`` is::

    lambda(x, y, S, x') = loss(y, f(x with x_S := x'_S)) - loss(y, f(x))

with ``x'`` drawn from perturbation data ``P``. :func:`pfi_losses` evaluates it for a batch of
observations, every group and several replacement rows each, in one model call (rows
``[x_i, x_i with S_1 replaced, ..., x_i with S_G replaced]``).

* :func:`permutation_importance` (static) averages it over a dataset, with ``x'`` the row a
  random permutation assigns (scikit-learn's definition);
* :class:`IncrementalPFI` smooths it over a stream, with ``x'`` drawn from a storage (iPFI).
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._numeric import overflow_reported
from .._random import RowStream, keyed_generator, root_seed, uniform_index
from .._validation import (
    check_2d,
    check_allocation,
    check_int,
    check_memory_budget,
    check_n_jobs,
    check_sample_weight,
    check_target,
    param_error,
    refuse_nonfinite,
)
from ..imputation import ConditionalSampler, check_removal
from ..losses import Loss, get_loss, label_shape_guard
from ..models import Model, as_model, rows_for_budget
from ..models.base import DEFAULT_MEMORY_BUDGET
from ..results.importance import FeatureImportance, ImportanceTimeSeries
from ..storage.base import SlotStorage
from ..tabular import Table, _take, as_table
from ._conditional import (
    ConditionalPFI,
    conditional_pfi_importances,
    conditional_storage,
)
from ._engine import Method, ProgressInfo, RowBatch, explain_rows, make_progress, register
from ._incremental import IncrementalExplainer, Sampler

__all__ = ["IncrementalPFI", "permutation_importance", "pfi_losses"]


# ---------------------------------------------------------------------------- the explanation
@functools.lru_cache(maxsize=64)
def _layout(
    B: int, S: int, groups: tuple[tuple[int, ...], ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each replaced value goes in the perturbed batch (cached; read-only arrays).

    Perturbed row ``i * width + 1 + g * S + s`` (``width = 1 + G * S``) is observation ``i``
    with group ``g`` replaced by draw ``s``. Returns, for every (i, g, s, column of g) in that
    order per observation: the perturbed row ``pos``, the column ``col_of``, and ``order``, the
    index into the flattened (g, s) draws of one observation.
    """
    G = len(groups)
    width = 1 + G * S
    local_pos, local_col, local_order = [], [], []
    for g, cols in enumerate(groups):
        for s in range(S):
            for c in cols:
                local_pos.append(1 + g * S + s)
                local_col.append(c)
                local_order.append(g * S + s)
    k = len(local_pos)
    pos = ((np.arange(B) * width)[:, None] + np.asarray(local_pos, dtype=np.intp)).reshape(-1)
    col_of = np.tile(np.asarray(local_col, dtype=np.intp), B)
    order = np.asarray(local_order, dtype=np.intp).reshape(k)
    for a in (pos, col_of, order):
        a.setflags(write=False)
    return pos, col_of, order


@functools.lru_cache(maxsize=64)
def _group_columns_cached(
    names: tuple[str, ...], groups: tuple[tuple[str, ...], ...]
) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(names.index(n) for n in g) for g in groups)


def _group_columns(names: Sequence[str], groups: Sequence[Sequence[str]]) -> tuple:
    if isinstance(groups, tuple) and isinstance(names, tuple):  # hashable already
        return _group_columns_cached(names, groups)
    return _group_columns_cached(tuple(names), tuple(tuple(g) for g in groups))


class _StackedTable(Table):
    """A Table whose float64 columns are the columns of ``matrix`` (in order): a 2-D array or
    records are built from the matrix in one step instead of column by column."""

    def __init__(self, columns: dict, schema: Any, upcast: Any, matrix: np.ndarray) -> None:
        super().__init__(columns, schema, upcast)
        self.matrix = matrix

    def to_native(self, kind: str | None = None) -> Any:
        kind = kind or self.schema.source
        dtype = self.schema.array_dtype
        if kind == "numpy" and not self.upcast and dtype in (None, np.float64):
            return self.matrix
        if kind == "records":
            labels = self.schema.labels  # the user's record keys (may be ints)
            return [dict(zip(labels, row)) for row in self.matrix.tolist()]
        return super().to_native(kind)


class _Plan:
    """What :func:`pfi_losses` reuses between calls on one kind of input: the flat positions
    of the replaced cells of the all-numeric layout (for the largest batch seen; smaller
    batches use a prefix), the stacked matrix of the last source table, and the model's
    native input kind once one call has shown it (then the perturbed matrix, or records built
    from it, go to the model without a Table round trip)."""

    def __init__(self, schema: Any, upcast: Any = frozenset()) -> None:
        self.schema, self.upcast = schema, upcast
        self.names = list(schema.names)
        self.keys = list(schema.labels)  # record keys: the user's labels (River: may be ints)
        self.native_kind: str | None = None
        self.budget_rows = 0
        self._layouts: dict[tuple, _Layout] = {}
        self._last: _Layout | None = None
        self._source: tuple[Any, np.ndarray] | None = None

    def matrix(self, source: Table) -> np.ndarray | None:
        """``source``'s columns as one (n, d) float64 matrix, or None if one is not float64."""
        if self._source is not None and self._source[0] is source:
            return self._source[1]
        columns = list(source.columns.values())
        if not all(isinstance(c, np.ndarray) and c.dtype == np.float64 for c in columns):
            return None
        stacked = getattr(source, "matrix", None)
        matrix = stacked if stacked is not None else np.column_stack(columns)
        self._source = (source, matrix)
        return matrix

    def layout(self, B: int, S: int, cols: tuple, d: int) -> _Layout:
        """The replaced cells' layout for at least ``B`` observations (the last one if it fits)."""
        last = self._last
        if last is not None and last.cols is cols and last.S == S and last.B >= B:
            return last
        key = (S, cols, d)
        lay = self._layouts.get(key)
        if lay is None or lay.B < B:
            lay = self._layouts[key] = _Layout(max(B, 0 if lay is None else lay.B), S, cols, d,
                                               self.keys)
        self._last = lay
        return lay


class _Layout:
    """Flat positions, for ``B`` observations, of every replaced cell ``(i, g, s, c)``: in the
    perturbed rows (``dest``: ``(i * width + 1 + g * S + s) * d + c``) and in draws given in
    ``(i, g, s)`` order (``src``: ``((i * G + g) * S + s) * d + c``); a batch of fewer
    observations uses a prefix (``k`` cells per observation). ``cell_names``: the feature of
    each cell of one observation."""

    def __init__(self, B: int, S: int, cols: tuple, d: int, names: list[str]) -> None:
        self.B, self.S, self.cols = B, S, cols
        G = len(cols)
        local = [(g * S + s, c) for g, cs in enumerate(cols) for s in range(S) for c in cs]
        r = np.array([q for q, _ in local], dtype=np.intp)
        c = np.array([c for _, c in local], dtype=np.intp)
        i = np.arange(B)[:, None]
        self.dest = ((i * (1 + G * S) + 1 + r) * d + c).reshape(-1)
        self.src = ((i * (G * S) + r) * d + c).reshape(-1)
        self.k = len(local)
        self.cell_names = [names[j] for _, j in local]
        self.sizes = [len(cs) for cs in cols for _ in range(S)]
        self.single = self.k == G * S  # one column per group


def _native_predict(model: Model, plan: _Plan, perturbed: np.ndarray) -> np.ndarray:
    """The model's predictions on the perturbed matrix: straight to the native call when the
    plan knows the input kind (numpy: the matrix itself; records: dicts of its rows), else
    through a Table (and the plan learns the kind when that is one native call)."""
    n_rows, d = perturbed.shape
    kind = plan.native_kind if n_rows <= plan.budget_rows else None
    if kind == "numpy":
        return model._call_native(perturbed, n_rows, kind, plan.names)
    if kind == "records":
        records = [dict(zip(plan.keys, row)) for row in perturbed.tolist()]
        return model._call_native(records, n_rows, kind, plan.names)
    schema = plan.schema
    table = _StackedTable({n: perturbed[:, c] for c, n in enumerate(plan.names)}, schema,
                          plan.upcast, perturbed)
    budget = rows_for_budget(d)
    if n_rows <= budget and not plan.upcast:  # predict makes one native call
        kind = model.native_kind(table)
        if kind == "records" or (kind == "numpy" and schema.array_dtype in (None, np.float64)):
            plan.native_kind, plan.budget_rows = kind, budget
    return model.predict(table)


def _numeric_losses(model: Model, loss: Loss, plan: _Plan, obs: np.ndarray, values: np.ndarray,
                    drawn: np.ndarray | None, cols: tuple, S: int,
                    y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pfi_losses` in the all-numeric layout: the observations ``obs`` (B, d) repeated,
    the replaced cells written in one ``put`` from ``values`` (rows ``drawn[i, g * S + s]``,
    or, with ``drawn=None``, row ``(i * G + g) * S + s``)."""
    B, d = obs.shape
    G = len(cols)
    width = 1 + G * S
    lay = plan.layout(B, S, cols, d)
    dest, src = (lay.dest, lay.src) if lay.B == B else (lay.dest[: B * lay.k], lay.src[: B * lay.k])
    if drawn is not None:  # cell c of drawn row drawn[i, g * S + s] (src // d is i * G * S + q)
        src = drawn.reshape(-1).take(src // d) * d + src % d
    n_rows = B * width
    if plan.native_kind == "records" and n_rows <= plan.budget_rows:
        records = _records(plan.keys, lay, obs, values.take(src))
        preds = model._call_native(records, n_rows, "records", plan.names)
    else:
        perturbed = obs.repeat(width, axis=0)  # C-contiguous: the flat positions apply
        perturbed.put(dest, values.take(src))
        preds = _native_predict(model, plan, perturbed)
    losses = loss(np.asarray(y).repeat(width, axis=0), preds, model.classes_).reshape(B, width)
    return (losses[:, 1:] - losses[:, :1]).reshape(B, G, S), losses[:, 0]


def _records(names: list[str], lay: _Layout, obs: np.ndarray, cells: np.ndarray) -> list[dict]:
    """The records ``[dict(zip(names, r)) for r in perturbed.tolist()]`` would give (same keys
    in the same order, same floats), built as each observation's dict and copies of it with
    the replaced values (``cells``, in (i, g, s, c) order) set."""
    cell_names, k = lay.cell_names, lay.k
    values = cells.tolist()
    records = []
    for i, row in enumerate(obs.tolist()):
        base = dict(zip(names, row))
        records.append(base)
        mine = values[i * k : (i + 1) * k]
        if lay.single:  # one value per perturbed row
            for name, v in zip(cell_names, mine):
                rec = base.copy()
                rec[name] = v
                records.append(rec)
            continue
        j = 0
        for size in lay.sizes:
            rec = base.copy()
            rec.update(zip(cell_names[j : j + size], mine[j : j + size]))
            records.append(rec)
            j += size
    return records


def pfi_losses(
    model: Model,
    loss: Loss,
    source: Table,
    rows: np.ndarray,
    replacements: np.ndarray,
    groups: Sequence[Sequence[str]],
    y: np.ndarray,
    *,
    plan: _Plan | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Loss increase when each feature group takes the values of replacement rows (batched).

    The one implementation of PFI's explanation function, for :func:`permutation_importance`
    and :class:`IncrementalPFI`. With every column float64 the perturbed rows are one matrix
    (the observations repeated, every replaced cell written at once from flat positions) that
    goes to the model as is when it takes arrays or records; otherwise they are gathered
    column by column.

    Parameters
    ----------
    model : Model
        The adapter (one :meth:`~ixplain.models.Model.predict` call, chunked by memory budget).
    loss : Loss
        Per-row loss.
    source : Table
        Rows referenced by ``rows`` and ``replacements``.
    rows : ndarray of int, shape (B,)
        The explained observations (positions in ``source``).
    replacements : ndarray of int, shape (B, G, S)
        For observation ``i``, group ``g`` and draw ``s``: the source row whose values replace
        group ``g``'s features.
    groups : sequence of G lists of feature names
    y : ndarray of shape (B,) or (B, k)
        Labels of the explained observations.
    plan : optional
        Reused layout and model-input information (internal; a caller making many calls on
        the same kind of input passes the same one).

    Returns
    -------
    diffs : ndarray of shape (B, G, S)
        ``loss(y_i, f(x_i with S_g := x'_{igs})) - loss(y_i, f(x_i))``.
    base : ndarray of shape (B,)
        ``loss(y_i, f(x_i))``.

    References
    ----------
    L. Breiman, "Random Forests", Machine Learning 45, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import as_model, as_table, get_loss
    >>> src = as_table(np.array([[0.0, 1.0], [2.0, 3.0]]))
    >>> diffs, base = pfi_losses(as_model(lambda A: A[:, 0]), get_loss("squared_error"), src,
    ...                          np.array([0]), np.array([[[1], [1]]]), [["x0"], ["x1"]],
    ...                          np.array([0.0]))
    >>> diffs[0, :, 0], base
    (array([4., 0.]), array([0.]))
    """
    B, G, S = replacements.shape
    names = source.names
    cols = _group_columns(names, groups)
    if plan is None or plan.schema is not source.schema:
        plan = _Plan(source.schema, source.upcast)
    matrix = plan.matrix(source)
    if matrix is not None:
        return _numeric_losses(model, loss, plan, matrix[rows], matrix,
                               replacements.reshape(B, G * S), cols, S, y)
    width = 1 + G * S
    pos, col_of, order = _layout(B, S, cols)
    drawn = replacements.reshape(B, G * S)[:, order].reshape(-1)
    # idx[r, c]: the source row whose value of column c goes to perturbed row r
    idx = np.repeat(rows, width)[:, None].repeat(len(names), axis=1)
    if len(pos):
        idx[pos, col_of] = drawn
    columns = list(source.columns.values())
    table = Table({name: _take(col, idx[:, c]) for c, (name, col) in enumerate(zip(names, columns))},
                  source.schema, source.upcast)
    preds = model.predict(table)
    y_rep = np.repeat(np.asarray(y), width, axis=0)
    losses = loss(y_rep, preds, model.classes_).reshape(B, width)
    return (losses[:, 1:] - losses[:, :1]).reshape(B, G, S), losses[:, 0]


# ---------------------------------------------------------------------------- helpers
def _response_for(model: Any, loss: Loss | None, response_method: str) -> str:
    if response_method != "auto" or loss is None:
        return response_method
    plain_callable = callable(model) and not (
        hasattr(model, "predict") or hasattr(model, "predict_one") or isinstance(model, Model)
    )
    if plain_callable or type(model).__name__ == "Booster":
        return "auto"
    if loss.response_method in ("predict", "predict_proba"):
        return loss.response_method
    return "auto"


def _resolve_groups(
    features: Any, names: Sequence[str], owner: str
) -> tuple[list[str], list[list[str]]]:
    """``features`` (None, list of names/indices, or dict of groups) -> (labels, groups)."""
    names = list(names)

    def one(f: Any) -> str:
        if isinstance(f, (numbers.Integral, np.integer)) and not isinstance(f, bool):
            if not 0 <= int(f) < len(names):
                raise param_error(owner, "features", f"feature indices in [0, {len(names) - 1}]", f)
            return names[int(f)]
        if str(f) not in names:
            raise ValueError(
                f"{owner}: unknown feature {f!r} in 'features'. Available features: {names}."
            )
        return str(f)

    if features is None:
        return names, [[n] for n in names]
    if isinstance(features, Mapping):
        if not features:
            raise param_error(owner, "features", "a non-empty list or dict", features)
        labels, groups = [], []
        for key, members in features.items():
            members = [members] if isinstance(members, (str, numbers.Integral)) else list(members)
            if not members:
                raise ValueError(f"{owner}: the feature group {key!r} is empty.")
            labels.append(str(key))
            groups.append([one(m) for m in members])
        return labels, groups
    if isinstance(features, (str, numbers.Integral)):
        features = [features]
    features = list(features)
    if not features:
        raise param_error(owner, "features", "a non-empty list or dict", features)
    resolved = [one(f) for f in features]
    repeated = sorted({n for n in resolved if resolved.count(n) > 1})
    if repeated:
        raise ValueError(
            f"{owner}: feature(s) {repeated} appear more than once in 'features' (by name or "
            "index); list each once, or use a dict to permute columns jointly."
        )
    return resolved, [[n] for n in resolved]


def _n_subsample(max_samples: Any, n: int, owner: str) -> int:
    if isinstance(max_samples, numbers.Integral) and not isinstance(max_samples, bool):
        if not 1 <= int(max_samples) <= n:
            raise param_error(owner, "max_samples", f"an int in [1, {n}] or a float in (0, 1]",
                              max_samples)
        return int(max_samples)
    if isinstance(max_samples, numbers.Real) and not isinstance(max_samples, bool):
        if not 0 < float(max_samples) <= 1:
            raise param_error(owner, "max_samples", f"an int in [1, {n}] or a float in (0, 1]",
                              max_samples)
        return max(1, int(float(max_samples) * n))
    raise param_error(owner, "max_samples", f"an int in [1, {n}] or a float in (0, 1]",
                      max_samples, exc=TypeError)


# ---------------------------------------------------------------------------- static PFI
def permutation_importance(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    scoring: Any = None,
    n_repeats: int = 5,
    n_jobs: int | None = None,
    random_state: Any = None,
    sample_weight: Any = None,
    max_samples: float | int = 1.0,
    loss: Any = None,
    features: Any = None,
    response_method: str = "auto",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    removal: str = "marginal",
    progress: Any = False,
) -> Any:
    """Permutation feature importance (scikit-learn's arguments and result, plus losses/groups).

    For each feature (or group), each of ``n_repeats`` times, the feature's column is shuffled
    and the model re-scored; the importance is the score decrease (``scoring``) or the mean loss
    increase (``loss``). With ``loss`` it is the mean over rows of PFI's per-observation
    explanation function (:func:`pfi_losses`), computed for all features and repeats in a few
    batched model calls.

    Parameters
    ----------
    estimator : estimator, River model, Booster or callable
        The fitted model. ``scoring`` needs a scikit-learn-API estimator; ``loss`` works with
        anything :func:`~ixplain.models.as_model` accepts.
    X : ndarray of shape (n_samples, n_features), DataFrame or list of dict
        Data; never modified (read-only arrays work). A pandas index is ignored (rows are
        matched by position, as ``y`` is).
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Targets.
    scoring : str, callable, list, tuple, dict or None, default=None
        As in scikit-learn: ``None`` uses ``estimator.score``; several metrics return a dict
        of results. Ignored when ``loss`` is given. Scores that are a mean of per-row losses
        (``None`` for scikit-learn's default accuracy / R^2, ``"accuracy"``, ``"r2"``,
        ``"neg_mean_squared_error"``, ``"neg_mean_absolute_error"``) are computed by the
        batched path (few model calls); other scorers are called once per feature and repeat.
    n_repeats : int, default=5
        Number of permutations per feature.
    n_jobs : int or None, default=None
        Accepted for compatibility with scikit-learn; the work runs in one process as a few
        large batched model calls (use the model's own threads).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the permutations and the row subsamples: permutation ``r`` of the feature in
        column ``j`` of X is drawn from ``keyed_generator(seed, "pfi", r, j)`` (a group of
        columns ``j, k, ...``: ``keyed_generator(seed, "pfi", r, j, k, ...)``;
        :mod:`ixplain._random`), so the result is the same for any ``memory_budget`` (and
        ``n_jobs``), a feature's importance does not depend on which other features are
        computed, and the same matrix gives the same result as a NumPy array, a list, a
        DataFrame or under other column names (the draws follow the column positions).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights for the score / the mean loss.
    max_samples : int or float, default=1.0
        Rows used per repeat (a count, or a fraction of ``n_samples``). Unlike scikit-learn, the
        baseline is computed on the *same* rows as the permuted scores, so a feature the model
        ignores gets exactly 0.
    loss : str or callable, default=None
        ``"squared_error"``, ``"absolute_error"``, ``"log_loss"``, ``"brier"``, ``"zero_one"``
        or ``loss(y_true, y_pred) -> per-row losses``. Importance = loss increase (the
        incremental methods' convention).
    features : list of str or int, or dict of str to list, default=None
        Features to compute (default: all); a dict permutes each group of columns jointly
        (``{"size": ["width", "height"]}``).
    response_method : str, default="auto"
        Model output used with ``loss`` (default: what the loss needs). With ``scoring`` the
        scorer picks the response, so any other value raises.
    memory_budget : int, default=256 MB
        Bound on one model input, in bytes (rows are chunked to fit). At least
        ``MIN_MEMORY_BUDGET`` (4096 bytes; a smaller budget is refused).
    removal : {"marginal", "conditional"}, default="marginal"
        How a feature is removed: shuffled (``"marginal"``, the model's structure) or drawn
        from its conditional distribution given the other features (``"conditional"``:
        conditional feature importance, CFI; a
        :class:`~ixplain.imputation.ConditionalSampler` fitted on ``X``, each row's own values
        excluded from its draws; needs ``loss``). See :mod:`ixplain.imputation`.
    progress : bool or callable, default=False
        Report rows done: ``True`` shows a tqdm bar (or prints lines to stderr without tqdm);
        a callable receives a :class:`~ixplain.ProgressInfo` (``done``, ``total``) after every
        chunk of rows (``done`` = repeats for scorers outside the batched path). The values do
        not depend on it.

    Returns
    -------
    FeatureImportance or dict of str to FeatureImportance
        ``importances_mean`` (n_features,), ``importances_std`` (n_features,) and
        ``importances`` (n_features, n_repeats), in the order of ``features``; a dict for
        multi-metric ``scoring``. With ``loss`` (or a batched scorer),
        ``settings["standard_error"]`` (n_features,) is the standard error of
        ``importances_mean`` from the spread of the per-row loss increases.

    Raises
    ------
    ValueError
        For a bad parameter value, mismatched lengths, an unknown feature, or a loss or score
        that is not finite (an overflowing loss, R^2 of one row): never a NaN importance.
    TypeError
        For a parameter of the wrong type, or ``scoring`` with a model that is not a
        scikit-learn estimator.

    References
    ----------
    L. Breiman, "Random Forests", Machine Learning 45, 2001. A. Fisher, C. Rudin, F. Dominici,
    "All Models are Wrong, but Many are Useful", JMLR 20, 2019.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = 2 * X[:, 0] + X[:, 1]
    >>> r = permutation_importance(lambda A: 2 * A[:, 0] + A[:, 1], X, y,
    ...                            loss="squared_error", n_repeats=3, random_state=0)
    >>> r.importances_mean.round(1)  # 2 * beta**2 * Var(x) = 8, 2, 0
    array([7.7, 1.7, 0. ])
    """
    owner = "permutation_importance"
    _check_loss_or_scoring(loss, scoring, response_method, owner)
    n_repeats = int(check_int(n_repeats, "n_repeats", owner, min_value=1))  # type: ignore[arg-type]
    check_n_jobs(n_jobs, owner)
    report = make_progress(progress, owner)
    seed = root_seed(random_state, owner)
    check_memory_budget(memory_budget, owner)
    check_2d(X, owner)
    table = as_table(X, owner=owner)
    n = table.n_rows
    if n == 0:
        raise ValueError(f"{owner} got X with 0 rows.")
    y_arr = check_target(y, n, owner)
    w = check_sample_weight(sample_weight, n, owner)
    m = _n_subsample(max_samples, n, owner)
    labels, groups = _resolve_groups(features, table.names, owner)
    # the randomness, keyed by what it is for (never by chunk or worker): the row subsample of
    # repeat r, and permutation r of group g, built when a chunk needs them
    _check_sizes(owner, n, m, len(table.names), len(groups), n_repeats)
    if m == n and removal == "marginal":  # the repeats share the rows: one call per row
        _check_sizes(owner, n, m, len(table.names), len(groups), n_repeats, memory_budget)
    every = np.arange(n)  # one array shared by the repeats when they all use every row
    subsets = [every if m == n else
               np.sort(keyed_generator(seed, "pfi-rows", r).choice(n, m, replace=False))
               for r in range(n_repeats)]
    perms = _Permutations(seed, _group_columns(table.names, groups), m, n_repeats,
                          memory_budget)
    settings = {"method": "permutation_importance", "n_repeats": n_repeats,
                "max_samples": max_samples, "random_state": random_state}
    if check_removal(removal, owner) == "conditional":  # the removal step: a fitted sampler
        if loss is None:
            raise ValueError(f"{owner}: removal='conditional' needs loss=... (e.g. "
                             "loss='squared_error'); scoring is not supported with it.")
        loss_obj = get_loss(loss, owner)
        model = as_model(estimator, response_method=_response_for(estimator, loss_obj,
                                                                  response_method), owner=owner)
        model.observe_labels(y_arr)
        sampler = ConditionalSampler().fit(table)
        with overflow_reported(), label_shape_guard(loss_obj, owner, y, y_arr, model):
            imp, se = conditional_pfi_importances(model, loss_obj, table, y_arr, w, subsets,
                                                  groups, seed, sampler, memory_budget, report)
        refuse_nonfinite(imp, owner, "loss increase", labels)
        settings.update(loss=loss_obj.name, removal="conditional", standard_error=se.tolist())
        return FeatureImportance.from_importances(imp, labels, settings)
    if loss is not None:
        loss_obj = get_loss(loss, owner)
        model = as_model(estimator, response_method=_response_for(estimator, loss_obj,
                                                                  response_method), owner=owner)
        model.refuse_nonfinite_outputs(owner)
        model.observe_labels(y_arr)
        with overflow_reported(), label_shape_guard(loss_obj, owner, y, y_arr, model):
            imp, se = _pfi_means(model, loss_obj, table, y_arr, w, subsets, perms, groups,
                                 memory_budget, report)
        refuse_nonfinite(imp, owner, "loss increase", labels)
        settings["loss"] = loss_obj.name
        settings["standard_error"] = se.tolist()
        return FeatureImportance.from_importances(imp, labels, settings)
    return _importances_scoring(estimator, scoring, table, y_arr, w, subsets, perms, groups,
                                labels, settings, memory_budget, report)


def _check_loss_or_scoring(loss: Any, scoring: Any, response_method: str, owner: str) -> None:
    """One of ``loss`` and ``scoring``; ``response_method`` only with ``loss`` (a scorer picks
    its own response, so another value would be ignored without a word)."""
    if loss is not None and scoring is not None:
        raise ValueError(
            f"{owner}: give loss= or scoring=, not both (got loss={loss!r}, scoring={scoring!r}); "
            "the importance is the mean loss increase or the score decrease."
        )
    if loss is None and response_method != "auto":
        raise ValueError(
            f"{owner}: response_method={response_method!r} applies with loss=...; with "
            f"scoring={scoring!r} the scorer chooses the model's response. Pass loss=... (e.g. "
            "loss='log_loss' for predict_proba), or leave response_method='auto'."
        )


def _check_sizes(owner: str, n: int, m: int, d: int, G: int, R: int,
                 memory_budget: int | None = None) -> None:
    """Refuse up front what cannot fit (:func:`~ixplain._validation.check_allocation`): the
    (G, R) importances with the row subsets of the repeats, and -- with ``memory_budget`` --
    one observation's ``1 + G * R`` perturbed rows, the smallest model call of the static
    driver."""
    what = f"n_repeats={R:,} for {G:,} feature group(s)"
    if memory_budget is not None:
        check_allocation(8 * (1 + G * R) * max(d, 1),
                         f"{what} ({1 + G * R:,} perturbed rows of {d} features per observation)",
                         owner, "Use a smaller n_repeats or a larger memory_budget.",
                         memory_budget=memory_budget)
        return
    check_allocation(3 * 8 * G * R + (8 * R * m if m < n else 0),
                     f"{what} (the importances{' and row subsets' if m < n else ''})", owner,
                     "Use a smaller n_repeats.")


class _Permutations:
    """Permutation ``r`` of group ``g``: ``keyed_generator(seed, "pfi", r, *cols_g)
    .permutation(m)``, keyed by the sorted positions ``cols_g`` of the group's columns in X
    (not by their names: the same matrix as an array, a DataFrame or with other column names
    gets the same draws), made on first use and kept while all of them fit in a quarter of the memory
    budget (else made again for each chunk): the same numbers in any chunking."""

    def __init__(self, seed: int, cols: Sequence[Sequence[int]], m: int, n_repeats: int,
                 memory_budget: int) -> None:
        self.seed, self.m = seed, m
        self.cols = [tuple(sorted(int(c) for c in g)) for g in cols]
        self.keep = len(self.cols) * n_repeats * m * 8 <= memory_budget // 4
        self._cache: dict[tuple[int, int], np.ndarray] = {}

    def __call__(self, g: int, r: int) -> np.ndarray:
        g, r = int(g), int(r)  # a numpy int would key another stream (_random keys by repr)
        perm = self._cache.get((g, r))
        if perm is None:
            perm = keyed_generator(self.seed, "pfi", r, *self.cols[g]).permutation(self.m)
            if self.keep:
                self._cache[(g, r)] = perm
        return perm


def _perm_fn(perms: Any) -> Any:
    """``perms(g, r)``: a :class:`_Permutations`, or explicit permutations (G, R, m) as one."""
    if callable(perms):
        return perms
    arr = np.asarray(perms)
    return lambda g, r: arr[g, r]


def _importances_loss(model, loss, table, y, w, subsets, perms, groups, memory_budget):
    """(G, R) mean loss increases from explicit row subsets (R,) and permutations (G, R, m)."""
    return _pfi_means(model, loss, table, y, w, subsets, perms, groups, memory_budget)[0]


def _pfi_means(model, loss, table, y, w, subsets, perms, groups, memory_budget, progress=None,
               owner="permutation_importance"):
    """:func:`_importances_loss` and the (G,) standard errors of the mean over repeats (from the
    spread of the per-row values), by the engine's static driver."""
    G, R = len(groups), len(subsets)
    perms = _perm_fn(perms)
    same_rows = all(s is subsets[0] or np.array_equal(s, subsets[0]) for s in subsets)
    _check_sizes(owner, table.n_rows, len(subsets[0]), len(table.names), G,
                 R if same_rows else 1, memory_budget)
    out, se = np.zeros((G, R)), np.zeros(G)
    # when every repeat uses the same rows, all (group, repeat) copies share one baseline
    plans = [(subsets[0], np.arange(R))] if same_rows else [(s, np.array([r]))
                                                           for r, s in enumerate(subsets)]
    total = sum(len(rows) for rows, _ in plans)
    done = 0
    for rows, reps in plans:
        fn = PermutationPFI(model, loss, groups, table, rows, perms, reps)
        weights = None if w is None else w[rows]
        data = table if len(rows) == table.n_rows and rows[-1] == len(rows) - 1 else (
            table.take(rows))  # (rows are sorted: all rows is arange(n))
        explained = explain_rows(fn, data, y[rows], sample_weight=weights,
                                 memory_budget=memory_budget, progress=progress, total=total,
                                 done=done)
        done += len(rows)
        mean = explained.mean.get()
        out[:, reps] = mean[:, 1:]
        se += explained.standard_error[:, 0] ** 2 / len(plans) ** 2
    return out, np.sqrt(se)


class PFIFunction(Method):
    """PFI's explanation function for the engine, with the replacement rows left to subclasses.

    For a batch of observations, every group ``g`` and draw ``r`` it returns the loss increase
    ``loss(y, f(x with x_S_g := x'_{g r})) - loss(y, f(x))`` (:func:`pfi_losses`), as values of
    shape (B, G, 1 + R): column 0 the mean over the R draws (the per-observation ``lambda``,
    whose spread over rows gives the standard error), columns 1.. the draws. Subclasses say
    where ``x'`` comes from (:meth:`source`).
    """

    name = "pfi"
    needs_labels = True

    def __init__(self, model: Model, loss: Loss, groups: Sequence[Sequence[str]], n_draws: int):
        self.model, self.loss = model, loss
        self.groups = tuple(tuple(g) for g in groups)
        self.n_draws = int(n_draws)
        self._plan: _Plan | None = None  # pfi_losses' layout and stacked source, reused

    def rows_per_observation(self, table: Table) -> int:
        return 1 + len(self.groups) * self.n_draws

    def source(self, batch: RowBatch) -> tuple[Table, np.ndarray, np.ndarray]:
        """``(source table, observation rows (B,), replacement rows (B, G, R))`` in it."""
        raise NotImplementedError  # pragma: no cover - abstract

    def explain(self, batch: RowBatch) -> np.ndarray:
        assert batch.y is not None
        self.model.observe_labels(batch.y)
        source, rows, repl = self.source(batch)
        if self._plan is None or self._plan.schema is not source.schema:
            self._plan = _Plan(source.schema, source.upcast)
        diffs, _ = pfi_losses(self.model, self.loss, source, rows, repl, self.groups, batch.y,
                              plan=self._plan)
        return np.concatenate([diffs.mean(axis=2, keepdims=True), diffs], axis=2)



@register
class PermutationPFI(PFIFunction):
    """``x'`` of observation ``rows[p]`` for group ``g``, repeat ``reps[k]``: row
    ``rows[perms(g, reps[k])[p]]`` of ``table`` (scikit-learn's permutations; ``perms(g, r)``
    gives permutation ``r`` of group ``g`` of the ``len(rows)`` positions)."""

    name = "permutation_importance"

    def __init__(self, model: Model, loss: Loss, groups: Sequence[Sequence[str]], table: Table,
                 rows: np.ndarray, perms: Any, reps: Sequence[int]) -> None:
        super().__init__(model, loss, groups, len(reps))
        self.table, self.rows = table, np.asarray(rows)
        self.perms, self.reps = perms, [int(r) for r in reps]

    def source(self, batch: RowBatch) -> tuple[Table, np.ndarray, np.ndarray]:
        pos = slice(batch.start, batch.start + batch.n_rows)
        repl = np.stack([np.stack([self.rows[self.perms(g, r)[pos]] for r in self.reps], axis=1)
                         for g in range(len(self.groups))], axis=1)
        return self.table, self.rows[pos], repl

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        X = np.random.default_rng(1).normal(size=(130, 3))
        table = as_table(X, ["x0", "x1", "x2"])
        perms = _Permutations(0, [[0], [1], [2]], len(X), 2, DEFAULT_MEMORY_BUDGET)
        fn = cls(as_model(_example_model), get_loss("squared_error"), [["x0"], ["x1"], ["x2"]],
                 table, np.arange(len(X)), perms, [0, 1])
        return fn, X, 2 * X[:, 0] - X[:, 1]


@register
class BackgroundPFI(PFIFunction):
    """``x'`` of row ``t`` for group ``g``, draw ``r``: a row of ``P`` drawn uniformly with
    row ``t``'s own random numbers, so a row gets the same draws however the rows are chunked,
    partitioned or batched.

    Static and Dask (:meth:`explain`): ``P`` is ``background``, the uniforms those of
    ``RowStream(seed, "pfi_background")`` at ``t``. Incremental (:meth:`explain_sampled`, the
    iPFI): ``P`` is the stream's storage, drawn through the driver's
    :class:`~ixplain.methods._incremental.Sampler` (``background`` may be None).
    """

    name = "permutation_importance_background"

    def __init__(self, model: Model, loss: Loss, groups: Sequence[Sequence[str]],
                 background: Table | None, n_draws: int, seed: int) -> None:
        super().__init__(model, loss, groups, n_draws)
        self.background, self.seed = background, int(seed)
        #: :meth:`explain_sampled`'s layout: None picks the numeric one when every feature is
        #: numeric; False always gathers columns (both give the model the same rows).
        self.numeric_layout: bool | None = None
        self._numeric_plan: tuple[_Plan, tuple] | None = None  # (plan, group columns)

    def source(self, batch: RowBatch) -> tuple[Table, np.ndarray, np.ndarray]:
        B, G = batch.n_rows, len(self.groups)
        assert self.background is not None
        u = RowStream(self.seed, "pfi_background", G * self.n_draws).uniforms(batch.start, B)
        repl = B + uniform_index(u, self.background.n_rows).reshape(B, G, self.n_draws)
        return Table.concat([batch.X, self.background]), np.arange(B), repl

    def explain_sampled(self, batch: RowBatch, sampler: Sampler) -> np.ndarray:
        """The iPFI's values: the per-observation ``lambda`` (the mean over the ``n_draws``
        storage rows drawn per group; column 0 of :meth:`explain`'s values), shape (B, G).
        Reports the base ``loss(y, f(x))`` of each row in ``sampler.losses``."""
        X, y = batch.X, np.asarray(batch.y)
        n = len(self.groups) * self.n_draws
        numeric = self.numeric_layout
        if numeric is None:
            numeric = self.numeric_layout = all(k == "numeric" for k in X.schema.kinds)
        if numeric:
            num, _ = sampler.draw_blocks(n)
            xm = getattr(X.columns, "matrix", None)  # a Batch carries its stacked values
            if xm is None:
                xm = np.column_stack([X.columns[c] for c in X.names])
            return self.explain_numeric(X.schema, xm, y, num, sampler)
        source = Table.concat([X, sampler.draw(n)])
        repl = X.n_rows + np.arange(X.n_rows * n).reshape(X.n_rows, -1, self.n_draws)
        diffs, sampler.losses = pfi_losses(self.model, self.loss, source, np.arange(X.n_rows),
                                           repl, self.groups, y)
        return diffs[:, :, 0] if self.n_draws == 1 else diffs.mean(axis=2)

    def explain_numeric(self, schema: Any, xm: np.ndarray, y: np.ndarray,
                        num: np.ndarray, sampler: Any = None) -> np.ndarray:
        """:meth:`explain_sampled` for all-numeric rows ``xm`` (B, d) in ``schema``, with
        their drawn rows ``num`` (draw ``s`` for group ``g`` of row ``i`` at
        ``(i * G + g) * n_draws + s``): :func:`pfi_losses`' numeric layout (the iPFI's
        per-observation hot path). The base losses go to ``sampler.losses`` (if given)."""
        cached = self._numeric_plan
        if cached is None or cached[0].schema is not schema:
            cached = self._numeric_plan = (_Plan(schema),
                                           _group_columns(schema.names, self.groups))
        diffs, base = _numeric_losses(self.model, self.loss, cached[0], xm, num, None,
                                      cached[1], self.n_draws, y)
        if sampler is not None:
            sampler.losses = base
        return diffs[:, :, 0] if self.n_draws == 1 else diffs.mean(axis=2)

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        X = np.random.default_rng(0).normal(size=(120, 3))
        y = 2 * X[:, 0] - X[:, 1]
        background = as_table(X[:40], ["x0", "x1", "x2"])
        model = as_model(_example_model)
        fn = cls(model, get_loss("squared_error"), [["x0"], ["x1"], ["x2"]], background, 2, 0)
        return fn, X, y


def _example_model(X: Any) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    return 2 * A[:, 0] - A[:, 1] + 0.5 * A[:, 0] * A[:, 2]


#: Scorers that are a (weighted) mean of a per-row loss: score = -mean loss (or 1 - mean loss),
#: so the score decrease is the mean loss increase and is computed by the batched path.
_SCORER_LOSSES = {
    "neg_mean_squared_error": "squared_error",
    "neg_mean_absolute_error": "absolute_error",
    "accuracy": "zero_one",
    "r2": "squared_error",  # divided by the weighted variance of y on the rows used
}


def _batched_scoring(estimator: Any, scoring: Any, y: np.ndarray) -> str | None:
    """The scoring string whose decrease the batched loss path computes exactly, or None."""
    if y.ndim != 1:
        return None
    if scoring is None:
        from sklearn.base import ClassifierMixin, RegressorMixin, is_classifier

        final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
        score = getattr(type(final), "score", None)
        if score is ClassifierMixin.score and is_classifier(final):
            return "accuracy"
        if score is RegressorMixin.score and not is_classifier(final):
            return "r2"
        return None
    return scoring if isinstance(scoring, str) and scoring in _SCORER_LOSSES else None


def _r2_scales(subsets, y, w):
    """R^2's scale per repeat: the (weighted) variance of ``y`` on the repeat's rows."""
    scales = np.ones(len(subsets))
    for r, rows in enumerate(subsets):
        wr = np.ones(len(rows)) if w is None else w[rows]
        yr = y[rows].astype(np.float64)
        mean = np.sum(wr * yr) / np.sum(wr)
        scales[r] = np.sum(wr * (yr - mean) ** 2) / np.sum(wr)
    return scales


def _scorer(estimator: Any, scoring: Any) -> Any:
    """scikit-learn's scorer for ``scoring``; a bad name is permutation_importance's error."""
    from sklearn.metrics import check_scoring

    try:
        return check_scoring(estimator, scoring=scoring)
    except ValueError as exc:  # scikit-learn's message names its own check_scoring
        raise param_error(
            "permutation_importance", "scoring",
            "None, a scikit-learn scorer name (e.g. 'r2', 'neg_mean_squared_error', 'accuracy'), "
            "a callable scorer, or a list/tuple/dict of them", scoring,
        ) from exc


def _importances_scoring(estimator, scoring, table, y, w, subsets, perms, groups, labels,
                         settings, memory_budget=DEFAULT_MEMORY_BUDGET, progress=None):
    owner = "permutation_importance"
    if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
        raise TypeError(
            f"{owner}: 'scoring' needs a scikit-learn-API estimator; got "
            f"{type(estimator).__name__}. Pass loss=... (e.g. loss='squared_error') instead."
        )
    batched = _batched_scoring(estimator, scoring, y)
    if batched is not None:
        model = as_model(estimator, response_method="predict", owner=owner)
        model.refuse_nonfinite_outputs(owner)
        with overflow_reported():  # (a non-finite loss: refuse_nonfinite's error, not numpy's)
            imp, se = _pfi_means(model, get_loss(_SCORER_LOSSES[batched]), table, y, w,
                                 subsets, perms, groups, memory_budget, progress)
        refuse_nonfinite(imp, owner, "score decrease", labels)
        scales = _r2_scales(subsets, y, w) if batched == "r2" else np.ones(len(subsets))
        if np.all(scales > 0):
            settings = dict(settings, scoring=batched,
                            standard_error=(se / scales.mean()).tolist())
            return FeatureImportance.from_importances(imp / scales, labels, settings)
    scorer = _scorer(estimator, scoring)

    def score(rows: np.ndarray, cols: dict[str, Any]) -> Any:
        native = Table(cols, table.schema, table.upcast).to_native()
        yr = y[rows]
        if w is None:
            return scorer(estimator, native, yr)
        return scorer(estimator, native, yr, sample_weight=w[rows])

    G, R = len(groups), len(subsets)
    perms = _perm_fn(perms)
    baselines: list[Any] = []
    permuted: list[list[Any]] = [[None] * R for _ in range(G)]
    for r in range(R):
        rows = subsets[r]
        base_cols = {n: _take(c, rows) for n, c in table.columns.items()}
        baselines.append(score(rows, base_cols))
        if not isinstance(baselines[-1], dict):
            refuse_nonfinite(baselines[-1], owner, "score " + (
                "estimator.score" if scoring is None else repr(scoring)) + " of the rows")
        for g, names in enumerate(groups):
            cols = dict(base_cols)
            src = rows[perms(g, r)]
            for name in names:
                cols[name] = _take(table.columns[name], src)
            permuted[g][r] = score(rows, cols)
        if progress is not None:
            progress(ProgressInfo(r + 1, R, owner))  # repeats done
    settings = dict(settings, scoring=scoring if isinstance(scoring, (str, type(None))) else
                    repr(scoring))
    if isinstance(baselines[0], dict):
        return {
            key: FeatureImportance.from_importances(
                np.array([[baselines[r][key] - permuted[g][r][key] for r in range(R)]
                          for g in range(G)]), labels, dict(settings, scoring=key))
            for key in baselines[0]
        }
    imp = np.array([[baselines[r] - permuted[g][r] for r in range(R)] for g in range(G)])
    refuse_nonfinite(imp, owner, "score decrease", labels)
    return FeatureImportance.from_importances(imp, labels, settings)


# ---------------------------------------------------------------------------- iPFI
class IncrementalPFI(IncrementalExplainer):
    """Incremental permutation feature importance (iPFI) on a data stream.

    For each observation ``(x_t, y_t)`` and each feature ``j``, ``n_samples`` rows ``x'`` are
    drawn from the storage and ``lambda_j = mean over x' of loss(y_t, f(x_t with x_j := x'_j))
    - loss(y_t, f(x_t))`` is computed -- all ``1 + d * n_samples`` rows in **one** model call
    (one call per mini-batch in :meth:`explain_many`). The importances are then::

        phi_t = (1 - alpha) * phi_{t-1} + alpha * lambda_t      (aggregation='ema')
        phi_t = mean of lambda_s, s <= t                         (aggregation='mean')

    The model is called at explain time: a model learning online is explained as it is now.

    Parameters
    ----------
    model : estimator, River model, Booster or callable
        Anything :func:`~ixplain.models.as_model` accepts.
    loss : str or callable
        ``"squared_error"``, ``"absolute_error"``, ``"log_loss"``, ``"brier"``, ``"zero_one"``,
        or ``loss(y_true, y_pred) -> per-row losses``. The model output follows the loss
        (probabilities for log loss / Brier, labels or values otherwise).
    feature_names : sequence of str, optional
        The model's features; default: the first observation's keys / columns.
    alpha : float, default=0.001
        Smoothing rate for ``'ema'`` (effective window about ``2 / alpha - 1`` rows).
    storage : storage, optional
        Perturbation data. Default: ``GeometricReservoir(1000, p=1)`` for ``'ema'`` -- recent rows,
        since an 'ema' estimate assumes the model or data may drift and replacement values should
        come from the current distribution; ``UniformReservoir(1000)`` for ``'mean'`` -- a uniform
        sample of the whole stream, matching a running mean over the whole stream.
    n_samples : int, default=1
        Replacement rows per feature and observation.
    aggregation : {"ema", "mean"}, default="ema"
    random_state : None, int or numpy.random.Generator, default=None
    bias_corrected : bool, default=False
        Report ``phi_t / (1 - (1 - alpha) ** (t - 1))`` (the estimate starts at 0).
    history_every : int, default=100
        Snapshot interval of ``history_`` (rows).
    history_size : int, default=1000
        Maximum number of snapshots kept.
    response_method : str, default="auto"
        Override the model output chosen from the loss.
    nan_policy : {"skip", "raise", "pass"}, default="skip"
        See :mod:`ixplain.methods._incremental`.
    removal : {"marginal", "conditional"}, default="marginal"
        ``"conditional"``: each feature drawn from its conditional distribution given the
        others, by the sampler of a :class:`~ixplain.imputation.ConditionalStorage` (the
        default storage then; a storage given must be one). See :mod:`ixplain.imputation`.
    max_batch : int, default=2048
        Rows of :meth:`explain_many` per model call (each with ``1 + d * n_samples`` model
        rows); the results do not depend on it.
    drift_detector : ExplanationDriftDetector, optional
        Tests every observation's explanation values for changes (:mod:`ixplain.drift`);
        events in ``drift_detector.events_``.

    Attributes
    ----------
    importances_ : ndarray of shape (n_features,)
        The current importances (smoothed or averaged per-row loss increases).
        Before the first explained row it is not an error (River's and ixai's habit, where an
        explainer that has seen nothing reports nothing): an empty array (shape (0,)) before
        the first observation, zeros of this shape once the features are known but no row was
        explained yet (the first row only fills an empty storage, or every row was skipped).
        ``IncrementalPDP.pd_`` and ``IncrementalALE.ale_`` raise ``NotStartedError`` instead:
        a curve has no grid before its first row.
    variances_ : ndarray of shape (n_features,)
    feature_names_ : list of str
    n_seen_, n_explained_, n_skipped_ : int
    history_ : deque of (n_seen, importances, variances)

    References
    ----------
    F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental Permutation Feature
    Importance (iPFI): Towards Online Explanations on Data Streams", Machine Learning 112, 2023
    (and AAAI 2023). Reference implementation: the ``ixai`` package.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> def model(X):
    ...     return np.array([3 * r["a"] for r in X])
    >>> ipfi = IncrementalPFI(model, "squared_error", aggregation="mean", random_state=0)
    >>> for _ in range(2000):
    ...     x = {"a": rng.normal(), "b": rng.normal()}
    ...     phi = ipfi.explain_one(x, 3 * x["a"])
    >>> ipfi.feature_names_, phi.round(0)  # 2 * 3**2 * Var(a) = 18
    (['a', 'b'], array([18.,  0.]))
    """

    _owner = "IncrementalPFI"

    def __init__(
        self,
        model: Any,
        loss: Any,
        *,
        feature_names: Any = None,
        alpha: float = 0.001,
        storage: SlotStorage | None = None,
        n_samples: int = 1,
        aggregation: str = "ema",
        random_state: Any = None,
        bias_corrected: bool = False,
        history_every: int = 100,
        history_size: int = 1000,
        response_method: str = "auto",
        nan_policy: str = "skip",
        removal: str = "marginal",
        max_batch: int | None = None,
        drift_detector: Any = None,
    ) -> None:
        self.loss = loss
        self._loss = get_loss(loss, self._owner)
        self.removal = check_removal(removal, self._owner)
        storage = conditional_storage(self, storage, random_state)
        self._all_numeric: bool | None = None
        self._method: BackgroundPFI | ConditionalPFI | None = None  # built at the first row
        self.n_samples = int(
            check_int(n_samples, "n_samples", self._owner, min_value=1)  # type: ignore[arg-type]
        )
        super().__init__(
            model,
            feature_names=feature_names,
            storage=storage,
            aggregation=aggregation,
            alpha=alpha,
            bias_corrected=bias_corrected,
            history_every=history_every,
            history_size=history_size,
            response_method=_response_for(model, self._loss, response_method),
            nan_policy=nan_policy,
            random_state=random_state,
            max_batch=max_batch,
        )
        self.drift_detector = drift_detector

    def _explain_batch(self, X: Table, y: np.ndarray | None, sampler: Sampler) -> np.ndarray:
        assert y is not None and self._schema is not None
        if self._all_numeric is None:
            self._all_numeric = all(k == "numeric" for k in self._schema.kinds)
        return self._pfi().explain_sampled(RowBatch(X, y, int(sampler.rows[0])), sampler)

    def _pfi(self) -> BackgroundPFI | ConditionalPFI:
        """The registered method evaluated, one group per feature, built at the first row:
        :class:`BackgroundPFI` with ``P`` the storage, or with ``removal="conditional"``
        :class:`~ixplain.methods._conditional.ConditionalPFI` drawing from the storage's
        conditional sampler."""
        if self._method is None:
            assert self._schema is not None
            groups = [(n,) for n in self._schema.names]
            if self.removal == "conditional":
                self._method = ConditionalPFI(self._model, self._loss, groups, None,
                                              self._seed, range(self.n_samples))
                return self._method
            method = BackgroundPFI(self._model, self._loss, groups, None, self.n_samples,
                                   self._seed)
            method.numeric_layout = self._all_numeric
            self._method = method
        return self._method

    def _explain_numeric_row(
        self, xm: np.ndarray, y: np.ndarray | None, t: int, sampler: Sampler
    ) -> np.ndarray | None:
        if self._all_numeric is not True or y is None or self.removal == "conditional":
            return None  # decided by the first _explain_batch call
        draws = sampler.draw_numeric_one(xm.shape[1] * self.n_samples, t)
        method = self._pfi()
        assert isinstance(method, BackgroundPFI)
        return method.explain_numeric(self._schema, xm, y, draws, sampler)

    def importance_history(self) -> ImportanceTimeSeries:
        """``history_`` as an :class:`~ixplain.results.ImportanceTimeSeries`."""
        return ImportanceTimeSeries.from_history(
            list(self.history_), self.feature_names_ or [],
            {"method": "IncrementalPFI", "alpha": self.alpha, "aggregation": self.aggregation},
        )
