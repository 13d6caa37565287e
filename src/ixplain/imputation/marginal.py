"""Marginal (interventional) removal: the removed block taken from one row of the data.

The removed cells of a query row all come from one donor row drawn uniformly from the fitted
data, whatever the kept features hold: the block keeps its joint distribution but loses its
dependence on the kept features (the model is evaluated off the data when features are
correlated). This is what every ixplain method does by default (``removal="marginal"``); the
methods keep their own, equivalent, draws for it, so their marginal results are unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._random import uniform_index
from ..tabular import Table, as_table
from .base import Removal
from .conditional import _Encoder

__all__ = ["MarginalRemoval"]


class MarginalRemoval(Removal):
    """One uniformly drawn donor row fills the whole removed block (one uniform per query).

    Attributes
    ----------
    n_rows_ : int
    data_ : Table

    References
    ----------
    D. Janzing, L. Minorics, P. Bloebaum, "Feature relevance quantification in explainable AI:
    a causal problem", AISTATS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> m = MarginalRemoval().fit(np.arange(10.0).reshape(5, 2))
    >>> removed = np.array([[True, True], [False, True]])
    >>> m.donors(m.encode(m.data_), np.array([0, 1]), removed, np.array([[0.5], [0.99]]))
    array([[ 2,  2],
           [-1,  4]])
    """

    name = "marginal"

    def fit(self, data: Any) -> MarginalRemoval:
        """Keep ``data`` (array, DataFrame, records or Table) as the donors."""
        table = data if isinstance(data, Table) else as_table(data, owner="MarginalRemoval")
        if table.n_rows < 1:
            raise ValueError("MarginalRemoval.fit needs at least 1 row; got 0.")
        self.data_ = table
        self.n_rows_ = table.n_rows
        self._encoder = _Encoder(table)
        return self

    def width(self, d: int) -> int:
        """One uniform per query."""
        return 1

    def encode(self, data: Any) -> np.ndarray:
        """``data`` as a float64 matrix (categorical levels as codes)."""
        return self._encoder(data)

    def donors(self, X: np.ndarray, rows: np.ndarray, removed: np.ndarray, u: np.ndarray,
               exclude: np.ndarray | None = None) -> np.ndarray:
        """The same uniformly drawn row for every removed cell of a query (never ``exclude``)."""
        n = self.n_rows_
        if exclude is None or n < 2:
            r = uniform_index(u[:, 0], n)
        else:
            ex = np.asarray(exclude, dtype=np.intp)
            r = uniform_index(u[:, 0], np.where(ex >= 0, n - 1, n))
            r = r + ((ex >= 0) & (r >= ex))
        return np.where(removed, r[:, None], -1).astype(np.intp)
