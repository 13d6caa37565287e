"""Layout and per-panel drawing of :class:`~ixplain.PartialDependenceDisplay`.

The Display decides *what* each panel shows (its result, kind, output, rows of ICE); the
functions here draw one panel and return its artists, and lay the panels out in scikit-learn's
way: a grid inside one *bounding* Axes (``ax=None`` or a single Axes), or the user's own Axes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._matplotlib import import_pyplot
from ._panels import given_axes, tick_label

__all__ = ["Layout", "PanelStyle", "draw_panel", "layout", "line_kwargs", "pd_limits"]

_OWNER = "PartialDependenceDisplay"
YLABEL = "Partial dependence"


# ---------------------------------------------------------------------------------------- layout
@dataclass
class Layout:
    """Where the panels go: ``axes`` (shaped as the user gave them, or (n_rows, n_cols))."""

    figure: Any
    axes: np.ndarray
    bounding_ax: Any
    n_cols: int | None  # columns of the grid made here; None for the user's own Axes

    def panel_axes(self, n_panels: int) -> list[Any]:
        """The Axes of panel 0, 1, ... in reading order."""
        return list(self.axes.ravel()[:n_panels])

    def position(self, i: int) -> tuple[int, ...]:
        """Index of panel ``i`` in ``axes`` (and in every artist array of the Display)."""
        return tuple(int(k) for k in np.unravel_index(i, self.axes.shape))


def layout(n_panels: int, n_cols: int, ax: Any) -> Layout:
    """Build the panel grid.

    ``ax=None``: a new figure whose single Axes bounds the grid; one Axes: it bounds the grid
    (its frame hidden; an Axes already used as a bounding box is refused); several Axes: one
    per panel, in their own shape.

    Raises
    ------
    ValueError
        For a number of Axes different from ``n_panels``, or a bounding Axes used twice.
    """
    plt = import_pyplot()
    if ax is None:
        n_c = min(n_cols, n_panels)
        n_r = math.ceil(n_panels / n_c)
        fig = plt.figure(figsize=(max(6.4, 3.6 * n_c), max(4.8, 3.0 * n_r)))
        ax = fig.add_subplot()
    if hasattr(ax, "figure") and hasattr(ax, "plot"):
        return _bounded(ax, n_panels, n_cols)
    axes = given_axes(ax, n_panels, _OWNER, sklearn_words=True)
    return Layout(axes.ravel()[0].figure, axes, None, None)


def _bounded(ax: Any, n_panels: int, n_cols: int) -> Layout:
    """A grid of ``n_panels`` Axes drawn inside ``ax`` (whose frame is hidden)."""
    from matplotlib.gridspec import GridSpec, GridSpecFromSubplotSpec

    if not ax.axison:
        raise ValueError(
            f"The 'ax' parameter of {_OWNER} is the bounding Axes of an earlier plot. "
            "The ax was already used in another plot function, please set ax=display.axes_ "
            "instead (the Axes of the panels)."
        )
    ax.set_axis_off()
    n_cols = min(n_cols, n_panels)
    n_rows = math.ceil(n_panels / n_cols)
    fig = ax.figure
    spec = ax.get_subplotspec()
    grid: Any
    if spec is not None:
        grid = GridSpecFromSubplotSpec(n_rows, n_cols, subplot_spec=spec, wspace=0.4, hspace=0.3)
    else:  # an Axes placed with fig.add_axes: fill its box
        box = ax.get_position()
        grid = GridSpec(n_rows, n_cols, figure=fig, left=box.x0, right=box.x1, bottom=box.y0,
                        top=box.y1, wspace=0.4, hspace=0.3)
    axes = np.empty((n_rows, n_cols), dtype=object)
    for i in range(n_panels):
        r, c = divmod(i, n_cols)
        axes[r, c] = fig.add_subplot(grid[r, c])
    return Layout(fig, axes, ax, n_cols)


# ---------------------------------------------------------------------------------------- styles
def _normalize(kw: dict[str, Any] | None) -> dict[str, Any]:
    """``kw`` with matplotlib's short aliases (``c``, ``ls``, ``lw``) spelled out."""
    if not kw:
        return {}
    from matplotlib import cbook
    from matplotlib.lines import Line2D

    return dict(cbook.normalize_kwargs(dict(kw), Line2D))


