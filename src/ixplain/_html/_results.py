"""The notebook summaries of the result objects (:mod:`ixplain.results`), read by attribute."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._blocks import (
    _LINES,
    _MUTED,
    MAX_PAIRS,
    Row,
    _axis,
    card,
    curve_svg,
    esc,
    num,
    ranking,
    sentence,
    settings_line,
)

_Z95 = 1.959963984540054


def _nan_note(values: Any) -> list[str]:
    """A sentence when no value is finite (all NaN or infinite), else nothing."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.size and not np.isfinite(arr).any():
        return [sentence("No finite value: every value is NaN or infinite.")]
    return []


def band_halfwidth(variances: np.ndarray, n: Any, settings: dict[str, Any],
                   delta: float = 0.05) -> np.ndarray:
    """The Chebyshev ``1 - delta`` half-width of a smoothed estimate from the per-observation
    variances (the spread term of ``confidence_bound``; NaN without ``aggregation`` in the
    settings, as the trace plot draws no band then).

    Parameters
    ----------
    variances : ndarray
    n : int or ndarray
        Rows behind the estimate (for ``aggregation="mean"``).
    settings : dict
        ``aggregation`` and ``alpha``.
    delta : float, default=0.05

    Returns
    -------
    ndarray of the shape of ``variances``
    """
    var = np.asarray(variances, dtype=np.float64)
    aggregation, alpha = settings.get("aggregation"), settings.get("alpha")
    with np.errstate(invalid="ignore", divide="ignore"):
        if aggregation == "ema" and alpha is not None:
            return np.sqrt(var * float(alpha) / (2 - float(alpha)) / delta)
        if aggregation == "mean":
            return np.sqrt(var / np.maximum(np.asarray(n, dtype=np.float64), 1) / delta)
    return np.full_like(var, np.nan)


# ---------------------------------------------------------------------------------- importance
def importance_html(r: Any) -> str:
    """Summary of a :class:`~ixplain.results.FeatureImportance`: the ranking by mean, with the
    spread over repeats (``mean -/+ std``) as whiskers, or for one repeat with standard errors
    (SAGE) the 95 % normal interval."""
    names, mean, std = list(r.feature_names), np.asarray(r.importances_mean), np.asarray(
        r.importances_std)
    reps = int(np.asarray(r.importances).shape[-1]) if np.asarray(r.importances).ndim == 2 else 1
    meta = settings_line(r.settings, f"{len(names)} features", f"{reps} repeat(s)")
    if not names:
        return card("FeatureImportance", [sentence("No features.")], meta)
    if reps > 1:
        bound, z = "mean -/+ std", 1.0
    else:  # one repeat: importances_std holds standard errors (SAGE) or zeros
        bound, z = ("95 %", _Z95) if np.nan_to_num(std).any() else ("", 0.0)
    rows = [Row(n, float(m), float(m - z * s), float(m + z * s))
            for n, m, s in zip(names, mean, std)]
    body = _nan_note(mean) + [ranking(rows, bound=bound)]
    return card("FeatureImportance", body, meta)


def importance_series_html(ts: Any) -> str:
    """Summary of an :class:`~ixplain.results.ImportanceTimeSeries`: the last snapshot's
    ranking with its 95 % band and each feature's trace."""
    times, values = np.asarray(ts.times), np.asarray(ts.importances, dtype=np.float64)
    settings = dict(ts.settings or {})
    names = list(ts.feature_names)
    if len(times) == 0 or not names:
        return card("ImportanceTimeSeries", [sentence("No snapshot yet.")],
                    settings_line(settings, f"{len(names)} features"))
    half = band_halfwidth(np.asarray(ts.variances)[-1], times[-1], settings)
    last = values[-1]
    rows = [Row(n, float(last[j]), float(last[j] - half[j]), float(last[j] + half[j]),
                (times, values[:, j])) for j, n in enumerate(names)]
    meta = settings_line(settings, f"{len(times)} snapshots, rows {times[0]}..{times[-1]}",
                         f"{len(names)} features")
    body = [sentence(f"At row {times[-1]}:")] + _nan_note(last)
    bound = "95 % band" if np.isfinite(half).any() else ""
    return card("ImportanceTimeSeries", body + [ranking(rows, bound=bound, trace=True)], meta)


