"""The storage protocol: bounded perturbation data ``P_t`` for incremental explainers.

A storage holds rows seen on a stream (or a static dataset) and draws rows from them. Incremental
explainers use it as the source of replacement values (PFI), imputation rows (SAGE) or grid
ranges; static explainers use :class:`~ixplain.storage.DatasetStorage`.

Every storage here is a **slot buffer**: ``size`` preallocated rows, one numpy array per column
(``float64`` for numeric features, ``object`` for categorical ones). Rows are *copied* into the
buffer, never kept as references to the caller's dicts, so memory is bounded by ``size`` and a
caller mutating its record later does not change the storage. A storage differs from another only
in *which slot* an incoming row writes to (:meth:`SlotStorage._plan`):

* the first ``size`` rows fill slots ``0, 1, ..., size - 1`` in order;
* afterwards a row replaces one slot (reservoir, window) or is dropped (slot ``-1``).

This split (plan the slots, then write) lets an explainer process a mini-batch in order without a
Python loop per row: it knows which rows of the batch are in the storage when each row is
explained (see :meth:`SlotStorage._sample_during`).

Protocol (what explainers and users call)
-----------------------------------------
``update(x, y=None)``
    Add one row (dict record, pandas Series, 1-D array or a one-row :class:`~ixplain.Table`).
``update_many(X, y=None)``
    Add rows in order (anything :func:`~ixplain.as_table` accepts).
``sample(n, rng) -> Table``
    ``n`` rows drawn uniformly with replacement from the held rows.
``__len__``, ``size``, ``table``
    Number of held rows, capacity, and the held rows as a :class:`~ixplain.Table` (a copy).

Randomness
----------
Which rows a storage keeps, and in which slot, is decided per row from a counter-based row
stream (:class:`ixplain._random.RowStream`, name ``"storage"``) indexed by the number of rows
offered before it (:attr:`SlotStorage.n_seen`): row ``t``'s decision depends on the seed and
``t`` alone, so ``update`` one row at a time and ``update_many`` in any split keep the same rows,
and a pickled storage resumes exactly. A storage created without a ``random_state`` and given to
an explainer takes a seed derived from the explainer's; one given a seed keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._lazy import is_instance
from .._random import RowStream, root_seed, uniform_index
from .._validation import check_allocation, check_int
from ..tabular import Schema, Table, as_table, date_objects, is_date_dtype

__all__ = ["Batch", "CachedRows", "SlotStorage", "canonical_columns"]


class CachedRows:
    """A :class:`~ixplain._random.RowStream` read one row at a time through a cache of
    ``block`` consecutive rows: the same numbers (row ``t``'s do not depend on the call that
    makes them), one generator call per ``block`` single-row reads on a stream.

    :meth:`index` maps a row's uniforms to integers in ``[0, n)`` (:func:`uniform_index`) and,
    while ``n`` stays the same (a full storage), does so for the whole cached block at once."""

    def __init__(self, stream: RowStream, block: int = 64) -> None:
        self.stream = stream
        self.block = int(block)
        self._t0 = 0
        self._rows: np.ndarray | None = None
        self._index: np.ndarray | None = None  # uniform_index(_rows, _n), or None
        self._n = -1  # the n of the last index call

    def row(self, t: int) -> np.ndarray:
        """Row ``t``'s uniforms, shape (width,) (a read-only view)."""
        i = t - self._t0
        rows = self._rows
        if rows is None or i < 0 or i >= self.block:
            rows = self._rows = self.stream.uniforms(t, self.block)
            self._t0, i = t, 0
            self._index = None
        return rows[i]

    def index(self, t: int, n: int) -> np.ndarray:
        """``uniform_index(self.row(t), n)``, shape (width,) of intp (do not modify it)."""
        u = self.row(t)
        if n != self._n:  # n changed (a storage filling up): this row alone
            self._n, self._index = n, None
            return uniform_index(u, n)
        if self._index is None:  # the same n twice in a row: the rest of the block at once
            self._index = uniform_index(self._rows, n)  # type: ignore[arg-type]
        return self._index[t - self._t0]

    def __getstate__(self) -> dict:
        return {"stream": self.stream, "block": self.block, "_t0": 0, "_rows": None,
                "_index": None, "_n": -1}


