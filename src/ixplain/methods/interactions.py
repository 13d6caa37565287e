"""Shapley interactions of the global loss game (SAGE's game) on static data.

The explanation function of :mod:`._interaction_core` gives, for every observation, the main
and pair terms of an interaction index of its loss game; the index is linear in the game, so
their mean over the rows of ``X`` is the index of the global game. ``method="exact"`` explains
every row once (all coalitions enumerated); ``method="permutation"`` samples observations in
shuffled passes over ``X`` with one random order each and stops when the standard errors are
small next to the spread of the values (the rule of :func:`ixplain.sage`).

Randomness is keyed by what is explained, not by how it is batched: sample ``t`` (the ``t``-th
explained observation) takes its draws and its order from counter-based row streams at counter
``t``, and pass ``r``'s shuffle of the rows from a generator keyed by ``r``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numeric import overflow_reported
from .._random import RowStream, keyed_generator, root_seed, uniform_index
from .._validation import (
    check_2d,
    check_float,
    check_int,
    check_n_jobs,
    check_options,
    check_target,
    param_error,
    refuse_nonfinite,
)
from ..aggregation import Mean
from ..imputation import ConditionalSampler
from ..losses import Loss, get_loss, label_shape_guard
from ..models import Model, as_model
from ..results.interactions import ShapleyInteractions
from ..storage.base import canonical_columns
from ..tabular import Table, as_table
from ._conditional import TableMaker
from ._engine import (
    BlockMean,
    Explained,
    Method,
    ProgressInfo,
    RowBatch,
    explain_rows,
    make_progress,
    register,
)
from ._interaction_core import (
    INDICES,
    Evaluate,
    InteractionPlan,
    conditional_evaluator,
    explain_interactions,
    marginal_evaluator,
)
from ._interaction_kernel import n_terms
from ._sage_core import correction_for, resolve_players
from .sage import _background_table, resolve_draws

__all__ = ["shapley_interactions"]

_OWNER = "shapley_interactions"
#: ``method="auto"`` enumerates every coalition up to this many players.
MAX_EXACT_PLAYERS = 10
#: The row stream of each sampling method's per-observation uniforms.
_UNIFORM_STREAMS = {"permutation": "interactions/orders", "regression": "interactions/coalitions"}
#: Orders sampled when neither ``n_permutations`` nor convergence stops the estimator earlier.
MAX_PERMUTATIONS = 1_000_000


@register
class InteractionFunction(Method):
    """The engine form of the explanation function: row ``t``'s draws and order (or sampled
    coalitions) are keyed by ``t`` (row streams ``"interactions/draws"`` and
    ``"interactions/orders"`` or ``"interactions/coalitions"``).

    Values per row, shape ``(n_values + 2,)``: the terms of the row's loss game
    (:func:`._interaction_core.explain_interactions`), then ``l(empty)`` and ``loss(f(x))``.
    """

    name = "shapley_interactions"
    needs_labels = True

    def __init__(self, model: Model, loss: Loss, background: Table, plan: InteractionPlan,
                 players: list[str], n_samples: int, exact_inner: bool, seed: int,
                 removal: ConditionalSampler | None = None, n_rows: int = 0) -> None:
        self.model, self.loss, self.background = model, loss, background
        self.plan, self.players = plan, list(players)
        self.n_samples, self.exact_inner, self.seed = int(n_samples), bool(exact_inner), seed
        self.correction = "exact" if exact_inner else correction_for(loss)
        # conditional removal: a sampler fitted on the explained rows (``n_rows`` of them; an
        # observation's own values never drawn for it) or on the background rows
        self.removal, self.n_rows = removal, int(n_rows)

    def rows_per_observation(self, table: Table) -> int:
        return self.plan.rows_per_observation(self.n_samples)

    def explain(self, batch: RowBatch) -> np.ndarray:
        B, t0 = batch.n_rows, batch.start
        y = np.asarray(batch.y)
        self.model.observe_labels(y)
        order_u = None
        if self.plan.method != "exact":
            name = _UNIFORM_STREAMS[self.plan.method]
            order_u = RowStream(self.seed, name, self.plan.n_uniforms).uniforms(t0, B)
        values, losses = explain_interactions(self.plan, self._evaluator(batch, y), B, order_u)
        return np.concatenate([values, losses], axis=1)

    def _evaluator(self, batch: RowBatch, y: np.ndarray) -> Evaluate:
        """The removal step of sample ``t = batch.start ..``: draws keyed by ``t``."""
        B, m, t0 = batch.n_rows, self.background.n_rows, batch.start
        if self.removal is not None:
            width = self.removal.width(len(self.plan.col_player))
            cond = RowStream(self.seed, "interactions/conditional", self.n_samples * width)
            uu = cond.uniforms(t0, B).reshape(B, self.n_samples, width)
            if self.n_rows:  # fitted on X: sample t is row ``rows[t]`` of X
                rows = (np.arange(t0, t0 + B) if self.plan.method == "exact"
                        else _sampled_rows(self.seed, self.n_rows, t0, t0 + B))
                return conditional_evaluator(self.model, self.loss, self.correction, batch.X,
                                             y, self.removal, uu, exclude=rows)
            return conditional_evaluator(
                self.model, self.loss, self.correction, batch.X, y, self.removal, uu,
                explainer=TableMaker(batch.X), rows=(None, canonical_columns(batch.X)))
        if self.exact_inner:
            draw_idx = np.broadcast_to(np.arange(m), (B, m))
        else:
            u = RowStream(self.seed, "interactions/draws", self.n_samples).uniforms(t0, B)
            draw_idx = uniform_index(u, m)
        return marginal_evaluator(self.model, self.loss, self.correction, batch.X, y,
                                  self.background, draw_idx)

    def result(self, explained: Explained) -> ShapleyInteractions:
        k = self.plan.n_values
        mean, se = explained.mean.get(), explained.standard_error
        settings = {
            "method": self.plan.method,
            "order": self.plan.order,
            "n_samples": self.n_samples,
            "loss_estimator": self.correction,
            "n_observations": explained.mean.n,
            "explained_loss": float(mean[k] - mean[k + 1]),
            "marginal_loss": float(mean[k]),
            "model_loss": float(mean[k + 1]),
        }
        if self.plan.method == "regression":
            settings["n_coalitions"] = self.plan.n_coalitions
        return ShapleyInteractions.from_vector(
            mean[:k], se[:k], self.players, self.plan.index, settings, order=self.plan.order
        )

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        X = np.random.default_rng(0).normal(size=(90, 3))
        y = _example_model(X) + 0.1 * X[:, 0]
        plan = InteractionPlan(3, "k-SII", "permutation", np.arange(3))
        background = as_table(X[:16], ["x0", "x1", "x2"])
        fn = cls(as_model(_example_model), get_loss("squared_error"), background, plan,
                 ["x0", "x1", "x2"], 3, False, 0)
        return fn, X, y


def _example_model(X: Any) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    return A[:, 0] * A[:, 1] + np.sin(A[:, 2])


@dataclass
class _Problem:
    """Validated inputs of :func:`shapley_interactions`."""

    function: InteractionFunction
    table: Table
    y: np.ndarray
    n_permutations: int
    threshold: float | None
    batch_size: int
    n_jobs: int
    progress: Any


def shapley_interactions(
    model: Any,
    X: Any,
    y: Any,
    *,
    loss: Any,
    index: str = "k-SII",
    order: int = 2,
    background: Any = None,
    method: str = "auto",
    n_samples: int | str | None = "auto",
    n_permutations: int | None = None,
    n_coalitions: int | str = "auto",
    convergence_threshold: float | None = 0.025,
    groups: dict[str, list[str]] | None = None,
    removal: str = "marginal",
    random_state: Any = None,
    batch_size: int = 512,
    n_jobs: int | None = None,
    progress: Any = False,
) -> ShapleyInteractions:
    """Shapley interactions of the loss explained by the features (SAGE's game).

    The game is ``v(S) = E[loss(E_B[f(B)], Y)] - E[loss(E_B[f(x_S, B_{-S})], Y)]`` (features
    outside ``S`` replaced by background rows ``B``; the outer mean over the rows of ``(X, y)``),
    whose Shapley values are the SAGE values. This function returns an interaction index of
    order 2 or 3 of that game: a main term per feature, a term per pair (and per triple), with
    standard errors.

    Parameters
    ----------
    model : estimator, River model, Booster, callable or Model
        Anything :func:`ixplain.as_model` accepts; classifiers through their probabilities.
    X : array-like of shape (n_rows, n_features), DataFrame or records
        The observations whose loss is explained.
    y : array-like of shape (n_rows,)
        Their targets.
    loss : str, Loss or callable
        ``"squared_error"``, ``"log_loss"``, ``"brier"``, ``"absolute_error"``, ``"zero_one"``
        or a callable (see :func:`ixplain.get_loss`).
    index : {"k-SII", "SII", "FSII"}, default="k-SII"
        ``"k-SII"``: pair terms are the Shapley interaction indices, main terms the Shapley
        values minus half their pairs; main and pair terms sum to ``v(D) - v(empty)``.
        ``"SII"``: the same pairs, main terms the Shapley (SAGE) values. ``"FSII"``: Faith-SII,
        the best fit of the game of that order in the Shapley kernel's least squares (exact
        and regression modes). With ``order=3``, k-SII's triples are the SII of the triples,
        its pairs ``I_ij - 1/2 sum_k I_ijk`` and its mains ``phi_i - 1/2 sum_j I_ij + 1/6
        sum_jk I_ijk`` (Bernoulli numbers); they still sum to ``v(D) - v(empty)``.
    order : {2, 3}, default=2
        Highest interaction order. 3 needs ``method="exact"`` or ``"regression"`` and at
        least 3 players.
    background : array-like, optional
        Rows used to impute removed features. Default: 512 rows of ``X`` drawn with
        ``random_state`` (all of ``X`` if it has at most 512 rows).
    method : {"auto", "exact", "regression", "permutation"}, default="auto"
        ``"exact"``: every row of ``X`` is explained once on all ``2^G - 1`` proper
        coalitions (``G`` players), ``(2^G - 1) n_samples + 1`` model rows per observation.
        ``"permutation"``: one random order per sampled observation, ``(2G - 1) n_samples + 1``
        model rows each, an unbiased but noisier estimate (variance about ``G / 2`` times the
        squared pair derivatives); observations are sampled until convergence.
        ``"regression"``: ``n_coalitions`` coalitions per sampled observation (the smallest
        and largest sizes enumerated, the others drawn in complementary pairs) and the
        Shapley-kernel least-squares fit of its game (see :mod:`._interaction_kernel`):
        consistent for FSII, and for k-SII and SII up to the game's interaction terms of
        order ``order + 2`` and higher (0.3% of ``v(D) - v(empty)`` on a 10-feature
        HistGradientBoosting loss game); far fewer model rows than ``"permutation"`` for the
        same error. ``"auto"``: exact up to :data:`MAX_EXACT_PLAYERS` players, regression
        above.
    n_samples : int, None or "auto", default="auto"
        Background draws per observation, shared by its coalitions, as in :func:`ixplain.sage`:
        an int ``s`` (the loss of the averaged prediction estimated without bias for squared
        error and Brier with ``s >= 2``, a jackknife for log loss, plainly otherwise), ``None``
        (every background row: the exact inner mean) or ``"auto"`` (16 for squared error and
        Brier, 32 for log loss, every background row otherwise).
    n_permutations : int, optional
        ``"permutation"`` and ``"regression"``: largest number of sampled observations (the
        first ``n_rows`` are every row of ``X`` once). Default: until convergence (at most
        :data:`MAX_PERMUTATIONS`).
    n_coalitions : int or "auto", default="auto"
        ``"regression"`` only: coalitions evaluated per observation (the empty one included;
        ``n_coalitions * n_samples + 1`` model rows), at least ``n_values + 1`` (``n_values``
        the number of terms). ``"auto"``: ``3 n_values``, at most ``2^G - 1`` (then every
        coalition is enumerated and FSII is exact).
    convergence_threshold : float in (0, 1) or None, default=0.025
        ``"permutation"`` and ``"regression"``: stop when the largest standard error is below this fraction of
        the spread of all the values, checked every ``batch_size`` observations. ``None`` runs
        exactly ``n_permutations`` observations.
    groups : dict of str to list of str, optional
        Players made of several features; features in no group are players of their own.
    removal : {"marginal", "conditional"}, default="marginal"
        How the features outside a coalition are removed, as in :func:`ixplain.sage`:
        ``"marginal"`` draws them from the background rows; ``"conditional"`` from their
        conditional distribution given the kept features (a
        :class:`~ixplain.imputation.ConditionalSampler` fitted on ``X``, an observation's
        own values never drawn for it, or on ``background`` when given), ``n_samples`` draws
        shared by all coalitions of an observation (32 for ``None``). See
        :mod:`ixplain.imputation`.
    random_state : None, int or numpy.random.Generator
        Seeds the background sample, the draws, the orders and the shuffles.
    batch_size : int, default=512
        Observations between two convergence checks; the values do not depend on it
        unless the convergence rule stops the run.
    n_jobs : int, optional
        Threads evaluating row chunks (the result does not depend on it).
    progress : bool or callable, default=False
        ``True``: a progress bar (tqdm) or lines on stderr; a callable receives a
        :class:`~ixplain.ProgressInfo` after every chunk (exact) or batch (permutation and
        regression, with the convergence ratio), and within a batch about every
        :data:`REPORT_SECONDS` seconds (the ratio of the last check, None before the first).
        The values do not depend on it.

    Returns
    -------
    ShapleyInteractions
        ``main_values`` (G,), ``pair_values`` (G, G), with ``order=3`` ``triple_values``
        (G, G, G), their standard errors (over the explained observations),
        ``feature_names`` (the players) and ``settings`` (``method``, ``n_observations``,
        ``converged``, ``explained_loss`` ...).

    Raises
    ------
    ValueError
        For invalid parameters, fewer than 2 players (3 for ``order=3``), ``index="FSII"`` or
        ``order=3`` with the permutation method, NaN in ``y``, mismatched lengths or
        columns, or ``method="exact"`` beyond :data:`MAX_EXACT_MODEL_ROWS` model rows in all
        (it would not finish), or a mean that is not finite (the loss overflowed).
    ModelEvaluationError
        If the model raises or returns NaN or +-inf (NaN in ``X`` goes to the model, as in
        :func:`ixplain.sage`).

    References
    ----------
    Grabisch, M., Roubens, M. "An axiomatic approach to the concept of interaction among
    players in cooperative games." International Journal of Game Theory 28, 1999.
    Bordt, S., von Luxburg, U. "From Shapley Values to Generalized Additive Models and back."
    AISTATS 2023.
    Tsai, C.-P., Yeh, C.-K., Ravikumar, P. "Faith-Shap: The Faithful Shapley Interaction
    Index." JMLR 24, 2023.
    Covert, I., Lundberg, S., Lee, S.-I. "Understanding Global Feature Contributions With
    Additive Importance Measures." NeurIPS 2020.
    Fumagalli, F. et al. "KernelSHAP-IQ: Weighted Least Square Optimization for Shapley
    Interactions." ICML 2024.

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> X = np.array(list(itertools.product([-1.0, 1.0], repeat=3)) * 25)  # balanced design
    >>> f = lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2]
    >>> res = shapley_interactions(f, X, f(X), loss="squared_error", n_samples=None)
    >>> res.main_values.round(6), float(res.pair_values[0, 1])  # theory: (0, 0, 1) and 1
    (array([0., 0., 1.]), 1.0)
    >>> res.top_pairs(1), res.total  # efficiency: v(D) - v(empty) = Var(y) = 2
    ([('x0', 'x1', 1.0)], 2.0)
    """
    prob = _validate(
        model, X, y, loss=loss, index=index, order=order, background=background, method=method,
        n_samples=n_samples, n_permutations=n_permutations, n_coalitions=n_coalitions,
        convergence_threshold=convergence_threshold, groups=groups, random_state=random_state,
        batch_size=batch_size, n_jobs=n_jobs, progress=progress, removal=removal,
    )
    _refuse_endless_exact(prob)
    fn = prob.function
    with label_shape_guard(fn.loss, _OWNER, y, prob.y, fn.model), overflow_reported():
        agg, converged, ratio = _estimate(prob)
    return _to_result(prob, agg, converged, ratio, loss, random_state)


def _validate(
    model: Any, X: Any, y: Any, *, loss: Any, index: Any, order: Any, background: Any,
    method: Any, n_samples: Any, n_permutations: Any, n_coalitions: Any,
    convergence_threshold: Any, groups: Any,
    random_state: Any, batch_size: Any, n_jobs: Any, progress: Any, removal: Any,
) -> _Problem:
    owner = _OWNER
    loss_obj = get_loss(loss, owner)
    check_options(index, "index", owner, INDICES)
    check_int(order, "order", owner, min_value=2, max_value=3)
    check_options(method, "method", owner, ("auto", "exact", "regression", "permutation"))
    n_perm = check_int(n_permutations, "n_permutations", owner, min_value=1, allow_none=True)
    thr = check_float(
        convergence_threshold, "convergence_threshold", owner, low=0.0, high=1.0,
        low_inclusive=False, high_inclusive=False, allow_none=True,
    )
    bs = int(check_int(batch_size, "batch_size", owner, min_value=1))  # type: ignore[arg-type]
    jobs = check_n_jobs(n_jobs, owner)
    report = make_progress(progress, owner)
    seed = root_seed(random_state, owner)
    check_2d(X, owner)
    table = as_table(X, owner=owner)
    if table.n_rows == 0:
        raise ValueError(f"{owner}: X has no rows.")
    y_arr = check_target(y, table.n_rows, owner)
    bg = _background_table(background, table, seed, owner)  # sage's rows for the same seed
    players, col_player = resolve_players(table.names, groups, owner)
    plan = resolve_plan(owner, players, col_player, index, int(order), method, n_coalitions,
                        MAX_EXACT_PLAYERS)
    if plan.method != "exact" and n_perm is None and thr is None:
        raise param_error(
            owner, "n_permutations", "an int >= 1 when convergence_threshold is None", None
        )
    s, exact_inner, sampler = resolve_draws(n_samples, loss_obj, removal, table, background,
                                            bg, owner)
    # NaN in X goes to the model (as in sage); a NaN or +-inf prediction is an error naming
    # the rows
    function = InteractionFunction(
        as_model(model, owner=owner).refuse_nonfinite_outputs(owner), loss_obj, bg, plan, players,
        s, exact_inner, seed, sampler, table.n_rows if background is None else 0,
    )
    return _Problem(
        function=function, table=table, y=y_arr,
        n_permutations=MAX_PERMUTATIONS if n_perm is None else n_perm, threshold=thr,
        batch_size=bs, n_jobs=jobs, progress=report,
    )


def resolve_plan(owner: str, players: list[str], col_player: np.ndarray, index: str, order: int,
                 method: str, n_coalitions: Any, max_exact: int) -> InteractionPlan:
    """The validated :class:`InteractionPlan` of a static or stream explainer: the method
    ``"auto"`` resolves to (exact up to ``max_exact`` players, regression above) and the
    regression budget."""
    G = len(players)
    if G < order:
        raise ValueError(
            f"{owner} needs at least {order} players (features or groups) for order={order}; "
            f"got {players}."
        )
    chosen = method if method != "auto" else ("exact" if G <= max_exact else "regression")
    if chosen == "permutation" and (index == "FSII" or order > 2):
        rule = "'exact', 'regression' or 'auto' with " + (
            "index='FSII'" if index == "FSII" else f"order={order}")
        raise param_error(owner, "method", rule, method)
    n_values = n_terms(G, order)
    if isinstance(n_coalitions, str) and n_coalitions == "auto":
        budget = min(2**G - 1, 3 * n_values)
    else:
        budget = int(check_int(n_coalitions, "n_coalitions", owner,  # type: ignore[arg-type]
                               min_value=n_values + 1))
        budget = min(budget, 2**G - 1)
    return InteractionPlan(G, index, chosen, col_player, order,
                           budget if chosen == "regression" else 0)


def _estimate(prob: _Problem) -> tuple[Mean, bool, float]:
    """Exact: the engine's mean over the rows of ``X``. Permutation: batches of sampled
    observations (sample ``t`` keyed by ``t``) until the convergence rule or the cap."""
    fn = prob.function
    fn.model.observe_labels(prob.y)
    if fn.plan.method == "exact":
        explained = explain_rows(fn, prob.table, prob.y, n_jobs=prob.n_jobs,
                                 progress=prob.progress)
        refuse_nonfinite(explained.mean.get(), _OWNER, _CHECKED)
        return explained.mean, True, _ratio(explained.mean, fn.plan.n_values)
    n, total = prob.table.n_rows, prob.n_permutations
    # one block mean over all batches: the bits do not depend on batch_size (only where the
    # convergence rule may stop does)
    acc, agg, t0 = BlockMean(0), Mean(), 0
    converged, ratio = False, float("inf")
    while t0 < total:
        t1 = min(t0 + prob.batch_size, total)
        cap = None if prob.threshold is not None and total == MAX_PERMUTATIONS else total
        agg = _explain_batch(prob, acc, _sampled_rows(fn.seed, n, t0, t1), t0, cap, ratio)
        refuse_nonfinite(agg.get(), _OWNER, _CHECKED)  # per batch: not a 10^6-sample run
        t0 = t1
        ratio = _ratio(agg, fn.plan.n_values)
        if prob.progress is not None:
            prob.progress(ProgressInfo(t1, cap, _OWNER, ratio))
        if prob.threshold is not None and ratio < prob.threshold:
            converged = True
            break
    return agg, converged, ratio


#: Seconds between two progress reports inside a batch of the sampling estimators (a batch of
#: 512 observations of 30 features took 15 minutes before its first report).
REPORT_SECONDS = 2.0


def _explain_batch(prob: _Problem, acc: BlockMean, rows: np.ndarray, t0: int,
                   cap: int | None, ratio: float) -> Mean:
    """Samples ``t0 ..`` (on ``rows`` of ``X``) into ``acc``. With a reporter, in parts: one
    observation first, then parts of about :data:`REPORT_SECONDS` each (timed on the part
    before), with a report after a part that ends past that time since the last one (the
    batch's end is reported by the caller, with the new convergence ratio). The block mean
    makes the bits independent of the parts."""
    fn = prob.function
    if prob.progress is None:
        return explain_rows(fn, prob.table.take(rows), prob.y[rows], start=t0,
                            n_jobs=prob.n_jobs, into=acc).mean
    lo, part, last = 0, 1, time.perf_counter()
    while True:
        hi = min(lo + part, len(rows))
        tic = time.perf_counter()
        agg = explain_rows(fn, prob.table.take(rows[lo:hi]), prob.y[rows[lo:hi]],
                           start=t0 + lo, n_jobs=prob.n_jobs, into=acc).mean
        now = time.perf_counter()
        if hi == len(rows):
            return agg
        if now - last >= REPORT_SECONDS:
            last = now
            prob.progress(ProgressInfo(t0 + hi, cap, _OWNER,
                                       None if ratio == float("inf") else ratio))
        part = int(min(max(REPORT_SECONDS * (hi - lo) / max(now - tic, 1e-9), 1), len(rows)))
        lo = hi


#: What :func:`refuse_nonfinite` names: the mean's vector holds the index values, then the
#: marginal and the model loss.
_CHECKED = "mean of the interaction values and losses"


def _sampled_rows(seed: int, n: int, t0: int, t1: int) -> np.ndarray:
    """Rows of samples ``t0 .. t1 - 1``: pass ``r = t // n`` visits the rows in the order of a
    shuffle keyed by ``r``."""
    out = np.empty(t1 - t0, dtype=np.intp)
    t = t0
    while t < t1:
        r, pos = divmod(t, n)
        take = min(n - pos, t1 - t)
        shuffle = keyed_generator(seed, "interactions/pass", r).permutation(n)
        out[t - t0 : t - t0 + take] = shuffle[pos : pos + take]
        t += take
    return out


def _ratio(agg: Mean, n_values: int) -> float:
    """Largest standard error over the spread of the values (guarded against a zero spread)."""
    mean = agg.get()[:n_values]
    if agg.n < 2:
        return float("inf")
    std = np.sqrt(np.asarray(agg.variance)[:n_values] / agg.n)
    gap = max(float(mean.max() - mean.min()), 1e-12 * (1.0 + float(np.abs(mean).max())))
    return float(std.max() / gap)


def _to_result(
    prob: _Problem, agg: Mean, converged: bool, ratio: float, loss: Any, random_state: Any
) -> ShapleyInteractions:
    res = prob.function.result(Explained(agg))
    res.settings.update(
        removal="marginal" if prob.function.removal is None else "conditional",
        loss=loss if isinstance(loss, str) else getattr(loss, "name", repr(loss)),
        converged=converged,
        convergence_ratio=ratio,
        random_state=random_state if isinstance(random_state, (int, type(None))) else "Generator",
    )
    return res


#: Model rows beyond which ``method="exact"`` is refused up front: about an hour of model calls
#: even for a vectorised numpy model, and each observation's coalitions are one model input.
MAX_EXACT_MODEL_ROWS = 2**28


def _refuse_endless_exact(prob: _Problem) -> None:
    """``method="exact"`` evaluates ``(2^G - 1) * n_samples + 1`` model rows per row of ``X``:
    refuse a request that would not finish (20 features: 16.8 million rows per observation),
    naming the count and the fix, instead of running for hours."""
    fn = prob.function
    if fn.plan.method != "exact":
        return
    per_row = fn.plan.rows_per_observation(fn.n_samples)
    total = per_row * prob.table.n_rows
    if total > MAX_EXACT_MODEL_ROWS:
        raise ValueError(
            f"{_OWNER}: method='exact' with {len(fn.players)} players and n_samples="
            f"{fn.n_samples} evaluates {per_row:,} model rows per observation, {total:,} for "
            f"{prob.table.n_rows:,} rows of X (more than {MAX_EXACT_MODEL_ROWS:,}): it would not "
            "finish. Use method='auto' (a sampling estimator above 10 players), fewer players "
            "(groups={...}), fewer rows or a smaller n_samples."
        )
