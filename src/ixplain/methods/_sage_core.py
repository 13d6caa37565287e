"""The per-observation SAGE explanation function, batched; shared by ``sage`` and ``IncrementalSAGE``.

For one observation ``(x, y)`` and one random order ``pi`` of the players (features or groups),
the explanation function returns the marginal contributions

    lambda_j(x, y, pi) = l(S_{k-1}) - l(S_k),   j = pi_k,  S_k = {pi_1, ..., pi_k},

where ``l(S)`` estimates the loss of the *averaged* imputed prediction
``loss(E_{X'}[f(x_S, X'_{-S})], y)`` with ``X'`` drawn from the perturbation data (the background
rows or a storage). The contributions of one observation telescope: they sum to
``l(empty) - loss(f(x), y)``.

All coalitions of a batch of observations are evaluated in one :meth:`Model.predict` call: for
observation ``i`` and draw ``j`` the same perturbation row ``b_{ij}`` is used for every coalition
(common random numbers), so a player the model ignores gets exactly 0 in every sample.

Estimating ``loss(E[f], y)`` from ``s`` draws ``p_1..p_s`` (sample mean ``pbar``):

* ``"exact"``: the draws are the whole background, ``loss(pbar, y)`` is the definition;
* ``"variance"`` (squared error, Brier): ``loss(pbar, y) - var(p, ddof=1) / s`` (summed over
  classes for Brier, averaged over outputs for squared error) is unbiased, because
  ``E[(pbar - y)^2] = (E p - y)^2 + Var(p) / s``;
* ``"jackknife"`` (log loss and other smooth losses): ``s loss(pbar) - (s - 1) mean_j
  loss(pbar_{-j})`` removes the ``O(1/s)`` term of the bias, leaving ``O(1/s^2)``;
* ``"plugin"``: ``loss(pbar, y)``; biased by Jensen's inequality unless the draws are exhaustive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._validation import param_error
from ..losses import Loss
from ..models import Model
from ..tabular import Table, _take

__all__: list[str] = []

#: Losses with an unbiased variance correction, and how the correction reduces over outputs.
_VARIANCE_LOSSES = {"squared_error": "mean", "brier": "sum"}
#: Losses that are smooth in the prediction, for which a jackknife correction applies.
_JACKKNIFE_LOSSES = {"log_loss"}


def correction_for(loss: Loss) -> str:
    """The bias correction available for ``loss``: ``"variance"``, ``"jackknife"`` or ``"plugin"``."""
    if loss.name in _VARIANCE_LOSSES:
        return "variance"
    if loss.name in _JACKKNIFE_LOSSES:
        return "jackknife"
    return "plugin"


def resolve_players(
    names: Sequence[str], groups: Any, owner: str
) -> tuple[list[str], np.ndarray]:
    """Players (features or groups) and, for every column, the index of its player.

    ``groups`` is None (every feature is a player) or a mapping ``group name -> feature names``;
    features in no group are players of their own, after the groups.
    """
    names = list(names)
    if groups is None:
        return names, np.arange(len(names))
    if not isinstance(groups, Mapping) or not groups:
        raise param_error(
            owner, "groups", "None or a non-empty dict of group name -> list of features", groups,
            exc=TypeError,
        )
    col_player = np.full(len(names), -1)
    players: list[str] = []
    for g, members in groups.items():
        if isinstance(members, str) or not isinstance(members, Sequence) or len(members) == 0:
            raise param_error(
                owner, "groups", "a dict whose values are non-empty lists of feature names",
                groups,
            )
        p = len(players)
        players.append(str(g))
        for f in members:
            if str(f) not in names:
                raise ValueError(
                    f"{owner}: group {g!r} names the unknown feature {f!r}. Available features: "
                    f"{names}."
                )
            i = names.index(str(f))
            if col_player[i] != -1:
                raise ValueError(f"{owner}: feature {f!r} is in more than one group.")
            col_player[i] = p
    for i, n in enumerate(names):
        if col_player[i] == -1:
            if n in players:
                raise ValueError(f"{owner}: group name {n!r} is also an ungrouped feature.")
            col_player[i] = len(players)
            players.append(n)
    return players, col_player


def random_orders(u: np.ndarray) -> np.ndarray:
    """Uniform random orders of the players from uniforms ``u`` of shape (n, n_players): row
    ``i``'s order sorts its uniforms (ties have probability ~0 and break by position)."""
    return np.argsort(u, axis=1, kind="stable")


