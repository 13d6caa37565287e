"""The notebook summaries of the stream objects: incremental explainers and the drift detector
(read by attribute: this module imports neither)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ._blocks import (
    _MUTED,
    MAX_PAIRS,
    MAX_ROWS,
    Row,
    card,
    esc,
    num,
    plain_table,
    ranking,
    sentence,
    sparkline_svg,
)
from ._results import _pair_rows, curve_parts

_DELTA = 0.05


# ---------------------------------------------------------------------------------- explainers
def _explainer_meta(e: Any) -> str:
    """The muted line: model, aggregation, rows seen / explained / skipped, storage."""
    model = getattr(e, "_model", None)
    items = [f"model {model.describe() if model is not None else type(e.model).__name__}"]
    agg = getattr(e, "aggregation", None)
    if agg == "ema":
        items.append(f"ema alpha={getattr(e, 'alpha', '?')}")
    elif agg:
        items.append(str(agg))
    items.append(f"{getattr(e, 'n_seen_', 0)} rows seen, {getattr(e, 'n_explained_', 0)} "
                 f"explained, {getattr(e, 'n_skipped_', 0)} skipped")
    storage = getattr(e, "storage", None)
    if storage is not None:
        items.append(f"storage {type(storage).__name__}({len(storage)} held)")
    return esc(" · ".join(items))


def _history(e: Any, width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``history_`` as (times, values of shape (n_snapshots, width)), or None when it is
    empty or its snapshots do not have ``width`` values."""
    hist = list(getattr(e, "history_", None) or [])
    if not hist:
        return None
    try:
        times = np.array([h[0] for h in hist], dtype=np.float64)
        values = np.array([np.asarray(h[1], dtype=np.float64).ravel()[:width] for h in hist])
    except (TypeError, ValueError):
        return None
    return (times, values) if values.ndim == 2 and values.shape[1] == width else None


def _value_rows(names: list[str], values: np.ndarray, half: np.ndarray,
                hist: tuple[np.ndarray, np.ndarray] | None) -> list[Row]:
    rows = []
    for j, n in enumerate(names):
        v, h = float(values[j]), float(half[j])
        trace = None if hist is None else (hist[0], hist[1][:, j])
        rows.append(Row(n, v, v - h, v + h, trace))
    return rows


def explainer_html(e: Any) -> str:
    """Summary of an incremental explainer: its current ranking with the ``confidence_bound``
    (``delta=0.05``) as whiskers and each value's trace over ``history_`` (iPFI, iSAGE;
    main terms and pairs for Shapley interactions), or its current curve (iPDP, iALE); a
    sentence before the first explained row.

    Parameters
    ----------
    e : IncrementalExplainer

    Returns
    -------
    str
    """
    title, meta = esc(type(e).__name__), _explainer_meta(e)
    if not getattr(e, "feature_names_", None) or not getattr(e, "n_explained_", 0):
        return card(title, [sentence(
            f"No row explained yet ({getattr(e, 'n_seen_', 0)} seen): feed it rows with "
            "explain_one or explain_many.")], meta)
    for attr in ("pd_", "ale_"):
        if isinstance(getattr(type(e), attr, None), property):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = getattr(e, attr)
            except (ValueError, AttributeError) as exc:
                return card(title, [sentence(str(exc).splitlines()[0])], meta)
            name, body, curve_meta = curve_parts(result)
            return card(title, [f"<div>{name}, now</div>", *body,
                                f'<div style="{_MUTED}">{curve_meta}</div>'], meta)
    values = np.asarray(e.importances_, dtype=np.float64).ravel()
    half = np.asarray(e.confidence_bound(_DELTA), dtype=np.float64).ravel()
    players = getattr(e, "players_", None)
    names = [str(p) for p in (players if players is not None else e.feature_names_)]
    hist = _history(e, len(values))
    bound = f"{(1 - _DELTA) * 100:.0f} % bound"
    if hasattr(e, "pair_values_") and len(values) >= len(names):
        return card(title, _interaction_parts(names, values, half, hist, bound), meta)
    if len(names) != len(values):
        names = [f"value[{i}]" for i in range(len(values))]
    body = [ranking(_value_rows(names, values, half, hist), bound=bound, trace=hist is not None,
                    where="importances_")]
    return card(title, body, meta)


def _interaction_parts(names: list[str], values: np.ndarray, half: np.ndarray,
                       hist: tuple[np.ndarray, np.ndarray] | None, bound: str) -> list[str]:
    G = len(names)
    P = G * (G - 1) // 2
    parts = [sentence("Main terms"), ranking(_value_rows(names, values, half, hist),
                                             bound=bound, trace=hist is not None)]
    if P:
        pairs = _pair_rows(names, values[G:G + P], half[G:G + P],
                           None if hist is None else hist[1][:, G:G + P],
                           None if hist is None else hist[0])
        parts += [sentence("Pairs, by absolute value"),
                  ranking(pairs, bound=bound, trace=hist is not None, order=False,
                          limit=MAX_PAIRS, label="pair")]
    return parts


# ---------------------------------------------------------------------------------- detector
def _incidents(d: Any) -> list[dict[str, Any]] | None:
    """The detector's incidents as dicts (``incidents()`` or an ``incidents`` list), or None
    when it has none to give (no such attribute, or it failed)."""
    found = getattr(d, "incidents", None)
    if found is None:
        return None
    try:
        items = found() if callable(found) else found
        return [i.to_dict() if hasattr(i, "to_dict") else dict(i) for i in items]
    except Exception:  # the events are shown instead
        return None


