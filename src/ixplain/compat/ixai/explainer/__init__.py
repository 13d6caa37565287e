"""ixai's explainers (``ixai.explainer``) on ixplain's engine."""

from .pdp import IncrementalPDP
from .pfi import IncrementalPFI
from .sage import BatchSage, IncrementalSage, IntervalSage

__all__ = [
    "BatchSage",
    "IncrementalPDP",
    "IncrementalPFI",
    "IncrementalSage",
    "IntervalSage",
]