def line_kwargs(
    kind: str, line_kw: dict[str, Any] | None, pd_line_kw: dict[str, Any] | None,
    ice_lines_kw: dict[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The keywords of the PD line and of the ICE lines of a panel of ``kind``.

    ``line_kw`` applies to both; ``pd_line_kw`` / ``ice_lines_kw`` override it for one of them.
    A ``label`` goes to the PD line only (ICE lines never enter the legend); the PD line of a
    ``"both"`` panel is labelled ``"average"`` unless the user names it.
    """
    base = _normalize(line_kw)
    if kind == "both":
        pd_default = {"color": "tab:orange", "linestyle": "--", "label": "average"}
        ice_default = {"color": "tab:blue", "alpha": 0.3, "linewidth": 0.5}
    else:
        pd_default = {"color": "tab:blue"}
        ice_default = {"color": "tab:blue", "alpha": 0.3, "linewidth": 0.5}
    pd_kw = {**pd_default, **base, **_normalize(pd_line_kw)}
    ice_kw = {**ice_default, **base, **_normalize(ice_lines_kw)}
    ice_kw.pop("label", None)
    return pd_kw, ice_kw


@dataclass
class PanelStyle:
    """Everything a panel's drawing needs besides its data."""

    pd_kw: dict[str, Any]
    ice_kw: dict[str, Any]
    contour_kw: dict[str, Any]
    bar_kw: dict[str, Any]
    heatmap_kw: dict[str, Any]
    limits: dict[int, tuple[float, float]] = field(default_factory=dict)
    first_column: bool = True


# ---------------------------------------------------------------------------------------- limits
def centred(values: np.ndarray, n_features: int) -> np.ndarray:
    """Every curve minus its value at the first grid point (the last ``n_features`` axes)."""
    first = values[(...,) + (slice(0, 1),) * n_features]
    return values - first


def _finite_grid(result: Any) -> list[np.ndarray]:
    return [~_isnan(np.asarray(g)) for g in result.grid_values]


def _isnan(grid: np.ndarray) -> np.ndarray:
    if grid.dtype.kind in "fc":
        return np.isnan(grid)
    return np.array([v is None or (isinstance(v, float) and math.isnan(v)) for v in grid], bool)


def panel_values(result: Any, output: int, which: str, centered: bool) -> np.ndarray | None:
    """``result.average[output]`` or ``result.individual[output]``, centred when asked."""
    arr = result.average if which == "average" else result.individual
    if arr is None:
        return None
    values = np.asarray(arr[output], dtype=float)
    return centred(values, len(result.features)) if centered else values


def pd_limits(panels: list[tuple[Any, str]], output: int, centered: bool) -> dict[int, tuple]:
    """Common value range of the 1-way panels (key 1) and of the 2-way panels (key 2).

    Each range covers the values drawn (PD and all ICE curves, finite grid points only), padded
    by 5% of its span on either side, so that panels of the same order compare on one scale.
    """
    lows: dict[int, list[float]] = {1: [], 2: []}
    highs: dict[int, list[float]] = {1: [], 2: []}
    for result, kind in panels:
        d = len(result.features)
        keep = np.ix_(*_finite_grid(result))
        for which in ("average", "individual"):
            if which == "individual" and (kind == "average" or d == 2):
                continue
            if which == "average" and kind == "individual":
                continue
            values = panel_values(result, output, which, centered)
            if values is None:
                continue
            part = values[(...,) + keep] if which == "average" else values[:, keep[0]] if d == 1 else values
            part = part[np.isfinite(part)]
            if part.size:
                lows[d].append(float(part.min()))
                highs[d].append(float(part.max()))
    limits = {}
    for d in (1, 2):
        if lows[d]:
            low, high = min(lows[d]), max(highs[d])
            pad = 0.05 * (high - low)
            limits[d] = (low - pad, high + pad)
    return limits


# ---------------------------------------------------------------------------------------- panels
def draw_panel(ax: Any, result: Any, kind: str, output: int, ice_rows: np.ndarray,
               style: PanelStyle, centered: bool) -> dict[str, Any]:
    """Draw one panel; returns its artists by name (``line``, ``ice``, ``deciles_v``, ...)."""
    if len(result.features) == 2:
        if "categorical" in result.feature_kinds:
            return _draw_heatmap(ax, result, output, style, centered)
        return _draw_contour(ax, result, output, style, centered)
    if result.feature_kinds[0] == "categorical":
        return _draw_bars(ax, result, output, style, centered)
    return _draw_lines(ax, result, kind, output, ice_rows, style, centered)


def _set_labels(ax: Any, xlabel: str, ylabel: str | None) -> None:
    """Set labels the user has not set already (a user's labels are kept)."""
    if not ax.get_xlabel():
        ax.set_xlabel(xlabel)
    if ylabel is not None and not ax.get_ylabel():
        ax.set_ylabel(ylabel)


def _deciles_v(ax: Any, deciles: Any) -> Any:
    if deciles is None or not np.isfinite(np.asarray(deciles, dtype=float)).all():
        return None
    return ax.vlines(deciles, 0, 0.05, transform=ax.get_xaxis_transform(), color="k")


def _deciles_h(ax: Any, deciles: Any) -> Any:
    if deciles is None or not np.isfinite(np.asarray(deciles, dtype=float)).all():
        return None
    return ax.hlines(deciles, 0, 0.05, transform=ax.get_yaxis_transform(), color="k")


def _draw_lines(ax, result, kind, output, ice_rows, style, centered) -> dict[str, Any]:
    """ICE lines (the rows chosen), the PD line on top, the decile rug of a numeric feature."""
    grid = np.asarray(result.grid_values[0], dtype=float)
    keep = ~np.isnan(grid)
    arts: dict[str, Any] = {"ice": []}
    ice = panel_values(result, output, "individual", centered)
    if kind in ("individual", "both") and ice is not None:
        arts["ice"] = ax.plot(grid[keep], ice[ice_rows][:, keep].T, **style.ice_kw)
    average = panel_values(result, output, "average", centered)
    if kind in ("average", "both") and average is not None:
        arts["line"] = ax.plot(grid[keep], average[keep], **style.pd_kw)[0]
        if arts["line"].get_label() and not arts["line"].get_label().startswith("_"):
            ax.legend()
    arts["deciles_v"] = _deciles_v(ax, result.deciles[0])
    if 1 in style.limits:
        ax.set_ylim(style.limits[1])
    _set_labels(ax, result.features[0], YLABEL if style.first_column else None)
    return arts


def _draw_bars(ax, result, output, style, centered) -> dict[str, Any]:
    """One bar per level, ordered by PD value (largest first)."""
    values = _mean_values(result, output, centered)
    labels = [str(v) for v in result.grid_values[0]]
    order = np.argsort(-values, kind="stable")
    bars = ax.bar([labels[i] for i in order], values[order], **{"color": "tab:blue", **style.bar_kw})
    if 1 in style.limits:
        ax.set_ylim(style.limits[1])
    _set_labels(ax, result.features[0], YLABEL if style.first_column else None)
    ax.tick_params(axis="x", labelrotation=45)
    return {"bars": bars}


def _mean_values(result, output, centered) -> np.ndarray:
    """The PD of a panel: ``average``, or the mean of the ICE curves when only they exist."""
    values = panel_values(result, output, "average", centered)
    if values is None:
        ice = panel_values(result, output, "individual", centered)
        if ice is None:
            raise ValueError(f"{_OWNER}: the result of {list(result.features)} holds no values.")
        values = ice.mean(axis=0)
    return values


def _draw_contour(ax, result, output, style, centered) -> dict[str, Any]:
    """Filled contours over (feature 0 on x, feature 1 on y), labelled contour lines, rugs."""
    values = _mean_values(result, output, centered)
    g0, g1 = (np.asarray(g, dtype=float) for g in result.grid_values)
    k0, k1 = ~np.isnan(g0), ~np.isnan(g1)
    z = values[np.ix_(k0, k1)].T  # rows follow feature 1 (y), columns feature 0 (x)
    kw: dict[str, Any] = {"levels": 8, "cmap": "viridis", "alpha": 0.75}
    if 2 in style.limits and style.limits[2][1] > style.limits[2][0]:
        kw["levels"] = np.linspace(style.limits[2][0], style.limits[2][1], num=8)
    kw.update(style.contour_kw)
    if min(k0.sum(), k1.sum()) < 2:  # a single grid point: no area to contour
        return {"contour": None, "deciles_v": None, "deciles_h": None}
    contour = ax.contourf(g0[k0], g1[k1], z, **kw)
    lines = ax.contour(g0[k0], g1[k1], z, levels=contour.levels, colors="k", linewidths=0.5)
    ax.clabel(lines, fmt="%2.2f", fontsize=8, inline=True)
    arts = {"contour": contour, "deciles_v": _deciles_v(ax, result.deciles[0]),
            "deciles_h": _deciles_h(ax, result.deciles[1])}
    _set_labels(ax, result.features[0], result.features[1])
    return arts


def _draw_heatmap(ax, result, output, style, centered) -> dict[str, Any]:
    """A heatmap (feature 0 on x, feature 1 on y) when a feature of the pair is categorical."""
    values = _mean_values(result, output, centered)
    g0, g1 = (np.asarray(g) for g in result.grid_values)
    image = ax.imshow(values.T, aspect="auto", origin="lower",
                      **{"cmap": "viridis", **style.heatmap_kw})
    ax.set_xticks(range(len(g0)), [tick_label(v) for v in g0], rotation=45)
    ax.set_yticks(range(len(g1)), [tick_label(v) for v in g1])
    colorbar = ax.figure.colorbar(image, ax=ax, label=YLABEL)
    _set_labels(ax, result.features[0], result.features[1])
    return {"heatmap": image, "colorbar": colorbar}
