"""The result of "explain the change": every feature's importance before and after a drift event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

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

    References
    ----------
    F. Fumagalli, M. Muschalik, E. Hullermeier, B. Hammer, "Incremental Permutation Feature
    Importance (iPFI)", Machine Learning 112, 2023 (explaining a change by the importances
    around it).

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
    """

    feature_names: list[str]
    before: np.ndarray
    before_se: np.ndarray
    after: np.ndarray
    after_se: np.ndarray
    event: Any
    before_rows: tuple[int, int]
    after_rows: tuple[int, int]

    @property
    def change(self) -> np.ndarray:
        """``after - before``, shape (k,)."""
        return np.asarray(self.after) - np.asarray(self.before)

    def to_frame(self) -> pd.DataFrame:
        """One row per feature: ``feature``, ``before``, ``before_low``, ``before_high``,
        ``after``, ``after_low``, ``after_high``, ``change`` (95 % normal bounds)."""
        import pandas as pd

        b, a = np.asarray(self.before), np.asarray(self.after)
        sb, sa = np.asarray(self.before_se), np.asarray(self.after_se)
        return pd.DataFrame({
            "feature": list(self.feature_names),
            "before": b, "before_low": b - _Z95 * sb, "before_high": b + _Z95 * sb,
            "after": a, "after_low": a - _Z95 * sa, "after_high": a + _Z95 * sa,
            "change": a - b,
        })

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the event, the rows and the per-feature table."""
        return {
            "event": self.event.to_dict(),
            "before_rows": list(self.before_rows),
            "after_rows": list(self.after_rows),
            "features": self.to_frame().to_dict(orient="records"),
        }