# ---------------------------------------------------------------------------------- interactions
def _pair_rows(names: list[str], values: np.ndarray, half: np.ndarray | None,
               traces: np.ndarray | None = None, times: Any = None) -> list[Row]:
    """Rows of the pair terms (``values`` in ``i < j`` order), by absolute value."""
    ii, jj = np.triu_indices(len(names), 1)
    rows = []
    for p, (i, j) in enumerate(zip(ii, jj)):
        h = math.nan if half is None else float(half[p])
        v = float(values[p])
        trace = None if traces is None else (times, traces[:, p])
        rows.append(Row(f"{names[i]} x {names[j]}", v, v - h, v + h, trace))
    return sorted(rows, key=lambda r: -abs(r.value) if math.isfinite(r.value) else math.inf)


def interactions_html(r: Any) -> str:
    """Summary of :class:`~ixplain.results.ShapleyInteractions`: main terms ranked, the pairs
    by absolute value, each with its 95 % normal interval; the strongest triples (order 3)."""
    names = list(r.feature_names)
    meta = settings_line(r.settings, f"index {r.index}", f"order {r.order}",
                         f"{len(names)} features", f"total {num(r.total)}")
    if not names:
        return card("ShapleyInteractions", [sentence("No features.")], meta)
    main = [Row(n, float(v), float(v - _Z95 * s), float(v + _Z95 * s))
            for n, v, s in zip(names, r.main_values, r.main_std)]
    ii, jj = np.triu_indices(len(names), 1)
    pairs = _pair_rows(names, r.pair_values[ii, jj], _Z95 * r.pair_std[ii, jj])
    body = _nan_note(r.main_values) + [sentence("Main terms"), ranking(main, bound="95 %")]
    if pairs:
        body += [sentence("Pairs, by absolute value"),
                 ranking(pairs, bound="95 %", order=False, limit=MAX_PAIRS, label="pair")]
    triples = r.top_triples(5)
    if triples:
        body.append(sentence("Strongest triples: " + "; ".join(
            f"{a} x {b} x {c} = {num(v)}" for a, b, c, v in triples)))
    return card("ShapleyInteractions", body, meta)


def interaction_series_html(ts: Any) -> str:
    """Summary of an :class:`~ixplain.results.InteractionTimeSeries`: the last snapshot's main
    terms and pairs with their 95 % bands and traces."""
    times, values = np.asarray(ts.times), np.asarray(ts.values, dtype=np.float64)
    names, settings = list(ts.feature_names), dict(ts.settings or {})
    G = len(names)
    meta = settings_line(settings, f"index {ts.index}", f"{len(times)} snapshots",
                         f"{G} features")
    if len(times) == 0 or not G:
        return card("InteractionTimeSeries", [sentence("No snapshot yet.")], meta)
    half = band_halfwidth(np.asarray(ts.variances)[-1], times[-1], settings)
    last = values[-1]
    main = [Row(n, float(last[j]), float(last[j] - half[j]), float(last[j] + half[j]),
                (times, values[:, j])) for j, n in enumerate(names)]
    pairs = _pair_rows(names, last[G:], half[G:], values[:, G:], times)
    bound = "95 % band" if np.isfinite(half).any() else ""
    body = [sentence(f"At row {times[-1]}: main terms"), ranking(main, bound=bound, trace=True)]
    if pairs:
        body += [sentence("Pairs, by absolute value"),
                 ranking(pairs, bound=bound, trace=True, order=False,
                         limit=MAX_PAIRS, label="pair")]
    return card("InteractionTimeSeries", body, meta)


