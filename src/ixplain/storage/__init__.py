"""Storages of perturbation data for explainers: bounded, numpy-backed, mixed column kinds.

See :mod:`ixplain.storage.base` for the protocol.
"""

from .base import SlotStorage
from .dataset import DatasetStorage
from .geometric import GeometricReservoir
from .uniform import UniformReservoir
from .window import SlidingWindow

__all__ = [
    "DatasetStorage",
    "GeometricReservoir",
    "SlidingWindow",
    "SlotStorage",
    "UniformReservoir",
]
