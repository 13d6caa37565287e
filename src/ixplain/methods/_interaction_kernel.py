"""The Shapley-kernel regression estimator of an observation's interaction index
(``method="regression"`` of ``shapley_interactions`` and ``IncrementalShapleyInteractions``).

For one observation with game ``v`` on ``G`` players, ``K`` coalitions are evaluated (the
empty one first, the full one is ``f(x)``); the estimate is the weighted least-squares fit of
``v`` by a game of order ``k`` (``k`` = the interaction order),

    min_b  sum_S w(S) (v(S) - sum_{T ⊆ S, |T| <= k} b_T)^2   subject to exactness on
    ``empty`` and ``D``,

with the Shapley kernel ``mu(S) = (G - 1) / (C(G, |S|) |S| (G - |S|))`` as the target
weights (Faith-SII's least squares, Tsai et al. 2023). The coalitions follow the *border*
design: the sizes ``(1, G-1)``, then ``(2, G-2)`` ... are enumerated completely while the
budget left covers a size pair at least as well as sampling would (its share of the kernel
mass times the coalitions left), with their exact weights ``mu(S)``; the rest is sampled in
complementary pairs ``(S, D - S)`` with size ``k <= G / 2`` drawn with probability
proportional to the kernel mass of the sizes ``k`` and ``G - k`` and ``S`` uniform within its
size, so that every remaining coalition occurs at a rate proportional to ``mu(S)`` and each
sample weighs the same (the kernel mass left over the number of samples).

The fitted coefficients ``b`` are the Moebius transform of a ``k``-additive game, whose
k-SII and Faith-SII are ``b`` itself and whose SII is ``SII_S = sum_{T ⊇ S} b_T / (|T| - |S|
+ 1)``; those are returned. With every coalition enumerated the fit *is* Faith-SII.

Bias and variance
-----------------
The estimate is consistent for Faith-SII of order ``k``, not for k-SII or SII: their
difference is made of the game's Moebius terms of order above ``k + 1`` only (of order >= 4
for ``k = 2``: FSII and k-SII give an order-3 term the same shares, ``1/2`` per pair and
``-1/6`` per main term), which loss games of models with few high-order interactions keep
small; on a finite budget the weighted least squares has an ``O(1 / K)`` ratio bias. The
variance comes from the sampled part and falls as ``1 / K``; coalitions are drawn anew for
every observation, so in the mean over ``n`` observations their noise averages out like
``1 / (n K)``, which is what makes the estimator efficient on a global game. The standard
errors of the mean over observations include that noise. Efficiency (the terms sum to
``v(D) - v(empty)``) holds for every observation, by the constraint.

References
----------
Tsai, C.-P., Yeh, C.-K., Ravikumar, P. "Faith-Shap: The Faithful Shapley Interaction Index."
JMLR 24, 2023.
Lundberg, S., Lee, S.-I. "A Unified Approach to Interpreting Model Predictions." NeurIPS 2017
(the Shapley kernel).
Covert, I., Lee, S.-I. "Improving KernelSHAP: Practical Shapley Value Estimation via Linear
Regression." AISTATS 2021 (paired sampling).
Fumagalli, F., Muschalik, M., Kolpaczki, P., Hüllermeier, E., Hammer, B. "KernelSHAP-IQ:
Weighted Least Square Optimization for Shapley Interactions." ICML 2024 (the border design).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

__all__: list[str] = []


@lru_cache(maxsize=32)
def interaction_terms(n_players: int, order: int) -> tuple[tuple[int, ...], ...]:
    """Every term of order 1 .. ``order``: the players, then the pairs, then the triples, each
    in lexicographic order (the layout of an explanation vector)."""
    return tuple(t for k in range(1, order + 1) for t in combinations(range(n_players), k))


def n_terms(n_players: int, order: int) -> int:
    """Number of terms of order 1 .. ``order``."""
    return sum(comb(n_players, k) for k in range(1, order + 1))


def kernel_weight(n_players: int, size: int) -> float:
    """The Shapley kernel ``mu(S)`` of one coalition of ``size`` players (0 < size < G)."""
    G = n_players
    return (G - 1) / (comb(G, size) * size * (G - size))


@dataclass(frozen=True)
class KernelDesign:
    """The coalitions of one observation: ``1 + len(codes)`` fixed ones (empty first, then the
    enumerated sizes) and ``2 * n_pairs`` sampled ones.

    Attributes
    ----------
    n_players : int
    codes : ndarray of int64
        Bit codes of the enumerated coalitions (bit ``p`` = player ``p``).
    weights : ndarray
        Their kernel weights ``mu(S)``.
    sizes : ndarray of int
        The sizes ``k <= G / 2`` that are sampled; ``cdf`` their cumulative probabilities.
    cdf : ndarray
    sample_weight : float
        Weight of each sampled coalition (the kernel mass left over ``2 * n_pairs``).
    n_pairs : int
    """

    n_players: int
    codes: np.ndarray
    weights: np.ndarray
    sizes: np.ndarray
    cdf: np.ndarray
    sample_weight: float
    n_pairs: int

    @property
    def n_coalitions(self) -> int:
        return 1 + len(self.codes) + 2 * self.n_pairs

    @property
    def width(self) -> int:
        """Uniforms per observation: a size and ``G`` ranks per sampled pair."""
        return max(1, self.n_pairs * (1 + self.n_players))


def _size_pairs(G: int) -> list[list[int]]:
    return [[k] if k == G - k else [k, G - k] for k in range(1, G // 2 + 1)]


@lru_cache(maxsize=64)
def kernel_design(n_players: int, n_coalitions: int) -> KernelDesign:
    """The border design for ``n_coalitions`` coalitions per observation (empty included)."""
    G = n_players
    mass = {k: comb(G, k) * kernel_weight(G, k) for k in range(1, G)}
    left = n_coalitions - 1
    codes: list[int] = []
    weights: list[float] = []
    rest: list[list[int]] = []
    pairs = _size_pairs(G)
    for p, sz in enumerate(pairs):
        count = sum(comb(G, s) for s in sz)
        remaining = sum(mass[s] for q in pairs[p:] for s in q)
        if not rest and count <= left * sum(mass[s] for s in sz) / remaining:
            for s in sz:
                for members in combinations(range(G), s):
                    codes.append(sum(1 << m for m in members))
                    weights.append(kernel_weight(G, s))
            left -= count
        else:
            rest.append(sz)
    n_pairs = left // 2 if rest else 0
    sizes = np.array([sz[0] for sz in rest], dtype=np.intp)
    pm = np.array([sum(mass[s] for s in sz) for sz in rest])
    total = float(pm.sum()) if rest else 0.0
    cdf = np.cumsum(pm) / total if rest else np.zeros(0)
    return KernelDesign(
        G, np.array(codes, dtype=np.int64), np.array(weights), sizes, cdf,
        total / (2 * n_pairs) if n_pairs else 0.0, n_pairs,
    )


def coalition_masks(design: KernelDesign, u: np.ndarray | None, n_obs: int) -> np.ndarray:
    """(B, K, G) bool: each observation's coalitions (empty, enumerated, then the sampled pairs
    ``S_1, D - S_1, S_2, ...``) from its uniforms ``u`` of shape (B, width)."""
    G = design.n_players
    fixed = np.concatenate([[0], design.codes])
    fixed_bits = ((fixed[:, None] >> np.arange(G)[None, :]) & 1).astype(bool)
    out = np.broadcast_to(fixed_bits, (n_obs,) + fixed_bits.shape)
    if design.n_pairs == 0:
        return np.ascontiguousarray(out)
    assert u is not None
    uu = u[:, : design.n_pairs * (1 + G)].reshape(n_obs, design.n_pairs, 1 + G)
    pick = np.minimum(np.searchsorted(design.cdf, uu[..., 0], side="right"),
                      len(design.sizes) - 1)
    k = design.sizes[pick]  # (B, n_pairs)
    rank = np.argsort(np.argsort(uu[..., 1:], axis=-1, kind="stable"), axis=-1, kind="stable")
    inside = rank < k[..., None]  # (B, n_pairs, G)
    sampled = np.stack([inside, ~inside], axis=2).reshape(n_obs, 2 * design.n_pairs, G)
    return np.concatenate([out, sampled], axis=1)


def term_basis(masks: np.ndarray, order: int) -> np.ndarray:
    """(..., 1 + n_terms) regressors: 1, then for every term whether it lies inside ``S``."""
    G = masks.shape[-1]
    cols = [np.ones(masks.shape[:-1])]
    for k in range(1, order + 1):
        for t in combinations(range(G), k):
            cols.append(np.logical_and.reduce([masks[..., p] for p in t]).astype(np.float64))
    return np.stack(cols, axis=-1)


def fit_interactions(design: KernelDesign, masks: np.ndarray, game: np.ndarray,
                     full: np.ndarray, order: int, index: str) -> np.ndarray:
    """The constrained kernel least squares of every observation, as index terms.

    Parameters
    ----------
    masks : ndarray of shape (B, K, G)
        From :func:`coalition_masks`.
    game : ndarray of shape (B, K)
        ``v(S)`` on those coalitions (``game[:, 0] = v(empty) = 0``).
    full : ndarray of shape (B,)
        ``v(D)``.

    Returns
    -------
    ndarray of shape (B, n_terms)
        The terms of ``index`` (layout of :func:`interaction_terms`).
    """
    B, K, G = masks.shape
    A = term_basis(masks[:, 1:], order)  # (B, K - 1, q): the empty coalition is a constraint
    q = A.shape[-1]
    w = np.concatenate([design.weights, np.full(2 * design.n_pairs, design.sample_weight)])
    kkt = np.zeros((B, q + 2, q + 2))
    rhs = np.zeros((B, q + 2))
    # the normal equations as ordered sums of elementwise products: every observation gets
    # the same operations in the same order, so its bits do not depend on the batch
    for k in range(K - 1):
        a_k = A[:, k] * w[k]
        kkt[:, :q, :q] += a_k[:, :, None] * A[:, k, None, :]
        rhs[:, :q] += a_k * game[:, k + 1, None]
    kkt[:, np.arange(q), np.arange(q)] += 1e-13 * float(w.sum())  # a ridge for thin designs
    kkt[:, q, 0] = kkt[:, 0, q] = 1.0  # exact on empty: b_0 = v(empty)
    kkt[:, q + 1, :q] = kkt[:, :q, q + 1] = 1.0  # exact on D: sum of every b = v(D)
    rhs[:, q], rhs[:, q + 1] = game[:, 0], full
    b = np.linalg.solve(kkt, rhs[..., None])[..., 0][:, 1:q]
    if index != "SII":
        return b
    to_sii = moebius_to_sii(G, order)
    out = np.zeros_like(b)
    for t in range(b.shape[1]):  # ordered, as above
        out += b[:, t, None] * to_sii[:, t][None, :]
    return out


@lru_cache(maxsize=32)
def moebius_to_sii(n_players: int, order: int) -> np.ndarray:
    """(n_terms, n_terms) map from the Moebius terms of a game of order ``order`` to its SII:
    ``SII_S = sum_{T ⊇ S} b_T / (|T| - |S| + 1)``."""
    terms = interaction_terms(n_players, order)
    pos = {t: i for i, t in enumerate(terms)}
    out = np.zeros((len(terms), len(terms)))
    for T in terms:
        for k in range(1, len(T) + 1):
            for S in combinations(T, k):
                out[pos[S], pos[T]] = 1.0 / (len(T) - k + 1)
    return out
