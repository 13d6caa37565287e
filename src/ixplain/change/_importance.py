"""Per-row PFI and SAGE values of one side, with random numbers keyed by (seed, row).

Both sides are explained by the engine's method objects
(:class:`~ixplain.methods.pfi.BackgroundPFI`, :class:`~ixplain.methods.sage.SAGEFunction`) run
by the static driver :func:`~ixplain.methods._engine.explain_rows` with the per-row values
kept. Those objects read row ``t``'s random numbers from streams keyed by ``(seed, t)``: given
the same seed, two models explained on the same rows see the same replacement rows (PFI), the
same orders and background draws (SAGE) -- common random numbers -- so the per-row
differences are paired and their spread is the change's, not two runs' noise. On two datasets
the same seed gives each side's row ``t`` the same uniforms, mapped to that side's rows.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._random import RowStream, uniform_index
from ..losses import Loss, get_loss
from ..methods._engine import explain_rows
from ..methods.pfi import BackgroundPFI
from ..methods.sage import SAGEFunction, _background_table, resolve_draws
from ..models import Model
from ..tabular import Table
from ._stats import Draws

__all__ = ["Side", "label_free_side", "pfi_rows", "pfi_values", "sage_rows"]

_OWNER = "compare"


@dataclass
class Side:
    """One side of a comparison: a model adapter, its rows and the labels the loss uses.

    ``y`` holds the model's own predictions in label-free mode (the loss is then the squared
    change of the prediction).
    """

    model: Model
    table: Table
    y: np.ndarray

    @property
    def n_rows(self) -> int:
        """Rows of the side."""
        return self.table.n_rows


def label_free_side(model: Model, table: Table) -> Side:
    """A side whose labels are the model's own predictions (label-free mode).

    The adapter is a shallow copy that skips the label check: a classifier's adapter refuses
    continuous labels, and here the "labels" are its probabilities."""
    y = np.asarray(model.predict(table), dtype=np.float64)
    quiet = copy.copy(model)
    quiet.observe_labels = _no_labels  # type: ignore[method-assign]
    return Side(quiet, table, y)


def _no_labels(y: Any) -> None:
    return None


def label_free_loss() -> Loss:
    """Squared error against the model's own prediction: ``(f(x~) - f(x))^2``."""
    return get_loss("squared_error", _OWNER)


def pfi_rows(side: Side, loss: Loss, groups: Sequence[Sequence[str]], n_repeats: int,
             seed: int) -> tuple[np.ndarray, Draws]:
    """Per-row PFI influence values of one side, shape (n_rows, n_groups), and their draws:
    the values' mean is PFI,
    their spread over the rows gives its standard error.

    Row ``i``'s explanation value for group ``g`` is ``lambda_i``, the mean over
    ``n_repeats`` draws of ``loss(y_i, f(x_i with S_g := x_r)) - loss(y_i, f(x_i))`` with
    ``x_r`` a row of the side drawn uniformly with row ``i``'s keyed uniforms (the iPFI's
    background form of PFI). Because the replacement rows come from the same sample, every row
    enters the mean twice: as the explained row and as the replacement of others (a
    V-statistic). Its first-order (Hajek) projection is ``h1(x_k) + h2(x_k)``, so the values
    returned are ``psi_k = lambda_k + rho_k - mean(rho)`` with ``rho_k`` the mean loss increase
    of the draws where row ``k`` was the replacement (``mean(rho)`` where it never was). The
    mean of ``psi`` is the PFI estimate exactly; ``var(psi) / n`` includes the replacement
    rows' part (the plain ``var(lambda) / n`` misses it and understates the standard error by
    ~1.5x for a label-free linear model) but counts each draw's own noise twice (~1.25x too
    wide an error on a labelled paired delta). The standard errors therefore come from the
    draws themselves: they are returned next to ``psi``
    (:class:`~ixplain.change._stats.Draws`, for the change statistics' ``draws=``, which use
    :func:`~ixplain.change._stats.two_role_variance`: derivation there); ``psi`` serves the
    ranking bootstrap and the explanation-shift test.

    Parameters
    ----------
    side : Side
    loss : Loss
    groups : sequence of lists of feature names
    n_repeats : int
        Replacement draws per row and group.
    seed : int
        Root seed; equal seeds give equal draws for equal row positions.

    Returns
    -------
    psi : ndarray of shape (n_rows, n_groups)
    draws : Draws
        The draws and replacement rows, shape (n_rows, n_groups, n_repeats) each
        (:func:`pfi_values`).
    """
    fn = BackgroundPFI(side.model, loss, groups, side.table, n_repeats, seed)
    explained = explain_rows(fn, side.table, side.y, keep_values=True)
    assert explained.values is not None
    return pfi_values(explained.values, seed)


