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
    n_players = orders.shape[1]
    rank = np.empty_like(orders)
    np.put_along_axis(rank, orders, np.arange(n_players)[None, :], axis=1)
    ks = np.arange(k_start, n_players)
    inside = rank[:, col_player][:, None, :] < ks[None, :, None]  # (nb, K, d): column from x
    return masked_table(x, draws, draw_idx, inside)


def masked_table(x: Table, draws: Table, draw_idx: np.ndarray, inside: np.ndarray) -> Table:
    """The model input for arbitrary coalitions of every observation, plus the observations.

    ``inside`` of shape (n, K, d) (or (1, K, d), the same coalitions for every observation)
    marks the columns taken from ``x[i]`` in coalition ``k``; the others come from draw
    ``draws[draw_idx[i, j]]``. Row block ``(i, k, j)`` (observation-major, then coalition, then
    draw); the last ``n`` rows are ``x`` itself (the full coalition).
    """
    nb, s = draw_idx.shape
    combined = Table.concat([x, draws])
    obs = np.arange(nb)
    rows = nb + draw_idx[:, None, :]  # (n, 1, s): the draws' rows in ``combined``
    cols = {}
    for c, name in enumerate(x.names):
        col = combined.columns[name]
        keep = inside[:, :, None, c]  # (n or 1, K, 1)
        if isinstance(col, np.ndarray):  # the values directly: no index array per cell
            block = np.where(keep, col[:nb, None, None], col[rows]).reshape(-1)
            cols[name] = np.concatenate([block, col[:nb]])
        else:
            idx = np.where(keep, obs[:, None, None], rows).reshape(-1)
            cols[name] = _take(col, np.concatenate([idx, obs]))
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


def _ordered_sum(a: np.ndarray, axis: int) -> np.ndarray:
    """Sum over ``axis`` adding the slices in index order: every row gets the same operations
    in the same order, so identical rows give identical sums wherever they sit in the array
    (numpy's reductions may group a row's terms by its memory alignment)."""
    acc = np.take(a, 0, axis=axis).copy()
    for j in range(1, a.shape[axis]):
        acc += np.take(a, j, axis=axis)
    return acc


def averaged_loss(
    loss: Loss, correction: str, y: np.ndarray, preds: np.ndarray, classes: Any
) -> np.ndarray:
    """Estimate ``loss(E[p], y)`` per row from draws ``preds`` of shape (n, s) or (n, s, k).

    Rows with identical draws get bit-identical estimates (ordered sums), so a feature the
    model ignores changes no coalition's loss at all.
    """
    n, s = preds.shape[:2]
    mean = _ordered_sum(preds, 1) / s
    base = loss(y, mean, classes)
    if correction == "variance" and s >= 2:
        var = _ordered_sum((preds - mean[:, None]) ** 2, 1) / ((s - 1) * s)
        if var.ndim == 2:
            total = _ordered_sum(var, 1)
            var = total if _VARIANCE_LOSSES[loss.name] == "sum" else total / var.shape[1]
        return base - var
    if correction == "jackknife" and s >= 2:
        loo = (s * mean[:, None] - preds) / (s - 1)  # leave-one-out means, (n, s[, k])
        y_rep = np.repeat(np.asarray(y), s, axis=0)
        flat = loo.reshape((n * s,) + loo.shape[2:])
        loo_loss = loss(y_rep, flat, classes).reshape(n, s)
        return s * base - (s - 1) * (_ordered_sum(loo_loss, 1) / s)
    return base


def masked_losses(
    model: Model,
    loss: Loss,
    correction: str,
    table: Table,
    y: np.ndarray,
    n_coalitions: int,
    n_samples: int,
    *,
    batch_rows: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate a :func:`masked_table` in one batched model call and estimate its losses.

    Returns
    -------
    est : ndarray of shape (n, n_coalitions)
        Estimates of ``loss(E[f(x_S, X')], y)`` for each coalition, from the ``n_samples``
        draws with ``correction``.
    full_loss : ndarray of shape (n,)
        ``loss(f(x), y)`` (computed as the average of ``n_samples`` copies of ``f(x)``, like
        the other coalitions: equal to it up to rounding).
    full_pred : ndarray of shape (n,) or (n, k)
        The model's predictions ``f(x)``.
    """
    nb = len(y)
    pred = positive_column(model.predict(table, batch_rows=batch_rows), loss, model)
    classes = model.classes_
    n_inner = nb * n_coalitions * n_samples
    inner = pred[:n_inner].reshape((nb * n_coalitions, n_samples) + pred.shape[1:])
    full_pred = pred[n_inner:]
    y_arr = np.asarray(y)
    y_rep = np.repeat(y_arr, n_coalitions, axis=0)
    est = averaged_loss(loss, correction, y_rep, inner, classes).reshape(nb, n_coalitions)
    # the full coalition through the same arithmetic as the others (its s draws are all f(x)),
    # so a coalition that differs from it only by ignored features has the same loss exactly
    same = np.repeat(full_pred[:, None], n_samples, axis=1)
    return est, averaged_loss(loss, correction, y_arr, same, classes), full_pred


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
    est, full_loss, full_pred = masked_losses(
        model, loss, correction, table, y, n_players - k_start, s, batch_rows=batch_rows
    )
    return order_losses(est, full_loss, model, loss, y, empty_pred), full_pred


def order_losses(
    est: np.ndarray, full_loss: np.ndarray, model: Model, loss: Loss, y: np.ndarray,
    empty_pred: np.ndarray | None,
) -> np.ndarray:
    """The losses along each order, shape (n, G + 1): column 0 the empty coalition (exact
    from ``empty_pred`` when given, else estimated in ``est``), the coalitions' estimates
    ``est`` (n, G or G - 1), and the full model's loss ``full_loss`` (n,) last."""
    nb, n_players = est.shape[0], est.shape[1] + (0 if empty_pred is None else 1)
    k_start = 0 if empty_pred is None else 1
    losses = np.empty((nb, n_players + 1))
    losses[:, k_start:n_players] = est
    if empty_pred is not None:
        const = np.broadcast_to(empty_pred, (nb,) + np.shape(empty_pred))
        losses[:, 0] = loss(np.asarray(y), np.ascontiguousarray(const), model.classes_)
    losses[:, n_players] = full_loss
    return losses


def contributions(losses: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Marginal contributions ``l(S_{k-1}) - l(S_k)`` placed at player ``orders[:, k-1]``."""
    scores = np.empty(orders.shape)
    np.put_along_axis(scores, orders, losses[:, :-1] - losses[:, 1:], axis=1)
    return scores
