"""Permutation feature importance: one batched explanation function, a static and an
incremental form.

The per-observation explanation function of PFI for a feature group ``S`` is::

    lambda(x, y, S, x') = loss(y, f(x with x_S := x'_S)) - loss(y, f(x))

with ``x'`` drawn from perturbation data ``P``. :func:`pfi_losses`
(:mod:`~ixplain.methods._batched_pfi`) evaluates it for a batch of observations, every group
and several replacement rows each, in one model call (rows
``[x_i, x_i with S_1 replaced, ..., x_i with S_G replaced]``).

* :func:`permutation_importance` (static) averages it over a dataset, with ``x'`` the row a
  random permutation assigns (scikit-learn's definition); its driver
  (:mod:`~ixplain.methods._dataset_pfi`) evaluates scikit-learn's model rows, one permuted copy
  of the rows per (group, repeat);
* :class:`IncrementalPFI` smooths it over a stream, with ``x'`` drawn from a storage (iPFI);
  :class:`BackgroundPFI` is its explanation function (also the Dask form's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._numeric import overflow_reported
from .._random import RowStream, keyed_generator, root_seed, uniform_index
from .._validation import (
    check_2d,
    check_int,
    check_memory_budget,
    check_n_jobs,
    check_sample_weight,
    check_target,
    refuse_nonfinite,
)
from ..imputation import ConditionalSampler, check_removal
from ..losses import Loss, get_loss, label_shape_guard
from ..models import Model, as_model
from ..models.base import DEFAULT_MEMORY_BUDGET
from ..results.importance import FeatureImportance, ImportanceTimeSeries
from ..storage.base import SlotStorage
from ..tabular import Table, as_table
from ._batched_pfi import _group_columns, _numeric_losses, _Plan, pfi_losses
from ._conditional import (
    ConditionalPFI,
    conditional_pfi_importances,
    conditional_storage,
)
from ._dataset_pfi import _SCORER_LOSSES as _SCORER_LOSSES
from ._dataset_pfi import _batched_scoring as _batched_scoring
from ._dataset_pfi import (
    _check_loss_or_scoring,
    _check_sizes,
    _importances_scoring,
    _n_subsample,
    _Permutations,
    _pfi_means,
    _resolve_groups,
)
from ._dataset_pfi import _importances_loss as _importances_loss
from ._engine import Method, RowBatch, make_progress, register
from ._incremental import IncrementalExplainer, Sampler

__all__ = ["IncrementalPFI", "permutation_importance", "pfi_losses"]


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
    explanation function (:func:`pfi_losses`). The model evaluates the rows scikit-learn's
    function evaluates and no more (``n_samples * (1 + n_features * n_repeats)``), each
    permuted copy written in place in one reused buffer; small tables are stacked into
    cache-sized model calls.

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
        Accepted for compatibility with scikit-learn; the work runs in one process, one model
        call after another (use the model's own threads). The result does not depend on it.
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
        Bound on one model input, in bytes (rows are chunked to fit); a quarter of it bounds
        the permutations (and their rows of losses) held at once, each drawn once. At least
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
        model call (``done`` = model rows evaluated; repeats for scorers outside the batched
        path). The values do not depend on it.

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
    # repeat r, and permutation r of group g, drawn once, when the driver comes to it
    _check_sizes(owner, n, m, len(table.names), len(groups), n_repeats)
    if m == n and removal == "marginal":  # the repeats share the rows: one call per row
        _check_sizes(owner, n, m, len(table.names), len(groups), n_repeats, memory_budget)
    every = np.arange(n)  # one array shared by the repeats when they all use every row
    subsets = [every if m == n else
               np.sort(keyed_generator(seed, "pfi-rows", r).choice(n, m, replace=False))
               for r in range(n_repeats)]
    perms = _Permutations(seed, _group_columns(table.names, groups), m)
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
