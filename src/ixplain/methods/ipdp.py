"""Incremental partial dependence (iPDP) for models that learn on a data stream.

Per observation ``x_t`` the explanation function is the observation's ICE curve on the grid,
``lambda_t(v) = f_t(x_t with x_S := v)``; the iPDP smooths these curves over time, one estimate per
grid value ``v``.
"""

from __future__ import annotations

import numbers
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_float, check_int, check_options, check_random_state, param_error
from ..models import as_model
from ..tabular import Table, as_table
from . import _stream_grid as sg

__all__ = ["IncrementalPDP", "PDSnapshot"]

_OWNER = "IncrementalPDP"


@dataclass(frozen=True)
class PDSnapshot:
    """The iPDP at one moment of the stream.

    Attributes
    ----------
    n_seen : int
        Observations explained when the snapshot was taken.
    grid_values : ndarray of shape (n_grid,)
        The active grid (values of the feature where the model was evaluated).
    average : ndarray of shape (n_outputs, n_grid)
        The smoothed PD at each grid value.
    """

    n_seen: int
    grid_values: np.ndarray
    average: np.ndarray


class _PointStore:
    """Per-grid-value accumulators: weighted sums of ICE values, their squares and the weights.

    For a value ``v`` and the steps ``s <= t`` at which ``v`` was on the active grid, with weight
    ``w_s = c * d**(t - s)`` (``d = 1 - alpha``, ``c = alpha``; ``d = c = 1`` for a running mean):
    ``S = sum w_s f_s``, ``Q = sum w_s f_s**2``, ``W = sum w_s``, ``W2 = sum w_s**2``.
    """

    def __init__(self) -> None:
        self.keys: list[Any] = []
        self.index: dict[Any, int] = {}
        self.S = np.zeros((0, 0))
        self.Q = np.zeros((0, 0))
        self.W = np.zeros(0)
        self.W2 = np.zeros(0)

    def __len__(self) -> int:
        return len(self.keys)

    def ids(self, values: Any) -> np.ndarray:
        """Ids of ``values``, registering new ones (with zero weight)."""
        out = np.empty(len(values), dtype=np.intp)
        for j, v in enumerate(values):
            i = self.index.get(v)
            if i is None:
                i = len(self.keys)
                self.index[v] = i
                self.keys.append(v)
            out[j] = i
        return out

    def ensure(self, n_outputs: int) -> None:
        """Grow the arrays to the registered points and ``n_outputs`` columns (zero-filled)."""
        n, k = len(self.keys), max(n_outputs, self.S.shape[1])
        if self.S.shape == (n, k):
            return
        S, Q = np.zeros((n, k)), np.zeros((n, k))
        S[: self.S.shape[0], : self.S.shape[1]] = self.S
        Q[: self.Q.shape[0], : self.Q.shape[1]] = self.Q
        W, W2 = np.zeros(n), np.zeros(n)
        W[: self.W.size] = self.W
        W2[: self.W2.size] = self.W2
        self.S, self.Q, self.W, self.W2 = S, Q, W, W2

    def accumulate(
        self, ids: np.ndarray, rows: np.ndarray, values: np.ndarray, n_rows: int, d: float, c: float
    ) -> None:
        """Apply ``n_rows`` smoothing steps; row ``r`` adds ``values`` at ``ids`` where ``rows == r``."""
        if d != 1.0:
            self.S *= d**n_rows
            self.Q *= d**n_rows
            self.W *= d**n_rows
            self.W2 *= d ** (2 * n_rows)
        w_row = c * d ** np.arange(n_rows - 1, -1, -1, dtype=np.float64)
        w = w_row[rows]
        n = len(self.keys)
        self.W += np.bincount(ids, weights=w, minlength=n)
        self.W2 += np.bincount(ids, weights=w * w, minlength=n)
        for j in range(values.shape[1]):
            f = values[:, j]
            self.S[:, j] += np.bincount(ids, weights=w * f, minlength=n)
            self.Q[:, j] += np.bincount(ids, weights=w * f * f, minlength=n)

    def keep(self, ids: np.ndarray) -> np.ndarray:
        """Keep only the points ``ids`` (in that order); return the old-to-new id map."""
        mapping = np.full(len(self.keys), -1, dtype=np.intp)
        mapping[ids] = np.arange(len(ids))
        self.keys = [self.keys[i] for i in ids]
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.S, self.Q = self.S[ids], self.Q[ids]
        self.W, self.W2 = self.W[ids], self.W2[ids]
        return mapping


