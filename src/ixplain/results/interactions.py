"""Result objects for Shapley interactions: static (:class:`ShapleyInteractions`) and over a
stream (:class:`InteractionTimeSeries`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import TYPE_CHECKING, Any

import numpy as np

from .importance import _jsonable

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["InteractionTimeSeries", "ShapleyInteractions"]


def _triple_index(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The triples ``i < j < k`` in lexicographic order, as three int arrays."""
    t = np.array(list(combinations(range(n), 3)), dtype=np.intp).reshape(-1, 3)
    return t[:, 0], t[:, 1], t[:, 2]


def _cube(triples: np.ndarray, n: int) -> np.ndarray:
    """Triple values in lexicographic ``i < j < k`` order -> symmetric (n, n, n) tensor."""
    out = np.zeros(triples.shape[:-1] + (n, n, n))
    idx = _triple_index(n)
    for a, b, c in permutations(range(3)):
        out[..., idx[a], idx[b], idx[c]] = triples
    return out


def _square(pairs: np.ndarray, n: int) -> np.ndarray:
    """Pair values in lexicographic ``i < j`` order -> symmetric (n, n) matrix, zero diagonal."""
    out = np.zeros(pairs.shape[:-1] + (n, n))
    ii, jj = np.triu_indices(n, 1)
    out[..., ii, jj] = pairs
    out[..., jj, ii] = pairs
    return out