def hstatistic_html(r: Any) -> str:
    """Summary of an :class:`~ixplain.results.HStatistic`: per output (at most three), the
    overall statistic ranked and the computed pairs ranked."""
    overall, pairwise = np.asarray(r.overall), np.asarray(r.pairwise)
    names, outputs = list(r.feature_names), list(r.output_names)
    meta = settings_line(r.settings, r.description, f"{len(names)} features",
                         f"{len(r.pairs)} pairs", f"{len(outputs)} output(s)")
    body: list[str] = []
    for k in range(min(len(outputs), 3)):
        if len(outputs) > 1:
            body.append(sentence(f"Output {outputs[k]}"))
        body += _nan_note(overall[k]) + [ranking(
            [Row(n, float(v)) for n, v in zip(names, overall[k])])]
        pairs = [Row(f"{names[j]} x {names[m]}", float(pairwise[k, j, m])) for j, m in r.pairs]
        if pairs:
            body += [sentence("Pairs"), ranking(pairs, label="pair")]
    if len(outputs) > 3:
        body.append(f'<div style="{_MUTED}">... {len(outputs) - 3} more outputs '
                    "(to_frame()).</div>")
    return card(esc(f"HStatistic: {r.description}"), body or [sentence("No output.")], meta)


# ---------------------------------------------------------------------------------- curves
def _output_labels(r: Any, n: int) -> list[str]:
    names = getattr(r, "output_names", None)
    if names is not None and len(names) == n:
        return [str(o) for o in names]
    target = getattr(r, "target", None)
    return [str(target)] if target is not None and n == 1 else [str(i) for i in range(n)]


def _curve_values(r: Any) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    """The curves (n_outputs, n_grid...) of a PD or ALE result, their 95 % half-width (or
    None) and what the band is."""
    average = getattr(r, "average", None)
    if average is None:  # kind="individual": the mean of the ICE curves
        ind = getattr(r, "individual", None)
        return (None if ind is None else np.asarray(ind).mean(axis=1)), None, ""
    average = np.asarray(average, dtype=np.float64)
    std = getattr(r, "std", None)
    if std is None:
        std = (getattr(r, "extra", None) or {}).get("standard_error")
    if std is None or np.shape(std) != average.shape:
        return average, None, ""
    return average, _Z95 * np.asarray(std, dtype=np.float64), "95 % band"


def curve_html(r: Any) -> str:
    """Summary of a :class:`~ixplain.results.PartialDependence` or
    :class:`~ixplain.results.AccumulatedLocalEffects`: a 1-way numeric curve as a small chart
    (every output, with its band), a categorical one as bars per level, a 2-way one in a
    sentence."""
    title, body, meta = curve_parts(r)
    return card(title, body, meta)


def curve_parts(r: Any) -> tuple[str, list[str], str]:
    """The title, body blocks and muted line of :func:`curve_html` (an explainer's card
    shows its current curve with them)."""
    features = [str(f) for f in r.features]
    values, half, band = _curve_values(r)
    title = esc(f"{type(r).__name__} of {' x '.join(features)}")
    meta = _curve_meta(r, values)
    if values is None or values.size == 0:
        return title, [sentence("No values.")], meta
    body = _nan_note(values)
    if values.ndim > 2:
        return title, body + [sentence(_two_way(features, r.grid_values, values))], meta
    x = _numeric_axis(r)
    labels = _output_labels(r, values.shape[0])
    if x is None:  # levels: one bar per level (first output)
        levels = [str(v) for v in np.asarray(r.grid_values[0], dtype=object)]
        h = np.full(len(levels), np.nan) if half is None else half[0]
        rows = [Row(lv, float(v), float(v - e), float(v + e))
                for lv, v, e in zip(levels, values[0], h)]
        if len(labels) > 1:
            body.append(sentence(f"Output {labels[0]} (of {len(labels)}):"))
        return title, body + [ranking(rows, bound=band, order=False,
                                      label=f"{features[0]} (level)")], meta
    low = None if half is None else values - half
    high = None if half is None else values + half
    return title, body + [curve_svg(x, values, low, high),
                          _curve_legend(x, values, labels, band)], meta


def _numeric_axis(r: Any) -> np.ndarray | None:
    """The x values of a 1-way numeric curve, else None (levels)."""
    kinds = tuple(getattr(r, "feature_kinds", ()) or ())
    if kinds and kinds[0] == "categorical":
        return None
    return _axis(r.grid_values[0])


