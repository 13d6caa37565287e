"""Typed result objects with documented shapes, ``to_frame()`` and ``to_dict()``."""

from .hstatistic import HStatistic
from .importance import FeatureImportance, ImportanceTimeSeries
from .partial_dependence import PartialDependence

__all__ = ["FeatureImportance", "HStatistic", "ImportanceTimeSeries", "PartialDependence"]
