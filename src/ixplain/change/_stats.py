"""The statistics of a change: per-feature intervals and p-values, Holm's family-wise control,
ranking agreement (NDCG@k, Kendall's tau) with bootstrap intervals.

Everything here works on per-row explanation values: ``values_a`` and ``values_b`` of shape
(n_rows, n_features), one row per observation. Two designs:

* **paired** (two models on the same rows, common random numbers): row ``i``'s values on both
  sides share the row, its permutation draws, background draws and coalitions; the statistic
  is the mean of the per-row differences ``d_i = lambda_b(i) - lambda_a(i)``, its standard
  error ``sd(d) / sqrt(n)`` and a Student t interval with ``n - 1`` degrees of freedom;
* **independent** (two datasets): the two means of independent samples, standard error
  ``sqrt(s_a^2 / n_a + s_b^2 / n_b)`` and Welch's t with the Welch-Satterthwaite degrees of
  freedom.

The per-row values are treated as independent draws, except PFI's. PFI's replacement rows
come from the explained sample itself, so every row enters the estimate twice (as explained row
and as the replacement of others): the plain per-row spread of the loss increases understates
the standard error (~1.5x for a label-free linear model) and the spread of each row's
first-order influence (both roles) overstates it (~1.25x on a labelled paired delta: each draw's
own noise counted twice). :func:`~ixplain.change._importance.pfi_rows` therefore returns its
draws next to its per-row values (:class:`Draws`, passed to the tests as ``draws=``), and
the standard error is the dyadic cluster-robust variance of the draws' mean
(:func:`two_role_variance`, derivation there). SAGE's per-row values treat its background sample (at most 512 rows of the side) as
fixed. ``benchmarks/bench_change.py`` measures the coverage of both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Change", "Draws", "holm", "independent_change", "kendall_tau", "ndcg_at_k",
           "paired_change", "two_role_variance"]


@dataclass(frozen=True)
class Change:
    """Per-feature change statistics (arrays of shape (n_features,))."""

    a: np.ndarray
    b: np.ndarray
    delta: np.ndarray
    std_error: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    p_value: np.ndarray
    df: np.ndarray


@dataclass(frozen=True)
class Draws:
    """The draws behind one side's PFI per-row values, passed explicitly to
    :func:`paired_change` and :func:`independent_change` (``draws=``).

    PFI's per-row values (:func:`~ixplain.change._importance.pfi_rows`) come from draws whose
    replacement rows are rows of the same sample; their standard error is
    :func:`two_role_variance` of these draws.

    Parameters
    ----------
    draws : ndarray of shape (n_rows, n_features, n_draws)
        ``draws[i, g, r]``: the loss increase of row ``i``'s ``r``-th draw for feature ``g``
        (stored as float64).
    repl : ndarray of ints, shape (n_rows, n_features, n_draws)
        The row (``0..n_rows-1``) that replaced feature ``g`` in that draw (stored as intp).

    Raises
    ------
    ValueError
        If ``draws`` is not 3-D or ``repl``'s shape differs (the message gives both).

    Examples
    --------
    >>> import numpy as np
    >>> Draws(np.zeros((3, 2, 4)), np.zeros((3, 2, 4), dtype=int)).draws.shape
    (3, 2, 4)
    """

    draws: np.ndarray
    repl: np.ndarray

    def __post_init__(self) -> None:
        d = np.asarray(self.draws, dtype=np.float64)
        k = np.asarray(self.repl)
        if d.ndim != 3 or k.shape != d.shape:
            raise ValueError(f"Draws: draws of shape {d.shape} and repl of shape {k.shape}; "
                             "need (n, G, R) both.")
        object.__setattr__(self, "draws", d)
        object.__setattr__(self, "repl", k.astype(np.intp, copy=False))


def two_role_variance(draws: np.ndarray, repl: np.ndarray) -> np.ndarray:
    """Variance of the mean of draws that each depend on two rows of one sample: the row
    explained and the row that replaced its feature (dyadic cluster-robust variance).

    Derivation. Draw ``d = (i, r)`` has value ``h(Z_i, Z_k)``, ``k = repl[i, r]`` uniform on
    the ``n`` rows; the estimate is ``theta_hat = S / N``, ``S = sum_d h_d``, ``N = n R``.
    Hoeffding: ``h(z, z') = theta + h1(z) + h2(z') + h12(z, z')`` (``h1``: the explained
    row's part, ``h2``: the replacement row's, ``h12``: the rest; uncorrelated). Given the
    indices, two draws are independent unless they share a row, so
    ``Var(S) = sum over (d, d') sharing a row of Cov(h_d, h_d')``: a draw with itself
    ``Var h``; two draws of one explained row ``Var h1``; two with one replacement row
    ``Var h2``; a row explained in one and replacing in the other ``Cov(h1, h2)`` (counts
    ``n R (R-1)``, ``~ n R^2``, ``~ 2 n R^2``). Hence
    ``Var(theta_hat) = [Var(h1 + h2) + (Var h2 + Var h12) / R] / n + O(n^-2)``.
    The plug-in estimate sums ``e_d e_d'`` (``e_d = h_d - theta_hat``) over the same pairs:
    with ``T_m = sum of e_d over draws involving row m`` (once, also for ``k = i``) and
    ``E_p`` the sum over the draws of one unordered pair ``p = {i, k}, i != k``,
    ``V = (sum_m T_m^2 - sum_p E_p^2) / N^2`` (the pairs sharing both rows are counted twice
    in the first sum). Two-way clustering by explained and by replacement row
    (``V_1 + V_2 - V_12``) would miss the ``Cov(h1, h2)`` terms -- the rows of both roles
    are the same units -- and summing squared per-row influences ``(A_m + B_m)^2`` counts
    every draw's own variance twice (the ~1.2x conservative error this replaces).

    Parameters
    ----------
    draws : ndarray of shape (n, G, R)
        ``draws[i, g, r]``: row ``i``'s ``r``-th draw for feature ``g``.
    repl : ndarray of ints, shape (n, G, R)
        The row (``0..n-1``) that replaced feature ``g`` in that draw.

    Returns
    -------
    ndarray of shape (G,)
        The estimated variance of ``draws.mean(axis=(0, 2))``; may be <= 0 in tiny samples
        (the callers then use the per-row values' variance).

    References
    ----------
    M. Fafchamps, F. Gubert, "Risk sharing and network formation", American Economic Review
    97, 2007. P. M. Aronow, C. Samii, V. A. Assenova, "Cluster-robust variance estimation for
    dyadic data", Political Analysis 23, 2015. W. Hoeffding, "A class of statistics with
    asymptotically normal distribution", Annals of Mathematical Statistics 19, 1948.

    Examples
    --------
    >>> d = np.array([[[1.0]], [[3.0]]])
    >>> # each row replaced by itself: no shared rows, sum(e^2) / N^2 = (1 + 1) / 4
    >>> float(two_role_variance(d, np.array([[[0]], [[1]]]))[0])
    0.5
    >>> # draws (0, 1) and (1, 0) share both rows: (e_1 + e_2)^2 / N^2 = 0
    >>> float(two_role_variance(d, np.array([[[1]], [[0]]]))[0])
    0.0
    """
    d = np.asarray(draws, dtype=np.float64)
    k_all = np.asarray(repl, dtype=np.intp)
    n, G, R = d.shape
    i = np.repeat(np.arange(n), R)
    out = np.empty(G)
    for g in range(G):
        k = k_all[:, g, :].ravel()
        e = d[:, g, :].ravel()
        e = e - e.mean()
        two = k != i
        t = np.bincount(i, e, n) + np.bincount(k[two], e[two], n)
        key = np.minimum(i, k)[two] * n + np.maximum(i, k)[two]
        _, inv = np.unique(key, return_inverse=True)
        pairs = np.bincount(inv, e[two])
        out[g] = (t @ t - pairs @ pairs) / float(n * R) ** 2
    return out


def _check_draws(owner: str, draws: Any, shapes: tuple[tuple[int, ...], ...]
                 ) -> tuple[Draws | None, Draws | None]:
    """``draws`` as a pair of :class:`Draws` or None whose first two axes fit the values'
    ``shapes`` (the error names the parameter and the value)."""
    try:
        pair = tuple(draws)
    except TypeError:
        pair = ()
    if len(pair) != 2 or any(d is not None and not isinstance(d, Draws) for d in pair):
        shown = repr(draws)
        shown = shown if len(shown) <= 120 else shown[:117] + "..."
        raise TypeError(f"{owner}: draws must be a pair of Draws or None, one a side; got "
                        f"{shown}.")
    for side, d, shape in zip("ab", pair, shapes):
        if d is not None and d.draws.shape[:2] != shape:
            raise ValueError(f"{owner}: draws of side {side} have shape {d.draws.shape}; need "
                             f"(n_rows, n_features, n_draws) with (n_rows, n_features) = "
                             f"{shape}, the values' shape.")
    return pair[0], pair[1]


def _mean_variance(drawn: Draws | None, arr: np.ndarray) -> np.ndarray:
    """Variance of ``arr``'s column means: :func:`two_role_variance` of ``drawn`` (where
    positive), else ``var(ddof=1) / n``."""
    plain = arr.var(axis=0, ddof=1) / arr.shape[0]
    if drawn is None:
        return plain
    return _positive_or(two_role_variance(drawn.draws, drawn.repl), plain)


def _positive_or(variance: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """``variance`` where positive, else ``fallback`` (the estimate can be <= 0 in tiny
    samples; a zero error would turn any delta into a finding)."""
    return np.where(variance > 0, variance, fallback)


#: Relative size below which a paired difference is rounding, not change: two models that use
#: a feature alike give per-row values that differ only by float rounding of their predictions
#: (about 1e-16 of them), whose tiny spread would otherwise make that "change" significant.
ROUNDING = 1e-9


def _rounding_as_zero(d: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """``d`` (rows, features, ...) with the differences of at most ``tol`` (per feature,
    axis 1) set to 0."""
    return np.where(np.abs(d) <= tol.reshape(tol.shape + (1,) * (d.ndim - 2)), 0.0, d)


def _t_test(delta: np.ndarray, se: np.ndarray, df: np.ndarray, confidence: float,
            min_change: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval ``delta +- t_{df, (1+confidence)/2} * se`` and the p-value of the null
    ``|true delta| <= min_change`` (two-sided t-test when ``min_change == 0``; otherwise
    ``P(|T| > (|delta| - min_change) / se)`` at the null's boundary, conservative inside it).
    A zero standard error gives p = 1 for a delta within ``min_change`` and 0 beyond it."""
    from scipy import stats  # imported when a test is computed, not with ixplain

    q = stats.t.ppf(0.5 + confidence / 2.0, df)
    half = q * se
    excess = np.maximum(np.abs(delta) - min_change, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, excess / np.where(se > 0, se, 1.0), np.where(excess > 0, np.inf, 0))
    p = 2.0 * stats.t.sf(t, df)
    return delta - half, delta + half, np.minimum(p, 1.0)


