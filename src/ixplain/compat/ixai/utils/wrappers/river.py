"""ixai's ``RiverWrapper`` and ``RiverMetricToLossFunction``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Wrapper

__all__ = ["RiverMetricToLossFunction", "RiverWrapper"]


class RiverWrapper(Wrapper):
    """A River prediction function (``model.predict_one`` or ``model.predict_proba_one``)
    with ixai's output dict.

    Called on a record, returns ``{"output": value}`` for a number, the model's own
    ``{label: probability}`` for a dict, and ``{label: 1.0, other seen labels: 0.0}`` for a
    label that is not a number; on a list of records, a list of those. Given to an explainer
    of :mod:`ixplain.compat.ixai`, the bound method itself is used (ixplain calls the model's
    batch path).

    Parameters
    ----------
    prediction_function : callable
        ``model.predict_one``, ``model.predict_proba_one`` or a per-row function of a dict.

    Examples
    --------
    >>> f = RiverWrapper(lambda x: 2 * x["a"])
    >>> f({"a": 1.5}), f([{"a": 1}, {"a": 2}])
    ({'output': 3.0}, [{'output': 2.0}, {'output': 4.0}])
    """

    def __init__(self, prediction_function: Any) -> None:
        super().__init__(prediction_function, None)
        self._seen_labels: list[Any] = []

    def _one(self, x: Mapping) -> dict:
        out = self._prediction_function(x)
        if isinstance(out, Mapping):
            return dict(out)
        try:
            return {self.default_label: float(out)}
        except (TypeError, ValueError):
            if out not in self._seen_labels:
                self._seen_labels.append(out)
            return {label: float(label == out) for label in self._seen_labels}

    def __call__(self, x: Any) -> Any:
        """ixai's output dict for a record, or a list of them for a list of records."""
        if isinstance(x, Mapping):
            return self._one(x)
        return [self._one(row) for row in x]


class RiverMetricToLossFunction:
    """A River metric as ixai's per-row loss ``loss(y_true, y_prediction: dict)``.

    The metric's value on one observation, negated for a metric where bigger is better
    (``Accuracy`` gives -1 for a hit, 0 for a miss). ``dict_input_metric=False`` reads the
    prediction's ``"output"`` entry (``MAE``, ``Accuracy``); True passes the dict
    (``CrossEntropy``).

    Parameters
    ----------
    river_metric : river.metrics.base.Metric
    dict_input_metric : bool, default=False

    Examples
    --------
    >>> from river import metrics
    >>> loss = RiverMetricToLossFunction(metrics.MAE())
    >>> loss(1.0, {"output": 3.0})
    2.0
    """

    def __init__(self, river_metric: Any, dict_input_metric: bool = False) -> None:
        if not hasattr(river_metric, "clone") or not hasattr(river_metric, "update"):
            raise TypeError(
                "The 'river_metric' parameter of RiverMetricToLossFunction must be a River "
                f"metric. Got {river_metric!r} instead."
            )
        self._river_metric = river_metric
        self._dict_input_metric = bool(dict_input_metric)
        self._sign = -1.0 if getattr(river_metric, "bigger_is_better", False) else 1.0

    def __call__(self, y_true: Any, y_prediction: Mapping) -> float:
        """The loss of one prediction.

        Raises
        ------
        KeyError
            If a single-value metric gets a prediction without an ``"output"`` entry.
        """
        if not self._dict_input_metric:
            if _missing_output(y_prediction):
                raise KeyError(
                    f"RiverMetricToLossFunction: a single-value metric needs the prediction's "
                    f"'output' entry; got {y_prediction!r}."
                )
            y_prediction = y_prediction["output"]
        metric = self._river_metric.clone()
        metric.update(y_true, y_prediction)
        return self._sign * float(metric.get())


def _missing_output(y_prediction: Any) -> bool:
    """Whether a single-value prediction lacks its ``"output"`` entry."""
    return not isinstance(y_prediction, Mapping) or "output" not in y_prediction
