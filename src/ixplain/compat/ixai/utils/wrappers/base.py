"""The base of ixai's model wrappers: dict records in, ixai's output dicts out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["Wrapper"]


class Wrapper:
    """A prediction function with ixai's per-row contract (base of the wrappers).

    Parameters
    ----------
    prediction_function : callable
        The model's prediction function.
    feature_names : sequence, optional
        Column order of the arrays given to ``prediction_function`` (default: the order of
        each record's keys).

    Attributes
    ----------
    default_label : str
        The key of a single output: ``"output"``.
    """

    default_label = "output"

    def __init__(self, prediction_function: Any, feature_names: Sequence[Any] | None = None) -> None:
        if not callable(prediction_function):
            raise TypeError(
                f"The 'prediction_function' parameter of {type(self).__name__} must be callable. "
                f"Got {prediction_function!r} instead."
            )
        self._prediction_function = prediction_function
        self._feature_names = None if feature_names is None else list(feature_names)

    @property
    def prediction_function(self) -> Any:
        """The wrapped prediction function."""
        return self._prediction_function

    @property
    def feature_names(self) -> list[Any] | None:
        """The column order given at construction (None: each record's own order)."""
        return self._feature_names

    def __call__(self, x: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _row(self, x: Mapping) -> list[Any]:
        if self._feature_names is None:
            return list(x.values())
        return [x[name] for name in self._feature_names]

    def convert_1d_input_to_arr(self, x_dict: Mapping) -> np.ndarray:
        """One record as an array of shape (1, n_features), in ``feature_names`` order."""
        return np.asarray([self._row(x_dict)])

    def convert_2d_input_to_arr(self, x_dicts: Sequence[Mapping]) -> np.ndarray:
        """Records as an array of shape (n_records, n_features), in ``feature_names`` order."""
        return np.asarray([self._row(x) for x in x_dicts])

    def convert_arr_output_to_dict(self, y_prediction: Any) -> dict:
        """One row's model output as ixai's dict.

        A single number (any array of one element) gives ``{"output": float}``; several give
        ``{0: p_0, 1: p_1, ...}`` (position -> value).

        Raises
        ------
        ValueError
            If the output is not numeric.
        """
        arr = np.asarray(y_prediction)
        if arr.dtype.kind not in "biuf":
            raise ValueError(
                f"{type(self).__name__}: the model output {y_prediction!r} is not numeric; "
                "ixai's wrappers take numbers (labels as numbers, or probabilities)."
            )
        flat = arr.reshape(-1)
        if flat.size == 1:
            return {self.default_label: float(flat[0])}
        return {i: float(v) for i, v in enumerate(flat)}

    def _as_ixplain(self, feature_names: Sequence[Any] | None) -> Any:
        """What an explainer of :mod:`ixplain.compat.ixai` gives ixplain for this wrapper."""
        return self._prediction_function

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._prediction_function!r})"


def reordered(function: Any, columns: Sequence[Any], feature_names: Sequence[Any], owner: str,
              squeeze: bool = False) -> Any:
    """An ixplain model that calls ``function`` (a function of a 2-D array whose columns are
    ``columns``) on the explainer's arrays (columns in ``feature_names`` order).

    Raises
    ------
    ValueError
        If a column is not among ``feature_names``.
    """
    from .....models import as_model

    names = [str(n) for n in feature_names]
    missing = [c for c in columns if str(c) not in names]
    if missing:
        raise ValueError(
            f"{owner}: its feature_names {list(columns)} hold {missing[0]!r}, which is not among "
            f"the explainer's feature_names {list(feature_names)}."
        )
    take = np.asarray([names.index(str(c)) for c in columns], dtype=np.intp)

    def predict(X: np.ndarray) -> np.ndarray:
        out = np.asarray(function(np.asarray(X)[:, take]))
        if squeeze and out.ndim == 2 and out.shape[1] == 1:
            return out[:, 0]
        return out

    return as_model(predict, input_kind="numpy", owner=owner)
