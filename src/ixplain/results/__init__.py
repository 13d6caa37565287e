"""Typed result objects with documented shapes, ``to_frame()`` and ``to_dict()``."""

from .partial_dependence import PartialDependence

# ``importance.py`` (FeatureImportance and its stream time series) comes from branch ``ipfi``;
# the lead adds its import here when merging.

__all__ = ["PartialDependence"]
