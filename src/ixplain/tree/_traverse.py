"""Pushing data rows down a :class:`TreeEnsemble` with the target features marginalised.

Two engines compute the same thing:

* ``"numpy"``: each tree walked once, depth first, carrying the array of rows that reach the
  node; at a split on a complement feature the array is split by one vectorised comparison; at a
  split on a target feature the same array goes to each child whose target box still holds a
  grid point.
* ``"numba"`` (optional, ``pip install numba``): the same walk compiled, tree by tree, depth
  first, carrying the segment of row indices that reaches each node (see ``_numba``).

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
    """All (row, leaf) pairs where row ``r`` with the targets marginalised reaches leaf ``l``.

    Each tree is walked once, depth first, carrying the array of rows that reach the node: a
    complement split splits it with one vectorised comparison, a target split hands the same
    array to the children whose box still holds a grid point.
    """
    n = X.shape[0]
    XT = np.ascontiguousarray(X.T)
    # scalar per-node lookups are much faster on lists than on numpy arrays
    feature = ens.feature.tolist()
    threshold = ens.threshold.tolist()
    missing_left = ens.missing_left.tolist()
    cat_index = ens.cat_index.tolist()
    left, right = ens.left.tolist(), ens.right.tolist()
    target = is_target.tolist()
    vis_l, vis_r = visit_left.tolist(), visit_right.tolist()
    n_codes = ens.cat_sets.shape[1]
    all_rows = np.arange(n, dtype=np.int64)
    out_rows: list[np.ndarray] = []
    out_nodes: list[int] = []
    for root in ens.roots.tolist():
        stack = [(root, all_rows)]
        while stack:
            node, rows = stack.pop()
            f = feature[node]
            if f < 0:
                out_rows.append(rows)
                out_nodes.append(node)
                continue
            if target[node]:
                if vis_r[node]:
                    stack.append((right[node], rows))
                if vis_l[node]:
                    stack.append((left[node], rows))
                continue
            x = XT[f].take(rows)
            c = cat_index[node]
            if c < 0:
                go = x <= threshold[node]
            else:
                code = np.where(np.isnan(x), -1.0, x)
                ok = (code >= 0) & (code < n_codes)
                go = ok & ens.cat_sets[c].take(np.where(ok, code, 0).astype(np.int64))
            if missing_left[node]:
                go |= np.isnan(x)
            rows_l = rows[go]
            if rows_l.size < rows.size:
                stack.append((right[node], rows[~go]))
            if rows_l.size:
                stack.append((left[node], rows_l))
    if not out_rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    sizes = np.fromiter((r.size for r in out_rows), dtype=np.int64, count=len(out_rows))
    return np.concatenate(out_rows), np.repeat(np.asarray(out_nodes, dtype=np.int64), sizes)


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
            np.ascontiguousarray(X.T),
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
    """Per-row 2-D difference arrays of the raw score: (n_rows, n_outputs, G1, G2).

    Row ``r`` reaching leaf ``l`` adds ``value[l, k]`` on every box ``[a1, b1) x [a2, b2)`` of
    the leaf (grid-index space) through the four corners of its difference array; a corner at
    index ``G`` lies past the grid and is dropped (a 1-way PD uses ``G2 = 1``, ``[0, 1)``).
    """
    n = X.shape[0]
    K = ens.n_outputs
    D = np.zeros((n, K, shape[0], shape[1]))
    if engine == "numba":
        from ._numba import rows_kernel

        rows_kernel(  # type: ignore[call-arg]
            np.ascontiguousarray(X.T),
            *_kernel_tree_args(ens, is_target, visit_left, visit_right),
            np.ascontiguousarray(ens.value),
            box_ptr,
            boxes,
            D,
        )
        return D
    flat = D.reshape(-1)
    g0, g1 = shape
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
            base = (rr * K + k) * g0
            idx, vals = [], []
            for i, j, sign in ((a1, a2, 1.0), (b1, a2, -1.0), (a1, b2, -1.0), (b1, b2, 1.0)):
                ok = (v != 0.0) & (i < g0) & (j < g1)
                idx.append((base[ok] + i[ok]) * g1 + j[ok])
                vals.append(sign * v[ok])
            flat += np.bincount(np.concatenate(idx), weights=np.concatenate(vals),
                                minlength=flat.size)
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
