"""Static permutation importance: the checks of :func:`~ixplain.methods.pfi.permutation_importance`
and its driver.

The driver evaluates scikit-learn's model rows and no more: for each row set (all rows, or
each repeat's subsample), the rows as they are (the baseline) and, for every (group, repeat),
the rows with the group's columns taken from permutation ``r`` of the group -- ``m * (1 + G *
R)`` model rows for ``m`` rows, ``G`` groups and ``R`` repeats. A model call holds one chunk of
rows (as many as ``memory_budget`` allows, at most all of them) in one or several perturbed
copies (small tables are stacked up to a cache-sized call); the copies are one buffer in which
only the permuted group's columns are written (and restored), so a call costs the model's
rows plus the permuted cells, not a copy of the table.

Each permutation is drawn once (``keyed_generator(seed, "pfi", r, *columns)``), when its
(group, repeat) comes: the (group, repeat) pairs are taken in blocks whose permutations and
per-row losses fit a quarter of ``memory_budget``, and every chunk of rows is evaluated for a
block before the next block is drawn. The per-row loss increases of a (group, repeat) are
averaged over all rows at once, so the result is the same bits for any ``memory_budget``.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._numeric import overflow_reported
from .._random import keyed_generator
from .._validation import check_allocation, param_error, refuse_nonfinite
from ..aggregation import Mean
from ..losses import Loss, get_loss
from ..models import Model, as_model, call_rows
from ..models.base import DEFAULT_MEMORY_BUDGET
from ..results.importance import FeatureImportance
from ..tabular import Table, _take
from ._batched_pfi import _group_columns, _native_predict, _Plan
from ._engine import ProgressInfo

__all__: list[str] = []


# ---------------------------------------------------------------------------- the checks
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
        if not 1 <= int(max_samples) <= n:  # (scikit-learn's sentence for code matching it)
            raise param_error(owner, "max_samples", f"an int in [1, {n}] or a float in (0, 1] "
                              "(max_samples must be <= n_samples)", max_samples)
        return int(max_samples)
    if isinstance(max_samples, numbers.Real) and not isinstance(max_samples, bool):
        if not 0 < float(max_samples) <= 1:
            raise param_error(owner, "max_samples", f"an int in [1, {n}] or a float in (0, 1]",
                              max_samples)
        return max(1, int(float(max_samples) * n))
    raise param_error(owner, "max_samples", f"an int in [1, {n}] or a float in (0, 1]",
                      max_samples, exc=TypeError)


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


# ---------------------------------------------------------------------------- the permutations
class _Permutations:
    """Permutation ``r`` of group ``g``: ``keyed_generator(seed, "pfi", r, *cols_g)
    .permutation(m)``, keyed by the sorted positions ``cols_g`` of the group's columns in X
    (not by their names: the same matrix as an array, a DataFrame or with other column names
    gets the same draws). The drivers ask for each (group, repeat) once."""

    def __init__(self, seed: int, cols: Sequence[Sequence[int]], m: int) -> None:
        self.seed, self.m = seed, m
        self.cols = [tuple(sorted(int(c) for c in g)) for g in cols]

    def __call__(self, g: int, r: int) -> np.ndarray:
        g, r = int(g), int(r)  # a numpy int would key another stream (_random keys by repr)
        return keyed_generator(self.seed, "pfi", r, *self.cols[g]).permutation(self.m)


def _perm_fn(perms: Any) -> Any:
    """``perms(g, r)``: a :class:`_Permutations`, or explicit permutations (G, R, m) as one."""
    if callable(perms):
        return perms
    arr = np.asarray(perms)
    return lambda g, r: arr[g, r]


# ---------------------------------------------------------------------------- the model rows
#: Perturbed copies of each row per model call (interleaved: row i's copies are consecutive)
#: when many (group, repeat) pairs share a chunk of rows: a tree ensemble walks nearly the same
#: paths for rows that differ in one feature (HistGradientBoosting, 20,000 x 10: 25% less time
#: per row with 8 or 16 copies); used when each chunk's copies are written once in all.
INTERLEAVE = 16


class _MatrixCopies:
    """``k`` perturbed copies of a chunk of all-float64 rows in one reused buffer, interleaved
    (buffer row ``i * k + j``: copy ``j`` of row ``lo + i``); a task writes its group's columns
    into its copy, and the next task of another group in that copy restores them first. The
    permuted values are gathered from a contiguous copy of the group's columns (made once per
    group, not per repeat: a gather from the row-major matrix touches one cache line a row)."""

    def __init__(self, model: Model, plan: _Plan, matrix: np.ndarray, cols: Sequence[tuple],
                 copies: int, chunk: int) -> None:
        self.model, self.plan, self.matrix = model, plan, matrix
        self.cols = [c[0] if len(c) == 1 else np.asarray(c, dtype=np.intp) for c in cols]
        self.buffer = np.empty((copies * chunk, matrix.shape[1]))
        self.dirty: list[int] = [-1] * copies
        self.bounds: tuple[int, int] | None = None
        self._columns: dict[int, np.ndarray] = {}  # two groups' columns, contiguous

    def load(self, lo: int, hi: int) -> None:
        if self.bounds == (lo, hi):
            return
        k, d = len(self.dirty), self.matrix.shape[1]
        self.buffer[: (hi - lo) * k].reshape(hi - lo, k, d)[:] = self.matrix[lo:hi, None, :]
        self.dirty = [-1] * k
        self.bounds = (lo, hi)

    def columns(self, g: int) -> np.ndarray:
        """Group ``g``'s columns of ``matrix``, contiguous: (m,) for one column, else (m, k)."""
        got = self._columns.get(g)
        if got is None:
            if len(self._columns) >= 2:  # the group written and the one restored
                self._columns.pop(next(iter(self._columns)))
            got = self._columns[g] = np.ascontiguousarray(self.matrix[:, self.cols[g]])
        return got

    def predict(self, tasks: Sequence[tuple[int, np.ndarray | None]]) -> np.ndarray:
        """Predictions for the tasks' copies, in row-major order (row ``i``'s copies together)."""
        assert self.bounds is not None
        lo, hi = self.bounds
        k, n = len(self.dirty), hi - lo
        for j, (g, positions) in enumerate(tasks):
            copy, old = self.buffer[j : n * k : k], self.dirty[j]
            if old >= 0 and old != g:  # restore the columns another group permuted
                copy[:, self.cols[old]] = self.columns(old)[lo:hi]
            if g >= 0:
                copy[:, self.cols[g]] = self.columns(g)[positions]
            self.dirty[j] = g
        rows = self.buffer[: n * k]
        if len(tasks) < k:  # the last call of a block: only its copies go to the model
            rows = rows.reshape(n, k, -1)[:, : len(tasks)].reshape(n * len(tasks), -1)
        return _native_predict(self.model, self.plan, rows)