class IncrementalPDP:
    r"""Incremental partial dependence (iPDP) of one feature, for a model on a data stream.

    Each observation's ICE curve -- the model's output with the feature set to every grid value
    -- is evaluated in one batched model call and added to a per-value exponentially weighted
    mean. The grid follows the feature's range on the stream, and every grid value keeps its own
    estimate and weight, so the PD is only ever reported at values where the model was evaluated
    (unlike the reference implementation, which smooths the grid *positions* and so reports the PD
    at feature values no observation had and the model never saw).

    Parameters
    ----------
    model : estimator, River model, Booster, callable or Model
        The model to explain (see :func:`ixplain.as_model`). A River model may keep learning
        between calls: each ICE curve uses the model as it is at that step.
    feature : str or int
        The feature (its name, or its position in the data's columns).
    grid_resolution : int, default=20
        For ``grid="range"``: the largest number of grid values in the tracked range. The step is
        the smallest value of the 1-2-5 ladder (..., 0.5, 1, 2, 5, 10, ...) that puts at most
        ``grid_resolution`` of its multiples in the range, and is kept while the range holds
        between ``max(2, grid_resolution // 4)`` and ``grid_resolution`` of them (hysteresis).
        Ladder steps nest, so a value keeps its estimate when the step changes.
    alpha : float in (0, 1] or None, default=0.001
        Smoothing rate: each new ICE value gets weight ``alpha`` and older ones decay by
        ``1 - alpha`` per observation. ``None``: running mean (every observation weight 1), for a
        static model.
    grid : "range" or array-like of shape (n_grid,), default="range"
        ``"range"``: the lattice of the tracked range (numeric features) or the levels seen so
        far (categorical features). An array: a fixed grid, evaluated at every step.
    range_source : "window", default="window"
        Where the range comes from: ``"window"`` tracks the ``percentiles`` of the feature's last
        ``range_window`` values. The range used at step ``t`` is that of the values *before*
        ``t`` (the first observation's value starts it), so for an i.i.d. stream the grid does
        not depend on the observation being explained.
    range_window : int, default=1000
        Length of the sliding window of feature values.
    percentiles : tuple of float, default=(0.05, 0.95)
        Lower and upper percentile (fractions in [0, 1], as in scikit-learn) of the window that
        bound the range.
    categorical : bool or None, default=None
        Treat the feature as categorical (grid = levels seen so far, new levels added as they
        appear). ``None``: from the data's dtype (strings, booleans, pandas categoricals).
    kind : {"average", "both"}, default="average"
        ``"both"`` adds the recent ICE curves (see ``ice_history``) to :attr:`pd_` as
        ``individual``.
    ice_history : int, default=100
        Number of most recent ICE curves kept (:attr:`ice_history_`).
    history_every : int, default=1000
        A snapshot of the PD is stored in :attr:`history_` every ``history_every`` observations.
    history_size : int, default=20
        Number of most recent snapshots kept.
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
        The model output explained (see :func:`ixplain.as_model`).
    target : object, optional
        For multiclass output, the class whose output is explained.
    random_state : None, int or numpy.random.Generator, default=None
        Accepted for the common interface of incremental explainers; iPDP is deterministic.

    Attributes
    ----------
    pd_ : PartialDependence
        The current iPDP: ``grid_values[0]`` the active grid (n_grid,), ``average`` of shape
        (n_outputs, n_grid); ``extra`` holds ``"weight"`` (n_grid,), ``"standard_error"``
        (n_outputs, n_grid) and ``"n_effective"`` (n_grid,).
    n_seen_ : int
        Observations explained so far.
    history_ : list of PDSnapshot
        Bounded history of PD snapshots, oldest first.
    ice_history_ : list of tuple (ndarray of shape (g,), ndarray of shape (n_outputs, g))
        The most recent ICE curves (grid values, model outputs), oldest first.

    Notes
    -----
    For a grid value ``v`` let ``A_t(v)`` be the steps ``s <= t`` at which ``v`` was on the
    grid and ``w_s = alpha (1 - alpha)^(t - s)``. The estimate is the weighted mean

    .. math:: \widehat{PD}_t(v) = \sum_{s \in A_t(v)} w_s f_s(v, x_{s,-S}) /
              \sum_{s \in A_t(v)} w_s .

    *What it converges to.* For a static model ``f`` and an i.i.d. stream, ``A_t(v)`` does not
    depend on the ICE values it averages, so ``E[PD_t(v)] = PD(v) = E[f(v, X_{-S})]`` at every
    step (no ``1 - (1-alpha)^t`` start-up bias). With a fixed grid its variance is
    ``sigma^2(v) alpha (1 - (1-alpha)^(2t)) / ((2 - alpha)(1 - (1-alpha)^t)^2)``, which tends to
    ``sigma^2(v) alpha / (2 - alpha)`` (``sigma^2(v)`` the variance of the ICE values at ``v``);
    with ``alpha=None`` it is the running mean and converges to ``PD(v)`` almost surely. The
    un-normalised iPDP of the paper, ``sum_s w_s f_s``, is ``weight * average`` (``weight =
    1 - (1-alpha)^t`` on a fixed grid), with expectation ``(1 - (1-alpha)^t) PD(v)``. For a
    changing model or stream it tracks an exponentially weighted average over the last
    ``~1/alpha`` observations.

    References
    ----------
    M. Muschalik, F. Fumagalli, R. Jagtani, B. Hammer, E. Hüllermeier. "iPDP: On Partial
    Dependence Plots in Dynamic Modeling Scenarios". World Conference on Explainable Artificial
    Intelligence (xAI), 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import IncrementalPDP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 10, size=(500, 2))
    >>> explainer = IncrementalPDP(
    ...     lambda X: 2.0 * X[:, 0] + X[:, 1], "x0", grid_resolution=10, alpha=None
    ... )
    >>> for x in X:
    ...     _ = explainer.explain_one(x)
    >>> pd_ = explainer.pd_
    >>> pd_.grid_values[0]
    array([1., 2., 3., 4., 5., 6., 7., 8., 9.])
    >>> bool(np.allclose(pd_.average[0], 2.0 * pd_.grid_values[0] + X[:, 1].mean(), atol=0.3))
    True
    """

    def __init__(
        self,
        model: Any,
        feature: str | int,
        *,
        grid_resolution: int = 20,
        alpha: float | None = 0.001,
        grid: Any = "range",
        range_source: Any = "window",
        range_window: int = 1000,
        percentiles: tuple[float, float] = (0.05, 0.95),
        categorical: bool | None = None,
        kind: str = "average",
        ice_history: int = 100,
        history_every: int = 1000,
        history_size: int = 20,
        response_method: str = "auto",
        target: Any = None,
        random_state: Any = None,
    ) -> None:
        if not isinstance(feature, (str, numbers.Integral)) or isinstance(feature, bool):
            raise param_error(_OWNER, "feature", "a str or an int", feature, exc=TypeError)
        self.feature = feature
        self.grid_resolution = _int(grid_resolution, "grid_resolution", 2)
        self.alpha = check_float(
            alpha, "alpha", _OWNER, low=0.0, high=1.0, low_inclusive=False, allow_none=True
        )
        self.grid = _check_grid(grid)
        self.range_source = check_options(range_source, "range_source", _OWNER, ("window",))
        self.range_window = _int(range_window, "range_window", 1)
        self.percentiles = _check_percentiles(percentiles)
        if categorical is not None and not isinstance(categorical, (bool, np.bool_)):
            raise param_error(_OWNER, "categorical", "a bool or None", categorical, exc=TypeError)
        self.categorical = categorical
        self.kind = check_options(kind, "kind", _OWNER, ("average", "both"))
        self.ice_history = _int(ice_history, "ice_history", 0)
        self.history_every = _int(history_every, "history_every", 1)
        self.history_size = _int(history_size, "history_size", 1)
        self.response_method = response_method
        self.target = target
        self.random_state = random_state
        self._rng = check_random_state(random_state, _OWNER)
        self.model_ = as_model(model, response_method=response_method, target=target, owner=_OWNER)
        self.n_seen_ = 0
        self.feature_names_: tuple[str, ...] | None = None
        self.feature_name_: str | None = None
        self.feature_kind_: str | None = None
        self._source: str | None = None
        self._store = _PointStore()
        self._window = sg.SortedWindow(self.range_window)
        self._step: sg.Step | None = None
        self._cache: tuple[Any, np.ndarray] | None = None
        self._active = np.empty(0, dtype=np.intp)
        self._n_outputs = 0
        self._history: deque[PDSnapshot] = deque(maxlen=self.history_size)
        self._ice: deque[tuple[np.ndarray, np.ndarray]] = deque(maxlen=self.ice_history)

    # ------------------------------------------------------------------ public API
    def explain_one(self, x: Any, y: Any = None) -> IncrementalPDP:
        """Add one observation's ICE curve (one batched model call over the grid).

        Parameters
        ----------
        x : dict, ndarray of shape (n_features,), pandas Series or one-row DataFrame
            The observation. Records must have the keys of the first observation.
        y : object, optional
            Its label; only told to River classifiers so they learn their class set.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If the feature is missing from ``x`` or its value is NaN/None, or a record lacks a
            key the stream had before.
        """
        return self.explain_many(x, None if y is None else [y])

    def explain_many(self, X: Any, y: Any = None) -> IncrementalPDP:
        """Add the ICE curves of ``X``'s rows, in order, as ``explain_one`` would one by one.

        All ICE curves of the batch are evaluated in one model call (chunked by the adapter's
        memory budget); the smoothing is vectorised. The result equals calling
        :meth:`explain_one` on each row in turn (up to floating-point rounding).

        Parameters
        ----------
        X : ndarray of shape (n_rows, n_features), DataFrame or list of dict
            Observations in stream order.
        y : array-like of shape (n_rows,), optional
            Their labels (for River classifiers' class sets).

        Returns
        -------
        self
        """
        table = self._as_table(X)
        if table.n_rows == 0:
            return self
        if y is not None:
            self.model_.observe_labels(y)
        values = self._feature_values(table)
        row_ids = [self._grid_ids(v) for v in values]
        counts = np.fromiter((len(r) for r in row_ids), dtype=np.intp, count=len(row_ids))
        ids = np.concatenate(row_ids)
        rows = np.repeat(np.arange(table.n_rows), counts)
        ice = self._evaluate(table, ids, rows)
        self._store.ensure(ice.shape[1])
        self._accumulate(ids, rows, counts, ice)
        self._remember_ice(row_ids, ids, counts, ice)
        self._active = row_ids[-1]
        self._prune()
        return self

    @property
    def pd_(self) -> Any:
        """The current iPDP as a :class:`~ixplain.results.PartialDependence`."""
        from ..results.partial_dependence import PartialDependence

        grid, mean, se, W, n_eff = self._current()
        individual = self._individual(grid) if self.kind == "both" else None
        model = self.model_
        names = model.output_names if mean.shape[1] > 1 else None
        return PartialDependence(
            grid_values=[grid],
            average=mean,
            individual=individual,
            features=(str(self.feature_name_),),
            feature_kinds=(str(self.feature_kind_),),
            deciles=[self._deciles()],
            kind=self.kind,
            method="incremental",
            output_names=names,
            target=self.target,
            response_method=model.response_method,
            grid_rules=("custom" if self.grid is not None else "range",),
            n_rows=self.n_seen_,
            extra={
                "weight": W,
                "standard_error": se,
                "n_effective": n_eff,
                "alpha": self.alpha,
            },
        )

    def _current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(grid (g,), average (k, g), standard error (k, g), weight (g,), n_effective (g,))."""
        self._check_started()
        grid, order = self._sorted_active()
        ids = self._active[order]
        st = self._store
        W = st.W[ids]
        mean = st.S[ids] / W[:, None]
        var = np.maximum(st.Q[ids] / W[:, None] - mean**2, 0.0)
        se = np.sqrt(var * (st.W2[ids] / W**2)[:, None])
        return grid, mean.T.copy(), se.T.copy(), W.copy(), W**2 / st.W2[ids]

    @property
    def history_(self) -> list[PDSnapshot]:
        """PD snapshots taken every ``history_every`` observations (at most ``history_size``)."""
        return list(self._history)

    @property
    def ice_history_(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The most recent ICE curves ``(grid_values, values of shape (n_outputs, g))``."""
        return list(self._ice)

    # ------------------------------------------------------------------ input handling
    def _as_table(self, X: Any) -> Table:
        if self.feature_names_ is None:
            table = as_table(X, owner=_OWNER)
            self._start(table)
            return table
        if isinstance(X, dict) or (
            isinstance(X, (list, tuple)) and len(X) > 0 and isinstance(X[0], dict)
        ):
            table = as_table(X, feature_names=self.feature_names_, owner=_OWNER)
        else:
            table = as_table(X, owner=_OWNER)
            if table.names != self.feature_names_ and set(table.names) != set(self.feature_names_):
                raise ValueError(
                    f"{_OWNER} got features {list(table.names)}; the stream started with "
                    f"{list(self.feature_names_)}."
                )
        return table

    def _start(self, table: Table) -> None:
        names = table.names
        feature = self.feature
        if isinstance(feature, numbers.Integral):
            if not 0 <= int(feature) < len(names):
                raise param_error(
                    _OWNER, "feature", f"a feature name or a position in [0, {len(names) - 1}]",
                    feature,
                )
            name = names[int(feature)]
        elif feature in names:
            name = feature
        else:
            raise ValueError(
                f"{_OWNER}: unknown feature {feature!r}. Available features: {list(names)}."
            )
        kind = table.schema.kind(name)
        if self.categorical is not None:
            kind = "categorical" if self.categorical else "numeric"
        if kind == "numeric" and table.schema.kind(name) != "numeric":
            raise ValueError(
                f"{_OWNER}: feature {name!r} holds non-numeric values (dtype "
                f"{table.schema.dtypes[table.schema.index(name)]}); use categorical=True."
            )
        self.feature_names_, self.feature_name_, self.feature_kind_ = names, name, kind
        self._source = table.schema.source
        if self.grid is not None:
            grid = np.asarray(self.grid, dtype=np.float64 if kind == "numeric" else object)
            keys = [_key(v) for v in grid]
            self._cache = ("fixed", self._store.ids(keys))

    def _feature_values(self, table: Table) -> np.ndarray:
        name = str(self.feature_name_)
        if self.feature_kind_ == "numeric":
            values = table.numeric_column(name)
            bad = np.flatnonzero(np.isnan(values))
        else:
            values = np.asarray(table.column(name), dtype=object)
            bad = np.flatnonzero([_is_missing(v) for v in values])
        if bad.size:
            raise ValueError(
                f"{_OWNER}: feature {name!r} is missing (NaN/None) in row {int(bad[0])} of this "
                f"batch ({bad.size} row(s)); the PD grid cannot be tracked from missing values."
            )
        return values

    # ------------------------------------------------------------------ grid
    def _grid_ids(self, value: Any) -> np.ndarray:
        """Ids of the grid values for the next observation (whose feature value is ``value``)."""
        if self.grid is not None:
            assert self._cache is not None
            return self._cache[1]
        if self.feature_kind_ == "categorical":
            key = _key(value)
            if key not in self._store.index or self._cache is None:
                self._store.ids([key])
                self._cache = ("levels", np.arange(len(self._store), dtype=np.intp))
            return self._cache[1]
        return self._range_ids(float(value))

    def _range_ids(self, value: float) -> np.ndarray:
        window = self._window
        if len(window) == 0:
            window.update(value)
        lo, hi = window.percentile(self.percentiles[0]), window.percentile(self.percentiles[1])
        window.update(value)
        cache_key: Any
        if hi > lo:
            R = self.grid_resolution
            if not sg.keep_step(lo, hi, self._step, R):
                self._step = sg.choose_step(lo, hi, R)
            assert self._step is not None
            cache_key = (self._step, *sg.index_bounds(lo, hi, self._step))
        else:
            cache_key = ("point", lo)
        if self._cache is not None and self._cache[0] == cache_key:
            return self._cache[1]
        if cache_key[0] == "point":
            values = np.array([lo])
        else:
            values = sg.lattice_from_bounds(cache_key[1], cache_key[2], cache_key[0])
        ids = self._store.ids(values.tolist())
        self._cache = (cache_key, ids)
        return ids

    def _sorted_active(self) -> tuple[np.ndarray, np.ndarray]:
        keys = [self._store.keys[i] for i in self._active]
        if self.feature_kind_ == "numeric":
            grid = np.asarray(keys, dtype=np.float64)
            order = np.argsort(grid, kind="stable")
            return grid[order], order
        try:
            order = np.asarray(sorted(range(len(keys)), key=lambda i: keys[i]), dtype=np.intp)
        except TypeError:
            order = np.arange(len(keys))
        grid = np.empty(len(keys), dtype=object)
        grid[:] = [keys[i] for i in order]
        return grid, order

    def _deciles(self) -> np.ndarray | None:
        if self.feature_kind_ != "numeric" or len(self._window) == 0:
            return None
        return np.percentile(self._window.values(), np.arange(10, 100, 10))

    # ------------------------------------------------------------------ computation
    def _evaluate(self, table: Table, ids: np.ndarray, rows: np.ndarray) -> np.ndarray:
        keys = self._store.keys
        if self.feature_kind_ == "numeric":
            grid_values: Any = np.asarray([keys[i] for i in ids], dtype=np.float64)
        else:
            grid_values = np.empty(len(ids), dtype=object)
            grid_values[:] = [keys[i] for i in ids]
        ice_table = table.take(rows).set_column(str(self.feature_name_), grid_values)
        out = np.asarray(self.model_.predict(ice_table), dtype=np.float64)
        out = out.reshape(len(ids), -1)
        if np.isnan(out).any():
            raise ValueError(
                f"{_OWNER}: the model returned NaN for {int(np.isnan(out).any(axis=1).sum())} of "
                f"{len(ids)} ICE evaluations of feature {self.feature_name_!r}."
            )
        return out

    def _accumulate(
        self, ids: np.ndarray, rows: np.ndarray, counts: np.ndarray, ice: np.ndarray
    ) -> None:
        """Smooth the batch in segments that end where a history snapshot is due."""
        d, c = (1.0, 1.0) if self.alpha is None else (1.0 - self.alpha, self.alpha)
        n = len(counts)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        start = 0
        while start < n:
            due = self.history_every - (self.n_seen_ % self.history_every)
            stop = min(n, start + due)
            sl = slice(offsets[start], offsets[stop])
            self._store.accumulate(ids[sl], rows[sl] - start, ice[sl], stop - start, d, c)
            self.n_seen_ += stop - start
            if self.n_seen_ % self.history_every == 0:
                self._active = ids[offsets[stop - 1] : offsets[stop]]
                self._snapshot()
            start = stop

    def _snapshot(self) -> None:
        grid, order = self._sorted_active()
        ids = self._active[order]
        st = self._store
        average = (st.S[ids] / st.W[ids, None]).T.copy()
        self._history.append(PDSnapshot(self.n_seen_, grid, average))

    def _remember_ice(
        self, row_ids: list[np.ndarray], ids: np.ndarray, counts: np.ndarray, ice: np.ndarray
    ) -> None:
        if self.ice_history == 0:
            return
        n = len(row_ids)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        keys = self._store.keys
        for r in range(max(0, n - self.ice_history), n):
            grid = np.asarray([keys[i] for i in row_ids[r]])
            self._ice.append((grid, ice[offsets[r] : offsets[r + 1]].T.copy()))

    def _individual(self, grid: np.ndarray) -> np.ndarray:
        """Recent ICE curves on the current grid; NaN where a curve was not evaluated."""
        k = self._store.S.shape[1]
        out = np.full((k, len(self._ice), len(grid)), np.nan)
        position = {_key(v): j for j, v in enumerate(grid)}
        for r, (g, values) in enumerate(self._ice):
            for jj, v in enumerate(g):
                j = position.get(_key(v))
                if j is not None:
                    out[: values.shape[0], r, j] = values[:, jj]
        return out

    def _prune(self) -> None:
        """Bound memory: drop the lowest-weight inactive values beyond 8 * grid_resolution."""
        st = self._store
        limit = 8 * self.grid_resolution + len(self._active)
        if self.grid is not None or self.feature_kind_ != "numeric" or len(st) <= limit:
            return
        inactive = np.setdiff1d(np.arange(len(st)), self._active)
        n_drop = len(st) - limit
        drop = inactive[np.argsort(st.W[inactive], kind="stable")[:n_drop]]
        keep = np.setdiff1d(np.arange(len(st)), drop)
        mapping = st.keep(keep)
        self._active = mapping[self._active]
        self._cache = None

    def _check_started(self) -> None:
        if self.n_seen_ == 0:
            raise ValueError(
                f"This {_OWNER} has not explained any observation yet; call explain_one or "
                "explain_many first."
            )


