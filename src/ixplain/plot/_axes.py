"""Layout helpers shared by the Displays: where to draw, and colours for a sequence over time."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._matplotlib import import_pyplot

__all__ = ["axes_for", "time_colors"]


def axes_for(ax: Any = None, *, figsize: tuple[float, float] | None = None) -> tuple[Any, Any]:
    """``(figure, axes)``: the given axes and its figure, or a new single-axes figure."""
    if ax is not None:
        return ax.figure, ax
    plt = import_pyplot()
    fig, new_ax = plt.subplots(figsize=figsize)
    return fig, new_ax


def time_colors(n: int, cmap: str = "Blues", low: float = 0.25) -> np.ndarray:
    """``n`` RGBA colours from light (oldest) to dark (newest) along ``cmap``.

    Examples
    --------
    >>> c = time_colors(3)
    >>> c.shape, bool(c[0, :3].sum() > c[-1, :3].sum())
    ((3, 4), True)
    """
    import matplotlib

    colormap = matplotlib.colormaps[cmap]
    positions = np.linspace(low, 1.0, n) if n > 1 else np.array([1.0])
    return np.asarray(colormap(positions))
