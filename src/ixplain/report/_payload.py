"""Checking and normalising a report payload (contract A) before it is drawn.

:func:`prepare_payload` returns a new payload of plain JSON values: numpy arrays and scalars become
lists and floats, non-finite numbers become ``None`` (JSON has no NaN), optional keys get their
defaults and long series are thinned to at most :data:`MAX_POINTS` points. Every error names the
key where the payload is wrong, as a path such as ``charts[0].series[1].y``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["MAX_POINTS", "prepare_payload", "thin_indices"]

#: At most this many points of one series are drawn in the page (the rest are thinned out).
MAX_POINTS = 2000

STATES = ("running", "finished", "interrupted")
MARKER_KINDS = ("known", "incident", "model_update")
CHART_KINDS = ("traces", "curves", "bars")
_TOP_KEYS = {
    "title", "subtitle", "status", "summary", "ranking", "headline", "charts", "incidents",
    "tables", "settings", "images", "notes", "files", "refresh_seconds",
}
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _fail(path: str, what: str, value: Any, error: type[Exception] = ValueError) -> None:
    raise error(f"The payload's {path!r} must be {what}. Got {_show(value)} instead.")


def _mapping(value: Any, path: str, allowed: set[str] | None, required: Sequence[str] = ()) -> Mapping:
    if not isinstance(value, Mapping):
        _fail(path, "a dict", value, TypeError)
    if allowed is not None:
        unknown = sorted(str(k) for k in value if k not in allowed)
        if unknown:
            _fail(f"{path}.{unknown[0]}", f"one of the known keys {sorted(allowed)}", unknown[0])
    for key in required:
        if key not in value:
            raise ValueError(f"The payload's {path!r} has no {key!r} key; it is required.")
    return value


def _text(value: Any, path: str, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        _fail(path, "a str" + (" or None" if optional else ""), value, TypeError)
    return value


def _texts(value: Any, path: str) -> list[str]:
    items = _list(value, path)
    return [str(_text(v, f"{path}[{i}]")) for i, v in enumerate(items)]


def _list(value: Any, path: str) -> list:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        _fail(path, "a list", value, TypeError)
    return list(value)


def _number(value: Any, path: str, optional: bool = True) -> float | None:
    """A finite float, or None for None/NaN/inf (JSON has no NaN)."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        _fail(path, "a number" + (" or None" if optional else ""), value, TypeError)
    v = float(value)
    if not math.isfinite(v):
        if not optional:
            _fail(path, "a finite number", value)
        return None
    return int(v) if isinstance(value, (int, np.integer)) else v


def _numbers(value: Any, path: str, length: int | None = None, optional: bool = True,
             length_of: str = "") -> list:
    items = _list(value, path)
    if length is not None and len(items) != length:
        _fail(path, f"a list of the length of {length_of!r} ({length})", f"{len(items)} values")
    return [_number(v, f"{path}[{i}]", optional) for i, v in enumerate(items)]


def _bounds(series: Mapping, path: str, length: int, length_of: str) -> dict[str, list | None]:
    out: dict[str, list | None] = {}
    for key in ("lower", "upper"):
        raw = series.get(key)
        out[key] = None if raw is None else _numbers(raw, f"{path}.{key}", length, length_of=length_of)
    return out


def _integer(value: Any, path: str, optional: bool = False, minimum: int | None = None) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        _fail(path, "an int" + (" or None" if optional else ""), value, TypeError)
    if minimum is not None and value < minimum:
        _fail(path, f"an int >= {minimum}", value)
    return int(value)


def _choice(value: Any, path: str, choices: Sequence[str]) -> str:
    if value not in choices:
        _fail(path, f"one of {list(choices)}", value)
    return str(value)


