"""Names for the arrays that recur across ixplain, with their shapes.

These are documentation-carrying aliases (all ``numpy.ndarray`` at run time).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

#: ndarray of shape (n_rows,) or (n_rows, n_outputs): a model's batched output.
Predictions: TypeAlias = npt.NDArray[Any]
#: ndarray of shape (n_grid,): the values one feature takes in a partial dependence grid.
Grid: TypeAlias = npt.NDArray[Any]
#: ndarray of shape (n_features,) or (n_features, n_repeats): importance values.
Importances: TypeAlias = npt.NDArray[np.float64]
#: ndarray of shape (n_rows,): non-negative row weights.
SampleWeight: TypeAlias = npt.NDArray[np.float64]
#: ndarray of shape (n_rows,): per-row losses.
Losses: TypeAlias = npt.NDArray[np.float64]
#: Anything a user may pass as data: a 2-D ndarray, a pandas or polars DataFrame, a list of dict
#: records (River style) or a single dict record.
DataLike: TypeAlias = Any
