"""Shapley interaction plots: a pair heatmap with the main terms on the diagonal, and the top
pairs over stream time with confidence bands.

Both follow scikit-learn's Display pattern: build from data (``from_result`` /
``from_explainer``), then :meth:`plot` draws on an axes (a new one if none is given), returns
``self`` and keeps the matplotlib artists in attributes that end in ``_``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_int, param_error
from ._axes import axes_for
from .importance import ImportanceTraceDisplay, _band_halfwidth

__all__ = ["InteractionHeatmapDisplay", "InteractionTraceDisplay"]


class InteractionHeatmapDisplay:
    """Heatmap of pairwise interaction terms, main terms on the diagonal.

    Parameters
    ----------
    matrix : array-like of shape (n_features, n_features)
        Symmetric; off the diagonal the pair terms, on it the main terms.
    std : array-like of shape (n_features, n_features) or None
        Standard errors of the cells; with ``mark_significant`` a cell whose interval
        ``value +- 2 std`` excludes 0 gets a ``*``.
    feature_names : sequence of str of length n_features
    index : str, default="k-SII"
        Named in the colour bar.

    Attributes
    ----------
    image_ : matplotlib AxesImage
    texts_ : ndarray of matplotlib Text or None, shape (n_features, n_features)
        The cell annotations (``None`` entries where not annotated).
    colorbar_ : matplotlib Colorbar
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import InteractionHeatmapDisplay
    >>> m = np.array([[0.0, 1.0], [1.0, 1.0]])
    >>> disp = InteractionHeatmapDisplay(m, np.full((2, 2), 0.1), ["a", "b"]).plot()
    >>> disp.texts_[0, 1].get_text(), disp.image_.get_array().shape
    ('1*', (2, 2))
    """

    def __init__(
        self, matrix: Any, std: Any, feature_names: Sequence[str], *, index: str = "k-SII"
    ) -> None:
        self.feature_names = [str(n) for n in feature_names]
        n = len(self.feature_names)
        self.matrix = np.asarray(matrix, dtype=np.float64)
        self.std = None if std is None else np.asarray(std, dtype=np.float64)
        if self.matrix.shape != (n, n) or (self.std is not None and self.std.shape != (n, n)):
            raise ValueError(
                f"InteractionHeatmapDisplay needs ({n}, {n}) matrices for {n} feature names; "
                f"got {self.matrix.shape} and {None if self.std is None else self.std.shape}."
            )
        self.index = index

    @classmethod
    def from_result(
        cls, result: Any, *, ax: Any = None, **plot_kwargs: Any
    ) -> InteractionHeatmapDisplay:
        """Plot a :class:`~ixplain.ShapleyInteractions` (standard errors for the marks).

        Parameters
        ----------
        result : ShapleyInteractions
        ax : matplotlib Axes, optional
        **plot_kwargs
            Passed to :meth:`plot`.
        """
        std = result.pair_std.copy()
        np.fill_diagonal(std, result.main_std)
        disp = cls(result.matrix(), std, result.feature_names, index=result.index)
        return disp.plot(ax=ax, **plot_kwargs)

    @classmethod
    def from_explainer(
        cls, explainer: Any, *, ax: Any = None, **plot_kwargs: Any
    ) -> InteractionHeatmapDisplay:
        """Plot an :class:`~ixplain.IncrementalShapleyInteractions`'s current estimate.

        Raises
        ------
        ValueError
            If the explainer has not explained any observation yet.
        """
        return cls.from_result(explainer.to_result(), ax=ax, **plot_kwargs)

    def plot(
        self,
        ax: Any = None,
        *,
        cmap: str = "RdBu_r",
        annotate: bool = True,
        mark_significant: bool = True,
        fmt: str = ".2g",
    ) -> InteractionHeatmapDisplay:
        """Draw the heatmap (colours symmetric around 0).

        Parameters
        ----------
        ax : matplotlib Axes, optional
        cmap : str, default="RdBu_r"
        annotate : bool, default=True
            Write each cell's value.
        mark_significant : bool, default=True
            Append ``*`` to cells whose ``+- 2 std`` interval excludes 0 (needs ``std``).
        fmt : str, default=".2g"
            Format of the annotations.

        Returns
        -------
        self
        """
        self.figure_, self.ax_ = axes_for(ax)
        lim = float(np.nanmax(np.abs(self.matrix))) if self.matrix.size else 1.0
        lim = lim if lim > 0 else 1.0
        self.image_ = self.ax_.imshow(self.matrix, cmap=cmap, vmin=-lim, vmax=lim)
        n = len(self.feature_names)
        self.ax_.set_xticks(np.arange(n), self.feature_names, rotation=45, ha="right")
        self.ax_.set_yticks(np.arange(n), self.feature_names)
        self.colorbar_ = self.figure_.colorbar(self.image_, ax=self.ax_)
        self.colorbar_.set_label(f"{self.index} (diagonal: main terms)")
        self.texts_ = np.full((n, n), None, dtype=object)
        if annotate:
            self._annotate(fmt, mark_significant, lim)
        return self

    def _annotate(self, fmt: str, mark_significant: bool, lim: float) -> None:
        n = len(self.feature_names)
        for i in range(n):
            for j in range(n):
                value = self.matrix[i, j]
                star = ""
                if mark_significant and self.std is not None:
                    star = "*" if abs(value) > 2 * self.std[i, j] else ""
                color = "white" if abs(value) > 0.6 * lim else "black"
                self.texts_[i, j] = self.ax_.text(
                    j, i, f"{value:{fmt}}{star}", ha="center", va="center", color=color,
                    fontsize="small",
                )


class InteractionTraceDisplay(ImportanceTraceDisplay):
    """The strongest pair terms over stream time, with confidence bands and drift markers.

    Built with :meth:`from_result` (an :class:`~ixplain.InteractionTimeSeries`) or
    :meth:`from_explainer`; the arguments and attributes are those of
    :class:`~ixplain.ImportanceTraceDisplay`, one line per pair (labels ``"a x b"``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import InteractionTimeSeries, InteractionTraceDisplay
    >>> ts = InteractionTimeSeries(np.array([10, 20]), np.array([[0, 0, 0, 1.0, 0, 0.2],
    ...                            [0, 0, 0, 1.2, 0, 0.1]]), np.ones((2, 6)), ["a", "b", "c"],
    ...                            "k-SII", {"aggregation": "ema", "alpha": 0.01})
    >>> disp = InteractionTraceDisplay.from_result(ts, top=2)
    >>> [line.get_label() for line in disp.lines_], len(disp.bands_)
    (['a x b', 'b x c'], 2)
    """

    @classmethod
    def from_result(  # type: ignore[override]
        cls,
        result: Any,
        *,
        top: int = 5,
        pairs: Sequence[str] | None = None,
        delta: float = 0.05,
        drift_points: Sequence[float] | None = None,
        ax: Any = None,
        **plot_kwargs: Any,
    ) -> InteractionTraceDisplay:
        """Plot the ``top`` pairs (largest absolute value at any snapshot) of a time series.

        Parameters
        ----------
        result : InteractionTimeSeries
        top : int, default=5
            How many pairs to show (ignored when ``pairs`` is given).
        pairs : sequence of str, optional
            Pair labels to show (``"a x b"``, as in ``result.pair_labels``).
        delta : float in (0, 1], default=0.05
            Bands are the Chebyshev ``1 - delta`` half-widths (see
            :meth:`ImportanceTraceDisplay.from_result`).
        drift_points : sequence of float, optional
        ax : matplotlib Axes, optional
        **plot_kwargs
            Passed to :meth:`plot`.
        """
        check_int(top, "top", "InteractionTraceDisplay.from_result", min_value=1)
        G = len(result.feature_names)
        values = np.asarray(result.values, dtype=np.float64)[:, G:]
        variances = np.asarray(result.variances, dtype=np.float64)[:, G:]
        labels = result.pair_labels
        settings = getattr(result, "settings", {}) or {}
        bands = _band_halfwidth(variances, np.asarray(result.times),
                                settings.get("aggregation"), settings.get("alpha"), delta)
        if pairs is None:
            strength = np.abs(values).max(axis=0) if len(values) else np.zeros(len(labels))
            shown = [labels[p] for p in np.argsort(-strength, kind="stable")[:top]]
        else:
            shown = [str(p) for p in pairs]
            bad = [p for p in shown if p not in labels]
            if bad:
                raise param_error("InteractionTraceDisplay.from_result", "pairs",
                                  f"a list of pair labels such as {labels[:3]}", pairs)
        disp = cls(result.times, values, bands, labels, drift_points=drift_points)
        return disp.plot(ax=ax, features=shown, **plot_kwargs)

    @classmethod
    def from_explainer(  # type: ignore[override]
        cls, explainer: Any, *, top: int = 5, delta: float = 0.05,
        drift_points: Sequence[float] | None = None, ax: Any = None, **plot_kwargs: Any,
    ) -> InteractionTraceDisplay:
        """Plot an :class:`~ixplain.IncrementalShapleyInteractions`'s ``history_``.

        Raises
        ------
        ValueError
            If the explainer has no ``history_`` snapshot yet.
        """
        return cls.from_result(explainer.to_time_series(), top=top, delta=delta,
                               drift_points=drift_points, ax=ax, **plot_kwargs)

    def plot(self, ax: Any = None, **kwargs: Any) -> InteractionTraceDisplay:
        """Draw as :meth:`ImportanceTraceDisplay.plot` (``features`` are pair labels)."""
        super().plot(ax=ax, **kwargs)
        self.ax_.set_ylabel("interaction")
        return self