def _cell(value: Any, path: str) -> Any:
    """A table cell or setting value as a JSON scalar (other objects become their ``str``)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return _number(value, path)
    return str(value)


def thin_indices(n: int, max_points: int = MAX_POINTS) -> list[int]:
    """Evenly spread indices of at most ``max_points`` of ``n`` points, first and last kept.

    Parameters
    ----------
    n : int
        Number of points of the series (>= 0).
    max_points : int, default=MAX_POINTS
        At most this many indices are returned (>= 2).

    Returns
    -------
    list of int
        Increasing indices into the series; ``range(n)`` when ``n <= max_points``.

    Raises
    ------
    ValueError
        If ``n`` is negative or ``max_points`` is below 2.

    Examples
    --------
    >>> thin_indices(10, 4)
    [0, 3, 6, 9]
    >>> thin_indices(3, 4)
    [0, 1, 2]
    """
    if n < 0:
        raise ValueError(f"The 'n' parameter of thin_indices must be an int >= 0. Got {n!r} instead.")
    if max_points < 2:
        raise ValueError(
            f"The 'max_points' parameter of thin_indices must be an int >= 2. Got {max_points!r} instead."
        )
    if n <= max_points:
        return list(range(n))
    step = math.ceil((n - 1) / (max_points - 1))
    picked = list(range(0, n - 1, step))
    return [*picked, n - 1]


def _take(values: list | None, idx: list[int]) -> list | None:
    return None if values is None else [values[i] for i in idx]


def _thin_series(series: dict, keys: Sequence[str], idx: list[int]) -> None:
    for key in keys:
        series[key] = _take(series.get(key), idx)


def _thinned(n: int, idx: list[int]) -> dict | None:
    return None if len(idx) == n else {"points": n, "shown": len(idx), "step": idx[1] - idx[0]}


def _traces_chart(chart: Mapping, path: str) -> dict:
    _mapping(chart, path, {"id", "title", "kind", "x_label", "y_label", "x", "series", "markers"}, ("x", "series"))
    x = _numbers(chart["x"], f"{path}.x", optional=False)
    series = []
    for i, s in enumerate(_list(chart["series"], f"{path}.series")):
        sp = f"{path}.series[{i}]"
        _mapping(s, sp, {"name", "y", "lower", "upper"}, ("name", "y"))
        item = {"name": _text(s["name"], f"{sp}.name"),
                "y": _numbers(s["y"], f"{sp}.y", len(x), length_of=f"{path}.x")}
        item.update(_bounds(s, sp, len(x), f"{path}.x"))
        series.append(item)
    markers = [_marker(m, f"{path}.markers[{i}]")
               for i, m in enumerate(_list(chart.get("markers") or [], f"{path}.markers"))]
    idx = thin_indices(len(x))
    for item in series:
        _thin_series(item, ("y", "lower", "upper"), idx)
    return {"x": _take(x, idx), "series": series, "markers": markers, "thinned": _thinned(len(x), idx)}


def _marker(marker: Any, path: str) -> dict:
    _mapping(marker, path, {"x", "label", "kind", "incident"}, ("x", "kind"))
    return {
        "x": _number(marker["x"], f"{path}.x", optional=False),
        "label": _text(marker.get("label", ""), f"{path}.label"),
        "kind": _choice(marker["kind"], f"{path}.kind", MARKER_KINDS),
        "incident": _integer(marker.get("incident"), f"{path}.incident", optional=True),
    }


def _curve_x(value: Any, path: str) -> list:
    items = _list(value, path)
    if items and all(isinstance(v, str) for v in items):
        return items
    return _numbers(items, path, optional=False)


def _curves_chart(chart: Mapping, path: str) -> dict:
    _mapping(chart, path, {"id", "title", "kind", "x_label", "y_label", "series"}, ("series",))
    series, thinned = [], None
    for i, s in enumerate(_list(chart["series"], f"{path}.series")):
        sp = f"{path}.series[{i}]"
        _mapping(s, sp, {"name", "x", "y", "lower", "upper", "group"}, ("name", "x", "y"))
        x = _curve_x(s["x"], f"{sp}.x")
        item = {"name": _text(s["name"], f"{sp}.name"), "x": x,
                "y": _numbers(s["y"], f"{sp}.y", len(x), length_of=f"{sp}.x"),
                "group": _text(s.get("group"), f"{sp}.group", optional=True)}
        item.update(_bounds(s, sp, len(x), f"{sp}.x"))
        idx = thin_indices(len(x))
        _thin_series(item, ("x", "y", "lower", "upper"), idx)
        thinned = thinned or _thinned(len(x), idx)
        series.append(item)
    return {"series": series, "thinned": thinned}


def _bars_chart(chart: Mapping, path: str) -> dict:
    _mapping(chart, path, {"id", "title", "kind", "x_label", "y_label", "series"}, ("series",))
    series = []
    for i, s in enumerate(_list(chart["series"], f"{path}.series")):
        sp = f"{path}.series[{i}]"
        _mapping(s, sp, {"name", "labels", "y", "lower", "upper"}, ("name", "labels", "y"))
        labels = _texts(s["labels"], f"{sp}.labels")
        item = {"name": _text(s["name"], f"{sp}.name"), "labels": labels,
                "y": _numbers(s["y"], f"{sp}.y", len(labels), length_of=f"{sp}.labels")}
        item.update(_bounds(s, sp, len(labels), f"{sp}.labels"))
        series.append(item)
    return {"series": series, "thinned": None}


_CHARTS: dict[str, Callable[[Mapping, str], dict]] = {
    "traces": _traces_chart, "curves": _curves_chart, "bars": _bars_chart,
}


def _chart(chart: Any, path: str) -> dict:
    _mapping(chart, path, None, ("id", "title", "kind"))
    kind = _choice(chart["kind"], f"{path}.kind", CHART_KINDS)
    out = {
        "id": _text(chart["id"], f"{path}.id"),
        "title": _text(chart["title"], f"{path}.title"),
        "kind": kind,
        "x_label": _text(chart.get("x_label", ""), f"{path}.x_label"),
        "y_label": _text(chart.get("y_label", ""), f"{path}.y_label"),
    }
    out.update(_CHARTS[kind](chart, path))
    return out


def _ranking(ranking: Any) -> dict | None:
    if ranking is None:
        return None
    path = "ranking"
    _mapping(ranking, path, {"title", "unit", "features", "values", "lower", "upper",
                             "caption"}, ("features", "values"))
    features = _texts(ranking["features"], f"{path}.features")
    out = {
        "title": _text(ranking.get("title", "Final ranking"), f"{path}.title"),
        "unit": _text(ranking.get("unit", ""), f"{path}.unit"),
        "features": features,
        "values": _numbers(ranking["values"], f"{path}.values", len(features),
                           length_of=f"{path}.features"),
    }
    out.update(_bounds(ranking, path, len(features), f"{path}.features"))
    if ranking.get("caption") is not None:  # (else the page's default caption)
        out["caption"] = _text(ranking["caption"], f"{path}.caption")
    return out


def _status(status: Any) -> dict | None:
    if status is None:
        return None
    _mapping(status, "status", {"state", "rows_seen", "rows_total"}, ("state", "rows_seen"))
    return {
        "state": _choice(status["state"], "status.state", STATES),
        "rows_seen": _integer(status["rows_seen"], "status.rows_seen", minimum=0),
        "rows_total": _integer(status.get("rows_total"), "status.rows_total", optional=True, minimum=0),
    }


_INCIDENT_NUMBERS = ("before", "after", "change", "before_lower", "before_upper", "after_lower",
                     "after_upper")


def _incident(incident: Any, path: str) -> dict:
    """Contract B's ``Incident.to_dict()``; keys beyond the contract are left out, not refused."""
    _mapping(incident, path, None, ("id", "headline", "features"))
    features = []
    for i, f in enumerate(_list(incident["features"], f"{path}.features")):
        fp = f"{path}.features[{i}]"
        _mapping(f, fp, None, ("name", "before", "after"))
        item: dict[str, Any] = {"name": _text(f["name"], f"{fp}.name")}
        item.update({k: _number(f.get(k), f"{fp}.{k}") for k in _INCIDENT_NUMBERS})
        features.append(item)
    rows = {k: _integer(incident.get(k), f"{path}.{k}", optional=True)
            for k in ("start", "detected", "end")}
    return {
        "id": _integer(incident["id"], f"{path}.id"),
        "kind": _choice(incident.get("kind", "incident"), f"{path}.kind", ("incident", "model_update")),
        "channel": _text(incident.get("channel"), f"{path}.channel", optional=True),
        **rows,
        "headline": _text(incident["headline"], f"{path}.headline"),
        "features": features,
    }


