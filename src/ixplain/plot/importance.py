"""Feature importance plots: bars with error bars, and importances over stream time.

Both follow scikit-learn's Display pattern: build from data (``from_result`` /
``from_explainer``), then :meth:`plot` draws on an axes (a new one if none is given), returns
``self`` and keeps the matplotlib artists in attributes that end in ``_``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .._validation import check_float, check_int, param_error
from ._axes import axes_for, check_kw, check_plot_input

__all__ = ["FeatureImportanceDisplay", "ImportanceTraceDisplay"]


# ====================================================================== bars


class FeatureImportanceDisplay:
    """Horizontal bars of feature importances with error bars, sorted by value.

    Build it with :meth:`from_result` (a :class:`~ixplain.results.FeatureImportance`) or
    :meth:`from_explainer` (an incremental explainer: its current importances and confidence
    bound), or directly from arrays and call :meth:`plot`.

    Parameters
    ----------
    importances : array-like of shape (n_features,)
        The values (bar lengths).
    errors : array-like of shape (n_features,) or None
        Half-widths of the error bars (standard deviations, or confidence bounds); ``None``:
        no error bars.
    feature_names : sequence of str of length n_features
    error_label : str, default="std"
        What the error bars show (used in the axis label).

    Attributes
    ----------
    bars_ : matplotlib BarContainer
        One bar per shown feature, the most important at the top.
    errorbars_ : matplotlib ErrorbarContainer or None
    order_ : ndarray of shape (n_shown,)
        Indices (into ``feature_names``) of the shown features, top bar first.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import FeatureImportanceDisplay
    >>> disp = FeatureImportanceDisplay(np.array([0.1, 0.5]), np.array([0.01, 0.05]), ["a", "b"])
    >>> disp = disp.plot()
    >>> [t.get_text() for t in disp.ax_.get_yticklabels()]
    ['b', 'a']
    """

    def __init__(
        self,
        importances: Any,
        errors: Any,
        feature_names: Sequence[str],
        *,
        error_label: str = "std",
    ) -> None:
        self.importances = np.asarray(importances, dtype=np.float64).reshape(-1)
        self.errors = None if errors is None else np.asarray(errors, dtype=np.float64).reshape(-1)
        self.feature_names = [str(n) for n in feature_names]
        self.error_label = error_label
        n = len(self.feature_names)
        if self.importances.shape != (n,) or (self.errors is not None and self.errors.shape != (n,)):
            raise ValueError(
                f"FeatureImportanceDisplay needs one importance (and one error) per feature: got "
                f"{self.importances.shape[0]} importances, "
                f"{None if self.errors is None else self.errors.shape[0]} errors and {n} names."
            )

    @classmethod
    def from_result(
        cls, result: Any, *, max_features: int | None = None, ax: Any = None, **plot_kwargs: Any
    ) -> FeatureImportanceDisplay:
        """Plot a :class:`~ixplain.results.FeatureImportance` (``importances_mean`` with
        ``importances_std`` as error bars).

        Parameters
        ----------
        result : FeatureImportance
        max_features : int, optional
            Show only the ``max_features`` most important features.
        ax : matplotlib Axes, optional
        **plot_kwargs
            Passed to :meth:`plot`.
        """
        check_plot_input(
            result, ("importances_mean", "importances_std", "feature_names"),
            "FeatureImportanceDisplay.from_result",
            "a FeatureImportance (from permutation_importance or sage)",
            "An incremental explainer goes to FeatureImportanceDisplay.from_explainer; a "
            "PartialDependence to PartialDependenceDisplay.from_result.",
        )
        disp = cls(result.importances_mean, result.importances_std, result.feature_names)
        return disp.plot(ax=ax, max_features=max_features, **plot_kwargs)

    @classmethod
    def from_explainer(
        cls,
        explainer: Any,
        *,
        delta: float = 0.05,
        max_features: int | None = None,
        ax: Any = None,
        **plot_kwargs: Any,
    ) -> FeatureImportanceDisplay:
        """Plot an incremental explainer's current ``importances_`` with
        ``confidence_bound(delta)`` as error bars.

        Parameters
        ----------
        explainer : IncrementalExplainer
            iPFI or iSAGE (one value per feature), after some observations.
        delta : float in (0, 1], default=0.05
            The bound holds with probability ``1 - delta``.
        max_features : int, optional
        ax : matplotlib Axes, optional
        **plot_kwargs
            Passed to :meth:`plot`.

        Raises
        ------
        ValueError
            If the explainer has not explained any observation yet.
        """
        check_plot_input(
            explainer, ("importances_", "confidence_bound"),
            "FeatureImportanceDisplay.from_explainer", "an incremental explainer (IncrementalPFI, "
            "IncrementalSAGE)", "A FeatureImportance result goes to "
            "FeatureImportanceDisplay.from_result.",
        )
        names = getattr(explainer, "feature_names_", None)
        if not names:
            raise ValueError(
                f"{type(explainer).__name__} has not explained any observation yet; nothing to "
                "plot."
            )
        disp = cls(
            explainer.importances_,
            explainer.confidence_bound(delta),
            names,
            error_label=f"{1 - delta:.0%} bound",
        )
        return disp.plot(ax=ax, max_features=max_features, **plot_kwargs)

    def plot(
        self,
        ax: Any = None,
        *,
        max_features: int | None = None,
        color: Any = "C0",
        bar_kw: dict[str, Any] | None = None,
    ) -> FeatureImportanceDisplay:
        """Draw the bars.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; default a new figure.
        max_features : int, optional
            Show only the ``max_features`` largest importances.
        color : matplotlib colour, default="C0"
        bar_kw : dict, optional
            Extra keyword arguments for ``Axes.barh``.

        Returns
        -------
        self

        Raises
        ------
        TypeError
            If ``bar_kw`` is not a dict (or None).
        """
        owner = "FeatureImportanceDisplay.plot"
        bar_kw = check_kw(bar_kw, "bar_kw", owner)
        if max_features is not None:
            check_int(max_features, "max_features", owner, min_value=1)
        self.order_ = _order_by_value(self.importances, max_features)
        self.figure_, self.ax_ = axes_for(ax)
        self.bars_ = _draw_bars(
            self.ax_, self.importances, self.errors, self.order_, color, bar_kw or {}
        )
        self.errorbars_ = self.bars_.errorbar
        _label_bars(self.ax_, self.feature_names, self.order_, self.error_label, self.errors)
        return self


def _order_by_value(values: np.ndarray, max_features: int | None) -> np.ndarray:
    """Indices from the largest to the smallest value (NaN last), at most ``max_features``."""
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")
    return order if max_features is None else order[:max_features]


def _draw_bars(
    ax: Any, values: np.ndarray, errors: np.ndarray | None, order: np.ndarray, color: Any,
    bar_kw: dict[str, Any],
) -> Any:
    positions = np.arange(len(order))[::-1]  # the first in order at the top
    xerr = None if errors is None else errors[order]
    kw = {"color": color, "capsize": 3, **bar_kw}
    return ax.barh(positions, values[order], xerr=xerr, **kw)


def _label_bars(
    ax: Any, names: list[str], order: np.ndarray, error_label: str, errors: np.ndarray | None
) -> None:
    positions = np.arange(len(order))[::-1]
    ax.set_yticks(positions, [names[i] for i in order])
    ax.axvline(0.0, color="0.3", linewidth=0.8)
    ax.set_xlabel("importance" + ("" if errors is None else f" (error bars: {error_label})"))


# ====================================================================== over stream time


class ImportanceTraceDisplay:
    """Feature importances over stream time, with confidence bands and drift markers.

    Parameters
    ----------
    times : array-like of shape (n_snapshots,)
        Stream position of each snapshot (observations seen).
    importances : array-like of shape (n_snapshots, n_features)
    bands : array-like of shape (n_snapshots, n_features) or None
        Half-width of the band drawn around each line; ``None``: no bands.
    feature_names : sequence of str of length n_features
    drift_points : sequence of float, optional
        Stream positions of known (or detected) drifts, drawn as vertical lines: finite
        numbers (``numpy`` numbers too; not ``bool``, not strings).

    Raises
    ------
    TypeError
        If ``drift_points`` is not a sequence or holds something other than a number.
    ValueError
        If ``drift_points`` holds NaN or an infinite value (a line that cannot be drawn).

    Attributes
    ----------
    lines_ : list of matplotlib Line2D
        One line per shown feature, in ``features_`` order.
    bands_ : list of matplotlib PolyCollection
        One band per shown feature (empty without bands).
    drift_lines_ : list of matplotlib Line2D
        One vertical line per drift point.
    features_ : list of int
        Indices of the shown features.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import ImportanceTraceDisplay
    >>> disp = ImportanceTraceDisplay([10, 20, 30], np.array([[0.1, 0.0], [0.2, 0.0], [0.3, 0.1]]),
    ...                               np.full((3, 2), 0.05), ["a", "b"], drift_points=[15])
    >>> disp = disp.plot()
    >>> len(disp.lines_), len(disp.bands_), len(disp.drift_lines_)
    (2, 2, 1)
    """

    def __init__(
        self,
        times: Any,
        importances: Any,
        bands: Any,
        feature_names: Sequence[str],
        *,
        drift_points: Sequence[float] | None = None,
    ) -> None:
        self.times = np.asarray(times, dtype=np.float64).reshape(-1)
        self.feature_names = [str(n) for n in feature_names]
        shape = (self.times.size, len(self.feature_names))
        self.importances = np.asarray(importances, dtype=np.float64).reshape(shape)
        self.bands = None if bands is None else np.asarray(bands, dtype=np.float64).reshape(shape)
        self.drift_points = _check_drift_points(drift_points, type(self).__name__)

    @classmethod
    def from_result(
        cls,
        result: Any,
        *,
        delta: float = 0.05,
        aggregation: str | None = None,
        alpha: float | None = None,
        features: Sequence[str] | None = None,
        drift_points: Sequence[float] | None = None,
        ax: Any = None,
        **plot_kwargs: Any,
    ) -> ImportanceTraceDisplay:
        """Plot an :class:`~ixplain.results.ImportanceTimeSeries`.

        The band is the Chebyshev ``1 - delta`` half-width of the smoothed estimate (the spread
        term of ``confidence_bound``): ``sqrt(var * alpha / (2 - alpha) / delta)`` for
        ``aggregation="ema"``, ``sqrt(var / n / delta)`` for ``"mean"`` (``n`` = the snapshot's
        stream position). ``aggregation`` and ``alpha`` default to ``result.settings``; without
        them no band is drawn.

        Parameters
        ----------
        result : ImportanceTimeSeries
        delta : float in (0, 1], default=0.05
        aggregation : {"ema", "mean"}, optional
        alpha : float, optional
        features : sequence of str, optional
            Features to show (default all).
        drift_points : sequence of float, optional
        ax : matplotlib Axes, optional
        **plot_kwargs
            Passed to :meth:`plot`.
        """
        check_plot_input(
            result, ("times", "importances", "variances", "feature_names"),
            "ImportanceTraceDisplay.from_result",
            "an ImportanceTimeSeries (explainer.importance_history())",
            "An incremental explainer itself goes to ImportanceTraceDisplay.from_explainer.",
        )
        settings = getattr(result, "settings", {}) or {}
        aggregation = aggregation or settings.get("aggregation")
        alpha = alpha if alpha is not None else settings.get("alpha")
        bands = _band_halfwidth(
            np.asarray(result.variances, dtype=np.float64), np.asarray(result.times),
            aggregation, alpha, delta,
        )
        disp = cls(
            result.times, result.importances, bands, result.feature_names,
            drift_points=drift_points,
        )
        return disp.plot(ax=ax, features=features, **plot_kwargs)

    @classmethod
    def from_explainer(
        cls,
        explainer: Any,
        *,
        delta: float = 0.05,
        features: Sequence[str] | None = None,
        drift_points: Sequence[float] | None = None,
        ax: Any = None,
        **plot_kwargs: Any,
    ) -> ImportanceTraceDisplay:
        """Plot an incremental explainer's ``history_`` (iPFI, iSAGE) with its bands.

        Parameters
        ----------
        explainer : IncrementalExplainer
            With one value per feature and at least one snapshot in ``history_``.
        delta, features, drift_points, ax, **plot_kwargs
            As in :meth:`from_result`.

        Raises
        ------
        ValueError
            If the explainer has no ``history_`` snapshot yet.
        """
        from ..results.importance import ImportanceTimeSeries

        check_plot_input(
            explainer, ("history_", "aggregation", "alpha"), "ImportanceTraceDisplay.from_explainer",
            "an incremental explainer (IncrementalPFI, IncrementalSAGE)",
            "An ImportanceTimeSeries goes to ImportanceTraceDisplay.from_result.",
        )
        history = list(getattr(explainer, "history_", []))
        names = getattr(explainer, "feature_names_", None)
        if not history or not names:
            raise ValueError(
                f"{type(explainer).__name__} has no history_ snapshots yet (explain at least "
                "history_every observations); nothing to plot."
            )
        settings = {"aggregation": explainer.aggregation, "alpha": explainer.alpha}
        result = ImportanceTimeSeries.from_history(history, names, settings)
        return cls.from_result(
            result, delta=delta, features=features, drift_points=drift_points, ax=ax,
            **plot_kwargs,
        )

    def plot(
        self,
        ax: Any = None,
        *,
        features: Sequence[str] | None = None,
        band_alpha: float = 0.2,
        legend: bool = True,
        colors: Sequence[Any] | None = None,
    ) -> ImportanceTraceDisplay:
        """Draw one line (and band) per feature, and the drift markers.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        features : sequence of str, optional
            Features to show (default all).
        band_alpha : float in [0, 1], default=0.2
            Opacity of the bands.
        legend : bool, default=True
        colors : sequence of matplotlib colours, optional
            One per shown feature, in ``features`` order (to give a feature the same colour
            in several figures); default the ``C0``-``C9`` cycle.

        Returns
        -------
        self
        """
        check_float(band_alpha, "band_alpha", "ImportanceTraceDisplay.plot", low=0.0, high=1.0)
        self.features_ = _feature_indices(self.feature_names, features)
        if colors is not None and len(colors) != len(self.features_):
            raise param_error("ImportanceTraceDisplay.plot", "colors",
                              f"one colour per shown feature ({len(self.features_)})", colors)
        self.figure_, self.ax_ = axes_for(ax)
        self.lines_, self.bands_ = [], []
        for k, j in enumerate(self.features_):
            line, band = _draw_trace(
                self.ax_, self.times, self.importances[:, j],
                None if self.bands is None else self.bands[:, j],
                f"C{k % 10}" if colors is None else colors[k], self.feature_names[j], band_alpha,
            )
            self.lines_.append(line)
            if band is not None:
                self.bands_.append(band)
        self.drift_lines_ = _draw_drifts(self.ax_, self.drift_points)
        self.ax_.set_xlabel("observations seen")
        self.ax_.set_ylabel("importance")
        if legend and self.lines_:
            self.ax_.legend(handles=self.lines_, loc="best", fontsize="small")
        return self


def _band_halfwidth(
    variances: np.ndarray, times: np.ndarray, aggregation: str | None, alpha: float | None,
    delta: float,
) -> np.ndarray | None:
    """Chebyshev half-width of the estimate's spread, per snapshot and feature (or None)."""
    check_float(delta, "delta", "ImportanceTraceDisplay", low=0.0, high=1.0, low_inclusive=False)
    if aggregation == "ema" and alpha is not None:
        return np.sqrt(np.maximum(variances, 0.0) * alpha / (2 - alpha) / delta)
    if aggregation == "mean":
        n = np.maximum(times.astype(np.float64), 1.0)[:, None]
        return np.sqrt(np.maximum(variances, 0.0) / n / delta)
    return None


