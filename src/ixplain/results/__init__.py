"""Result objects: typed arrays with documented shapes, ``to_frame()`` and ``to_dict()``."""

# partial_dependence.py (PartialDependence) comes from branch `pdp`; the lead merges both here.
from .importance import FeatureImportance, ImportanceTimeSeries

__all__ = ["FeatureImportance", "ImportanceTimeSeries"]