class _ColumnCopies:
    """:class:`_MatrixCopies` for any columns (categories, dates, strings): each call gathers
    its copies (interleaved the same way) column by column into a
    :class:`~ixplain.tabular.Table`."""

    def __init__(self, model: Model, data: Table, cols: Sequence[tuple]) -> None:
        self.model, self.data = model, data
        self.groups = [set(c) for c in cols]
        self.rows = np.arange(0)

    def load(self, lo: int, hi: int) -> None:
        self.rows = np.arange(lo, hi)

    def predict(self, tasks: Sequence[tuple[int, np.ndarray | None]]) -> np.ndarray:
        data, columns = self.data, {}
        for c, (name, col) in enumerate(data.columns.items()):
            idx = np.stack([self.rows if p is None or c not in self.groups[g] else p
                            for g, p in tasks], axis=1).reshape(-1)
            columns[name] = _take(col, idx)
        return self.model.predict(Table(columns, data.schema, data.upcast))


class _RowSet:
    """The model's per-row losses on one row set ``data`` (``m`` rows) for lists of up to
    ``block`` tasks ``(g, positions)``: the rows with group ``g``'s columns taken from rows
    ``positions`` (shape (m,), a permutation) of ``data``, or as they are for ``g = -1``.

    A model call holds ``copies`` perturbed copies of a chunk of rows, at most
    :func:`~ixplain.models.call_rows` rows: all ``m`` rows once when they fill a call
    (scikit-learn's calls), a small table's copies stacked, and up to :data:`INTERLEAVE`
    copies of smaller chunks when one block holds every task (each chunk's copies are then
    written once)."""

    def __init__(self, model: Model, loss: Loss, data: Table, y: np.ndarray,
                 cols: Sequence[tuple], memory_budget: int, n_tasks: int, report: Any) -> None:
        self.model, self.loss, self.y, self.report = model, loss, np.asarray(y), report
        m, d = data.n_rows, len(data.names)
        per_call = call_rows(d, memory_budget, n_rows=m)
        # a block's permutations and rows of losses (16 bytes a row) in a quarter of the budget
        self.block = min(n_tasks, max(1, (memory_budget // 4) // (16 * m)))
        # interleaved copies cost a write of k copies of every row per block: only when one
        # block holds every task, and 8 tasks or more share each copy
        interleave = min(INTERLEAVE, n_tasks // 8) if self.block == n_tasks else 1
        copies = max(per_call // m, interleave, 1)
        self.copies = min(copies, self.block, per_call)
        chunk = min(m, max(1, per_call // self.copies))
        self.bounds = [(lo, min(lo + chunk, m)) for lo in range(0, m, chunk)]
        plan = _Plan(data.schema, data.upcast)
        matrix = plan.matrix(data)
        self.inputs: _MatrixCopies | _ColumnCopies = (
            _ColumnCopies(model, data, cols) if matrix is None else
            _MatrixCopies(model, plan, matrix, cols, self.copies, chunk))

    def losses(self, tasks: Sequence[tuple[int, np.ndarray | None]]) -> np.ndarray:
        """Per-row losses, shape (len(tasks), m): every chunk of rows, its tasks in calls of
        up to ``copies`` perturbed copies."""
        out = np.empty((len(tasks), self.bounds[-1][1]))
        for lo, hi in self.bounds:
            self.inputs.load(lo, hi)
            y = self.y[lo:hi]
            for s in range(0, len(tasks), self.copies):
                part = [(g, None if p is None else p[lo:hi])
                        for g, p in tasks[s : s + self.copies]]
                preds = self.inputs.predict(part)
                y_rep = y if len(part) == 1 else np.repeat(y, len(part), axis=0)
                out[s : s + len(part), lo:hi] = self.loss(y_rep, preds, self.model.classes_
                                                          ).reshape(hi - lo, len(part)).T
                self.report(len(part) * (hi - lo))
        return out


# ---------------------------------------------------------------------------- the driver
def _importances_loss(model, loss, table, y, w, subsets, perms, groups, memory_budget):
    """(G, R) mean loss increases from explicit row subsets (R,) and permutations (G, R, m)."""
    return _pfi_means(model, loss, table, y, w, subsets, perms, groups, memory_budget)[0]


def _pfi_means(model, loss, table, y, w, subsets, perms, groups, memory_budget, progress=None,
               owner="permutation_importance"):
    """:func:`_importances_loss` and the (G,) standard errors of the mean over repeats (from the
    spread over rows of each row's mean increase over the repeats of its row set)."""
    G, R = len(groups), len(subsets)
    perms = _perm_fn(perms)
    same_rows = all(s is subsets[0] or np.array_equal(s, subsets[0]) for s in subsets)
    _check_sizes(owner, table.n_rows, len(subsets[0]), len(table.names), G,
                 R if same_rows else 1, memory_budget)
    # when every repeat uses the same rows, all (group, repeat) copies share one baseline
    plans = [(subsets[0], list(range(R)))] if same_rows else [(s, [r])
                                                             for r, s in enumerate(subsets)]
    report = _Reporter(progress, sum(len(rows) * (1 + G * len(reps)) for rows, reps in plans),
                       owner)
    cols = _group_columns(table.names, groups)
    out, se2 = np.zeros((G, R)), np.zeros(G)
    for rows, reps in plans:
        data = table if len(rows) == table.n_rows and rows[-1] == len(rows) - 1 else (
            table.take(rows))  # (rows are sorted: all rows is arange(n))
        model.observe_labels(y[rows])
        row_set = _RowSet(model, loss, data, y[rows], cols, memory_budget, 1 + G * len(reps),
                          report)
        weights = None if w is None else w[rows]
        for g, r, diff, mean_diff in _increases(row_set, perms, G, reps):
            out[g, r] = _mean_and_se(diff, weights)[0]
            if mean_diff is not None:
                se2[g] += _mean_and_se(mean_diff, weights)[1] ** 2 / len(plans) ** 2
    return out, np.sqrt(se2)


def _increases(row_set: _RowSet, perms: Any, G: int, reps: list[int]):
    """Yield ``(g, r, diff, mean_diff)`` for every group and repeat, group by group: the per-row
    loss increases ``diff`` (m,) under permutation ``perms(g, r)`` and, after a group's last
    repeat, the per-row mean of its increases over ``reps`` (else None). The permutations are
    drawn in blocks of ``row_set.block`` tasks (a quarter of ``memory_budget``), each once."""
    m, block = row_set.bounds[-1][1], row_set.block
    tasks = [(-1, -1)] + [(g, r) for g in range(G) for r in reps]  # the baseline first
    base = np.zeros(m)
    total: np.ndarray | None = None
    for start in range(0, len(tasks), block):
        part = tasks[start : start + block]
        losses = row_set.losses([(g, None if g < 0 else perms(g, r)) for g, r in part])
        for (g, r), row in zip(part, losses):
            if g < 0:
                base = row
                continue
            diff = row - base
            total = diff.copy() if r == reps[0] else total + diff  # type: ignore[operator]
            last = r == reps[-1]
            yield g, r, diff, (total / len(reps) if last else None)


def _mean_and_se(values: np.ndarray, weights: np.ndarray | None) -> tuple[float, float]:
    """The (weighted) mean of ``values`` (m,) and its standard error, ``sqrt(variance / n)``
    (:class:`~ixplain.aggregation.Mean`'s: rows of weight 0 not counted)."""
    acc = Mean()
    acc.update_many(values, weights)
    return float(acc.get()), float(np.sqrt(acc.variance / max(acc.n, 1)))


class _Reporter:
    """Counts the model rows evaluated and passes them to ``progress`` (if any)."""

    def __init__(self, progress: Any, total: int, owner: str) -> None:
        self.progress, self.total, self.owner, self.done = progress, total, owner, 0

    def __call__(self, rows: int) -> None:
        self.done += rows
        if self.progress is not None:
            self.progress(ProgressInfo(self.done, self.total, self.owner))


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


def _check_accuracy_targets(estimator: Any, model: Model, table: Table, y: np.ndarray,
                            rows: np.ndarray) -> None:
    """scikit-learn's own error when 'accuracy' cannot score these targets.

    The batched path scores accuracy as a 0-1 loss, which takes any numbers; scikit-learn's
    scorer refuses a continuous ``y`` or a regressor's continuous predictions ("Classification
    metrics can't handle a mix of ... targets"). A classifier predicts labels, so only ``y`` is
    checked for it; any other estimator's predictions on the first repeat's rows are checked too.
    """
    from sklearn.base import is_classifier
    from sklearn.metrics import accuracy_score

    final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
    yr = y[rows]
    if is_classifier(final):
        accuracy_score(yr, yr)
        return
    sub = Table({n: _take(c, rows) for n, c in table.columns.items()}, table.schema, table.upcast)
    pred = np.asarray(model.predict(sub))
    accuracy_score(yr, pred.reshape(len(rows)) if pred.size == len(rows) else pred)


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


def _batched_importances(estimator, batched, table, y, w, subsets, perms, groups, labels,
                         settings, memory_budget, progress):
    """The score decrease of the per-row-loss scorer ``batched`` by the batched loss path;
    None when R^2's scale (the variance of ``y`` on a repeat's rows) is 0."""
    owner = "permutation_importance"
    model = as_model(estimator, response_method="predict", owner=owner)
    model.refuse_nonfinite_outputs(owner)
    if batched == "accuracy":
        _check_accuracy_targets(estimator, model, table, y, subsets[0])
    with overflow_reported():  # (a non-finite loss: refuse_nonfinite's error, not numpy's)
        imp, se = _pfi_means(model, get_loss(_SCORER_LOSSES[batched]), table, y, w,
                             subsets, perms, groups, memory_budget, progress)
    refuse_nonfinite(imp, owner, "score decrease", labels)
    scales = _r2_scales(subsets, y, w) if batched == "r2" else np.ones(len(subsets))
    if not np.all(scales > 0):
        return None
    settings = dict(settings, scoring=batched, standard_error=(se / scales.mean()).tolist())
    return FeatureImportance.from_importances(imp / scales, labels, settings)


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
        done = _batched_importances(estimator, batched, table, y, w, subsets, perms, groups,
                                    labels, settings, memory_budget, progress)
        if done is not None:
            return done
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

