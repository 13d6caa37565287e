"""Result objects of :func:`ixplain.compare`: what changed between two models or datasets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ._payload import to_payload

if TYPE_CHECKING:  # pandas is imported when a frame is asked for
    import pandas as pd

__all__ = ["ChangeExplanation", "Discrepancy", "ImportanceChange", "RankingChange"]


def _floats(a: Any) -> list[float]:
    return [float(v) for v in np.asarray(a, dtype=float).ravel()]


@dataclass(frozen=True)
class ImportanceChange:
    """Per-feature change of one importance method, ``delta = b - a``, with paired intervals.

    Attributes
    ----------
    method : str
        ``"pfi"`` or ``"sage"`` (``"pfi"`` is prediction-sensitivity PFI with
        ``label_free=True``), or ``"interactions"`` (pairwise Shapley interaction index of
        the loss game, ``ixplain.change._interactions``).
    features : list of str
        The features (or groups), length ``n_features``; ``"a x b"`` pairs for
        ``"interactions"``.
    a, b : ndarray of shape (n_features,)
        The importance on side a and side b (mean of the per-row values; loss units).
    delta : ndarray of shape (n_features,)
        ``b - a``.
    lower, upper : ndarray of shape (n_features,)
        Pointwise ``confidence`` interval of ``delta`` (Student t on the per-row paired
        differences, or Welch's t for two independent samples: see :attr:`design`).
    std_error : ndarray of shape (n_features,)
        Standard error of ``delta``.
    p_value : ndarray of shape (n_features,)
        Unadjusted p-value of the null ``|delta| <= min_change``.
    p_adjusted : ndarray of shape (n_features,)
        Holm-adjusted p-values across the features of this method.
    significant : ndarray of bool, shape (n_features,)
        ``p_adjusted <= level``: the family-wise error rate across features is at most
        ``level``.
    procedure : str
        ``"holm"``.
    level : float
        The family-wise level.
    confidence : float
        Coverage of the pointwise intervals.
    design : str
        ``"paired"`` (same rows, common random numbers) or ``"independent"``.
    n_a, n_b : int
        Rows on each side.
    min_change : float
        The null's half-width (0: no change at all).
    """

    method: str
    features: list[str]
    a: np.ndarray
    b: np.ndarray
    delta: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    std_error: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    significant: np.ndarray
    procedure: str = "holm"
    level: float = 0.05
    confidence: float = 0.95
    design: str = "paired"
    n_a: int = 0
    n_b: int = 0
    min_change: float = 0.0

    def to_frame(self) -> pd.DataFrame:
        """One row per feature: method, feature, a, b, delta, lower, upper, std_error,
        p_value, p_adjusted, significant."""
        import pandas as pd

        return pd.DataFrame({
            "method": self.method, "feature": list(self.features), "a": self.a, "b": self.b,
            "delta": self.delta, "lower": self.lower, "upper": self.upper,
            "std_error": self.std_error, "p_value": self.p_value,
            "p_adjusted": self.p_adjusted, "significant": np.asarray(self.significant, bool),
        })

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (lists of floats)."""
        out: dict[str, Any] = {"method": self.method, "features": list(self.features)}
        for k in ("a", "b", "delta", "lower", "upper", "std_error", "p_value", "p_adjusted"):
            out[k] = _floats(getattr(self, k))
        out["significant"] = [bool(v) for v in self.significant]
        out.update(procedure=self.procedure, level=self.level, confidence=self.confidence,
                   design=self.design, n_a=self.n_a, n_b=self.n_b, min_change=self.min_change)
        return out


@dataclass(frozen=True)
class RankingChange:
    """Agreement of the two sides' importance rankings, with bootstrap-over-rows intervals.

    Attributes
    ----------
    method : str
    k : int
        Ranks counted by NDCG.
    ndcg : float
        NDCG@k of side b's ranking with side a's importances as relevance (1: b keeps a's
        top ``k`` in a's order).
    ndcg_lower, ndcg_upper : float
        Percentile bootstrap interval (rows resampled; pairs kept together when paired).
    kendall_tau : float
        Kendall's tau-b of the two importance vectors.
    tau_lower, tau_upper : float
    top_a, top_b : list of str
        Each side's top ``k`` features.
    n_bootstrap : int
    confidence : float
    """

    method: str
    k: int
    ndcg: float
    ndcg_lower: float
    ndcg_upper: float
    kendall_tau: float
    tau_lower: float
    tau_upper: float
    top_a: list[str]
    top_b: list[str]
    n_bootstrap: int
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {k: (list(v) if isinstance(v, list) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class Discrepancy:
    """The expected squared discrepancy ``E[(f_b(x) - f_a(x))^2]`` of the two models.

    Attributes
    ----------
    value : float
        Mean over the rows of the squared prediction difference (mean over outputs for
        multi-output models; squared output units).
    lower, upper : float
        ``confidence`` interval (t on the per-row squared differences).
    std_error : float
    relative : float
        ``value / Var(f_a(x))`` (the share of side a's prediction variance; NaN if it is 0).
    n : int
        Rows it was computed on.
    confidence : float

    References
    ----------
    M. Muschalik, F. Fumagalli, B. Hammer, E. Huellermeier, "Agnostic Explanation of Model
    Change based on Feature Importance", KI - Kuenstliche Intelligenz 36, 2022.
    """

    value: float
    lower: float
    upper: float
    std_error: float
    relative: float
    n: int
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return dict(self.__dict__)


@dataclass
class ChangeExplanation:
    """What changed between side a and side b (two models, two datasets, or both).

    Attributes
    ----------
    importance : dict of str to ImportanceChange
        Per importance method (``"pfi"``, ``"sage"``; ``"interactions"``: per pair).
    ranking : dict of str to RankingChange
        Ranking agreement per importance method.
    discrepancy : Discrepancy or None
        The two models' expected squared discrepancy (None for one model).
    curves : dict
        PD/ALE curve changes by method (``"pd"``, ``"ale"``), built by
        ``ixplain.change._curves.curve_changes``.
    shift : object or None
        The explanation-shift test (``ixplain.change._shift.explanation_shift_test``).
    settings : dict
        The arguments that produced it.
    notes : list of str
        What was left out and why (e.g. an ALE curve of a feature whose two sides' ranges do
        not overlap).

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import compare
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> res = compare(lambda A: A[:, 0], X, model_b=lambda A: A[:, 0] + A[:, 1],
    ...               label_free=True, random_state=0)
    >>> res.to_frame()[["feature", "a", "significant"]].values.tolist()
    [['x0', 1.97..., False], ['x1', 0.0, True]]
    """

    importance: dict[str, ImportanceChange] = field(default_factory=dict)
    ranking: dict[str, RankingChange] = field(default_factory=dict)
    discrepancy: Discrepancy | None = None
    curves: dict[str, Any] = field(default_factory=dict)
    shift: Any = None
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """One row per method x feature: method, feature, a, b, delta, lower, upper,
        std_error, p_value, p_adjusted, significant."""
        frames = [imp.to_frame() for imp in self.importance.values()]
        import pandas as pd

        if not frames:
            empty = np.zeros(0)
            return ImportanceChange("", [], empty, empty, empty, empty, empty, empty, empty,
                                    empty, empty).to_frame()
        return pd.concat(frames, ignore_index=True)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form of everything computed."""
        curves = {k: (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in self.curves.items()}
        return {
            "importance": {k: v.to_dict() for k, v in self.importance.items()},
            "ranking": {k: v.to_dict() for k, v in self.ranking.items()},
            "discrepancy": None if self.discrepancy is None else self.discrepancy.to_dict(),
            "curves": curves,
            "shift": None if self.shift is None else self.shift.to_dict(),
            "settings": dict(self.settings),
            "notes": list(self.notes),
        }

    def to_payload(self, **kwargs: Any) -> dict[str, Any]:
        """The HTML report's payload (``ixplain.change._payload.to_payload``)."""
        return to_payload(self, **kwargs)

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`): per method the
        changes ``b - a`` by ``|b - a|`` with their intervals, the curve changes, the shift
        test and the notes."""
        from .._html import render

        return render("change", self)

    def __repr__(self) -> str:
        parts = []
        for name, imp in self.importance.items():
            found = [f for f, s in zip(imp.features, imp.significant) if s]
            parts.append(f"{name}: {len(found)} of {len(imp.features)} changed {found}")
        return f"ChangeExplanation({'; '.join(parts) or 'no importance'})"
