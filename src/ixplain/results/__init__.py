"""Typed result objects with documented shapes, ``to_frame()`` and ``to_dict()``."""

from .ale import AccumulatedLocalEffects
from .drift import DriftExplanation
from .hstatistic import HStatistic
from .importance import FeatureImportance, ImportanceTimeSeries
from .interactions import InteractionTimeSeries, ShapleyInteractions
from .partial_dependence import PartialDependence

__all__ = [
    "AccumulatedLocalEffects",
    "DriftExplanation",
    "FeatureImportance",
    "HStatistic",
    "ImportanceTimeSeries",
    "InteractionTimeSeries",
    "PartialDependence",
    "ShapleyInteractions",
]