def canonical_columns(table: Table) -> dict[str, np.ndarray]:
    """A table's columns as ``float64`` (numeric) or ``object`` (categorical) numpy arrays.

    A datetime64/timedelta64 column (any unit, tz-aware too) becomes pandas ``Timestamp`` /
    ``Timedelta`` objects (:func:`~ixplain.tabular.date_objects`), which
    :meth:`Table.to_native` turns back into the column's own dtype: the model gets the
    dtype and values it was given, draws from a storage included."""
    out: dict[str, np.ndarray] = {}
    for name, kind in zip(table.schema.names, table.schema.kinds):
        if kind == "numeric":
            out[name] = table.numeric_column(name)
        else:
            col = table.columns[name]
            dates = is_date_dtype(getattr(col, "dtype", None))
            out[name] = date_objects(col) if dates else np.asarray(col, dtype=object)
    return out


def _canonical_schema(schema: Schema, source: str = "records") -> Schema:
    dtypes = tuple(
        np.dtype(np.float64) if k == "numeric" else np.dtype(object) for k in schema.kinds
    )
    return Schema(schema.names, schema.names, schema.kinds, dtypes, source, None)


class Batch(dict):
    """Columns of a batch (a ``dict`` name -> 1-D array) that may also carry ``matrix``: the
    same values as one float64 array of shape (B, n_features) when every feature is numeric
    (the columns are its views). Saves stacking the columns again."""

    matrix: np.ndarray | None = None

    @classmethod
    def from_matrix(cls, matrix: np.ndarray, names: Any) -> Batch:
        out = cls(zip(names, matrix.T))  # rows of the transpose: the columns, as views
        out.matrix = matrix
        return out

    def rows(self, sl: slice) -> Batch:
        """Rows ``sl`` (a slice) of every column, keeping ``matrix``."""
        out = Batch((k, v[sl]) for k, v in self.items())
        out.matrix = None if self.matrix is None else self.matrix[sl]
        return out


