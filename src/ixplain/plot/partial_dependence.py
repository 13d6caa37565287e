"""Partial dependence / ICE plots: :class:`PartialDependenceDisplay`.

Compute returns data, a Display draws it: :meth:`PartialDependenceDisplay.from_estimator`
computes one :class:`~ixplain.results.PartialDependence` per panel and plots it;
:meth:`PartialDependenceDisplay.from_result` plots results you already have. The layout (one
panel per feature, in a grid) is separate from the small per-panel drawing functions.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_bool, check_int, check_random_state, param_error
from ..models import DEFAULT_MEMORY_BUDGET
from ..results.partial_dependence import PartialDependence
from ._axes import check_axes
from ._matplotlib import import_pyplot

__all__ = ["PartialDependenceDisplay"]

_OWNER = "PartialDependenceDisplay"


class PartialDependenceDisplay:
    """Partial dependence (PD) and ICE plots, one panel per feature or feature pair.

    Build it with :meth:`from_estimator` or :meth:`from_result`, then :meth:`plot` (called by
    both) draws it. Panels:

    * a numeric feature: ICE lines (thinned to ``subsample`` lines with ``random_state``), the PD
      line on top, a rug of the feature's deciles; centred ICE when the result is centred;
    * a categorical feature: one bar per level, ordered by PD value (largest first);
    * a pair of features: a filled contour (numeric x numeric) or a heatmap (with a categorical
      feature), with a colour bar.

    Parameters
    ----------
    results : list of PartialDependence
        One result per panel (1 or 2 features each).
    output : int, default=0
        Which output (class or regression target) to draw when a result has several.
    subsample : int or float or None, default=1000
        ICE lines drawn per panel: a count, a fraction of the rows, or ``None`` for all.
    random_state : int, Generator or None, default=None
        Seeds the choice of the ICE lines drawn.
    ale : list of (AccumulatedLocalEffects or None), optional
        One entry per panel: an ALE result of the same numeric feature drawn on the PD axis
        (with its band). ALE is centred (mean 0 over the data) and PD is not, so the ALE
        curve is shifted by the constant that gives it the PD's mean over the PD grid: the
        shapes compare, the level is the PD's.

    Attributes
    ----------
    results : list of PartialDependence
    figure_ : matplotlib Figure
    axes_ : ndarray of matplotlib Axes of shape (n_rows, n_cols)
        The grid of panels (``None`` where the grid has no panel).
    lines_ : list of (Line2D or None)
        The PD line of each panel (``None`` for bars, 2-way panels, or ICE-only results).
    ice_lines_ : list of list of Line2D
        The ICE lines drawn in each panel.
    deciles_vlines_ : list of (LineCollection or None)
        The decile rug of each 1-way numeric panel.
    bars_ : list of (BarContainer or None)
        The bars of each categorical panel.
    contours_ : list of (QuadContourSet or AxesImage or None)
        The contour set or heatmap of each 2-way panel.
    colorbars_ : list of (Colorbar or None)
    ale_lines_ : list of (Line2D or None)
        The ALE line drawn on each panel (``None`` where no ALE was given).

    References
    ----------
    .. [1] A. Goldstein et al., "Peeking inside the black box: visualizing statistical learning
       with plots of individual conditional expectation", JCGS 24(1), 2015.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import PartialDependenceDisplay
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> disp = PartialDependenceDisplay.from_estimator(
    ...     lambda A: A[:, 0] ** 2 + A[:, 1], X, [0, 1, (0, 1)], kind="both", grid_resolution=10,
    ...     random_state=0)
    >>> len(disp.lines_), disp.axes_.shape
    (3, (1, 3))
    """

    def __init__(
        self,
        results: Sequence[PartialDependence],
        *,
        output: int = 0,
        subsample: int | float | None = 1000,
        random_state: Any = None,
        ale: Sequence[Any] | None = None,
    ) -> None:
        if isinstance(results, PartialDependence):
            results = [results]
        if not results or not all(isinstance(r, PartialDependence) for r in results):
            raise param_error(_OWNER, "results", "a non-empty list of PartialDependence", results,
                              exc=TypeError)
        for r in results:
            if len(r.features) > 2:
                raise ValueError(
                    f"{_OWNER} draws 1- or 2-feature results; got features {list(r.features)}."
                )
        self.results = list(results)
        self.output = check_int(output, "output", _OWNER, min_value=0) or 0
        self.subsample = _check_subsample(subsample)
        self.random_state = random_state
        self.ale = _check_ale(ale, len(self.results))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        features: Any,
        *,
        sample_weight: Any = None,
        categorical_features: Any = None,
        feature_names: Any = None,
        target: Any = None,
        response_method: str = "auto",
        percentiles: tuple[float, float] = (0.05, 0.95),
        grid_resolution: int = 100,
        custom_values: dict[Any, Any] | None = None,
        method: str = "auto",
        kind: str = "average",
        centered: bool = False,
        grid: str = "percentile",
        subsample: int | float | None = 1000,
        random_state: Any = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        n_jobs: int | None = None,
        ale: bool = False,
        ax: Any = None,
        n_cols: int = 3,
        line_kw: dict[str, Any] | None = None,
        ice_lines_kw: dict[str, Any] | None = None,
        pd_line_kw: dict[str, Any] | None = None,
        contour_kw: dict[str, Any] | None = None,
        bar_kw: dict[str, Any] | None = None,
    ) -> PartialDependenceDisplay:
        """Compute PD/ICE with :func:`ixplain.partial_dependence` and plot one panel per entry.

        Parameters
        ----------
        estimator, X, sample_weight, categorical_features, feature_names, target,
        response_method, percentiles, grid_resolution, custom_values, method, kind, centered,
        grid, memory_budget, n_jobs
            As in :func:`ixplain.partial_dependence` (``target`` selects the class drawn for a
            multiclass model). ``custom_values`` maps a feature to its grid in every panel.
        features : int, str, or list of (int, str or pair of them)
            One entry per panel: a feature (1-way) or a pair (2-way).
        subsample : int or float or None, default=1000
            ICE lines drawn per panel (all rows are used in the computation).
        random_state : int, Generator or None
            Seeds the ICE lines drawn.
        ale : bool, default=False
            Also compute :func:`ixplain.accumulated_local_effects` of every 1-way numeric
            panel and draw it on the same axis (PD can mislead on correlated features).
        ax, n_cols, line_kw, ice_lines_kw, pd_line_kw, contour_kw, bar_kw
            Passed to :meth:`plot`.

        Returns
        -------
        PartialDependenceDisplay
        """
        from ..methods.pdp import partial_dependence

        entries = _panel_entries(features)
        results = []
        for entry in entries:
            custom = None
            if custom_values:
                custom = {k: v for k, v in custom_values.items() if k in entry}
            results.append(
                partial_dependence(
                    estimator, X, list(entry), sample_weight=sample_weight,
                    categorical_features=categorical_features, feature_names=feature_names,
                    response_method=response_method, percentiles=percentiles,
                    grid_resolution=grid_resolution, custom_values=custom or None,
                    method=method, kind=kind, centered=centered, grid=grid, target=target,
                    memory_budget=memory_budget, n_jobs=n_jobs,
                )
            )
        ale_results = None
        if check_bool(ale, "ale", "PartialDependenceDisplay.from_estimator"):
            from ..methods.ale import accumulated_local_effects

            ale_results = [
                accumulated_local_effects(
                    estimator, X, list(entry), sample_weight=sample_weight,
                    categorical_features=categorical_features, feature_names=feature_names,
                    response_method=response_method, target=target,
                ) if len(entry) == 1 and r.feature_kinds[0] == "numeric" else None
                for entry, r in zip(entries, results)
            ]
        display = cls(results, subsample=subsample, random_state=random_state, ale=ale_results)
        return display.plot(
            ax=ax, n_cols=n_cols, line_kw=line_kw, ice_lines_kw=ice_lines_kw,
            pd_line_kw=pd_line_kw, contour_kw=contour_kw, bar_kw=bar_kw,
        )

    @classmethod
    def from_result(
        cls,
        results: PartialDependence | Sequence[PartialDependence],
        *,
        output: int = 0,
        subsample: int | float | None = 1000,
        random_state: Any = None,
        ax: Any = None,
        n_cols: int = 3,
        **plot_kw: Any,
    ) -> PartialDependenceDisplay:
        """Plot results computed with :func:`ixplain.partial_dependence` (one panel each).

        Parameters
        ----------
        results : PartialDependence or list of PartialDependence
        output, subsample, random_state
            See the class parameters.
        ax, n_cols, **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        PartialDependenceDisplay
        """
        if isinstance(results, PartialDependence):
            results = [results]
        display = cls(results, output=output, subsample=subsample, random_state=random_state)
        return display.plot(ax=ax, n_cols=n_cols, **plot_kw)

    # ------------------------------------------------------------------ drawing
    def plot(
        self,
        ax: Any = None,
        *,
        n_cols: int = 3,
        line_kw: dict[str, Any] | None = None,
        ice_lines_kw: dict[str, Any] | None = None,
        pd_line_kw: dict[str, Any] | None = None,
        contour_kw: dict[str, Any] | None = None,
        bar_kw: dict[str, Any] | None = None,
    ) -> PartialDependenceDisplay:
        """Draw the panels.

        Parameters
        ----------
        ax : Axes or sequence of Axes, optional
            One Axes per panel, or a single Axes for a single panel; default: a new figure with
            a grid of ``n_cols`` columns.
        n_cols : int, default=3
            Columns of the panel grid when ``ax`` is None.
        line_kw : dict, optional
            Keyword arguments for both ICE and PD lines.
        ice_lines_kw, pd_line_kw : dict, optional
            Keyword arguments for the ICE lines and the PD line (override ``line_kw``).
        contour_kw : dict, optional
            Keyword arguments for ``contourf`` / ``imshow`` of 2-way panels.
        bar_kw : dict, optional
            Keyword arguments for ``bar`` of categorical panels.

        Returns
        -------
        self
        """
        n_cols = check_int(n_cols, "n_cols", _OWNER, min_value=1) or 1
        figure, axes = _layout(len(self.results), n_cols, ax)
        self.figure_, self.axes_ = figure, axes
        rng = check_random_state(self.random_state, _OWNER)
        base = dict(line_kw or {})
        ice_kw = {"color": "tab:blue", "alpha": 0.25, "linewidth": 0.5, **base, **(ice_lines_kw or {})}
        pd_kw = {"color": "tab:orange", "linewidth": 2.0, **base, **(pd_line_kw or {})}
        self.lines_, self.ice_lines_, self.deciles_vlines_ = [], [], []
        self.bars_, self.contours_, self.colorbars_ = [], [], []
        self.ale_lines_ = []
        for result, panel, ale in zip(self.results, axes.ravel(), self.ale):
            arts = _draw_panel(panel, result, self._output(result), self.subsample, rng,
                               ice_kw, pd_kw, dict(contour_kw or {}), dict(bar_kw or {}))
            self.lines_.append(arts.get("line"))
            self.ice_lines_.append(arts.get("ice", []))
            self.deciles_vlines_.append(arts.get("deciles"))
            self.bars_.append(arts.get("bars"))
            self.contours_.append(arts.get("contour"))
            self.colorbars_.append(arts.get("colorbar"))
            self.ale_lines_.append(_draw_ale(panel, result, ale, self._output(result)))
        return self

    def _output(self, result: PartialDependence) -> int:
        if self.output >= result.n_outputs:
            raise param_error(
                _OWNER, "output", f"an int in [0, {result.n_outputs - 1}] for these results",
                self.output,
            )
        return self.output


# ---------------------------------------------------------------------------------- helpers
def _check_ale(ale: Any, n_panels: int) -> list[Any]:
    from ..results.ale import AccumulatedLocalEffects

    if ale is None:
        return [None] * n_panels
    items = [ale] if isinstance(ale, AccumulatedLocalEffects) else list(ale)
    if len(items) != n_panels or not all(
        a is None or (isinstance(a, AccumulatedLocalEffects) and len(a.features) == 1)
        for a in items
    ):
        raise param_error(_OWNER, "ale", f"None or {n_panels} 1-way ALE results (or None each)",
                          ale, exc=TypeError)
    return items


def _draw_ale(ax: Any, result: PartialDependence, ale: Any, output: int) -> Any:
    """ALE on the PD axis, shifted so that its mean over the PD grid is the PD's mean there."""
    if ale is None or result.average is None or len(result.features) != 1:
        return None
    if ale.features[0] != result.features[0] or result.feature_kinds[0] != "numeric":
        raise ValueError(
            f"{_OWNER}: an ALE result of {ale.features[0]!r} cannot share the panel of the "
            f"PD of {result.features[0]!r} (numeric features only, the same feature)."
        )
    from .ale import draw_ale_line

    grid = np.asarray(result.grid_values[0], dtype=float)
    keep = ~np.isnan(grid)
    edges = np.asarray(ale.grid_values[0], dtype=float)
    ale_at = np.interp(grid[keep], edges, ale.average[output])
    offset = float(np.mean(result.average[output][keep] - ale_at))
    arts = draw_ale_line(ax, ale, output, offset=offset)
    ax.set_ylabel("partial dependence / ALE")
    ax.legend(loc="best", fontsize="small")
    return arts.get("line")


