"""Compiled kernels of the tree traversal (optional: needs ``numba``; see ``_traverse``).

The canonical split rule and the walk are exactly those of the numpy engine: NaN follows
``missing_left``; numeric nodes go left iff ``x <= threshold``; categorical nodes go left iff the
integer code is in the node's category set; target-feature nodes visit every child whose box
still holds a grid point. Rows are not walked one by one: each tree is walked once, depth first,
carrying the segment of a row-index array that reaches the node (in-place partition at
complement splits), which keeps the inner loops tight and the data access sequential.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _partition(XT, f, node, idx, start, end, threshold, missing_left, cat_index, cat_sets, buf):
    """Stable in-place partition of ``idx[start:end]``: rows going left first; returns the split.

    The node's constants are hoisted and the numeric loop is branch-free (a data-dependent branch
    per row would be mispredicted half the time).
    """
    row = XT[f]
    nl = start
    nr = 0
    c = cat_index[node]
    ml = missing_left[node]
    if c < 0:
        t = threshold[node]
        for i in range(start, end):
            r = idx[i]
            x = row[r]
            g = (x <= t) | (ml & (x != x))
            idx[nl] = r
            buf[nr] = r
            nl += g
            nr += 1 - g
    else:
        n_codes = cat_sets.shape[1]
        for i in range(start, end):
            r = idx[i]
            x = row[r]
            if x != x:
                g = ml
            elif x < 0.0 or x >= n_codes:
                g = False
            else:
                g = cat_sets[c, np.int64(x)]
            idx[nl] = r
            buf[nr] = r
            nl += g
            nr += 1 - g
    for k in range(nr):
        idx[nl + k] = buf[k]
    return nl


@njit(cache=True)
def coverage_kernel(
    XT,
    w,
    roots,
    feature,
    threshold,
    missing_left,
    cat_index,
    cat_sets,
    left,
    right,
    is_target,
    visit_left,
    visit_right,
    max_depth,
    out,
):  # pragma: no cover - compiled; checked against the numpy engine in the tests
    """Leaf coverage by in-place partitioning of row indices, node by node (depth first).

    A complement split partitions its segment of ``idx`` into the two children's segments; a
    target split hands the *same* segment to both children. Processing a subtree only permutes
    its segment, so the right child of a target split still sees the same set of rows.
    """
    n = XT.shape[1]
    idx = np.arange(n)
    buf = np.empty(n, dtype=np.int64)
    size = max_depth + 2
    st_node = np.empty(size, dtype=np.int64)
    st_start = np.empty(size, dtype=np.int64)
    st_end = np.empty(size, dtype=np.int64)
    for t in range(roots.shape[0]):
        sp = 1
        st_node[0] = roots[t]
        st_start[0] = 0
        st_end[0] = n
        while sp > 0:
            sp -= 1
            node = st_node[sp]
            start = st_start[sp]
            end = st_end[sp]
            while True:
                if start >= end:
                    break
                f = feature[node]
                if f < 0:
                    acc = 0.0
                    for i in range(start, end):
                        acc += w[idx[i]]
                    out[node] += acc
                    break
                if is_target[node]:
                    vl = visit_left[node]
                    vr = visit_right[node]
                    if vl and vr:
                        st_node[sp] = right[node]
                        st_start[sp] = start
                        st_end[sp] = end
                        sp += 1
                        node = left[node]
                    elif vl:
                        node = left[node]
                    elif vr:
                        node = right[node]
                    else:
                        break
                    continue
                mid = _partition(
                    XT, f, node, idx, start, end, threshold, missing_left, cat_index, cat_sets, buf
                )
                st_node[sp] = right[node]
                st_start[sp] = mid
                st_end[sp] = end
                sp += 1
                node = left[node]
                end = mid


@njit(cache=True)
def _add_leaf_boxes(node, idx, start, end, value, box_ptr, boxes, D):
    """Add a leaf's value to the difference arrays of the rows ``idx[start:end]`` reaching it.

    Each of the leaf's grid boxes ``[a1, b1) x [a2, b2)`` adds ``+v`` at its corner (a1, a2) and
    ``-v`` / ``+v`` at the other corners; corners at index G lie past the grid and are dropped.
    """
    K = value.shape[1]
    G0 = D.shape[2]
    G1 = D.shape[3]
    for b in range(box_ptr[node], box_ptr[node + 1]):
        a1 = boxes[b, 0]
        b1 = boxes[b, 1]
        a2 = boxes[b, 2]
        b2 = boxes[b, 3]
        in1 = b1 < G0
        in2 = b2 < G1
        for k in range(K):
            v = value[node, k]
            if v != 0.0:
                for i in range(start, end):
                    r = idx[i]
                    D[r, k, a1, a2] += v
                    if in1:
                        D[r, k, b1, a2] -= v
                    if in2:
                        D[r, k, a1, b2] -= v
                        if in1:
                            D[r, k, b1, b2] += v


@njit(cache=True)
def rows_kernel(
    XT,
    roots,
    feature,
    threshold,
    missing_left,
    cat_index,
    cat_sets,
    left,
    right,
    is_target,
    visit_left,
    visit_right,
    max_depth,
    value,
    box_ptr,
    boxes,
    D,
):  # pragma: no cover - compiled; checked against the numpy engine in the tests
    """Per-row difference arrays, with the same partitioning walk as :func:`coverage_kernel`."""
    n = XT.shape[1]
    idx = np.arange(n)
    buf = np.empty(n, dtype=np.int64)
    size = max_depth + 2
    st_node = np.empty(size, dtype=np.int64)
    st_start = np.empty(size, dtype=np.int64)
    st_end = np.empty(size, dtype=np.int64)
    for t in range(roots.shape[0]):
        sp = 1
        st_node[0] = roots[t]
        st_start[0] = 0
        st_end[0] = n
        while sp > 0:
            sp -= 1
            node = st_node[sp]
            start = st_start[sp]
            end = st_end[sp]
            while True:
                if start >= end:
                    break
                f = feature[node]
                if f < 0:
                    _add_leaf_boxes(node, idx, start, end, value, box_ptr, boxes, D)
                    break
                if is_target[node]:
                    vl = visit_left[node]
                    vr = visit_right[node]
                    if vl and vr:
                        st_node[sp] = right[node]
                        st_start[sp] = start
                        st_end[sp] = end
                        sp += 1
                        node = left[node]
                    elif vl:
                        node = left[node]
                    elif vr:
                        node = right[node]
                    else:
                        break
                    continue
                mid = _partition(
                    XT, f, node, idx, start, end, threshold, missing_left, cat_index, cat_sets, buf
                )
                st_node[sp] = right[node]
                st_start[sp] = mid
                st_end[sp] = end
                sp += 1
                node = left[node]
                end = mid


@njit(cache=True)
def corner_sums_kernel(cx, cy, cv, qx, qy, n_y, out):  # pragma: no cover - compiled
    """``out[q, k] += sum of cv[c, k]`` over the corners with ``cx[c] <= qx[q]`` and
    ``cy[c] <= qy[q]``: the value at each query point of a 2-D difference array given by its
    corners (a dominance sum), without building the grid.

    ``cx`` and ``qx`` are sorted ascending; a sweep along x inserts the corners into a Fenwick
    tree over y (a corner at ``cy >= n_y`` lies past the grid and is never counted).
    """
    K = cv.shape[1]
    tree = np.zeros((n_y + 1, K))
    c = 0
    n_c = cx.shape[0]
    for q in range(qx.shape[0]):
        x = qx[q]
        while c < n_c and cx[c] <= x:
            i = cy[c] + 1
            while i <= n_y:
                for k in range(K):
                    tree[i, k] += cv[c, k]
                i += i & (-i)
            c += 1
        i = qy[q] + 1
        while i > 0:
            for k in range(K):
                out[q, k] += tree[i, k]
            i -= i & (-i)
