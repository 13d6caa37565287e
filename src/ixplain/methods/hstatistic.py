r"""Friedman's H-statistic: overall and pairwise interaction strength from partial dependence.

Definitions (Friedman & Popescu 2008 [1]_, with R's ``hstats`` [2]_ as the design model)
-------------------------------------------------------------------------------------------
On rows ``x_1..x_n`` with weights ``w_i`` (``W = sum w_i``) write ``mean_w`` for the weighted
mean over the rows and centre every function over the rows: ``F(x_i) = f(x_i) - mean_w f``, and
``F_S`` the centred partial dependence of the feature set ``S`` *evaluated at the data points*,

.. math:: PD_S(x_{i,S}) = \frac{1}{W} \sum_r w_r f(x_{i,S}, x_{r,-S}), \qquad
          F_S(x_{i,S}) = PD_S(x_{i,S}) - \mathrm{mean}_w PD_S.

Without interactions between ``j`` and ``k``, ``F_jk = F_j + F_k``; without interactions of ``j``
with any other feature, ``F = F_j + F_{-j}``. The statistics are the shares of variance that
break these identities:

.. math:: H^2_{jk} = \frac{\mathrm{mean}_w (F_{jk} - F_j - F_k)^2}{\mathrm{mean}_w F_{jk}^2},
          \qquad
          H^2_j = \frac{\mathrm{mean}_w (F - F_j - F_{-j})^2}{\mathrm{mean}_w F^2}.

The numerators alone are the *unnormalised* statistics (mean squared interaction effect, in
squared units of the prediction; ``sqrt`` puts them on the prediction's scale). They compare
across pairs, which ``H^2_jk`` does not (its denominator changes with the pair).

Closed form (used in the tests)
-------------------------------
``f = x0 * x1 + x2`` on a full factorial design of independent, centred features (the empirical
distribution is the product of centred marginals, so empirical PDs equal population ones; say
``x0, x1, x2`` uniform on ``{-1, 1}``): ``F_0 = x0 E[x1] = 0``, ``F_1 = 0``, ``F_2 = x2``,
``F_01 = x0 x1``, ``F_02 = F_12 = x2``, ``F_{-0} = x2``, ``F_{-2} = x0 x1``. Hence
``H^2_01 = E[(x0 x1)^2] / E[(x0 x1)^2] = 1``, ``H^2_02 = E[(x2 - 0 - x2)^2] / E[x2^2] = 0``,
``H^2_12 = 0``; overall ``H^2_0 = H^2_1 = E[(x0 x1)^2] / E[(x0 x1 + x2)^2] = 1/2`` and
``H^2_2 = 0``; unnormalised pair (0, 1): ``E[(x0 x1)^2] = 1``.

Computation
-----------
For a feature ``j`` everything comes from the ICE matrix ``M[i, g] = f(x_i with x_j := u_g)`` on
the grid ``u`` of the sample's distinct values of ``j``: ``PD_j`` is its weighted column mean,
``PD_{-j}(x_i)`` its row mean weighted by how often each value occurs (``x_j`` averaged over its
empirical distribution, the rest of the row kept), and ``f(x_i)`` the entry at the row's own
value. A pair needs ``PD_jk`` at the sample's distinct ``(x_j, x_k)``.

* ``method="tree"`` (scikit-learn trees and forests, (Hist)GradientBoosting, LightGBM, XGBoost):
  these PDs are computed exactly through the trees (:mod:`ixplain.tree.data_pd`) at about the
  cost of a prediction pass per feature and per pair, with no model call: exact H on thousands
  of rows. One exception: with a non-identity link (boosted classifiers' probabilities) a pair
  costs ``n * G_j * G_k`` (``G``: pieces of the feature's step function holding data), so a pair
  with more than ``2**17`` cells is computed by stacked model calls instead (same values); the
  raw score (``response_method="decision_function"``) has the identity link and no such cost.
* ``method="brute"`` (any model): the grid points are stacked into few large model calls
  (``n * n_distinct`` predictions per feature and per pair), on a random subsample of
  ``n_max`` rows (300 by default, as ``hstats``).

Only the ``pairwise_m`` features with the largest overall numerators get pairwise statistics
(Friedman & Popescu's advice: ``H^2_jk`` of unimportant features is noise over noise).

Guards
------
A feature the model does not use gets exact zeros: its ICE curves are exactly flat (tree mode:
no split tests it), so ``H^2_j`` and every ``H^2_jk`` involving it are set to 0 instead of the
rounding noise a 0/0 ratio would amplify (pyartemis gives such pairs ``H^2 = 1``). Numerators
below ``eps`` times the prediction variance are set to 0, and a pairwise ratio whose denominator
is below that is 0 (the joint PD is flat: no joint effect to share).

Known weaknesses
----------------
* PD extrapolates: with correlated features, ``f(x_{i,S}, x_{r,-S})`` is evaluated off the data
  and the statistics can report interactions the model only has where there is no data.
* ``H^2_jk`` is unstable when the joint effect ``F_jk`` is near 0 (both main effects weak): a
  tiny interaction becomes a large share. Use the unnormalised statistic
  (``normalize=False, squared=False``) to compare pairs, and read ``H^2_jk`` only for features
  with a large overall statistic. The normalised values are not bounded by 1.
* Sampling noise: on a subsample, a model without interactions can still get ``H^2 > 0`` (the
  empirical distribution is not a product); no confidence interval is given.
* The scale matters: an additive model on the logit scale interacts on the probability scale;
  use ``response_method="decision_function"`` for the raw score.
* Brute force costs ``O(n^2)`` predictions per feature and per pair.

References
----------
.. [1] J. H. Friedman, B. E. Popescu, "Predictive learning via rule ensembles", Annals of Applied
   Statistics 2(3), 916-954, 2008.
.. [2] M. Mayer, "hstats: Interaction Statistics" (R package), https://github.com/ModelOriented/hstats.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._numeric import moment_shift, power_scaled
from .._random import keyed_generator, root_seed
from .._validation import (
    check_2d,
    check_bool,
    check_float,
    check_int,
    check_memory_budget,
    check_options,
    check_sample_weight,
    param_error,
)
from ..models import DEFAULT_MEMORY_BUDGET, Model, as_model, call_rows, rows_for_budget
from ..results.hstatistic import HStatistic
from ..tabular import Table, as_table
from ..tree._convert import UnsupportedModelError
from ..tree.data_pd import data_pd_plan
from .pdp import _array_stack, ice_predict

__all__ = ["h_statistic"]

_OWNER = "h_statistic"
_METHODS = ("auto", "tree", "brute")
#: Largest per-row pair grid (``G_j * G_k`` cells) the tree method builds for a non-identity
#: link; a pair with a finer grid (boosted classifiers on finely split continuous features) is
#: computed by stacked model calls instead (same values; ``n`` predictions per distinct pair).
_LINK_GRID_MAX = 2**17
#: Default ``n_max`` per method: exact tree paths afford thousands of rows; brute force costs
#: ``n^2`` predictions per feature and pair (300 is hstats' default).
_AUTO_N_MAX = {"tree": 5000, "brute": 300}


@dataclass
class _Request:
    """Validated arguments (internal)."""

    model: Model
    table: Table
    names: list[str]
    pairs: list[tuple[int, int]] | None
    w: np.ndarray
    n_max: int | None | str
    pairwise_m: int
    method: str
    normalize: bool
    squared: bool
    eps: float
    random_state: Any
    memory_budget: int


def h_statistic(
    model: Any,
    X: Any,
    features: Any = None,
    *,
    pairs: Any = None,
    sample_weight: Any = None,
    n_max: int | str | None = "auto",
    pairwise_m: int = 5,
    method: str = "auto",
    normalize: bool = True,
    squared: bool = True,
    eps: float = 1e-10,
    response_method: str = "auto",
    target: Any = None,
    feature_names: Any = None,
    random_state: Any = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> HStatistic:
    """Friedman's H-statistics: overall ``H^2_j`` and pairwise ``H^2_jk`` interaction strength.

    See the module docstring (:mod:`ixplain.methods.hstatistic`) for the definitions, the
    closed form of ``x0 * x1 + x2``, the guards and the known weaknesses.

    Parameters
    ----------
    model : estimator, Booster, callable or Model
        The fitted model (see :func:`ixplain.as_model`).
    X : array-like, DataFrame or list of dict of shape (n_rows, n_columns)
        The rows the partial dependences average over and are evaluated at.
    features : sequence of str or int, optional
        The features explained (names or column positions); default all columns.
    pairs : sequence of pairs of str or int, optional
        Compute ``H^2_jk`` for exactly these pairs (of ``features``) instead of choosing them
        with ``pairwise_m``.
    sample_weight : array-like of shape (n_rows,), optional
        Row weights of every mean (kept for the rows of the subsample).
    n_max : int >= 2, None or "auto", default="auto"
        Rows used: a uniform random subsample of ``n_max`` rows when ``X`` has more (None: all
        rows). ``"auto"``: 5,000 for ``method="tree"``, 300 for ``"brute"``.
    pairwise_m : int >= 0, default=5
        Pairwise statistics for all pairs of the ``pairwise_m`` features with the largest
        unnormalised overall statistic (per output; the union over outputs). Features with
        overall statistic 0 are never chosen. 0 or 1: no pairs.
    method : {"auto", "tree", "brute"}, default="auto"
        ``"tree"``: exact partial dependence through the trees of a supported tree ensemble, no
        model calls. ``"brute"``: stacked model calls. ``"auto"``: tree when supported, else
        brute. Both give the same values on the same rows.
    normalize, squared : bool, default=True
        The statistic the result reports: ``H^2`` (True, True), ``H``, the unnormalised
        numerator, or its square root (``normalize=False, squared=False``: on the prediction's
        scale). All are kept in the result.
    eps : float >= 0, default=1e-10
        Numerators below ``eps`` times the prediction variance are 0; so is a pairwise ratio
        whose denominator is below that.
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
        The explained output (classifiers: probabilities by default).
    target : object, optional
        For multiclass classifiers, the class to explain (else one statistic per class).
    feature_names : sequence of str, optional
        Column names of an array ``X`` (default ``x0, x1, ...``).
    random_state : int, Generator or None, default=None
        Seeds the row subsample (only used when there are more than ``n_max`` rows).
    memory_budget : int, default=256 MiB
        Bound on the size of one stacked model call of the brute method, in bytes. At least
        ``MIN_MEMORY_BUDGET`` (4096 bytes; a smaller budget is refused).

    Returns
    -------
    HStatistic
        ``overall_h2`` (n_outputs, n_features), ``pairwise_h2`` (n_outputs, n_features,
        n_features; NaN where not computed), their unnormalised numerators, ``pairs`` and the
        settings (``method`` says which method ran, ``n_rows`` how many rows;
        ``unnormalized_overflow`` is True when the squared unnormalised numerators or the
        prediction variance exceed float64 and are inf).

    Warns
    -----
    RuntimeWarning
        When outputs are so large (above about 1e154) that the squared unnormalised numerators
        or the prediction variance overflow float64 (inf): the normalised ``H^2`` and the
        unsquared unnormalised ``H`` (``normalize=False, squared=False``) are computed on
        scaled outputs and stay right.

    Raises
    ------
    ValueError
        For an unknown feature or pair, a bad ``n_max``, ``pairwise_m``, ``eps``, ``method`` or
        ``sample_weight``, fewer than two rows or two features, non-numeric model output, or
        ``method="tree"`` with a model that is not a supported tree ensemble.
    TypeError
        If a parameter has the wrong type.
    ModelEvaluationError
        If the model raises or returns NaN or +-inf.

    References
    ----------
    .. [1] J. H. Friedman, B. E. Popescu, "Predictive learning via rule ensembles", Annals of
       Applied Statistics 2(3), 916-954, 2008.

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> X = np.array(list(itertools.product([-1.0, 1.0], repeat=3)))
    >>> h = h_statistic(lambda X: X[:, 0] * X[:, 1] + X[:, 2], X)
    >>> h.overall_h2.round(6)
    array([[0.5, 0.5, 0. ]])
    >>> h.to_frame().query("feature_j.notna()")[["feature_i", "feature_j", "h2"]]
      feature_i feature_j   h2
    3        x0        x1  1.0
    """
    req = _validate(model, X, features, pairs, sample_weight, n_max, pairwise_m, method,
                    normalize, squared, eps, response_method, target, feature_names,
                    random_state, memory_budget)
    backend, used, rows = _backend(req)
    return _compute(req, backend, used, rows)


# ---------------------------------------------------------------------------- validation
def _validate(model, X, features, pairs, sample_weight, n_max, pairwise_m, method, normalize,
              squared, eps, response_method, target, feature_names, random_state,
              memory_budget) -> _Request:
    check_options(method, "method", _OWNER, _METHODS)
    check_options(response_method, "response_method", _OWNER,
                  ("auto", "predict", "predict_proba", "decision_function"))
    if not (isinstance(n_max, str) and n_max == "auto"):
        n_max = check_int(n_max, "n_max", _OWNER, min_value=2, allow_none=True)
    pairwise_m = check_int(pairwise_m, "pairwise_m", _OWNER, min_value=0)  # type: ignore[assignment]
    eps = check_float(eps, "eps", _OWNER, low=0.0)  # type: ignore[assignment]
    memory_budget = check_memory_budget(memory_budget, _OWNER)
    check_2d(X, _OWNER)  # a 1-D array read as one row of n features gave H of 0, silently
    table = as_table(X, feature_names, owner=_OWNER)
    if table.n_rows < 2:  # one row: every centred PD is 0, so H would be 0 silently
        raise ValueError(
            f"{_OWNER} needs at least 2 rows of data (as n_max >= 2); got "
            f"{'empty data (0 rows)' if table.n_rows == 0 else '1 row'}: H is a ratio of "
            "variances over the rows.")
    names = _feature_list(features, table)
    w = check_sample_weight(sample_weight, table.n_rows, _OWNER)
    try:
        adapter = as_model(model, response_method=response_method, target=target, owner=_OWNER)
        adapter.refuse_nonfinite_outputs(_OWNER)  # NaN or +-inf is an error, not an H of 0
    except TypeError as exc:
        raise param_error(_OWNER, "model", "a fitted estimator, Booster, callable or Model",
                          model, exc=TypeError) from exc
    return _Request(
        adapter, table, names, _pair_list(pairs, names, table),
        np.ones(table.n_rows) if w is None else w, n_max, int(pairwise_m), method,
        check_bool(normalize, "normalize", _OWNER), check_bool(squared, "squared", _OWNER),
        float(eps), random_state, int(memory_budget),
    )


def _resolve(f: Any, table: Table, param: str) -> str:
    """A feature name from a name or a column position."""
    if isinstance(f, (int, np.integer)) and not isinstance(f, bool):
        if not 0 <= int(f) < len(table.names):
            raise param_error(_OWNER, param, f"column positions in [0, {len(table.names)})", f)
        return table.names[int(f)]
    if str(f) not in table.names:
        raise ValueError(f"The {param!r} parameter of {_OWNER} names an unknown feature {f!r}. "
                         f"Available features: {list(table.names)}.")
    return str(f)


def _feature_list(features: Any, table: Table) -> list[str]:
    if features is None:
        names = list(table.names)
    else:
        if isinstance(features, (str, int, np.integer)):
            features = [features]
        names = [_resolve(f, table, "features") for f in features]
    if len(set(names)) != len(names):
        raise param_error(_OWNER, "features", "distinct features", features)
    if len(names) < 2:
        raise param_error(_OWNER, "features", "at least two features (interactions need two)",
                          names)
    return names


def _pair_list(pairs: Any, names: list[str], table: Table) -> list[tuple[int, int]] | None:
    if pairs is None:
        return None
    out: set[tuple[int, int]] = set()
    for p in pairs:
        if isinstance(p, (str, bytes)) or not hasattr(p, "__len__") or len(p) != 2:
            raise param_error(_OWNER, "pairs", "a sequence of pairs of features", pairs)
        a, b = (_resolve(f, table, "pairs") for f in p)
        if a == b or a not in names or b not in names:
            raise param_error(_OWNER, "pairs", f"pairs of two distinct features of {names}", p)
        i, j = sorted((names.index(a), names.index(b)))
        out.add((i, j))
    return sorted(out)


# ---------------------------------------------------------------------------- methods
def _sample(req: _Request, method: str) -> np.ndarray | None:
    """Rows of the subsample (sorted), or None for all rows."""
    cap = _AUTO_N_MAX[method] if req.n_max == "auto" else req.n_max
    n = req.table.n_rows
    if cap is None or n <= cap:  # type: ignore[operator]
        return None
    rng = keyed_generator(root_seed(req.random_state, _OWNER), _OWNER, "rows")
    return np.sort(rng.choice(n, size=int(cap), replace=False))  # type: ignore[call-overload]


def _backend(req: _Request) -> tuple[Any, str, np.ndarray | None]:
    """``(backend, method used, subsample rows)``: the tree plan when possible, else brute."""
    if req.method in ("auto", "tree"):
        rows = _sample(req, "tree")
        table = req.table if rows is None else req.table.take(rows)
        w = req.w if rows is None else req.w[rows]
        try:
            plan = data_pd_plan(req.model, table, w)
        except (UnsupportedModelError, TypeError, ValueError) as exc:
            if req.method == "tree":
                raise ValueError(  # (partial_dependence's error type for the same cause)
                    f"{_OWNER}: method='tree' cannot explain this model: {exc}") from exc
        else:
            return _Tree(plan, req), "tree", rows
    rows = _sample(req, "brute")
    table = req.table if rows is None else req.table.take(rows)
    w = req.w if rows is None else req.w[rows]
    return _Brute(req.model, table, w, req.memory_budget), "brute", rows


class _Tree:
    """The exact tree backend; pairs too fine for a non-identity link go to stacked calls."""

    def __init__(self, plan: Any, req: _Request) -> None:
        self.plan, self.w, self._req = plan, plan.w, req
        self.uses, self.predict, self.one_way = plan.uses, plan.predict, plan.one_way

    def two_way(self, first: str, second: str) -> np.ndarray:
        if self.plan.pair_cells(first, second) <= _LINK_GRID_MAX:
            return self.plan.two_way(first, second)
        brute = _Brute(self._req.model, self.plan.table, self.w, self._req.memory_budget)
        return brute.two_way(first, second)


def _codes(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each row's index into the distinct values (NaN is one value), and the values."""
    import pandas as pd

    codes, uniques = pd.factorize(pd.Series(values, copy=False), use_na_sentinel=False)
    return np.asarray(codes, dtype=np.intp), np.asarray(uniques)


