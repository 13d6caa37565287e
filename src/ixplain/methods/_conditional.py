"""The perturbation step of PFI and SAGE under ``removal="conditional"``.

The methods hand their removal step here: the removed block of every perturbed row is drawn
by a :class:`~ixplain.imputation.ConditionalSampler` (static: fitted on the explained data,
each row's own values excluded from its draws; stream: the
:class:`~ixplain.imputation.ConditionalStorage`'s sampler for the row's time), then the model
is called once per chunk, as in the marginal forms. Uniforms come from row-keyed streams
(:class:`~ixplain._random.RowStream`), so the values do not depend on chunking or batching.

One definition per method: :class:`ConditionalPFI` (and
:class:`~ixplain.methods.sage.ConditionalSAGEFunction`) is both the static / Dask explanation
function (:meth:`ConditionalPFI.explain`) and the stream's (:meth:`ConditionalPFI.explain_sampled`,
evaluated by ``IncrementalPFI(removal="conditional")``); the two differ only in where the
sampler and the uniforms come from, and share the core :func:`cfi_increases` (donors, fill, one
model call, loss increases). :func:`stream_segments` splits a stream batch at the storage's
refits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .._random import RowStream
from ..imputation.conditional import ConditionalSampler, fill, fill_columns
from ..losses import Loss
from ..models import Model
from ..storage.base import canonical_columns
from ..tabular import Table
from ._batched_pfi import _StackedTable
from ._engine import Method, RowBatch, explain_rows, register
from ._sage_core import averaged_loss, order_losses, positive_column

__all__: list[str] = []


class TableMaker:
    """What the conditional perturbation step needs to build the model input (``_schema``,
    ``_make_table``): canonical columns -> a Table in ``table``'s schema, by ``make`` when
    given (a stream explainer's, which restores pandas categories)."""

    def __init__(self, table: Table, make: Callable[[dict], Table] | None = None) -> None:
        self._schema = table.schema
        self._make = make

    def _make_table(self, cols: dict) -> Table:
        if self._make is not None:
            return self._make(cols)
        return Table(cols, self._schema)


def _masks(names: Sequence[str], groups: Sequence[Sequence[str]]) -> np.ndarray:
    """(G, d) bool: the columns of each group."""
    names = list(names)
    out = np.zeros((len(groups), len(names)), dtype=bool)
    for g, members in enumerate(groups):
        out[g, [names.index(m) for m in members]] = True
    return out


def exclude_rows(ids: np.ndarray, fitted: np.ndarray | None) -> np.ndarray:
    """The sampler's fitted row of each explained row (global ids ``ids``), ``-1`` if none:
    ``ids`` themselves when the sampler was fitted on the whole table in row order (``fitted``
    None), else their positions in the sorted fitted ids ``fitted``."""
    ids = np.asarray(ids, dtype=np.intp)
    if fitted is None:
        return ids
    if not len(fitted):
        return np.full(len(ids), -1, dtype=np.intp)
    pos = np.minimum(np.searchsorted(fitted, ids), len(fitted) - 1)
    return np.where(fitted[pos] == ids, pos, -1).astype(np.intp)


@register
class ConditionalPFI(Method):
    """Conditional PFI's (CFI's) explanation function for the engine: for row ``t``, group
    ``g`` and repeat ``r``, ``loss(y, f(x with x_g drawn from P(x_g | x_rest))) - loss(y,
    f(x))``, the block drawn by the chain rule (:func:`cfi_increases`, shared by both forms).

    Static and Dask (:meth:`explain`): the sampler is fitted once; row ``t`` takes the uniforms
    of row ``t`` in ``RowStream(seed, f"conditional-pfi-{r}")``, and its own values are
    excluded from its draws when ``t`` is a fitted row. Values of shape (B, G, 1 + R) as
    :class:`~ixplain.methods.pfi.PFIFunction`'s (column 0: the mean over the repeats).
    Incremental (:meth:`explain_sampled`, iPFI with ``removal="conditional"``): the sampler of
    the stream's :class:`~ixplain.imputation.ConditionalStorage` for row ``t``'s time, the
    uniforms the driver's sampler gives row ``t``; values (B, G), the mean over ``len(reps)``
    draws.

    Parameters
    ----------
    model, loss, groups
        The model adapter, the loss and the feature groups (lists of names).
    sampler : ConditionalSampler or None
        Fitted once, on the explained table or on a sample of it (None: the incremental form
        only, which takes the storage's).
    seed : int
    reps : sequence of int
        The repeats computed (their streams); on a stream, ``len(reps)`` draws per group.
    rows : ndarray of int, optional
        The global row id of each explained position (default: the position itself).
    fitted : ndarray of int, optional
        Sorted global ids of the rows the sampler was fitted on, in its row order (default:
        row ``t`` is its fitted row ``t``).
    table : Table, optional
        The sampler's data when the explained rows are its rows (the static form: the model
        input keeps the table's dtypes); default: the batch's rows are the source.
    """

    name = "permutation_importance_conditional"
    needs_labels = True

    def __init__(self, model: Model, loss: Loss, groups: Sequence[Sequence[str]],
                 sampler: ConditionalSampler | None, seed: int, reps: Sequence[int],
                 rows: np.ndarray | None = None, fitted: np.ndarray | None = None,
                 table: Table | None = None) -> None:
        self.model, self.loss, self.sampler = model, loss, sampler
        self.groups = tuple(tuple(g) for g in groups)
        self.seed, self.reps = int(seed), [int(r) for r in reps]
        self.rows = None if rows is None else np.asarray(rows, dtype=np.intp)
        self.fitted = None if fitted is None else np.asarray(fitted, dtype=np.intp)
        self.table = table
        self._masks = None if sampler is None else _masks(sampler.feature_names_, self.groups)

    def rows_per_observation(self, table: Table) -> int:
        return 1 + len(self.groups) * len(self.reps)

    def explain(self, batch: RowBatch) -> np.ndarray:
        assert batch.y is not None and self.sampler is not None and self._masks is not None
        self.model.observe_labels(batch.y)
        (G, d), B, R = self._masks.shape, batch.n_rows, len(self.reps)
        ids = (np.arange(batch.start, batch.start + B) if self.rows is None
               else self.rows[batch.start : batch.start + B])
        sampler = self.sampler
        if self.table is not None:
            source, q = self.table, ids
            Z = self.__dict__.get("_Z")
            if Z is None:
                Z = self.__dict__["_Z"] = sampler.encode(self.table)
        else:
            source, q, Z = batch.X, np.arange(B), sampler.encode(batch.X)
        width = G * sampler.width(d)
        u = np.concatenate([  # copy k G + g: group g, repeat k
            RowStream(self.seed, f"conditional-pfi-{r}", width).uniforms_at(ids).reshape(
                B, G, -1) for r in self.reps], axis=1)
        diffs, _ = cfi_increases(
            self.model, self.loss, batch.y, sampler, Z, q, np.tile(self._masks, (R, 1)), u,
            lambda rows, don: fill(source, sampler.data_, rows, don),
            exclude=exclude_rows(ids, self.fitted),
        )
        diffs = diffs.reshape(B, R, G).transpose(0, 2, 1)
        return np.concatenate([diffs.mean(axis=2, keepdims=True), diffs], axis=2)

    def explain_sampled(self, batch: RowBatch, sampler: Any) -> np.ndarray:
        """iPFI's values (B, G) under conditional removal: row ``t`` (``sampler.rows``) draws
        its ``len(reps)`` blocks per group from the storage's sampler for ``t``, with the
        uniforms ``sampler.uniforms(G * S * 2 d, "conditional")`` (copy ``g S + s``); rows
        met by an empty storage get zeros (the engine discards them). Reports the base
        ``loss(y, f(x))`` of each row in ``sampler.losses`` (NaN for those rows)."""
        X, y = batch.X, np.asarray(batch.y)
        B, d, S, G = X.n_rows, len(X.names), len(self.reps), len(self.groups)
        cached = self.__dict__.get("_removed")  # (names, masks): built once per schema
        if cached is None or cached[0] != X.names:  # copy g S + s: group g, draw s
            cached = self.__dict__["_removed"] = (
                X.names, np.repeat(_masks(X.names, self.groups), S, axis=0))
        removed = cached[1]
        u = sampler.uniforms(G * S * 2 * d, "conditional").reshape(B, G * S, 2 * d)
        xm, cols = _stream_rows(X)
        maker = TableMaker(X, sampler.make_table)
        out = np.zeros((B, G))
        base = np.full(B, np.nan)
        for start, stop, cond in stream_segments(sampler.storage, X, xm, cols):
            obs = np.arange(start, stop)

            def build(rows: np.ndarray, don: np.ndarray, cond: Any = cond) -> Table:
                return _perturbed(maker, xm, cols, cond, rows, don)

            diffs, base[obs] = cfi_increases(self.model, self.loss, y[obs], cond,
                                             xm if xm is not None else cond.encode(X), obs,
                                             removed, u[obs], build)
            out[obs] = diffs.reshape(len(obs), G, S).mean(axis=2)
        sampler.losses = base
        return out

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_Z"}  # a cache

    @classmethod
    def example(cls) -> tuple[Method, Any, Any]:
        from ..losses import get_loss
        from ..models import as_model
        from ..tabular import as_table

        rng = np.random.default_rng(0)
        a = rng.normal(size=150)
        X = np.column_stack([a, a + 0.5 * rng.normal(size=150), rng.normal(size=150)])
        sampler = ConditionalSampler(min_samples_leaf=5).fit(as_table(X))
        fn = cls(as_model(_example_model), get_loss("squared_error"),
                 [["x0"], ["x1"], ["x0", "x1"]], sampler, 0, [0, 1])
        return fn, X, X[:, 0] - X[:, 1] + X[:, 2]


def _example_model(X: Any) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    return A[:, 0] - A[:, 1] + A[:, 2]


def cfi_increases(
    model: Model, loss: Loss, y: np.ndarray, sampler: ConditionalSampler, Z: np.ndarray,
    q: np.ndarray, removed: np.ndarray, u: np.ndarray,
    build: Callable[[np.ndarray, np.ndarray], Table], exclude: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """CFI's per-row loss increases, the one core of :class:`ConditionalPFI`'s two forms.

    Observation ``i`` (row ``q[i]`` of the encoded rows ``Z``) gets ``C`` perturbed copies:
    copy ``c`` has the columns ``removed[c]`` drawn by the chain rule (``sampler.donors``)
    from the uniforms ``u[i, c]``; the observation and its copies are one model call.

    Parameters
    ----------
    y : ndarray of shape (B,) or (B, k)
    removed : ndarray of bool, shape (C, d)
    u : ndarray of shape (B, C, 2 d)
    build : callable(rows, donors) -> Table
        The model input: rows ``rows`` of the source with the cells ``donors >= 0`` from the
        sampler's data (``fill`` on a static table, the stream batch's own layout otherwise).
    exclude : ndarray of int, shape (B,), optional
        The fitted row each observation is (never drawn for it; -1: none).

    Returns
    -------
    increases : ndarray of shape (B, C)
        ``loss(y_i, f(copy c)) - loss(y_i, f(x_i))``.
    base : ndarray of shape (B,)
        ``loss(y_i, f(x_i))``.
    """
    (C, d), B = removed.shape, len(q)
    width = 1 + C
    don = sampler.donors(Z, np.repeat(q, C), np.tile(removed, (B, 1)), u.reshape(B * C, -1),
                         exclude=None if exclude is None else np.repeat(exclude, C))
    rows = np.repeat(q, width)
    all_don = np.full((len(rows), d), -1, dtype=np.intp)
    all_don[(np.arange(len(rows)) % width) != 0] = don
    preds = model.predict(build(rows, all_don))
    losses = loss(np.repeat(y, width, axis=0), preds, model.classes_).reshape(B, width)
    return losses[:, 1:] - losses[:, :1], losses[:, 0]


def stream_segments(storage: Any, X: Table, xm: np.ndarray | None,
                    cols: dict[str, np.ndarray] | None, *,
                    local: bool = False) -> Iterator[tuple[int, int, ConditionalSampler]]:
    """The runs ``(start, stop, sampler)`` of a stream batch ``X`` (as :func:`_stream_rows`
    gives it) that share a refit of a :class:`~ixplain.imputation.ConditionalStorage`, each
    with the sampler its rows draw from (the pools as each row finds them); runs met by an
    empty storage are skipped (their values stay 0). ``local``: the run's queries are numbered
    from 0 (the run taken out of the batch), else by their batch row."""
    batch = storage_columns(X, xm, cols)
    for start, stop, b in storage.segments(X.n_rows):
        if b == 0:  # rows met by an empty storage: their values are discarded
            continue
        yield start, stop, storage.sampler_at(b, batch, start, stop,
                                              offset=start if local else 0)


def conditional_pfi_importances(
    model: Model, loss: Loss, table: Table, y: np.ndarray, w: np.ndarray | None,
    subsets: list[np.ndarray], groups: Sequence[Sequence[str]], seed: int,
    sampler: ConditionalSampler, memory_budget: int, progress: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(G, R) mean loss increases of conditional PFI (CFI) on ``table`` (the fitted data) and
    the (G,) standard errors of their mean over repeats, by the engine's static driver
    (:class:`ConditionalPFI`; one pass when every repeat uses the same rows)."""
    G, R = len(groups), len(subsets)
    same = all(np.array_equal(s, subsets[0]) for s in subsets)
    plans = [(subsets[0], list(range(R)))] if same else [(s, [r]) for r, s in enumerate(subsets)]
    out, se = np.zeros((G, R)), np.zeros(G)
    total, done = sum(len(rows) for rows, _ in plans), 0
    for rows, reps in plans:
        fn = ConditionalPFI(model, loss, groups, sampler, seed, reps, rows=rows, table=table)
        data = table if len(rows) == table.n_rows else table.take(rows)
        explained = explain_rows(fn, data, y[rows], sample_weight=None if w is None else w[rows],
                                 memory_budget=memory_budget, progress=progress, total=total,
                                 done=done)
        done += len(rows)
        out[:, reps] = explained.mean.get()[:, 1:]
        se += explained.standard_error[:, 0] ** 2 / len(plans) ** 2
    return out, np.sqrt(se)


def coalition_removed(orders: np.ndarray, col_player: np.ndarray, k_start: int) -> np.ndarray:
    """(n, K, d) bool: the columns outside the first ``k`` players, ``k = k_start..G-1``."""
    n_players = orders.shape[1]
    rank = np.empty_like(orders)
    np.put_along_axis(rank, orders, np.arange(n_players)[None, :], axis=1)
    ks = np.arange(k_start, n_players)
    return ~(rank[:, col_player][:, None, :] < ks[None, :, None])


def conditional_coalition_losses(
    model: Model, loss: Loss, correction: str, x: Table, y: np.ndarray,
    sampler: ConditionalSampler, u: np.ndarray, orders: np.ndarray, col_player: np.ndarray,
    *, exclude: np.ndarray | None = None, empty_pred: np.ndarray | None = None,
    batch_rows: int | None = None, explainer: Any = None, rows: Any = None,
) -> np.ndarray:
    """``coalition_losses`` with each coalition's complement drawn conditionally.

    Parameters
    ----------
    x : Table of n rows; y : ndarray of shape (n,)
    u : ndarray of shape (n, s, width)
        Uniforms of each observation's ``s`` draws, shared by all its coalitions (common random
        numbers).
    exclude : ndarray of int, shape (n,), optional
        The fitted row each observation is (its values are never drawn for it; -1: none).
    explainer, rows : optional
        A stream explainer and ``x`` as (matrix or None, canonical columns or None) (see
        :func:`_stream_rows`); without them the sampler's data must be ``x``'s source table
        and ``exclude`` its row ids.

    Returns
    -------
    losses : ndarray of shape (n, G + 1)
        As :func:`~ixplain.methods._sage_core.coalition_losses`.
    """
    k_start = 0 if empty_pred is None else 1
    est, full_loss = conditional_masked_losses(
        model, loss, correction, x, y, sampler, u,
        coalition_removed(orders, col_player, k_start), exclude=exclude,
        batch_rows=batch_rows, explainer=explainer, rows=rows,
    )
    return order_losses(est, full_loss, model, loss, y, empty_pred)


def conditional_masked_losses(
    model: Model, loss: Loss, correction: str, x: Table, y: np.ndarray,
    sampler: ConditionalSampler, u: np.ndarray, removed: np.ndarray,
    *, exclude: np.ndarray | None = None, batch_rows: int | None = None,
    explainer: Any = None, rows: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Loss estimates of arbitrary coalitions with their complements drawn conditionally.

    ``removed`` of shape (n or 1, K, d) marks the columns drawn in coalition ``k`` of each
    observation; ``u``, ``exclude``, ``explainer`` and ``rows`` as in
    :func:`conditional_coalition_losses`. Returns ``est`` of shape (n, K) (each coalition's
    loss of the averaged prediction over the ``s`` draws, with ``correction``) and the
    model's loss ``loss(f(x), y)`` of shape (n,).
    """
    nb, s = u.shape[:2]
    n_k, d = removed.shape[1:]
    removed = np.repeat(np.broadcast_to(removed, (nb, n_k, d)), s, axis=1).reshape(-1, d)
    obs = np.repeat(np.arange(nb), n_k * s)
    uq = np.broadcast_to(u[:, None], (nb, n_k, s, u.shape[-1])).reshape(-1, u.shape[-1])
    if explainer is None:
        assert exclude is not None
        q = exclude[obs]
        don = sampler.donors(sampler.encode(sampler.data_), q, removed, uq, exclude=q)
        idx = np.concatenate([q, exclude])
        don = np.concatenate([don, np.full((nb, d), -1, dtype=np.intp)])
        table = fill(sampler.data_, sampler.data_, idx, don)
    else:
        xm, cols = rows
        don = sampler.donors(sampler.encode(x) if xm is None else xm, obs, removed, uq,
                             exclude=None if exclude is None else exclude[obs])
        idx = np.concatenate([obs, np.arange(nb)])
        don = np.concatenate([don, np.full((nb, d), -1, dtype=np.intp)])
        table = _perturbed(explainer, xm, cols, sampler, idx, don)
    pred = positive_column(model.predict(table, batch_rows=batch_rows), loss, model)
    inner = pred[: nb * n_k * s].reshape((nb * n_k, s) + pred.shape[1:])
    full_pred = pred[nb * n_k * s :]
    y_arr = np.asarray(y)
    est = averaged_loss(loss, correction, np.repeat(y_arr, n_k, axis=0), inner, model.classes_)
    return est.reshape(nb, n_k), loss(y_arr, full_pred, model.classes_)


def _stream_rows(X: Table) -> tuple[np.ndarray | None, dict[str, np.ndarray] | None]:
    """A stream batch as a float64 matrix (every feature numeric) or as canonical columns."""
    if all(k == "numeric" for k in X.schema.kinds):
        matrix = getattr(X.columns, "matrix", None)
        if matrix is None:
            matrix = np.column_stack([X.numeric_column(n) for n in X.names])
        return matrix, None
    return None, canonical_columns(X)


def segment_rows(xm: np.ndarray | None, cols: dict[str, np.ndarray] | None,
                 part: np.ndarray) -> tuple[np.ndarray | None, dict[str, np.ndarray] | None]:
    """Rows ``part`` of a stream batch given as :func:`_stream_rows` gives it, in that form."""
    return (None if xm is None else xm[part],
            None if cols is None else {n: c[part] for n, c in cols.items()})


def _perturbed(explainer: Any, xm: np.ndarray | None, cols: dict[str, np.ndarray] | None,
               sampler: ConditionalSampler, rows: np.ndarray, don: np.ndarray) -> Table:
    """The model input: batch rows ``rows`` with the cells ``don >= 0`` from the sampler's data."""
    if xm is None:
        assert cols is not None
        filled = fill_columns(cols, canonical_columns(sampler.data_), rows, don)
        return explainer._make_table(filled)
    perturbed = xm[rows]
    r, c = np.nonzero(don >= 0)
    perturbed[r, c] = sampler._Z[don[r, c], c]  # numeric data: the encoded values are the values
    names = explainer._schema.names
    return _StackedTable({n: perturbed[:, k] for k, n in enumerate(names)}, explainer._schema,
                         frozenset(), perturbed)


def storage_columns(X: Table, xm: np.ndarray | None,
                    cols: dict[str, np.ndarray] | None) -> dict[str, np.ndarray]:
    """The batch in the form the storage writes (a refit inside the batch reads it)."""
    if xm is not None:
        from ..storage.base import Batch

        return Batch.from_matrix(xm, X.names)
    assert cols is not None
    return cols


def conditional_storage(explainer: Any, storage: Any, random_state: Any) -> Any:
    """The storage of an incremental explainer given its ``removal`` (set before its
    ``__init__`` runs): a :class:`ConditionalStorage` (default or given) for
    ``"conditional"``, ``storage`` unchanged for ``"marginal"``."""
    if explainer.removal != "conditional":
        return storage
    from ..imputation.stream import ConditionalStorage

    owner = explainer._owner
    if storage is None:
        storage = ConditionalStorage()
    elif not isinstance(storage, ConditionalStorage):
        raise TypeError(
            f"The 'storage' parameter of {owner} must be a ConditionalStorage or None with "
            f"removal='conditional'. Got {type(storage).__name__} instead."
        )
    return storage
