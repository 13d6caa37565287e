"""The static SAGE estimator: permutations unrolled in blocks until the values converge.

:func:`estimate_sage` runs on validated inputs (:func:`~ixplain.methods.sage.sage` validates
them): permutation ``p`` draws its row, its order of the players and its background draws from
(seed, p) alone (:class:`_Draws`); their marginal contributions (:mod:`._sage_core`, or
:mod:`._conditional` for ``removal="conditional"``) enter a control-variate mean
(:class:`_Accumulator`) in fixed blocks of :data:`CHECK_EVERY` permutations, with a convergence
test after each, so the result does not depend on ``batch_size`` or ``n_jobs``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numeric import overflow_reported
from .._random import RowStream, keyed_generator, root_seed, uniform_index
from .._validation import check_allocation, refuse_nonfinite
from ..imputation import ConditionalSampler
from ..models import DEFAULT_MEMORY_BUDGET, Model, call_rows
from ..storage.base import canonical_columns
from ..tabular import Table
from ._conditional import TableMaker, conditional_coalition_losses
from ._engine import ProgressInfo
from ._sage_core import (
    coalition_losses,
    contributions,
    correction_for,
    positive_column,
    random_orders,
)

__all__ = ["CHECK_EVERY", "MAX_PERMUTATIONS", "SageEstimate", "estimate_sage"]

_OWNER = "sage"
#: Permutations run when neither ``n_permutations`` nor convergence stops the estimator earlier.
MAX_PERMUTATIONS = 1_000_000


@dataclass
class SageEstimate:
    """What :func:`sage` computed (wrapped into a :class:`FeatureImportance` for users)."""

    players: list[str]
    values: np.ndarray
    std: np.ndarray
    n_permutations: int
    converged: bool
    ratio: float
    explained_loss: float
    n_samples: int
    correction: str
    extra: dict[str, Any] = field(default_factory=dict)


class _Accumulator:
    """Running sums for the control-variate mean of the contributions.

    The per-observation total ``t_i = sum_j lambda_j`` has a known mean over the explained rows
    (``t_bar``: mean of loss(mean prediction) - loss(model)), so each value is estimated as
    ``mean(lambda_j) - beta_j (mean(t) - t_bar)`` with the regression coefficient ``beta_j``.
    The coefficients sum to one, so the values sum to ``t_bar`` exactly (efficiency).
    """

    def __init__(self, n_players: int, t_bar: float) -> None:
        self.n = 0
        self.t_bar = t_bar
        # sums of values shifted by the first batch's means (no cancellation in the variances)
        self.shift = np.zeros(n_players)
        self.t_shift = 0.0
        self.s = np.zeros(n_players)
        self.ss = np.zeros(n_players)
        self.st = np.zeros(n_players)
        self.t = 0.0
        self.tt = 0.0

    def update(self, scores: np.ndarray, totals: np.ndarray) -> None:
        if self.n == 0:
            self.shift = scores.mean(axis=0)
            self.t_shift = float(totals.mean())
        a = scores - self.shift
        b = totals - self.t_shift
        self.n += len(scores)
        self.s += a.sum(axis=0)
        self.ss += (a**2).sum(axis=0)
        self.st += (a * b[:, None]).sum(axis=0)
        self.t += float(b.sum())
        self.tt += float((b**2).sum())

    def result(self, control_variate: bool) -> tuple[np.ndarray, np.ndarray]:
        n = self.n
        ma = self.s / n
        mean = self.shift + ma
        var = np.maximum(self.ss / n - ma**2, 0.0)
        if not control_variate or n < 2:
            return mean, np.sqrt(var / max(n - 1, 1))
        mb = self.t / n
        vt = max(self.tt / n - mb**2, 0.0)
        cov = self.st / n - ma * mb
        if vt <= 1e-300:
            return mean, np.sqrt(var / (n - 1))
        beta = cov / vt
        values = mean - beta * (self.t_shift + mb - self.t_bar)
        resid = np.maximum(var - cov**2 / vt, 0.0)
        return values, np.sqrt(resid / (n - 2 if n > 2 else 1))


#: Orders between two convergence tests. Fixed (not ``batch_size``), so that where the
#: estimator stops, and so its result, does not depend on ``batch_size`` or ``n_jobs``.
CHECK_EVERY = 512


class _Draws:
    """The random numbers of permutation ``p = 0, 1, ...``, each a function of (seed, p) alone.

    Its observation: position ``p % n`` of pass ``p // n``, a permutation of the rows from
    ``keyed_generator(seed, "sage-pass", p // n)``; its order of the players: the argsort of
    row ``p`` of ``RowStream(seed, "sage-order")``; its background draws: row ``p`` of
    ``RowStream(seed, "sage-draw")`` (none for the exact inner average).
    """

    def __init__(self, seed: int, n: int, n_players: int, m: int, n_samples: int,
                 exact_inner: bool, width: int = 0) -> None:
        self.seed, self.n, self.m, self.n_samples = seed, n, m, n_samples
        self.exact_inner = exact_inner
        # conditional removal: the draws are ``width`` uniforms each (row p of "sage-cond")
        self.width = width
        self._cond = RowStream(seed, "sage-cond", n_samples * width) if width else None
        self._orders = RowStream(seed, "sage-order", n_players)
        self._draws = RowStream(seed, "sage-draw", n_samples)
        self._pass, self._perm = -1, np.empty(0, dtype=np.intp)

    def _pass_order(self, q: int) -> np.ndarray:
        if q != self._pass:
            self._pass = q
            self._perm = keyed_generator(self.seed, "sage-pass", q).permutation(self.n)
        return self._perm

    def task(self, p0: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, orders, draw_idx) of permutations ``p0 .. p0 + k - 1``."""
        ps = np.arange(p0, p0 + k)
        rows = np.empty(k, dtype=np.intp)
        for q in range(p0 // self.n, (p0 + k - 1) // self.n + 1):
            sel = (ps // self.n) == q
            rows[sel] = self._pass_order(q)[ps[sel] % self.n]
        orders = random_orders(self._orders.uniforms(p0, k))
        if self._cond is not None:
            return rows, orders, self._cond.uniforms(p0, k).reshape(k, self.n_samples, self.width)
        if self.exact_inner:
            draw_idx = np.broadcast_to(np.arange(self.m), (k, self.m))
        else:
            draw_idx = uniform_index(self._draws.uniforms(p0, k), self.m)
        return rows, orders, draw_idx


@dataclass
class _Reference:
    """The losses every permutation shares: the empty coalition's and the model's."""

    empty_pred: np.ndarray
    empty_loss: np.ndarray
    model_loss: np.ndarray

    @property
    def t_bar(self) -> float:
        return float(np.mean(self.empty_loss - self.model_loss))


def _reference(model: Model, table: Table, y: np.ndarray, loss: Any,
               background: Table) -> _Reference:
    classes = model.classes_
    full = positive_column(model.predict(table), loss, model)
    bg_pred = positive_column(model.predict(background), loss, model)
    if bg_pred.dtype.kind not in "biuf":
        raise ValueError(
            f"sage: {model.describe()} returned non-numeric predictions (e.g. "
            f"{bg_pred.reshape(-1)[:3].tolist()}); SAGE averages predictions over background "
            "rows, so explain a classifier through its probabilities (loss='log_loss' or "
            "'brier')."
        )
    empty_pred = bg_pred.mean(axis=0)
    y_arr = np.asarray(y)
    empty = np.ascontiguousarray(np.broadcast_to(empty_pred, full.shape))
    return _Reference(empty_pred, loss(y_arr, empty, classes), loss(y_arr, full, classes))


def _gap_ratio(values: np.ndarray, std: np.ndarray) -> float:
    """The convergence statistic: largest standard error over the spread of the values."""
    gap = max(float(values.max() - values.min()), 1e-12 * (1.0 + float(np.abs(values).max())))
    return float(std.max() / gap)


def _feed(acc: _Accumulator, scores: np.ndarray, totals: np.ndarray, cap: int,
          threshold: float | None, control_variate: bool, ratio: float) -> tuple[int, float, bool]:
    """Give ``acc`` the complete blocks of :data:`CHECK_EVERY` permutations (and the last,
    shorter one at ``cap``), testing convergence after each; returns (rows used, ratio,
    converged)."""
    used, converged = 0, False
    while not converged:
        left = len(scores) - used
        if left >= CHECK_EVERY:
            k = CHECK_EVERY
        elif left and acc.n + left == cap:
            k = left
        else:
            break
        acc.update(scores[used : used + k], totals[used : used + k])
        used += k
        ratio = _gap_ratio(*acc.result(control_variate))
        converged = threshold is not None and ratio < threshold
    return used, ratio, converged


def _chunk_permutations(d: int, n_players: int, n_samples: int, exact_inner: bool) -> int:
    """Permutations per model call: their stacked coalition rows make one
    :func:`~ixplain.models.call_rows` call (cache-sized, within the default memory budget;
    at least one permutation). The chunking changes no bit of the result."""
    per = (n_players - (1 if exact_inner else 0)) * n_samples + 1
    return max(1, call_rows(d, DEFAULT_MEMORY_BUDGET, n_rows=per) // per)


def _check_sizes(d: int, n_players: int, n_samples: int, exact_inner: bool, batch: int,
                 owner: str) -> None:
    """Refuse up front (:func:`~ixplain._validation.check_allocation`) what cannot fit: one
    permutation's coalition rows (the smallest model call: ``n_samples`` draws, or the whole
    background for the exact inner average, per coalition) and the orders, draws and
    contributions of a batch of ``batch`` permutations."""
    per = (n_players - (1 if exact_inner else 0)) * n_samples + 1
    draws = "background rows" if exact_inner else "n_samples"
    check_allocation(8 * per * max(d, 1), f"{n_samples:,} {draws} x {n_players:,} players "
                     f"({per:,} model rows of {d} features per permutation)", owner,
                     "Use a smaller background or n_samples, or groups of features.")
    check_allocation(8 * batch * (3 * n_players + (0 if exact_inner else n_samples) + 3),
                     f"batch_size={batch:,} permutations of {n_players:,} players", owner,
                     "Use a smaller batch_size (or n_permutations).")


def _compute(run: Any, draws: _Draws, p0: int, size: int, chunk: int,
             pool: ThreadPoolExecutor | None) -> tuple[np.ndarray, np.ndarray]:
    """Contributions and totals of permutations ``p0 .. p0 + size - 1`` (chunks in parallel)."""
    tasks = [draws.task(p0 + a, min(chunk, size - a)) for a in range(0, size, chunk)]
    results = list(pool.map(run, tasks)) if pool is not None else [run(t) for t in tasks]
    return (np.concatenate([r[0] for r in results]),
            np.concatenate([r[1] for r in results]))


def estimate_sage(
    model: Model,
    table: Table,
    y: np.ndarray,
    *,
    loss: Any,
    background: Table,
    n_samples: int,
    exact_inner: bool,
    players: list[str],
    col_player: np.ndarray,
    n_permutations: int | None,
    threshold: float | None,
    batch_size: int,
    rng: Any,
    n_jobs: int = 1,
    control_variate: bool = True,
    removal: ConditionalSampler | None = None,
    progress: Any = None,
) -> SageEstimate:
    """The SAGE estimator on validated inputs (see :func:`sage`); ``rng`` is the seed (an int,
    or a Generator giving one draw). Permutation ``p``'s randomness depends on (seed, p) alone
    (:class:`_Draws`) and the accumulator takes fixed blocks of :data:`CHECK_EVERY`
    permutations, testing convergence after each: the same bits for any ``batch_size`` and
    ``n_jobs``."""
    seed = int(rng) if isinstance(rng, (int, np.integer)) else root_seed(rng, _OWNER)
    n_players = len(players)
    correction = "exact" if exact_inner else correction_for(loss)
    model.observe_labels(y)
    ref = _reference(model, table, y, loss, background)
    refuse_nonfinite(ref.t_bar, _OWNER, "explained loss (marginal loss - model loss)")
    acc = _Accumulator(n_players, ref.t_bar)
    cap = MAX_PERMUTATIONS if n_permutations is None else n_permutations
    chunk = _chunk_permutations(len(table.names), n_players, n_samples, exact_inner)
    draws = _Draws(seed, table.n_rows, n_players, background.n_rows, n_samples, exact_inner,
                   0 if removal is None else removal.width(len(col_player)))
    y_arr = np.asarray(y)

    @overflow_reported()  # (in a worker thread too: it starts with numpy's defaults)
    def run(task: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        rows, orders, draw_idx = task
        if removal is not None:  # conditional: draw_idx holds the draws' uniforms
            x = table.take(rows)
            on_x = removal.data_ is table
            losses = conditional_coalition_losses(
                model, loss, correction, x, y_arr[rows], removal, draw_idx, orders, col_player,
                exclude=rows if on_x else None, empty_pred=ref.empty_pred if exact_inner else None,
                explainer=None if on_x else TableMaker(table),
                rows=None if on_x else (None, canonical_columns(x)))
            return contributions(losses, orders), losses[:, 0] - losses[:, -1]
        losses, _ = coalition_losses(
            model, loss, correction, table.take(rows), y_arr[rows], background, draw_idx,
            orders, col_player, empty_pred=ref.empty_pred if exact_inner else None,
        )
        return contributions(losses, orders), losses[:, 0] - losses[:, -1]

    converged, ratio, done = False, float("inf"), 0
    pending: list[tuple[np.ndarray, np.ndarray]] = []
    pool = ThreadPoolExecutor(n_jobs) if n_jobs > 1 else None
    try:
        while not converged and acc.n < cap:
            size = min(batch_size, cap - done)
            pending.append(_compute(run, draws, done, size, chunk, pool))
            done += size
            scores = np.concatenate([p[0] for p in pending])
            totals = np.concatenate([p[1] for p in pending])
            refuse_nonfinite(scores, _OWNER, "marginal contributions")  # not a 10^6-order run
            used, ratio, converged = _feed(acc, scores, totals, cap, threshold, control_variate,
                                           ratio)
            pending = [(scores[used:], totals[used:])]
            if progress is not None:  # orders so far; the ratio once a block was accumulated
                progress(ProgressInfo(done, n_permutations, _OWNER,
                                      ratio if np.isfinite(ratio) else None))
    finally:
        if pool is not None:
            pool.shutdown()
    values, std = acc.result(control_variate)
    return SageEstimate(
        players=players, values=values, std=std, n_permutations=acc.n, converged=converged,
        ratio=ratio, explained_loss=ref.t_bar, n_samples=n_samples, correction=correction,
        extra={"marginal_loss": float(ref.empty_loss.mean()),
               "model_loss": float(ref.model_loss.mean())},
    )