def coalition_table(
    x: Table, draws: Table, draw_idx: np.ndarray, orders: np.ndarray, col_player: np.ndarray,
    k_start: int,
) -> Table:
    """The model input for every coalition of every observation, plus the observations.

    Row block ``(i, k, j)`` (observation-major, then coalition size ``k = k_start..G-1``, then
    draw) is draw ``draws[draw_idx[i, j]]`` with the columns of the first ``k`` players of
    ``orders[i]`` taken from ``x[i]``; the last ``n`` rows are ``x`` itself (the full coalition).
    """
    nb, s = draw_idx.shape
    n_players = orders.shape[1]
    rank = np.empty_like(orders)
    np.put_along_axis(rank, orders, np.arange(n_players)[None, :], axis=1)
    ks = np.arange(k_start, n_players)
    combined = Table.concat([x, draws])
    obs = np.arange(nb)
    inside = rank[:, col_player][:, None, :] < ks[None, :, None]  # (nb, K, d): column from x
    idx = np.where(
        inside[:, :, None, :], obs[:, None, None, None], nb + draw_idx[:, None, :, None]
    ).reshape(-1, len(col_player))
    idx = np.concatenate([idx, np.repeat(obs[:, None], len(col_player), axis=1)])
    cols = {
        name: _take(combined.columns[name], np.ascontiguousarray(idx[:, c]))
        for c, name in enumerate(x.names)
    }
    return Table(cols, x.schema, combined.upcast)


def positive_column(pred: np.ndarray, loss: Loss, model: Model) -> np.ndarray:
    """Reduce a two-column probability output to P(second class), as the binary losses expect."""
    if (
        pred.ndim == 2
        and pred.shape[1] == 2
        and (model.classes_ is None or len(model.classes_) == 2)
        and (loss.response_method == "predict_proba" or loss.name == "zero_one")
    ):
        return pred[:, 1]
    return pred


def averaged_loss(
    loss: Loss, correction: str, y: np.ndarray, preds: np.ndarray, classes: Any
) -> np.ndarray:
    """Estimate ``loss(E[p], y)`` per row from draws ``preds`` of shape (n, s) or (n, s, k)."""
    n, s = preds.shape[:2]
    mean = preds.mean(axis=1)
    base = loss(y, mean, classes)
    if correction == "variance" and s >= 2:
        var = preds.var(axis=1, ddof=1) / s
        if var.ndim == 2:
            var = var.sum(axis=1) if _VARIANCE_LOSSES[loss.name] == "sum" else var.mean(axis=1)
        return base - var
    if correction == "jackknife" and s >= 2:
        loo = (s * mean[:, None] - preds) / (s - 1)  # leave-one-out means, (n, s[, k])
        y_rep = np.repeat(np.asarray(y), s, axis=0)
        flat = loo.reshape((n * s,) + loo.shape[2:])
        loo_loss = loss(y_rep, flat, classes).reshape(n, s)
        return s * base - (s - 1) * loo_loss.mean(axis=1)
    return base


def coalition_losses(
    model: Model,
    loss: Loss,
    correction: str,
    x: Table,
    y: np.ndarray,
    draws: Table,
    draw_idx: np.ndarray,
    orders: np.ndarray,
    col_player: np.ndarray,
    *,
    empty_pred: np.ndarray | None = None,
    batch_rows: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Loss estimates along each observation's order, in one batched model evaluation.

    Parameters
    ----------
    x : Table of n rows; y : ndarray of shape (n,)
    draws : Table
        Perturbation rows; ``draw_idx`` of shape (n, s) picks the draws of each observation.
    orders : ndarray of shape (n, G)
    empty_pred : ndarray, optional
        The exact averaged prediction of the empty coalition (same for every observation); when
        given, the empty coalition is not evaluated.

    Returns
    -------
    losses : ndarray of shape (n, G + 1)
        ``losses[i, k]`` estimates the loss of coalition ``S_k`` (``k = 0`` empty, ``k = G``
        all players: the model's own loss).
    full_pred : ndarray of shape (n,) or (n, k)
        The model's predictions ``f(x)``.
    """
    nb, s = draw_idx.shape
    n_players = orders.shape[1]
    k_start = 0 if empty_pred is None else 1
    table = coalition_table(x, draws, draw_idx, orders, col_player, k_start)
    pred = positive_column(model.predict(table, batch_rows=batch_rows), loss, model)
    classes = model.classes_
    n_k = n_players - k_start
    inner = pred[: nb * n_k * s]
    full_pred = pred[nb * n_k * s :]
    inner = inner.reshape((nb * n_k, s) + pred.shape[1:])
    y_arr = np.asarray(y)
    y_rep = np.repeat(y_arr, n_k, axis=0)
    est = averaged_loss(loss, correction, y_rep, inner, classes).reshape(nb, n_k)
    losses = np.empty((nb, n_players + 1))
    losses[:, k_start:n_players] = est
    if empty_pred is not None:
        const = np.broadcast_to(empty_pred, (nb,) + np.shape(empty_pred))
        losses[:, 0] = loss(y_arr, np.ascontiguousarray(const), classes)
    losses[:, n_players] = loss(y_arr, full_pred, classes)
    return losses, full_pred


def contributions(losses: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Marginal contributions ``l(S_{k-1}) - l(S_k)`` placed at player ``orders[:, k-1]``."""
    scores = np.empty(orders.shape)
    np.put_along_axis(scores, orders, losses[:, :-1] - losses[:, 1:], axis=1)
    return scores
