"""PFI's explanation function, batched: the loss increase when feature groups take other rows'
values, for many observations, groups and replacement rows in one model call.

Shared by the static driver (:mod:`ixplain.methods._dataset_pfi`), the incremental and Dask forms
(:mod:`ixplain.methods.pfi`) and conditional removal (:mod:`ixplain.methods._conditional`);
it imports none of them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..losses import Loss
from ..models import Model, rows_for_budget
from ..tabular import Table, _take

__all__ = ["pfi_losses"]


@functools.lru_cache(maxsize=64)
def _layout(
    B: int, S: int, groups: tuple[tuple[int, ...], ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each replaced value goes in the perturbed batch (cached; read-only arrays).

    Perturbed row ``i * width + 1 + g * S + s`` (``width = 1 + G * S``) is observation ``i``
    with group ``g`` replaced by draw ``s``. Returns, for every (i, g, s, column of g) in that
    order per observation: the perturbed row ``pos``, the column ``col_of``, and ``order``, the
    index into the flattened (g, s) draws of one observation.
    """
    G = len(groups)
    width = 1 + G * S
    local_pos, local_col, local_order = [], [], []
    for g, cols in enumerate(groups):
        for s in range(S):
            for c in cols:
                local_pos.append(1 + g * S + s)
                local_col.append(c)
                local_order.append(g * S + s)
    k = len(local_pos)
    pos = ((np.arange(B) * width)[:, None] + np.asarray(local_pos, dtype=np.intp)).reshape(-1)
    col_of = np.tile(np.asarray(local_col, dtype=np.intp), B)
    order = np.asarray(local_order, dtype=np.intp).reshape(k)
    for a in (pos, col_of, order):
        a.setflags(write=False)
    return pos, col_of, order


@functools.lru_cache(maxsize=64)
def _group_columns_cached(
    names: tuple[str, ...], groups: tuple[tuple[str, ...], ...]
) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(names.index(n) for n in g) for g in groups)


def _group_columns(names: Sequence[str], groups: Sequence[Sequence[str]]) -> tuple:
    if isinstance(groups, tuple) and isinstance(names, tuple):  # hashable already
        return _group_columns_cached(names, groups)
    return _group_columns_cached(tuple(names), tuple(tuple(g) for g in groups))


class _StackedTable(Table):
    """A Table whose float64 columns are the columns of ``matrix`` (in order): a 2-D array or
    records are built from the matrix in one step instead of column by column."""

    def __init__(self, columns: dict, schema: Any, upcast: Any, matrix: np.ndarray) -> None:
        super().__init__(columns, schema, upcast)
        self.matrix = matrix

    def to_native(self, kind: str | None = None) -> Any:
        kind = kind or self.schema.source
        dtype = self.schema.array_dtype
        if kind == "numpy" and not self.upcast and dtype in (None, np.float64):
            return self.matrix
        if kind == "records":
            labels = self.schema.labels  # the user's record keys (may be ints)
            return [dict(zip(labels, row)) for row in self.matrix.tolist()]
        return super().to_native(kind)


class _Plan:
    """What :func:`pfi_losses` reuses between calls on one kind of input: the flat positions
    of the replaced cells of the all-numeric layout (for the largest batch seen; smaller
    batches use a prefix), the stacked matrix of the last source table, and the model's
    native input kind once one call has shown it (then the perturbed matrix, or records built
    from it, go to the model without a Table round trip)."""

    def __init__(self, schema: Any, upcast: Any = frozenset()) -> None:
        self.schema, self.upcast = schema, upcast
        self.names = list(schema.names)
        self.keys = list(schema.labels)  # record keys: the user's labels (River: may be ints)
        self.native_kind: str | None = None
        self.budget_rows = 0
        self._layouts: dict[tuple, _Layout] = {}
        self._last: _Layout | None = None
        self._source: tuple[Any, np.ndarray] | None = None

    def matrix(self, source: Table) -> np.ndarray | None:
        """``source``'s columns as one (n, d) float64 matrix, or None if one is not float64."""
        if self._source is not None and self._source[0] is source:
            return self._source[1]
        columns = list(source.columns.values())
        if not all(isinstance(c, np.ndarray) and c.dtype == np.float64 for c in columns):
            return None
        stacked = getattr(source, "matrix", None)
        matrix = stacked if stacked is not None else np.column_stack(columns)
        self._source = (source, matrix)
        return matrix

    def layout(self, B: int, S: int, cols: tuple, d: int) -> _Layout:
        """The replaced cells' layout for at least ``B`` observations (the last one if it fits)."""
        last = self._last
        if last is not None and last.cols is cols and last.S == S and last.B >= B:
            return last
        key = (S, cols, d)
        lay = self._layouts.get(key)
        if lay is None or lay.B < B:
            lay = self._layouts[key] = _Layout(max(B, 0 if lay is None else lay.B), S, cols, d,
                                               self.keys)
        self._last = lay
        return lay


