"""Aliased features of a conditional sampler: columns that are one quantity under two names.

Two columns are *aliases* when, on the fitted rows, each is a strictly monotone function of
the other (an exact copy, a change of unit such as Celsius and Fahrenheit, a reversed scale)
with the same missing rows; a categorical column is an alias of another whose level codes
follow the same order (a copy of it under another name). Aliases form groups.

Why it matters: tree ``j`` of :class:`~ixplain.imputation.ConditionalSampler` may split on
either copy of a quantity (they separate the rows equally well; scikit-learn takes one of the
tied features). When that copy is removed and another copy is kept, the tree descends by the
fitted weight at the split and loses the dependence the kept copy carries, so the copies of
one quantity are not treated alike (three identical copies got SAGE values 40 standard errors
apart). The sampler therefore *steers* with aliases: a removed member of a group whose other
member is available (kept, or already drawn in the chain rule) is read at the splits as the
available member's value mapped through the monotone relation of the fitted rows (linear
interpolation between the fitted pairs, clamped to their range); the value drawn for it still
comes from its own tree's leaf pool. A removed copy is thus drawn given everything its kept
copy tells, whichever copy the trees chose to split on.

Only exact monotone relations on the fitted rows count: noisy near-copies (``a`` and
``a + noise``) are distinct features, whose dependence the trees learn as any other. In a
stream (:class:`~ixplain.imputation.ConditionalStorage`) the groups and their maps are those of
the last refit's window.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np


@dataclass
class AliasGroup:
    """Columns ``cols`` (global indices, ascending) that are monotone functions of each other.

    ``table`` (k, m): the distinct fitted value tuples, sorted by the first member;
    ``increasing[i]``: whether member ``i`` increases along that order.
    """

    cols: np.ndarray
    table: np.ndarray
    increasing: np.ndarray

    def mapped(self, x: np.ndarray, src: int, dst: int) -> np.ndarray:
        """Values ``x`` of member ``src`` (position in ``cols``) as values of member ``dst``."""
        xs, ys = self.table[:, src], self.table[:, dst]
        if not self.increasing[src]:
            xs, ys = xs[::-1], ys[::-1]
        return np.interp(x, xs, ys)  # NaN stays NaN (unavailable at the splits)


def _dense_key(ranks: np.ndarray, missing: np.ndarray) -> bytes:
    """A digest of a column's missing rows and dense ranks (equal for aliases)."""
    h = hashlib.blake2b(missing.tobytes(), digest_size=16)
    h.update(ranks.tobytes())
    return h.digest()


def alias_groups(Z: np.ndarray) -> list[AliasGroup]:
    """The groups of at least two aliased, non-constant columns of the encoded matrix ``Z``.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([3.0, 1.0, 2.0, 1.0])
    >>> Z = np.column_stack([a, [5.0, 0.0, 1.0, 2.0], 1.8 * a + 32, -a])
    >>> [g.cols.tolist() for g in alias_groups(Z)]
    [[0, 2, 3]]
    """
    n, d = Z.shape
    seen: dict[bytes, tuple[int, np.ndarray, bool]] = {}  # key -> (group, ranks, increasing)
    members: list[list[tuple[int, bool]]] = []
    for c in range(d):
        missing = np.isnan(Z[:, c])
        levels, ranks = np.unique(Z[~missing, c], return_inverse=True)
        if len(levels) < 2:
            continue
        ranks = ranks.astype(np.int64)
        flipped = len(levels) - 1 - ranks
        for key_ranks, same in ((ranks, True), (flipped, False)):
            hit = seen.get(_dense_key(key_ranks, missing))
            if hit is not None and np.array_equal(hit[1], key_ranks):
                members[hit[0]].append((c, hit[2] == same))
                break
        else:
            seen[_dense_key(ranks, missing)] = (len(members), ranks, True)
            members.append([(c, True)])
    groups = []
    for group in members:
        if len(group) < 2:
            continue
        cols = np.array([c for c, _ in group], dtype=np.intp)
        first = Z[:, cols[0]]
        rows = np.flatnonzero(~np.isnan(first))
        _, idx = np.unique(first[rows], return_index=True)
        groups.append(AliasGroup(cols, Z[np.ix_(rows[idx], cols)],
                                 np.array([inc for _, inc in group], dtype=bool)))
    return groups


def steer_kept(groups: list[AliasGroup], W: np.ndarray, avail: np.ndarray) -> None:
    """Before the chain rule: every removed member of a group with an available member reads
    the first available member's value (mapped), in place of ``W`` and ``avail`` (Q, d)."""
    for g in groups:
        a = avail[:, g.cols]
        has = a.any(axis=1)
        first = a.argmax(axis=1)
        for i, f in enumerate(g.cols):
            for k in range(len(g.cols)):
                sel = np.flatnonzero(has & ~a[:, i] & (first == k))
                if sel.size:
                    W[sel, f] = g.mapped(W[sel, g.cols[k]], k, i)
                    avail[sel, f] = True


def steer_drawn(groups: list[AliasGroup], group_of: np.ndarray, W: np.ndarray,
                avail: np.ndarray, q: np.ndarray, j: int) -> None:
    """After feature ``j`` was drawn for queries ``q``: the group's members not yet available
    for them (removed, drawn later) read the drawn value (mapped)."""
    gi = group_of[j]
    if gi < 0:
        return
    g = groups[gi]
    src = int(np.flatnonzero(g.cols == j)[0])
    for i, f in enumerate(g.cols):
        if f == j:
            continue
        sel = q[~avail[q, f]]
        if sel.size:
            W[sel, f] = g.mapped(W[sel, j], src, i)
            avail[sel, f] = True


def group_index(groups: list[AliasGroup], d: int) -> np.ndarray:
    """Each column's group (-1: none), shape (d,)."""
    out = np.full(d, -1, dtype=np.intp)
    for i, g in enumerate(groups):
        out[g.cols] = i
    return out
