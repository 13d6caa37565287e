"""Per-observation summaries of ICE curves: the values the drift detector watches for iPDP.

An iPDP's explanation of one observation is its ICE curve ``f(x with x_S := v)`` on that row's
grid -- a vector whose length and grid values change as the tracked range moves, which a
fixed set of per-feature change tests cannot watch directly. Each curve is therefore reduced to
a few numbers describing the curve's shape on a fixed set of grid values:

core grid (numeric feature)
    The summaries are computed on the **core grid** alone, fixed per explainer
    (:meth:`~ixplain.methods.ipdp.IncrementalPDP._fix_core`): first, the lattice grid of the first row
    whose range came from ``min(range_window, 1000)`` values (``range_source="storage"``:
    ``min(storage size, 1000)`` held values), less a margin of ``max(2, n // 10)`` of its ``n``
    values at each end (fewer for a grid of fewer than 7 values; at least 3 stay); with a
    fixed ``grid`` the whole grid, from the first row. The range's percentiles move with
    their sampling noise, so the grid's ends gain and lose a lattice point or two every few
    rows on a stationary stream; for a nonlinear model (a tree) a fit over a grid that gains
    an end point has another slope, which the change tests reported as drift. On the core,
    a static model on i.i.d. rows gives i.i.d. summaries. A row whose grid lacks a core
    value -- or that came before the core was fixed -- has no summary (``ok`` False; the
    values of a partly covered core would again depend on the grid), so the detector's tests
    (and their warm-up) only ever see core summaries; the row's other grid values are left
    out (a finer step keeps the core values: ladder steps nest).
core fixed again
    When the feature's range drifts off the core (or the step coarsens past it), the rows
    stop reporting; once ``min(range_window, 1000)`` consecutive kept rows (storage: ``min(
    storage size, 1000)``; the count the first core waited for) had grids that miss a core
    value, the core is fixed again, the same way, from the current row's grid
    (:meth:`~ixplain.methods.ipdp.IncrementalPDP._track_core`): by then a range window has
    turned over, so the new core comes from rows after the move alone. At the defaults a
    stationary stream does not get there (the core's margin absorbs the ends' jitter;
    measured: no re-fix in 3 x 30,000 rows of N(0, 1), window or storage); with a small
    ``range_window`` or ``percentiles=(0, 1)`` on a heavy-tailed feature the range's ends
    jump and the core is fixed again often (QA: 11 to 2,736 re-fixes on stationary t(1.5)
    rows, each restarting the tests; ``(0, 1)`` left a core far in the tail where a change
    near the centre was missed), so keep the default percentiles there; on one N(0, 1) stream a +0.5 / +1 / +3 sd
    shift of the feature stopped the reports 672 / 457 / 71 rows after it and the core was
    fixed again 1,000 rows later (a reservoir storage turns over
    more slowly and may fix it again a few times as it does). Summaries on two cores are not
    comparable (a quadratic model's slope is ``b + a (v_1 + v_m)``: it moves with the core),
    so from the row of a re-fix the detector tests the summaries on a **fresh data channel**
    (new tests, warm-up, value scale and memory; a snapshot's channel too, its copy fixing
    its core on its own): no event ever compares summaries of two cores, and the tests run
    again ``warmup`` rows after the re-fix. A change of the PD is watched on the current core
    interval; a move of the feature's own distribution is for iPFI's values and the loss
    channels.

numeric feature: ``slope`` and ``curvature`` per output
    The least-squares fit ``f(v) ~ a + b v`` gives ``slope = b`` (output units per feature
    unit); the fit ``f(v) ~ a + b' v + c v**2`` gives ``curvature = c`` (per feature unit
    squared). Both are linear in the ICE values, so their mean over rows is the slope /
    curvature of the least-squares fit to the PD on the same grid: a change of the mean is a
    change of the PD curve's trend or bend (a slope that flips, an effect that vanishes or
    becomes U-shaped) on the core interval. The centring of the fits removes the curve's
    level, which moves with the other features, not with this feature's effect. A row with
    fewer than 2 (slope) or 3 (curvature) grid values has no summary (its ``ok`` is False).
categorical feature: ``spread`` per output
    The standard deviation of the ICE values across the row's levels (the size of the
    feature's effect on that row), over all the levels seen so far (no core: a level that
    first appears late changes the spread); a row with a single level has no summary. The
    spread has no sign: an effect that only reverses (PD ``[1, 0, 0]`` -> ``[-1, 0, 0]``)
    keeps it and is not seen here; the model channel's PD curves and iPFI's values are.
A grid of fewer than 3 values (``grid_resolution`` 2 or 3 can give one value; a feature that
is nearly constant) fixes no core: the detector then gets no summaries, and iPDP warns once.

The detector then runs one change test per summary value with its ``delta`` divided by their
number (Bonferroni across outputs and summaries), as for the features of iPFI.
"""

from __future__ import annotations

import numpy as np

__all__ = ["curve_labels", "curve_summary", "term_sizes"]

#: Relative size below which a fitted term is round-off (about 2**-30).
_ROUND_OFF = 1e-9


def curve_labels(feature: str, numeric: bool, output_names: list[str] | None) -> list[str]:
    """Names of the summary columns, e.g. ``["age slope", "age curvature"]`` (one group per
    output, the output's name appended when there are several).

    Examples
    --------
    >>> curve_labels("age", True, None)
    ['age slope', 'age curvature']
    >>> curve_labels("city", False, ["a", "b"])
    ['city spread [a]', 'city spread [b]']
    """
    parts = ("slope", "curvature") if numeric else ("spread",)
    outputs = [""] if not output_names or len(output_names) < 2 else [f" [{o}]" for o in
                                                                          output_names]
    return [f"{feature} {p}{o}" for o in outputs for p in parts]


