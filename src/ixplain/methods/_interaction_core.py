"""Shapley interactions of an observation's loss game, batched; shared by ``shapley_interactions``
and ``IncrementalShapleyInteractions``.

The game of one observation ``(x, y)`` is SAGE's (:mod:`._sage_core`):

    v_x(S) = l_x(empty) - l_x(S),    l_x(S) ~ loss(E_{X'}[f(x_S, X'_{-S})], y),

with the players outside ``S`` replaced by ``s`` perturbation rows (shared by every coalition
of the observation: common random numbers, so a player the model ignores has exactly zero
interaction with anything in exact and permutation mode under marginal removal) -- or, under
conditional removal, by ``s`` draws of the removed block given the kept features
(:func:`conditional_evaluator`, the sampler of ``sage``) -- and the loss of the averaged prediction estimated without bias as
iSAGE does (:func:`._sage_core.averaged_loss`). Every index below is linear in the game, so the
mean of the per-observation indices over the rows is the index of the global (SAGE) game.

Indices (order 2; ``G`` players, pairs ``i < j`` in lexicographic order)
------------------------------------------------------------------------
* ``"SII"`` (Grabisch & Roubens 1999): pair ``I_ij = sum_{T ⊆ D - ij} w(|T|) Δ_ij(T)`` with
  ``w(t) = t! (G - t - 2)! / (G - 1)!`` and ``Δ_ij(T) = v(T+ij) - v(T+i) - v(T+j) + v(T)``;
  main terms are the Shapley values.
* ``"k-SII"`` (Bordt & von Luxburg 2023), order 2: pairs ``I_ij``; main terms
  ``phi_i - 1/2 sum_j I_ij``. The main and pair terms sum to ``v(D) - v(empty)`` (efficiency).
* ``"FSII"`` (Faith-SII, Tsai et al. 2023): the Shapley-kernel weighted least-squares fit of the
  game by main and pair terms, exact on ``empty`` and ``D``; efficient too.

Order 3 adds the triples ``i < j < k`` after the pairs: SII ``I_ijk`` with weights
``t! (G - t - 3)! / (G - 2)!`` of the third derivative; k-SII of order 3 (Bernoulli numbers
``B_1 = -1/2``, ``B_2 = 1/6``): triples ``I_ijk``, pairs ``I_ij - 1/2 sum_k I_ijk``, mains
``phi_i - 1/2 sum_j I_ij + 1/6 sum_jk I_ijk`` (efficient); FSII of order 3 by the same least
squares with the triples in the basis.

Estimation per observation
--------------------------
* ``"exact"``: all ``2^G - 1`` proper coalitions (times ``s`` draws) plus ``f(x)`` in one model
  call; the index is a fixed ``(G + P, 2^G)`` matrix applied to the game vector. No estimation
  error beyond the ``s`` draws (unbiased for squared error / Brier with ``s >= 2``).
* ``"permutation"``: one uniform random order ``pi`` per observation. The ``G + 1`` prefixes
  ``P_k`` give the marginal contributions (SAGE), and for each of the ``G - 1`` adjacent pairs
  ``(pi_k, pi_{k+1})`` one more coalition ``P_k + pi_{k+1}`` gives ``Δ(P_k)``. Given that a pair
  is adjacent, ``P_k`` has exactly the SII distribution of ``T`` (the pair merged into one player
  of a uniform order), and a pair is adjacent with probability ``2 / G``, so
  ``(G / 2) Δ 1[adjacent]`` is unbiased for ``I_ij`` (Horvitz-Thompson). Cost ``2G - 1``
  coalitions (times ``s``) plus ``f(x)``; the price is variance: about ``G / 2 E[Δ^2]`` per
  pair and observation. Efficiency holds for every single observation (the pair terms cancel
  in the k-SII main terms). Order 2 only.
* ``"regression"``: ``K`` coalitions of a border design and the Shapley-kernel least-squares
  fit (:mod:`._interaction_kernel`, its bias and variance documented there).

Bias of the inner estimate
--------------------------
With ``s >= 2`` draws and squared error or Brier the loss of the averaged prediction is
estimated without bias, so the index is that of the averaged-prediction game. With ``s = 1``
(or a loss without a correction) it is the index of the game of the expected *one-draw* loss,
``E_b (f(x_S, b_-S) - y)^2``, whose pair terms also contain the covariance of the two
features' effects *within* the background rows: two additive features get a spurious pair term
of the size of their sample correlation in the background (``O(1 / sqrt(m))`` for ``m``
independent rows), which no standard error over the explained rows reports. Prefer ``s >= 2``.

References
----------
Grabisch, M., Roubens, M. "An axiomatic approach to the concept of interaction among players in
cooperative games." International Journal of Game Theory 28, 1999.
Bordt, S., von Luxburg, U. "From Shapley Values to Generalized Additive Models and back."
AISTATS 2023.
Tsai, C.-P., Yeh, C.-K., Ravikumar, P. "Faith-Shap: The Faithful Shapley Interaction Index."
JMLR 24, 2023.
Covert, I., Lundberg, S., Lee, S.-I. "Understanding Global Feature Contributions With Additive
Importance Measures." NeurIPS 2020.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb, factorial
from typing import Any

import numpy as np

from ..losses import Loss
from ..models import Model
from ..tabular import Table
from ._conditional import conditional_masked_losses
from ._interaction_kernel import (
    KernelDesign,
    coalition_masks,
    fit_interactions,
    kernel_design,
    term_basis,
)
from ._sage_core import masked_losses, masked_table

__all__: list[str] = []

INDICES = ("k-SII", "SII", "FSII")
METHODS = ("exact", "permutation", "regression")


def pair_indices(n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``i < j`` in lexicographic order: two int arrays of length ``G (G - 1) / 2``."""
    return np.triu_indices(n_players, 1)


