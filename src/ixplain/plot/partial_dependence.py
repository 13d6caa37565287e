"""Partial dependence plots (placeholder until the Display lands)."""

from __future__ import annotations


class PartialDependenceDisplay:
    """Partial dependence / ICE plot (in progress)."""
