"""H-statistic plot: bars of the overall statistic and a heatmap of the pairwise statistic.

scikit-learn's Display pattern: :meth:`HStatisticDisplay.from_result` or
:meth:`~HStatisticDisplay.from_estimator`, then :meth:`~HStatisticDisplay.plot` draws (new
axes if none are given), returns ``self`` and keeps the artists in attributes ending in ``_``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_int, check_options, param_error
from ._axes import axes_for
from ._matplotlib import import_pyplot

__all__ = ["HStatisticDisplay"]

_OWNER = "HStatisticDisplay.plot"


class HStatisticDisplay:
    """Overall interaction strength as bars (largest on top) and pairwise strength as a heatmap.

    Parameters
    ----------
    result : HStatistic
        From :func:`ixplain.h_statistic`; its reported statistic (``result.description``) is
        drawn.

    Attributes
    ----------
    bars_ : matplotlib BarContainer or None
        The overall statistic, one bar per shown feature.
    image_ : matplotlib AxesImage or None
        The pairwise heatmap (pairs not computed are blank).
    colorbar_ : matplotlib Colorbar or None
    features_ : list of str
        The features of the heatmap, in row order (those with a computed pair).
    axes_ : list of matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import itertools, matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import HStatisticDisplay, h_statistic
    >>> X = np.array(list(itertools.product([-1.0, 1.0], repeat=3)))
    >>> h = h_statistic(lambda X: X[:, 0] * X[:, 1] + X[:, 2], X, pairs=[(0, 1), (0, 2)])
    >>> disp = HStatisticDisplay.from_result(h)
    >>> [t.get_text() for t in disp.axes_[0].get_yticklabels()], disp.features_
    (['x0', 'x1', 'x2'], ['x0', 'x1', 'x2'])
    """

    def __init__(self, result: Any) -> None:
        self.result = result

    @classmethod
    def from_result(cls, result: Any, *, ax: Any = None, **plot_kwargs: Any) -> HStatisticDisplay:
        """Plot an :class:`~ixplain.results.HStatistic` (``plot_kwargs`` go to :meth:`plot`)."""
        return cls(result).plot(ax=ax, **plot_kwargs)

    @classmethod
    def from_estimator(
        cls, model: Any, X: Any, features: Any = None, *, ax: Any = None,
        kind: str = "both", output: Any = 0, max_features: int | None = 15, **kwargs: Any
    ) -> HStatisticDisplay:
        """Compute :func:`ixplain.h_statistic` (``kwargs`` go to it) and plot it."""
        from ..methods.hstatistic import h_statistic

        result = h_statistic(model, X, features, **kwargs)
        return cls(result).plot(ax=ax, kind=kind, output=output, max_features=max_features)

    def plot(
        self, ax: Any = None, *, kind: str = "both", output: Any = 0,
        max_features: int | None = 15, cmap: str = "viridis",
    ) -> HStatisticDisplay:
        """Draw the bars and/or the heatmap.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of two Axes, optional
            Where to draw (two axes for ``kind="both"``); default a new figure.
        kind : {"both", "overall", "pairwise"}, default="both"
        output : int or str, default=0
            The output (class) to show.
        max_features : int >= 1 or None, default=15
            Bars of the ``max_features`` largest overall statistics only.
        cmap : str, default="viridis"
            Colormap of the heatmap.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For a bad ``kind``, ``output`` or ``max_features``, or ``kind="both"`` with a
            single axes.
        """
        check_options(kind, "kind", _OWNER, ("both", "overall", "pairwise"))
        check_int(max_features, "max_features", _OWNER, min_value=1, allow_none=True)
        k = self.result._outputs(output)[0]
        axes = self._axes(ax, kind)
        self.bars_ = self.image_ = self.colorbar_ = None
        self.features_: list[str] = []
        if kind in ("both", "overall"):
            self.bars_ = self._bars(axes[0], k, max_features)
        if kind in ("both", "pairwise"):
            self._heatmap(axes[-1], k, cmap)
        self.axes_ = axes
        self.figure_ = axes[0].figure
        return self

    def _axes(self, ax: Any, kind: str) -> list[Any]:
        if kind != "both":
            return [axes_for(ax)[1]]
        if ax is None:
            _, pair = import_pyplot().subplots(1, 2, figsize=(11, 4.5))
            return list(pair)
        if not hasattr(ax, "__len__") or len(ax) != 2:
            raise param_error(_OWNER, "ax", "None or a sequence of two Axes for kind='both'", ax)
        return list(ax)

    def _bars(self, ax: Any, k: int, max_features: int | None) -> Any:
        values = self.result.overall[k]
        order = np.argsort(-values, kind="stable")[:max_features]
        positions = np.arange(len(order))[::-1]
        bars = ax.barh(positions, values[order], color="C0")
        ax.set_yticks(positions, [self.result.feature_names[j] for j in order])
        ax.set_xlabel(f"overall {self.result.description}")
        return bars

    def _heatmap(self, ax: Any, k: int, cmap: str) -> None:
        pairs = self.result.pairs
        ax.set_title(f"pairwise {self.result.description}")
        if not pairs:
            ax.text(0.5, 0.5, "no pairs computed", ha="center", va="center",
                    transform=ax.transAxes)
            return
        idx = sorted({j for p in pairs for j in p})
        M = self.result.pairwise[k][np.ix_(idx, idx)]
        self.features_ = [self.result.feature_names[j] for j in idx]
        self.image_ = ax.imshow(np.ma.masked_invalid(M), cmap=cmap, vmin=0.0)
        ax.set_xticks(range(len(idx)), self.features_, rotation=45, ha="right")
        ax.set_yticks(range(len(idx)), self.features_)
        self.colorbar_ = ax.figure.colorbar(self.image_, ax=ax)
