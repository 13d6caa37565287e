"""Display of "explain the change": paired bars of every feature's importance before and after a
drift event."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._axes import axes_for

__all__ = ["DriftExplanationDisplay"]


class DriftExplanationDisplay:
    """Before/after bars (with 95 % error bars) of the importances around one drift event.

    Parameters
    ----------
    result : DriftExplanation
        From :meth:`ixplain.drift.ExplanationDriftDetector.explain_change`.

    Attributes
    ----------
    bars_before_, bars_after_ : matplotlib BarContainer
        One bar per feature, features sorted by ``|after - before|`` (largest change at top).
    order_ : ndarray of shape (k,)
        Feature indices, top bar first.
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
        """Draw on ``ax`` (a new figure if None); return ``self``."""
        r = self.result
        frame = r.to_frame()
        k = len(frame)
        order = np.argsort(-np.abs(frame["change"].to_numpy()), kind="stable")
        self.order_ = order
        fig, ax = axes_for(ax, figsize=(6.0, 0.5 + 0.45 * k))
        pos = np.arange(k)[::-1].astype(float)
        h = 0.4
        self.bars_before_ = ax.barh(pos + h / 2, frame["before"].to_numpy()[order], h,
                                    xerr=_err(frame, "before", order), color="#9ecae1",
                                    label=f"before (rows {r.before_rows[0]}-{r.before_rows[1]})")
        self.bars_after_ = ax.barh(pos - h / 2, frame["after"].to_numpy()[order], h,
                                   xerr=_err(frame, "after", order), color="#08519c",
                                   label=f"after (rows {r.after_rows[0]}-{r.after_rows[1]})")
        ax.set_yticks(pos, [frame["feature"].iloc[i] for i in order])
        e = r.event
        ax.set_title(f"{e.channel} change in {e.feature!r} at row {e.row}")
        ax.set_xlabel("mean explanation value (95 % bounds)")
        ax.legend(loc="best", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self


def _err(frame: Any, which: str, order: np.ndarray) -> np.ndarray:
    half = (frame[f"{which}_high"] - frame[which]).to_numpy()[order]
    return np.where(np.isfinite(half), half, 0.0)
