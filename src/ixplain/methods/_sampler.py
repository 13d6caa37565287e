"""Row ``t``'s random numbers and perturbation rows, whatever the batching: the
:class:`Sampler` an incremental explainer hands its method for one batch.

Every number a row gets is read from a counter-based row stream (:mod:`ixplain._random`)
keyed by the explainer's seed, what the numbers are for and the row's index ``t`` in the
stream, so a row gets the same draws alone (``explain_one``) or in any batch
(``explain_many``), before or after a pickle round trip.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._random import RowStream, keyed_generator
from ..storage.base import CachedRows, SlotStorage
from ..tabular import Table

__all__ = ["Sampler", "child_seed"]


class RowStreams:
    """The explainer's named row streams: ``uniforms(name, k, rows)`` -> (len(rows), k)."""

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)
        self._streams: dict[tuple[str, int], RowStream] = {}
        self._cached: dict[tuple[str, int], CachedRows] = {}

    def cached(self, name: str, k: int) -> CachedRows:
        """Stream ``name`` of width ``k`` read one row at a time (the one-row hot path)."""
        cached = self._cached.get((name, k))
        if cached is None:
            cached = self._cached[(name, k)] = CachedRows(self.stream(name, k))
        return cached

    def stream(self, name: str, k: int) -> RowStream:
        key = (name, k)
        st = self._streams.get(key)
        if st is None:  # the width is part of the name: two widths never share numbers
            st = self._streams[key] = RowStream(self.seed, f"{name}/{k}", k)
        return st

    def uniforms(self, name: str, k: int, rows: np.ndarray) -> np.ndarray:
        st = self.stream(name, k)
        B = len(rows)
        t0 = int(rows[0])
        span = int(rows[-1]) - t0 + 1
        if span == B:  # consecutive rows (the usual case)
            return st.uniforms(t0, B)
        return st.uniforms(t0, span)[rows - t0]


#: Stream names of the draw calls of a batch (the c-th call uses ``"draw:<c>"``).
_DRAW_NAMES = tuple(f"draw:{c}" for c in range(16))