def paired_change(values_a: np.ndarray, values_b: np.ndarray, *,
                  draws: tuple[Draws | None, Draws | None] = (None, None),
                  confidence: float = 0.95, min_change: float = 0.0) -> Change:
    """Change statistics from per-row values of both sides on the same rows.

    Parameters
    ----------
    values_a, values_b : ndarray of shape (n_rows, n_features)
        Row ``i`` of both arrays: the same observation with the same random numbers.
    draws : pair of Draws or None, default=(None, None)
        The draws behind each side's values (PFI, :func:`~ixplain.change._importance.pfi_rows`);
        with both given and the same replacement rows (common random numbers), the standard
        error comes from them (below).
    confidence : float, default=0.95
        Coverage of the (pointwise, per-feature) t interval.
    min_change : float, default=0.0
        The null hypothesis is ``|delta| <= min_change`` (units of the values).

    Returns
    -------
    Change
        ``delta = mean(values_b - values_a)``, its standard error ``sd / sqrt(n)``
        (``ddof=1``), the interval and the p-value (t with ``n - 1`` degrees of freedom).
        Per-row differences of at most :data:`ROUNDING` times the feature's mean absolute
        value (both sides) count as 0: they are float rounding, not change.
        When ``draws`` gives both sides with the same replacement rows (PFI with common random
        numbers), the standard error is ``sqrt(two_role_variance(draws_b - draws_a, repl))``
        instead (where positive); draws with different replacement rows leave the plain error.

    Raises
    ------
    ValueError
        If the shapes differ, there are fewer than 2 rows, or a side's ``draws`` do not fit
        its values' shape.
    TypeError
        If ``draws`` is not a pair of :class:`Draws` or None.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[1.0], [2.0], [3.0]]); b = a + np.array([[1.0], [1.2], [0.8]])
    >>> c = paired_change(a, b)
    >>> float(c.delta[0]), round(float(c.std_error[0]), 4)
    (1.0, 0.1155)
    """
    va, vb = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    if va.shape != vb.shape or va.ndim != 2:
        raise ValueError(f"paired_change: values of shapes {va.shape} and {vb.shape}; both must "
                         "be (n_rows, n_features) and equal.")
    n = va.shape[0]
    if n < 2:
        raise ValueError(f"paired_change: needs at least 2 rows; got {n}.")
    da, db = _check_draws("paired_change", draws, (va.shape, vb.shape))
    tol = ROUNDING * (np.abs(va).mean(axis=0) + np.abs(vb).mean(axis=0))
    d = _rounding_as_zero(vb - va, tol)
    delta = d.mean(axis=0)
    plain = d.var(axis=0, ddof=1) / n
    var = plain
    if da is not None and db is not None and da.draws.shape == db.draws.shape \
            and np.array_equal(da.repl, db.repl):
        var = _positive_or(two_role_variance(_rounding_as_zero(db.draws - da.draws, tol),
                                             da.repl), plain)
    se = np.sqrt(var)
    df = np.full(delta.shape, n - 1.0)
    lo, hi, p = _t_test(delta, se, df, confidence, min_change)
    return Change(va.mean(axis=0), vb.mean(axis=0), delta, se, lo, hi, p, df)


