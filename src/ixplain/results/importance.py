"""Result objects for feature importance: static (:class:`FeatureImportance`) and over a stream
(:class:`ImportanceTimeSeries`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FeatureImportance", "ImportanceTimeSeries"]


@dataclass
class FeatureImportance:
    """Importance of each feature (or feature group), with one value per repeat.

    Behaves like scikit-learn's ``Bunch`` returned by
    :func:`sklearn.inspection.permutation_importance`: ``result.importances_mean`` and
    ``result["importances_mean"]`` both work, so code written for scikit-learn keeps working.

    Attributes
    ----------
    importances_mean : ndarray of shape (n_features,)
        Mean over repeats.
    importances_std : ndarray of shape (n_features,)
        Standard deviation over repeats (``ddof=0``, as scikit-learn).
    importances : ndarray of shape (n_features, n_repeats)
        Raw values: score decrease (``scoring``) or loss increase (``loss``), per repeat.
    feature_names : list of str
        Names of the features or groups, in row order of the arrays.
    settings : dict
        The arguments that produced the result (method, loss or scoring, n_repeats, ...).

    Examples
    --------
    >>> import numpy as np
    >>> r = FeatureImportance.from_importances(np.array([[1.0, 3.0], [0.0, 0.0]]), ["a", "b"])
    >>> r["importances_mean"], r.importances_std
    (array([2., 0.]), array([1., 0.]))
    >>> r.to_frame()["importances_mean"].to_dict()
    {'a': 2.0, 'b': 0.0}
    """

    importances_mean: np.ndarray
    importances_std: np.ndarray
    importances: np.ndarray
    feature_names: list[str]
    settings: dict[str, Any] = field(default_factory=dict)

    _KEYS = ("importances_mean", "importances_std", "importances")

    @classmethod
    def from_importances(
        cls,
        importances: np.ndarray,
        feature_names: Sequence[str],
        settings: dict[str, Any] | None = None,
    ) -> FeatureImportance:
        """Build the result from the raw ``(n_features, n_repeats)`` array."""
        imp = np.asarray(importances, dtype=np.float64)
        if imp.ndim == 1:
            imp = imp[:, None]
        return cls(
            importances_mean=imp.mean(axis=1),
            importances_std=imp.std(axis=1),
            importances=imp,
            feature_names=[str(n) for n in feature_names],
            settings=dict(settings or {}),
        )

    # Bunch-like access ----------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        if key in self._KEYS or key in ("feature_names", "settings"):
            return getattr(self, key)
        raise KeyError(f"{key!r}; available keys: {list(self._KEYS)}")

    def keys(self) -> list[str]:
        """The scikit-learn keys: ``importances_mean``, ``importances_std``, ``importances``."""
        return list(self._KEYS)

    def __iter__(self) -> Iterator[str]:
        return iter(self._KEYS)

    def __contains__(self, key: object) -> bool:
        return key in self._KEYS

    # conversion ----------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """DataFrame indexed by feature with ``importances_mean`` and ``importances_std``."""
        import pandas as pd

        return pd.DataFrame(
            {"importances_mean": self.importances_mean, "importances_std": self.importances_std},
            index=pd.Index(self.feature_names, name="feature"),
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (lists of floats)."""
        return {
            "feature_names": list(self.feature_names),
            "importances_mean": self.importances_mean.tolist(),
            "importances_std": self.importances_std.tolist(),
            "importances": self.importances.tolist(),
            "settings": {k: _jsonable(v) for k, v in self.settings.items()},
        }

    def __repr__(self) -> str:
        pairs = ", ".join(
            f"{n}={m:.4g}" for n, m in zip(self.feature_names[:6], self.importances_mean[:6])
        )
        more = ", ..." if len(self.feature_names) > 6 else ""
        return f"FeatureImportance({pairs}{more})"

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`)."""
        from .._html import render

        return render("importance", self)


@dataclass
class ImportanceTimeSeries:
    """Importances of an incremental explainer at successive points of a stream.

    Attributes
    ----------
    times : ndarray of shape (n_snapshots,)
        Number of stream rows seen at each snapshot.
    importances : ndarray of shape (n_snapshots, n_features)
    variances : ndarray of shape (n_snapshots, n_features)
    feature_names : list of str
    settings : dict

    Examples
    --------
    >>> import numpy as np
    >>> ts = ImportanceTimeSeries(np.array([10, 20]), np.array([[0.1, 0.0], [0.2, 0.0]]),
    ...                           np.zeros((2, 2)), ["a", "b"])
    >>> ts.to_frame()
              a    b
    n_seen
    10      0.1  0.0
    20      0.2  0.0
    """

    times: np.ndarray
    importances: np.ndarray
    variances: np.ndarray
    feature_names: list[str]
    settings: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_history(
        cls, history: Sequence[Any], feature_names: Sequence[str], settings: dict | None = None
    ) -> ImportanceTimeSeries:
        """Build from an explainer's ``history_`` (``(n_seen, values, variances)`` tuples)."""
        d = len(feature_names)
        times = np.array([h[0] for h in history], dtype=np.int64)
        values = np.array([h[1] for h in history], dtype=np.float64).reshape(len(history), d)
        variances = np.array([h[2] for h in history], dtype=np.float64).reshape(len(history), d)
        return cls(times, values, variances, [str(n) for n in feature_names], dict(settings or {}))

    def to_frame(self, long: bool = False) -> pd.DataFrame:
        """Wide DataFrame (index ``n_seen``, one column per feature), or long with
        ``long=True`` (columns ``n_seen``, ``feature``, ``importance``, ``variance``)."""
        import pandas as pd

        wide = pd.DataFrame(
            self.importances, index=pd.Index(self.times, name="n_seen"), columns=self.feature_names
        )
        if not long:
            return wide
        n, d = self.importances.shape
        return pd.DataFrame(
            {
                "n_seen": np.repeat(self.times, d),
                "feature": np.tile(np.asarray(self.feature_names, dtype=object), n),
                "importance": self.importances.reshape(-1),
                "variance": self.variances.reshape(-1),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "feature_names": list(self.feature_names),
            "n_seen": self.times.tolist(),
            "importances": self.importances.tolist(),
            "variances": self.variances.tolist(),
            "settings": {k: _jsonable(v) for k, v in self.settings.items()},
        }

    def __repr__(self) -> str:
        n = len(self.times)
        if n == 0:
            return f"ImportanceTimeSeries(no snapshots, {len(self.feature_names)} features)"
        last = ", ".join(f"{name}={v:.4g}" for name, v in zip(self.feature_names[:6],
                                                                self.importances[-1][:6]))
        more = ", ..." if len(self.feature_names) > 6 else ""
        return (f"ImportanceTimeSeries({n} snapshots, rows {self.times[0]}..{self.times[-1]}; "
                f"last: {last}{more})")

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`)."""
        from .._html import render

        return render("importance_series", self)


def _jsonable(v: Any) -> Any:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return repr(v)