def _is_real(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _one_row_table(x: Any, names: tuple[str, ...] | None, owner: str) -> Table:
    """Convert one observation to a one-row table (dict, Series, 1-D array or Table)."""
    if isinstance(x, Table):
        return x
    if isinstance(x, Mapping):
        return as_table(x, names, owner=owner)
    if is_instance(x, "pandas", "Series"):
        return as_table(x, owner=owner)
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{owner}.update expects one row; got an array of shape {arr.shape}.")
    return as_table(arr.reshape(1, -1), names, owner=owner)


class SlotStorage:
    """Base class of the storages: a preallocated buffer of ``size`` rows.

    Subclasses implement :meth:`_plan` (which slot each incoming row writes to) and may
    override ``__len__``. Rows are held column-wise in ``float64`` / ``object`` arrays.

    Parameters
    ----------
    size : int
        Capacity in rows (>= 1).
    random_state : None, int or numpy.random.Generator
        Seed of the storage's own randomness (which rows are kept, see the module docstring);
        a Generator gives one seed draw. None: the seed of the explainer the storage is given
        to (derived from its ``random_state``), or fresh entropy for a storage used alone.
    """

    _owner = "SlotStorage"
    #: Uniforms per offered row in the storage's row stream (its per-row decisions).
    _decision_width = 1

    def __init__(self, size: int, random_state: Any = None) -> None:
        self.size = int(check_int(size, "size", self._owner, min_value=1))  # type: ignore[arg-type]
        # (the features are known at the first update, which checks the whole buffer; a size
        # whose buffer cannot hold even one feature is refused here, at construction)
        check_allocation(8 * self.size, f"{type(self).__name__}(size={self.size:,}) for 1 feature",
                         self._owner, "Choose a smaller size.")
        self.random_state = random_state
        self._seed: int | None = (
            None if random_state is None else root_seed(random_state, self._owner)
        )
        self._stream: RowStream | None = None
        self._one: CachedRows | None = None
        self._names: tuple[str, ...] | None = None
        self._schema: Schema | None = None
        self._where: dict[str, tuple[int, int]] = {}
        self._num_names: list[str] = []
        self._cat_names: list[str] = []
        self._num = np.empty((self.size, 0))
        self._cat = np.empty((self.size, 0), dtype=object)
        self._y: np.ndarray | None = None
        self._len = 0
        self.n_seen = 0

    # ------------------------------------------------------------------ protocol
    def __len__(self) -> int:
        return self._len

    @property
    def feature_names(self) -> tuple[str, ...] | None:
        """Feature names, fixed by the first row stored (None before)."""
        return self._names

    def update(self, x: Any, y: Any = None) -> None:
        """Add one row.

        Parameters
        ----------
        x : dict, pandas Series, ndarray of shape (n_features,) or one-row Table
            The observation; dict keys / Series labels are matched by name after the first row.
        y : object, optional
            Its label (kept alongside the row).

        Raises
        ------
        ValueError
            If a record lacks a feature the storage holds (the message names the key).
        """
        table = _one_row_table(x, self._names, self._owner)
        self.update_many(table, None if y is None else [y])

    def update_many(self, X: Any, y: Any = None) -> None:
        """Add rows in order (``n`` rows of anything :func:`~ixplain.as_table` accepts).

        Parameters
        ----------
        X : ndarray of shape (n, n_features), DataFrame, list of dict or Table
        y : array-like of shape (n,), optional
        """
        table = X if isinstance(X, Table) else as_table(X, self._names, owner=self._owner)
        cols = self._columns_for(table)
        n = table.n_rows
        if n == 0:
            return
        yarr = None if y is None else np.asarray(y, dtype=object).reshape(-1)
        slots = self._plan(n)
        self._write(cols, slots, yarr)

    def sample(self, n: int, rng: np.random.Generator) -> Table:
        """``n`` rows drawn uniformly with replacement from the held rows.

        Parameters
        ----------
        n : int
        rng : numpy.random.Generator
            The caller's generator (the storage's own is used only to decide which rows to keep).

        Returns
        -------
        Table with ``n`` rows.

        Raises
        ------
        ValueError
            If the storage is empty.
        """
        if self._len == 0:
            raise ValueError(f"{self._owner} is empty: nothing to sample from.")
        idx = rng.integers(0, self._len, size=n)
        return self._table_at(idx)

    @property
    def table(self) -> Table:
        """The held rows as a :class:`~ixplain.Table` (a copy)."""
        if self._schema is None:
            raise ValueError(f"{self._owner} is empty: no table yet.")
        return self._table_at(np.arange(self._len))

    @property
    def targets(self) -> np.ndarray | None:
        """Labels of the held rows (object array), or None if none were given."""
        return None if self._y is None else self._y[: self._len].copy()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size}, held={self._len}, seen={self.n_seen})"

    # ------------------------------------------------------------------ internals
    def _plan(self, n: int) -> np.ndarray:  # pragma: no cover - abstract
        """Slot for each of the next ``n`` rows (``-1``: not stored); does not change the
        state (``_write`` of the same rows advances :attr:`n_seen`)."""
        raise NotImplementedError

    def _decisions(self, t0: int, n: int) -> np.ndarray:
        """The uniforms of offered rows ``t0 .. t0 + n - 1``, shape (n, _decision_width)."""
        if self._stream is None:
            if self._seed is None:
                self._seed = root_seed(None)
            self._stream = RowStream(self._seed, "storage", self._decision_width)
        return self._stream.uniforms(t0, n)

    def _decision(self, t: int) -> np.ndarray:
        """Offered row ``t``'s uniforms, shape (_decision_width,) (the one-row hot path)."""
        return self._cached_decisions(t).row(t)

    def _decision_index(self, t: int, n: int) -> np.ndarray:
        """``uniform_index(self._decision(t), n)`` (a read-only view: copy it to keep it)."""
        return self._cached_decisions(t).index(t, n)

    def _cached_decisions(self, t: int) -> CachedRows:
        if self._one is None:
            self._decisions(t, 1)  # makes the stream
            assert self._stream is not None
            self._one = CachedRows(self._stream)
        return self._one

    def _seed_from(self, seed: int) -> None:
        """Take ``seed`` (derived from an explainer's) unless the storage was given its own."""
        if self.random_state is None:
            self._seed = int(seed)
            self._stream = None
            self._one = None

    def _table_at(self, idx: np.ndarray) -> Table:
        assert self._schema is not None
        return Table(self._rows_at(idx), self._schema)

    @property
    def _cols(self) -> dict[str, np.ndarray]:
        """The buffers as columns (views), in feature order."""
        return self._views(self._num, self._cat)

    def _views(self, num: np.ndarray, cat: np.ndarray) -> dict[str, np.ndarray]:
        return {
            name: (num[:, k] if block == 0 else cat[:, k]) for name, (block, k) in self._where.items()
        }

    def _rows_at(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """Columns of the rows in slots ``idx`` (fresh arrays: one fancy index per block)."""
        num = self._num[idx] if self._num.shape[1] else self._num[: len(idx)]
        cat = self._cat[idx] if self._cat.shape[1] else self._cat[: len(idx)]
        return self._views(num, cat)

    def _columns_for(self, table: Table) -> dict[str, np.ndarray]:
        if self._schema is None:
            self._init_buffers(table.schema)
        assert self._names is not None
        if table.names != self._names:
            missing = [n for n in self._names if n not in table.names]
            if missing:
                raise ValueError(
                    f"{self._owner}: the row has no feature {missing[0]!r} "
                    f"(the storage holds {list(self._names)})."
                )
            table = table.select(self._names)
        return canonical_columns(table)

    def _check_compatible(self, schema: Schema, owner: str) -> None:
        """Called once by the explainer that uses this storage, with its observations' schema.

        Raises
        ------
        ValueError
            If another explainer already uses this storage (every row would be stored twice),
            or if the storage already holds columns that are not the observations' features
            (another count, or other names; default array names ``x0, x1, ...`` match by
            position).
        """
        user: str | None = getattr(self, "_owned_by", None)
        if user is not None:
            raise ValueError(
                f"{owner}: this {type(self).__name__} is already the storage of another "
                f"explainer ({user}); each explainer stores every row it sees, so a "
                "shared storage would hold each row twice. Give each explainer its own storage."
            )
        self._owned_by: str | None = owner
        if self._schema is None:
            return
        mine, theirs = list(self._schema.names), list(schema.names)
        default = mine == [f"x{j}" for j in range(len(mine))]
        if len(mine) != len(theirs) or (set(mine) != set(theirs) and not default):
            raise ValueError(
                f"{owner}: the {type(self).__name__} holds the columns {mine}, but the "
                f"observations have the features {theirs}. Build the storage from rows with "
                "the same features."
            )

    def _ensure_schema(self, schema: Schema) -> None:
        """Create the buffers for ``schema`` if none exist yet."""
        if self._schema is None:
            self._init_buffers(schema)

    def _init_buffers(self, schema: Schema) -> None:
        """Two preallocated blocks: (size, n_numeric) float64 and (size, n_categorical) object."""
        self._schema = _canonical_schema(schema)
        self._names = schema.names
        self._num_names = [n for n, k in zip(schema.names, schema.kinds) if k == "numeric"]
        self._cat_names = [n for n, k in zip(schema.names, schema.kinds) if k != "numeric"]
        self._where = {}
        for name, kind in zip(schema.names, schema.kinds):
            block = self._num_names if kind == "numeric" else self._cat_names
            self._where[name] = (0 if kind == "numeric" else 1, block.index(name))
        n_cols = len(self._num_names) + len(self._cat_names)
        check_allocation(
            8 * self.size * n_cols, f"{type(self).__name__}(size={self.size:,}) for {n_cols} "
            "features", self._owner, "Choose a smaller size.",
        )
        self._num = np.full((self.size, len(self._num_names)), np.nan)
        self._cat = np.full((self.size, len(self._cat_names)), None, dtype=object)

    def _blocks(
        self, cols: dict[str, np.ndarray], rows: Any = slice(None)
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows ``rows`` of batch columns as (numeric, categorical) 2-D blocks."""
        n = len(next(iter(cols.values())))
        m = len(np.arange(n)[rows])
        stacked = getattr(cols, "matrix", None)
        if stacked is not None and not self._cat_names:
            return stacked[rows], np.empty((m, 0), dtype=object)
        try:
            num = (
                np.column_stack([cols[c][rows] for c in self._num_names]).astype(np.float64)
                if self._num_names
                else np.empty((m, 0))
            )
        except (TypeError, ValueError):
            bad = next(c for c in self._num_names if np.asarray(cols[c]).dtype.kind not in "iufb")
            raise ValueError(
                f"{self._owner}: feature {bad!r} is numeric but a row holds a value that is "
                "not a number."
            ) from None
        cat = (
            np.column_stack([np.asarray(cols[c][rows], dtype=object) for c in self._cat_names])
            if self._cat_names
            else np.empty((m, 0), dtype=object)
        )
        return num, cat

    def _write(
        self, cols: dict[str, np.ndarray], slots: np.ndarray, y: np.ndarray | None
    ) -> None:
        """Copy the rows with ``slots >= 0`` into their slots (later rows win a shared slot)."""
        n = len(slots)
        self.n_seen += n
        if n == 1:  # fast path for one row: plain assignments, no stacking
            slot = int(slots[0])
            if slot < 0:
                return
            try:
                matrix = getattr(cols, "matrix", None)
                if matrix is not None and not self._cat_names:
                    self._num[slot] = matrix[0]  # the numeric columns in order, already float64
                elif self._num_names:
                    self._num[slot] = [cols[c][0] for c in self._num_names]
            except (TypeError, ValueError):
                bad = next(c for c in self._num_names if not _is_real(cols[c][0]))
                raise ValueError(
                    f"{self._owner}: feature {bad!r} is numeric but a row holds "
                    f"{cols[bad][0]!r}."
                ) from None
            for k, c in enumerate(self._cat_names):
                self._cat[slot, k] = cols[c][0]
            if y is not None:
                if self._y is None:
                    self._y = np.full(self.size, None, dtype=object)
                # as the many-row path below stores them (numpy's own conversion into an
                # object array: float, not np.float64), whatever the path
                self._y[slot:slot + 1] = _row_objects(y[:1])
            if slot >= self._len:
                self._len = slot + 1
            return
        keep = (slots >= 0).nonzero()[0]
        if len(keep) == 0:
            return
        # last writer wins: the largest batch row that writes each slot (ufunc.at is unbuffered,
        # so repeated slots are all compared); dest comes out sorted, one entry per slot
        last = np.full(self._num.shape[0], -1, dtype=np.intp)
        np.maximum.at(last, slots[keep], keep)
        dest = (last >= 0).nonzero()[0]
        rows = last[dest]
        num, cat = self._blocks(cols, rows)
        if num.shape[1]:
            self._num[dest] = num
        if cat.shape[1]:
            self._cat[dest] = cat
        if y is not None:
            if self._y is None:
                self._y = np.full(self.size, None, dtype=object)
            self._y[dest] = _row_objects(y[rows])
        self._len = max(self._len, int(dest[-1]) + 1)

    def _undo_state(self) -> Any:
        """What :meth:`_restore_state` needs to put back the changes a part of an explainer's
        stream makes to the storage *before* it writes (None: :meth:`_plan` and the draws
        change nothing)."""
        return None

    def _restore_state(self, state: Any) -> None:
        """Undo the changes kept by :meth:`_undo_state` (nothing for a plain storage)."""

    def _write_undo(self, slots: np.ndarray) -> Any:
        """A function of no arguments that puts back what ``_write(cols, slots, y)`` is about
        to change (the slots' rows and labels, ``n_seen``, the number held): the explainer
        calls it when a later step of the same part fails. Copies only the written slots."""
        keep = slots[slots >= 0]
        n_seen, held, labels = self.n_seen, self._len, self._y
        num, cat = self._num[keep], self._cat[keep]
        old_y = None if labels is None else labels[keep]

        def undo() -> None:
            self._num[keep] = num
            self._cat[keep] = cat
            if labels is None:
                self._y = None
            else:
                labels[keep] = old_y
                self._y = labels
            self.n_seen, self._len = n_seen, held

        return undo

    def _held(self, slots: np.ndarray) -> np.ndarray:
        """How many rows the storage holds when each of a batch's rows arrives (``slots`` from
        :meth:`_plan`): the fill phase writes slots ``len, len + 1, ...`` in order."""
        grow = np.concatenate(([self._len], np.maximum(slots + 1, self._len)))
        return np.maximum.accumulate(grow)[: len(slots)]

    def _draw_numeric(self, draws: CachedRows, t: int) -> np.ndarray:
        """For incoming row ``t`` with draw uniforms ``draws.row(t)`` of shape (n,): the drawn
        held rows' numeric block, shape (n, n_numeric) -- what :meth:`_sample_blocks` draws for
        a batch of one row from the same uniforms (the storage must hold a row)."""
        return self._num.take(draws.index(t, self._len), axis=0)  # take: faster than [idx]

    def _sample_during(
        self, batch: dict[str, np.ndarray], slots: np.ndarray, u: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Like :meth:`_sample_blocks`, with the draws as columns (views)."""
        num, cat, available = self._sample_blocks(batch, slots, u)
        return self._views(num, cat), available

    def _sample_blocks(
        self, batch: dict[str, np.ndarray], slots: np.ndarray, u: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Draw ``n`` rows for each batch row ``i`` from the storage *as it is when row i arrives*.

        ``u`` of shape (B, n): row ``i``'s uniforms; draw ``k`` of row ``i`` is held slot
        ``floor(u[i, k] * held_i)`` (``held_i``: rows held when row ``i`` arrives), so a row
        draws the same rows whether it comes alone or in a batch.

        The storage state for row ``i`` is the buffer plus the writes of batch rows ``j < i``
        (``slots`` from :meth:`_plan`). The buffers must exist (:meth:`_ensure_schema`).
        Returns the drawn rows as a numeric block (``B * n`` rows in the storage's numeric
        column order, row ``i``'s draws at ``i*n .. i*n+n-1``), a categorical block, and a
        boolean mask of shape (B,): False where the storage was still empty (nothing to draw;
        those rows' draws are meaningless).
        """
        B, n = u.shape
        len0 = self._len
        if B == 1:
            if len0 == 0:  # nothing held yet: "draw" the row itself (its values are discarded)
                bnum, bcat = self._blocks(batch)
                return np.repeat(bnum, n, axis=0), np.repeat(bcat, n, axis=0), np.array([False])
            idx = uniform_index(u[0], len0)
            return self._num.take(idx, axis=0), self._cat.take(idx, axis=0), np.array([True])
        if len0 == self._num.shape[0]:  # full: every row finds all slots held
            available = np.ones(B, dtype=bool)
            flat_s = uniform_index(u, len0).reshape(-1)
        else:
            held = self._held(slots)
            available = held > 0
            flat_s = uniform_index(u, np.maximum(held, 1)[:, None]).reshape(-1)
        num = self._num.take(flat_s, axis=0)
        cat = self._cat.take(flat_s, axis=0)
        writers = np.flatnonzero(slots >= 0)
        if len(writers):
            # candidates: the draws of a slot some batch row writes (few of them)
            written = np.zeros(self._num.shape[0], dtype=bool)
            written[slots[writers]] = True
            cand = np.flatnonzero(written.take(flat_s))
            if len(cand):
                # the last batch row j < i that wrote the drawn slot s, by binary search on the
                # sorted keys slot * B + j (query: s * B + i, strictly smaller keys; draw q
                # belongs to row q // n)
                drawn = flat_s.take(cand)
                keys = np.sort(slots[writers] * B + writers)
                pos = np.searchsorted(keys, drawn * B + cand // n, side="left") - 1
                found = keys.take(np.maximum(pos, 0))
                hit = (pos >= 0) & (found // B == drawn)
                if hit.any():
                    src = found[hit] % B
                    dest = cand[hit]
                    bnum, bcat = self._blocks(batch)
                    if num.shape[1]:
                        num[dest] = bnum[src]
                    if cat.shape[1]:
                        cat[dest] = bcat[src]
        if not available.all():
            # rows that arrived at an empty storage "draw" themselves: no NaN placeholder ever
            # reaches the model (their values are discarded by the explainer)
            empty = np.repeat(~available, n)
            own = np.repeat(np.arange(B), n)[empty]
            bnum, bcat = self._blocks(batch)
            if num.shape[1]:
                num[empty] = bnum[own]
            if cat.shape[1]:
                cat[empty] = bcat[own]
        return num, cat, available


def _row_objects(y: np.ndarray) -> np.ndarray:
    """Labels as one object per row: a multi-output label row ``(k,)`` stays one array (as
    a one-row write stores it), not ``k`` values broadcast into one slot."""
    if y.ndim == 1:
        return y
    out = np.empty(len(y), dtype=object)
    for i, row in enumerate(y):
        out[i] = row
    return out
