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

from .._random import keyed_generator
from .._validation import (
    check_int,
    check_n_jobs,
    check_sample_weight,
    check_target,
    param_error,
)
from ..imputation import ConditionalSampler, check_removal
from ..losses import Loss, get_loss
from ..models import Model, as_model, rows_for_budget
from ..models.base import DEFAULT_MEMORY_BUDGET
from ..results.importance import FeatureImportance, ImportanceTimeSeries
from ..storage.base import SlotStorage, seed_of
from ..tabular import Table, _take, as_table
from ._conditional import (
    conditional_ipfi_batch,
    conditional_pfi_importances,
    conditional_storage,
)
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
            names = self.names
            return [dict(zip(names, row)) for row in self.matrix.tolist()]
        return super().to_native(kind)


def pfi_losses(
    model: Model,
    loss: Loss,
    source: Table,
    rows: np.ndarray,
    replacements: np.ndarray,
    groups: Sequence[Sequence[str]],
    y: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Loss increase when each feature group takes the values of replacement rows (batched).

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

    Returns
    -------
    diffs : ndarray of shape (B, G, S)
        ``loss(y_i, f(x_i with S_g := x'_{igs})) - loss(y_i, f(x_i))``.
    base : ndarray of shape (B,)
        ``loss(y_i, f(x_i))``.
    """
    B, G, S = replacements.shape
    width = 1 + G * S
    names = source.names
    pos, col_of, order = _layout(B, S, _group_columns(names, groups))
    drawn = replacements.reshape(B, G * S)[:, order].reshape(-1)
    columns = list(source.columns.values())
    cols: dict[str, Any]
    if all(isinstance(c, np.ndarray) and c.dtype == np.float64 for c in columns):
        matrix = np.column_stack(columns)
        # all float64: repeat the observations' rows, then write every replaced cell at once
        perturbed = np.repeat(matrix[rows], width, axis=0)
        if len(pos):
            perturbed[pos, col_of] = matrix[drawn, col_of]
        cols = {name: perturbed[:, c] for c, name in enumerate(names)}
        table: Table = _StackedTable(cols, source.schema, source.upcast, perturbed)
    else:
        # idx[r, c]: the source row whose value of column c goes to perturbed row r
        idx = np.repeat(rows, width)[:, None].repeat(len(names), axis=1)
        if len(pos):
            idx[pos, col_of] = drawn
        cols = {name: _take(col, idx[:, c]) for c, (name, col) in enumerate(zip(names, columns))}
        table = Table(cols, source.schema, source.upcast)
    preds = model.predict(table)
    y_rep = np.repeat(np.asarray(y), width, axis=0)
    losses = loss(y_rep, preds, model.classes_).reshape(B, width)
    diffs = losses[:, 1:].reshape(B, G, S) - losses[:, :1, None]
    return diffs, losses[:, 0]


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
        Seeds the permutations and the row subsamples: permutation ``r`` of feature (or group)
        ``j`` is drawn from ``keyed_generator(seed, "pfi", r, j)`` (:mod:`ixplain._random`), so
        the result is the same for any ``memory_budget`` (and ``n_jobs``), and a feature's
        importance does not depend on which other features are computed.
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
        Model output used with ``loss`` (default: what the loss needs).
    memory_budget : int, default=256 MB
        Bound on one model input, in bytes (rows are chunked to fit).
    removal : {"marginal", "conditional"}, default="marginal"
        How a feature is removed: shuffled (``"marginal"``, the model's structure) or drawn
        from its conditional distribution given the other features (``"conditional"``:
        conditional feature importance, CFI; a
        :class:`~ixplain.imputation.ConditionalSampler` fitted on ``X``, each row's own values
        excluded from its draws; needs ``loss``). See :mod:`ixplain.imputation`.

    Returns
    -------
    FeatureImportance or dict of str to FeatureImportance
        ``importances_mean`` (n_features,), ``importances_std`` (n_features,) and
        ``importances`` (n_features, n_repeats), in the order of ``features``; a dict for
        multi-metric ``scoring``.

    Raises
    ------
    ValueError
        For a bad parameter value, mismatched lengths, an unknown feature.
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
    array([7.7, 1.9, 0. ])
    """
    owner = "permutation_importance"
    n_repeats = int(check_int(n_repeats, "n_repeats", owner, min_value=1))  # type: ignore[arg-type]
    check_n_jobs(n_jobs, owner)
    seed = seed_of(random_state, owner)
    if not isinstance(memory_budget, numbers.Integral) or memory_budget < 1:
        raise param_error(owner, "memory_budget", "an int >= 1 (bytes)", memory_budget)
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
    subsets = [np.arange(n) if m == n else
               np.sort(keyed_generator(seed, "pfi-rows", r).choice(n, m, replace=False))
               for r in range(n_repeats)]
    perms = _Permutations(seed, labels, m, n_repeats, memory_budget)
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
        imp = conditional_pfi_importances(model, loss_obj, table, y_arr, w, subsets, groups,
                                          seed, ConditionalSampler().fit(table), memory_budget)
        settings.update(loss=loss_obj.name, removal="conditional")
        return FeatureImportance.from_importances(imp, labels, settings)
    if loss is not None:
        loss_obj = get_loss(loss, owner)
        model = as_model(estimator, response_method=_response_for(estimator, loss_obj,
                                                                  response_method), owner=owner)
        model.observe_labels(y_arr)
        imp = _importances_loss(model, loss_obj, table, y_arr, w, subsets, perms, groups,
                                memory_budget)
        settings["loss"] = loss_obj.name
        return FeatureImportance.from_importances(imp, labels, settings)
    return _importances_scoring(estimator, scoring, table, y_arr, w, subsets, perms, groups,
                                labels, settings, memory_budget)


class _Permutations:
    """Permutation ``r`` of group ``g``: ``keyed_generator(seed, "pfi", r, label_g)
    .permutation(m)``, made on first use and kept while all of them fit in a quarter of the
    memory budget (else made again for each chunk): the same numbers in any chunking."""

    def __init__(self, seed: int, labels: Sequence[str], m: int, n_repeats: int,
                 memory_budget: int) -> None:
        self.seed, self.labels, self.m = seed, list(labels), m
        self.keep = len(self.labels) * n_repeats * m * 8 <= memory_budget // 4
        self._cache: dict[tuple[int, int], np.ndarray] = {}

    def __call__(self, g: int, r: int) -> np.ndarray:
        g, r = int(g), int(r)  # a numpy int would key another stream (_random keys by repr)
        perm = self._cache.get((g, r))
        if perm is None:
            perm = keyed_generator(self.seed, "pfi", r, self.labels[g]).permutation(self.m)
            if self.keep:
                self._cache[(g, r)] = perm
        return perm


#: Rows summed together when averaging per-row losses: fixed blocks, so the sums (and the
#: importances) are the same bits for any memory budget.
_SUM_BLOCK = 1024


class _BlockSum:
    """``sum_i w_i v_i`` over rows fed in any chunks, summed in fixed blocks of rows."""

    def __init__(self, weights: np.ndarray, shape: tuple[int, ...]) -> None:
        self.weights = weights
        self.total = np.zeros(shape)
        self._buf = np.empty((_SUM_BLOCK, *shape))
        self._filled = 0
        self._start = 0

    def add(self, values: np.ndarray) -> None:
        i = 0
        while i < len(values):
            take = min(_SUM_BLOCK - self._filled, len(values) - i)
            self._buf[self._filled : self._filled + take] = values[i : i + take]
            self._filled += take
            i += take
            if self._filled == _SUM_BLOCK:
                self._flush()

    def _flush(self) -> None:
        k = self._filled
        w = self.weights[self._start : self._start + k]
        self.total += np.tensordot(w, self._buf[:k], axes=1)
        self._start += k
        self._filled = 0

    def result(self) -> np.ndarray:
        if self._filled:
            self._flush()
        return self.total


def _perm_fn(perms: Any) -> Any:
    """``perms(g, r)``: a :class:`_Permutations`, or explicit permutations (G, R, m) as one."""
    if callable(perms):
        return perms
    arr = np.asarray(perms)
    return lambda g, r: arr[g, r]


def _importances_loss(model, loss, table, y, w, subsets, perms, groups, memory_budget):
    """(G, R) mean loss increases from explicit row subsets (R,) and permutations
    ``perms(g, r)`` of shape (m,) (or an array (G, R, m))."""
    G, R = len(groups), len(subsets)
    perms = _perm_fn(perms)
    same_rows = all(s is subsets[0] or np.array_equal(s, subsets[0]) for s in subsets)
    out = np.zeros((G, R))
    budget_rows = rows_for_budget(len(table.names), memory_budget)
    # when every repeat uses the same rows, all (group, repeat) copies share one baseline
    plans = [(subsets[0], np.arange(R))] if same_rows else [(s, np.array([r]))
                                                           for r, s in enumerate(subsets)]
    for rows, reps in plans:
        width = 1 + G * len(reps)
        chunk = max(1, budget_rows // width)
        weights = np.ones(len(rows)) if w is None else w[rows]
        total = _BlockSum(weights, (G, len(reps)))
        for s in range(0, len(rows), chunk):
            pos = slice(s, min(s + chunk, len(rows)))
            # replacement source row of observation rows[pos][i] for group g, repeat r
            repl = np.stack([np.stack([rows[perms(g, r)[pos]] for r in reps], axis=1)
                             for g in range(G)], axis=1)
            diffs, _ = pfi_losses(model, loss, table, rows[pos], repl, groups, y[rows[pos]])
            total.add(diffs)
        out[:, reps] = total.result() / weights.sum()
    return out


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


def _importances_scoring(estimator, scoring, table, y, w, subsets, perms, groups, labels,
                         settings, memory_budget=DEFAULT_MEMORY_BUDGET):
    owner = "permutation_importance"
    if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
        raise TypeError(
            f"{owner}: 'scoring' needs a scikit-learn-API estimator; got "
            f"{type(estimator).__name__}. Pass loss=... (e.g. loss='squared_error') instead."
        )
    batched = _batched_scoring(estimator, scoring, y)
    if batched is not None:
        model = as_model(estimator, response_method="predict", owner=owner)
        imp = _importances_loss(model, get_loss(_SCORER_LOSSES[batched]), table, y, w, subsets,
                                perms, groups, memory_budget)
        scales = np.ones(len(subsets))
        if batched == "r2":
            for r, rows in enumerate(subsets):
                wr = np.ones(len(rows)) if w is None else w[rows]
                yr = y[rows].astype(np.float64)
                mean = np.sum(wr * yr) / np.sum(wr)
                scales[r] = np.sum(wr * (yr - mean) ** 2) / np.sum(wr)
        if np.all(scales > 0):
            settings = dict(settings, scoring=batched)
            return FeatureImportance.from_importances(imp / scales, labels, settings)
    from sklearn.metrics import check_scoring

    scorer = check_scoring(estimator, scoring=scoring)

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
        for g, names in enumerate(groups):
            cols = dict(base_cols)
            src = rows[perms(g, r)]
            for name in names:
                cols[name] = _take(table.columns[name], src)
            permuted[g][r] = score(rows, cols)
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

    Attributes
    ----------
    importances_ : ndarray of shape (n_features,)
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
    ) -> None:
        self.loss = loss
        self._loss = get_loss(loss, self._owner)
        self.removal = check_removal(removal, self._owner)
        storage = conditional_storage(self, storage, random_state)
        self._groups: tuple[tuple[str, ...], ...] | None = None
        self._all_numeric: bool | None = None
        # single-row path: (d, destination rows, draw rows, columns) and the model's input kind
        self._row_layout: tuple | None = None
        self._native_kind: str | None = None
        self._budget_rows = 0  # rows of one native call (with _native_kind known)
        self._names_list: list[str] = []
        self._row_names: list[str] = []
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

    def _explain_batch(self, X: Table, y: np.ndarray | None, sampler: Sampler) -> np.ndarray:
        if self.removal == "conditional":  # the removal step handed to the storage's sampler
            return conditional_ipfi_batch(self, X, np.asarray(y), sampler)
        names = X.names
        d, S, B = len(names), self.n_samples, X.n_rows
        if self._groups is None:
            self._groups = tuple((n,) for n in names)
        assert y is not None and self._schema is not None
        if self._all_numeric is None:
            self._all_numeric = all(k == "numeric" for k in self._schema.kinds)
        if self._all_numeric:
            num, _ = sampler.draw_blocks(d * S)
            xm = getattr(X.columns, "matrix", None)  # a Batch carries its stacked values
            if xm is None:
                xm = np.column_stack([X.columns[n] for n in names])
            return self._explain_numeric(xm, y, num)
        drawn = sampler.draw_columns(d * S)
        source = self._make_table({n: np.concatenate((X.columns[n], drawn[n])) for n in names})
        repl = B + np.arange(B * d * S).reshape(B, d, S)
        diffs, _ = pfi_losses(self._model, self._loss, source, np.arange(B), repl,
                              self._groups, y)
        return diffs[:, :, 0] if S == 1 else diffs.mean(axis=2)

    def _explain_numeric_row(
        self, xm: np.ndarray, y: np.ndarray | None, t: int
    ) -> np.ndarray | None:
        if self._all_numeric is False or y is None or self.removal == "conditional":
            return None
        return self._explain_numeric(xm, y, self._draw_numeric_one(xm.shape[1] * self.n_samples, t))

    def _numeric_layout(self, B: int, d: int) -> tuple[np.ndarray, np.ndarray]:
        """Flat positions of the replaced cells for ``B`` rows (cached; a prefix of the
        layout for the largest batch seen): in the perturbed rows, ``(i * width + 1 + r,
        cols[r])``; in the draws, ``(i * d * S + r, cols[r])``, for ``r = j * S + s``."""
        S = self.n_samples
        k = d * S
        layout = self._row_layout
        if layout is None or layout[0] != d or layout[1].size < B * k:
            rr = np.arange(k)
            cols = np.repeat(np.arange(d), S)
            i = np.arange(max(B, 1 if layout is None else layout[1].size // k))[:, None]
            dest = ((i * (1 + k) + 1 + rr) * d + cols).reshape(-1)
            src = ((i * k + rr) * d + cols).reshape(-1)
            layout = self._row_layout = (d, dest, src)
            names = self._schema.names  # type: ignore[union-attr]
            self._row_names = [names[j] for j in cols]  # the replaced feature of each row
        return layout[1][: B * k], layout[2][: B * k]

    def _explain_numeric(self, xm: np.ndarray, y: np.ndarray, num: np.ndarray) -> np.ndarray:
        """:meth:`_explain_batch` for ``B`` all-numeric rows ``xm`` (shape (B, d)) with their
        ``B * d * n_samples`` drawn rows ``num`` (draw ``s`` of feature ``j`` for row ``i`` at
        ``(i * d + j) * S + s``): the same values as :func:`pfi_losses` (same draws, same cells,
        same arithmetic) with the perturbed rows written in one step from flat positions."""
        assert self._schema is not None
        names = self._schema.names
        B, d = xm.shape
        S = self.n_samples
        width = 1 + d * S
        n_rows = B * width
        dest, src = self._numeric_layout(B, d)
        # row i * width: observation i; row i * width + 1 + j * S + s: feature j := draw s
        model = self._model
        kind = self._native_kind if n_rows <= self._budget_rows else None
        if kind == "records":
            # what _StackedTable.to_native builds, [dict(zip(names, r)) for r in
            # perturbed.tolist()]: each observation's dict, then copies of it with one value
            # replaced (same keys in the same order, same floats)
            values = num.take(src).tolist()
            k = len(self._row_names)
            records = []
            for i, row in enumerate(xm.tolist()):
                base = dict(zip(names, row))
                records.append(base)
                for name, v in zip(self._row_names, values[i * k : (i + 1) * k]):
                    rec = base.copy()
                    rec[name] = v
                    records.append(rec)
            preds = model._call_native(records, n_rows, kind, self._names_list)
        else:
            perturbed = xm.repeat(width, axis=0)  # C-contiguous: flat positions apply
            perturbed.put(dest, num.take(src))
            if kind == "numpy":  # what _StackedTable.to_native gives: the matrix itself
                preds = model._call_native(perturbed, n_rows, kind, self._names_list)
            else:
                schema = self._schema
                table = _StackedTable({n: perturbed[:, c] for c, n in enumerate(names)},
                                      schema, frozenset(), perturbed)
                budget = rows_for_budget(d)
                if n_rows <= budget:  # predict makes one native call
                    kind = model.native_kind(table)
                    if kind == "records" or (kind == "numpy"
                                             and schema.array_dtype in (None, np.float64)):
                        self._native_kind = kind
                        self._budget_rows = budget
                        self._names_list = list(names)
                preds = model.predict(table)
        losses = self._loss(y.repeat(width, axis=0), preds, model.classes_).reshape(B, width)
        if S == 1:
            return losses[:, 1:] - losses[:, :1]
        return (losses[:, 1:].reshape(B, d, S) - losses[:, :1, None]).mean(axis=2)

    def importance_history(self) -> ImportanceTimeSeries:
        """``history_`` as an :class:`~ixplain.results.ImportanceTimeSeries`."""
        return ImportanceTimeSeries.from_history(
            list(self.history_), self.feature_names_ or [],
            {"method": "IncrementalPFI", "alpha": self.alpha, "aggregation": self.aggregation},
        )