@lru_cache(maxsize=32)
def coalition_bits(n_players: int) -> np.ndarray:
    """Membership of every coalition ``c = 0 .. 2^G - 1`` (bit ``p`` = player ``p``): (2^G, G)."""
    c = np.arange(2**n_players)
    return ((c[:, None] >> np.arange(n_players)[None, :]) & 1).astype(bool)


def _incidence(n_players: int) -> np.ndarray:
    """(G, P) matrix with 1 where player ``i`` belongs to pair ``p``."""
    ii, jj = pair_indices(n_players)
    inc = np.zeros((n_players, len(ii)))
    inc[ii, np.arange(len(ii))] = 1.0
    inc[jj, np.arange(len(ii))] = 1.0
    return inc


def ordered_sum(terms: np.ndarray) -> np.ndarray:
    """``terms.sum(axis=2)`` added one term after the other, the same order for every row.

    ``game[:, index]`` with a 2-D ``index`` is laid out with the rows innermost, and NumPy's
    reduction then sums each row in an order that depends on the number of rows (pairwise
    over a contiguous axis, else one term at a time): the main terms of one observation and
    of a batch differed in the last bit (QA9 item 14).

    Parameters
    ----------
    terms : ndarray of shape (B, m, n)

    Returns
    -------
    ndarray of shape (B, m)
    """
    out = terms[:, :, 0].copy()
    for k in range(1, terms.shape[2]):
        out += terms[:, :, k]
    return out


