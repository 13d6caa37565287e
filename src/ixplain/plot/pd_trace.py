"""Partial dependence over stream time: PD snapshots of an iPDP overlaid, newest darkest."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_int
from ._axes import axes_for, check_kw, check_plot_input, time_colors

__all__ = ["PartialDependenceTraceDisplay"]


class PartialDependenceTraceDisplay:
    """PD curves of one feature at successive points of a stream, overlaid (newest darkest).

    Every snapshot is drawn only at the grid values where it was computed, so a grid that moved
    with the feature's range shows as curves over different x-ranges.

    Parameters
    ----------
    snapshots : sequence of (int, ndarray of shape (g,), ndarray of shape (g,))
        ``(n_seen, grid_values, pd_values)`` per snapshot, oldest first.
    feature_name : str
    categorical : bool, default=False
        Draw the grid values as categories (one x position per level, in order of appearance in
        the sorted union of the snapshots' levels).
    deciles : array-like of shape (9,), optional
        Deciles of the feature's recent values, drawn as a rug (numeric features).

    Attributes
    ----------
    lines_ : list of matplotlib Line2D
        One line per snapshot, oldest first.
    colors_ : ndarray of shape (n_snapshots, 4)
        The RGBA colour of each line (light to dark).
    colorbar_ : matplotlib Colorbar or None
        Maps colour to the stream position.
    deciles_vlines_ : matplotlib LineCollection or None
        The decile rug.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import PartialDependenceTraceDisplay
    >>> snaps = [(100, np.array([0.0, 1.0]), np.array([0.2, 0.4])),
    ...          (200, np.array([0.0, 1.0, 2.0]), np.array([0.3, 0.5, 0.6]))]
    >>> disp = PartialDependenceTraceDisplay(snaps, "x").plot()
    >>> [len(line.get_xdata()) for line in disp.lines_]
    [2, 3]
    """

    def __init__(
        self,
        snapshots: Sequence[tuple[int, Any, Any]],
        feature_name: str,
        *,
        categorical: bool = False,
        deciles: Any = None,
    ) -> None:
        self.snapshots = [
            (int(n), np.asarray(g), np.asarray(v, dtype=np.float64).reshape(-1))
            for n, g, v in snapshots
        ]
        for n, g, v in self.snapshots:
            if g.shape != v.shape:
                raise ValueError(
                    f"PartialDependenceTraceDisplay: the snapshot at {n} has {g.size} grid values "
                    f"but {v.size} PD values."
                )
        self.feature_name = str(feature_name)
        self.categorical = bool(categorical)
        self.deciles = None if deciles is None else np.asarray(deciles, dtype=np.float64)

    @classmethod
    def from_explainer(
        cls,
        explainer: Any,
        *,
        output: int = 0,
        max_snapshots: int | None = None,
        ax: Any = None,
        **plot_kwargs: Any,
    ) -> PartialDependenceTraceDisplay:
        """Plot an :class:`~ixplain.IncrementalPDP`'s ``history_`` and its current PD.

        Parameters
        ----------
        explainer : IncrementalPDP
        output : int, default=0
            Which output row of ``average`` to draw (a class of a multiclass model).
        max_snapshots : int, optional
            Draw only the most recent ``max_snapshots`` curves.
        ax : matplotlib Axes, optional
        **plot_kwargs
            Passed to :meth:`plot`.

        Raises
        ------
        ValueError
            If the explainer has not explained any observation yet.
        """
        check_plot_input(
            explainer, ("pd_", "history_", "n_seen_"), "PartialDependenceTraceDisplay.from_explainer",
            "an IncrementalPDP", "A static PartialDependence goes to "
            "PartialDependenceDisplay.from_result.",
        )
        current = explainer.pd_
        snaps = [(h.n_seen, h.grid_values, h.average[output]) for h in explainer.history_]
        n_now = current.extra.get("n_seen", explainer.n_seen_)
        if not snaps or snaps[-1][0] != n_now:
            snaps.append((n_now, current.grid_values[0], current.average[output]))
        if max_snapshots is not None:
            check_int(max_snapshots, "max_snapshots", "PartialDependenceTraceDisplay", min_value=1)
            snaps = snaps[-max_snapshots:]
        disp = cls(
            snaps, current.features[0], categorical=current.feature_kinds[0] == "categorical",
            deciles=current.deciles[0],
        )
        return disp.plot(ax=ax, **plot_kwargs)

    def plot(
        self,
        ax: Any = None,
        *,
        cmap: str = "Blues",
        colorbar: bool = True,
        line_kw: dict[str, Any] | None = None,
    ) -> PartialDependenceTraceDisplay:
        """Draw the snapshots, oldest lightest.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        cmap : str, default="Blues"
            Colormap from light (old) to dark (new).
        colorbar : bool, default=True
            Add a colorbar of the stream position (with two or more snapshots).
        line_kw : dict, optional
            Extra keyword arguments for ``Axes.plot``.

        Returns
        -------
        self

        Raises
        ------
        TypeError
            If ``line_kw`` is not a dict (or None).
        """
        line_kw = check_kw(line_kw, "line_kw", "PartialDependenceTraceDisplay.plot")
        self.figure_, self.ax_ = axes_for(ax)
        self.colors_ = time_colors(len(self.snapshots), cmap)
        levels = _levels(self.snapshots) if self.categorical else None
        self.lines_ = [
            _draw_snapshot(self.ax_, grid, values, color, levels, line_kw or {})
            for (_, grid, values), color in zip(self.snapshots, self.colors_)
        ]
        _label_axes(self.ax_, self.feature_name, levels)
        self.deciles_vlines_ = None if levels is not None else _draw_rug(self.ax_, self.deciles)
        self.colorbar_ = None
        if colorbar and len(self.snapshots) > 1:
            self.colorbar_ = _time_colorbar(self.figure_, self.ax_, self.snapshots, cmap)
        return self


def _levels(snapshots: list[tuple[int, np.ndarray, np.ndarray]]) -> list[Any]:
    seen: dict[Any, None] = {}
    for _, grid, _ in snapshots:
        for v in grid.tolist():
            seen.setdefault(v, None)
    try:
        return sorted(seen)
    except TypeError:
        return list(seen)


def _draw_snapshot(
    ax: Any, grid: np.ndarray, values: np.ndarray, color: Any, levels: list[Any] | None,
    line_kw: dict[str, Any],
) -> Any:
    x = grid if levels is None else np.array([levels.index(v) for v in grid.tolist()])
    kw = {"color": color, "marker": "o" if levels is not None else None, **line_kw}
    (line,) = ax.plot(x, values, **kw)
    return line


def _draw_rug(ax: Any, deciles: np.ndarray | None) -> Any:
    if deciles is None or not np.isfinite(deciles).all():
        return None
    trans = ax.get_xaxis_transform()  # x in data, y in axes coordinates (as the PD Display)
    return ax.vlines(deciles, 0, 0.05, transform=trans, color="k", linewidth=1)


def _label_axes(ax: Any, feature_name: str, levels: list[Any] | None) -> None:
    if levels is not None:
        ax.set_xticks(np.arange(len(levels)), [str(v) for v in levels])
    ax.set_xlabel(feature_name)
    ax.set_ylabel("partial dependence")


def _time_colorbar(
    fig: Any, ax: Any, snapshots: list[tuple[int, np.ndarray, np.ndarray]], cmap: str
) -> Any:
    import matplotlib
    from matplotlib.cm import ScalarMappable

    times = [n for n, _, _ in snapshots]
    lo, hi = min(times), max(times)
    colormap = matplotlib.colors.LinearSegmentedColormap.from_list(
        "ixplain_time", time_colors(64, cmap)
    )
    mappable = ScalarMappable(norm=matplotlib.colors.Normalize(lo, max(hi, lo + 1)), cmap=colormap)
    bar = fig.colorbar(mappable, ax=ax)
    bar.set_label("observations seen")
    return bar
