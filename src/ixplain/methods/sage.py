"""SAGE: Shapley additive global importance (static data).

The estimator (:mod:`ixplain.methods._sage_estimator`) unrolls random feature orders, one per
sampled observation, and averages the marginal contributions of the per-observation
explanation function in :mod:`ixplain.methods._sage_core`; it stops when the largest standard
error is small relative to the spread of the values, as the reference implementation (Covert
et al. 2020) does. This module validates the inputs of :func:`sage` and holds the engine form
(:class:`SAGEFunction`, :class:`ConditionalSAGEFunction`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._numeric import overflow_reported
from .._random import RowStream, keyed_generator, root_seed, uniform_index
from .._validation import (
    check_2d,
    check_float,
    check_int,
    check_n_jobs,
    check_target,
    param_error,
)
from ..imputation import ConditionalSampler, check_removal
from ..imputation.conditional import averaged_sampler
from ..losses import Loss, get_loss, label_shape_guard
from ..models import Model, as_model, rows_for_budget
from ..results.importance import FeatureImportance
from ..storage.base import canonical_columns
from ..tabular import Table, as_table
from ._conditional import (
    TableMaker,
    _stream_rows,
    conditional_coalition_losses,
    exclude_rows,
    segment_rows,
    stream_segments,
)
from ._engine import Explained, Method, RowBatch, make_progress, register
from ._sage_core import (
    coalition_losses,
    contributions,
    correction_for,
    positive_column,
    random_orders,
    resolve_players,
)

# The static estimator lives in _sage_estimator; CHECK_EVERY and MAX_PERMUTATIONS stay
# importable from here (``as`` marks a re-export).
from ._sage_estimator import _OWNER, SageEstimate, _check_sizes, estimate_sage
from ._sage_estimator import CHECK_EVERY as CHECK_EVERY
from ._sage_estimator import MAX_PERMUTATIONS as MAX_PERMUTATIONS

__all__ = ["sage"]

#: Draws per coalition for ``n_samples="auto"`` with a bias-corrected loss.
AUTO_SAMPLES = {"variance": 16, "jackknife": 32}


def _background_table(background: Any, table: Table, seed: int | np.random.Generator,
                      owner: str) -> Table:
    """The background rows: ``background``, or 512 rows of ``table`` drawn with
    ``keyed_generator(seed, "sage-background")`` (or from a Generator given as ``seed``)."""
    if background is None:
        n = table.n_rows
        if n <= 512:
            return table
        gen = seed if isinstance(seed, np.random.Generator) else keyed_generator(
            seed, "sage-background")
        pick = gen.choice(n, 512, replace=False)
        return table.take(np.sort(pick))
    width = np.shape(background)[-1] if isinstance(background, np.ndarray) else None
    if width is not None and background.ndim == 2 and width != len(table.names):
        raise ValueError(f"{owner}: background has {width} columns; X has {len(table.names)}: "
                         f"{list(table.names)}.")
    bg = as_table(background, feature_names=list(table.names), owner=owner)
    if bg.n_rows == 0:
        raise ValueError(f"{owner}: background has no rows.")
    if set(bg.names) != set(table.names):
        raise ValueError(
            f"{owner}: background has columns {list(bg.names)}; X has {list(table.names)}."
        )
    if bg.schema.source != table.schema.source:
        bg = as_table(bg.to_native(table.schema.source), list(table.names), owner=owner)
    return bg.select(table.names)


def resolve_draws(
    n_samples: Any, loss: Loss, removal: Any, table: Table, background: Any, bg: Table,
    owner: str,
) -> tuple[int, bool, ConditionalSampler | None]:
    """The inner draws of the loss game: ``(n_samples, exact_inner, sampler)``.

    ``exact_inner`` is the exact mean over all ``bg`` rows (``n_samples=None``, or ``"auto"``
    with a plug-in loss); under ``removal="conditional"`` the sampler is fitted on ``X``
    (``table``) or on ``background`` when given, with leaves of
    :func:`~ixplain.imputation.conditional.averaged_leaf` rows (``averaged_sampler``; small
    leaves bias the averaged loss: the conditional module's "Leaf size"), and an exact inner
    mean becomes 32 draws
    (at most the sampler's rows).
    """
    correction = correction_for(loss)
    s = resolve_n_samples(n_samples, correction, bg.n_rows, owner)
    exact_inner = n_samples is None or (n_samples == "auto" and correction == "plugin")
    sampler = None
    if check_removal(removal, owner) == "conditional":  # the removal step: a fitted sampler
        sampler = averaged_sampler(table if background is None else bg)
        if exact_inner:
            s, exact_inner = min(32, sampler.n_rows_), False
    return s, exact_inner, sampler


def resolve_n_samples(n_samples: Any, correction: str, n_background: int, owner: str) -> int:
    """Number of draws per coalition: an int, ``None`` (all background rows) or ``"auto"``."""
    if n_samples is None:
        return n_background
    if isinstance(n_samples, str):
        if n_samples != "auto":
            raise param_error(owner, "n_samples", "'auto', None or an int >= 1", n_samples)
        if correction == "plugin":
            return n_background
        return min(AUTO_SAMPLES[correction], n_background)
    s = check_int(n_samples, "n_samples", owner, min_value=1)
    assert s is not None
    return s


def sage(
    model: Any,
    X: Any,
    y: Any,
    *,
    loss: Any,
    background: Any = None,
    n_permutations: int | None = None,
    convergence_threshold: float | None = 0.025,
    groups: dict[str, list[str]] | None = None,
    n_samples: int | str | None = "auto",
    random_state: Any = None,
    batch_size: int = 512,
    n_jobs: int | None = None,
    control_variate: bool = True,
    removal: str = "marginal",
    progress: Any = False,
) -> FeatureImportance:
    """SAGE values: Shapley values of the loss explained by each feature (or group).

    For the cooperative game ``v(S) = E[loss(E_B[f(B)], Y)] - E[loss(E_B[f(x_S, B_{-S})], Y)]``
    (features outside ``S`` replaced by background rows ``B``, marginal/interventional
    imputation; the outer mean over the rows ``(X, y)``), the SAGE value of player ``j`` is its
    Shapley value ``phi_j = E_pi[v(S_pi^j + j) - v(S_pi^j)]`` over uniform random orders ``pi``.
    The values sum to ``v(all)`` = loss of the mean prediction minus loss of the model
    (efficiency).

    The estimator samples observations (in shuffled passes over ``X``) and one random order each,
    evaluates all coalitions along the order in few large batched model calls, and stops when
    ``max(std) / (max(phi) - min(phi)) < convergence_threshold``, checked every 512 orders
    (the reference's rule with its default batch; the gap is guarded against zero).

    Parameters
    ----------
    model : estimator, River model, Booster, callable or Model
        Anything :func:`ixplain.as_model` accepts; classifiers are explained through their
        probabilities (output ``(n,)`` or ``(n, 2)`` for binary problems, ``(n, k)`` multiclass).
    X : array-like of shape (n_rows, n_features), DataFrame or records
        The observations whose loss is explained.
    y : array-like of shape (n_rows,)
        Their targets (labels for classifiers).
    loss : str, Loss or callable
        ``"squared_error"``, ``"log_loss"``, ``"brier"``, ``"absolute_error"``, ``"zero_one"``
        or a callable (see :func:`ixplain.get_loss`).
    background : array-like, optional
        Rows used to impute removed features. Default: a sample of 512 rows of ``X`` drawn with
        ``random_state`` (all of ``X`` if it has at most 512 rows).
    n_permutations : int, optional
        Largest number of orders to sample. Default: until convergence (at most
        :data:`MAX_PERMUTATIONS`).
    convergence_threshold : float in (0, 1) or None, default=0.025
        Stop when the largest standard error is below this fraction of the spread of the
        values. ``None`` runs exactly ``n_permutations`` orders.
    groups : dict of str to list of str, optional
        Players made of several features (removed and restored together); features in no group
        are players of their own, listed after the groups. The value of a group is *not* the
        sum of its members' values.
    n_samples : int, None or "auto", default="auto"
        Background draws per coalition and observation. ``None``: every background row (the
        exact inner average, as the reference implementation). An int ``s``: ``s`` rows drawn
        with replacement, shared by all coalitions of the observation, and the loss of the
        averaged prediction estimated without bias for ``squared_error`` and ``brier`` (sample
        variance / ``s`` subtracted; needs ``s >= 2``), with a jackknife correction (bias
        ``O(1/s^2)``) for ``log_loss``, and plainly (biased) for other losses. ``"auto"``: 16
        draws for squared error and Brier, 32 for log loss, every background row otherwise.
        With ``None``, or ``"auto"`` for squared error / Brier, the estimator converges to the
        SAGE values defined by the background exactly.
    random_state : None, int or numpy.random.Generator
        Seeds the background sample, the observations, the orders and the draws. Permutation
        ``p``'s observation, order and draws depend on the seed and ``p`` alone, so the result
        does not depend on ``batch_size`` or ``n_jobs``.
    batch_size : int, default=512
        Orders evaluated per round of model calls (memory and parallel granularity). The
        convergence test runs every :data:`CHECK_EVERY` (512) orders whatever ``batch_size``
        is (a larger batch may evaluate orders past the stopping point; they are not used).
    n_jobs : int, optional
        Threads evaluating chunks of a batch in parallel (results do not depend on it).
    control_variate : bool, default=True
        Use the per-observation total ``loss(empty) - loss(model)``, whose mean over ``X`` is
        known, as a control variate. Unbiased; it reduces the variance caused by observations
        with large losses and makes the values sum exactly to the explained loss.
    progress : bool or callable, default=False
        Report after every ``batch_size`` orders: ``True`` shows a tqdm bar (or prints lines to
        stderr without tqdm) with the convergence ratio; a callable receives a
        :class:`~ixplain.ProgressInfo` with ``done`` (orders so far), ``total``
        (``n_permutations``, or None when only convergence stops the run) and
        ``convergence_ratio`` (``max(std) / (max(phi) - min(phi))``, compared with
        ``convergence_threshold`` after every block of :data:`CHECK_EVERY` orders; None before
        the first block). The values do not depend on it.

    Returns
    -------
    FeatureImportance
        ``importances_mean`` (the SAGE values, shape (n_players,)), ``importances_std``
        (standard errors), ``feature_names`` (the players) and the run's information
        (``n_permutations``, ``converged``, ``explained_loss``...).

    Raises
    ------
    ValueError
        For invalid parameters, NaN in ``X``, ``y`` or ``background``, mismatched lengths or
        columns, unknown features in ``groups``, or a loss that is not finite (it overflowed):
        raised on the first batch, never a NaN result.
    ModelEvaluationError
        If the model raises or returns NaN or +-inf.

    References
    ----------
    Covert, I., Lundberg, S., Lee, S.-I. "Understanding Global Feature Contributions With
    Additive Importance Measures." NeurIPS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = 2 * X[:, 0] + X[:, 1]
    >>> res = sage(lambda X: 2 * X[:, 0] + X[:, 1], X, y, loss="squared_error",
    ...            random_state=0)
    >>> res.importances_mean.round(1)  # sample Var(2 x0) and Var(x1); the unused x2 gets 0
    array([4.1, 1. , 0. ])
    >>> res.settings["converged"], bool(np.isclose(res.importances_mean.sum(), y.var()))
    (True, True)
    """
    est = _run(
        model, X, y, loss=loss, background=background, n_permutations=n_permutations,
        convergence_threshold=convergence_threshold, groups=groups, n_samples=n_samples,
        random_state=random_state, batch_size=batch_size, n_jobs=n_jobs,
        control_variate=control_variate, removal=removal, progress=progress,
    )
    settings = {
        "loss": loss if isinstance(loss, str) else getattr(loss, "name", repr(loss)),
        "convergence_threshold": convergence_threshold,
        "groups": None if groups is None else {str(k): list(v) for k, v in groups.items()},
        "random_state": random_state if isinstance(random_state, (int, type(None))) else "Generator",
        "control_variate": control_variate,
    }
    if removal == "conditional":
        settings["removal"] = "conditional"
    return _to_result(est, settings)


def _run(
    model: Any, X: Any, y: Any, *, loss: Any, background: Any, n_permutations: Any,
    convergence_threshold: Any, groups: Any, n_samples: Any, random_state: Any, batch_size: Any,
    n_jobs: Any, control_variate: Any, removal: Any = "marginal", progress: Any = False,
) -> SageEstimate:
    owner = _OWNER
    loss_obj = get_loss(loss, owner)
    n_perm = check_int(n_permutations, "n_permutations", owner, min_value=1, allow_none=True)
    thr = check_float(
        convergence_threshold, "convergence_threshold", owner, low=0.0, high=1.0,
        low_inclusive=False, high_inclusive=False, allow_none=True,
    )
    if n_perm is None and thr is None:
        raise param_error(
            owner, "n_permutations", "an int >= 1 when convergence_threshold is None", None
        )
    bs = check_int(batch_size, "batch_size", owner, min_value=1)
    jobs = check_n_jobs(n_jobs, owner)
    if not isinstance(control_variate, (bool, np.bool_)):
        raise param_error(owner, "control_variate", "a bool", control_variate, exc=TypeError)
    report = make_progress(progress, owner)
    seed = root_seed(random_state, owner)
    check_2d(X, owner)
    table = as_table(X, owner=owner)
    if table.n_rows == 0:
        raise ValueError(f"{owner}: X has no rows.")
    y_arr = check_target(y, table.n_rows, owner)
    # NaN in X goes to the model (HistGradientBoosting and pipelines with imputers take it);
    # a model that returns NaN for it is an error naming the rows, not a NaN result
    mdl = as_model(model, owner=owner).refuse_nonfinite_outputs(owner)
    bg = _background_table(background, table, seed, owner)
    players, col_player = resolve_players(table.names, groups, owner)
    s, exact_inner, sampler = resolve_draws(n_samples, loss_obj, removal, table, background,
                                            bg, owner)
    assert bs is not None
    _check_sizes(len(table.names), len(players), s, exact_inner,
                 bs if n_perm is None else min(bs, n_perm), owner)
    with overflow_reported(), label_shape_guard(loss_obj, owner, y, y_arr, mdl):
        return estimate_sage(
            mdl, table, y_arr, loss=loss_obj, background=bg, n_samples=s,
            exact_inner=exact_inner, players=players, col_player=col_player,
            n_permutations=n_perm, threshold=thr, batch_size=bs, rng=seed, n_jobs=jobs,
            control_variate=bool(control_variate), removal=sampler, progress=report,
        )


def _to_result(est: SageEstimate, settings: dict[str, Any]) -> FeatureImportance:
    """Wrap the estimate in the shared :class:`FeatureImportance` result.

    ``importances_std`` holds the standard errors of the SAGE values (not a spread over
    repeats); ``importances`` is the ``(n_players, 1)`` column of values.
    """
    info = {
        "method": "sage",
        **settings,
        "n_permutations": est.n_permutations,
        "converged": est.converged,
        "convergence_ratio": est.ratio,
        "explained_loss": est.explained_loss,
        "n_samples": est.n_samples,
        "loss_estimator": est.correction,
        **est.extra,
    }
    return FeatureImportance(
        importances_mean=est.values,
        importances_std=est.std,
        importances=est.values[:, None].copy(),
        feature_names=list(est.players),
        settings=info,
    )


# ---------------------------------------------------------------------------- engine form
@register
class SAGEFunction(Method):
    """SAGE's explanation function for the engine: one random order per row, drawn as
    :func:`sage`'s first pass over the rows draws it.

    :func:`sage`'s permutation ``p`` explains row ``perm[p]`` of its first pass (``perm`` from
    ``keyed_generator(seed, "sage-pass", 0)``) along the order and with the background draws of
    row ``p`` of its row streams (:class:`~._sage_estimator._Draws`). Here row ``t`` takes
    ``p = perm^-1[t]`` and the same numbers, so its marginal contributions depend neither on
    the chunk nor on the partition it is computed in, and the mean over all ``n_rows`` rows is
    :func:`sage` with ``n_permutations=n_rows, convergence_threshold=None`` (to float
    rounding). Its values, shape ``(2 * G + 3,)``, are ``[lambda (G), t, lambda * t (G), t**2,
    t_exact]`` with ``t`` the row's estimated total ``l(empty) - l(all)`` and ``t_exact =
    loss(mean background prediction) - loss(f(x))``: their means are the moments of the
    control variate of :class:`~._sage_estimator._Accumulator`, which :meth:`result` applies.
    """

    name = "sage"
    needs_labels = True

    def __init__(self, model: Model, loss: Any, background: Table | None,
                 col_player: np.ndarray, players: list[str], n_samples: int, exact_inner: bool,
                 seed: int, n_rows: int, control_variate: bool = True) -> None:
        self.model, self.loss, self.background = model, loss, background
        self.col_player, self.players = np.asarray(col_player), list(players)
        self.n_samples, self.exact_inner, self.seed = int(n_samples), bool(exact_inner), seed
        self.n_rows, self.control_variate = int(n_rows), bool(control_variate)
        self.correction = "exact" if exact_inner else correction_for(loss)
        self.empty_pred = None
        if background is not None:  # None: the incremental form (explain_sampled) only
            bg_pred = positive_column(model.predict(background), loss, model)
            self.empty_pred = bg_pred.mean(axis=0)
        self._position: np.ndarray | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_position": None}  # rebuilt where it is needed

    def rows_per_observation(self, table: Table) -> int:
        return (len(self.players) - (1 if self.exact_inner else 0)) * self.n_samples + 1

    def _permutation_index(self, start: int, B: int) -> np.ndarray:
        """``p`` of rows ``start .. start + B - 1``: their positions in sage's first pass."""
        if self._position is None:
            perm = keyed_generator(self.seed, "sage-pass", 0).permutation(self.n_rows)
            position = np.empty(self.n_rows, dtype=np.intp)
            position[perm] = np.arange(self.n_rows)
            self._position = position
        return self._position[start : start + B]

    def explain(self, batch: RowBatch) -> np.ndarray:
        assert self.empty_pred is not None
        G, B = len(self.players), batch.n_rows
        y = np.asarray(batch.y)
        self.model.observe_labels(y)
        ps = self._permutation_index(batch.start, B)
        orders = random_orders(RowStream(self.seed, "sage-order", G).uniforms_at(ps))
        losses = self._losses(batch, y, ps, orders)
        scores = contributions(losses, orders)
        total = losses[:, 0] - losses[:, -1]
        const = np.ascontiguousarray(np.broadcast_to(self.empty_pred, (B,) + np.shape(
            self.empty_pred)))
        exact = self.loss(y, const, self.model.classes_) - losses[:, -1]
        return np.column_stack([scores, total, scores * total[:, None], total**2, exact])

    def _losses(self, batch: RowBatch, y: np.ndarray, ps: np.ndarray,
                orders: np.ndarray) -> np.ndarray:
        """(B, G + 1) coalition losses along ``orders``, removed features from the background
        (the draws of permutations ``ps``)."""
        assert self.background is not None
        m, B = self.background.n_rows, batch.n_rows
        if self.exact_inner:
            draw_idx = np.broadcast_to(np.arange(m), (B, m))
        else:
            u = RowStream(self.seed, "sage-draw", self.n_samples).uniforms_at(ps)
            draw_idx = uniform_index(u, m)
        _, losses = self.marginal_contributions(
            batch.X, y, self.background, draw_idx, orders,
            empty_pred=self.empty_pred if self.exact_inner else None)
        return losses

    def marginal_contributions(
        self, X: Table, y: np.ndarray, draws: Table, draw_idx: np.ndarray, orders: np.ndarray,
        *, empty_pred: np.ndarray | None = None, batch_rows: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """SAGE's explanation function: each row's marginal contributions along its order
        (features outside a coalition imputed from ``draws[draw_idx[i]]``), shape (B, G), and
        the coalitions' losses (B, G + 1) (:func:`~._sage_core.coalition_losses`)."""
        losses, _ = coalition_losses(
            self.model, self.loss, self.correction, X, y, draws, draw_idx, orders,
            self.col_player, empty_pred=empty_pred, batch_rows=batch_rows,
        )
        return contributions(losses, orders), losses

    def explain_sampled(self, batch: RowBatch, sampler: Any) -> np.ndarray:
        """The iSAGE's values: one random order per row (``sampler.uniforms(G, "order")``),
        the removed features imputed from the stream's storage (:meth:`_sampled_losses`),
        shape (B, G + 2): the marginal contributions, then the losses of the empty coalition
        and of the model. Reports the model's own loss ``loss(y, f(x))`` of each row in
        ``sampler.losses``."""
        orders = random_orders(sampler.uniforms(len(self.players), "order"))
        losses = self._sampled_losses(batch, sampler, orders)
        scores = contributions(losses, orders)
        return np.concatenate([scores, losses[:, :1], losses[:, -1:]], axis=1)

    def _sampled_losses(self, batch: RowBatch, sampler: Any, orders: np.ndarray) -> np.ndarray:
        """(B, G + 1) coalition losses along ``orders`` on a stream: ``n_samples`` storage
        rows per row imputing the removed features; ``sampler.losses``: ``loss(y, f(x))``."""
        X, y, s = batch.X, np.asarray(batch.y), self.n_samples
        B = X.n_rows
        draws = sampler.draw(s)
        draw_idx = np.arange(B * s).reshape(B, s)
        per_obs = len(self.players) * s + 1
        losses, full_pred = coalition_losses(
            self.model, self.loss, self.correction, X, y, draws, draw_idx, orders,
            self.col_player,
            # one call per observation at least; a mini-batch in one call within the budget
            batch_rows=max(per_obs, (rows_for_budget(len(X.names)) // per_obs) * per_obs),
        )
        # the loss of f(x) itself (the last column averages s copies of f(x), with the
        # correction: equal up to rounding)
        sampler.losses = self.loss(y, full_pred, self.model.classes_)
        return losses

    def result(self, explained: Explained) -> SageEstimate:
        G, mean = len(self.players), explained.mean
        n = mean.n
        m = mean.get()
        var = np.asarray(mean.variance) * (n - 1) / max(n, 1)  # population variances
        ma, mb, t_bar = m[:G], float(m[G]), float(m[-1])
        values, std = ma, np.sqrt(var[:G] / max(n - 1, 1))
        vt = float(var[G])
        if self.control_variate and n >= 2 and vt > 1e-300:
            cov = m[G + 1 : 2 * G + 1] - ma * mb
            values = ma - cov / vt * (mb - t_bar)
            std = np.sqrt(np.maximum(var[:G] - cov**2 / vt, 0.0) / (n - 2 if n > 2 else 1))
        gap = max(float(values.max() - values.min()), 1e-12 * (1.0 + float(np.abs(values).max())))
        return SageEstimate(
            players=self.players, values=values, std=std, n_permutations=n, converged=False,
            ratio=float(std.max() / gap), explained_loss=t_bar, n_samples=self.n_samples,
            correction=self.correction,
        )

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        X = np.random.default_rng(0).normal(size=(90, 3))
        y = X[:, 0] + 0.5 * X[:, 1] * X[:, 2]
        model = as_model(_example_model)
        background = as_table(X[:16], ["x0", "x1", "x2"])
        fn = cls(model, get_loss("squared_error"), background, np.arange(3), ["x0", "x1", "x2"],
                 4, False, 0, len(X))
        return fn, X, y


def _example_model(X: Any) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    return A[:, 0] + 0.5 * A[:, 1] * A[:, 2]


@register
class ConditionalSAGEFunction(SAGEFunction):
    """:class:`SAGEFunction` with the features outside each coalition drawn from their
    conditional distribution given it (``removal="conditional"``): row ``t`` takes the order
    and the draws' uniforms (``RowStream(seed, "sage-cond")``) that :func:`sage`'s first pass
    gives it, and its own values are excluded from its draws when it is a row the sampler was
    fitted on (``fitted``: their sorted global ids; None: row ``t`` is fitted row ``t``).
    ``background`` serves only the empty coalition's prediction (the control variate's exact
    total); the draws come from ``sampler``.

    Incremental (:meth:`explain_sampled`, iSAGE with ``removal="conditional"``;
    ``background`` and ``sampler`` None): row ``t`` draws from the sampler of the stream's
    :class:`~ixplain.imputation.ConditionalStorage` for ``t``'s time, with the uniforms
    ``sampler.uniforms(n_samples * 2 d, "conditional")`` of the driver's sampler, shared by
    all coalitions of the row (common random numbers), by the same
    :func:`~._conditional.conditional_coalition_losses` as :meth:`explain`.
    """

    name = "sage_conditional"

    def __init__(self, model: Model, loss: Any, background: Table | None,
                 col_player: np.ndarray, players: list[str], n_samples: int, seed: int,
                 n_rows: int, sampler: ConditionalSampler | None,
                 fitted: np.ndarray | None = None, control_variate: bool = True) -> None:
        super().__init__(model, loss, background, col_player, players, n_samples, False, seed,
                         n_rows, control_variate)
        self.sampler = sampler
        self.fitted = None if fitted is None else np.asarray(fitted, dtype=np.intp)

    def _sampled_losses(self, batch: RowBatch, sampler: Any, orders: np.ndarray) -> np.ndarray:
        X, y = batch.X, np.asarray(batch.y)
        B, s, d = X.n_rows, self.n_samples, len(X.names)
        u = sampler.uniforms(s * 2 * d, "conditional").reshape(B, s, 2 * d)
        xm, cols = _stream_rows(X)
        maker = TableMaker(X, sampler.make_table)
        losses = np.zeros((B, len(self.players) + 1))
        base = np.full(B, np.nan)  # rows met by an empty storage: not explained
        for start, stop, cond in stream_segments(sampler.storage, X, xm, cols, local=True):
            part = np.arange(start, stop)
            losses[start:stop] = conditional_coalition_losses(
                self.model, self.loss, self.correction, X.take(part), y[start:stop], cond,
                u[start:stop], orders[start:stop], self.col_player, explainer=maker,
                rows=segment_rows(xm, cols, part),
            )
            base[start:stop] = losses[start:stop, -1]  # loss(y, f(x)) itself
        sampler.losses = base
        return losses

    def _losses(self, batch: RowBatch, y: np.ndarray, ps: np.ndarray,
                orders: np.ndarray) -> np.ndarray:
        assert self.sampler is not None
        B = batch.n_rows
        width = self.sampler.width(len(self.col_player))
        u = RowStream(self.seed, "sage-cond", self.n_samples * width).uniforms_at(ps)
        ids = np.arange(batch.start, batch.start + B)
        return conditional_coalition_losses(
            self.model, self.loss, self.correction, batch.X, y, self.sampler,
            u.reshape(B, self.n_samples, width), orders, self.col_player,
            exclude=exclude_rows(ids, self.fitted), explainer=TableMaker(batch.X),
            rows=(None, canonical_columns(batch.X)),
        )

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        rng = np.random.default_rng(0)
        a = rng.normal(size=120)
        X = np.column_stack([a, a + 0.5 * rng.normal(size=120), rng.normal(size=120)])
        table = as_table(X, ["x0", "x1", "x2"])
        sampler = ConditionalSampler(min_samples_leaf=5).fit(table)
        fn = cls(as_model(_example_model), get_loss("squared_error"), table.take(np.arange(16)),
                 np.arange(3), ["x0", "x1", "x2"], 3, 0, len(X), sampler)
        return fn, X, X[:, 0] + 0.5 * X[:, 1] * X[:, 2]