class _Brute:
    """Partial dependence at the data points by stacked model calls (internal)."""

    def __init__(self, model: Model, table: Table, w: np.ndarray, memory_budget: int) -> None:
        self.model, self.table, self.w, self.memory_budget = model, table, w, memory_budget
        self.batch_rows = rows_for_budget(len(table.names), memory_budget)
        self.n_outputs = self.predict().shape[0]

    def uses(self, name: str) -> bool:
        """Unknown for a black box: decided from the ICE curves."""
        return True

    def predict(self) -> np.ndarray:
        """The model output at the rows: (n_outputs, n_rows)."""
        return _as_outputs(self.model.predict(self.table, batch_rows=self.batch_rows),
                           self.model, self.table.n_rows).T

    def _ice(self, names: list[str], points: list[np.ndarray]
             ) -> Iterator[tuple[int, int, np.ndarray]]:
        """``(start, stop, pred)`` over chunks of grid points; pred (stop-start, n, K): every
        row with each grid point of the chunk, in one call of the shared ICE function."""
        stack = _array_stack(self.model, self.table, names, points)
        width = len(self.table.names) if stack is None else stack.base.shape[1]
        n, n_points = self.table.n_rows, len(points[0])
        per = max(1, call_rows(width, self.memory_budget, n_rows=n) // n)  # whole grid points
        for s in range(0, n_points, per):
            e = min(s + per, n_points)
            rows = np.tile(np.arange(n), e - s)
            idx = np.repeat(np.arange(s, e), n)
            pred, _ = ice_predict(self.model, self.table, names, points, rows, idx,
                                  batch_rows=self.batch_rows, stack=stack, owner=_OWNER)
            yield s, e, pred.reshape(e - s, n, -1)

    def one_way(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """``(f, PD_j, PD_{-j}, flat)`` at the rows (see :class:`~ixplain.tree.data_pd.DataPD`)."""
        w, W, n = self.w, self.w.sum(), self.table.n_rows
        codes, uniq = _codes(self.table.column(name))
        omega = np.bincount(codes, weights=w, minlength=len(uniq))
        K = self.n_outputs
        cols, notj, f = np.empty((K, len(uniq))), np.zeros((K, n)), np.empty((K, n))
        flat, first = True, None
        for s, e, pred in self._ice([name], [uniq]):
            cols[:, s:e] = np.einsum("n,gnk->kg", w, pred) / W
            notj += np.einsum("gnk,g->kn", pred, omega[s:e]) / W
            own = np.flatnonzero((codes >= s) & (codes < e))
            f[:, own] = pred[codes[own] - s, own, :].T
            first = pred[0] if first is None else first
            flat = flat and bool(np.all(pred == first[None]))
        return f, cols[:, codes], notj, flat

    def two_way(self, first: str, second: str) -> np.ndarray:
        """``PD_jk(x_ij, x_ik)`` at every row: (n_outputs, n_rows)."""
        c1, u1 = _codes(self.table.column(first))
        c2, u2 = _codes(self.table.column(second))
        joint, inv = np.unique(c1 * len(u2) + c2, return_inverse=True)
        points = [u1[joint // len(u2)], u2[joint % len(u2)]]
        cols = np.empty((self.n_outputs, len(joint)))
        for s, e, pred in self._ice([first, second], points):
            cols[:, s:e] = np.einsum("n,gnk->kg", self.w, pred) / self.w.sum()
        return cols[:, inv.reshape(-1)]


def _as_outputs(out: Any, model: Model, n: int) -> np.ndarray:
    """Model output as float64 of shape (n, n_outputs), or the standard error."""
    arr = np.asarray(out)
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{_OWNER}: {model.describe()} returned non-numeric values (e.g. "
            f"{arr.ravel()[:3]!r}); the H-statistic needs a numeric output. For a classifier "
            "use response_method='predict_proba' or 'decision_function'."
        ) from None
    return arr.reshape(n, -1)


class _Scaled:
    """A backend whose outputs are multiplied by ``2**shift`` (exact): ``shift``
    (:func:`~ixplain._numeric.moment_shift` of the predictions at the rows) brings outputs
    beyond ``2**128`` in magnitude into [0.5, 1), so their squares and sums stay in the float
    range (outputs above about 1e154 squared to inf: ``H^2`` came out 0, a ratio over inf);
    0 (nothing scaled) for the others. Every statistic is a ratio of squares (``H^2``: the
    same in any unit) or a square (the numerators: divided back by ``2**(2 shift)``)."""

    def __init__(self, backend: Any) -> None:
        self.backend, self.w, self.uses = backend, backend.w, backend.uses
        self._pred = backend.predict()
        self.shift = moment_shift(self._pred) or 0

    def predict(self) -> np.ndarray:
        return power_scaled(self._pred, self.shift)

    def one_way(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        f, pd_j, pd_rest, flat = self.backend.one_way(name)
        return (power_scaled(f, self.shift), power_scaled(pd_j, self.shift),
                power_scaled(pd_rest, self.shift), flat)

    def two_way(self, first: str, second: str) -> np.ndarray:
        return power_scaled(self.backend.two_way(first, second), self.shift)

    def unscaled(self, squares: np.ndarray) -> np.ndarray:
        """Squared units of the scaled outputs back in the model's (+-inf beyond the range)."""
        return power_scaled(squares, -2 * self.shift)


# ---------------------------------------------------------------------------- statistics
def _center(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Subtract the weighted mean over the rows (last axis)."""
    return v - (v @ w / w.sum())[:, None]


def _wmean_sq(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    return (v * v) @ w / w.sum()


def _overall(req: _Request, backend: Any, used: str) -> tuple[dict[str, Any], np.ndarray]:
    """Centred one-way effects of every feature and the overall numerators (K, d)."""
    w = backend.w
    F = _center(backend.predict(), w)
    K, d = F.shape[0], len(req.names)
    var = _wmean_sq(F, w)
    num = np.zeros((K, d))
    main: dict[str, np.ndarray | None] = {}
    for j, name in enumerate(req.names):
        if not backend.uses(name):  # no split on it: PD_j constant, PD_{-j} = f
            main[name] = None
            continue
        _, pd_j, pd_rest, flat = backend.one_way(name)
        if flat:
            main[name] = None
            continue
        Fj = _center(pd_j, w)
        main[name] = Fj
        num[:, j] = _wmean_sq(F - Fj - _center(pd_rest, w), w)
    num[num <= req.eps * var[:, None]] = 0.0
    return {"main": main, "F": F, "var": var}, num


def _chosen_pairs(req: _Request, num: np.ndarray) -> list[tuple[int, int]]:
    if req.pairs is not None:
        return req.pairs
    if req.pairwise_m < 2:
        return []
    chosen: set[int] = set()
    for row in num:
        pos = np.flatnonzero(row > 0)
        chosen.update(pos[np.argsort(-row[pos], kind="stable")][: req.pairwise_m].tolist())
    return list(itertools.combinations(sorted(chosen), 2))


def _pairwise(req: _Request, backend: Any, effects: dict[str, Any],
              pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """``(H^2_jk, numerators)``, each (K, d, d) with NaN off ``pairs``."""
    w, var, main = backend.w, effects["var"], effects["main"]
    K, d = var.shape[0], len(req.names)
    h2, num = np.full((K, d, d), np.nan), np.full((K, d, d), np.nan)
    for j, k in pairs:
        a, b = req.names[j], req.names[k]
        if main[a] is None or main[b] is None:  # a feature without effect: no interaction
            n_jk = den = np.zeros(K)
        else:
            Fjk = _center(backend.two_way(a, b), w)
            n_jk, den = _wmean_sq(Fjk - main[a] - main[b], w), _wmean_sq(Fjk, w)
        small = req.eps * var
        n_jk = np.where(n_jk <= small, 0.0, n_jk)
        ratio = np.where(den > small, n_jk / np.where(den > small, den, 1.0), 0.0)
        h2[:, j, k] = h2[:, k, j] = ratio
        num[:, j, k] = num[:, k, j] = n_jk
    return h2, num


def _overflowed(num: np.ndarray, pair_num: np.ndarray, var: np.ndarray) -> bool:
    """Whether a squared quantity overflowed float64 on unscaling; warn if so (the normalised
    statistic and the roots, computed on scaled outputs, are right)."""
    over = bool(np.isinf(num).any() or np.isinf(pair_num).any() or np.isinf(var).any())
    if over:
        warnings.warn(
            "h_statistic: the outputs are so large that the unnormalized statistic (the squared "
            "numerators overall_unnormalized / pairwise_unnormalized, the 'unnormalized' column "
            "of to_frame(), and prediction_variance) overflows float64 and is inf; the "
            "normalized H^2 and the unsquared unnormalized H (normalize=False, squared=False) "
            "are computed on scaled outputs and are right.",
            RuntimeWarning, stacklevel=4,
        )
    return over


def _compute(req: _Request, backend: Any, used: str, rows: np.ndarray | None) -> HStatistic:
    backend = _Scaled(backend)
    effects, num = _overall(req, backend, used)
    var = effects["var"]
    overall_h2 = np.where(var[:, None] > 0, num / np.where(var > 0, var, 1.0)[:, None], 0.0)
    pairs = _chosen_pairs(req, num)
    pair_h2, pair_num = _pairwise(req, backend, effects, pairs)
    outputs = req.model.output_names
    if outputs is None or len(outputs) != var.shape[0]:
        outputs = ["y"] if var.shape[0] == 1 else [f"y{k}" for k in range(var.shape[0])]
    settings = {"method": used, "n_rows": int(backend.w.shape[0]), "n_max": req.n_max,
                "pairwise_m": req.pairwise_m, "eps": req.eps,
                "subsampled": rows is not None}
    roots = None  # the numerators' square roots, from the scaled squares (finite where the
    if backend.shift:  # numerators themselves overflow float64)
        roots = (power_scaled(np.sqrt(num), -backend.shift),
                 power_scaled(np.sqrt(pair_num), -backend.shift))
        num, pair_num, var = (backend.unscaled(a) for a in (num, pair_num, var))
    settings["unnormalized_overflow"] = _overflowed(num, pair_num, var)
    return HStatistic(overall_h2, num, pair_h2, pair_num, var, pairs, list(req.names),
                      [str(o) for o in outputs], req.normalize, req.squared, settings,
                      roots=roots)
