"""Typed result objects with documented shapes, ``to_frame()`` and ``to_dict()``."""

from .drift import DriftExplanation
from .importance import FeatureImportance, ImportanceTimeSeries
from .partial_dependence import PartialDependence

__all__ = ["DriftExplanation", "FeatureImportance", "ImportanceTimeSeries", "PartialDependence"]