class Sampler:
    """Draws perturbation rows and random numbers for a mini-batch, row by row.

    Passed to :meth:`IncrementalExplainer._explain_batch`. Row ``i`` of the batch draws from the
    storage as it was when row ``i`` arrived (holding the stream's rows before it, including the
    earlier rows of the same batch), exactly as a loop of ``explain_one`` calls would.

    Every random number a row gets depends only on the explainer's seed, the row's index ``t``
    in the stream (``n_seen_`` when it arrived) and what the numbers are for, never on how the
    rows were batched (see :mod:`ixplain._random`):

    * ``uniforms(k, name)``: ``(B, k)`` uniforms in [0, 1), row ``i``'s from the row stream
      ``name`` at index ``t_i``; a method's own randomness (e.g. SAGE's feature orders:
      ``argsort(sampler.uniforms(G, "order"), axis=1)``). Use one name per purpose: the same
      ``(k, name)`` gives the same numbers again within a batch.
    * ``draw(n)``, ``draw_blocks(n)``, ``draw_columns(n)``: ``n`` storage rows per batch row,
      uniformly with replacement; the ``c``-th draw call of a batch uses its own stream
      (names ``"draw:<c>"`` are reserved), so calling them in the same order for every batch
      -- as ``_explain_batch`` does -- gives each row the same draws alone or in a batch.

    Attributes
    ----------
    available : ndarray of bool, shape (B,)
        False for rows that arrived while the storage was empty (nothing to draw from).
    rows : sequence of int, length B
        The stream index ``t`` of each batch row.
    losses : ndarray of shape (B,) or None
        Set by a method that computes the model's own per-row loss ``loss(y, f(x))`` as the
        base of its values (iPFI, iSAGE); the engine hands it to the drift hook
        (:attr:`IncrementalExplainer._on_values`), so the detector's loss test needs no model
        call of its own. None (default): not computed.
    """

    def __init__(
        self,
        storage: SlotStorage,
        batch: dict[str, np.ndarray],
        slots: np.ndarray,
        rows: np.ndarray,
        streams: RowStreams,
        make_table: Any,
    ) -> None:
        self._storage = storage
        self._batch = batch
        self._slots = slots
        self.rows = rows
        self._streams = streams
        self._make_table = make_table
        self._n_draws = 0
        self._available: np.ndarray | None = None
        self.losses: np.ndarray | None = None

    @property
    def available(self) -> np.ndarray:
        """False for rows that arrived while the storage was empty, shape (B,)."""
        if self._available is None:
            storage, slots = self._storage, self._slots
            len0 = len(storage)
            if len(slots) == 1 or len0 > 0:  # held rows never decrease: all or none available
                self._available = np.full(len(slots), len0 > 0)
            else:
                self._available = storage._held(slots) > 0
        return self._available

    def uniforms(self, k: int, name: str) -> np.ndarray:
        """``(B, k)`` float64 uniforms in [0, 1): row ``i``'s numbers of stream ``name``.

        They depend on (seed, ``name``, ``k``, the row's stream index) alone. Raises
        ``ValueError`` for a reserved name (``"draw:..."``) or ``k < 1``.
        """
        if str(name).startswith("draw:"):
            raise ValueError(f"Sampler.uniforms: the stream name {name!r} is reserved.")
        if int(k) < 1:
            raise ValueError(f"Sampler.uniforms: k must be >= 1. Got {k!r} instead.")
        return self._streams.uniforms(str(name), int(k), self.rows)

    def _draw_name(self) -> str:
        c = self._n_draws
        self._n_draws = c + 1
        return _DRAW_NAMES[c] if c < len(_DRAW_NAMES) else f"draw:{c}"

    def _draw_uniforms(self, n: int) -> np.ndarray:
        return self._streams.uniforms(self._draw_name(), int(n), self.rows)

    def draw_blocks(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` rows per batch row as (numeric, categorical) 2-D blocks, ``B * n`` rows each;
        columns in feature order within each block (numeric features, then categorical)."""
        num, cat, _ = self._storage._sample_blocks(self._batch, self._slots,
                                                   self._draw_uniforms(n))
        return num, cat

    def draw_columns(self, n: int) -> dict[str, np.ndarray]:
        """``n`` rows per batch row as canonical columns (``B * n`` rows, row-major)."""
        cols, _ = self._storage._sample_during(self._batch, self._slots, self._draw_uniforms(n))
        return cols

    def draw(self, n: int) -> Table:
        """``n`` rows per batch row as a :class:`~ixplain.Table` in the model's schema
        (``B * n`` rows; row ``i``'s draws at ``i*n .. i*n+n-1``)."""
        return self._make_table(self.draw_columns(n))

    @property
    def storage(self) -> SlotStorage:
        """The stream's storage as the batch's first row finds it (the batch's rows are
        written after it is explained); a method with its own draws reads it, e.g. the
        conditional sampler of a :class:`~ixplain.imputation.ConditionalStorage`."""
        return self._storage

    def make_table(self, cols: dict[str, np.ndarray]) -> Table:
        """Canonical columns (float64 / object arrays) -> a Table in the model's schema."""
        return self._make_table(cols)  # type: ignore[no-any-return]

    def draw_numeric_one(self, n: int, t: int) -> np.ndarray:
        """Row ``t``'s ``n`` draws as a numeric block (n, n_numeric): what the first
        :meth:`draw_blocks` of a one-row batch gives (the storage must hold a row; the
        one-row hot path of a method's ``_explain_numeric_row``)."""
        return self._storage._draw_numeric(self._streams.cached(_DRAW_NAMES[0], n), t)


def child_seed(seed: int, name: str) -> int:
    """A seed derived from ``seed`` for the part ``name`` (e.g. an explainer's storage)."""
    return int(keyed_generator(seed, "child", name).integers(0, 2**63 - 1))


def reported_losses(sampler: Sampler, n: int) -> np.ndarray | None:
    """The per-row loss a method reported through ``sampler`` (float64, shape (n,)), or None;
    raises for another shape (a method's bug: the losses would not line up with the rows)."""
    if sampler.losses is None:
        return None
    losses = np.asarray(sampler.losses, dtype=np.float64)
    if losses.shape != (n,):
        raise ValueError(f"The explanation method reported losses of shape {losses.shape} for "
                         f"{n} rows (Sampler.losses must have one loss per batch row).")
    return losses
