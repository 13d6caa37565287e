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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..losses import Loss, get_loss
from ..methods._engine import explain_rows
from ..methods.pfi import BackgroundPFI
from ..methods.sage import SAGEFunction, _background_table, resolve_draws
from ..models import Model
from ..tabular import Table

__all__ = ["Side", "pfi_rows", "sage_rows"]

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


def label_free_loss() -> Loss:
    """Squared error against the model's own prediction: ``(f(x~) - f(x))^2``."""
    return get_loss("squared_error", _OWNER)


def pfi_rows(side: Side, loss: Loss, groups: Sequence[Sequence[str]], n_repeats: int,
             seed: int) -> np.ndarray:
    """Per-row PFI values ``lambda(x_i, y_i, S_g)`` of one side, shape (n_rows, n_groups).

    Row ``i``'s value for group ``g`` is the mean over ``n_repeats`` draws of
    ``loss(y_i, f(x_i with S_g := x_r)) - loss(y_i, f(x_i))`` with ``x_r`` a row of the side
    drawn uniformly with row ``i``'s keyed uniforms (the iPFI's background form of PFI).

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
    ndarray of shape (n_rows, n_groups)
    """
    fn = BackgroundPFI(side.model, loss, groups, side.table, n_repeats, seed)
    explained = explain_rows(fn, side.table, side.y, keep_values=True)
    assert explained.values is not None
    return np.asarray(explained.values[:, :, 0], dtype=np.float64)


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