def pfi_values(values: np.ndarray, seed: int) -> tuple[np.ndarray, Draws]:
    """The per-row values of :func:`pfi_rows` from BackgroundPFI's kept values on a side's
    own rows (``compare`` and ``compare_dask`` both build them here).

    Parameters
    ----------
    values : ndarray of shape (n_rows, n_groups, 1 + n_repeats)
        Each row's mean loss increase, then its draws (the background is the ``n_rows`` rows).
    seed : int
        The seed the draws were keyed with.

    Returns
    -------
    psi : ndarray of shape (n_rows, n_groups)
        The per-row values.
    draws : Draws
        The draws and their replacement rows, shape (n_rows, n_groups, n_repeats) each, from
        which :func:`~ixplain.change._stats.paired_change` and
        :func:`~ixplain.change._stats.independent_change` take the standard error when given
        as ``draws=`` (:func:`~ixplain.change._stats.two_role_variance`).
    """
    v = np.asarray(values, dtype=np.float64)
    n, G, R = v.shape[0], v.shape[1], v.shape[2] - 1
    # BackgroundPFI's replacement rows (keyed by row, so drawn alike for the whole table)
    u = RowStream(seed, "pfi_background", G * R).uniforms(0, n)
    repl = uniform_index(u, n).reshape(n, G, R)
    draws = v[:, :, 1:]
    return v[:, :, 0] + replacement_role(draws, repl), Draws(draws, repl)


def replacement_role(draws: np.ndarray, repl: np.ndarray) -> np.ndarray:
    """``rho_k - mean(rho)`` per row and group, shape (n, G): ``rho_k`` the mean of the draws
    (n, G, R) whose replacement row (``repl``, same shape) was ``k``; rows never drawn get the
    mean of the others."""
    n, G, _ = draws.shape
    out = np.empty((n, G))
    for g in range(G):
        idx = repl[:, g, :].ravel()
        counts = np.bincount(idx, minlength=n)
        sums = np.bincount(idx, weights=draws[:, g, :].ravel(), minlength=n)
        used = counts > 0
        rho = np.where(used, sums / np.maximum(counts, 1), 0.0)
        rho[~used] = rho[used].mean() if used.any() else 0.0
        out[:, g] = rho - rho.mean()
    return out


def sage_background(table: Table, seed: int) -> Table:
    """SAGE's background rows of a side: 512 rows drawn with the seed (all when fewer)."""
    return _background_table(None, table, seed, _OWNER)


def sage_rows(side: Side, loss: Loss, players: list[str], col_player: np.ndarray,
              n_samples: Any, seed: int) -> np.ndarray:
    """Per-row SAGE marginal contributions of one side, shape (n_rows, n_players).

    Row ``t`` gets one random order and ``n_samples`` background draws (as
    :class:`~ixplain.methods.sage.SAGEFunction` keys them: by ``seed`` and the row's position),
    so the mean over the rows is SAGE with one order per row, without the control variate
    (the per-row values stay paired; the control variate is a global correction).

    Parameters
    ----------
    side : Side
    loss : Loss
    players : list of str
    col_player : ndarray of shape (n_features,)
        The player of every column.
    n_samples : int, None or "auto"
        As :func:`ixplain.sage`'s.
    seed : int

    Returns
    -------
    ndarray of shape (n_rows, n_players)

    References
    ----------
    Covert, I., Lundberg, S., Lee, S.-I. "Understanding Global Feature Contributions With
    Additive Importance Measures." NeurIPS 2020.
    """
    bg = sage_background(side.table, seed)
    s, exact, _ = resolve_draws(n_samples, loss, "marginal", side.table, None, bg, _OWNER)
    fn = SAGEFunction(side.model, loss, bg, col_player, players, s, exact, seed,
                      side.table.n_rows, control_variate=False)
    explained = explain_rows(fn, side.table, side.y, keep_values=True)
    assert explained.values is not None
    return np.asarray(explained.values[:, : len(players)], dtype=np.float64)