class _Layout:
    """Flat positions, for ``B`` observations, of every replaced cell ``(i, g, s, c)``: in the
    perturbed rows (``dest``: ``(i * width + 1 + g * S + s) * d + c``) and in draws given in
    ``(i, g, s)`` order (``src``: ``((i * G + g) * S + s) * d + c``); a batch of fewer
    observations uses a prefix (``k`` cells per observation). ``cell_names``: the feature of
    each cell of one observation."""

    def __init__(self, B: int, S: int, cols: tuple, d: int, names: list[str]) -> None:
        self.B, self.S, self.cols = B, S, cols
        G = len(cols)
        local = [(g * S + s, c) for g, cs in enumerate(cols) for s in range(S) for c in cs]
        r = np.array([q for q, _ in local], dtype=np.intp)
        c = np.array([c for _, c in local], dtype=np.intp)
        i = np.arange(B)[:, None]
        self.dest = ((i * (1 + G * S) + 1 + r) * d + c).reshape(-1)
        self.src = ((i * (G * S) + r) * d + c).reshape(-1)
        self.k = len(local)
        self.cell_names = [names[j] for _, j in local]
        self.sizes = [len(cs) for cs in cols for _ in range(S)]
        self.single = self.k == G * S  # one column per group


def _native_predict(model: Model, plan: _Plan, perturbed: np.ndarray) -> np.ndarray:
    """The model's predictions on the perturbed matrix: straight to the native call when the
    plan knows the input kind (numpy: the matrix itself; records: dicts of its rows), else
    through a Table (and the plan learns the kind when that is one native call)."""
    n_rows, d = perturbed.shape
    kind = plan.native_kind if n_rows <= plan.budget_rows else None
    if kind == "numpy":
        return model._call_native(perturbed, n_rows, kind, plan.names)
    if kind == "records":
        records = [dict(zip(plan.keys, row)) for row in perturbed.tolist()]
        return model._call_native(records, n_rows, kind, plan.names)
    schema = plan.schema
    table = _StackedTable({n: perturbed[:, c] for c, n in enumerate(plan.names)}, schema,
                          plan.upcast, perturbed)
    budget = rows_for_budget(d)
    if n_rows <= budget and not plan.upcast:  # predict makes one native call
        kind = model.native_kind(table)
        if kind == "records" or (kind == "numpy" and schema.array_dtype in (None, np.float64)):
            plan.native_kind, plan.budget_rows = kind, budget
    return model.predict(table)


