"""A static dataset as perturbation data."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tabular import as_table
from .base import SlotStorage

__all__ = ["DatasetStorage"]


class DatasetStorage(SlotStorage):
    """A fixed dataset used as perturbation data; :meth:`update` leaves it unchanged.

    With ``aggregation='mean'`` an incremental explainer using this storage estimates the same
    quantity as the static explainer on ``X`` (the central invariant of ixplain).

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features), DataFrame or list of dict
        The data, copied once (numeric columns as float64, categorical as object).
    feature_names : sequence of str, optional
        Names for array columns.

    Examples
    --------
    >>> import numpy as np
    >>> d = DatasetStorage(np.arange(6.0).reshape(3, 2))
    >>> len(d), d.size
    (3, 3)
    >>> d.update(np.array([9.0, 9.0])); len(d)
    3
    """

    _owner = "DatasetStorage"

    def __init__(self, X: Any, feature_names: Any = None) -> None:
        table = as_table(X, feature_names, owner=self._owner)
        if table.n_rows == 0:
            raise ValueError("DatasetStorage got an empty dataset (0 rows).")
        super().__init__(table.n_rows, random_state=0)
        self._init_buffers(table.schema)
        num, cat = self._blocks(self._columns_for(table))
        self._num[:] = num
        self._cat[:] = cat
        self._len = table.n_rows

    def _plan(self, n: int) -> np.ndarray:
        return np.full(n, -1, dtype=np.intp)