def _check_marks(charts: list[dict], incident_ids: list[int]) -> None:
    """Each mark that names an incident names one of the payload's incidents."""
    for i, chart in enumerate(charts):
        for j, mark in enumerate(chart.get("markers", [])):
            if mark["incident"] is not None and mark["incident"] not in incident_ids:
                _fail(f"charts[{i}].markers[{j}].incident",
                      f"None or the id of one of the incidents {incident_ids}", mark["incident"])


def _table(table: Any, path: str) -> dict:
    _mapping(table, path, {"title", "columns", "rows"}, ("title", "columns", "rows"))
    columns = [_cell(c, f"{path}.columns[{i}]") for i, c in enumerate(_list(table["columns"], f"{path}.columns"))]
    rows = []
    for i, row in enumerate(_list(table["rows"], f"{path}.rows")):
        cells = _list(row, f"{path}.rows[{i}]")
        if len(cells) != len(columns):
            _fail(f"{path}.rows[{i}]", f"a list of the length of {path + '.columns'!r} ({len(columns)})",
                  f"{len(cells)} values")
        rows.append([_cell(v, f"{path}.rows[{i}][{j}]") for j, v in enumerate(cells)])
    return {"title": _text(table["title"], f"{path}.title"), "columns": columns, "rows": rows}