def _numeric_losses(model: Model, loss: Loss, plan: _Plan, obs: np.ndarray, values: np.ndarray,
                    drawn: np.ndarray | None, cols: tuple, S: int,
                    y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pfi_losses` in the all-numeric layout: the observations ``obs`` (B, d) repeated,
    the replaced cells written in one ``put`` from ``values`` (rows ``drawn[i, g * S + s]``,
    or, with ``drawn=None``, row ``(i * G + g) * S + s``)."""
    B, d = obs.shape
    G = len(cols)
    width = 1 + G * S
    lay = plan.layout(B, S, cols, d)
    dest, src = (lay.dest, lay.src) if lay.B == B else (lay.dest[: B * lay.k], lay.src[: B * lay.k])
    if drawn is not None:  # cell c of drawn row drawn[i, g * S + s] (src // d is i * G * S + q)
        src = drawn.reshape(-1).take(src // d) * d + src % d
    n_rows = B * width
    if plan.native_kind == "records" and n_rows <= plan.budget_rows:
        records = _records(plan.keys, lay, obs, values.take(src))
        preds = model._call_native(records, n_rows, "records", plan.names)
    else:
        perturbed = obs.repeat(width, axis=0)  # C-contiguous: the flat positions apply
        perturbed.put(dest, values.take(src))
        preds = _native_predict(model, plan, perturbed)
    losses = loss(np.asarray(y).repeat(width, axis=0), preds, model.classes_).reshape(B, width)
    return (losses[:, 1:] - losses[:, :1]).reshape(B, G, S), losses[:, 0]


def _records(names: list[str], lay: _Layout, obs: np.ndarray, cells: np.ndarray) -> list[dict]:
    """The records ``[dict(zip(names, r)) for r in perturbed.tolist()]`` would give (same keys
    in the same order, same floats), built as each observation's dict and copies of it with
    the replaced values (``cells``, in (i, g, s, c) order) set."""
    cell_names, k = lay.cell_names, lay.k
    values = cells.tolist()
    records = []
    for i, row in enumerate(obs.tolist()):
        base = dict(zip(names, row))
        records.append(base)
        mine = values[i * k : (i + 1) * k]
        if lay.single:  # one value per perturbed row
            for name, v in zip(cell_names, mine):
                rec = base.copy()
                rec[name] = v
                records.append(rec)
            continue
        j = 0
        for size in lay.sizes:
            rec = base.copy()
            rec.update(zip(cell_names[j : j + size], mine[j : j + size]))
            records.append(rec)
            j += size
    return records


def pfi_losses(
    model: Model,
    loss: Loss,
    source: Table,
    rows: np.ndarray,
    replacements: np.ndarray,
    groups: Sequence[Sequence[str]],
    y: np.ndarray,
    *,
    plan: _Plan | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Loss increase when each feature group takes the values of replacement rows (batched).

    PFI's explanation function with replacement rows drawn per observation
    (:class:`~ixplain.methods.pfi.BackgroundPFI`: the iPFI and the Dask form; static PFI's
    permutations replace whole columns, :mod:`~ixplain.methods._dataset_pfi`). With every
    column float64 the perturbed rows are one matrix (the observations repeated, every replaced
    cell written at once from flat positions) that goes to the model as is when it takes
    arrays or records; otherwise they are gathered column by column.

    Parameters
    ----------
    model : Model
        The adapter (one :meth:`~ixplain.models.Model.predict` call, chunked by memory budget).
    loss : Loss
        Per-row loss.
    source : Table
        Rows referenced by ``rows`` and ``replacements``.
    rows : ndarray of int, shape (B,)
        The explained observations (positions in ``source``).
    replacements : ndarray of int, shape (B, G, S)
        For observation ``i``, group ``g`` and draw ``s``: the source row whose values replace
        group ``g``'s features.
    groups : sequence of G lists of feature names
    y : ndarray of shape (B,) or (B, k)
        Labels of the explained observations.
    plan : optional
        Reused layout and model-input information (internal; a caller making many calls on
        the same kind of input passes the same one).

    Returns
    -------
    diffs : ndarray of shape (B, G, S)
        ``loss(y_i, f(x_i with S_g := x'_{igs})) - loss(y_i, f(x_i))``.
    base : ndarray of shape (B,)
        ``loss(y_i, f(x_i))``.

    References
    ----------
    L. Breiman, "Random Forests", Machine Learning 45, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import as_model, as_table, get_loss
    >>> src = as_table(np.array([[0.0, 1.0], [2.0, 3.0]]))
    >>> diffs, base = pfi_losses(as_model(lambda A: A[:, 0]), get_loss("squared_error"), src,
    ...                          np.array([0]), np.array([[[1], [1]]]), [["x0"], ["x1"]],
    ...                          np.array([0.0]))
    >>> diffs[0, :, 0], base
    (array([4., 0.]), array([0.]))
    """
    B, G, S = replacements.shape
    names = source.names
    cols = _group_columns(names, groups)
    if plan is None or plan.schema is not source.schema:
        plan = _Plan(source.schema, source.upcast)
    matrix = plan.matrix(source)
    if matrix is not None:
        return _numeric_losses(model, loss, plan, matrix[rows], matrix,
                               replacements.reshape(B, G * S), cols, S, y)
    width = 1 + G * S
    pos, col_of, order = _layout(B, S, cols)
    drawn = replacements.reshape(B, G * S)[:, order].reshape(-1)
    # idx[r, c]: the source row whose value of column c goes to perturbed row r
    idx = np.repeat(rows, width)[:, None].repeat(len(names), axis=1)
    if len(pos):
        idx[pos, col_of] = drawn
    columns = list(source.columns.values())
    table = Table({name: _take(col, idx[:, c]) for c, (name, col) in enumerate(zip(names, columns))},
                  source.schema, source.upcast)
    preds = model.predict(table)
    y_rep = np.repeat(np.asarray(y), width, axis=0)
    losses = loss(y_rep, preds, model.classes_).reshape(B, width)
    return (losses[:, 1:] - losses[:, :1]).reshape(B, G, S), losses[:, 0]
