"""Pushing data rows down a :class:`TreeEnsemble` with the target features marginalised.

Two engines compute the same thing:

* ``"numpy"``: level-synchronous over (row, node) pairs of all trees at once; at a split on a
  complement feature each pair follows its branch; at a split on a target feature the pair is
  duplicated into the children whose target box still holds a grid point.
* ``"numba"`` (optional, ``pip install numba``): the same walk compiled, tree by tree and row by
  row with an explicit stack.

Both return either the weighted coverage of every leaf (``sum of w_r`` over the rows reaching it)
or, per row, the difference array of its step function on the grid (for ICE and non-linear
links).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._ensemble import TreeEnsemble

__all__ = ["coverage", "has_numba", "row_differences"]

_PAIR_BUDGET = 4_000_000  # (row, node) pairs held at once by the numpy engine


def has_numba() -> bool:
    """Whether the optional numba engine is importable."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------------- numpy engine
def reach_numpy(
    ens: TreeEnsemble,
    X: np.ndarray,
    is_target: np.ndarray,
    visit_left: np.ndarray,
    visit_right: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """All (row, leaf) pairs where row ``r`` with the targets marginalised reaches leaf ``l``."""
    n, p = X.shape
    roots = ens.roots
    rows = np.repeat(np.arange(n, dtype=np.int64), len(roots))
    nodes = np.tile(roots, n)
    X_flat = np.ascontiguousarray(X).ravel()
    out_rows, out_nodes = [], []
    feature, left, right = ens.feature, ens.left, ens.right
    while rows.size:
        f = feature[nodes]
        leaf = f < 0
        if leaf.any():
            out_rows.append(rows[leaf])
            out_nodes.append(nodes[leaf])
            keep = ~leaf
            rows, nodes, f = rows[keep], nodes[keep], f[keep]
            if not rows.size:
                break
        tgt = is_target[nodes]
        parts_r, parts_n = [], []
        if tgt.any():
            rt, nt = rows[tgt], nodes[tgt]
            vl, vr = visit_left[nt], visit_right[nt]
            parts_r += [rt[vl], rt[vr]]
            parts_n += [left[nt[vl]], right[nt[vr]]]
            comp = ~tgt
            rows, nodes, f = rows[comp], nodes[comp], f[comp]
        gl = ens.go_left(X_flat[rows * p + f], nodes)
        parts_r.insert(0, rows)
        parts_n.insert(0, np.where(gl, left[nodes], right[nodes]))
        rows = np.concatenate(parts_r) if len(parts_r) > 1 else parts_r[0]
        nodes = np.concatenate(parts_n) if len(parts_n) > 1 else parts_n[0]
    if not out_rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(out_rows), np.concatenate(out_nodes)


def _row_chunks(n: int, per_row: int, budget: int) -> list[tuple[int, int]]:
    step = max(1, budget // max(1, per_row))
    return [(s, min(s + step, n)) for s in range(0, n, step)]


def coverage(
    ens: TreeEnsemble,
    X: np.ndarray,
    w: np.ndarray,
    is_target: np.ndarray,
    visit_left: np.ndarray,
    visit_right: np.ndarray,
    engine: str,
) -> np.ndarray:
    """Weighted coverage ``c[node] = sum of w_r over rows reaching leaf node``: (n_nodes,)."""
    if engine == "numba":
        from ._numba import coverage_kernel

        out = np.zeros(ens.n_nodes)
        coverage_kernel(  # type: ignore[call-arg]
            np.ascontiguousarray(X),
            np.ascontiguousarray(w, dtype=np.float64),
            *_kernel_tree_args(ens, is_target, visit_left, visit_right),
            out,
        )
        return out
    out = np.zeros(ens.n_nodes)
    for s, e in _row_chunks(X.shape[0], 2 * len(ens.roots), _PAIR_BUDGET):
        r, leaves = reach_numpy(ens, X[s:e], is_target, visit_left, visit_right)
        out += np.bincount(leaves, weights=w[s:e][r], minlength=ens.n_nodes)
    return out


def row_differences(
    ens: TreeEnsemble,
    X: np.ndarray,
    is_target: np.ndarray,
    visit_left: np.ndarray,
    visit_right: np.ndarray,
    box_ptr: np.ndarray,
    boxes: np.ndarray,
    shape: tuple[int, int],
    engine: str,
) -> np.ndarray:
    """Per-row 2-D difference arrays of the raw score: (n_rows, n_outputs, G1 + 1, G2 + 1).

    Row ``r`` reaching leaf ``l`` adds ``value[l, k]`` on every box ``[a1, b1) x [a2, b2)`` of
    the leaf (grid-index space) through the four corners of its difference array.
    """
    n = X.shape[0]
    K = ens.n_outputs
    D = np.zeros((n, K, shape[0] + 1, shape[1] + 1))
    if engine == "numba":
        from ._numba import rows_kernel

        rows_kernel(  # type: ignore[call-arg]
            np.ascontiguousarray(X),
            *_kernel_tree_args(ens, is_target, visit_left, visit_right),
            np.ascontiguousarray(ens.value),
            box_ptr,
            boxes,
            D,
        )
        return D
    flat = D.reshape(-1)
    s1 = shape[1] + 1
    for s, e in _row_chunks(n, 2 * len(ens.roots), _PAIR_BUDGET):
        r, leaves = reach_numpy(ens, X[s:e], is_target, visit_left, visit_right)
        r = r + s
        counts = box_ptr[leaves + 1] - box_ptr[leaves]
        keep = counts > 0
        r, leaves, counts = r[keep], leaves[keep], counts[keep]
        if not r.size:
            continue
        # expand every (row, leaf) pair into its boxes
        starts = np.repeat(box_ptr[leaves], counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        box = boxes[starts + offsets]
        rr = np.repeat(r, counts)
        ll = np.repeat(leaves, counts)
        a1, b1, a2, b2 = box[:, 0], box[:, 1], box[:, 2], box[:, 3]
        for k in range(K):
            v = ens.value[ll, k]
            nz = v != 0.0
            if not nz.any():
                continue
            base = (rr[nz] * K + k) * (shape[0] + 1)
            idx = np.concatenate(
                [
                    (base + a1[nz]) * s1 + a2[nz],
                    (base + b1[nz]) * s1 + a2[nz],
                    (base + a1[nz]) * s1 + b2[nz],
                    (base + b1[nz]) * s1 + b2[nz],
                ]
            )
            vals = np.concatenate([v[nz], -v[nz], -v[nz], v[nz]])
            flat += np.bincount(idx, weights=vals, minlength=flat.size)
    return D


def _kernel_tree_args(
    ens: TreeEnsemble, is_target: np.ndarray, visit_left: np.ndarray, visit_right: np.ndarray
) -> tuple[Any, ...]:
    max_depth = int(ens.depth().max()) if ens.n_nodes else 0
    return (
        ens.roots,
        ens.feature,
        ens.threshold,
        ens.missing_left,
        ens.cat_index,
        ens.cat_sets,
        ens.left,
        ens.right,
        is_target,
        visit_left,
        visit_right,
        max_depth,
    )
