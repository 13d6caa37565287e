"""The explanation engine: a method is one batched explanation function; the drivers are here.

Every global explanation in ixplain is a mean of a per-observation explanation function
``lambda(x, y, S, P)``. A method written for the engine is three things:

1. a :class:`Method` subclass whose :meth:`Method.explain` evaluates ``lambda`` for a batch of
   rows (a :class:`RowBatch`) in a few large model calls and returns an array of shape
   ``(B, *value_shape)``, one explanation per row;
2. its result type, built by :meth:`Method.result` from the aggregated values (an
   :class:`Explained`: a :class:`~ixplain.aggregation.Mean` and, if asked, the per-row values);
3. a registration, :func:`register`, which adds the method to :data:`METHODS` and so to the
   engine's conformance tests (same result for any chunking, ``n_jobs`` and Dask partitioning).

It then gets from the engine

* the **static driver** :func:`explain_rows`: the (weighted) mean over a table, computed in row
  chunks that fit ``memory_budget``, optionally on ``n_jobs`` threads, with ``progress``
  reporting, accumulated in :class:`~ixplain.aggregation.Mean` aggregators -- mergeable, so the
  standard error of the mean comes for free (:attr:`Explained.standard_error`);
* the **Dask driver** :func:`explain_partitions` (public as :func:`ixplain.dask.explain`): the
  same ``explain`` on every partition of a ``dask.dataframe.DataFrame``, the partitions' ``Mean``
  states merged on the client;
* the **incremental form**: an :class:`~ixplain.methods._incremental.IncrementalExplainer`
  subclass whose ``_explain_batch`` evaluates the same method object through
  :meth:`Method.explain_sampled` (the storage supplies ``P``, the driver's
  :class:`~ixplain.methods._incremental.Sampler` the random numbers): iPFI evaluates
  :class:`~ixplain.methods.pfi.BackgroundPFI`, iSAGE
  :class:`~ixplain.methods.sage.SAGEFunction`; with ``removal="conditional"`` they evaluate
  :class:`~ixplain.methods._conditional.ConditionalPFI` and
  :class:`~ixplain.methods.sage.ConditionalSAGEFunction`, the objects the static and Dask
  conditional forms run (the sampler's ``storage`` -- a
  :class:`~ixplain.imputation.ConditionalStorage` -- supplies the conditional sampler of each
  row's time).

Registered methods: ``partial_dependence`` (:class:`~ixplain.methods.pdp.ICEFunction`, the
ICE curve on a fixed grid), ``permutation_importance_background``
(:class:`~ixplain.methods.pfi.BackgroundPFI`; static PFI's permutations have their own driver,
:mod:`~ixplain.methods._dataset_pfi`), ``sage``
(:class:`~ixplain.methods.sage.SAGEFunction`); conditional removal:
``permutation_importance_conditional`` (:class:`~ixplain.methods._conditional.ConditionalPFI`)
and ``sage_conditional`` (:class:`~ixplain.methods.sage.ConditionalSAGEFunction`).

Randomness
----------
:attr:`RowBatch.start` is the index of the batch's first row in the whole table (in the
concatenated partitions on Dask). A method that draws at random reads row ``t``'s numbers from
``RowStream(seed, name, width).uniforms(t, B)`` (:mod:`ixplain._random`), so every row gets the
same draws whether it is explained in one chunk or another, on one machine or in any partition.

Chunks and blocks
-----------------
Rows are aggregated in blocks of :data:`BLOCK_ROWS` rows aligned to the global row index, merged
in row order: the static result is bit for bit the same for any ``memory_budget`` and
``n_jobs`` (for a model whose output for a row does not depend on the other rows of its call).
On Dask only the blocks cut by a partition boundary are summed in another order, so the result
does not depend on the number of partitions up to float rounding (~1e-16 relative).

Writing a new method
--------------------
A toy method: the mean change of the model output when feature ``j`` is shifted by ``delta``,
``lambda_j(x) = f(x + delta e_j) - f(x)``. One model call per batch evaluates the ``B`` rows and
their ``B * d`` shifted copies:

>>> import numpy as np
>>> from ixplain.methods._engine import Explained, Method, explain_rows, register
>>> from ixplain.models import as_model
>>> from ixplain.tabular import as_table
>>> @register
... class MeanShift(Method):
...     name = "toy_mean_shift"
...     def __init__(self, model, delta=1.0):
...         self.model, self.delta = model, delta
...     def rows_per_observation(self, table):  # model-input rows per explained row
...         return 1 + len(table.names)
...     def explain(self, batch):
...         X = np.column_stack([batch.X.numeric_column(n) for n in batch.X.names])
...         B, d = X.shape
...         rows = np.repeat(X, 1 + d, axis=0).reshape(B, 1 + d, d)
...         rows[:, 1:] += self.delta * np.eye(d)  # copy j has feature j shifted
...         out = self.model.predict_array(rows.reshape(-1, d)).reshape(B, 1 + d)
...         return out[:, 1:] - out[:, :1]  # (B, d): one value per feature
...     def result(self, explained):
...         return explained.mean.get(), explained.standard_error
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(2000, 2))
>>> method = MeanShift(as_model(lambda A: 3 * A[:, 0] + A[:, 1] ** 2))
>>> mean, se = method.result(explain_rows(method, as_table(X)))
>>> mean.round(2)  # 3, and E[(x + 1)^2 - x^2] = 1 + 2 E[x]: 1 up to the sample mean
array([3.  , 0.99])
>>> se.round(3)  # the first value is 3 on every row; the second, 2 x_1 + 1, has sd 2
array([0.   , 0.044])

The same object runs on Dask (``ixplain.dask.explain(method, ddf)``, the same result for any
number of partitions) and reports progress (``explain_rows(..., progress=make_progress(True,
"toy"))``); :func:`explain_rows` also takes ``sample_weight``, ``memory_budget`` and ``n_jobs``.
The incremental form smooths the same function over a stream (``aggregation="mean"``: a
running mean, equal to the static mean on the same rows):

>>> from ixplain.methods._engine import RowBatch
>>> from ixplain.methods._incremental import IncrementalExplainer
>>> class IncrementalMeanShift(IncrementalExplainer):
...     requires_labels = requires_storage = False  # no y, no perturbation rows
...     def __init__(self, model, **kwargs):
...         super().__init__(model, **kwargs)
...         self._method = MeanShift(self._model)
...     def _explain_batch(self, X, y, sampler):
...         return self._method.explain_sampled(RowBatch(X, y, sampler.rows[0]), sampler)
>>> inc = IncrementalMeanShift(lambda A: 3 * A[:, 0] + A[:, 1] ** 2, aggregation="mean")
>>> bool(np.allclose(inc.explain_many(X), mean, rtol=1e-12))
True

A registered method may define :meth:`Method.example` (a small ``(method, X, y)`` case):
``tests/test_engine.py`` then checks it on every driver -- bit-identical for three memory
budgets and ``n_jobs`` in {1, 2}, and equal on 1, 3 and 7 Dask partitions.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._validation import param_error
from ..aggregation import Mean
from ..models.base import DEFAULT_MEMORY_BUDGET, call_rows
from ..tabular import Table

__all__ = [
    "BLOCK_ROWS",
    "METHODS",
    "Explained",
    "Method",
    "ProgressInfo",
    "RowBatch",
    "explain_partitions",
    "explain_rows",
    "make_progress",
    "register",
]

#: Rows per aggregation block (blocks start at multiples of it in the global row index).
BLOCK_ROWS = 64


# ---------------------------------------------------------------------------------- the protocol
@dataclass(frozen=True)
class RowBatch:
    """Rows handed to :meth:`Method.explain`.

    Attributes
    ----------
    X : Table
        ``B`` rows, in the table's schema (pass it to ``model.predict``).
    y : ndarray of shape (B,) or (B, k), or None
        Their labels, for methods that need them.
    start : int
        Global index of the first row: row ``i`` of the batch is row ``start + i`` of the whole
        table (of the concatenated partitions on Dask). Key random draws by it.
    """

    X: Table
    y: np.ndarray | None
    start: int

    @property
    def n_rows(self) -> int:
        """``B``."""
        return self.X.n_rows


@dataclass
class Explained:
    """The aggregated explanation values of a driver run.

    Attributes
    ----------
    mean : Mean
        Weighted mean (and variance) over the rows of the per-row values, shape ``value_shape``.
    values : ndarray of shape (n_rows, *value_shape) or None
        The per-row values in row order (only with ``keep_values=True``).
    """

    mean: Mean
    values: np.ndarray | None = None

    @property
    def standard_error(self) -> np.ndarray:
        """``sqrt(variance / n)`` of the mean, shape ``value_shape`` (0 while ``n < 2``)."""
        n = max(self.mean.n, 1)
        return np.sqrt(np.asarray(self.mean.variance, dtype=np.float64) / n)

    def merge(self, other: Explained) -> Explained:
        """The values of ``self``'s rows followed by ``other``'s."""
        if self.values is None or other.values is None:
            values = self.values if other.values is None else other.values
        else:
            values = np.concatenate([self.values, other.values])
        return Explained(self.mean.merge(other.mean), values)


class Method:
    """Base class of an engine method: the batched explanation function and its result.

    Subclasses set :attr:`name`, implement :meth:`explain` and usually :meth:`result`, and may
    override :meth:`rows_per_observation` (or :meth:`chunk_rows`) to bound the model input.
    A method object holds what every row shares (model adapter, grid, perturbation rows,
    seed): it is built once on the client and shipped to the Dask workers, so it must pickle.
    """

    #: Short unique name (the key in :data:`METHODS`).
    name: ClassVar[str] = ""
    #: Whether :meth:`explain` needs labels (drivers check that ``y`` is given).
    needs_labels: ClassVar[bool] = False

    def explain(self, batch: RowBatch) -> np.ndarray:  # pragma: no cover - abstract
        """Explanation values of the batch's rows, shape ``(B, *value_shape)`` (float)."""
        raise NotImplementedError

    def explain_sampled(self, batch: RowBatch, sampler: Any) -> np.ndarray:
        """The incremental form's values of the batch's rows, ``(B, *value_shape)``.

        ``sampler`` is the incremental driver's
        :class:`~ixplain.methods._incremental.Sampler`: the perturbation rows ``P`` are drawn
        from the stream's storage and every random number is read through it, keyed by the
        row's stream index (so a row's values do not depend on the batching). Default:
        :meth:`explain` (a method that needs neither). ``batch.start`` is the stream index of
        the batch's first row. A method that computes the model's own per-row loss
        ``loss(y, f(x))`` as the base of its values sets ``sampler.losses`` to it (shape
        (B,)): the drift detector's loss test then needs no model call of its own.
        """
        return self.explain(batch)

    def result(self, explained: Explained) -> Any:
        """The typed result from the aggregated values (default: the mean array)."""
        return explained.mean.get()

    def rows_per_observation(self, table: Table) -> int:
        """Model-input rows that explaining one row costs (default 1)."""
        return 1

    def chunk_rows(self, table: Table, memory_budget: int) -> int:
        """Rows explained per :meth:`explain` call: their model input is one call of
        :func:`~ixplain.models.call_rows` rows (cache-sized, never smaller than one perturbed
        copy of the table, within ``memory_budget``)."""
        per = max(1, int(self.rows_per_observation(table)))
        return max(1, call_rows(len(table.names), memory_budget, n_rows=table.n_rows) // per)

    @classmethod
    def example(cls) -> tuple[Method, Any, Any] | None:
        """A small ``(method, X, y)`` case for the engine's conformance tests (or None)."""
        return None


#: Registered methods by name (see :func:`register`).
METHODS: dict[str, type[Method]] = {}


def register(cls: type[Method]) -> type[Method]:
    """Class decorator: add a :class:`Method` subclass to :data:`METHODS` (names are unique).

    Raises
    ------
    TypeError
        If ``cls`` is not a Method subclass with its own ``explain``.
    ValueError
        If its ``name`` is empty or taken by another class.
    """
    if not (isinstance(cls, type) and issubclass(cls, Method)) or cls.explain is Method.explain:
        raise TypeError(f"register expects a Method subclass that defines explain; got {cls!r}.")
    other = METHODS.get(cls.name)
    if not cls.name or (other is not None and other.__qualname__ != cls.__qualname__):
        raise ValueError(f"register: the method name {cls.name!r} is empty or already taken.")
    METHODS[cls.name] = cls
    return cls


# ---------------------------------------------------------------------------------- progress
@dataclass(frozen=True)
class ProgressInfo:
    """What a ``progress`` callable receives, after every chunk of work.

    Attributes
    ----------
    done : int
        Units finished so far (rows explained; permutations for SAGE); increasing.
    total : int or None
        Units in all (None when unknown, e.g. SAGE stopping at convergence).
    method : str
        Which computation reports (``"partial_dependence"``, ``"sage"``, ...).
    convergence_ratio : float or None
        SAGE: the current ``max(std) / (max(phi) - min(phi))`` (it stops below its threshold).

    Examples
    --------
    >>> info = ProgressInfo(50, 200, "permutation_importance")
    >>> info.fraction
    0.25
    """

    done: int
    total: int | None
    method: str
    convergence_ratio: float | None = None

    @property
    def fraction(self) -> float | None:
        """``done / total`` (None when the total is unknown)."""
        return None if not self.total else self.done / self.total


Reporter = Callable[[ProgressInfo], None]


class _Bar:
    """``progress=True`` with tqdm installed: one bar, created at the first report, from
    ``tqdm.auto`` (Jupyter's widget in a notebook with ipywidgets, a text bar elsewhere)."""

    def __init__(self) -> None:
        self._bar: Any = None

    def __call__(self, info: ProgressInfo) -> None:
        from tqdm.auto import tqdm

        if self._bar is None:
            self._bar = tqdm(total=info.total, desc=info.method, unit="row", leave=False)
        self._bar.update(info.done - self._bar.n)
        if info.convergence_ratio is not None:
            self._bar.set_postfix(ratio=f"{info.convergence_ratio:.4f}", refresh=False)
        if info.total is not None and info.done >= info.total:
            self._bar.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class _Printer:
    """``progress=True`` without tqdm: a line on stderr at most every 10% (and at the end)."""

    def __init__(self) -> None:
        self._last = -1.0

    def __call__(self, info: ProgressInfo) -> None:
        frac = info.fraction
        step = -1.0 if frac is None else np.floor(frac * 10) / 10
        if frac is not None and step <= self._last and frac < 1:
            return
        self._last = step
        of = "" if info.total is None else f"/{info.total}"
        ratio = "" if info.convergence_ratio is None else (
            f", convergence ratio {info.convergence_ratio:.4f}")
        print(f"{info.method}: {info.done}{of} done{ratio}", file=sys.stderr)

    def close(self) -> None:
        return None


def make_progress(progress: Any, owner: str) -> Reporter | None:
    """The reporter for a ``progress`` argument (None: report nothing).

    Parameters
    ----------
    progress : bool or callable
        ``False``: silent. ``True``: a tqdm bar when tqdm is installed (``tqdm.auto``: the
        notebook's widget in Jupyter), else a line on stderr every 10%. A callable: called with one :class:`ProgressInfo` after every chunk.
    owner : str
        The public function, named in the error message.

    Raises
    ------
    TypeError
        If ``progress`` is neither a bool nor callable.
    """
    if progress is None or progress is False:
        return None
    if progress is True:
        try:
            import tqdm  # noqa: F401
        except ImportError:
            return _Printer()
        return _Bar()
    if isinstance(progress, (bool, np.bool_)) or not callable(progress):
        raise param_error(owner, "progress", "a bool or a callable(ProgressInfo)", progress,
                          exc=TypeError)
    return progress  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------- static driver
class BlockMean:
    """A Mean fed in blocks of BLOCK_ROWS rows aligned to the global row index, in row order.

    Values arrive in chunks of any size; a block is aggregated (``Mean.update_many``) once its
    rows are complete and merged into the total in order, so the total does not depend on how
    the rows were chunked.
    """

    def __init__(self, start: int) -> None:
        self.mean = Mean()
        self.pos = start
        self._values: list[np.ndarray] = []
        self._weights: list[np.ndarray] = []

    def add(self, values: np.ndarray, weights: np.ndarray | None) -> None:
        i = 0
        while i < len(values):
            take = min(BLOCK_ROWS - self.pos % BLOCK_ROWS, len(values) - i)
            self._values.append(values[i : i + take])
            if weights is not None:
                self._weights.append(weights[i : i + take])
            self.pos += take
            i += take
            if self.pos % BLOCK_ROWS == 0:
                self.flush()

    def current(self) -> Mean:
        """The mean so far, the pending partial block included (``self`` unchanged)."""
        if not self._values:
            return self.mean
        values = self._values[0] if len(self._values) == 1 else np.concatenate(self._values)
        block = Mean()
        block.update_many(values, np.concatenate(self._weights) if self._weights else None)
        return self.mean.merge(block)

    def flush(self) -> None:
        if not self._values:
            return
        values = self._values[0] if len(self._values) == 1 else np.concatenate(self._values)
        weights = np.concatenate(self._weights) if self._weights else None
        block = Mean()
        block.update_many(values, weights)
        self.mean._merge_into(block)
        self._values, self._weights = [], []


def explain_rows(
    method: Method,
    X: Table,
    y: np.ndarray | None = None,
    *,
    sample_weight: np.ndarray | None = None,
    start: int = 0,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    n_jobs: int = 1,
    progress: Reporter | None = None,
    keep_values: bool = False,
    total: int | None = None,
    done: int = 0,
    into: BlockMean | None = None,
) -> Explained:
    """The static driver: the (weighted) mean of ``method.explain`` over the rows of ``X``.

    Parameters
    ----------
    method : Method
    X : Table
        ``n_rows`` rows (validated by the caller).
    y : ndarray of shape (n_rows,) or (n_rows, k), optional
        Labels (required when ``method.needs_labels``).
    sample_weight : ndarray of shape (n_rows,), optional
        Non-negative row weights of the mean.
    start : int, default=0
        Global index of ``X``'s first row (a Dask partition's offset).
    memory_budget : int, default=256 MB
        Bytes of model input per ``explain`` call (see :meth:`Method.chunk_rows`).
    n_jobs : int, default=1
        Threads evaluating chunks; the result does not depend on it.
    progress : callable(ProgressInfo), optional
        A reporter from :func:`make_progress`, called after every chunk with rows done.
    keep_values : bool, default=False
        Also return the per-row values (``Explained.values``).
    total, done : int, optional
        For reporting a part of a larger run: the run's total rows and the rows done before.
    into : BlockMean, optional
        Accumulate into this running block mean (started at the run's first global row, fed
        the earlier parts) and leave its last partial block pending, so a run split into
        parts of any sizes gives the same bits as one call; ``Explained.mean`` is then
        ``into.current()``.

    Returns
    -------
    Explained

    Raises
    ------
    ValueError
        If the method needs labels and ``y`` is None, or returns values of the wrong length.
    """
    n = X.n_rows
    if method.needs_labels and y is None:
        raise ValueError(f"{method.name}: this method needs labels y.")
    chunk = method.chunk_rows(X, memory_budget)
    bounds = [(lo, min(lo + chunk, n)) for lo in range(0, n, chunk)]

    def run(bound: tuple[int, int]) -> np.ndarray:
        lo, hi = bound
        rows = X if (lo, hi) == (0, n) else X.take(np.arange(lo, hi))
        values = np.asarray(method.explain(RowBatch(rows, None if y is None else y[lo:hi],
                                                    start + lo)), dtype=np.float64)
        if values.shape[0] != hi - lo:
            raise ValueError(f"{method.name}: explain returned {values.shape[0]} values for "
                             f"{hi - lo} rows.")
        return values

    acc, kept = (BlockMean(start) if into is None else into), []
    total = n + done if total is None else total
    pool = ThreadPoolExecutor(n_jobs) if n_jobs > 1 and len(bounds) > 1 else None
    try:
        results = pool.map(run, bounds) if pool is not None else map(run, bounds)
        for (lo, hi), values in zip(bounds, results):
            acc.add(values, None if sample_weight is None else sample_weight[lo:hi])
            if keep_values:
                kept.append(values)
            if progress is not None:
                progress(ProgressInfo(done + hi, total, method.name))
    finally:
        if pool is not None:
            pool.shutdown()
    if into is not None:
        return Explained(acc.current(), np.concatenate(kept) if keep_values and kept else None)
    acc.flush()
    return Explained(acc.mean, np.concatenate(kept) if keep_values and kept else None)


# ---------------------------------------------------------------------------------- Dask driver
def explain_partitions(
    method: Method,
    ddf: Any,
    *,
    columns: list[Any],
    y: Any = None,
    sample_weight: Any = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Reporter | None = None,
    keep_values: bool = False,
    owner: str = "ixplain.dask.explain",
    label: str | None = None,
) -> Explained:
    """The Dask driver: :func:`explain_rows` on every partition, the results merged in order.

    Each partition ``i`` starts at global row ``sum(len(partition k) for k < i)`` (one pass of
    ``len`` over the partitions first), so the rows' keyed draws are those of the
    single-machine run on ``ddf.compute()``. Only the aggregated :class:`Mean` (and, with
    ``keep_values``, the per-row values) leaves a worker.

    Parameters
    ----------
    method : Method
        Built on the client (it is pickled to the workers).
    ddf : dask.dataframe.DataFrame
    columns : list
        The model's feature columns, in order.
    y, sample_weight : column name, optional
        The label and row-weight columns.
    memory_budget, keep_values
        As in :func:`explain_rows` (per worker).
    progress : callable(ProgressInfo), optional
        Called on the client as partitions finish (rows done); with the local schedulers
        (threads, processes, sync) as each finishes, with ``dask.distributed`` at the end.
    owner : str
        Named in error messages.
    label : str, optional
        ``ProgressInfo.method`` of the reports: the public function's name (default:
        ``method.name``, which for a public function may be an internal variant's).

    Returns
    -------
    Explained

    Raises
    ------
    ValueError
        If ``ddf`` has no rows.
    """
    import dask

    lengths = [int(v) for v in ddf.map_partitions(len).compute()]
    total = int(sum(lengths))
    if total == 0:
        raise ValueError(f"{owner}: the DataFrame has 0 rows.")
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(int).tolist()
    token = uuid.uuid4().hex
    keys, tasks = {}, []
    for i, (part, s, length) in enumerate(zip(ddf.to_delayed(), starts, lengths)):
        if length == 0:
            continue
        key = f"ixplain-{method.name}-{token}-{i}"
        keys[key] = length
        tasks.append(dask.delayed(_explain_partition, pure=False)(
            method, part, s, columns, y, sample_weight, memory_budget, keep_values, owner,
            dask_key_name=key,
        ))
    label = method.name if label is None else label
    with _PartitionProgress(keys, total, label, progress):
        parts = dask.compute(*tasks)
    out = parts[0]
    for other in parts[1:]:
        out = out.merge(other)
    if progress is not None:
        progress(ProgressInfo(total, total, label))
    return out  # type: ignore[no-any-return]


def _explain_partition(
    method: Method, part: Any, start: int, columns: list[Any], y: Any, sample_weight: Any,
    memory_budget: int, keep_values: bool, owner: str,
) -> Explained:
    from ..tabular import as_table

    table = as_table(part[columns].reset_index(drop=True), owner=owner)
    labels = None if y is None else part[y].to_numpy()
    if labels is not None and labels.dtype.kind in "fc" and not np.isfinite(labels).all():
        row = start + int((~np.isfinite(labels)).argmax())
        raise ValueError(f"{owner}: the target column {y!r} contains NaN or infinite values "
                         f"(first at row {row}); drop or fill those rows.")
    weights = None if sample_weight is None else part[sample_weight].to_numpy(dtype=np.float64)
    return explain_rows(method, table, labels, sample_weight=weights, start=start,
                        memory_budget=memory_budget, keep_values=keep_values)


class _PartitionProgress:
    """Report rows done as the partition tasks finish (a dask local-scheduler callback)."""

    def __init__(self, keys: dict[str, int], total: int, name: str, report: Reporter | None):
        self.keys, self.total, self.name, self.report = keys, total, name, report
        self.done = 0
        self._cb: Any = None

    def __enter__(self) -> _PartitionProgress:
        if self.report is not None:
            from dask.callbacks import Callback

            self._cb = Callback(posttask=self._posttask)
            self._cb.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._cb is not None:
            self._cb.__exit__(*exc)

    def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
        rows = self.keys.get(key if isinstance(key, str) else str(key))
        if rows and self.report is not None:
            self.done += rows
            if self.done < self.total:  # the driver reports the end itself
                self.report(ProgressInfo(self.done, self.total, self.name))