def _check_subsample(subsample: Any) -> int | float | None:
    rule = "None, an int >= 1 or a float in (0, 1]"
    if subsample is None:
        return None
    if isinstance(subsample, numbers.Integral) and not isinstance(subsample, bool):
        if int(subsample) < 1:
            raise param_error(_OWNER, "subsample", rule, subsample)
        return int(subsample)
    if isinstance(subsample, numbers.Real) and not isinstance(subsample, bool):
        if not 0 < float(subsample) <= 1:
            raise param_error(_OWNER, "subsample", rule, subsample)
        return float(subsample)
    raise param_error(_OWNER, "subsample", rule, subsample, exc=TypeError)


def _panel_entries(features: Any) -> list[tuple[Any, ...]]:
    """``features`` -> one tuple of 1 or 2 features per panel."""
    if isinstance(features, (str, numbers.Integral)):
        return [(features,)]
    entries = []
    for item in features:
        if isinstance(item, (str, numbers.Integral)):
            entries.append((item,))
        elif isinstance(item, (tuple, list)) and len(item) in (1, 2):
            entries.append(tuple(item))
        else:
            raise param_error(
                _OWNER, "features", "a list of features or pairs of features", features,
            )
    if not entries:
        raise param_error(_OWNER, "features", "a non-empty list of features", features)
    return entries