def _curve_legend(x: np.ndarray, values: np.ndarray, labels: list[str], band: str) -> str:
    fin = values[np.isfinite(values)]
    xf = x[np.isfinite(x)]
    text = (f"x {num(xf.min()) if xf.size else 'nan'} .. {num(xf.max()) if xf.size else 'nan'}"
            f" ({len(x)} points); y {num(fin.min()) if fin.size else 'nan'} .. "
            f"{num(fin.max()) if fin.size else 'nan'}" + (f"; {band}" if band else ""))
    keys = ""
    if len(labels) > 1:
        keys = " ".join(f'<span style="color:{_LINES[k]}">&#9632; {esc(lab)}</span>'
                        for k, lab in enumerate(labels[: len(_LINES)]))
        keys += f" (+{len(labels) - len(_LINES)} not drawn)" if len(labels) > len(_LINES) else ""
    return f'<div style="{_MUTED}">{esc(text)}{" " + keys if keys else ""}</div>'


def _two_way(features: list[str], grids: Any, values: np.ndarray) -> str:
    """One sentence for a 2-way surface: its grid, its range and where its maximum is."""
    shape = " x ".join(str(len(g)) for g in grids)
    v = values[0]
    if not np.isfinite(v).any():
        return f"2-way surface on a {shape} grid."
    at = np.unravel_index(int(np.nanargmax(np.where(np.isfinite(v), v, -np.inf))), v.shape)
    where = ", ".join(f"{f}={_plain(np.asarray(g, dtype=object)[i])}" for f, g, i in zip(
        features, grids, at))
    return (f"2-way surface on a {shape} grid: from {num(np.nanmin(v))} to "
            f"{num(np.nanmax(v))} (highest at {where}); values with to_frame().")


def _plain(value: Any) -> str:
    """A grid value as text (numbers in 4 digits), not escaped (for :func:`sentence`)."""
    try:
        return f"{float(value):.4g}"
    except (TypeError, ValueError):
        return str(value)


def _curve_meta(r: Any, values: np.ndarray | None) -> str:
    n_out = 0 if values is None else values.shape[0]
    first = [f"{n_out} output(s)", f"{getattr(r, 'n_rows', 0)} rows"]
    if hasattr(r, "bin_counts"):
        first.append(" x ".join(str(n) for n in np.shape(r.bin_counts)) + " bins")
    extra = {k: getattr(r, k) for k in ("kind", "method", "response_method", "centered")
             if hasattr(r, k)}
    return settings_line(extra, *first)


# ---------------------------------------------------------------------------------- drift
def drift_explanation_html(r: Any) -> str:
    """Summary of a :class:`~ixplain.results.DriftExplanation`: the features by absolute
    change, the value after as a bar with its 95 % interval and a tick at the value before;
    the PD curves before and after (an iPDP event)."""
    e = r.event
    head = sentence(f"{e.channel} event on {e.feature} at row {e.row} (start {e.start}), "
                    f"{e.direction}")
    before, after = np.asarray(r.before, dtype=np.float64), np.asarray(r.after, dtype=np.float64)
    a_se = np.asarray(r.after_se, dtype=np.float64)
    rows = [Row(n, float(a), float(a - _Z95 * sa), float(a + _Z95 * sa),
                note=f"{num(b)} &#8594; {num(a)} ({num(a - b)})", ref=float(b))
            for n, b, a, sa in zip(r.feature_names, before, after, a_se)]
    rows.sort(key=lambda row: -abs(row.value - row.ref) if math.isfinite(row.value - row.ref)
              else math.inf)
    body = [head] + _nan_note(after) + [ranking(rows, bound="after, 95 %", order=False,
                                                value="before → after (change)")]
    if getattr(r, "has_curves", False):
        x = _axis_or_positions(r.grid_values)
        body.append(curve_svg(x, np.vstack([np.asarray(r.before_curve)[0],
                                            np.asarray(r.after_curve)[0]])))
        body.append(f'<div style="{_MUTED}"><span style="color:{_LINES[0]}">&#9632; before'
                    f'</span> <span style="color:{_LINES[1]}">&#9632; after</span> '
                    "(PD, first output)</div>")
    meta = esc(f"before: rows {r.before_rows[0]}..{r.before_rows[1]} · after: rows "
               f"{r.after_rows[0]}..{r.after_rows[1]} · bar: after, tick: before")
    return card("DriftExplanation", body, meta)


def _axis_or_positions(grid: Any) -> np.ndarray:
    x = _axis(grid)
    return np.arange(len(grid), dtype=np.float64) if x is None else x

