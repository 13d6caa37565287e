"""Model adapters: every model evaluation in ixplain goes through :class:`Model.predict`.

Use :func:`as_model` to wrap scikit-learn estimators and pipelines, LightGBM/XGBoost models,
River models and plain callables.
"""

from .adapters import BoosterModel, CallableModel, RiverModel, SklearnModel, as_model
from .base import (
    CALL_ROWS,
    DEFAULT_MEMORY_BUDGET,
    MIN_MEMORY_BUDGET,
    Model,
    call_rows,
    rows_for_budget,
)

__all__ = [
    "CALL_ROWS",
    "DEFAULT_MEMORY_BUDGET",
    "MIN_MEMORY_BUDGET",
    "BoosterModel",
    "CallableModel",
    "Model",
    "RiverModel",
    "SklearnModel",
    "as_model",
    "call_rows",
    "rows_for_budget",
]