def _layout(n_panels: int, n_cols: int, ax: Any) -> tuple[Any, np.ndarray]:
    """The figure and a 2-D array of Axes holding at least ``n_panels`` panels."""
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
    axes = np.atleast_1d(np.asarray(ax, dtype=object))
    for one in axes.ravel():
        check_axes(one)
    if axes.size != n_panels:
        raise ValueError(
            f"The 'ax' parameter of {_OWNER} must hold one Axes per panel ({n_panels}). "
            f"Got {axes.size} Axes instead."
        )
    return axes.ravel()[0].figure, axes.reshape(1, -1) if axes.ndim == 1 else axes


def _draw_panel(ax, result, output, subsample, rng, ice_kw, pd_kw, contour_kw, bar_kw) -> dict:
    """Dispatch one result to its drawing function; returns the artists drawn."""
    if len(result.features) == 2:
        return _draw_two_way(ax, result, output, contour_kw)
    if result.feature_kinds[0] == "categorical":
        return _draw_categorical(ax, result, output, bar_kw)
    return _draw_numeric(ax, result, output, subsample, rng, ice_kw, pd_kw)


def _ylabel(result: PartialDependence, output: int) -> str:
    label = "centred partial dependence" if result.centered else "partial dependence"
    if result.output_names is not None:
        label += f" ({result.output_names[output]})"
    elif result.target is not None:
        label += f" ({result.target})"
    return label


