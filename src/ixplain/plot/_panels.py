"""Panel-grid helpers shared by the multi-panel Displays (ALE; PD has its own bounding-box grid).

Kept apart from the Displays so that no Display imports another's module for its layout.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._validation import param_error
from ._axes import check_axes
from ._matplotlib import import_pyplot

__all__ = ["layout", "panel_entries", "tick_label"]


def panel_entries(features: Any, owner: str) -> list[tuple[Any, ...]]:
    """``features`` -> one tuple of 1 or 2 features per panel.

    Raises
    ------
    ValueError
        If an entry is neither a feature nor a pair of features, or ``features`` is empty.
    """
    if isinstance(features, (str, numbers.Integral)):
        return [(features,)]
    entries = []
    for item in features:
        if isinstance(item, (str, numbers.Integral)):
            entries.append((item,))
        elif isinstance(item, (tuple, list)) and len(item) in (1, 2):
            entries.append(tuple(item))
        else:
            raise param_error(owner, "features", "a list of features or pairs of features", features)
    if not entries:
        raise param_error(owner, "features", "a non-empty list of features", features)
    return entries


def layout(n_panels: int, n_cols: int, ax: Any, owner: str) -> tuple[Any, np.ndarray]:
    """The figure and a 2-D array of Axes holding at least ``n_panels`` panels.

    ``ax=None`` makes a new figure with ``n_cols`` columns (extra cells hidden); otherwise ``ax``
    must hold exactly one Axes per panel (a 1-D sequence becomes one row).
    """
    plt = import_pyplot()
    if ax is None:
        n_cols = min(n_cols, n_panels)
        n_rows = math.ceil(n_panels / n_cols)
        fig, axes = plt.subplots(
            n_rows, n_cols, figsize=(4.0 * n_cols, 3.2 * n_rows), squeeze=False,
            constrained_layout=True,
        )
        for extra in axes.ravel()[n_panels:]:
            extra.set_visible(False)
        return fig, axes
    axes = given_axes(ax, n_panels, owner)
    return axes.ravel()[0].figure, axes.reshape(1, -1) if axes.ndim == 1 else axes


def given_axes(ax: Any, n_panels: int, owner: str, sklearn_words: bool = False) -> np.ndarray:
    """The user's ``ax`` (one Axes per panel, any shape) as an object array of that shape.

    Raises
    ------
    TypeError
        For an item that is not a matplotlib Axes (:func:`~ixplain.plot._axes.check_axes`).
    ValueError
        When ``ax`` does not hold exactly ``n_panels`` Axes; ``sklearn_words`` adds
        scikit-learn's own sentence (the PD Display is its drop-in).
    """
    axes = np.atleast_1d(np.asarray(ax, dtype=object))
    for one in axes.ravel():
        check_axes(one)
    if axes.size != n_panels:
        echo = (f" (Expected ax to have {n_panels} axes, got {axes.size})" if sklearn_words
                else "")
        raise ValueError(
            f"The 'ax' parameter of {owner} must hold one Axes per panel ({n_panels}). "
            f"Got {axes.size} Axes instead{echo}."
        )
    return axes


def tick_label(value: Any) -> str:
    """A short tick label: floats to 3 significant digits, anything else as ``str``."""
    if isinstance(value, (float, np.floating)):
        return f"{value:.3g}"
    return str(value)