def _detector_meta(d: Any) -> str:
    watched = getattr(d, "explainer", None)
    items = [f"test {getattr(d, 'test', '?')}", f"delta={getattr(d, 'delta', '?')}",
             f"{getattr(d, 'n_rows_', 0)} rows tested",
             f"watching {type(watched).__name__}" if watched is not None else "not attached"]
    if getattr(d, "static_model", False):
        items.append("static model")
    return esc(" · ".join(items))


def detector_html(d: Any) -> str:
    """Summary of an explanation drift detector: its incidents (when it groups its events
    into incidents), else its events, newest last; a sentence when there are none.

    Parameters
    ----------
    d : ExplanationDriftDetector

    Returns
    -------
    str
    """
    title, meta = esc(type(d).__name__), _detector_meta(d)
    n_rows = int(getattr(d, "n_rows_", 0) or 0)
    incidents = _incidents(d)
    events = list(getattr(d, "events_", None) or [])
    traces = _watched_traces(d)
    if incidents:
        return card(title, _incident_parts(incidents, traces), meta)
    if events:
        return card(title, _event_parts(events, traces), meta)
    if n_rows == 0:
        text = "No rows tested yet: attach it to an explainer, or feed it values."
    else:
        text = f"No change found in {n_rows} rows tested."
    return card(title, [sentence(text)], meta)


def _watched_traces(d: Any) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each watched feature's trace in the attached explainer's ``history_`` (x in rows seen),
    by name; empty when there is no explainer or its snapshots are not one value per
    feature."""
    e = getattr(d, "explainer", None)
    if e is None or not getattr(e, "feature_names_", None):
        return {}
    players = getattr(e, "players_", None)
    names = [str(p) for p in (players if players is not None else e.feature_names_)]
    hist = _history(e, len(names))
    if hist is None:
        return {}
    return {n: (hist[0], hist[1][:, j]) for j, n in enumerate(names)}


def _trace_cell(traces: dict[str, tuple[np.ndarray, np.ndarray]], name: Any,
                row: Any) -> str:
    """The sparkline of feature ``name`` with a red tick at stream position ``row`` (rows
    seen), or an empty cell."""
    trace = traces.get(str(name))
    try:
        marks = [float(row)]
    except (TypeError, ValueError):
        marks = []
    return sparkline_svg(*trace, marks=marks) if trace is not None else ""


def _moved(features: list[dict[str, Any]], k: int = 3) -> str:
    """The first ``k`` features of an incident: ``name before -> after``."""
    out = [f"{esc(f.get('name'))} {num(f.get('before'))} &#8594; {num(f.get('after'))}"
           for f in features[:k]]
    return "; ".join(out) + (f"; +{len(features) - k} more" if len(features) > k else "")


def _incident_parts(incidents: list[dict[str, Any]],
                    traces: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[str]:
    alerts = [i for i in incidents if i.get("kind") != "model_update"]
    updates = [i for i in incidents if i.get("kind") == "model_update"]
    parts = []
    if alerts:
        rows = []
        for i in alerts[:MAX_ROWS]:
            moved = list(i.get("features") or [])
            rows.append([esc(i.get("id", "")), esc(f"{i.get('start')} .. {i.get('detected')}"),
                         esc(i.get("headline", "")), _moved(moved),
                         _trace_cell(traces, moved[0].get("name") if moved else None,
                                     i.get("detected"))])
        parts.append(sentence(f"{len(alerts)} incident(s):"))
        parts.append(plain_table(["#", "rows (start .. detected)", "what changed",
                                  "features moved (before → after)", _trace_head(traces)],
                                 rows, left=4))
        if len(alerts) > MAX_ROWS:
            parts.append(sentence(f"... and {len(alerts) - MAX_ROWS} more (incidents())."))
    else:
        parts.append(sentence("No incident."))
    if updates:
        at = ", ".join(str(i.get("detected")) for i in updates[:MAX_ROWS])
        more = f" and {len(updates) - MAX_ROWS} more" if len(updates) > MAX_ROWS else ""
        parts.append(sentence(f"{len(updates)} model update(s) as the model learned (not "
                              f"alerts), at rows {at}{more}."))
    return parts


def _trace_head(traces: dict[str, Any]) -> str:
    return "trace (red: detected)" if traces else ""


def _event_parts(events: list[Any], traces: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[str]:
    rows = []
    for e in events[:MAX_ROWS]:
        change = f"{num(e.before)} &#8594; {num(e.after)}"
        bounds = f"[{num(e.after_low)}, {num(e.after_high)}]"
        rows.append([esc(e.row), esc(e.start), esc(e.feature), esc(e.channel),
                     esc(e.direction), change, bounds,
                     _trace_cell(traces, e.feature, e.row + 1)])  # (row r: r + 1 rows seen)
    channels = sorted({str(e.channel) for e in events})
    parts = [sentence(f"{len(events)} event(s) on the {', '.join(channels)} channel(s):"),
             plain_table(["row", "start", "feature", "channel", "direction",
                          "before → after", "after, 95 %", _trace_head(traces)], rows, left=5)]
    if len(events) > MAX_ROWS:
        parts.append(sentence(f"... and {len(events) - MAX_ROWS} more (events_frame())."))
    return parts