def _draw_numeric(ax, result, output, subsample, rng, ice_kw, pd_kw) -> dict:
    """ICE lines (thinned), the PD line and the decile rug of one numeric feature."""
    grid = np.asarray(result.grid_values[0], dtype=float)
    finite = ~np.isnan(grid)
    arts: dict[str, Any] = {"ice": []}
    if result.individual is not None:
        ice = result.individual[output][:, finite]
        rows = _ice_rows(ice.shape[0], subsample, rng)
        arts["ice"] = ax.plot(grid[finite], ice[rows].T, **ice_kw)
    if result.average is not None:
        arts["line"] = ax.plot(grid[finite], result.average[output][finite], label="average", **pd_kw)[0]
    deciles = result.deciles[0]
    if deciles is not None and np.isfinite(deciles).all():
        trans = ax.get_xaxis_transform()
        arts["deciles"] = ax.vlines(deciles, 0, 0.05, transform=trans, color="k", linewidth=1)
    ax.set_xlabel(result.features[0])
    ax.set_ylabel(_ylabel(result, output))
    return arts


def _ice_rows(n_rows: int, subsample: int | float | None, rng: np.random.Generator) -> np.ndarray:
    if subsample is None:
        return np.arange(n_rows)
    size = subsample if isinstance(subsample, int) else max(1, int(subsample * n_rows))
    if size >= n_rows:
        return np.arange(n_rows)
    return np.sort(rng.choice(n_rows, size=size, replace=False))


