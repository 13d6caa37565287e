"""ixai's ``SklearnWrapper``."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .base import Wrapper, reordered

__all__ = ["SklearnWrapper"]


class SklearnWrapper(Wrapper):
    """A scikit-learn prediction function (``model.predict``, ``model.predict_proba``) with
    ixai's per-row contract: a record (dict) in, ``{"output": value}`` or
    ``{0: p_0, 1: p_1, ...}`` out; a list of records gives a list.

    Records become arrays in ``feature_names`` order (default: each record's key order).
    Given to an explainer of :mod:`ixplain.compat.ixai`, the estimator's own method is called
    on whole batches.

    Parameters
    ----------
    prediction_function : callable
        The estimator's ``predict`` / ``predict_proba`` (or any function of a 2-D array).
    feature_names : sequence, optional
        Which record keys, in which order, make the array's columns.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> model = LinearRegression().fit(np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]),
    ...                                np.array([1.0, 2.0, 3.0]))
    >>> f = SklearnWrapper(model.predict)
    >>> {k: round(v, 6) for k, v in f({"a": 2.0, "b": 0.0}).items()}
    {'output': 4.0}
    """

    def __call__(self, x: Any) -> Any:
        """ixai's output dict for a record, or a list of them for a list of records."""
        with warnings.catch_warnings():
            # an estimator fitted on a DataFrame warns about arrays without feature names
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            if isinstance(x, Mapping):
                return self.convert_arr_output_to_dict(
                    self._prediction_function(self.convert_1d_input_to_arr(x))[0]
                )
            out = self._prediction_function(self.convert_2d_input_to_arr(x))
            return [self.convert_arr_output_to_dict(row) for row in out]

    def _as_ixplain(self, feature_names: Sequence[Any] | None) -> Any:
        mine = self._feature_names
        if mine is None or feature_names is None or list(feature_names) == mine:
            return self._prediction_function
        return reordered(self._prediction_function, mine, feature_names, type(self).__name__)
