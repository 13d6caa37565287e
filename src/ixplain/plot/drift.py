"""Display of "explain the change": paired bars of every feature's importance before and after a
drift event, or the PD curves before and after an iPDP event."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._axes import axes_for

__all__ = ["DriftExplanationDisplay"]


class DriftExplanationDisplay:
    """Before/after bars (with 95 % error bars) of the importances around one drift event; for
    an event of an :class:`~ixplain.IncrementalPDP` (``result.has_curves``), the PD curves
    before and after it with 95 % bands.

    Parameters
    ----------
    result : DriftExplanation
        From :meth:`ixplain.drift.ExplanationDriftDetector.explain_change`.

    Attributes
    ----------
    bars_before_, bars_after_ : matplotlib BarContainer or None
        One bar per feature, features sorted by ``|after - before|`` (largest change at top);
        None when curves are drawn.
    order_ : ndarray of shape (k,) or None
        Feature indices, top bar first (None when curves are drawn).
    lines_before_, lines_after_ : list of matplotlib Line2D
        One PD line per output (empty when bars are drawn).
    bands_ : list of matplotlib PolyCollection
        The 95 % bands of those lines.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain.drift import ExplanationDriftDetector
    >>> v = np.random.default_rng(1).normal(0, 0.05, (3000, 2))
    >>> v[1500:, 1] += 1.0
    >>> det = ExplanationDriftDetector().update_values(v, feature_names=["a", "b"])
    >>> disp = DriftExplanationDisplay.from_result(det.explain_change(0)).plot()
    >>> [t.get_text() for t in disp.ax_.get_yticklabels()]
    ['b', 'a']

    An iPDP event draws the PD curves (here the slope of ``x0`` flips with the sign of ``x1``):

    >>> from ixplain import IncrementalPDP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (4000, 2))
    >>> X[:, 1] = np.where(np.arange(4000) < 2000, 1.0, -1.0)
    >>> det = ExplanationDriftDetector(static_model=True)
    >>> ipdp = IncrementalPDP(lambda A: A[:, 0] * A[:, 1], "x0", drift_detector=det)
    >>> _ = ipdp.explain_many(X)
    >>> disp = DriftExplanationDisplay.from_detector(det, 0).plot()
    >>> len(disp.lines_before_), disp.ax_.get_title()
    (1, "data change in 'x0 slope' at row 20...")
    """

    def __init__(self, result: Any) -> None:
        self.result = result

    @classmethod
    def from_result(cls, result: Any) -> DriftExplanationDisplay:
        """The Display of a :class:`~ixplain.results.DriftExplanation`."""
        return cls(result)

    @classmethod
    def from_detector(cls, detector: Any, event: Any = 0) -> DriftExplanationDisplay:
        """The Display of ``detector.explain_change(event)``."""
        return cls(detector.explain_change(event))

    def plot(self, ax: Any = None) -> DriftExplanationDisplay:
        """Draw on ``ax`` (a new figure if None, with matplotlib's constrained layout so that
        long feature names fit a plain ``savefig``; a given ``ax``'s figure is left as it
        is); return ``self``. The legend names the rows behind each side, or for a model
        event ``"model at row N"`` (the model at the last reference point, and now)."""
        self.bars_before_: Any = None
        self.bars_after_: Any = None
        self.order_: Any = None
        self.lines_before_: list[Any] = []
        self.lines_after_: list[Any] = []
        self.bands_: list[Any] = []
        if self.result.has_curves:
            return self._plot_curves(ax)
        r = self.result
        frame = r.to_frame()
        k = len(frame)
        order = np.argsort(-np.abs(frame["change"].to_numpy()), kind="stable")
        self.order_ = order
        fig, ax = axes_for(ax, figsize=(6.0, 0.5 + 0.45 * k), layout="constrained")
        pos = np.arange(k)[::-1].astype(float)
        h = 0.4
        self.bars_before_ = ax.barh(pos + h / 2, frame["before"].to_numpy()[order], h,
                                    xerr=_err(frame, "before", order), color="#9ecae1",
                                    label=_rows_label("before", r))
        self.bars_after_ = ax.barh(pos - h / 2, frame["after"].to_numpy()[order], h,
                                   xerr=_err(frame, "after", order), color="#08519c",
                                   label=_rows_label("after", r))
        ax.set_yticks(pos, [frame["feature"].iloc[i] for i in order])
        e = r.event
        ax.set_title(f"{e.channel} change in {e.feature!r} at row {e.row}")
        ax.set_xlabel("mean explanation value (95 % bounds)")
        ax.legend(loc="best", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self

    def _plot_curves(self, ax: Any) -> DriftExplanationDisplay:
        r = self.result
        fig, ax = axes_for(ax, figsize=(6.0, 4.0), layout="constrained")
        grid = np.asarray(r.grid_values)
        x = grid if grid.dtype.kind in "iuf" else np.arange(len(grid))
        n_out = np.asarray(r.before_curve).shape[0]
        for which, color in (("before", "#9ecae1"), ("after", "#08519c")):
            mean = np.asarray(getattr(r, f"{which}_curve"))
            se = np.asarray(getattr(r, f"{which}_curve_se"))
            for o in range(n_out):
                label = _rows_label(which, r) + (f" [{o}]" if n_out > 1 else "")
                (line,) = ax.plot(x, mean[o], color=color, marker=".", label=label)
                getattr(self, f"lines_{which}_").append(line)
                half = np.where(np.isfinite(se[o]), 1.959963984540054 * se[o], 0.0)
                self.bands_.append(ax.fill_between(x, mean[o] - half, mean[o] + half,
                                                   color=color, alpha=0.25, linewidth=0))
        if x is not grid:
            ax.set_xticks(x, [str(v) for v in grid])
        e = r.event
        ax.set_title(f"{e.channel} change in {e.feature!r} at row {e.row}")
        ax.set_xlabel(e.feature.rsplit(" ", 1)[0] if " " in e.feature else "grid value")
        ax.set_ylabel("partial dependence (95 % bands)")
        ax.legend(loc="best", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self


def _rows_label(which: str, result: Any) -> str:
    """The legend entry of the ``which`` ("before"/"after") side: its stream rows, or for a
    model event (both sides one model, at a check row) ``"model at row N"``."""
    first, last = getattr(result, f"{which}_rows")
    if result.event.channel == "model":
        return f"model at row {last}"
    return f"{which} (rows {first}-{last})"


def _err(frame: Any, which: str, order: np.ndarray) -> np.ndarray:
    half = (frame[f"{which}_high"] - frame[which]).to_numpy()[order]
    return np.where(np.isfinite(half), half, 0.0)