def _draw_categorical(ax, result, output, bar_kw) -> dict:
    """One bar per level, ordered by PD value (largest first)."""
    values = result.average[output] if result.average is not None else result.individual[output].mean(axis=0)
    labels = [str(v) for v in result.grid_values[0]]
    order = np.argsort(-values, kind="stable")
    bars = ax.bar([labels[i] for i in order], values[order], **{"color": "tab:orange", **bar_kw})
    ax.set_xlabel(result.features[0])
    ax.set_ylabel(_ylabel(result, output))
    ax.tick_params(axis="x", labelrotation=45)
    return {"bars": bars}


def _draw_two_way(ax, result, output, contour_kw) -> dict:
    """Filled contour for numeric x numeric, heatmap when a feature is categorical."""
    values = result.average[output] if result.average is not None else result.individual[output].mean(axis=0)
    g0, g1 = (np.asarray(g) for g in result.grid_values)
    numeric = all(k == "numeric" for k in result.feature_kinds) and min(len(g0), len(g1)) > 1
    if numeric:
        x, y = np.asarray(g1, dtype=float), np.asarray(g0, dtype=float)
        keep0, keep1 = ~np.isnan(y), ~np.isnan(x)
        artist = ax.contourf(x[keep1], y[keep0], values[np.ix_(keep0, keep1)],
                             **{"levels": 8, "cmap": "viridis", **contour_kw})
    else:
        artist = ax.imshow(values, aspect="auto", origin="lower",
                           **{"cmap": "viridis", **contour_kw})
        ax.set_xticks(range(len(g1)), [_tick(v) for v in g1], rotation=45)
        ax.set_yticks(range(len(g0)), [_tick(v) for v in g0])
    colorbar = ax.figure.colorbar(artist, ax=ax, label=_ylabel(result, output))
    ax.set_xlabel(result.features[1])
    ax.set_ylabel(result.features[0])
    return {"contour": artist, "colorbar": colorbar}


def _tick(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{value:.3g}"
    return str(value)
