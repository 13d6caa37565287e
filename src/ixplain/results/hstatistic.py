"""Result of Friedman's H-statistic: overall and pairwise interaction strength."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_bool, check_options, param_error

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HStatistic"]


@dataclass
class HStatistic:
    """Friedman and Popescu's H-statistics of a model (see :func:`ixplain.h_statistic`).

    Both the normalised statistics (``H^2``: share of a variance explained by interactions) and
    the unnormalised ones (the numerators: mean squared interaction effect, in squared units of
    the prediction; their square root is on the prediction's scale) are kept; ``normalize`` and
    ``squared`` choose which one :attr:`overall`, :attr:`pairwise`, :meth:`to_frame` and the
    Display report.

    Attributes
    ----------
    overall_h2 : ndarray of shape (n_outputs, n_features)
        ``H^2_j``: share of the prediction variance that comes from interactions of feature
        ``j`` with any other features.
    overall_unnormalized : ndarray of shape (n_outputs, n_features)
        Numerator of ``H^2_j``: ``mean_w (F - F_j - F_{-j})^2``.
    pairwise_h2 : ndarray of shape (n_outputs, n_features, n_features)
        ``H^2_jk`` (symmetric): share of the joint effect of ``j`` and ``k`` that comes from
        their interaction. NaN for the pairs that were not computed and on the diagonal.
    pairwise_unnormalized : ndarray of shape (n_outputs, n_features, n_features)
        Numerator of ``H^2_jk``: ``mean_w (F_jk - F_j - F_k)^2`` (NaN where not computed).
    prediction_variance : ndarray of shape (n_outputs,)
        ``mean_w F^2``, the weighted variance of the prediction on the rows used (the
        denominator of ``H^2_j``).
    pairs : list of tuple of int
        The computed pairs ``(j, k)``, ``j < k``, as positions in ``feature_names``.
    feature_names : list of str
    output_names : list of str
    normalize, squared : bool
        The statistic reported by :attr:`overall` / :attr:`pairwise` / :meth:`to_frame`.
    settings : dict
        How it was computed (``method``, ``n_rows``, ``n_max``, ``pairwise_m``, ``eps``).
    roots : tuple of two ndarrays or None, default=None
        The square roots of ``overall_unnormalized`` and ``pairwise_unnormalized`` (the
        statistic ``normalize=False, squared=False`` reports), when they were computed on
        scaled outputs: for outputs above about 1e154 the numerators exceed the float range
        (inf) while their roots do not. None: ``numpy.sqrt`` of the numerators.

    Examples
    --------
    >>> import numpy as np
    >>> r = HStatistic(np.array([[0.5, 0.0]]), np.array([[1.0, 0.0]]),
    ...                np.array([[[np.nan, 0.25], [0.25, np.nan]]]),
    ...                np.array([[[np.nan, 1.0], [1.0, np.nan]]]), np.array([2.0]),
    ...                [(0, 1)], ["a", "b"], ["y"])
    >>> frame = r.to_frame()
    >>> frame["feature_i"].tolist(), frame["feature_j"].isna().tolist(), frame["value"].tolist()
    (['a', 'b', 'a'], [True, True, False], [0.5, 0.0, 0.25])
    >>> r.with_statistic(normalize=False, squared=False).overall
    array([[1., 0.]])
    """

    overall_h2: np.ndarray
    overall_unnormalized: np.ndarray
    pairwise_h2: np.ndarray
    pairwise_unnormalized: np.ndarray
    prediction_variance: np.ndarray
    pairs: list[tuple[int, int]]
    feature_names: list[str]
    output_names: list[str]
    normalize: bool = True
    squared: bool = True
    settings: dict[str, Any] = field(default_factory=dict)
    roots: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @property
    def description(self) -> str:
        """Name of the reported statistic, e.g. ``"H^2 (normalized)"``."""
        return ("H^2" if self.squared else "H") + (
            " (normalized)" if self.normalize else " (unnormalized)"
        )

    @property
    def overall(self) -> np.ndarray:
        """The reported overall statistic: ndarray of shape (n_outputs, n_features)."""
        return self._report(self.overall_h2, self.overall_unnormalized, 0)

    @property
    def pairwise(self) -> np.ndarray:
        """The reported pairwise statistic: ndarray of shape (n_outputs, n_features,
        n_features), NaN where not computed."""
        return self._report(self.pairwise_h2, self.pairwise_unnormalized, 1)

    def _report(self, h2: np.ndarray, num: np.ndarray, which: int) -> np.ndarray:
        if self.squared:
            return h2 if self.normalize else num
        if not self.normalize and self.roots is not None:
            return self.roots[which]
        return np.sqrt(h2 if self.normalize else num)

    def with_statistic(self, *, normalize: bool = True, squared: bool = True) -> HStatistic:
        """The same result reporting another statistic (no recomputation).

        Parameters
        ----------
        normalize : bool, default=True
            ``H^2`` (True) or its numerator (False).
        squared : bool, default=True
            The squared statistic (True) or its square root (False).
        """
        owner = "HStatistic.with_statistic"
        normalize = check_bool(normalize, "normalize", owner)
        squared = check_bool(squared, "squared", owner)
        return HStatistic(**{**self.__dict__, "normalize": normalize, "squared": squared})

    def to_frame(self, output: Any = None) -> pd.DataFrame:
        """Long table: one row per feature (``feature_j`` missing) then one per computed pair.

        Parameters
        ----------
        output : str or int, optional
            Keep one output (name or position); default all, in an ``output`` column.

        Returns
        -------
        DataFrame
            Columns ``output``, ``feature_i``, ``feature_j``, ``h2`` (normalised),
            ``unnormalized`` (numerator) and ``value`` (the reported statistic).
        """
        import pandas as pd

        outputs = self._outputs(output)
        rows: list[dict[str, Any]] = []
        for k in outputs:
            for j, name in enumerate(self.feature_names):
                rows.append(self._row(k, name, None, self.overall_h2[k, j],
                                      self.overall_unnormalized[k, j], self.overall[k, j]))
            for j, m in self.pairs:
                rows.append(self._row(k, self.feature_names[j], self.feature_names[m],
                                      self.pairwise_h2[k, j, m],
                                      self.pairwise_unnormalized[k, j, m], self.pairwise[k, j, m]))
        frame = pd.DataFrame(rows, columns=["output", "feature_i", "feature_j", "h2",
                                            "unnormalized", "value"])
        return frame.drop(columns="output") if output is not None else frame

    def _row(self, k: int, fi: str, fj: str | None, h2: float, num: float, value: float) -> dict:
        return {"output": self.output_names[k], "feature_i": fi, "feature_j": fj,
                "h2": float(h2), "unnormalized": float(num), "value": float(value)}

    def _outputs(self, output: Any) -> list[int]:
        if output is None:
            return list(range(len(self.output_names)))
        if isinstance(output, (int, np.integer)) and not isinstance(output, bool):
            if 0 <= int(output) < len(self.output_names):
                return [int(output)]
            raise param_error("HStatistic", "output", f"a position in [0, "
                              f"{len(self.output_names)})", output)
        check_options(str(output), "output", "HStatistic", self.output_names)
        return [self.output_names.index(str(output))]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (NaN written as None)."""

        return {
            "feature_names": list(self.feature_names),
            "output_names": list(self.output_names),
            "statistic": self.description,
            "overall_h2": _nan_to_none(self.overall_h2),
            "overall_unnormalized": _nan_to_none(self.overall_unnormalized),
            "pairwise_h2": _nan_to_none(self.pairwise_h2),
            "pairwise_unnormalized": _nan_to_none(self.pairwise_unnormalized),
            "prediction_variance": self.prediction_variance.tolist(),
            "pairs": [list(p) for p in self.pairs],
            "settings": {k: v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)
                         for k, v in self.settings.items()},
        }

    def __repr__(self) -> str:
        top = np.argsort(-self.overall[0], kind="stable")[:5]
        shown = ", ".join(f"{self.feature_names[j]}={self.overall[0, j]:.3g}" for j in top)
        more = ", ..." if len(self.feature_names) > 5 else ""
        return f"HStatistic({self.description}: {shown}{more}; {len(self.pairs)} pairs)"

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`)."""
        from .._html import render

        return render("hstatistic", self)


def _nan_to_none(a: np.ndarray) -> list:
    """Nested lists of floats with NaN written as None (JSON has no NaN)."""
    if a.ndim > 1:
        return [_nan_to_none(x) for x in a]
    return [None if np.isnan(v) else float(v) for v in a]