def _feature_indices(names: list[str], features: Sequence[str] | None) -> list[int]:
    if features is None:
        return list(range(len(names)))
    out = []
    for f in features:
        if str(f) not in names:
            raise param_error(
                "ImportanceTraceDisplay.plot", "features", f"a list of names among {names}",
                features,
            )
        out.append(names.index(str(f)))
    return out


def _draw_trace(
    ax: Any, times: np.ndarray, values: np.ndarray, band: np.ndarray | None, color: Any,
    label: str, band_alpha: float,
) -> tuple[Any, Any]:
    (line,) = ax.plot(times, values, color=color, label=label)
    poly = None
    if band is not None:
        poly = ax.fill_between(
            times, values - band, values + band, color=color, alpha=band_alpha, linewidth=0
        )
    return line, poly


def _check_drift_points(points: Any, owner: str) -> list[float]:
    """``drift_points`` as a list of floats, or the standard error naming the first bad item
    (``float()`` of it gave a bare "could not convert string to float", and NaN or inf drew
    nothing)."""
    rule = "None or a sequence of finite numbers (stream positions)"
    if points is None:
        return []
    if isinstance(points, (str, bytes, Mapping)) or not isinstance(points, Iterable) or (
            isinstance(points, np.ndarray) and points.ndim != 1):
        raise param_error(owner, "drift_points", rule, points, exc=TypeError)
    out = []
    for i, p in enumerate(points):  # (a list, a tuple, a 1-D array, a pandas Series, ...)
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real):
            raise TypeError(f"{param_error(owner, 'drift_points', rule, points)} Item {i} is "
                            f"{p!r} ({type(p).__name__}), not a number.")
        if not math.isfinite(float(p)):
            raise ValueError(f"{param_error(owner, 'drift_points', rule, points)} Item {i} is "
                             f"{float(p)!r}, which has no place on the stream axis.")
        out.append(float(p))
    return out


def _draw_drifts(ax: Any, points: list[float]) -> list[Any]:
    return [ax.axvline(p, color="0.2", linestyle="--", linewidth=1.0) for p in points]
