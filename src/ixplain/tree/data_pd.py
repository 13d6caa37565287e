r"""Exact partial dependence of tree ensembles *at the data points*, for interaction statistics.

Friedman's H-statistic needs, for a feature ``j`` (or a pair ``j, k``) and every row ``i`` of a
sample, the partial dependence evaluated at the row's own value: ``PD_j(x_ij)``,
``PD_jk(x_ij, x_ik)`` and the complement ``PD_{-j}(x_{i,-j})``. By brute force that is ``n^2``
model calls per feature or pair. Here it is computed through the trees with the machinery of
:mod:`ixplain.tree.partial_dependence`, on the grid made of the sample's own values:

* The grid of ``j`` is the sorted set of distinct (encoded) values of column ``j`` in the
  sample. A PD of a tree ensemble is a step function whose pieces are cut by the split
  thresholds on ``j`` (canonical rule: left iff ``x <= t``), so grid values between two
  consecutive thresholds give identical PD values; they are merged into one grid point (the
  *pieces* of the data), which shrinks the grid to at most ``min(n_distinct, n_thresholds + 1)``
  points without changing any value.
* One-way (``j``), identity link (regressors, forests' probabilities, raw boosting scores): no
  ICE matrix. ``PD_j`` on the grid comes from the leaf coverage (one walk of the rows) and
  ``PD_{-j}(x_i) = base + sum_l v_l Omega(box_l) / W`` over the leaves ``l`` row ``i`` reaches
  with ``j`` marginalised (``Omega``: the weight of the rows whose value lies in the leaf's box)
  is one number per leaf summed along a second walk: ``O(n K)`` memory, no ``n x G`` term.
* One-way (``j``), other links: the ICE matrix ``M[i, g] = f(x_i with x_j := u_g)`` comes
  from the per-row difference arrays of the tree walk (``row_differences``), processed in row
  chunks and reduced at once: ``PD_j(u_g) = sum_i w_i M[i, g] / W`` (column mean), ``PD_{-j}(x_i) =
  sum_g omega_g M[i, g] / W`` with ``omega_g`` the weight of the rows whose value is ``u_g``
  (the row mean: ``x_j`` is averaged over its empirical distribution while the row keeps its
  other values), and ``f(x_i) = M[i, g(i)]``. Cost: one walk of the rows plus ``O(n G K)``.
* Two-way (``j, k``): the 2-D PD on the ``G_j x G_k`` grid of pieces, gathered at the
  ``(g_j(i), g_k(i))`` of every row. With an identity link (regressors, forests' probabilities,
  raw boosting scores) it is the coverage path: one walk of the rows gives the leaf weights and
  the PD at the rows' cells is the sum of the leaf boxes holding them: with numba a sweep over
  the boxes' corners with a Fenwick tree (``O((n + boxes) log G_k)``, no grid); with numpy a
  2-D prefix sum of the grid, in blocks of grid rows (each box clipped to the block), so memory
  stays below a budget whatever ``G_j x G_k``. A non-identity
  link (boosted classifiers' probabilities) does not commute with the average, so every row's
  raw 2-D score is built, linked and averaged: ``O(n G_j G_k)``, fine on binned models (HGB,
  LightGBM, XGBoost: at most a few hundred pieces per feature) and slow on finely split
  continuous features; the raw score (``response_method="decision_function"``) is exact and fast.

The values equal brute force on the same rows up to floating-point summation order, for the
reasons given in :mod:`ixplain.tree.partial_dependence`.

References
----------
.. [1] J. H. Friedman, B. E. Popescu, "Predictive learning via rule ensembles", Annals of Applied
   Statistics 2(3), 2008 (the H-statistic, from partial dependence at the data points).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..models import Model
from ..tabular import Table
from ._convert import as_tree_ensemble
from ._ensemble import TreeEnsemble, apply_link
from ._traverse import coverage, row_differences
from .partial_dependence import (
    _DIFF_BUDGET,
    _boxes,
    _integrate,
    _leaf_differences,
    _output_columns,
    _read,
    _resolve_engine,
    _Target,
)

__all__ = ["DataPD", "data_pd_plan"]


@dataclass
class DataPD:
    """A converted tree ensemble with a sample read as its trees see it (internal).

    Attributes
    ----------
    ens : TreeEnsemble
    X : ndarray of shape (n_rows, n_model_features)
        The encoded sample.
    w : ndarray of shape (n_rows,)
        Row weights (positive sum).
    table : Table
        The sample (column names and positions).
    keep : list of int or None
        Output columns kept (a selected class), else all.
    engine : {"numpy", "numba"}
    """

    ens: TreeEnsemble
    X: np.ndarray
    w: np.ndarray
    table: Table
    keep: list[int] | None
    engine: str
    _f: np.ndarray | None = field(default=None, init=False, repr=False)

    @property
    def n_outputs(self) -> int:
        """Outputs after ``keep``."""
        return self.ens.n_outputs if self.keep is None else len(self.keep)

    def uses(self, name: str) -> bool:
        """Whether any split of the ensemble tests feature ``name``."""
        j = self.ens.model_feature(self.table.schema.index(name))
        return bool(np.any(self.ens.feature == j))

    def predict(self) -> np.ndarray:
        """The explained output at the rows, shape (n_outputs, n_rows) (computed once)."""
        if self._f is None:
            self._f = self.ens.predict(self.X).T
        return self._kept(self._f)

    def one_way(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """``(f, PD_j, PD_{-j}, flat)`` at the rows, each (n_outputs, n_rows) but ``flat``.

        ``flat`` is True when the feature has no effect on the sample: every ICE curve is
        exactly constant (non-identity link), or the sample lies in one piece of the feature's
        step function (identity link; the statistics' ``eps`` guard covers the rest).
        """
        if self.ens.link == "identity":
            return self._one_way_linear(name)
        return self._one_way_linked(name)

    def _one_way_linear(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """Identity link: no ICE matrix, two walks of the rows.

        With ``M[i, g] = base + sum_l v_l 1[g in box_l]`` over the leaves ``l`` row ``i``
        reaches with ``j`` marginalised, ``PD_j(u_g) = base + sum_l c_l v_l 1[g in box_l] / W``
        (``c_l``: the weighted coverage of leaf ``l``: the coverage walk) and ``PD_{-j}(x_i) =
        sum_g omega_g M[i, g] / W = base + sum_l v_l Omega(box_l) / W`` (``Omega(box)``: the
        weight of the rows whose value lies in the box), a per-row sum of one number per leaf:
        the row walk with unit boxes. Cost: two walks, ``O(n K)`` memory.
        """
        ens, X, w = self.ens, self.X, self.w
        t, idx = self._target(name)
        is_target, vl, vr, box_ptr, boxes = _boxes(ens, [t])
        G, W, n_nodes = t.size, w.sum(), ens.n_nodes
        c = coverage(ens, X, w, is_target, vl, vr, self.engine)
        D = _leaf_differences(ens, c, box_ptr, boxes, (G, 1))
        pd_grid = _integrate(D)[..., 0] / W + ens.base[:, None]  # (K, G)
        cum = np.concatenate([[0.0], np.cumsum(np.bincount(idx, weights=w, minlength=G))])
        leaf_of_box = np.repeat(np.arange(n_nodes), np.diff(box_ptr))
        mass = np.bincount(leaf_of_box, weights=cum[boxes[:, 1]] - cum[boxes[:, 0]],
                           minlength=n_nodes)
        per_leaf = replace(ens, value=ens.value * (mass / W)[:, None])
        unit_ptr = np.arange(n_nodes + 1, dtype=np.int64)
        unit_boxes = np.tile(np.array([[0, 1, 0, 1]], dtype=np.int64), (n_nodes, 1))
        sums = row_differences(per_leaf, X, is_target, vl, vr, unit_ptr, unit_boxes, (1, 1),
                               self.engine)
        notj = sums[:, :, 0, 0].T + ens.base[:, None]
        pd_j = pd_grid[:, idx]
        return self.predict(), self._kept(pd_j), self._kept(notj), G == 1

    def _one_way_linked(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """Non-identity link: the linked ICE matrix, built in row chunks and reduced at once."""
        ens, X, w = self.ens, self.X, self.w
        t, idx = self._target(name)
        is_target, vl, vr, box_ptr, boxes = _boxes(ens, [t])
        K, G, n, W = ens.n_outputs, t.size, X.shape[0], w.sum()
        omega = np.bincount(idx, weights=w, minlength=G)
        pd_sum, notj, f = np.zeros((K, G)), np.empty((K, n)), np.empty((K, n))
        flat = True
        step = max(1, _DIFF_BUDGET // (K * G * 8))
        for s in range(0, n, step):
            e = min(s + step, n)
            D = row_differences(ens, X[s:e], is_target, vl, vr, box_ptr, boxes, (G, 1),
                                self.engine)
            raw = _integrate(D)[..., 0] + ens.base[None, :, None]
            pred = apply_link(raw, ens.link, axis=1)  # (B, K, G)
            pd_sum += np.tensordot(w[s:e], pred, axes=(0, 0))
            notj[:, s:e] = (pred @ omega).T / W
            f[:, s:e] = pred[np.arange(e - s), :, idx[s:e]].T
            flat = flat and bool(np.all(pred == pred[..., :1]))
        pd_j = pd_sum[:, idx] / W
        return self._kept(f), self._kept(pd_j), self._kept(notj), flat

    def pair_cells(self, first: str, second: str) -> int:
        """Per-row grid cells of the pair's PD: ``G_j * G_k`` with a non-identity link (every
        row's 2-D score is built), 0 with the identity link (one walk, no per-row grids)."""
        if self.ens.link == "identity":
            return 0
        return self._target(first)[0].size * self._target(second)[0].size

    def two_way(self, first: str, second: str) -> np.ndarray:
        """``PD_jk(x_ij, x_ik)`` at every row: (n_outputs, n_rows)."""
        ens = self.ens
        t1, i1 = self._target(first)
        t2, i2 = self._target(second)
        is_target, vl, vr, box_ptr, boxes = _boxes(ens, [t1, t2])
        K, G1, G2, n = ens.n_outputs, t1.size, t2.size, self.X.shape[0]
        out = np.empty((K, n))
        block = max(1, min(G1, _DIFF_BUDGET // (K * G2 * 8)))
        c = None
        if ens.link == "identity":
            c = coverage(ens, self.X, self.w, is_target, vl, vr, self.engine)
            if self.engine == "numba":
                return self._kept(self._at_rows(c, box_ptr, boxes, i1, i2, G2))
        for r0 in range(0, G1, block):
            r1 = min(r0 + block, G1)
            bp, bx = _clip_boxes(box_ptr, boxes, r0, r1, ens.n_nodes)
            args = (is_target, vl, vr, bp, bx, (r1 - r0, G2))
            P = self._grid_block(c, args)
            sel = (i1 >= r0) & (i1 < r1)
            out[:, sel] = P[:, i1[sel] - r0, i2[sel]]
        return self._kept(out)

    def _at_rows(self, c: np.ndarray, box_ptr: np.ndarray, boxes: np.ndarray, i1: np.ndarray,
                 i2: np.ndarray, G2: int) -> np.ndarray:
        """Identity link: ``PD_jk`` at the rows' grid cells straight from the leaf boxes.

        ``PD_jk(g1, g2) = base + sum_l c_l v_l 1[(g1, g2) in box_l] / W`` is evaluated at the
        ``n`` cells by a sweep over the boxes' corners (compiled; ``O((n + boxes) log G2)``)
        instead of the prefix sums of the whole ``G1 x G2`` grid. (K, n).
        """
        from ._numba import corner_sums_kernel

        ens = self.ens
        leaf = np.repeat(np.arange(ens.n_nodes), np.diff(box_ptr))
        v = c[leaf, None] * ens.value[leaf]
        a1, b1, a2, b2 = boxes.T
        cx, cy = np.concatenate([a1, b1, a1, b1]), np.concatenate([a2, a2, b2, b2])
        cv = np.concatenate([v, -v, -v, v])
        o, q = np.argsort(cx, kind="stable"), np.argsort(i1, kind="stable")
        sums = np.zeros((i1.size, ens.n_outputs))
        corner_sums_kernel(cx[o], cy[o], np.ascontiguousarray(cv[o]), i1[q], i2[q], G2, sums)
        out = np.empty((ens.n_outputs, i1.size))
        out[:, q] = sums.T / self.w.sum() + ens.base[:, None]
        return out

    def _grid_block(self, c: np.ndarray | None, args: tuple) -> np.ndarray:
        """The averaged 2-D PD on one block of the grid: (K, block rows, G2)."""
        ens, w = self.ens, self.w
        is_target, vl, vr, bp, bx, shape = args
        if c is not None:  # identity link: leaf weights from one walk
            D = _leaf_differences(ens, c, bp, bx, shape)
            return _integrate(D) / w.sum() + ens.base[:, None, None]
        total = np.zeros((ens.n_outputs, *shape))
        n = self.X.shape[0]
        step = max(1, _DIFF_BUDGET // (ens.n_outputs * shape[0] * shape[1] * 8))
        for s in range(0, n, step):
            e = min(s + step, n)
            D = row_differences(ens, self.X[s:e], is_target, vl, vr, bp, bx, shape, self.engine)
            pred = apply_link(_integrate(D) + ens.base[None, :, None, None], ens.link, axis=1)
            total += np.tensordot(w[s:e], pred, axes=(0, 0))
        return total / w.sum()

    def _target(self, name: str) -> tuple[_Target, np.ndarray]:
        """The grid of the sample's pieces of feature ``name`` and each row's grid index."""
        ens = self.ens
        j = ens.model_feature(self.table.schema.index(name))
        grid, idx = np.unique(self.X[:, j], return_inverse=True)
        idx = idx.reshape(-1)
        on_j = ens.feature == j
        mask = bool(np.any(ens.cat_index[on_j] >= 0)) or bool(np.isnan(grid).any())
        if not mask:  # merge grid values no threshold separates (identical PD values)
            thr = ens.threshold[on_j & (ens.cat_index < 0)]
            cut = np.searchsorted(grid, thr[np.isfinite(thr)], side="right")
            cuts = np.unique(cut[(cut > 0) & (cut < grid.size)])
            grid = grid[np.concatenate([[0], cuts])]
            idx = np.searchsorted(cuts, idx, side="right")
        order = np.arange(grid.size)
        t = _Target(name, j, grid, grid, "mask" if mask else "range", order, order)
        return t, idx

    def _kept(self, values: np.ndarray) -> np.ndarray:
        return values if self.keep is None else values[self.keep]


def _clip_boxes(
    box_ptr: np.ndarray, boxes: np.ndarray, r0: int, r1: int, n_nodes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Leaf boxes clipped to grid rows ``[r0, r1)`` and shifted to start at 0 (CSR kept)."""
    leaf = np.repeat(np.arange(n_nodes), np.diff(box_ptr))
    keep = (boxes[:, 0] < r1) & (boxes[:, 1] > r0)
    bx = boxes[keep].copy()
    bx[:, 0] = np.maximum(bx[:, 0], r0) - r0
    bx[:, 1] = np.minimum(bx[:, 1], r1) - r0
    counts = np.bincount(leaf[keep], minlength=n_nodes)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), bx


def data_pd_plan(adapter: Model, table: Table, w: np.ndarray, engine: str = "auto") -> DataPD:
    """Convert ``adapter``'s model and read ``table`` for PD at the data points.

    Raises
    ------
    UnsupportedModelError
        If the model is not a supported tree ensemble.
    TypeError, ValueError
        If the table cannot be read as the trees read it (see ``tree_partial_dependence``).
    """
    ens = as_tree_ensemble(adapter.model, response_method=adapter.response_method)
    Xm = _read(ens, adapter, table)
    return DataPD(ens, Xm, np.asarray(w, dtype=np.float64), table, _output_columns(adapter, ens),
                  _resolve_engine(engine))
