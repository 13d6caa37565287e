"""ixai's model wrappers (``ixai.utils.wrappers``): a prediction function made into ixai's
per-row contract ``f(x: dict) -> dict`` (``{"output": value}`` for one output,
``{label: probability}`` for several).

Given to an explainer of :mod:`ixplain.compat.ixai`, a wrapper is unwrapped: ixplain calls the
model's own batch path (``predict_many`` / ``predict`` on arrays), not the wrapper row by row.
``TorchWrapper`` needs PyTorch, imported when a wrapper is made.
"""

from .base import Wrapper
from .river import RiverMetricToLossFunction, RiverWrapper
from .sklearn import SklearnWrapper
from .torch import TorchWrapper

__all__ = [
    "RiverMetricToLossFunction",
    "RiverWrapper",
    "SklearnWrapper",
    "TorchWrapper",
    "Wrapper",
]
