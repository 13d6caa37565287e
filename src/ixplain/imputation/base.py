"""The removal protocol: how the features outside a kept set are replaced.

A method that removes features (PFI, SAGE, their incremental forms, the interaction methods)
evaluates the model on rows ``x`` whose *removed* cells (a block ``J``, the complement of the
kept set ``S``) hold imputed values. A :class:`Removal` answers one question for a batch of
query rows: *which observed value fills each removed cell?* It names, per cell, the *donor*:
the row of its fitted data whose value of that column is used. Kept cells keep their own value.

``fit(data)``
    Learn from a table of observed rows (the donors).
``donors(X, rows, removed, u, exclude=None) -> (Q, d) int``
    For query ``q`` (row ``rows[q]`` of the encoded matrix ``X``, removed mask ``removed[q]``,
    uniforms ``u[q]`` of width :meth:`width`), the donor row of every removed cell (``-1`` for
    kept cells). ``exclude[q]``: a donor row never used for query ``q`` (the row itself, when
    the data explained is the data fitted), or ``-1``.
``width(d) -> int``
    Uniforms a query needs. All randomness comes from ``u``, which callers take from
    :mod:`ixplain._random` keyed by what is explained (row, repeat, group), so the result does
    not depend on batching or chunking.

Two implementations: :class:`~ixplain.imputation.marginal.MarginalRemoval` (one donor row for
the whole block, drawn uniformly: the interventional reading, today's behaviour) and
:class:`~ixplain.imputation.conditional.ConditionalSampler` (the block drawn by the chain rule
from the conditional distribution given the kept features: the observational reading).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_options

__all__ = ["REMOVALS", "Removal", "check_removal"]

#: The values of every ``removal`` parameter.
REMOVALS = ("marginal", "conditional")


def check_removal(removal: Any, owner: str) -> str:
    """Validate a ``removal`` parameter (``"marginal"`` or ``"conditional"``).

    Raises
    ------
    ValueError
        With the project's message, e.g. "The 'removal' parameter of sage must be one of ...".
    """
    return str(check_options(removal, "removal", owner, REMOVALS))


class Removal:
    """Base class of the removal strategies (see the module docstring for the contract).

    Attributes
    ----------
    n_rows_ : int
        Rows of the fitted data (donor ids are in ``[0, n_rows_)``).
    """

    name = "removal"
    n_rows_: int = 0

    def fit(self, data: Any) -> Removal:  # pragma: no cover - abstract
        """Learn from ``data`` (a :class:`~ixplain.Table` of observed rows); returns self."""
        raise NotImplementedError

    def width(self, d: int) -> int:  # pragma: no cover - abstract
        """Uniforms per query row for ``d`` features."""
        raise NotImplementedError

    def donors(
        self,
        X: np.ndarray,
        rows: np.ndarray,
        removed: np.ndarray,
        u: np.ndarray,
        exclude: np.ndarray | None = None,
    ) -> np.ndarray:  # pragma: no cover - abstract
        """Donor row of every removed cell, shape (Q, d); ``-1`` where the cell is kept."""
        raise NotImplementedError

    def encode(self, data: Any) -> np.ndarray:  # pragma: no cover - abstract
        """The float64 matrix ``donors`` reads (categorical levels as codes)."""
        raise NotImplementedError
