"""A conditional storage for streams: trees refitted on a window, leaf pools updated per row.

:class:`ConditionalStorage` is a :class:`~ixplain.SlidingWindow` (the marginal draws, the
explainer's bookkeeping) that also keeps a :class:`~ixplain.imputation.ConditionalSampler`
whose two parts learn at two paces:

* **splits** -- the trees are refitted on the last ``size`` rows at fixed stream positions:
  rows 1, 2, 4, ... up to ``refit_every``, then every ``refit_every`` rows (a tree learns its
  splits on a fixed half of the window; the other half fills its leaf pools, so the pooled
  values did not shape the leaves);
* **leaf pools** -- every row is routed down each tree ``j`` (by its values; a NaN feature by
  the fitted rows' weight) and offered to its leaf's reservoir of ``x_j`` values, right after
  it is explained (dates and durations are numbers to the trees, so a date later than the
  refit's is routed and pooled like any other; a missing ``x_j``, or a categorical level
  unseen at the refit, is not pooled). A leaf holds up to ``max(2 n_l, 2)`` values (``n_l``: the values pooled at
  the refit). Once full, ``reservoir="uniform"`` keeps a uniform sample of the values
  the leaf was offered since the refit (Vitter's algorithm R), ``reservoir="geometric"``
  replaces a uniformly chosen value (a value survives each arrival with probability
  ``1 - 1 / capacity``: the pool forgets old values geometrically and follows a drifting
  conditional distribution within a leaf).

Row ``t`` is explained with the splits of the last refit position ``b <= t`` and the pools as
they are after rows ``b .. t - 1``: the result depends on the stream's rows before ``t`` only,
never on how the rows were batched (a mini-batch is explained against the pools plus the
writes its earlier rows make, found by binary search, as the reservoirs' own batches are; a
batch that crosses a refit position is explained in segments). The pools' random choices (slot,
descent at a NaN) come from row-keyed uniforms (:class:`~ixplain._random.RowStream`,
``"conditional-pools"``) of the storage's seed, derived from its explainer's seed unless the
storage was given its own ``random_state``.

When the dependence between features drifts, the pools take the new rows at once (within the
old leaves); the splits follow at the next refit after the window holds the new dependence
(``size`` rows). The cost per row is one descent of each tree (the refits, a scikit-learn fit
of ``d`` trees on ``size`` rows every ``refit_every`` rows, are the larger part).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._random import RowStream, root_seed, uniform_index
from .._validation import check_int, check_options
from ..storage.base import SlotStorage
from ..tabular import Table
from .conditional import ConditionalSampler

__all__ = ["ConditionalStorage"]


@dataclass
class _TreePlan:
    """The pool writes of a run of batch rows in one tree: ``ins`` (sorted ``leaf * B + r``,
    the rows offered to each leaf), ``writes`` (sorted ``slot * B + r``)."""

    ins: np.ndarray
    writes: np.ndarray
    leaf: np.ndarray


class _Pending:
    """The leaf pools as each row of a batch run finds them: committed pools plus the writes of
    the run's earlier rows (donor ``C + r``: batch row ``r``'s own value)."""

    def __init__(self, sampler: ConditionalSampler, plans: list[_TreePlan], B: int,
                 offset: int) -> None:
        self.sampler, self.plans, self.B, self.offset = sampler, plans, B, offset
        self.C = sampler.n_rows_

    def pick(self, j: int, leaf: np.ndarray, u: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """One pooled value per query of tree ``j`` (``rows``: the queries' batch rows minus
        ``offset``), from its leaf as it is when that row arrives."""
        tree, plan, B = self.sampler.trees_[j][0], self.plans[j], self.B
        i = np.asarray(rows, dtype=np.intp) + self.offset
        offered = (np.searchsorted(plan.ins, leaf * B + i)
                   - np.searchsorted(plan.ins, leaf * B))
        count = np.maximum(np.minimum(tree.cap[leaf], tree.seen[leaf] + offered), 1)
        slot = tree.start[leaf] + uniform_index(u, count)
        if not plan.writes.size:
            return slot  # type: ignore[no-any-return]
        pos = np.searchsorted(plan.writes, slot * B + i) - 1  # the last write by a row r < i
        found = plan.writes[np.maximum(pos, 0)]
        hit = (pos >= 0) & (found // B == slot)
        return np.where(hit, self.C + found % B, slot)


def _with_pools(sampler: ConditionalSampler, window: Table) -> ConditionalSampler:
    """The fitted sampler with its leaf pools (row ids of ``window``) turned into reservoirs of
    values: tree ``j``'s leaf ``l`` owns slots ``start[l] .. start[l] + cap[l] - 1`` of column
    ``j`` of ``_Z`` (encoded) and of ``data_`` (the values); donor ids are slots."""
    Zw = sampler._Z
    n_feat = Zw.shape[1]
    layout = []
    for j in range(n_feat):
        tree = sampler.trees_[j][0]
        cap = np.where(tree.feature < 0, np.maximum(2 * tree.count, 2), 0).astype(np.intp)
        start = np.concatenate(([0], np.cumsum(cap)[:-1])).astype(np.intp)
        owner = np.repeat(np.arange(len(cap)), tree.count)
        slots = start[owner] + np.arange(len(tree.pool)) - tree.start[owner]
        layout.append((tree, cap, start, slots))
    C = max(int(cap.sum()) for _, cap, _, _ in layout)
    Z = np.full((C, n_feat), np.nan)
    cols = {}
    source = window.columns
    for j, (name, (tree, cap, start, slots)) in enumerate(zip(window.names, layout)):
        Z[slots, j] = Zw[tree.pool, j]
        if window.schema.kinds[j] == "numeric":
            cols[name] = Z[:, j]
        else:
            cols[name] = np.full(C, None, dtype=object)
            cols[name][slots] = np.asarray(source[name], dtype=object)[tree.pool]
        tree.pool = np.arange(int(cap.sum()), dtype=np.intp)
        tree.start, tree.cap = start, cap
        tree.count, tree.seen = tree.count.copy(), tree.count.copy()
        tree.leaf_of = tree.pos = np.empty(0, dtype=np.intp)  # no fitted row is explained
    sampler._Z, sampler.n_rows_ = Z, C
    sampler.data_ = Table(cols, window.schema)
    sampler.__dict__.pop("_Zcols", None)
    return sampler


class ConditionalStorage(SlotStorage):
    """The last ``size`` rows of a stream and a conditional sampler that follows them.

    Parameters
    ----------
    size : int, default=2000
        Window length (rows the trees' splits learn from; the memory bound).
    refit_every : int, default=500
        Rows between two refits of the splits once ``refit_every`` rows were seen (before: at
        rows 1, 2, 4, ...). The leaf pools are updated with every row in between.
    min_samples_leaf : int or "auto", default="auto"
        Passed to :class:`~ixplain.imputation.ConditionalSampler`.
    reservoir : {"geometric", "uniform"}, default="geometric"
        How a full leaf pool takes a new value (module docstring): replace a random value
        (recent values favoured; follows drift), or keep a uniform sample since the refit.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the pools' random choices; None: derived from the explainer's seed (or fresh
        entropy for a storage used alone).

    Attributes
    ----------
    sampler_ : ConditionalSampler or None
        The sampler of the last refit, with its pools as they are now.
    fitted_at_ : int
        The stream position it was fitted at (-1 before the first).

    Raises
    ------
    ValueError
        For a bad ``size``, ``refit_every``, ``min_samples_leaf`` or ``reservoir``.

    References
    ----------
    F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental Permutation Feature
    Importance (iPFI)", Machine Learning 112, 2023 (observational sampling on streams, trees
    with leaf reservoirs). J. S. Vitter, "Random sampling with a reservoir", ACM TOMS 11, 1985.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = ConditionalStorage(size=500, refit_every=100, random_state=0)
    >>> a = rng.normal(size=1050)
    >>> s.update_many(np.column_stack([a, a + 0.1 * rng.normal(size=1050)]))
    >>> len(s), s.fitted_at_  # the splits of row 1000; the pools took rows 1000..1049 too
    (500, 1000)
    >>> int(s.sampler_.trees_[0][0].seen.sum())  # 272 pooled at the refit, 50 offered since
    322
    """

    _owner = "ConditionalStorage"

    def __init__(self, size: int = 2000, refit_every: int = 500,
                 min_samples_leaf: int | str = "auto", reservoir: str = "geometric",
                 random_state: Any = None) -> None:
        super().__init__(size, random_state)
        self.refit_every = int(
            check_int(refit_every, "refit_every", self._owner, min_value=1)  # type: ignore[arg-type]
        )
        ConditionalSampler(min_samples_leaf)  # validates
        self.min_samples_leaf = min_samples_leaf
        self.reservoir = str(check_options(reservoir, "reservoir", self._owner,
                                           ("geometric", "uniform")))
        self.allow_nan = True
        self.sampler_: ConditionalSampler | None = None
        self.fitted_at_ = -1
        self._pool_stream: RowStream | None = None
        self._cache: tuple | None = None

    def _plan(self, n: int) -> np.ndarray:
        return (self.n_seen + np.arange(n, dtype=np.intp)) % self.size

    def boundary(self, t: int) -> int:
        """The refit position row ``t`` is explained with (0 for ``t = 0``: no sampler)."""
        k = self.refit_every
        if t >= k:
            return (t // k) * k
        return 0 if t < 1 else 1 << (int(t).bit_length() - 1)

    def segments(self, n_rows: int) -> Iterator[tuple[int, int, int]]:
        """``(start, stop, position)`` runs of the next ``n_rows`` rows sharing a refit."""
        t0 = self.n_seen
        start = 0
        while start < n_rows:
            b = self.boundary(t0 + start)
            stop = start + 1
            while stop < n_rows and self.boundary(t0 + stop) == b:
                stop += 1
            yield start, stop, b
            start = stop

    def sampler_at(self, b: int, batch: dict[str, np.ndarray], start: int = 0,
                   stop: int | None = None, offset: int = 0) -> ConditionalSampler:
        """The sampler for batch rows ``start .. stop - 1`` (refit position ``b``; ``batch``:
        the canonical columns of the rows being written, from ``n_seen`` on).

        Without ``stop``, or for one row, the sampler itself (its pools as committed); for a
        longer run, a view whose draws for batch row ``r`` (the query row plus ``offset``) see
        the pools after rows ``start .. r - 1`` too.
        """
        cond = self._refit(b, batch)
        if stop is None or stop - start < 2:
            return cond
        Zb = self._encoded(cond, batch)
        plans = self._planned(cond, Zb, start, stop)
        view = copy.copy(cond)
        view._pending = _Pending(cond, plans, len(Zb), offset)
        view._Z = np.concatenate([cond._Z, Zb])
        assert self._schema is not None
        data = cond.data_.columns
        view.data_ = Table({n: np.concatenate([data[n], np.asarray(batch[n], dtype=data[n].dtype)])
                            for n in cond.data_.names}, self._schema)
        view.n_rows_ = len(view._Z)
        return view

    def _refit(self, b: int, batch: dict[str, np.ndarray]) -> ConditionalSampler:
        """The sampler of position ``b``: refitted (splits and fresh pools) if ``b`` is new."""
        if b != self.fitted_at_ or self.sampler_ is None:
            self.sampler_ = self._fit_window(self._window_at(b, batch))
            self.fitted_at_ = b
            self._cache = None
        return self.sampler_

    def _fit_window(self, window: Table) -> ConditionalSampler:
        """The trees learnt on ``window`` with their leaf pools as reservoirs."""
        fitted = ConditionalSampler(self.min_samples_leaf, allow_nan=True,
                                    cross_fit=False).fit(window)
        return _with_pools(fitted, window)

    def _window_at(self, b: int, batch: dict[str, np.ndarray]) -> Table:
        """Rows ``[b - size, b)``: held rows, then rows of ``batch`` (it starts at ``n_seen``)."""
        n0 = self.n_seen
        held = np.arange(max(0, b - self.size), min(b, n0)) % self.size
        cols = self._rows_at(held)
        lo, k = max(0, b - self.size - n0), max(0, b - n0)
        if k:
            num, cat = self._blocks(batch, slice(lo, k))
            new = self._views(num, cat)
            cols = {n: np.concatenate([cols[n], new[n]]) for n in cols}
        assert self._schema is not None
        return Table(cols, self._schema)

    def _encoded(self, cond: ConditionalSampler, batch: dict[str, np.ndarray]) -> np.ndarray:
        """The batch as the float64 matrix the trees read."""
        matrix = getattr(batch, "matrix", None)
        if matrix is not None:
            return np.asarray(matrix, dtype=np.float64)
        assert self._schema is not None
        return cond.encode(Table(dict(batch), self._schema))

    def _uniforms(self, t0: int, n: int, d: int) -> np.ndarray:
        """Rows ``t0 ..``'s pool uniforms (descent at a NaN, slot): shape (n, 2 d)."""
        if self._pool_stream is None:
            if self._seed is None:
                self._seed = root_seed(None)
            self._pool_stream = RowStream(self._seed, "conditional-pools", 2 * d)
        return self._pool_stream.uniforms(t0, n)

    def _planned(self, cond: ConditionalSampler, Zb: np.ndarray, start: int,
                 stop: int) -> list[_TreePlan]:
        """The pool writes of batch rows ``start .. stop - 1`` (cached for :meth:`_write`)."""
        key = (self.fitted_at_, self.n_seen + start, stop - start)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]  # type: ignore[no-any-return]
        B, d = Zb.shape
        U = self._uniforms(self.n_seen + start, stop - start, d)
        plans = [self._plan_tree(cond.trees_[j][0], Zb, U, j, start, stop) for j in range(d)]
        self._cache = (key, plans)
        return plans

    def _plan_tree(self, tree: Any, Zb: np.ndarray, U: np.ndarray, j: int, start: int,
                   stop: int) -> _TreePlan:
        """Which leaf of tree ``j`` each row is offered to, and the slot it writes (if any)."""
        B, d = Zb.shape
        r = np.arange(start, stop)
        r = r[~np.isnan(Zb[r, j])]  # a missing x_j (or an unseen level) is not pooled
        if not r.size:
            empty = np.empty(0, dtype=np.intp)
            return _TreePlan(empty, empty, empty)
        u = U[r - start]
        leaf = tree.descend(Zb[r], np.ones((len(r), d), dtype=bool), u[:, j])
        order = np.argsort(leaf, kind="stable")
        ranked = leaf[order]
        rank = np.empty(len(r), dtype=np.intp)
        rank[order] = np.arange(len(r)) - np.searchsorted(ranked, ranked)
        seen, cap = tree.seen[leaf] + rank, tree.cap[leaf]
        if self.reservoir == "uniform":
            k = np.where(seen < cap, seen, uniform_index(u[:, d + j], seen + 1))
        else:
            k = np.where(seen < cap, seen, uniform_index(u[:, d + j], cap))
        write = k < cap
        writes = np.sort((tree.start[leaf] + k)[write] * B + r[write])
        return _TreePlan(np.sort(leaf * B + r), writes, leaf)

    def _commit(self, cond: ConditionalSampler, batch: dict[str, np.ndarray], start: int,
                stop: int) -> None:
        """Offer batch rows ``start .. stop - 1`` to the leaf pools (in order)."""
        Zb = self._encoded(cond, batch)
        if stop - start == 1 and self._cache is None:
            self._commit_one(cond, batch, Zb, start)
            return
        plans = self._planned(cond, Zb, start, stop)
        B = len(Zb)
        lists = cond.__dict__.get("_Zcols")
        for j, (name, plan) in enumerate(zip(cond.data_.names, plans)):
            tree = cond.trees_[j][0]
            tree.seen += np.bincount(plan.leaf, minlength=len(tree.seen))
            np.minimum(tree.seen, tree.cap, out=tree.count)
            if not plan.writes.size:
                continue
            slot, r = plan.writes // B, plan.writes % B
            last = np.append(slot[1:] != slot[:-1], True)  # the last writer of each slot
            slot, r = slot[last], r[last]
            cond._Z[slot, j] = Zb[r, j]
            col = cond.data_.columns[name]  # a view of _Z's column, or a copy after a pickle
            col[slot] = (Zb[r, j] if col.dtype != object
                         else np.asarray(batch[name], dtype=object)[r])
            if lists is not None:
                for s_, v in zip(slot.tolist(), Zb[r, j].tolist()):
                    lists[j][s_] = v
        self._cache = None

    def _commit_one(self, cond: ConditionalSampler, batch: dict[str, np.ndarray],
                    Zb: np.ndarray, r: int) -> None:
        """:meth:`_commit` of one row (a stream's ``explain_one``): plain loops over the trees,
        the arithmetic of :meth:`_plan_tree` (the same leaf, slot and value)."""
        d = Zb.shape[1]
        z = Zb[r].tolist()
        u = self._uniforms(self.n_seen + r, 1, d)[0].tolist()
        avail = [True] * d
        lists = cond.__dict__.get("_Zcols")
        uniform = self.reservoir == "uniform"
        for j, name in enumerate(cond.data_.names):
            x = z[j]
            if x != x:  # a missing x_j (or an unseen level) is not pooled
                continue
            tree = cond.trees_[j][0]
            leaf = tree._descend_one(z, avail, u[j])
            seen, cap = int(tree.seen[leaf]), int(tree.cap[leaf])
            if seen < cap:
                k = seen
            else:
                n = seen + 1 if uniform else cap
                k = min(int(u[d + j] * float(n)), n - 1)
            tree.seen[leaf] = seen + 1
            tree.count[leaf] = min(seen + 1, cap)
            if k < cap:
                slot = int(tree.start[leaf]) + k
                cond._Z[slot, j] = x
                col = cond.data_.columns[name]
                col[slot] = x if col.dtype != object else batch[name][r]
                if lists is not None:
                    lists[j][slot] = x

    def _write(self, cols: dict[str, np.ndarray], slots: np.ndarray, y: Any) -> None:
        n = len(slots)
        b_next = self.boundary(self.n_seen + n)  # the position the next row will need
        for start, stop, b in self.segments(n):
            if b == b_next and b > 0:  # earlier runs are superseded by the refit at b_next
                self._commit(self._refit(b, cols), cols, start, stop)
        if b_next > 0:
            self._refit(b_next, cols)
        super()._write(cols, slots, y)

    def _undo_state(self) -> Any:
        # the draws of a part may refit the sampler (a new object) before the rows are written
        return self.sampler_, self.fitted_at_, self._cache

    def _restore_state(self, state: Any) -> None:
        self.sampler_, self.fitted_at_, self._cache = state

    def _write_undo(self, slots: np.ndarray) -> Any:
        # the write offers the rows to the sampler's leaf pools in place: keep a copy of it
        base = super()._write_undo(slots)
        sampler, fitted, cache = self.sampler_, self.fitted_at_, self._cache
        frozen = copy.deepcopy(sampler)

        def undo() -> None:
            base()
            self.sampler_, self.fitted_at_, self._cache = frozen, fitted, cache

        return undo

    def _seed_from(self, seed: int) -> None:
        super()._seed_from(seed)
        if self.random_state is None:
            self._pool_stream = None

    def _conformance_state(self) -> list:
        """The pools (values, counts) for the conformance checks' bit-identity comparisons."""
        s = self.sampler_
        if s is None:
            return []
        return [s._Z.copy(), np.concatenate([t[0].seen for t in s.trees_])]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_cache"] = None
        return state

