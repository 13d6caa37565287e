"""``ChangeDisplay``: paired importance bars with intervals, and overlaid PD/ALE curves with bands.

scikit-learn's Display pattern: :meth:`ChangeDisplay.from_result` takes a
:class:`~ixplain.change.ChangeExplanation`; :meth:`ChangeDisplay.plot` draws the paired bars
(side a, side b and the change ``b - a`` with its interval per feature, the significant ones
marked), :meth:`ChangeDisplay.plot_curve` one feature's curves of both sides with their bands
and the change with its band. Both return ``self`` and keep their artists in attributes ending
in ``_``; matplotlib is imported lazily.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_int, param_error
from ..plot._axes import axes_for
from ._curves import CurveChange
from ._payload import _curve_list, _labels

__all__ = ["ChangeDisplay"]

_OWNER = "ChangeDisplay"
_COLORS = ("#8c8c8c", "#1f77b4", "#d62728")  # side a, side b, the change


class ChangeDisplay:
    """Paired bars of an importance change and overlaid curves of a PD/ALE change.

    Parameters
    ----------
    importance : ImportanceChange or None
        Per-feature ``a``, ``b``, ``delta``, ``lower``, ``upper``, ``significant`` (arrays of
        shape (n_features,)) and ``features``.
    curves : list of CurveChange, default=()
        The curve changes (largest ``max |delta|`` first).
    labels : tuple of str, default=("model a", "model b")
        Names of the two sides.
    method : str, default="pfi"
        The importance method's name (axis label).

    Attributes
    ----------
    bars_a_, bars_b_ : matplotlib BarContainer
        Side a's and side b's bars (after :meth:`plot`).
    delta_ : matplotlib ErrorbarContainer
        The changes with their intervals.
    order_ : ndarray of shape (n_shown,)
        Indices of the shown features, top row first (largest ``|delta|``).
    significant_labels_ : list of str
        Tick labels of the significant features (marked ``*``).
    lines_ : dict of str to Line2D
        ``{"a", "b", "delta"}`` curves of the last :meth:`plot_curve`.
    bands_ : dict of str to PolyCollection
        Their bands.
    ax_, figure_ : matplotlib Axes and Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> ic = SimpleNamespace(features=["u", "v"], a=np.array([1.0, 0.2]),
    ...     b=np.array([0.1, 0.3]), delta=np.array([-0.9, 0.1]), lower=np.array([-1.1, -0.1]),
    ...     upper=np.array([-0.7, 0.3]), significant=np.array([True, False]))
    >>> disp = ChangeDisplay(ic).plot()
    >>> [t.get_text() for t in disp.ax_.get_yticklabels()]
    ['u *', 'v']
    """

    def __init__(self, importance: Any = None, curves: Any = (), *,
                 labels: tuple[str, str] = ("model a", "model b"), method: str = "pfi") -> None:
        self.importance = importance
        self.curves = [c for c in curves]
        for c in self.curves:
            if not isinstance(c, CurveChange):
                raise param_error(_OWNER, "curves", "a list of CurveChange", c, exc=TypeError)
        self.labels = (str(labels[0]), str(labels[1]))
        self.method = method

    @classmethod
    def from_result(cls, result: Any, *, method: str | None = None) -> ChangeDisplay:
        """From a :class:`~ixplain.change.ChangeExplanation` (``method``: which importance,
        default the first computed).

        Raises
        ------
        ValueError
            If ``method`` was not computed.
        """
        importance = getattr(result, "importance", None) or {}
        if method is None:
            method = next(iter(importance), None)
        elif method not in importance:
            raise param_error(_OWNER, "method", f"one of the computed methods {list(importance)}",
                              method)
        return cls(None if method is None else importance[method], _curve_list(result),
                   labels=_labels(result), method=method or "")

    # ---------------------------------------------------------------------------- bars
    def plot(self, ax: Any = None, *, top_k: int | None = None) -> ChangeDisplay:
        """Paired bars per feature: a, b, and the change with its interval (``*``: significant).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw (a new figure if None).
        top_k : int, default=None
            Show the ``top_k`` largest ``|delta|`` (default all).

        Returns
        -------
        ChangeDisplay
            ``self``.

        Raises
        ------
        ValueError
            If there is no importance change to draw.
        """
        if self.importance is None:
            raise ValueError(f"{_OWNER}.plot: the result has no importance change; use "
                             "plot_curve for curves.")
        imp = self.importance
        delta = np.asarray(imp.delta, dtype=np.float64)
        order = np.argsort(-np.abs(delta), kind="stable")
        if top_k is not None:
            order = order[:check_int(top_k, "top_k", f"{_OWNER}.plot", min_value=1)]
        n = len(order)
        fig, ax = axes_for(ax, figsize=(7.0, 1.0 + 0.45 * n), layout="constrained")
        y = np.arange(n)[::-1].astype(np.float64)
        h = 0.27
        self.bars_a_ = ax.barh(y + h, np.asarray(imp.a)[order], h, color=_COLORS[0],
                               label=self.labels[0])
        self.bars_b_ = ax.barh(y, np.asarray(imp.b)[order], h, color=_COLORS[1],
                               label=self.labels[1])
        d, lo, hi = delta[order], np.asarray(imp.lower)[order], np.asarray(imp.upper)[order]
        self.delta_ = ax.errorbar(d, y - h, xerr=[d - lo, hi - d], fmt="D", color=_COLORS[2],
                                  ecolor=_COLORS[2], capsize=3,
                                  label=f"change ({self.labels[1]} - {self.labels[0]})")
        sig = np.asarray(imp.significant, dtype=bool)[order]
        names = [str(imp.features[i]) + (" *" if s else "") for i, s in zip(order, sig)]
        ax.set_yticks(y, names)
        for tick, s in zip(ax.get_yticklabels(), sig):
            tick.set_fontweight("bold" if s else "normal")
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_xlabel(f"{self.method or 'importance'} (* significant change)")
        ax.legend(loc="lower right", fontsize="small")
        self.order_, self.significant_labels_ = order, [t for t, s in zip(names, sig) if s]
        self.ax_, self.figure_ = ax, fig
        return self

    # ---------------------------------------------------------------------------- curves
    def plot_curve(self, feature: str | None = None, ax: Any = None, *,
                   method: str | None = None) -> ChangeDisplay:
        """One feature's curves of both sides with their bands, and the change with its band.

        Parameters
        ----------
        feature : str, default=None
            Default: the curve with the largest ``max |delta|``.
        ax : matplotlib Axes, default=None
        method : {"pd", "ale"}, default=None
            Which curve of the feature (default: the first found).

        Returns
        -------
        ChangeDisplay
            ``self``.

        Raises
        ------
        ValueError
            If there is no curve (for that feature/method).
        """
        chosen = [c for c in self.curves if (feature is None or c.feature == feature)
                  and (method is None or c.method == method)]
        if not chosen:
            have = sorted({(c.feature, c.method) for c in self.curves})
            raise ValueError(f"{_OWNER}.plot_curve: no curve change for feature={feature!r}, "
                             f"method={method!r}; computed: {have}.")
        c = chosen[0]
        fig, ax = axes_for(ax, figsize=(6.4, 4.0), layout="constrained")
        numeric = c.feature_kind == "numeric"
        x = np.asarray(c.grid, dtype=np.float64) if numeric else np.arange(len(c.grid))
        self.lines_, self.bands_ = {}, {}
        series = (("a", c.a, c.a_lower, c.a_upper, self.labels[0], "-"),
                  ("b", c.b, c.b_lower, c.b_upper, self.labels[1], "-"),
                  ("delta", c.delta, c.lower, c.upper,
                   f"change ({self.labels[1]} - {self.labels[0]})", "--"))
        for (key, yv, lo, hi, name, style), color in zip(series, _COLORS):
            (self.lines_[key],) = ax.plot(x, yv, style, color=color, label=name,
                                          marker=None if numeric else "o")
            self.bands_[key] = ax.fill_between(x, lo, hi, color=color, alpha=0.2, linewidth=0)
        if not numeric:
            ax.set_xticks(x, [str(v) for v in c.grid])
        ax.axhline(0.0, color="black", linewidth=0.6)
        kind = "PD" if c.method == "pd" else "ALE"
        ax.set_xlabel(c.feature)
        ax.set_ylabel(f"{kind} (model output)")
        ax.set_title(f"{kind} of {c.feature}: max |change| {c.max_abs_delta:.3g} "
                     f"[{c.max_abs_lower:.3g}, {c.max_abs_upper:.3g}], p = {c.p_value:.2g}",
                     fontsize="medium")
        ax.legend(fontsize="small")
        self.curve_, self.ax_, self.figure_ = c, ax, fig
        return self
