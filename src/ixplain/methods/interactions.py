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

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._random import RowStream, keyed_generator, root_seed, uniform_index
from .._validation import check_float, check_int, check_options, check_target, param_error
from ..aggregation import Mean
from ..losses import Loss, get_loss
from ..models import Model, as_model
from ..results.interactions import ShapleyInteractions
from ..tabular import Table, as_table
from ._interaction_core import INDICES, InteractionPlan, explain_interactions
from ._sage_core import correction_for, resolve_players
from .sage import _background_table, check_no_nan, resolve_n_samples

__all__ = ["shapley_interactions"]

_OWNER = "shapley_interactions"
#: ``method="auto"`` enumerates every coalition up to this many players.
MAX_EXACT_PLAYERS = 10
#: Largest model input assembled at once (rows), to bound memory.
_CHUNK_ROWS = 2**18
#: Orders sampled when neither ``n_permutations`` nor convergence stops the estimator earlier.
MAX_PERMUTATIONS = 1_000_000


@dataclass
class _Problem:
    """Validated inputs of :func:`shapley_interactions`."""

    model: Model
    table: Table
    y: np.ndarray
    loss: Loss
    background: Table
    players: list[str]
    plan: InteractionPlan
    n_samples: int
    exact_inner: bool
    correction: str
    n_permutations: int
    threshold: float | None
    batch_size: int
    seed: int


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
    convergence_threshold: float | None = 0.025,
    groups: dict[str, list[str]] | None = None,
    random_state: Any = None,
    batch_size: int = 512,
) -> ShapleyInteractions:
    """Pairwise Shapley interactions of the loss explained by the features (SAGE's game).

    The game is ``v(S) = E[loss(E_B[f(B)], Y)] - E[loss(E_B[f(x_S, B_{-S})], Y)]`` (features
    outside ``S`` replaced by background rows ``B``; the outer mean over the rows of ``(X, y)``),
    whose Shapley values are the SAGE values. This function returns an interaction index of
    order 2 of that game: a main term per feature and a term per pair, with standard errors.

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
        the best order-2 fit of the game in the Shapley kernel's least squares (exact mode only).
    order : int, default=2
        Interaction order; only 2 is implemented.
    background : array-like, optional
        Rows used to impute removed features. Default: 512 rows of ``X`` drawn with
        ``random_state`` (all of ``X`` if it has at most 512 rows).
    method : {"auto", "exact", "permutation"}, default="auto"
        ``"exact"``: every row of ``X`` is explained once on all ``2^G - 1`` proper
        coalitions (``G`` players), ``(2^G - 1) n_samples + 1`` model rows per observation.
        ``"permutation"``: one random order per sampled observation, ``(2G - 1) n_samples + 1``
        model rows each, an unbiased but noisier estimate (variance about ``G / 2`` times the
        squared pair derivatives); observations are sampled until convergence. ``"auto"``:
        exact up to :data:`MAX_EXACT_PLAYERS` players.
    n_samples : int, None or "auto", default="auto"
        Background draws per observation, shared by its coalitions, as in :func:`ixplain.sage`:
        an int ``s`` (the loss of the averaged prediction estimated without bias for squared
        error and Brier with ``s >= 2``, a jackknife for log loss, plainly otherwise), ``None``
        (every background row: the exact inner mean) or ``"auto"`` (16 for squared error and
        Brier, 32 for log loss, every background row otherwise).
    n_permutations : int, optional
        ``"permutation"`` only: largest number of sampled observations. Default: until
        convergence (at most :data:`MAX_PERMUTATIONS`).
    convergence_threshold : float in (0, 1) or None, default=0.025
        ``"permutation"`` only: stop when the largest standard error is below this fraction of
        the spread of all the values, checked every ``batch_size`` observations. ``None`` runs
        exactly ``n_permutations`` observations.
    groups : dict of str to list of str, optional
        Players made of several features; features in no group are players of their own.
    random_state : None, int or numpy.random.Generator
        Seeds the background sample, the draws, the orders and the shuffles.
    batch_size : int, default=512
        Observations between two convergence checks.

    Returns
    -------
    ShapleyInteractions
        ``main_values`` (G,), ``pair_values`` (G, G), their standard errors (over the
        explained observations), ``feature_names`` (the players) and ``settings`` (``method``,
        ``n_observations``, ``converged``, ``explained_loss`` ...).

    Raises
    ------
    ValueError
        For invalid parameters, fewer than 2 players, ``index="FSII"`` with the permutation
        method, NaN in ``X``, ``y`` or ``background``, mismatched lengths or columns.
    ModelEvaluationError
        If the model raises.

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
        n_samples=n_samples, n_permutations=n_permutations,
        convergence_threshold=convergence_threshold, groups=groups, random_state=random_state,
        batch_size=batch_size,
    )
    agg, converged, ratio = _estimate(prob)
    return _to_result(prob, agg, converged, ratio, loss, random_state)


def _validate(
    model: Any, X: Any, y: Any, *, loss: Any, index: Any, order: Any, background: Any,
    method: Any, n_samples: Any, n_permutations: Any, convergence_threshold: Any, groups: Any,
    random_state: Any, batch_size: Any,
) -> _Problem:
    owner = _OWNER
    loss_obj = get_loss(loss, owner)
    check_options(index, "index", owner, INDICES)
    check_int(order, "order", owner, min_value=2, max_value=2)
    check_options(method, "method", owner, ("auto", "exact", "permutation"))
    n_perm = check_int(n_permutations, "n_permutations", owner, min_value=1, allow_none=True)
    thr = check_float(
        convergence_threshold, "convergence_threshold", owner, low=0.0, high=1.0,
        low_inclusive=False, high_inclusive=False, allow_none=True,
    )
    bs = int(check_int(batch_size, "batch_size", owner, min_value=1))  # type: ignore[arg-type]
    seed = root_seed(random_state, owner)
    table = as_table(X, owner=owner)
    if table.n_rows == 0:
        raise ValueError(f"{owner}: X has no rows.")
    check_no_nan(table, "X", owner)
    y_arr = check_target(y, table.n_rows, owner)
    bg = _background_table(background, table, keyed_generator(seed, "background"), owner)
    players, col_player = resolve_players(table.names, groups, owner)
    G = len(players)
    if G < 2:
        raise ValueError(f"{owner} needs at least 2 players (features or groups); got {players}.")
    chosen = method if method != "auto" else (
        "exact" if G <= MAX_EXACT_PLAYERS or index == "FSII" else "permutation"
    )
    if index == "FSII" and chosen != "exact":
        raise param_error(owner, "method", "'exact' or 'auto' with index='FSII'", method)
    if chosen == "permutation" and n_perm is None and thr is None:
        raise param_error(
            owner, "n_permutations", "an int >= 1 when convergence_threshold is None", None
        )
    correction = correction_for(loss_obj)
    s = resolve_n_samples(n_samples, correction, bg.n_rows, owner)
    exact_inner = n_samples is None or (n_samples == "auto" and correction == "plugin")
    return _Problem(
        model=as_model(model, owner=owner), table=table, y=y_arr, loss=loss_obj, background=bg,
        players=players, plan=InteractionPlan(G, index, chosen, col_player), n_samples=s,
        exact_inner=exact_inner, correction="exact" if exact_inner else correction,
        n_permutations=MAX_PERMUTATIONS if n_perm is None else n_perm, threshold=thr,
        batch_size=bs, seed=seed,
    )


def _estimate(prob: _Problem) -> tuple[Mean, bool, float]:
    """Mean of the explanation function over the explained observations."""
    n = prob.table.n_rows
    plan = prob.plan
    prob.model.observe_labels(prob.y)
    chunk = max(1, _CHUNK_ROWS // plan.rows_per_observation(prob.n_samples))
    draws = RowStream(prob.seed, "interactions/draws", prob.n_samples)
    orders = RowStream(prob.seed, "interactions/orders", plan.n_players)
    agg = Mean()
    exact = plan.method == "exact"
    total = n if exact else prob.n_permutations
    check_every = total if exact else prob.batch_size
    converged, ratio = exact, float("nan")
    t0 = 0
    while t0 < total:
        t1 = min(t0 + min(chunk, check_every - t0 % check_every), total)
        rows = np.arange(t0, t1) if exact else _sampled_rows(prob.seed, n, t0, t1)
        _update(prob, agg, rows, t0, draws, orders)
        t0 = t1
        if not exact and (agg.n % check_every == 0 or agg.n == total):
            ratio = _ratio(agg, plan.n_values)
            if prob.threshold is not None and ratio < prob.threshold:
                converged = True
                break
    if exact:
        ratio = _ratio(agg, plan.n_values)
    return agg, converged, ratio


def _update(
    prob: _Problem, agg: Mean, rows: np.ndarray, t0: int, draws: RowStream, orders: RowStream
) -> None:
    """Explain samples ``t0 ..`` (the observations ``rows``) and add them to ``agg``."""
    B, m = len(rows), prob.background.n_rows
    if prob.exact_inner:
        draw_idx = np.broadcast_to(np.arange(m), (B, m))
    else:
        draw_idx = uniform_index(draws.uniforms(t0, B), m)
    order_u = orders.uniforms(t0, B) if prob.plan.method == "permutation" else None
    values, losses = explain_interactions(
        prob.plan, prob.model, prob.loss, prob.correction, prob.table.take(rows), prob.y[rows],
        prob.background, draw_idx, order_u,
    )
    agg.update_many(np.concatenate([values, losses], axis=1))


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
    k = prob.plan.n_values
    mean = agg.get()
    std = np.sqrt(np.asarray(agg.variance) / max(agg.n, 1))
    settings = {
        "method": prob.plan.method,
        "loss": loss if isinstance(loss, str) else getattr(loss, "name", repr(loss)),
        "n_samples": prob.n_samples,
        "loss_estimator": prob.correction,
        "n_observations": agg.n,
        "converged": converged,
        "convergence_ratio": ratio,
        "explained_loss": float(mean[k] - mean[k + 1]),
        "marginal_loss": float(mean[k]),
        "model_loss": float(mean[k + 1]),
        "random_state": random_state if isinstance(random_state, (int, type(None))) else "Generator",
    }
    return ShapleyInteractions.from_vector(
        mean[:k], std[:k], prob.players, prob.plan.index, settings
    )
