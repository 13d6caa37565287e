"""One array representation of a tree ensemble, with one split rule for every library.

Every supported library (scikit-learn trees and forests, GradientBoosting, HistGradientBoosting,
LightGBM, XGBoost) is converted into a :class:`TreeEnsemble`: flat node arrays holding all trees
(global node ids), leaf values already scaled (learning rate, ``1 / n_trees`` for forests), a
constant ``base`` (init / baseline / base score, in raw-score space) and an output ``link``.

The canonical split rule
------------------------
Each library compares its own version of the input with its own operator. The converters move
those differences into two places, so that one traversal serves all of them:

1. **Input encoding** (:attr:`TreeEnsemble.encoders`, applied once per column): the value a tree
   compares, as float64.

   * ``"float32"``: scikit-learn trees, forests and GradientBoosting cast the input to float32;
     XGBoost does the same. Encoded value: ``float64(float32(x))``.
   * ``"float64"``: HistGradientBoosting compares float64 inputs.
   * ``"lightgbm"``: LightGBM compares float64 inputs, but drops values with ``|x| <= 1e-35``
     (``kZeroThreshold``, as float32) when it reads a row, so they become 0.0.
   * ``"hgb_categorical"``: HistGradientBoosting categorical features: negative values and
     categories unknown at fit time are treated as missing (encoded NaN); other values are cast
     to an integer code (truncation).
   * ``"lgb_categorical"``: LightGBM categorical features: ``int(x)`` (truncation); a negative
     code goes right at every node (encoded ``-1``, in no category set); NaN stays NaN.

2. **Node rule** on the encoded value ``x``:

   * ``x`` is NaN: go left iff ``missing_left[node]``;
   * numeric node: go left iff ``x <= threshold[node]``;
   * categorical node: go left iff ``0 <= int(x) < n_codes`` and ``cat_sets[cat_index[node],
     int(x)]``.

   Per library:

   * scikit-learn trees (DecisionTree/ExtraTree, forests): ``float32(x) <= threshold`` (float64);
     NaN follows ``tree_.missing_go_to_left``.
   * GradientBoosting: the same comparison, but its prediction kernel has no NaN branch, so NaN
     (``NaN <= t`` is false) always goes right.
   * HistGradientBoosting: ``x <= num_threshold`` on float64 ``x``; NaN follows
     ``missing_go_to_left``; categorical splits use ``raw_left_cat_bitsets``.
   * LightGBM (model dump): ``decision_type "<="``: ``x <= threshold``; with ``missing_type
     "NaN"`` NaN follows ``default_left``; with ``"None"`` NaN is replaced by 0.0 (so it goes
     left iff ``0 <= threshold``); ``missing_type "Zero"`` (zero as missing) is not supported.
     ``decision_type "=="`` (categorical): the categories ``a||b||c`` go left; NaN goes right
     with ``missing_type "NaN"`` and behaves as category 0 otherwise.
   * XGBoost (JSON model): ``float32(x) < split_condition`` (float32); on float32 values that is
     ``x <= nextafter(split_condition, -inf)`` in float32, which is the stored canonical
     threshold; NaN follows ``default_left``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["TreeEnsemble", "encode_column"]

_LGB_ZERO = float(np.float32(1e-35))
LINKS = ("identity", "sigmoid", "softmax", "exp")


@dataclass
class TreeEnsemble:
    """Flat arrays of an ensemble of binary trees with the canonical split rule.

    Attributes
    ----------
    feature : ndarray of shape (n_nodes,), int64
        Feature index (model column) of each split node; ``-1`` for leaves.
    threshold : ndarray of shape (n_nodes,), float64
        Numeric nodes: go left iff ``x <= threshold``.
    missing_left : ndarray of shape (n_nodes,), bool
        Where an encoded NaN goes.
    cat_index : ndarray of shape (n_nodes,), int64
        Row of :attr:`cat_sets` for categorical nodes, ``-1`` for numeric nodes and leaves.
    cat_sets : ndarray of shape (n_sets, n_codes), bool
        The category codes that go left at each categorical node.
    left, right : ndarray of shape (n_nodes,), int64
        Global ids of the children (``-1`` for leaves). A child's id is larger than its parent's.
    value : ndarray of shape (n_nodes, n_outputs), float64
        Leaf values on the raw scale, already multiplied by the learning rate or ``1 / n_trees``.
    roots : ndarray of shape (n_trees,), int64
        Global id of each tree's root.
    base : ndarray of shape (n_outputs,), float64
        Constant added to the sum of the trees (init estimator, baseline, base score).
    link : {"identity", "sigmoid", "softmax", "exp"}
        Applied to ``base + sum of leaves`` per row to give the explained output.
    encoders : tuple of str
        Input encoding of each model feature (see the module docstring).
    known_categories : dict of int to ndarray
        For ``"hgb_categorical"`` features: the category codes seen at fit time.
    library : str
        Where the trees came from (for messages).
    preprocess : callable or None
        For models that transform their input before the trees (HistGradientBoosting's ordinal
        encoding of categorical features, LightGBM's pandas categorical codes): native input ->
        float64 ndarray of shape (n_rows, n_features). None: each column read as float64.
    columns : ndarray of shape (n_features,) or None
        Input column position of each model feature (None: the same order).
    """

    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    cat_index: np.ndarray
    cat_sets: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    base: np.ndarray
    link: str
    encoders: tuple[str, ...]
    known_categories: dict[int, np.ndarray] = field(default_factory=dict)
    library: str = ""
    preprocess: Callable[[Any], np.ndarray] | None = None
    columns: np.ndarray | None = None

    def column_position(self, j: int) -> int:
        """Input column position of model feature ``j``."""
        return j if self.columns is None else int(self.columns[j])

    def model_feature(self, position: int) -> int:
        """Model feature index of input column ``position``."""
        if self.columns is None:
            return position
        return int(np.flatnonzero(self.columns == position)[0])

    @property
    def n_nodes(self) -> int:
        return int(self.feature.shape[0])

    @property
    def n_outputs(self) -> int:
        return int(self.value.shape[1])

    @property
    def n_features(self) -> int:
        return len(self.encoders)

    @property
    def is_leaf(self) -> np.ndarray:
        return self.feature < 0

    @property
    def is_categorical(self) -> np.ndarray:
        return self.cat_index >= 0

    def depth(self) -> np.ndarray:
        """Depth of every node (roots have depth 0)."""
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        frontier = self.roots
        d = 0
        while frontier.size:
            depth[frontier] = d
            internal = frontier[self.feature[frontier] >= 0]
            frontier = np.concatenate([self.left[internal], self.right[internal]])
            d += 1
        return depth

    def read(self, X_native: Any) -> np.ndarray:
        """Model input (array or DataFrame) -> float64 matrix in model feature order."""
        if self.preprocess is not None:
            return self.preprocess(X_native)
        return np.asarray(X_native, dtype=np.float64)

    def encode(self, X: np.ndarray) -> np.ndarray:
        """Encode a float64 matrix of shape (n_rows, n_features) column by column."""
        out = np.empty(X.shape, dtype=np.float64)
        for j, enc in enumerate(self.encoders):
            out[:, j] = encode_column(X[:, j], enc, self.known_categories.get(j))
        return out

    def go_left(self, x: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """The canonical rule, vectorised: does encoded value ``x[i]`` go left at ``nodes[i]``?"""
        nan = np.isnan(x)
        with np.errstate(invalid="ignore"):
            left = x <= self.threshold[nodes]
        cat = self.cat_index[nodes]
        is_cat = cat >= 0
        if is_cat.any():
            n_codes = self.cat_sets.shape[1]
            xc = x[is_cat]
            ok = ~np.isnan(xc)
            code = np.where(ok, xc, -1.0).astype(np.int64)
            ok &= (code >= 0) & (code < n_codes)
            left[is_cat] = ok & self.cat_sets[cat[is_cat], np.clip(code, 0, n_codes - 1)]
        left[nan] = self.missing_left[nodes[nan]]
        return left

    def apply(self, X_encoded: np.ndarray) -> np.ndarray:
        """Leaf reached by every row in every tree: ndarray of shape (n_rows, n_trees)."""
        n = X_encoded.shape[0]
        nodes = np.tile(self.roots, (n, 1))
        rows = np.repeat(np.arange(n), len(self.roots)).reshape(n, -1)
        while True:
            f = self.feature[nodes]
            active = f >= 0
            if not active.any():
                return nodes
            r, nd = rows[active], nodes[active]
            gl = self.go_left(X_encoded[r, f[active]], nd)
            nodes[active] = np.where(gl, self.left[nd], self.right[nd])

    def raw_predict(self, X_encoded: np.ndarray) -> np.ndarray:
        """``base + sum of the leaves``: ndarray of shape (n_rows, n_outputs)."""
        leaves = self.apply(X_encoded)
        return self.base + self.value[leaves].sum(axis=1)

    def predict(self, X_encoded: np.ndarray) -> np.ndarray:
        """The explained output: the link applied to :meth:`raw_predict`."""
        return apply_link(self.raw_predict(X_encoded), self.link, axis=1)


def encode_column(x: np.ndarray, encoder: str, known: np.ndarray | None = None) -> np.ndarray:
    """The value the trees compare, for one column of float64 inputs (see module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    if encoder == "float64":
        return x.copy()
    if encoder == "lightgbm":
        out = x.copy()
        with np.errstate(invalid="ignore"):
            out[np.abs(out) <= _LGB_ZERO] = 0.0
        return out
    if encoder == "float32":
        with np.errstate(over="ignore"):
            return x.astype(np.float32).astype(np.float64)
    if encoder == "hgb_categorical":
        out = np.full(x.shape, np.nan)
        with np.errstate(invalid="ignore"):
            ok = x >= 0
        codes = np.trunc(x[ok])
        if known is not None:
            keep = np.isin(codes, known)
            idx = np.flatnonzero(ok)
            out[idx[keep]] = codes[keep]
        else:
            out[ok] = codes
        return out
    if encoder == "lgb_categorical":
        out = np.trunc(x)
        with np.errstate(invalid="ignore"):
            out[out < 0] = -1.0
        return out
    raise ValueError(f"Unknown tree input encoder {encoder!r}.")


def apply_link(raw: np.ndarray, link: str, axis: int) -> np.ndarray:
    """Apply ``link`` to raw scores; ``axis`` is the outputs axis (for softmax)."""
    if link == "identity":
        return raw
    if link == "sigmoid":
        return _sigmoid(raw)
    if link == "exp":
        return np.exp(raw)
    if link == "softmax":
        shifted = raw - raw.max(axis=axis, keepdims=True)
        e = np.exp(shifted)
        return e / e.sum(axis=axis, keepdims=True)
    raise ValueError(f"Unknown link {link!r}.")


def _sigmoid(raw: np.ndarray) -> np.ndarray:
    # scipy's expit is the numerically careful logistic function used by scikit-learn's losses
    from scipy.special import expit

    return np.asarray(expit(raw))


def build(
    trees: list[dict[str, Any]],
    *,
    n_outputs: int,
    base: np.ndarray,
    link: str,
    encoders: tuple[str, ...],
    known_categories: dict[int, np.ndarray] | None = None,
    library: str = "",
    preprocess: Callable[[Any], np.ndarray] | None = None,
    columns: np.ndarray | None = None,
) -> TreeEnsemble:
    """Concatenate per-tree arrays (local ids) into one :class:`TreeEnsemble` (global ids).

    Each tree is a dict with ``feature``, ``threshold``, ``missing_left``, ``left``, ``right``
    (local ids, ``-1`` at leaves; children after parents), ``value`` of shape (n_nodes,
    n_outputs), and optionally ``cat_sets`` (list of bool arrays) with ``cat_index`` (local).
    """
    offsets = np.cumsum([0] + [len(t["feature"]) for t in trees])
    cat_rows: list[np.ndarray] = []
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("feature", "threshold", "missing_left", "left", "right", "value", "cat")
    }
    for t, off in zip(trees, offsets[:-1]):
        feature = np.asarray(t["feature"], dtype=np.int64)
        left = np.asarray(t["left"], dtype=np.int64)
        right = np.asarray(t["right"], dtype=np.int64)
        leaf = feature < 0
        parts["feature"].append(feature)
        parts["threshold"].append(np.asarray(t["threshold"], dtype=np.float64))
        parts["missing_left"].append(np.asarray(t["missing_left"], dtype=bool))
        parts["left"].append(np.where(leaf, -1, left + off))
        parts["right"].append(np.where(leaf, -1, right + off))
        value = np.asarray(t["value"], dtype=np.float64).reshape(len(feature), n_outputs)
        parts["value"].append(np.where(leaf[:, None], value, 0.0))
        cat_index = np.asarray(t.get("cat_index", np.full(len(feature), -1)), dtype=np.int64)
        parts["cat"].append(np.where(cat_index >= 0, cat_index + len(cat_rows), -1))
        cat_rows.extend(np.asarray(s, dtype=bool) for s in t.get("cat_sets", []))
    n_codes = max([len(s) for s in cat_rows], default=1)
    cat_sets = np.zeros((max(len(cat_rows), 1), n_codes), dtype=bool)
    for i, s in enumerate(cat_rows):
        cat_sets[i, : len(s)] = s
    return TreeEnsemble(
        feature=np.concatenate(parts["feature"]),
        threshold=np.concatenate(parts["threshold"]),
        missing_left=np.concatenate(parts["missing_left"]),
        cat_index=np.concatenate(parts["cat"]),
        cat_sets=cat_sets,
        left=np.concatenate(parts["left"]),
        right=np.concatenate(parts["right"]),
        value=np.concatenate(parts["value"], axis=0),
        roots=offsets[:-1].astype(np.int64),
        base=np.asarray(base, dtype=np.float64).reshape(n_outputs),
        link=link,
        encoders=encoders,
        known_categories=dict(known_categories or {}),
        library=library,
        preprocess=preprocess,
        columns=columns,
    )
