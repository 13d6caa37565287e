"""ixai's ``FeatureImportancePlotter`` (``ixai.visualization``) drawn with ixplain's Displays.

The plotter collects ``{feature: importance}`` dicts per *facet* (one per explainer, say
``"iPFI"``) and performance values per facet, and :meth:`FeatureImportancePlotter.plot` draws
them: importances over time with :class:`ixplain.ImportanceTraceDisplay` (one per facet, the
same colour per feature), performance above them with the same Display. matplotlib is imported
when :meth:`~FeatureImportancePlotter.plot` is called. ixai's ``ChangePlotter`` is not provided.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...plot._matplotlib import import_pyplot
from ...plot.importance import ImportanceTraceDisplay

__all__ = ["FeatureImportancePlotter"]

#: The keywords of ixai's ``plot`` (its line-graph options); the others are refused.
_PLOT_KEYWORDS = frozenset({
    "x_data", "line_names", "names_to_highlight", "facet_not_to_highlight", "line_styles",
    "std", "title", "y_label", "x_label", "y_ticks", "x_ticks", "y_min", "y_max", "x_min",
    "x_max", "legend_style", "secondary_legends", "base_color", "color_list", "h_lines",
    "v_lines", "markevery",
})


def _check_keywords(kw: Mapping, where: str) -> None:
    unknown = sorted(set(kw) - _PLOT_KEYWORDS)
    if unknown:
        raise TypeError(
            f"FeatureImportancePlotter.plot got an unexpected keyword {unknown[0]!r} in {where} "
            f"(ixai's options: {sorted(_PLOT_KEYWORDS)})."
        )


class FeatureImportancePlotter:
    """ixai's plotter of feature importances (and model performance) over a stream.

    Parameters
    ----------
    feature_names : sequence, optional
        The features drawn by default (default: those of the first update).

    Attributes
    ----------
    y_data : dict
        ``{facet: [importance dict per update]}``.
    x_data : dict
        ``{facet: [timestep per update]}`` (None where none was given).
    performance_data : dict
        ``{facet: [{"perf": value} per update]}``.
    seen_timesteps : int
        Updates without an explicit timestep.
    displays_ : list of ImportanceTraceDisplay
        After :meth:`plot`: the importance Displays (one per facet), then the performance
        Displays.
    figure_ : matplotlib Figure
        After :meth:`plot`.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> plotter = FeatureImportancePlotter(feature_names=["a", "b"])
    >>> for t in range(5):
    ...     plotter.update({"a": 0.1 * t, "b": 0.0}, facet_name="iPFI")
    ...     plotter.update_performance(0.9, facet_name="accuracy")
    >>> plotter.plot()
    >>> [len(d.lines_) for d in plotter.displays_]
    [2, 1]
    """

    def __init__(self, feature_names: Any = None) -> None:
        self.feature_names = None if feature_names is None else list(feature_names)
        self.y_data: dict[str, list[dict]] = {}
        self.x_data: dict[str, list[Any]] = {}
        self.performance_data: dict[str, list[dict]] = {}
        self.seen_timesteps = 0

    def update(self, importance_values: Mapping, facet_name: str | None = None,
               timestep: float | None = None) -> None:
        """Record one ``{feature: importance}`` dict of facet ``facet_name``.

        Parameters
        ----------
        importance_values : dict
        facet_name : str, optional
            Default ``"importance_values"``.
        timestep : float, optional
            The stream position (default: the update's number).

        Raises
        ------
        TypeError
            If ``importance_values`` is not a dict.
        """
        if not isinstance(importance_values, Mapping):
            raise TypeError(
                "The 'importance_values' parameter of FeatureImportancePlotter.update must be a "
                f"dict of feature -> importance. Got {type(importance_values).__name__} instead."
            )
        if timestep is None:
            self.seen_timesteps += 1
        facet = "importance_values" if facet_name is None else facet_name
        self.y_data.setdefault(facet, []).append(dict(importance_values))
        self.x_data.setdefault(facet, []).append(timestep)

    def update_performance(self, performance_value: float, facet_name: str) -> None:
        """Record one performance value of facet ``facet_name`` (e.g. ``"accuracy"``)."""
        self.performance_data.setdefault(facet_name, []).append({"perf": performance_value})

    def __repr__(self) -> str:
        return f"FeatureImportancePlotter(facets={list(self.y_data)}, updates={self.seen_timesteps})"

    def _names(self, plot_kw: Mapping) -> list[Any]:
        names = plot_kw.get("names_to_highlight") or self.feature_names
        if names is None:
            first = next((v[0] for v in self.y_data.values() if v), {})
            names = list(first)
        return list(names)

    @staticmethod
    def _times(steps: list[Any]) -> np.ndarray:
        return np.asarray([i + 1 if s is None else s for i, s in enumerate(steps)], dtype=float)

    def _draw_importances(self, ax: Any, plot_kw: Mapping) -> list[ImportanceTraceDisplay]:
        names = self._names(plot_kw)
        colors = plot_kw.get("color_list") or [f"C{k % 10}" for k in range(len(names))]
        displays = []
        for facet, rows in self.y_data.items():
            values = np.asarray([[r.get(n, np.nan) for n in names] for r in rows], dtype=float)
            disp = ImportanceTraceDisplay(self._times(self.x_data[facet]), values, None,
                                          [str(n) for n in names])
            displays.append(disp.plot(ax=ax, legend=False, colors=list(colors)[: len(names)]))
        for h in plot_kw.get("h_lines") or []:
            ax.axhline(**h)
        for v in plot_kw.get("v_lines") or []:
            ax.axvline(**v)
        ax.set_xlabel(plot_kw.get("x_label", "Samples"))
        ax.set_ylabel(plot_kw.get("y_label", "Feature Importance Values"))
        self._limits(ax, plot_kw)
        if displays and displays[0].lines_:
            ax.legend(handles=displays[0].lines_, **(plot_kw.get("legend_style") or {}))
        return displays

    @staticmethod
    def _limits(ax: Any, kw: Mapping) -> None:
        if kw.get("y_min") is not None or kw.get("y_max") is not None:
            ax.set_ylim(kw.get("y_min"), kw.get("y_max"))
        if kw.get("x_min") is not None or kw.get("x_max") is not None:
            ax.set_xlim(kw.get("x_min"), kw.get("x_max"))

    def _draw_performance(self, ax: Any, performances: Mapping, kw: Mapping) -> list[Any]:
        displays = []
        colors = kw.get("color_list") or ["red", "black"]
        for k, (facet, rows) in enumerate(performances.items()):
            vals = [r["perf"] if isinstance(r, Mapping) else r for r in rows]
            disp = ImportanceTraceDisplay(np.arange(1, len(vals) + 1), np.asarray(vals, float),
                                          None, [str(facet)])
            displays.append(disp.plot(ax=ax, legend=False, colors=[colors[k % len(colors)]]))
        ax.set_xlabel("")
        ax.set_ylabel(kw.get("y_label", "Perf."))
        self._limits(ax, kw)
        return displays

    def plot(self, figsize: tuple[float, float] | None = None,
             model_performances: Mapping | None = None, performance_kw: Mapping | None = None,
             save_name: str | None = None, **plot_kw: Any) -> None:
        """Draw the importances (and the performance above them, if any was recorded).

        Parameters
        ----------
        figsize : (float, float), optional
            ixai's order: (height, width); default (5, 10).
        model_performances : dict, optional
            ``{facet: values}`` drawn instead of the recorded performance.
        performance_kw : dict, optional
            ixai's options for the performance panel (``y_min``, ``y_max``, ``y_label``, ...).
        save_name : str, optional
            Save the figure there (200 dpi).
        **plot_kw
            ixai's options for the importance panel (``names_to_highlight``,
            ``legend_style``, ``title``, ``h_lines``, ``v_lines``, ``y_min``, ...).

        Raises
        ------
        TypeError
            For a keyword ixai's plotter does not have.
        """
        perf_kw = dict(performance_kw or {})
        _check_keywords(plot_kw, "plot_kw")
        _check_keywords(perf_kw, "performance_kw")
        plt = import_pyplot()
        height, width = (5, 10) if figsize is None else figsize
        performances = self.performance_data if model_performances is None else model_performances
        self.displays_: list[ImportanceTraceDisplay] = []
        if performances:
            fig, (perf_ax, fi_ax) = plt.subplots(
                2, 1, sharex="col", figsize=(width, height),
                gridspec_kw={"height_ratios": [1, 4], "hspace": 0.0})
            top = perf_ax
        else:
            fig, fi_ax = plt.subplots(figsize=(width, height))
            top = fi_ax
        self.displays_ += self._draw_importances(fi_ax, plot_kw)
        if performances:
            self.displays_ += self._draw_performance(perf_ax, performances, perf_kw)
        if plot_kw.get("title"):
            top.set_title(plot_kw["title"])
        self.figure_ = fig
        if save_name is not None:
            fig.savefig(save_name, dpi=200)
        plt.show()
