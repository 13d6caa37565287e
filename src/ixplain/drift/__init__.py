"""Explanation-based drift detection (see :class:`ExplanationDriftDetector`; the test protocol
and the event type are in :mod:`ixplain.drift.base`)."""

from ._incidents import Incident, IncidentFeature
from .base import ADWINTest, ChangeTest, CUSUMTest, DriftEvent, KSWINTest, PageHinkleyTest
from .detector import ExplanationDriftDetector

__all__ = [
    "ADWINTest",
    "CUSUMTest",
    "ChangeTest",
    "DriftEvent",
    "ExplanationDriftDetector",
    "Incident",
    "IncidentFeature",
    "KSWINTest",
    "PageHinkleyTest",
]