def _int(value: Any, name: str, min_value: int) -> int:
    checked = check_int(value, name, _OWNER, min_value=min_value)
    assert checked is not None
    return checked


def _key(value: Any) -> Any:
    """A hashable grid key: python floats for numbers, the value itself otherwise."""
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)
    except Exception:
        return False


def _check_grid(grid: Any) -> np.ndarray | None:
    if isinstance(grid, str):
        check_options(grid, "grid", _OWNER, ("range",))
        return None
    try:
        arr = np.asarray(grid)
    except Exception:
        arr = np.empty(0)
    rule = "'range' or a 1-D array of distinct, non-missing values"
    if arr.ndim != 1 or arr.size == 0:
        raise param_error(_OWNER, "grid", rule, grid)
    keys = [_key(v) for v in arr]
    if any(_is_missing(v) for v in keys) or len(set(keys)) != len(keys):
        raise param_error(_OWNER, "grid", rule, grid)
    if arr.dtype.kind in "iuf":
        return np.sort(arr.astype(np.float64))
    return arr


def _check_percentiles(percentiles: Any) -> tuple[float, float]:
    rule = "a pair (low, high) with 0 <= low < high <= 1"
    try:
        lo, hi = (float(p) for p in percentiles)
    except (TypeError, ValueError):
        raise param_error(_OWNER, "percentiles", rule, percentiles) from None
    if not (0.0 <= lo < hi <= 1.0):
        raise param_error(_OWNER, "percentiles", rule, percentiles)
    return lo, hi
