"""Layout helpers shared by the Displays: where to draw, and colours for a sequence over time."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._matplotlib import import_pyplot

__all__ = ["axes_for", "check_axes", "check_plot_input", "time_colors"]


def axes_for(ax: Any = None, *, figsize: tuple[float, float] | None = None,
             layout: str | None = None) -> tuple[Any, Any]:
    """``(figure, axes)``: the given axes and its figure, or a new single-axes figure (with
    matplotlib's ``layout`` engine, e.g. ``"constrained"`` to fit long tick labels; a given
    ``ax``'s figure is never changed).

    Raises
    ------
    TypeError
        If ``ax`` is not a matplotlib Axes (naming what was given and how to make one).
    """
    if ax is not None:
        check_axes(ax)
        return ax.figure, ax
    plt = import_pyplot()
    fig, new_ax = plt.subplots(figsize=figsize, layout=layout)
    return fig, new_ax


def check_axes(ax: Any) -> None:
    """Refuse an ``ax`` that is not a matplotlib Axes, before anything is drawn.

    Raises
    ------
    TypeError
        ``"The 'ax' parameter must be a matplotlib Axes ... Got <value> (<type>) instead."``

    Examples
    --------
    >>> check_axes("x")
    Traceback (most recent call last):
    ...
    TypeError: The 'ax' parameter must be a matplotlib Axes ...
    """
    if not (hasattr(ax, "figure") and hasattr(ax, "plot")):
        raise TypeError(
            "The 'ax' parameter must be a matplotlib Axes (e.g. from `fig, ax = plt.subplots()`)"
            f" or None for a new figure. Got {ax!r:.80} ({type(ax).__name__}) instead."
        )


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


def check_plot_input(obj: Any, needs: tuple[str, ...], where: str, expected: str, hint: str) -> None:
    """Refuse a Display input that lacks the attributes ``needs``, naming what was expected.

    Parameters
    ----------
    obj : object
        What the user passed.
    needs : tuple of str
        Attributes the Display reads.
    where : str
        ``"FeatureImportanceDisplay.from_result"``, ...
    expected : str
        What it takes, e.g. ``"a FeatureImportance (from permutation_importance or sage)"``.
    hint : str
        The fix for the common mix-ups (appended to the message).

    Raises
    ------
    TypeError
        ``"The first argument of <where> must be <expected>. Got <type> instead. <hint>"``.
    """
    # a property of the class counts (an explainer with no data yet raises its own, clearer
    # "has not explained any observation yet" when the Display reads it)
    if obj is None or not all(hasattr(type(obj), a) or hasattr(obj, a) for a in needs):
        raise TypeError(
            f"The first argument of {where} must be {expected}. Got "
            f"{type(obj).__name__} instead. {hint}".rstrip()
        )


def check_kw(value: Any, name: str, owner: str) -> dict[str, Any]:
    """A ``*_kw`` parameter (matplotlib keywords) as a new dict; None is ``{}``.

    Raises
    ------
    TypeError
        If ``value`` is neither None nor a mapping with str keys (the standard message naming
        ``name`` and ``value``).
    """
    from collections.abc import Mapping

    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        from .._validation import param_error

        raise param_error(owner, name, "None or a dict of matplotlib keyword arguments "
                          "(str keys)", value, exc=TypeError)
    return dict(value)
