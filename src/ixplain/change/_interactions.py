"""Per-row pairwise Shapley interaction indices of the loss game, for ``compare``'s
``methods=(..., "interactions")``.

The game of one explained row ``x`` (label ``y``) is SAGE's:
``v_x(S) = loss(y, g_empty(x)) - loss(y, g_S(x))`` with ``g_S(x)`` the model's prediction
averaged over background draws for the features outside ``S``. Its pairwise Shapley interaction
index (SII, Grabisch & Roubens 1999)
``I_ij(x) = sum_{T subset of D - {i, j}} |T|! (G - |T| - 2)! / (G - 1)! * Delta_ij v_x(T)``,
``Delta_ij v(T) = v(T + i + j) - v(T + i) - v(T + j) + v(T)``, is linear in the game, so the
index of the global game (the mean of ``v_x`` over the rows) is the mean of the per-row indices:
``compare`` treats them like PFI's and SAGE's per-row values (a paired t interval on the
per-row differences ``I_ij^b(x) - I_ij^a(x)`` and Holm across the pairs).

**Per-row unit.** One explained row, its ``n_samples`` background draws (keyed by the seed and
the row's position: the same draws for both models, and on two datasets the same uniforms
mapped to each side's background) and *every* coalition (exact enumeration,
:func:`ixplain.methods._interaction_core.exact_indices`): no coalition sampling noise, and both
models are evaluated on exactly the same coalitions and draws (common random numbers).

**Dependence.** The rows share one background sample (at most 512 rows of the side, drawn with
the seed), so given the background the per-row values are independent, but not
unconditionally: the background enters every row. The interval is conditional on the
background (it targets the index of the game whose removal distribution is the background
sample's); the background's own sampling variance, of order ``1 / m`` for ``m`` background
rows and shared by the two sides of a paired comparison, is left out -- the same approximation
``compare`` makes for SAGE.

**Cost cap.** Exact enumeration costs ``(2^G - 1) n_samples + 1`` model rows per row and side
for ``G`` players. Only the :data:`PAIR_FEATURES` features (or groups) of highest main effect
are players of their own (the main effect: one-draw PFI, the larger of the two sides, so a
feature important on either side is kept); every other column forms one more player, the
rest, whose pairs are not reported. With the default 5 that is at most 6 players (63
coalitions). A reported pair's index equals its index in the game of all features whenever the
pair's second differences ``Delta_ij v(T)`` do not depend on which of the rest's features are
in ``T`` (in a uniform order of all players, the order induced on the kept players and the
merged pair is uniform, so both indices average ``Delta_ij`` under the same law); otherwise it
is the index of the game with the rest as one player. Restrict ``features`` to choose the
players yourself.

References
----------
M. Grabisch, M. Roubens, "An axiomatic approach to the concept of interaction among players in
cooperative games", International Journal of Game Theory 28, 1999.
I. Covert, S. Lundberg, S.-I. Lee, "Understanding Global Feature Contributions With Additive
Importance Measures", NeurIPS 2020.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..losses import Loss
from ..methods._engine import explain_rows
from ..methods._interaction_core import InteractionPlan, pair_indices
from ..methods._sage_core import resolve_players
from ..methods.interactions import InteractionFunction
from ..methods.sage import resolve_draws
from ._importance import Side, pfi_rows, sage_background

__all__ = ["PAIR_FEATURES", "pair_rows"]

_OWNER = "compare"
#: Features (or groups) whose pairs ``methods=("interactions",)`` explains: those of highest
#: main effect (see the module docstring); the other columns form one more player.
PAIR_FEATURES = 5
_REST = "\x00rest"


def pair_rows(side_a: Side, side_b: Side, loss: Loss, names: list[str],
              groups: list[list[str]], n_samples: Any, seed: int,
              max_features: int = PAIR_FEATURES
              ) -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
    """Per-row pairwise Shapley interaction indices of both sides' loss games, with common
    random numbers.

    Parameters
    ----------
    side_a, side_b : Side
        The two sides (same rows when paired; the draws are keyed by row position either way).
    loss : Loss
        The per-row loss of the game.
    names : list of str
        The explained features or groups (length ``F``, at least 2).
    groups : list of lists of str
        Their columns.
    n_samples : int, None or "auto"
        Background draws per row, as in :func:`ixplain.shapley_interactions`.
    seed : int
        The root seed (background sample, draws, main-effect ranking).
    max_features : int, default=PAIR_FEATURES
        Features (or groups) whose pairs are explained: those with the largest main effect.

    Returns
    -------
    pair_names : list of str
        ``"a x b"`` for the ``k (k - 1) / 2`` pairs of the kept features (``k =
        min(F, max_features)``), the features in ``names`` order, pairs lexicographic.
    values_a, values_b : ndarray of shape (n_a, P) and (n_b, P)
        Row ``t``'s pair indices on each side (loss units); their column means are the
        global indices.
    notes : list of str
        A sentence naming the features the cap left out (empty when none were).

    Raises
    ------
    ValueError
        If fewer than 2 features or groups are explained.

    References
    ----------
    M. Grabisch, M. Roubens, "An axiomatic approach to the concept of interaction among
    players in cooperative games", International Journal of Game Theory 28, 1999.
    """
    if len(names) < 2:
        raise ValueError(f"compare: methods=['interactions'] needs at least 2 features or "
                         f"groups; got features {names}.")
    kept = _kept(side_a, side_b, loss, groups, seed, max_features)
    grouped = {names[i]: groups[i] for i in kept}
    used = {c for i in kept for c in groups[i]}
    rest = [c for c in side_a.table.names if c not in used]
    if rest:
        grouped[_REST] = rest
    players, col_player = resolve_players(side_a.table.names, grouped, _OWNER)
    k = len(kept)
    ii, jj = pair_indices(len(players))
    inside = np.flatnonzero((ii < k) & (jj < k))
    pair_names = [f"{players[ii[p]]} x {players[jj[p]]}" for p in inside]
    va = _side_pairs(side_a, loss, players, col_player, n_samples, seed)[:, inside]
    vb = _side_pairs(side_b, loss, players, col_player, n_samples, seed)[:, inside]
    return pair_names, va, vb, _note(names, kept)


def _kept(side_a: Side, side_b: Side, loss: Loss, groups: list[list[str]], seed: int,
          max_features: int) -> list[int]:
    """Positions (ascending) of the ``max_features`` features of largest one-draw PFI, the
    larger of the two sides (all of them when there are at most ``max_features``)."""
    if len(groups) <= max_features:
        return list(range(len(groups)))
    ma = pfi_rows(side_a, loss, groups, 1, seed)[0].mean(axis=0)
    mb = pfi_rows(side_b, loss, groups, 1, seed)[0].mean(axis=0)
    top = np.argsort(-np.maximum(ma, mb), kind="stable")[:max_features]
    return sorted(int(i) for i in top)


def _side_pairs(side: Side, loss: Loss, players: list[str], col_player: np.ndarray,
                n_samples: Any, seed: int) -> np.ndarray:
    """(n_rows, P) per-row SII of every pair of ``players`` (exact enumeration)."""
    bg = sage_background(side.table, seed)
    s, exact_inner, _ = resolve_draws(n_samples, loss, "marginal", side.table, None, bg,
                                      _OWNER)
    G = len(players)
    plan = InteractionPlan(G, "SII", "exact", col_player)
    fn = InteractionFunction(side.model, loss, bg, plan, players, s, exact_inner, seed)
    explained = explain_rows(fn, side.table, side.y, keep_values=True)
    assert explained.values is not None
    return np.asarray(explained.values[:, G: G + plan.n_pairs], dtype=np.float64)


def _note(names: list[str], kept: list[int]) -> list[str]:
    """A sentence naming the features the cap left out (none when all were kept)."""
    out = [n for i, n in enumerate(names) if i not in kept]
    if not out:
        return []
    inside = [names[i] for i in kept]
    return [f"interactions: pairs among the {len(inside)} features of largest main effect "
            f"(one-draw PFI, the larger side): {inside}; left out: {out} (the other columns "
            "formed one player whose pairs are not reported)."]
