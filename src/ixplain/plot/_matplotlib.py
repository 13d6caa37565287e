"""Lazy matplotlib import with an install hint (plots are an optional extra)."""

from __future__ import annotations

from typing import Any


def import_pyplot() -> Any:
    """Return ``matplotlib.pyplot``; ``ImportError`` with the install hint if it is missing."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised only without matplotlib
        raise ImportError(
            "Plotting needs matplotlib: pip install 'ixplain[plot]' (or pip install matplotlib)."
        ) from exc
    return plt
