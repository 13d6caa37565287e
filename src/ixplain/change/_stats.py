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

The per-row values are treated as independent draws. PFI's replacement rows come from the
explained sample itself, so every row enters the estimate twice (as explained row and as the
replacement of others) and the plain per-row spread understates the standard error (~1.5x for a
label-free linear model); :func:`~ixplain.change._importance.pfi_rows` therefore returns each
row's first-order influence (its Hajek projection: both roles), whose spread is the right one
(slightly conservative: the draw noise is counted about twice). SAGE's per-row values treat
its background sample (at most 512 rows of the side) as fixed. ``benchmarks/bench_change.py``
measures the coverage of both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Change", "holm", "independent_change", "kendall_tau", "ndcg_at_k",
           "paired_change"]


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


def paired_change(values_a: np.ndarray, values_b: np.ndarray, *, confidence: float = 0.95,
                  min_change: float = 0.0) -> Change:
    """Change statistics from per-row values of both sides on the same rows.

    Parameters
    ----------
    values_a, values_b : ndarray of shape (n_rows, n_features)
        Row ``i`` of both arrays: the same observation with the same random numbers.
    confidence : float, default=0.95
        Coverage of the (pointwise, per-feature) t interval.
    min_change : float, default=0.0
        The null hypothesis is ``|delta| <= min_change`` (units of the values).

    Returns
    -------
    Change
        ``delta = mean(values_b - values_a)``, its standard error ``sd / sqrt(n)``
        (``ddof=1``), the interval and the p-value (t with ``n - 1`` degrees of freedom).

    Raises
    ------
    ValueError
        If the shapes differ or there are fewer than 2 rows.

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
    d = vb - va
    delta = d.mean(axis=0)
    se = d.std(axis=0, ddof=1) / np.sqrt(n)
    df = np.full(delta.shape, n - 1.0)
    lo, hi, p = _t_test(delta, se, df, confidence, min_change)
    return Change(va.mean(axis=0), vb.mean(axis=0), delta, se, lo, hi, p, df)


def independent_change(values_a: np.ndarray, values_b: np.ndarray, *, confidence: float = 0.95,
                       min_change: float = 0.0) -> Change:
    """Change statistics from per-row values of two independent samples (Welch).

    Parameters
    ----------
    values_a : ndarray of shape (n_a, n_features)
    values_b : ndarray of shape (n_b, n_features)
    confidence : float, default=0.95
    min_change : float, default=0.0
        As in :func:`paired_change`.

    Returns
    -------
    Change
        ``delta = mean_b - mean_a``, ``se = sqrt(s_a^2 / n_a + s_b^2 / n_b)`` and Welch's t
        with the Welch-Satterthwaite degrees of freedom.

    Raises
    ------
    ValueError
        If a side has fewer than 2 rows or the feature counts differ.

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
    qa, qb = va.var(axis=0, ddof=1) / na, vb.var(axis=0, ddof=1) / nb
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
