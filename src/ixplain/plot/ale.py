"""Accumulated local effects plots: :class:`AccumulatedLocalEffectsDisplay`.

One panel per result: a numeric feature is a line through the bin edges with the accumulated
band and the decile rug; a discrete or categorical feature is one point per level (in the
accumulation order) with error bars; a pair of numeric features is a filled contour of the
second-order effect. ``draw_ale_line`` is shared with
:class:`~ixplain.PartialDependenceDisplay`, which can draw ALE beside PD on one axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_float, check_int, param_error
from ..results.ale import AccumulatedLocalEffects, _is_time, band_z
from ._axes import check_kw
from ._panels import layout, panel_entries, tick_label

__all__ = ["AccumulatedLocalEffectsDisplay", "draw_ale_line"]

_OWNER = "AccumulatedLocalEffectsDisplay"


class AccumulatedLocalEffectsDisplay:
    """ALE plots, one panel per feature or numeric feature pair.

    Parameters
    ----------
    results : AccumulatedLocalEffects or list of them
        One result per panel.
    output : int, default=0
        Which output (class or regression target) to draw.
    level : float in (0, 1), default=0.95
        Confidence level of the band (pointwise, from the accumulated variance).

    Attributes
    ----------
    results : list of AccumulatedLocalEffects
    figure_ : matplotlib Figure
    axes_ : ndarray of Axes of shape (n_rows, n_cols)
    lines_ : list of (Line2D or None)
        The ALE line of each 1-way panel.
    bands_ : list of (PolyCollection or None)
        The band of each numeric panel.
    errorbars_ : list of (ErrorbarContainer or None)
        The points and error bars of each discrete / categorical panel.
    deciles_vlines_ : list of (LineCollection or None)
    empty_bins_ : list of (list of Rectangle or None)
        The grey spans over the bins without rows of each numeric panel (their effect is
        interpolated from the nearest bin, so the band is not drawn: its ``std`` is NaN).
    contours_ : list of (QuadContourSet or None)
    colorbars_ : list of (Colorbar or None)

    References
    ----------
    .. [1] D. W. Apley, J. Zhu, "Visualizing the effects of predictor variables in black box
       supervised learning models", JRSS-B 82(4), 2020.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import AccumulatedLocalEffectsDisplay
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> disp = AccumulatedLocalEffectsDisplay.from_estimator(
    ...     lambda A: A[:, 0] ** 2 + A[:, 0] * A[:, 1], X, [0, 1, (0, 1)], grid_resolution=8)
    >>> disp.axes_.shape, disp.lines_[2] is None, disp.contours_[2] is not None
    ((1, 3), True, True)
    """

    def __init__(
        self,
        results: AccumulatedLocalEffects | Sequence[AccumulatedLocalEffects],
        *,
        output: int = 0,
        level: float = 0.95,
    ) -> None:
        if isinstance(results, AccumulatedLocalEffects):
            results = [results]
        if not results or not all(isinstance(r, AccumulatedLocalEffects) for r in results):
            raise param_error(_OWNER, "results", "a non-empty list of AccumulatedLocalEffects",
                              results, exc=TypeError)
        self.results = list(results)
        self.output = int(check_int(output, "output", _OWNER, min_value=0) or 0)
        self.level = float(check_float(level, "level", _OWNER, low=0.0, high=1.0,
                                       low_inclusive=False, high_inclusive=False) or 0.95)

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        features: Any,
        *,
        output: int = 0,
        level: float = 0.95,
        ax: Any = None,
        n_cols: int = 3,
        line_kw: dict[str, Any] | None = None,
        band_kw: dict[str, Any] | None = None,
        contour_kw: dict[str, Any] | None = None,
        **ale_kw: Any,
    ) -> AccumulatedLocalEffectsDisplay:
        """Compute ALE with :func:`ixplain.accumulated_local_effects` and plot one panel each.

        Parameters
        ----------
        estimator, X
            As in :func:`ixplain.accumulated_local_effects`.
        features : int, str, or list of (int, str or pair of them)
            One entry per panel: a feature (first order) or a numeric pair (second order).
        output, level
            See the class parameters.
        ax, n_cols, line_kw, band_kw, contour_kw
            Passed to :meth:`plot`.
        **ale_kw
            Passed to :func:`ixplain.accumulated_local_effects` (``grid_resolution``,
            ``sample_weight``, ``target``, ...).

        Returns
        -------
        AccumulatedLocalEffectsDisplay
        """
        from ..methods.ale import accumulated_local_effects

        results = [accumulated_local_effects(estimator, X, list(entry), **ale_kw)
                   for entry in panel_entries(features, _OWNER)]
        display = cls(results, output=output, level=level)
        return display.plot(ax=ax, n_cols=n_cols, line_kw=line_kw, band_kw=band_kw,
                            contour_kw=contour_kw)

    @classmethod
    def from_result(
        cls,
        results: AccumulatedLocalEffects | Sequence[AccumulatedLocalEffects],
        *,
        output: int = 0,
        level: float = 0.95,
        ax: Any = None,
        n_cols: int = 3,
        **plot_kw: Any,
    ) -> AccumulatedLocalEffectsDisplay:
        """Plot ALE results already computed (one panel each); see :meth:`plot`.

        Returns
        -------
        AccumulatedLocalEffectsDisplay
        """
        return cls(results, output=output, level=level).plot(ax=ax, n_cols=n_cols, **plot_kw)

    def plot(
        self,
        ax: Any = None,
        *,
        n_cols: int = 3,
        line_kw: dict[str, Any] | None = None,
        band_kw: dict[str, Any] | None = None,
        contour_kw: dict[str, Any] | None = None,
    ) -> AccumulatedLocalEffectsDisplay:
        """Draw the panels.

        Parameters
        ----------
        ax : Axes or sequence of Axes, optional
            One Axes per panel; default: a new figure with ``n_cols`` columns of panels.
        n_cols : int, default=3
        line_kw, band_kw, contour_kw : dict, optional
            Keyword arguments of the ALE line / error bars, the band (``fill_between``) and
            the 2-way ``contourf``.

        Returns
        -------
        self

        Raises
        ------
        TypeError
            If a ``*_kw`` parameter is not a dict (or None).
        """
        n_cols = int(check_int(n_cols, "n_cols", _OWNER, min_value=1) or 1)
        line_kw, band_kw, contour_kw = (check_kw(line_kw, "line_kw", _OWNER),
                                        check_kw(band_kw, "band_kw", _OWNER),
                                        check_kw(contour_kw, "contour_kw", _OWNER))
        self.figure_, self.axes_ = layout(len(self.results), n_cols, ax, _OWNER)
        self.lines_, self.bands_, self.errorbars_ = [], [], []
        self.deciles_vlines_, self.contours_, self.colorbars_ = [], [], []
        self.empty_bins_ = []
        for result, panel in zip(self.results, self.axes_.ravel()):
            output = self._output(result)
            if len(result.features) == 2:
                arts = _draw_two_way(panel, result, output, dict(contour_kw or {}))
            else:
                arts = draw_ale_line(panel, result, output, self.level, line_kw, band_kw)
            self.lines_.append(arts.get("line"))
            self.bands_.append(arts.get("band"))
            self.errorbars_.append(arts.get("errorbar"))
            self.deciles_vlines_.append(arts.get("deciles"))
            self.empty_bins_.append(arts.get("empty"))
            self.contours_.append(arts.get("contour"))
            self.colorbars_.append(arts.get("colorbar"))
        return self

    def _output(self, result: AccumulatedLocalEffects) -> int:
        if self.output >= result.n_outputs:
            raise param_error(_OWNER, "output",
                              f"an int in [0, {result.n_outputs - 1}] for these results",
                              self.output)
        return self.output


def _label(result: AccumulatedLocalEffects, output: int) -> str:
    label = "accumulated local effect"
    if result.output_names is not None:
        label += f" ({result.output_names[output]})"
    elif result.target is not None:
        label += f" ({result.target})"
    return label


def _xlabel(result: AccumulatedLocalEffects) -> str:
    name = result.features[0]
    if getattr(result.grid_values[0].dtype, "kind", None) == "m":
        name += " (seconds)"
    missing = result.n_missing[0] if result.n_missing else 0
    return f"{name} ({missing} rows missing, not shown)" if missing else name


def draw_ale_line(
    ax: Any, result: AccumulatedLocalEffects, output: int, level: float = 0.95,
    line_kw: dict[str, Any] | None = None, band_kw: dict[str, Any] | None = None,
    offset: float = 0.0,
) -> dict[str, Any]:
    """Draw one first-order ALE result on ``ax``; returns the artists by name.

    Numeric: line through the edges, the band, the decile rug, grey spans over bins without
    rows (``"empty"``). Discrete / categorical: points
    at the levels (in accumulation order) with error bars. ``offset`` is added to the curve.
    """
    grid = result.grid_values[0]
    values = result.average[output] + offset
    std = None if result.std is None else result.std[output]
    z = 0.0 if std is None else band_z(level)  # the result's band(level)
    kw = {"color": "tab:green", "label": "ALE", **(line_kw or {})}
    arts: dict[str, Any] = {}
    if result.feature_kinds[0] == "numeric":
        x = _axis_values(grid)
        arts["line"] = ax.plot(x, values, marker=".", **kw)[0]
        if std is not None:
            arts["band"] = ax.fill_between(
                x, values - z * std, values + z * std,
                **{"color": kw["color"], "alpha": 0.2, "linewidth": 0, **(band_kw or {})})
        empty = np.flatnonzero(result.empty_bins)
        if len(empty):  # effects filled from a neighbour: shaded, and the band is NaN there
            arts["empty"] = [ax.axvspan(x[k], x[k + 1], color="0.85", zorder=0,
                                        label="no rows (interpolated)" if i == 0 else None)
                             for i, k in enumerate(empty)]
        deciles = result.deciles[0]
        if deciles is not None and _all_present(deciles):
            arts["deciles"] = ax.vlines(_axis_values(deciles), 0, 0.05, transform=ax.get_xaxis_transform(),
                                        color="k", linewidth=1)
    else:  # one point per level: at its value (discrete) or at its rank (categorical)
        categorical = result.feature_kinds[0] == "categorical"
        pos = np.arange(len(grid)) if categorical else _axis_values(grid)
        err = None if std is None else z * np.nan_to_num(std, nan=0.0)
        arts["errorbar"] = ax.errorbar(pos, values, yerr=err, fmt="o-", capsize=3, **kw)
        arts["line"] = arts["errorbar"].lines[0]
        if categorical:
            ax.set_xticks(pos, [tick_label(v) for v in grid], rotation=45)
    if _is_time(grid) and grid.dtype.kind == "M":
        ax.tick_params(axis="x", labelrotation=30)
    ax.set_xlabel(_xlabel(result))
    ax.set_ylabel(_label(result, output))
    return arts


def _axis_values(values: Any) -> Any:
    """Values for a matplotlib axis: floats, or datetimes (a time zone kept)."""
    if not _is_time(values):
        return np.asarray(values, dtype=float)
    if values.dtype.kind == "m":  # durations: seconds
        return np.asarray(values, dtype="timedelta64[ns]") / np.timedelta64(1, "s")
    if isinstance(values, np.ndarray):
        return values
    return np.asarray(values.to_pydatetime())  # pandas DatetimeArray (maybe tz-aware)


def _all_present(values: Any) -> bool:
    """No NaN (NaT) among the values."""
    if _is_time(values):
        return not np.isnat(np.asarray(values, dtype="datetime64[ns]")).any()
    return bool(np.isfinite(values).all())


def _contour_values(values: Any) -> np.ndarray:
    """Floats for ``contourf`` (datetimes as matplotlib date numbers)."""
    if not _is_time(values) or values.dtype.kind == "m":
        return np.asarray(_axis_values(values), dtype=float)
    from matplotlib.dates import date2num

    return np.asarray(date2num(_axis_values(values)), dtype=float)


def _draw_two_way(ax: Any, result: AccumulatedLocalEffects, output: int,
                  contour_kw: dict[str, Any]) -> dict[str, Any]:
    g0, g1 = (_contour_values(g) for g in result.grid_values)
    artist = ax.contourf(g1, g0, result.average[output],
                         **{"levels": 8, "cmap": "RdBu_r", **contour_kw})
    colorbar = ax.figure.colorbar(artist, ax=ax, label="second-order ALE")
    if _is_time(result.grid_values[1]) and result.grid_values[1].dtype.kind == "M":
        ax.xaxis_date()
        ax.tick_params(axis="x", labelrotation=30)
    if _is_time(result.grid_values[0]) and result.grid_values[0].dtype.kind == "M":
        ax.yaxis_date()
    ax.set_xlabel(result.features[1])
    ax.set_ylabel(result.features[0])
    return {"contour": artist, "colorbar": colorbar}