def independent_change(values_a: np.ndarray, values_b: np.ndarray, *,
                       draws: tuple[Draws | None, Draws | None] = (None, None),
                       confidence: float = 0.95, min_change: float = 0.0) -> Change:
    """Change statistics from per-row values of two independent samples (Welch).

    Parameters
    ----------
    values_a : ndarray of shape (n_a, n_features)
    values_b : ndarray of shape (n_b, n_features)
    draws : pair of Draws or None, default=(None, None)
        The draws behind each side's values (PFI); a side given has
        :func:`two_role_variance` of its draws as its variance of the mean.
    confidence : float, default=0.95
    min_change : float, default=0.0
        As in :func:`paired_change`.

    Returns
    -------
    Change
        ``delta = mean_b - mean_a``, ``se = sqrt(s_a^2 / n_a + s_b^2 / n_b)`` and Welch's t
        with the Welch-Satterthwaite degrees of freedom. A side with ``draws`` has
        ``two_role_variance`` of them in place of ``s^2 / n`` (where positive).

    Raises
    ------
    ValueError
        If a side has fewer than 2 rows, the feature counts differ, or a side's ``draws`` do
        not fit its values' shape.
    TypeError
        If ``draws`` is not a pair of :class:`Draws` or None.

    References
    ----------
    B. L. Welch, "The generalization of 'Student's' problem when several different population
    variances are involved", Biometrika 34, 1947.

    Examples
    --------
    >>> import numpy as np
    >>> c = independent_change(np.array([[0.0], [2.0]]), np.array([[1.0], [3.0], [5.0]]))
    >>> float(c.delta[0]), round(float(c.std_error[0]), 4)  # sqrt(2 / 2 + 4 / 3)
    (2.0, 1.5275)
    """
    va, vb = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    if va.ndim != 2 or vb.ndim != 2 or va.shape[1] != vb.shape[1]:
        raise ValueError(f"independent_change: values of shapes {va.shape} and {vb.shape}; both "
                         "must be (n_rows, n_features) with the same n_features.")
    na, nb = va.shape[0], vb.shape[0]
    if min(na, nb) < 2:
        raise ValueError(f"independent_change: needs at least 2 rows a side; got {na} and {nb}.")
    da, db = _check_draws("independent_change", draws, (va.shape, vb.shape))
    qa, qb = _mean_variance(da, va), _mean_variance(db, vb)
    se = np.sqrt(qa + qb)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (qa + qb) ** 2 / (qa**2 / (na - 1) + qb**2 / (nb - 1))
    df = np.where(np.isfinite(df), df, float(na + nb - 2))
    delta = vb.mean(axis=0) - va.mean(axis=0)
    lo, hi, p = _t_test(delta, se, df, confidence, min_change)
    return Change(va.mean(axis=0), vb.mean(axis=0), delta, se, lo, hi, p, df)


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control, any dependence).

    The ``i``-th smallest p-value ``p_(i)`` of ``m`` becomes
    ``max_{j <= i} min(1, (m - j + 1) p_(j))``; rejecting where the adjusted p-value is
    ``<= alpha`` controls the probability of any false rejection at ``alpha``.

    Parameters
    ----------
    p_values : ndarray of shape (m,)

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6, 1979.

    Examples
    --------
    >>> holm(np.array([0.01, 0.04, 0.03])).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    m = p.shape[0]
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.maximum.accumulate(scaled)
    return out