@dataclass
class ShapleyInteractions:
    """Main terms and pairwise interaction terms of an interaction index, with standard errors.

    Attributes
    ----------
    main_values : ndarray of shape (n_features,)
        Order-1 terms (for ``"k-SII"`` and ``"FSII"`` the part of each feature's value not
        shared with a pair; for ``"SII"`` the Shapley values).
    main_std : ndarray of shape (n_features,)
        Standard errors of ``main_values``.
    pair_values : ndarray of shape (n_features, n_features)
        Symmetric matrix of the pair terms; the diagonal is 0.
    pair_std : ndarray of shape (n_features, n_features)
        Standard errors of ``pair_values`` (diagonal 0).
    feature_names : list of str
        The features (or feature groups), in the order of the arrays.
    index : str
        ``"k-SII"``, ``"SII"`` or ``"FSII"``.
    settings : dict
        How the values were computed (loss, method, draws, observations, convergence, the
        explained loss ``v(D) - v(empty)`` ...).
    triple_values : ndarray of shape (n_features, n_features, n_features) or None
        Order 3 only: the triple terms as a symmetric tensor (``[i, j, k]`` for every
        permutation of a triple of distinct features; 0 where two indices are equal).
        ``None`` for order 2.
    triple_std : ndarray of shape (n_features, n_features, n_features) or None
        Their standard errors.

    Examples
    --------
    >>> import numpy as np
    >>> r = ShapleyInteractions(np.array([0.0, 1.0]), np.array([0.0, 0.1]),
    ...                         np.array([[0.0, 2.0], [2.0, 0.0]]), np.zeros((2, 2)),
    ...                         ["a", "b"], "k-SII")
    >>> r.to_frame()
      feature_i feature_j  value  std
    0         a         a    0.0  0.0
    1         b         b    1.0  0.1
    2         a         b    2.0  0.0
    >>> r.top_pairs(1)
    [('a', 'b', 2.0)]
    """

    main_values: np.ndarray
    main_std: np.ndarray
    pair_values: np.ndarray
    pair_std: np.ndarray
    feature_names: list[str]
    index: str
    settings: dict[str, Any] = field(default_factory=dict)
    triple_values: np.ndarray | None = None
    triple_std: np.ndarray | None = None

    @classmethod
    def from_vector(
        cls, values: np.ndarray, std: np.ndarray, feature_names: Sequence[str], index: str,
        settings: dict[str, Any] | None = None, order: int = 2,
    ) -> ShapleyInteractions:
        """Build from the flat vectors: main terms, then pairs ``i < j`` in lexicographic order
        (``G + G (G - 1) / 2`` values), then for ``order=3`` the triples ``i < j < k`` in
        lexicographic order."""
        G = len(feature_names)
        P = G * (G - 1) // 2
        values = np.asarray(values, dtype=np.float64)
        std = np.asarray(std, dtype=np.float64)
        triples = {}
        if order >= 3:
            triples = {"triple_values": _cube(values[G + P :], G),
                       "triple_std": _cube(std[G + P :], G)}
        return cls(
            main_values=values[:G].copy(),
            main_std=std[:G].copy(),
            pair_values=_square(values[G : G + P], G),
            pair_std=_square(std[G : G + P], G),
            feature_names=[str(n) for n in feature_names],
            index=str(index),
            settings=dict(settings or {}),
            **triples,
        )

    @property
    def order(self) -> int:
        """Highest interaction order held (2 or 3)."""
        return 2 if self.triple_values is None else 3

    @property
    def total(self) -> float:
        """Sum of every term (``v(D) - v(empty)`` for an efficient index)."""
        out = float(self.main_values.sum() + np.triu(self.pair_values, 1).sum())
        if self.triple_values is not None:
            out += float(self.triple_values[_triple_index(len(self.feature_names))].sum())
        return out

    def top_triples(self, k: int = 5) -> list[tuple[str, str, str, float]]:
        """Order 3: the ``k`` triples with the largest absolute value, as ``(feature_i,
        feature_j, feature_k, value)``; an empty list for order 2."""
        if self.triple_values is None:
            return []
        ii, jj, kk = _triple_index(len(self.feature_names))
        vals = self.triple_values[ii, jj, kk]
        order = np.argsort(-np.abs(vals), kind="stable")[:k]
        n = self.feature_names
        return [(n[ii[p]], n[jj[p]], n[kk[p]], float(vals[p])) for p in order]

    def matrix(self) -> np.ndarray:
        """(n_features, n_features) matrix with the pair terms off and the main terms on the
        diagonal (what the heatmap shows)."""
        out = self.pair_values.copy()
        np.fill_diagonal(out, self.main_values)
        return out

    def top_pairs(self, k: int = 5) -> list[tuple[str, str, float]]:
        """The ``k`` pairs with the largest absolute value, as ``(feature_i, feature_j, value)``."""
        ii, jj = np.triu_indices(len(self.feature_names), 1)
        vals = self.pair_values[ii, jj]
        order = np.argsort(-np.abs(vals), kind="stable")[:k]
        names = self.feature_names
        return [(names[ii[p]], names[jj[p]], float(vals[p])) for p in order]

    def to_frame(self) -> pd.DataFrame:
        """Long DataFrame with columns ``feature_i``, ``feature_j``, ``value``, ``std``: the main
        terms first (``feature_j == feature_i``), then the pairs ``i < j``.

        For order 3 a ``feature_k`` column follows ``feature_j``, and the triples ``i < j < k``
        come last; a main term repeats its feature (``i, i, i``), a pair its second one
        (``i, j, j``).
        """
        import pandas as pd

        names = np.asarray(self.feature_names, dtype=object)
        ii, jj = np.triu_indices(len(names), 1)
        cols = {
            "feature_i": [names, names[ii]],
            "feature_j": [names, names[jj]],
            "value": [self.main_values, self.pair_values[ii, jj]],
            "std": [self.main_std, self.pair_std[ii, jj]],
        }
        if self.triple_values is not None and self.triple_std is not None:
            a, b, c = _triple_index(len(names))
            cols["feature_i"].append(names[a])
            cols["feature_j"].append(names[b])
            cols["feature_k"] = [names, names[jj], names[c]]
            cols["value"].append(self.triple_values[a, b, c])
            cols["std"].append(self.triple_std[a, b, c])
        order = ["feature_i", "feature_j", "feature_k", "value", "std"]
        return pd.DataFrame({k: np.concatenate(cols[k]) for k in order if k in cols})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "index": self.index,
            "feature_names": list(self.feature_names),
            "main_values": self.main_values.tolist(),
            "main_std": self.main_std.tolist(),
            "pair_values": self.pair_values.tolist(),
            "pair_std": self.pair_std.tolist(),
            **({} if self.triple_values is None or self.triple_std is None else {
                "triple_values": self.triple_values.tolist(),
                "triple_std": self.triple_std.tolist()}),
            "settings": {k: _jsonable(v) for k, v in self.settings.items()},
        }

    def __repr__(self) -> str:
        top = ", ".join(f"{a}x{b}={v:.4g}" for a, b, v in self.top_pairs(3))
        return f"ShapleyInteractions(index={self.index!r}, top pairs: {top})"

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`)."""
        from .._html import render

        return render("interactions", self)


@dataclass
class InteractionTimeSeries:
    """Interaction terms of an incremental explainer at successive points of a stream.

    Attributes
    ----------
    times : ndarray of shape (n_snapshots,)
        Stream rows seen at each snapshot.
    values : ndarray of shape (n_snapshots, G + P)
        Main terms then pair terms (``i < j``, lexicographic) at each snapshot.
    variances : ndarray of shape (n_snapshots, G + P)
        Variance of the per-observation values at each snapshot.
    feature_names : list of str
        The ``G`` features (or groups).
    index : str
    settings : dict
        ``aggregation`` and ``alpha`` (for the bands) and the explainer's settings.

    Examples
    --------
    >>> import numpy as np
    >>> ts = InteractionTimeSeries(np.array([10, 20]), np.array([[0.0, 1.0, 0.5], [0.0, 1.0, 0.7]]),
    ...                            np.zeros((2, 3)), ["a", "b"], "k-SII")
    >>> ts.pair_frame()
            a x b
    n_seen
    10        0.5
    20        0.7
    """

    times: np.ndarray
    values: np.ndarray
    variances: np.ndarray
    feature_names: list[str]
    index: str
    settings: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_history(
        cls, history: Sequence[Any], feature_names: Sequence[str], index: str,
        settings: dict[str, Any] | None = None,
    ) -> InteractionTimeSeries:
        """Build from an explainer's ``history_`` (``(n_seen, values, variances)`` tuples whose
        arrays start with the ``G + P`` interaction values)."""
        G = len(feature_names)
        width = G + G * (G - 1) // 2
        times = np.array([h[0] for h in history], dtype=np.int64)
        values = np.array([np.asarray(h[1])[:width] for h in history], dtype=np.float64)
        variances = np.array([np.asarray(h[2])[:width] for h in history], dtype=np.float64)
        shape = (len(history), width)
        return cls(times, values.reshape(shape), variances.reshape(shape),
                   [str(n) for n in feature_names], str(index), dict(settings or {}))

    @property
    def pair_labels(self) -> list[str]:
        """``"a x b"`` for every pair, in the order of the pair columns."""
        names = self.feature_names
        ii, jj = np.triu_indices(len(names), 1)
        return [f"{names[i]} x {names[j]}" for i, j in zip(ii, jj)]

    def pair_frame(self) -> pd.DataFrame:
        """Wide DataFrame of the pair terms: index ``n_seen``, one column per pair."""
        import pandas as pd

        G = len(self.feature_names)
        return pd.DataFrame(
            self.values[:, G:], index=pd.Index(self.times, name="n_seen"),
            columns=self.pair_labels,
        )

    def to_frame(self) -> pd.DataFrame:
        """Long DataFrame: ``n_seen``, ``feature_i``, ``feature_j``, ``value``, ``variance``
        (main terms with ``feature_j == feature_i``)."""
        import pandas as pd

        names = np.asarray(self.feature_names, dtype=object)
        ii, jj = np.triu_indices(len(names), 1)
        fi, fj = np.concatenate([names, names[ii]]), np.concatenate([names, names[jj]])
        n, w = self.values.shape
        return pd.DataFrame(
            {
                "n_seen": np.repeat(self.times, w),
                "feature_i": np.tile(fi, n),
                "feature_j": np.tile(fj, n),
                "value": self.values.reshape(-1),
                "variance": self.variances.reshape(-1),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "index": self.index,
            "feature_names": list(self.feature_names),
            "n_seen": self.times.tolist(),
            "values": self.values.tolist(),
            "variances": self.variances.tolist(),
            "settings": {k: _jsonable(v) for k, v in self.settings.items()},
        }

    def __repr__(self) -> str:
        G, n = len(self.feature_names), len(self.times)
        rows = f", rows {self.times[0]}..{self.times[-1]}" if n else ""
        return (f"InteractionTimeSeries(index={self.index!r}, {n} snapshots{rows}, {G} features, "
                f"{G * (G - 1) // 2} pairs)")

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`)."""
        from .._html import render

        return render("interaction_series", self)