def ordered_product(values: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``values @ matrix.T`` as ordered sums of elementwise products, row by row.

    A matrix product hands the rows to BLAS, whose kernels (and so the order of the sums)
    depend on how many rows there are: one row and a batch of rows differed in the last bit
    (QA9 item 14). Here every row gets the same operations in the same order, whatever the
    batch, as in :func:`._interaction_kernel.fit_interactions`; zero entries of ``matrix``
    are skipped (an infinite value meets no ``0 * inf``).

    Parameters
    ----------
    values : ndarray of shape (B, n)
    matrix : ndarray of shape (m, n)

    Returns
    -------
    ndarray of shape (B, m)
    """
    out = np.zeros((values.shape[0], matrix.shape[0]))
    for t in range(matrix.shape[1]):
        nz = np.flatnonzero(matrix[:, t])
        if len(nz):
            out[:, nz] += values[:, t, None] * matrix[nz, t][None, :]
    return out


def _fsii_rows(n_players: int, order: int = 2) -> np.ndarray:
    """(n_terms, 2^G) map from a game vector to Faith-SII of ``order`` (constrained least
    squares).

    Minimises ``sum_S mu(S) (v(S) - sum_{T ⊆ S, |T| <= order} Phi_T)^2`` with the Shapley
    kernel ``mu(S) = (G - 1) / (C(G, |S|) |S| (G - |S|))`` over the proper non-empty
    coalitions, subject to exactness on the empty and the full coalition (the KKT system,
    solved for the identity).
    """
    G = n_players
    bits = coalition_bits(G)
    size = bits.sum(axis=1)
    A = term_basis(bits, order)
    inner = (size > 0) & (size < G)
    s = size[inner]
    w = (G - 1) / (np.array([comb(G, int(k)) for k in s]) * s * (G - s))
    q = A.shape[1]
    Am, Ac = A[inner], A[~inner]
    kkt = np.zeros((q + 2, q + 2))
    kkt[:q, :q] = (Am.T * w) @ Am
    kkt[:q, q:] = Ac.T
    kkt[q:, :q] = Ac
    rhs = np.zeros((q + 2, 2**G))
    rhs[:q, inner] = Am.T * w
    rhs[q:, ~inner] = np.eye(2)
    return np.linalg.solve(kkt, rhs)[1:q]


@lru_cache(maxsize=32)
def exact_matrix(n_players: int, order: int = 2) -> np.ndarray:
    """(n_terms, 2^G) linear map from a game vector (``v[0] = 0``) to its Faith-SII."""
    return _fsii_rows(n_players, order)


@lru_cache(maxsize=32)
def _derivative_plan(n_players: int) -> tuple[np.ndarray, ...]:
    """Coalition indices and weights of the discrete derivatives of every player and pair.

    ``t1, t1i`` (G, 2^(G-1)): the coalitions ``T`` without ``i`` and ``T + i``, weights ``w1``;
    ``t2, t2i, t2j, t2ij`` (P, 2^(G-2)): ``T`` without ``i, j`` and its three extensions,
    weights ``w2`` (the Shapley and SII weights of ``|T|``).
    """
    G = n_players
    bits = coalition_bits(G)
    size = bits.sum(axis=1)
    c = np.arange(2**G)
    w = np.array([factorial(t) * factorial(G - t - 1) / factorial(G) for t in range(G)])
    t1 = np.stack([c[~bits[:, i]] for i in range(G)])
    t1i = t1 | (1 << np.arange(G))[:, None]
    ii, jj = pair_indices(G)
    t2 = np.stack([c[~bits[:, i] & ~bits[:, j]] for i, j in zip(ii, jj)]).reshape(len(ii), -1)
    bi, bj = (1 << ii)[:, None], (1 << jj)[:, None]
    w2 = np.array(
        [factorial(t) * factorial(G - t - 2) / factorial(G - 1) for t in range(max(G - 1, 1))]
    )
    return t1, t1i, w[size[t1]], t2, t2 | bi, t2 | bj, t2 | bi | bj, w2[size[t2]]


@lru_cache(maxsize=32)
def _triple_plan(n_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``t3`` (T3, 2^(G-3)): the coalitions without ``i, j, k`` of every triple; ``bits``
    (T3, 3): the triple's bits; ``w3``: the SII weights ``|T|! (G - |T| - 3)! / (G - 2)!``."""
    G = n_players
    bits = coalition_bits(G)
    size = bits.sum(axis=1)
    c = np.arange(2**G)
    triples = list(combinations(range(G), 3))
    t3 = np.stack([c[~bits[:, i] & ~bits[:, j] & ~bits[:, k]] for i, j, k in triples])
    w3 = np.array([factorial(t) * factorial(G - t - 3) / factorial(G - 2) for t in range(G - 2)])
    tb = (1 << np.array(triples))
    return t3, tb, w3[size[t3]]


@lru_cache(maxsize=32)
def _term_incidence(n_players: int, low: int, high: int) -> np.ndarray:
    """(n_low, n_high) matrix with 1 where the term of order ``low`` lies inside the term of
    order ``high`` (both in lexicographic order)."""
    lows = list(combinations(range(n_players), low))
    pos = {t: i for i, t in enumerate(lows)}
    highs = list(combinations(range(n_players), high))
    out = np.zeros((len(lows), len(highs)))
    for h, T in enumerate(highs):
        for S in combinations(T, low):
            out[pos[S], h] = 1.0
    return out


def _triple_sii(game: np.ndarray, n_players: int) -> np.ndarray:
    """(B, T3) SII of every triple: weighted third derivatives, each grouped as a difference
    of pair derivatives (exactly 0 when a player never changes the game)."""
    t3, tb, w3 = _triple_plan(n_players)
    bi, bj, bk = (tb[:, p][:, None] for p in range(3))

    def pair_delta(t: np.ndarray) -> np.ndarray:
        return (game[:, t | bi | bj] - game[:, t | bj]) - (game[:, t | bi] - game[:, t])

    return ordered_sum((pair_delta(t3 | bk) - pair_delta(t3)) * w3)


def exact_indices(game: np.ndarray, n_players: int, index: str, order: int = 2) -> np.ndarray:
    """The terms of game vectors ``game`` (B, 2^G): shape (B, G + P [+ T3]).

    SII and k-SII sum weighted discrete derivatives, each grouped as a difference of
    marginal contributions, so a player whose presence never changes the game gets exactly 0
    in every term that involves it; FSII applies :func:`exact_matrix`. k-SII of order ``k``
    (Bordt & von Luxburg 2023) adds to each SII term the SII of its supersets of higher order
    times Bernoulli numbers: ``B_1 = -1/2`` for one more player, ``B_2 = 1/6`` for two.
    """
    if index == "FSII":
        return ordered_product(game, exact_matrix(n_players, order))
    t1, t1i, w1, t2, t2i, t2j, t2ij, w2 = _derivative_plan(n_players)
    mains = ordered_sum((game[:, t1i] - game[:, t1]) * w1)
    delta = (game[:, t2ij] - game[:, t2j]) - (game[:, t2i] - game[:, t2])
    pairs = ordered_sum(delta * w2)
    if order < 3:
        if index == "k-SII":
            mains = mains - 0.5 * ordered_product(pairs, _incidence(n_players))
        return np.concatenate([mains, pairs], axis=1)
    triples = _triple_sii(game, n_players)
    if index == "k-SII":
        mains = (mains - 0.5 * ordered_product(pairs, _incidence(n_players))
                 + ordered_product(triples, _term_incidence(n_players, 1, 3)) / 6.0)
        pairs = pairs - 0.5 * ordered_product(triples, _term_incidence(n_players, 2, 3))
    return np.concatenate([mains, pairs, triples], axis=1)


@dataclass(frozen=True)
class InteractionPlan:
    """What one evaluation of the explanation function computes.

    Attributes
    ----------
    n_players : int
        ``G`` (at least 2; at least 3 for ``order=3``).
    index : {"k-SII", "SII", "FSII"}
    method : {"exact", "permutation", "regression"}
    col_player : ndarray of shape (n_features,)
        The player of every column (:func:`._sage_core.resolve_players`).
    order : {2, 3}
        Highest interaction order.
    budget : int
        ``"regression"``: coalitions per observation, the empty one included.
    """

    n_players: int
    index: str
    method: str
    col_player: np.ndarray
    order: int = 2
    budget: int = 0

    @property
    def n_pairs(self) -> int:
        return self.n_players * (self.n_players - 1) // 2

    @property
    def n_triples(self) -> int:
        return comb(self.n_players, 3) if self.order >= 3 else 0

    @property
    def n_coalitions(self) -> int:
        """Coalitions evaluated with draws per observation (``f(x)`` comes on top)."""
        G = self.n_players
        if self.method == "exact":
            return 2**G - 1
        if self.method == "regression":
            return self.design.n_coalitions
        return 2 * G - 1

    @property
    def design(self) -> KernelDesign:
        """The coalition design of ``"regression"``."""
        return kernel_design(self.n_players, self.budget)

    @property
    def n_values(self) -> int:
        """Length of one explanation: ``G`` main terms, ``P`` pair terms (then the triples)."""
        return self.n_players + self.n_pairs + self.n_triples

    @property
    def n_uniforms(self) -> int:
        """Uniforms per observation for its coalitions (orders or sampled coalitions)."""
        if self.method == "regression":
            return self.design.width
        return self.n_players

    def rows_per_observation(self, n_samples: int) -> int:
        return self.n_coalitions * n_samples + 1


#: ``evaluate(inside)``: the loss estimates of coalitions ``inside`` (shape (B or 1, K, d), the
#: columns kept) for every observation, as ``(est (B, K), full_loss (B,))``.
Evaluate = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def marginal_evaluator(
    model: Model, loss: Loss, correction: str, x: Table, y: np.ndarray, draws: Table,
    draw_idx: np.ndarray, batch_rows: int | None = None,
) -> Evaluate:
    """Marginal removal: the removed columns of observation ``i`` from its draws
    ``draws[draw_idx[i]]`` (shared by all its coalitions), one batched model call."""

    def evaluate(inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        table = masked_table(x, draws, draw_idx, inside)
        est, full_loss, _ = masked_losses(
            model, loss, correction, table, y, inside.shape[1], draw_idx.shape[1],
            batch_rows=batch_rows,
        )
        return est, full_loss

    return evaluate


def conditional_evaluator(
    model: Model, loss: Loss, correction: str, x: Table, y: np.ndarray, sampler: Any,
    u: np.ndarray, *, exclude: np.ndarray | None = None, explainer: Any = None,
    rows: Any = None, batch_rows: int | None = None,
) -> Evaluate:
    """Conditional removal: the removed block of every coalition drawn by ``sampler`` (a
    fitted :class:`~ixplain.imputation.ConditionalSampler`) from uniforms ``u`` (B, s, width)
    shared by all coalitions of an observation (see
    :func:`._conditional.conditional_masked_losses` for ``exclude``, ``explainer``, ``rows``)."""

    def evaluate(inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return conditional_masked_losses(
            model, loss, correction, x, y, sampler, u, ~inside, exclude=exclude,
            batch_rows=batch_rows, explainer=explainer, rows=rows,
        )

    return evaluate


def explain_interactions(
    plan: InteractionPlan, evaluate: Evaluate, n_obs: int, order_u: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The batched explanation function: interaction indices of each observation's loss game.

    Parameters
    ----------
    plan : InteractionPlan
    evaluate : Evaluate
        The removal step and the model call (:func:`marginal_evaluator`,
        :func:`conditional_evaluator`).
    n_obs : int
        ``B``, the observations.
    order_u : ndarray of shape (B, plan.n_uniforms) or None
        Uniforms that fix each observation's random order (``"permutation"``; the order is
        their argsort, so any batching of the same uniforms gives the same values) or its
        sampled coalitions (``"regression"``).

    Returns
    -------
    values : ndarray of shape (B, plan.n_values)
        Main terms, pair terms (then triple terms) of each observation.
    losses : ndarray of shape (B, 2)
        ``l_x(empty)`` and ``loss(f(x), y)``; ``values.sum(axis=1)`` equals their difference
        for the efficient indices.
    """
    if plan.method == "exact":
        return _explain_exact(plan, evaluate)
    assert order_u is not None
    if plan.method == "regression":
        return _explain_regression(plan, evaluate, n_obs, order_u)
    return _explain_permutation(plan, evaluate, n_obs, order_u)


def _explain_exact(plan: InteractionPlan, evaluate: Evaluate) -> tuple[np.ndarray, np.ndarray]:
    G = plan.n_players
    est, full_loss = evaluate(coalition_bits(G)[:-1][:, plan.col_player][None])
    losses = np.concatenate([est, full_loss[:, None]], axis=1)  # (B, 2^G), coalition order
    game = losses[:, :1] - losses
    values = exact_indices(game, G, plan.index, plan.order)
    return values, np.stack([losses[:, 0], full_loss], axis=1)


def _explain_regression(
    plan: InteractionPlan, evaluate: Evaluate, n_obs: int, coalition_u: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    design = plan.design
    masks = coalition_masks(design, coalition_u, n_obs)  # (B, K, G)
    est, full_loss = evaluate(masks[:, :, plan.col_player])
    game = est[:, :1] - est
    values = fit_interactions(design, masks, game, est[:, 0] - full_loss, plan.order,
                              plan.index)
    return values, np.stack([est[:, 0], full_loss], axis=1)


def _explain_permutation(
    plan: InteractionPlan, evaluate: Evaluate, B: int, order_u: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    G = plan.n_players
    orders = np.argsort(order_u, axis=1, kind="stable")
    rank = np.empty_like(orders)
    np.put_along_axis(rank, orders, np.arange(G)[None, :], axis=1)
    k = np.arange(G)
    prefix = rank[:, None, :] < k[None, :, None]  # P_0 .. P_{G-1}: (B, G, G)
    skip = prefix[:, : G - 1] | (rank[:, None, :] == k[None, 1:, None])  # P_k + pi_{k+1}
    inside = np.concatenate([prefix, skip], axis=1)[:, :, plan.col_player]
    est, full_loss = evaluate(inside)
    lp = np.concatenate([est[:, :G], full_loss[:, None]], axis=1)  # l(P_0) .. l(P_G)
    lq = est[:, G:]  # l(P_k + pi_{k+1}), k = 0 .. G-2
    mains = np.empty((B, G))
    np.put_along_axis(mains, orders, lp[:, :-1] - lp[:, 1:], axis=1)
    # Δ of the adjacent pairs, (B, G-1), grouped so that it is exactly 0 when either player
    # leaves the losses unchanged (a feature the model ignores, with the common draws)
    delta = (lp[:, 1:-1] - lp[:, :-2]) - (lp[:, 2:] - lq)
    a, b = orders[:, :-1], orders[:, 1:]
    pid = _pair_id(G)[np.minimum(a, b), np.maximum(a, b)]
    pairs = np.zeros((B, plan.n_pairs))
    np.put_along_axis(pairs, pid, 0.5 * G * delta, axis=1)
    if plan.index == "k-SII":
        mains -= 0.5 * ordered_product(pairs, _incidence(G))
    return np.concatenate([mains, pairs], axis=1), np.stack([lp[:, 0], full_loss], axis=1)


@lru_cache(maxsize=32)
def _pair_id(n_players: int) -> np.ndarray:
    """(G, G) int matrix: the position of pair ``(i, j)``, ``i < j``, among the pairs."""
    ii, jj = pair_indices(n_players)
    out = np.full((n_players, n_players), -1, dtype=np.intp)
    out[ii, jj] = np.arange(len(ii))
    return out
