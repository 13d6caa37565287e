"""The result of "explain the change": every feature's importance before and after a drift event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..change._stats import holm

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DriftExplanation"]

_Z95 = 1.959963984540054


@dataclass
class DriftExplanation:
    """Mean explanation value of every feature before and after one drift event.

    Built by :meth:`ixplain.drift.ExplanationDriftDetector.explain_change`: for a data or values
    event, the means of the per-observation values over the rows of the previous regime of the
    event's feature and over the rows since the change; for a model event, the current model's
    importances on the reference sample at the last reference point and now.

    The change ``delta = after - before`` comes with the statistics of :func:`ixplain.compare`
    (the same functions): per feature a t interval and p-value -- Welch's for a data or values
    event, paired for a model event (:attr:`design`) -- and Holm's adjusted p-values across
    the features (:attr:`p_adjusted`, :attr:`significant`). The per-row explanation values are
    treated as independent draws (successive stream rows; the explainer's own smoothing is not
    in them).

    Attributes
    ----------
    feature_names : list of str
        The watched features, length ``k``.
    before, after : ndarray of shape (k,)
        Mean explanation values (the method's units, e.g. loss increase for PFI).
    before_se, after_se : ndarray of shape (k,)
        Their standard errors (``inf`` with fewer than two values).
    event : DriftEvent
        The event explained.
    before_rows, after_rows : tuple of int
        First and last stream rows behind each mean (equal for a model event: the check row).
    grid_values : ndarray of shape (n_grid,) or None
        For an event of an :class:`~ixplain.IncrementalPDP`: the grid of the PD curves below
        (the explainer's grid at the event); None otherwise.
    before_curve, after_curve : ndarray of shape (n_outputs, n_grid) or None
        The PD curves before and after the event: the mean ICE curve, on ``grid_values``, of
        the event's model (the frozen snapshot for a data event, the explainer's model when
        it is static) over the rows before the change (at most the 1,000 rows before
        ``event.start``) and over the rows since it; for a model event, the PD of the model
        on the reference sample at the last reference point and now.
    before_curve_se, after_curve_se : ndarray of shape (n_outputs, n_grid) or None
        Their standard errors.
    delta : ndarray of shape (k,)
        ``after - before`` as the test computed it (equal to :attr:`change` up to rounding).
    std_error : ndarray of shape (k,)
        Standard error of ``delta`` (``inf`` with fewer than two values a side).
    lower, upper : ndarray of shape (k,)
        Pointwise ``confidence`` interval of ``delta`` (Student t; ``-inf, inf`` with fewer
        than two values a side).
    p_value : ndarray of shape (k,)
        Unadjusted two-sided p-value of "no change" (1 with fewer than two values a side).
    design : {"independent", "paired"} or None
        ``"independent"`` (a data or values event: the rows before and after the change are
        two samples; Welch's t with the Welch-Satterthwaite degrees of freedom) or
        ``"paired"`` (a model event: the same reference rows with the same draws at both
        checks, common random numbers; t on the per-row differences). None when the result
        was built without the per-row values (the statistics are then NaN).
    procedure : str, default="holm"
        The family-wise procedure across the ``k`` features: Holm's step-down.
    level : float, default=0.05
        The family-wise level of :attr:`significant`
        (:meth:`~ixplain.drift.ExplanationDriftDetector.explain_change`'s ``level``).
    confidence : float, default=0.95
        Coverage of the pointwise intervals.

    References
    ----------
    F. Fumagalli, M. Muschalik, E. Hullermeier, B. Hammer, "Incremental Permutation Feature
    Importance (iPFI)", Machine Learning 112, 2023 (explaining a change by the importances
    around it).
    B. L. Welch, "The generalization of 'Student's' problem when several different population
    variances are involved", Biometrika 34, 1947.
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6, 1979.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain.drift import ExplanationDriftDetector
    >>> v = np.zeros((3000, 2)) + np.random.default_rng(1).normal(0, 0.05, (3000, 2))
    >>> v[1500:, 0] += 1.0
    >>> det = ExplanationDriftDetector().update_values(v, feature_names=["a", "b"])
    >>> change = det.explain_change(0)
    >>> change.to_frame()[["feature", "before", "after"]].round(1)
      feature  before  after
    0       a     0.0    1.0
    1       b    -0.0    0.0
    >>> change.design, change.significant.tolist()
    ('independent', [True, False])
    """

    feature_names: list[str]
    before: np.ndarray
    before_se: np.ndarray
    after: np.ndarray
    after_se: np.ndarray
    event: Any
    before_rows: tuple[int, int]
    after_rows: tuple[int, int]
    grid_values: np.ndarray | None = None
    before_curve: np.ndarray | None = None
    after_curve: np.ndarray | None = None
    before_curve_se: np.ndarray | None = None
    after_curve_se: np.ndarray | None = None
    delta: np.ndarray | None = None
    std_error: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    p_value: np.ndarray | None = None
    design: str | None = None
    procedure: str = "holm"
    level: float = 0.05
    confidence: float = 0.95

    def __post_init__(self) -> None:
        """Without the test's statistics: ``delta`` is :attr:`change`, the others NaN."""
        if self.delta is None:
            self.delta = self.change
        nan = np.full(np.shape(self.delta), np.nan)
        for name in ("std_error", "lower", "upper", "p_value"):
            if getattr(self, name) is None:
                setattr(self, name, nan.copy())

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickle; a pickle from before the test's statistics gets them as NaN."""
        self.__dict__.update(state)
        self.__post_init__()

    @property
    def change(self) -> np.ndarray:
        """``after - before``, shape (k,)."""
        return np.asarray(self.after) - np.asarray(self.before)

    @property
    def p_adjusted(self) -> np.ndarray:
        """Holm-adjusted p-values across the ``k`` features, shape (k,)."""
        return holm(np.asarray(self.p_value, dtype=float))

    @property
    def significant(self) -> np.ndarray:
        """``p_adjusted <= level`` (bool, shape (k,)): the probability of any false finding
        among the features is at most ``level``."""
        return np.asarray(self.p_adjusted <= self.level, dtype=bool)

    def to_frame(self, kind: str = "values") -> pd.DataFrame:
        """The comparison as a table (95 % normal bounds).

        Parameters
        ----------
        kind : {"values", "curves"}, default="values"
            ``"values"``: one row per watched feature: ``feature``, ``before``,
            ``before_low``, ``before_high``, ``after``, ``after_low``, ``after_high``,
            ``change``, then the test: ``delta``, ``lower``, ``upper``, ``p_value``,
            ``p_adjusted``, ``significant`` (see the attributes). ``"curves"`` (iPDP events): one row per output and grid value:
            ``output``, ``grid_value`` and the same value columns for the PD curves.

        Raises
        ------
        ValueError
            For ``kind="curves"`` when the event has no PD curves, or an unknown ``kind``.
        """
        import pandas as pd

        if kind == "curves":
            return self._curves_frame()
        if kind != "values":
            raise ValueError("The 'kind' parameter of DriftExplanation.to_frame must be one of "
                             f"['values', 'curves']. Got {kind!r} instead.")
        b, a = np.asarray(self.before), np.asarray(self.after)
        sb, sa = np.asarray(self.before_se), np.asarray(self.after_se)
        return pd.DataFrame({
            "feature": list(self.feature_names),
            "before": b, "before_low": b - _Z95 * sb, "before_high": b + _Z95 * sb,
            "after": a, "after_low": a - _Z95 * sa, "after_high": a + _Z95 * sa,
            "change": a - b,
            "delta": np.asarray(self.delta, dtype=float),
            "lower": np.asarray(self.lower, dtype=float),
            "upper": np.asarray(self.upper, dtype=float),
            "p_value": np.asarray(self.p_value, dtype=float), "p_adjusted": self.p_adjusted,
            "significant": self.significant,
        })

    @property
    def has_curves(self) -> bool:
        """Whether the result holds before/after PD curves (an iPDP event)."""
        return self.grid_values is not None and self.before_curve is not None

    def _curves_frame(self) -> pd.DataFrame:
        import pandas as pd

        if not self.has_curves:
            raise ValueError("DriftExplanation.to_frame(kind='curves'): this event has no PD "
                             "curves (only events of an IncrementalPDP do).")
        b, a = np.asarray(self.before_curve), np.asarray(self.after_curve)
        sb, sa = np.asarray(self.before_curve_se), np.asarray(self.after_curve_se)
        n_out, g = b.shape
        return pd.DataFrame({
            "output": np.repeat(np.arange(n_out), g),
            "grid_value": np.tile(np.asarray(self.grid_values, dtype=object), n_out),
            "before": b.ravel(), "before_low": (b - _Z95 * sb).ravel(),
            "before_high": (b + _Z95 * sb).ravel(),
            "after": a.ravel(), "after_low": (a - _Z95 * sa).ravel(),
            "after_high": (a + _Z95 * sa).ravel(), "change": (a - b).ravel(),
        })

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the event, the rows, the per-feature table, the test's
        ``design``, ``procedure``, ``level`` and ``confidence`` (and the PD curves' table
        under ``"curves"`` for an iPDP event)."""
        out = {
            "event": self.event.to_dict(),
            "before_rows": list(self.before_rows),
            "after_rows": list(self.after_rows),
            "features": self.to_frame().to_dict(orient="records"),
            "design": self.design, "procedure": self.procedure, "level": float(self.level),
            "confidence": float(self.confidence),
        }
        if self.has_curves:
            out["curves"] = self.to_frame("curves").to_dict(orient="records")
        return out

    def __repr__(self) -> str:
        e = self.event
        change = self.change
        if len(change) and np.isfinite(change).any():
            j = int(np.nanargmax(np.where(np.isfinite(change), np.abs(change), -1.0)))
            largest = (f"; largest change: {self.feature_names[j]} {self.before[j]:.4g} -> "
                       f"{self.after[j]:.4g}")
        else:
            largest = ""
        return (f"DriftExplanation({e.channel} event on {e.feature!r} at row {e.row}, start "
                f"{e.start}; {len(self.feature_names)} features{largest})")

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`)."""
        from .._html import render

        return render("drift_explanation", self)