def ndcg_at_k(reference: np.ndarray, other: np.ndarray, k: int) -> float:
    """NDCG@k of ``other``'s ranking, with ``reference``'s importances as relevance.

    ``DCG@k = sum_{r=1..k} rel(pi(r)) / log2(r + 1)`` with ``pi`` the features ordered by
    ``other`` (descending) and ``rel`` the reference importances clipped at 0; divided by the
    same sum along ``reference``'s own order (the ideal). 1 when ``other`` puts the reference's
    top ``k`` in the reference's order; 1 by convention when every relevance is 0. Ties in
    ``other`` are broken by feature position.

    Parameters
    ----------
    reference, other : ndarray of shape (n_features,)
    k : int
        Ranks counted (at most ``n_features``).

    Returns
    -------
    float in [0, 1]

    References
    ----------
    K. Jarvelin, J. Kekalainen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20,
    2002.

    Examples
    --------
    >>> # (1 + 2 / log2(3)) / (3 + 2 / log2(3))
    >>> round(ndcg_at_k(np.array([3.0, 2.0, 1.0]), np.array([1.0, 2.0, 3.0]), 2), 4)
    0.5307
    """
    rel = np.maximum(np.asarray(reference, dtype=float), 0.0)
    k = min(int(k), rel.shape[0])
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    ideal = float(np.sort(rel)[::-1][:k] @ discount)
    if ideal <= 0.0:
        return 1.0
    order = np.argsort(-np.asarray(other, dtype=float), kind="stable")[:k]
    return float(rel[order] @ discount) / ideal


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b between two importance vectors (1: same order; -1: reversed).

    Parameters
    ----------
    x, y : ndarray of shape (n_features,)

    Returns
    -------
    float
        ``(concordant - discordant) / sqrt((n0 - ties_x) (n0 - ties_y))`` over the feature
        pairs; 0 when one vector is constant.

    Examples
    --------
    >>> kendall_tau(np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0]))
    0.3333333333333333
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    i, j = np.triu_indices(a.shape[0], 1)
    sa, sb = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    denom = np.sqrt(float(np.count_nonzero(sa)) * float(np.count_nonzero(sb)))
    return float((sa * sb).sum() / denom) if denom > 0 else 0.0


def bootstrap_weights(n: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``n_boot`` bootstrap resamples of ``n`` rows as weight rows (counts / n), (n_boot, n)."""
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot) / float(n)


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile bootstrap interval of ``samples`` at ``confidence``."""
    lo, hi = np.quantile(samples, [0.5 - confidence / 2.0, 0.5 + confidence / 2.0])
    return float(lo), float(hi)
