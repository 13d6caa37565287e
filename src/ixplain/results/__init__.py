"""Typed result objects with documented shapes, ``to_frame()`` and ``to_dict()``."""

from .importance import FeatureImportance, ImportanceTimeSeries
from .partial_dependence import PartialDependence

__all__ = ["FeatureImportance", "ImportanceTimeSeries", "PartialDependence"]
