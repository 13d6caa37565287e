"""Compiled kernels of the tree traversal (optional: needs ``numba``; see ``_traverse``).

The canonical split rule and the walk are exactly those of the numpy engine: NaN follows
``missing_left``; numeric nodes go left iff ``x <= threshold``; categorical nodes go left iff the
integer code is in the node's category set; target-feature nodes visit every child whose box
still holds a grid point. Trees are the outer loop (one tree stays in cache), rows the inner.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _go_left(x, node, threshold, missing_left, cat_index, cat_sets):  # pragma: no cover
    if np.isnan(x):
        return missing_left[node]
    c = cat_index[node]
    if c >= 0:
        if x < 0.0 or x >= cat_sets.shape[1]:
            return False
        return cat_sets[c, np.int64(x)]
    return x <= threshold[node]


@njit(cache=True)
def coverage_kernel(
    X,
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
    stack = np.empty(max_depth + 2, dtype=np.int64)
    for t in range(roots.shape[0]):
        root = roots[t]
        for r in range(X.shape[0]):
            wr = w[r]
            sp = 1
            stack[0] = root
            while sp > 0:
                sp -= 1
                node = stack[sp]
                while True:
                    f = feature[node]
                    if f < 0:
                        out[node] += wr
                        break
                    if is_target[node]:
                        vl = visit_left[node]
                        vr = visit_right[node]
                        if vl and vr:
                            stack[sp] = right[node]
                            sp += 1
                            node = left[node]
                        elif vl:
                            node = left[node]
                        elif vr:
                            node = right[node]
                        else:
                            break
                        continue
                    if _go_left(X[r, f], node, threshold, missing_left, cat_index, cat_sets):
                        node = left[node]
                    else:
                        node = right[node]


@njit(cache=True)
def rows_kernel(
    X,
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
    stack = np.empty(max_depth + 2, dtype=np.int64)
    K = value.shape[1]
    for t in range(roots.shape[0]):
        root = roots[t]
        for r in range(X.shape[0]):
            sp = 1
            stack[0] = root
            while sp > 0:
                sp -= 1
                node = stack[sp]
                while True:
                    f = feature[node]
                    if f < 0:
                        for b in range(box_ptr[node], box_ptr[node + 1]):
                            a1 = boxes[b, 0]
                            b1 = boxes[b, 1]
                            a2 = boxes[b, 2]
                            b2 = boxes[b, 3]
                            for k in range(K):
                                v = value[node, k]
                                if v != 0.0:
                                    D[r, k, a1, a2] += v
                                    D[r, k, b1, a2] -= v
                                    D[r, k, a1, b2] -= v
                                    D[r, k, b1, b2] += v
                        break
                    if is_target[node]:
                        vl = visit_left[node]
                        vr = visit_right[node]
                        if vl and vr:
                            stack[sp] = right[node]
                            sp += 1
                            node = left[node]
                        elif vl:
                            node = left[node]
                        elif vr:
                            node = right[node]
                        else:
                            break
                        continue
                    if _go_left(X[r, f], node, threshold, missing_left, cat_index, cat_sets):
                        node = left[node]
                    else:
                        node = right[node]
