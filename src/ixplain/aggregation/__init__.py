"""Aggregators of explanation values: running mean (Welford, mergeable) and exponential smoothing.

See :mod:`ixplain.aggregation.base` for the protocol.
"""

from .base import Aggregator
from .ewmean import EWMean
from .mean import Mean

__all__ = ["Aggregator", "EWMean", "Mean"]
