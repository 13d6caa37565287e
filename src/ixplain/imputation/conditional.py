"""Conditional (observational) removal: the removed block drawn by the chain rule from trees.

One tree per feature ``j`` predicts ``x_j`` from all other features; its leaves hold the row
ids of the fitted rows that reach them (a per-leaf pool of *observed* values). To draw a block
``J = (j_1, ..., j_m)`` given the kept features ``S`` for one query row:

1. ``x_{j_m}`` is drawn from tree ``j_m`` with ``S`` available: at a split on an available
   feature the row goes where its value sends it; at a split on an unavailable feature (removed
   and not drawn yet) it goes left with probability ``w_left / w_node``, the fitted rows' weight
   (so the leaf is drawn from the mixture the tree's cover defines, as the exact tree PD
   marginalises); at the leaf one pooled row is drawn uniformly, and its value of ``x_{j_m}``
   is the draw;
2. ``x_{j_{m-1}}`` is drawn the same way with ``S`` and the value just drawn available, and so
   on down to ``j_1``.

The removed values of the query row never enter (no leak), every draw is a value of the data
(it stays in the support; categorical levels are drawn as levels, dates as dates), and the
whole batch goes down each tree level by level in numpy. The blocks are drawn last column first (``j_m`` is the
block's last column in feature order).

Honest trees: tree ``j`` is fitted twice; copy ``k`` learns its splits on a fixed random half
``k`` of the rows and pools the values of the other half, so the pooled values did not shape
the leaves (a tree grown and pooled on the same rows groups similar ``x_j`` values by chance,
which understates the conditional spread and leaks a row's own value). A fitted row is drawn
for by the copy that pools it, its own value excluded (``exclude``). Streams, whose explained
rows are never fitted rows, fit copy 0 only (``cross_fit=False``).

Uniforms: a query needs two per feature (one steers the descent -- rescaled at each random
branch, so one number serves a whole path --, one picks the pooled row), ``width(d) = 2 d``.

Tiny leaves: the trees are grown with ``min_samples_leaf`` rows per leaf (default
``clip(n // 400, 5, 50)``; :func:`averaged_leaf` for static SAGE and Shapley interactions), so
every leaf pool holds about that many values; a row excluded
from its own leaf (``exclude``) leaves one fewer. A leaf pool never gets empty; a feature
whose values are all missing cannot be fitted (ValueError).

Leaf size, the trade-off. A leaf pool of ``k`` values is a sample of the conditional
distribution, and its mean misses the conditional mean by a noise of variance about
``Var(x_j | leaf) / k``. A method that evaluates the model on one draw per loss (PFI) does
not see it: over the pool, ``E[(y - f(draw))^2]`` keeps the conditional spread (the pool's
own scatter plus its mean's error). A method that averages the model over draws first (SAGE,
Shapley interactions, iSAGE) measures the loss about the pool's noisy mean: under squared
error the loss of a coalition with ``x_j`` removed is inflated by about
``Var(f | x_S) / k_eff`` (the squared-error correction removes only the scatter of the draws
around the pool's mean, not that mean's own error). ``k_eff`` is the pool the draw comes
from: a kept feature the tree splits on fixes the branch (one leaf, ``k`` values), a removed
one mixes the leaves by weight (a much larger effective pool). So keeping a feature the tree
splits on -- even spuriously, one independent of everything that the model ignores -- raises
the loss: it gets a negative value, and the features whose pools it splits are inflated.
``f = 10 x0 + x1`` on 800 independent normal rows, conditional SAGE (marginal and exact
``[100, 1, 0]``; mean of 4 seeds): leaves of 5 (``_auto_leaf``) ``[111.4, -1.35, -8.8]``, 10
``[106.1, -0.2, -4.7]``, 20 (:func:`averaged_leaf`) ``[101.6, 1.3, -1.7]``, 80
``[101.7, 1.05, -1.5]``; at 3000 rows leaves of 7 gave ``x2 = -3.4``, 50 ``-2.3``: the
bias falls like ``1 / k``, it is not removed. Shapley interactions' main terms (3 seeds,
800 rows): ``[97.7, -6.8, -8.6]`` with leaves of 5, ``[99.9, -3.8, -3.5]`` with 20. iSAGE
(``ConditionalStorage`` windows of 2000, 4000 rows, 2 seeds): ``[109.8, -2.6, -3.8]`` with its
default leaves of 5, ``[104.6, 0.4, -0.0]`` with 50; iPFI ``[207.9, 1.9, 0]`` and
``[205.5, 1.9, 0]`` (unbiased either way). Coarse leaves fail the other way (they
overstate the conditional variance: importance biased up): the stream PFI test's
``x0`` (``rho = 0.9``, windows of 2000) rose from 0.38 to 0.425 with leaves of 50 instead of 5,
hence the two rules. On the correlated Gaussian of the SAGE test (``rho = 0.8, 0.5``, exact
conditional SAGE by enumeration) leaves of 5, 20 and 40 were equally close at 800 rows
(largest error 0.06, 0.06, 0.09 for values up to 1) and at 6000 rows (leaves of 15, 20, 50:
0.014, 0.026, 0.021).

Dates, datetimes, durations and periods are ordered quantities, not levels: the trees read
them as numbers (:mod:`ixplain.imputation._dates`: seconds -- or periods -- from the fitted
column's median value, tz-aware ones in UTC, the same code in any unit) and predict them with
regression trees, so a date after the last fit needs no level of its own; the values drawn
are the observed dates themselves, in the column's dtype. Other categorical features are
levels, coded 0..L-1 (classification trees).

Copies of one quantity: columns that are strictly monotone functions of each other on the
fitted rows (an exact copy, a change of unit, a categorical column under two names) form a
group (:mod:`ixplain.imputation._aliases`); a removed member whose copy is available (kept,
or drawn before it) is read at the trees' splits as that copy's value, mapped. Without it a
tree that split on one removed copy went down by weight while the kept copy told the value,
and identical copies got unequal SAGE values. Noisy near-copies stay distinct features.

Levels: a categorical feature of more than :data:`~ixplain.grids.MAX_LEVELS` levels (a column
of identifiers) is refused at fit, as partial dependence refuses it: its classification tree's
fit grows with levels x rows.

Missing values: :meth:`ConditionalSampler.fit` refuses NaN in a numeric column and a missing
date (NaT, None) in a date column alike unless ``allow_nan``, which the stream storage sets
(its rows passed the explainer's ``nan_policy``). With it, rows whose ``x_j`` is missing are
not in tree ``j``'s pools; a missing value
(or an unseen categorical level, or a value a date column cannot order, e.g. a naive datetime
in a tz-aware column) in an available feature of a query row is treated as unavailable at the
splits on it (the row descends by weight there).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._random import keyed_generator, root_seed, uniform_index
from .._validation import check_int, date_sort, param_error
from ..grids import MAX_LEVELS
from ..storage.base import canonical_columns
from ..tabular import Table, _take, as_table
from ._aliases import alias_groups, group_index, steer_drawn, steer_kept
from ._dates import DateCoder
from .base import Removal

__all__ = ["ConditionalSampler"]

_EPS = 1.0 - 2.0**-53


@dataclass
class _Tree:
    """Flat arrays of one fitted tree (feature indices are global columns).

    ``p_left[node]``: fitted weight of the left child over the node's; ``start``/``count``:
    the node's slice of ``pool`` (leaves only); ``pool``: fitted row ids, grouped by leaf;
    ``leaf_of``/``pos``: each fitted row's leaf and position in its pool (-1: not pooled).
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    p_left: np.ndarray
    start: np.ndarray
    count: np.ndarray
    pool: np.ndarray
    leaf_of: np.ndarray
    pos: np.ndarray
    depth: int
    #: stream pools only (:mod:`ixplain.imputation.stream`): each leaf's capacity and the
    #: values offered to it since the refit
    cap: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.intp))
    seen: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.intp))

    def descend(self, Z: np.ndarray, avail: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Leaf reached by every row of ``Z`` (Q, d): by value where available, else by weight."""
        if len(Z) <= 4:  # a few rows: a plain loop over the path (no per-level numpy calls)
            return np.array([self._descend_one(z, a, v) for z, a, v in
                             zip(Z.tolist(), avail.tolist(), u.tolist())], dtype=np.intp)
        node = np.zeros(len(Z), dtype=np.intp)
        u = u.copy()
        active = np.arange(len(Z))
        for _ in range(self.depth):
            f = self.feature[node[active]]
            inner = f >= 0
            active, f = active[inner], f[inner]
            if not active.size:
                break
            nd = node[active]
            xv = Z[active, f]
            ok = avail[active, f] & (xv == xv)
            pl = self.p_left[nd]
            ua = u[active]
            left = np.where(ok, xv <= self.threshold[nd], ua < pl)
            # one uniform steers the whole path: rescaled to [0, 1) at each random branch
            rescaled = np.where(left, ua / pl, (ua - pl) / np.maximum(1.0 - pl, 1e-300))
            u[active] = np.where(ok, ua, np.clip(rescaled, 0.0, _EPS))
            node[active] = np.where(left, self.left[nd], self.right[nd])
        return node

    def _descend_one(self, z: list, avail: list, u: float) -> int:
        """:meth:`descend` for one row (lists), with the same arithmetic."""
        lists = self.__dict__.get("_lists")
        if lists is None:
            lists = self.__dict__["_lists"] = (
                self.feature.tolist(), self.threshold.tolist(), self.left.tolist(),
                self.right.tolist(), self.p_left.tolist())
        feature, threshold, left, right, p_left = lists
        node = 0
        f = feature[0]
        while f >= 0:
            x = z[f]
            if avail[f] and x == x:
                node = left[node] if x <= threshold[node] else right[node]
            else:
                pl = p_left[node]
                if u < pl:
                    u = min(u / pl, _EPS)
                    node = left[node]
                else:
                    u = min((u - pl) / max(1.0 - pl, 1e-300), _EPS)
                    node = right[node]
            f = feature[node]
        return node

    def pick(self, leaf: np.ndarray, u: np.ndarray, exclude: np.ndarray | None) -> np.ndarray:
        """One pooled row per query from its leaf, never ``exclude[q]`` (if in that leaf)."""
        start, count = self.start[leaf], self.count[leaf]
        if exclude is None:
            return self.pool[start + uniform_index(u, count)]
        ex = np.asarray(exclude, dtype=np.intp)
        own = np.where(ex >= 0, self.leaf_of[np.maximum(ex, 0)], -1)
        skip = (own == leaf) & (count > 1)
        k = uniform_index(u, count - skip)
        k = k + (skip & (k >= self.pos[np.maximum(ex, 0)]))
        return self.pool[start + k]


class _Encoder:
    """Numeric columns as float64; dates, datetimes, durations and periods as numbers too
    (:class:`~ixplain.imputation._dates.DateCoder`: seconds or periods from the fitted
    column's median value); other categorical columns' levels as codes 0..L-1 (unseen: NaN),
    in the order of :func:`_level_order` (the trees split on the codes as on numbers)."""

    def __init__(self, table: Table) -> None:
        self.names = table.names
        self.kinds = table.schema.kinds
        self.dates: dict[str, DateCoder] = {}
        self.levels: dict[str, Any] = {}
        for name, kind in zip(self.names, self.kinds):
            if kind == "numeric":
                continue
            coder = DateCoder.fit(table.columns[name])
            if coder is not None:
                self.dates[name] = coder
                continue
            import pandas as pd  # categorical data only (import ixplain stays light)

            col = canonical_columns(table.select([name]))[name]
            values = pd.unique(pd.Series(col, dtype=object).dropna())
            self.levels[name] = pd.Index(_level_order(values), dtype=object)

    def __call__(self, table: Table) -> np.ndarray:
        table = table.select(self.names)
        out = np.empty((table.n_rows, len(self.names)))
        for c, name in enumerate(self.names):
            if name in self.dates:
                out[:, c] = self.dates[name](table.columns[name])
            elif name in self.levels:
                import pandas as pd

                col = canonical_columns(table.select([name]))[name]
                codes = self.levels[name].get_indexer(pd.Index(col, dtype=object))
                out[:, c] = np.where(codes >= 0, codes, np.nan)
            else:
                out[:, c] = table.numeric_column(name)
        return out


def _refuse_missing(table: Table, Z: np.ndarray, encoder: _Encoder, owner: str) -> None:
    """Refuse the missing values of ``table`` (encoded as ``Z`` by ``encoder``) that the trees
    read as numbers: NaN in a numeric column, and a missing date (NaT, None) in a column of
    dates, datetimes, durations or periods (coded as numbers, its missing values are NaN
    codes as a number's are; the fit accepted them while it refused NaN). A categorical
    level's None is not a number's gap and is left alone.

    Raises
    ------
    ValueError
        Naming every such column, its first missing value (for a date column) and its row.
    """
    parts = []
    for c in np.flatnonzero(np.isnan(Z).any(axis=0)):
        name, i = table.names[c], int(np.isnan(Z[:, c]).argmax())
        if table.schema.kinds[c] == "numeric":
            parts.append(f"column {name!r} contains NaN (first at row {i})")
        elif name in encoder.dates:  # (a date column's NaN codes are missing values at fit)
            value = canonical_columns(table.select([name]))[name][i]
            parts.append(f"column {name!r} contains a missing value ({value!r}, first at "
                         f"row {i})")
    if parts:
        raise ValueError(f"{owner}: {', '.join(parts)}; impute or drop missing values first.")


def _refuse_many_levels(encoder: _Encoder, n_rows: int, owner: str) -> None:
    """Refuse a categorical column of more than :data:`~ixplain.grids.MAX_LEVELS` levels
    (partial dependence's limit): its tree is a classifier over the levels, whose fit costs
    about levels x rows per tree level (a column of identifiers, one level per row, grows with
    the square of the rows: 8,000 rows took 23 s, 100,000 would take hours and gigabytes).

    Raises
    ------
    ValueError
        Naming the column, its level count and the size of the work.
    """
    for name, levels in encoder.levels.items():
        if len(levels) > MAX_LEVELS:
            raise ValueError(
                f"{owner}: categorical feature {name!r} has {len(levels):,} distinct levels "
                f"(more than {MAX_LEVELS:,}); conditional removal would draw it from a "
                f"classification tree over its levels, whose fit grows with levels x rows "
                f"({len(levels) * n_rows:,} class counts per tree level on these {n_rows:,} "
                f"rows). Group its rare levels, leave the feature out (an identifier "
                f"explains nothing), or use removal='marginal'."
            )


def _level_order(values: Any) -> list[Any]:
    """A categorical feature's levels in the order of their codes: date-like levels
    (:func:`~ixplain._validation.date_sort`) in time order if they compare (a column of
    dates is coded as numbers by :class:`~ixplain.imputation._dates.DateCoder` unless pandas
    cannot hold one of its values), so that a tree's split on the codes is a split in time (by
    ``repr``, ``Timedelta('10 days')`` came before ``Timedelta('9 days')``); any other levels,
    and dates that do not compare with each other (naive with tz-aware datetimes, periods of
    two frequencies, dates mixed with durations), by ``repr`` (a fixed order for objects of no
    common order).

    Examples
    --------
    >>> import datetime
    >>> _level_order([datetime.timedelta(days=10), datetime.timedelta(days=9)])
    [datetime.timedelta(days=9), datetime.timedelta(days=10)]
    >>> _level_order(["b", 10, "a"])
    ['a', 'b', 10]
    """
    values = list(values)
    if date_sort(values, np.dtype(object)) is not None:
        try:
            return sorted(values)
        except TypeError:  # no common order
            pass
    return sorted(values, key=repr)


def _auto_leaf(n: int) -> int:
    """``min_samples_leaf="auto"``: ``clip(n // 400, 5, 50)`` (draw-by-draw methods, PFI)."""
    return int(np.clip(n // 400, 5, 50))


def averaged_leaf(n: int) -> int:
    """Leaf size for methods that average the model over draws (static SAGE and Shapley
    interactions): ``clip(n // 40, 5, 50)``, coarser than :func:`_auto_leaf` because a pool
    mean's noise biases them (module docstring, "Leaf size")."""
    return int(np.clip(n // 40, 5, 50))


def averaged_sampler(data: Table) -> ConditionalSampler:
    """A :class:`ConditionalSampler` fitted on ``data`` with :func:`averaged_leaf` leaves
    (the sampler of static SAGE and Shapley interactions, in memory or on dask)."""
    return ConditionalSampler(averaged_leaf(data.n_rows)).fit(data)


def _single_leaf(rows: np.ndarray, n: int) -> _Tree:
    """A tree without splits (one feature, or nothing to split on): the pool is every row."""
    leaf_of = np.full(n, -1, dtype=np.intp)
    pos = np.full(n, -1, dtype=np.intp)
    leaf_of[rows] = 0
    pos[rows] = np.arange(len(rows))
    z = np.zeros(1, dtype=np.intp)
    return _Tree(np.full(1, -1, dtype=np.intp), np.zeros(1), z, z, np.ones(1), z,
                 np.array([len(rows)], dtype=np.intp), rows.astype(np.intp), leaf_of, pos, 0)


def _fit_tree(Z: np.ndarray, j: int, categorical: bool, min_leaf: int,
              max_depth: int | None, fit_rows: np.ndarray, pool_rows: np.ndarray) -> _Tree:
    """Tree ``j`` (``x_j`` from the other columns): splits learnt on ``fit_rows``, leaves
    pooling ``pool_rows`` (honest: the pooled values did not shape the leaves). A leaf that
    pools fewer than 2 such rows also pools the fitting rows that reach it (the fallback)."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    n, d = Z.shape
    fit_rows = fit_rows[~np.isnan(Z[fit_rows, j])]
    pool_rows = pool_rows[~np.isnan(Z[pool_rows, j])]
    others = np.array([k for k in range(d) if k != j], dtype=np.intp)
    if not others.size or len(fit_rows) < 2 * min_leaf:
        return _single_leaf(np.sort(np.concatenate([fit_rows, pool_rows])), n)
    cls = DecisionTreeClassifier if categorical else DecisionTreeRegressor
    est = cls(min_samples_leaf=min_leaf, max_depth=max_depth, random_state=0)
    with warnings.catch_warnings():  # a categorical target with many levels is one still
        warnings.filterwarnings("ignore", "The number of unique classes", UserWarning)
        est.fit(Z[np.ix_(fit_rows, others)], Z[fit_rows, j])
    t = est.tree_
    feature = np.where(t.feature >= 0, others[np.maximum(t.feature, 0)], -1).astype(np.intp)
    left, right = t.children_left.astype(np.intp), t.children_right.astype(np.intp)
    w = t.weighted_n_node_samples
    p_left = np.where(feature >= 0, w[np.maximum(left, 0)] / w, 1.0)
    leaf_p = est.apply(Z[np.ix_(pool_rows, others)].astype(np.float32)).astype(np.intp)
    leaf_f = est.apply(Z[np.ix_(fit_rows, others)].astype(np.float32)).astype(np.intp)
    tiny = np.bincount(leaf_p, minlength=t.node_count) < 2
    add = tiny[leaf_f]
    rows = np.concatenate([pool_rows, fit_rows[add]])
    leaf = np.concatenate([leaf_p, leaf_f[add]])
    order = np.argsort(leaf, kind="stable")
    count = np.bincount(leaf, minlength=t.node_count).astype(np.intp)
    start = np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.intp)
    pool = rows[order]
    leaf_of = np.full(n, -1, dtype=np.intp)
    pos = np.full(n, -1, dtype=np.intp)
    leaf_of[rows] = leaf
    pos[pool] = np.arange(len(pool)) - start[leaf[order]]
    return _Tree(feature, t.threshold.astype(np.float64), left, right, p_left, start, count,
                 pool, leaf_of, pos, int(t.max_depth))


def _folds(n: int) -> np.ndarray:
    """Fold 0 or 1 of each fitted row: a fixed random half (seed 0), for honest trees."""
    fold = np.zeros(n, dtype=np.intp)
    fold[keyed_generator(0, "conditional-folds", n).permutation(n)[: n // 2]] = 1
    return fold


class ConditionalSampler(Removal):
    """Draws removed features from their conditional distribution given the kept ones.

    One scikit-learn decision tree per feature, predicting it from the others, with the
    fitted rows pooled in its leaves; a removed block is drawn by the chain rule (see the module
    docstring), from observed values only. Numeric features and features of dates, datetimes,
    durations or periods (read as numbers: seconds or periods from their median value) get
    regression trees; other categorical features, classification trees on their levels.

    Parameters
    ----------
    min_samples_leaf : int >= 1 or "auto", default="auto"
        Rows per leaf of every tree (the smallest pool a value is drawn from). ``"auto"``:
        ``clip(n_rows // 400, 5, 50)`` (static SAGE and Shapley interactions fit theirs with
        :func:`averaged_leaf`; the module docstring's "Leaf size").
    max_depth : int >= 1 or None, default=None
        Depth limit of the trees.
    allow_nan : bool, default=False
        Whether NaN in numeric columns of the fitted data, and missing dates (NaT, None) in
        columns of dates, datetimes, durations or periods, are accepted (rows with a missing
        ``x_j`` are left out of tree ``j``'s pools; the stream storage sets it, its rows having
        passed the explainer's ``nan_policy``). False: :meth:`fit` refuses them.
    cross_fit : bool, default=True
        Fit both honest copies of every tree (needed when the explained rows are the fitted
        rows); False fits copy 0 only (half the cost; draws for fitted rows then leak).

    Attributes
    ----------
    feature_names_ : tuple of str
    n_rows_ : int
        Rows fitted (the donors).
    min_samples_leaf_ : int
    data_ : Table
        The fitted rows, whose values the draws are.

    References
    ----------
    C. Molnar, G. König, B. Bischl, G. Casalicchio, "Model-agnostic feature importance and
    effects with dependent features: a conditional subgroup approach", Data Mining and Knowledge
    Discovery, 2023. F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental
    Permutation Feature Importance (iPFI)", Machine Learning 112, 2023 (observational sampling
    with online trees).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=2000)
    >>> X = np.column_stack([a, a + 0.1 * rng.normal(size=2000), rng.normal(size=2000)])
    >>> s = ConditionalSampler().fit(X)
    >>> drawn = s.sample(X[:500], ["x0"], random_state=0).to_native()
    >>> bool(np.corrcoef(drawn[:, 0], X[:500, 0])[0, 1] > 0.95)  # x0 follows x1 it is kept with
    True
    """

    name = "conditional"
    #: Pending leaf-pool writes of a stream batch (see :mod:`ixplain.imputation.stream`).
    _pending: Any = None

    def __init__(self, min_samples_leaf: int | str = "auto", max_depth: int | None = None,
                 allow_nan: bool = False, cross_fit: bool = True) -> None:
        owner = "ConditionalSampler"
        if min_samples_leaf != "auto":
            check_int(min_samples_leaf, "min_samples_leaf", owner, min_value=1)
        check_int(max_depth, "max_depth", owner, min_value=1, allow_none=True)
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.allow_nan = bool(allow_nan)
        self.cross_fit = bool(cross_fit)

    def fit(self, data: Any) -> ConditionalSampler:
        """Fit one tree per feature on ``data`` (array, DataFrame, records or Table).

        Raises
        ------
        ValueError
            If ``data`` has no rows, or (unless ``allow_nan``) NaN in a numeric column or a
            missing date (NaT, None) in a column of dates, datetimes, durations or periods,
            naming every such column and its first such row; or if a categorical feature has
            more than :data:`~ixplain.grids.MAX_LEVELS` levels (its tree's fit grows with
            levels x rows: a column of identifiers grows with the square of the rows),
            naming the feature, its level count and the size of the work.
        """
        owner = "ConditionalSampler.fit"
        table = data if isinstance(data, Table) else as_table(data, owner=owner)
        n = table.n_rows
        if n < 1:
            raise ValueError(f"{owner} needs at least 1 row; got 0.")
        self._encoder = _Encoder(table)
        _refuse_many_levels(self._encoder, n, owner)
        Z = self._encoder(table)
        if not self.allow_nan:
            _refuse_missing(table, Z, self._encoder, owner)
        msl = self.min_samples_leaf
        self.min_samples_leaf_ = _auto_leaf(n) if msl == "auto" else int(msl)
        self._fold = _folds(n)
        halves = (np.flatnonzero(self._fold == 0), np.flatnonzero(self._fold == 1))
        # trees_[j][k]: splits learnt on fold k, values pooled from fold 1 - k
        self.trees_ = [
            tuple(_fit_tree(Z, j, name in self._encoder.levels, self.min_samples_leaf_,
                            self.max_depth, halves[k], halves[1 - k])
                  for k in ((0, 1) if self.cross_fit else (0,)))
            for j, name in enumerate(table.names)
        ]
        self.feature_names_ = table.names
        self.n_rows_ = n
        self.data_ = table
        self._Z = Z
        # columns that are one quantity under two names steer for each other (_aliases)
        self._aliases = alias_groups(Z)
        self._alias_of = group_index(self._aliases, Z.shape[1])
        return self

    def width(self, d: int) -> int:
        """Two uniforms per feature (descent, pick): ``2 d``."""
        return 2 * d

    def encode(self, data: Any) -> np.ndarray:
        """``data`` (a Table in the fitted features) as the float64 matrix the trees read."""
        return self._encoder(data)

    def donors(self, X: np.ndarray, rows: np.ndarray, removed: np.ndarray, u: np.ndarray,
               exclude: np.ndarray | None = None) -> np.ndarray:
        """Donor row of every removed cell by the chain rule, shape (Q, d); -1 where kept.

        Parameters
        ----------
        X : ndarray of shape (n, d)
            Encoded rows (:meth:`encode`).
        rows : ndarray of int, shape (Q,)
            The row of ``X`` each query is.
        removed : ndarray of bool, shape (Q, d)
        u : ndarray of shape (Q, 2 d)
            Uniforms in [0, 1): columns ``2 j`` and ``2 j + 1`` serve feature ``j``.
        exclude : ndarray of int, shape (Q,), optional
            A fitted row never drawn for that query (-1: none).
        """
        Q, d = removed.shape
        aliases = self.__dict__.get("_aliases", [])
        if Q <= 8 and exclude is None and self._pending is None and not aliases:
            return self._donors_few(X, rows, removed, u)
        out = np.full((Q, d), -1, dtype=np.intp)
        W = X[rows]
        avail = ~removed
        if aliases:  # a removed copy of a kept feature reads its value at the splits
            steer_kept(aliases, W, avail)
        # a fitted row is drawn for by the tree whose splits it did not shape (pools its fold)
        which = None
        if exclude is not None and self.cross_fit:
            ex = np.asarray(exclude, dtype=np.intp)
            which = np.where(ex >= 0, 1 - self._fold[np.maximum(ex, 0)], 0)
        for j in range(d - 1, -1, -1):
            for k in ((0,) if which is None else (0, 1)):
                mask = removed[:, j] if which is None else removed[:, j] & (which == k)
                q = np.flatnonzero(mask)
                if not q.size:
                    continue
                tree = self.trees_[j][k]
                leaf = tree.descend(W[q], avail[q], u[q, 2 * j])
                if self._pending is None:
                    donor = tree.pick(leaf, u[q, 2 * j + 1],
                                      None if exclude is None else exclude[q])
                else:  # a stream's leaf pools as they are when each query's row arrives
                    donor = self._pending.pick(j, leaf, u[q, 2 * j + 1], rows[q])
                out[q, j] = donor
                W[q, j] = self._Z[donor, j]
                if aliases:  # its copies still to draw read the value drawn
                    steer_drawn(aliases, self._alias_of, W, avail, q, j)
            avail[removed[:, j], j] = True
        return out

    def _donors_few(self, X: np.ndarray, rows: np.ndarray, removed: np.ndarray,
                    u: np.ndarray) -> np.ndarray:
        """:meth:`donors` for a few queries (one stream row): plain loops, same arithmetic."""
        Q, d = removed.shape
        out = np.full((Q, d), -1, dtype=np.intp)
        Zj = self.__dict__.get("_Zcols")
        if Zj is None:
            Zj = self.__dict__["_Zcols"] = [col.tolist() for col in self._Z.T]
        for q, (w, rem, uq) in enumerate(zip(X[rows].tolist(), removed.tolist(), u.tolist())):
            avail = [not r for r in rem]
            for j in range(d - 1, -1, -1):
                if not rem[j]:
                    continue
                tree = self.trees_[j][0]
                leaf = tree._descend_one(w, avail, uq[2 * j])
                start, count = int(tree.start[leaf]), int(tree.count[leaf])
                k = min(int(uq[2 * j + 1] * float(count)), count - 1)
                donor = int(tree.pool[start + k])
                out[q, j] = donor
                w[j] = Zj[j][donor]
                avail[j] = True
        return out

    def sample(self, X: Any, features: Any, random_state: Any = None) -> Table:
        """``X`` with ``features`` replaced by a joint conditional draw given the others.

        Parameters
        ----------
        X : array, DataFrame, records or Table with the fitted features
        features : list of str
            The removed block ``J`` (the other features are kept).
        random_state : None, int or numpy.random.Generator

        Returns
        -------
        Table
            Same rows and schema as ``X``; the block holds values of the fitted data.

        Raises
        ------
        ValueError
            If a feature is unknown.
        """
        owner = "ConditionalSampler.sample"
        table = X if isinstance(X, Table) else as_table(X, list(self.feature_names_),
                                                        owner=owner)
        table = table.select(self.feature_names_)
        names = list(self.feature_names_)
        unknown = [f for f in features if f not in names]
        if unknown:
            raise param_error(owner, "features", f"a list of features among {names}", unknown)
        n, d = table.n_rows, len(names)
        removed = np.zeros((n, d), dtype=bool)
        removed[:, [names.index(f) for f in features]] = True
        u = keyed_generator(root_seed(random_state, owner), "sample").random((n, 2 * d))
        don = self.donors(self.encode(table), np.arange(n), removed, u)
        return fill(table, self.data_, np.arange(n), don)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_Zcols", None)  # a cache, rebuilt on use
        return state


def fill(source: Table, data: Table, rows: np.ndarray, donors: np.ndarray) -> Table:
    """Rows ``rows`` of ``source`` with the cells where ``donors >= 0`` taken from ``data``.

    When ``source`` is ``data`` (a method explaining the data the sampler was fitted on) every
    column keeps its dtype (one take per column); otherwise see :func:`fill_columns`.
    """
    if source is data:
        cols = {
            name: _take(source.columns[name], np.where(donors[:, c] >= 0, donors[:, c], rows))
            for c, name in enumerate(source.names)
        }
        return Table(cols, source.schema, source.upcast)
    cols = fill_columns(canonical_columns(source), canonical_columns(data), rows, donors)
    return Table(cols, data.schema)


def fill_columns(source: dict[str, np.ndarray], data: dict[str, np.ndarray], rows: np.ndarray,
                 donors: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`fill` on canonical columns (float64 / object arrays), in ``source``'s order."""
    out = {}
    for c, (name, col) in enumerate(source.items()):
        d = donors[:, c]
        vals = col[rows]
        m = d >= 0
        if m.any():
            vals[m] = data[name][d[m]]
        out[name] = vals
    return out
