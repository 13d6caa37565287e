"""Typed result objects with documented shapes, ``to_frame()`` and ``to_dict()``."""

from .importance import FeatureImportance, ImportanceTimeSeries
from .interactions import InteractionTimeSeries, ShapleyInteractions
from .partial_dependence import PartialDependence

__all__ = [
    "FeatureImportance",
    "ImportanceTimeSeries",
    "InteractionTimeSeries",
    "PartialDependence",
    "ShapleyInteractions",
]