def curve_summary(
    grid: np.ndarray, counts: np.ndarray, ice: np.ndarray, numeric: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Per-row summaries of ragged ICE curves.

    Parameters
    ----------
    grid : ndarray of shape (n_pairs,)
        The grid value of each (row, grid value) pair, rows one after the other.
    counts : ndarray of int, shape (B,)
        Grid values per row (the pairs of row ``r`` follow those of row ``r - 1``).
    ice : ndarray of shape (n_pairs, n_outputs)
        The model's output at each pair.
    numeric : bool
        Slope and curvature (numeric feature) or spread (categorical).

    Returns
    -------
    values : ndarray of shape (B, 2 * n_outputs) or (B, n_outputs)
        Per row, the summaries of each output in the order of :func:`curve_labels`.
    ok : ndarray of bool, shape (B,)
        Rows whose summaries are defined.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.array([0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 3.0])
    >>> f = np.array([1.0, 3.0, 5.0, 0.0, 1.0, 4.0, 9.0])[:, None]     # 1 + 2v, then v**2
    >>> values, ok = curve_summary(g, np.array([3, 4]), f, numeric=True)
    >>> values.round(6).tolist(), ok.tolist()
    ([[2.0, 0.0], [3.0, 1.0]], [True, True])
    """
    counts = np.asarray(counts, dtype=np.intp)
    B = len(counts)
    row = np.repeat(np.arange(B), counts)
    n = np.maximum(counts, 1).astype(np.float64)
    k = ice.shape[1]

    def rsum(w: np.ndarray) -> np.ndarray:
        return np.bincount(row, weights=w, minlength=B)

    f_mean = np.column_stack([rsum(ice[:, j]) for j in range(k)]) / n[:, None]
    fc = ice - f_mean[row]
    if not numeric:
        spread = np.sqrt(np.column_stack([rsum(fc[:, j] ** 2) for j in range(k)]) / n[:, None])
        return spread, counts >= 2
    v = np.asarray(grid, dtype=np.float64)
    u = v - (rsum(v) / n)[row]  # centred grid values
    su2, su3, su4 = rsum(u**2), rsum(u**3), rsum(u**4)
    w = u**2 - (su2 / n)[row]  # the centred quadratic term, orthogonal to the constant
    sww = su4 - su2**2 / n
    det = su2 * sww - su3**2
    ok = (counts >= 3) & (su2 > 0) & (det > 1e-12 * np.maximum(su2 * sww, 1e-300))
    out = np.zeros((B, 2 * k))
    safe_su2 = np.where(su2 > 0, su2, 1.0)
    safe_det = np.where(ok, det, 1.0)
    # a term whose size over the grid is below the round-off of the ICE values is 0 (so an
    # exactly linear model has curvature 0 on every grid, not noise that moves with the grid)
    tol = _ROUND_OFF * np.sqrt(np.column_stack([rsum(ice[:, j] ** 2) for j in range(k)]) / n[:, None])
    su_rms, sw_rms = np.sqrt(su2 / n), np.sqrt(np.maximum(sww, 0.0) / n)
    for j in range(k):
        suf, swf = rsum(u * fc[:, j]), rsum(w * fc[:, j])
        slope = suf / safe_su2
        curv = np.where(ok, (su2 * swf - su3 * suf) / safe_det, 0.0)
        out[:, 2 * j] = np.where(np.abs(slope) * su_rms > tol[:, j], slope, 0.0)
        out[:, 2 * j + 1] = np.where(np.abs(curv) * sw_rms > tol[:, j], curv, 0.0)
    return out, ok


def term_sizes(grid: np.ndarray, n_values: int, numeric: bool) -> np.ndarray:
    """Factors that turn each summary into output units on ``grid``: the slope times the
    root mean square of the centred grid values ``u`` (the size of the term ``b u`` over the
    grid), the curvature times that of ``w = u**2 - mean(u**2)`` (the term ``c w``); a
    spread is in output units already (1). So slope and curvature can be compared with each
    other and with a share of their total whatever the feature's unit (the model channel's
    ``min_change``): a feature measured in thousands has slopes 1,000 times larger and
    curvatures 10**6 times larger, and the same factors 1,000 and 10**6 times smaller.

    Parameters
    ----------
    grid : ndarray of shape (m,)
        The grid the summaries are computed on (the model channel's fixed grid).
    n_values : int
        Summary columns: ``2 * n_outputs`` (numeric) or ``n_outputs`` (categorical).
    numeric : bool
        Slope and curvature columns (True) or spreads (False).

    Returns
    -------
    ndarray of shape (n_values,)

    Examples
    --------
    >>> import numpy as np
    >>> term_sizes(np.array([0.0, 1.0, 2.0]), 2, True).round(4).tolist()
    [0.8165, 0.4714]
    >>> term_sizes(np.array([0.0, 1000.0, 2000.0]), 2, True).round(1).tolist()
    [816.5, 471404.5]
    """
    if not numeric:
        return np.ones(n_values)
    v = np.asarray(grid, dtype=np.float64)
    u = v - v.mean()
    w = u**2 - (u**2).mean()
    sizes = [float(np.sqrt((u**2).mean())), float(np.sqrt((w**2).mean()))]
    return np.tile(sizes, n_values // 2)