def _setting(pair: Any, path: str) -> list:
    items = _list(pair, path)
    if len(items) != 2:
        _fail(path, "a [name, value] pair", pair)
    return [_text(items[0], f"{path}[0]"), _cell(items[1], f"{path}[1]")]


def _image(image: Any, path: str) -> dict:
    _mapping(image, path, {"caption", "png_base64"}, ("png_base64",))
    data = _text(image["png_base64"], f"{path}.png_base64")
    if not _BASE64.match(str(data)):
        _fail(f"{path}.png_base64", "base64 text (A-Z, a-z, 0-9, +, /, =)", data)
    return {"caption": _text(image.get("caption", ""), f"{path}.caption"), "png_base64": data}


def _each(payload: Mapping, key: str, convert: Callable[[Any, str], Any]) -> list:
    return [convert(v, f"{key}[{i}]") for i, v in enumerate(_list(payload.get(key) or [], key))]


def _refresh(value: Any) -> float:
    seconds = _number(value, "refresh_seconds", optional=False)
    if seconds is None or seconds <= 0:
        _fail("refresh_seconds", "a number > 0", value)
    return float(seconds)  # type: ignore[arg-type]


def prepare_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Check a report payload and return it as plain JSON values, ready for the page.

    Parameters
    ----------
    payload : dict
        The report payload of contract A (see :func:`ixplain.report.render_page`). Lists may be
        numpy arrays; numbers may be numpy scalars.

    Returns
    -------
    dict
        A new payload: every optional key present (``None`` or empty lists as defaults,
        ``refresh_seconds`` 3), numbers as Python floats/ints, NaN and infinities as ``None``,
        series longer than :data:`MAX_POINTS` thinned (first and last points kept; the chart's
        ``thinned`` entry says how: ``{"points", "shown", "step"}``).

    Raises
    ------
    TypeError
        If a value has the wrong type; the message names its key, e.g. ``charts[0].series[1].y``.
    ValueError
        If a value is out of its range, a list has the wrong length, a required key is missing,
        a key is unknown, ``headline`` names no chart or a mark names no incident.

    Examples
    --------
    >>> page = prepare_payload({"title": "run", "summary": ["hour matters most."]})
    >>> page["summary"], page["charts"], page["refresh_seconds"]
    (['hour matters most.'], [], 3.0)
    >>> prepare_payload({"title": "run", "charts": [{"id": "a", "title": "t", "kind": "pie"}]})
    Traceback (most recent call last):
    ...
    ValueError: The payload's 'charts[0].kind' must be one of ['traces', 'curves', 'bars']. Got 'pie' instead.
    """
    _mapping(payload, "payload", _TOP_KEYS, ("title",))
    charts = _each(payload, "charts", _chart)
    ids = [c["id"] for c in charts]
    for i, chart_id in enumerate(ids):
        if chart_id in ids[:i]:
            _fail(f"charts[{i}].id", "unique among the charts", chart_id)
    headline = _text(payload.get("headline"), "headline", optional=True)
    if headline is not None and headline not in ids:
        _fail("headline", f"the id of one of the charts {ids}", headline)
    incidents = _each(payload, "incidents", _incident)
    _check_marks(charts, [inc["id"] for inc in incidents])
    return {
        "title": _text(payload["title"], "title"),
        "subtitle": _text(payload.get("subtitle"), "subtitle", optional=True),
        "status": _status(payload.get("status")),
        "summary": _texts(payload.get("summary") or [], "summary"),
        "ranking": _ranking(payload.get("ranking")),
        "headline": headline,
        "charts": charts,
        "incidents": incidents,
        "tables": _each(payload, "tables", _table),
        "settings": _each(payload, "settings", _setting),
        "images": _each(payload, "images", _image),
        "notes": _texts(payload.get("notes") or [], "notes"),
        "files": _texts(payload.get("files") or [], "files"),
        "refresh_seconds": _refresh(payload.get("refresh_seconds", 3)),
    }
