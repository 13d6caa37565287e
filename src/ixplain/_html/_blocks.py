"""The building blocks of the notebook summaries (:mod:`ixplain._html`): escaping, number
formatting, the card, the ranking table with inline bars, sparklines and small curve charts.

Plain HTML with inline SVG and inline styles only; every text from the user's data goes
through :func:`esc`.

Examples
--------
>>> ranking([Row("<b>", 1.0), Row("a", -0.5)]).count("<tr>")
3
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

#: Rows shown in a ranking or an event table (the rest is counted in a note).
MAX_ROWS = 20
#: Pairs shown in an interaction summary (the strongest).
MAX_PAIRS = 10
#: Points of a sparkline at most (longer traces are thinned, their extremes kept).
MAX_POINTS = 40
#: Size in pixels of the inline bar, the sparkline and the curve chart.
BAR_W, BAR_H = 120, 12
SPARK_W, SPARK_H = 90, 18
CURVE_W, CURVE_H = 260, 80

_POS, _NEG, _MUTED = "#4c78a8", "#f58518", "color:#777;font-size:11px"
_LINES = ("#4c78a8", "#f58518", "#54a24b", "#b279a2", "#9d755d", "#72b7b2")
_LEFT = ' style="text-align:left"'
_TABLE = '<table cellpadding="2" style="border-collapse:collapse;margin:2px 0;font-size:inherit">'


class Row(NamedTuple):
    """One row of a ranking: a name, its value, its bounds and an optional trace."""

    name: str
    value: float
    low: float = math.nan
    high: float = math.nan
    trace: tuple[np.ndarray, np.ndarray] | None = None
    note: str = ""
    ref: float = math.nan


# ---------------------------------------------------------------------------------- text
def esc(text: Any) -> str:
    """``text`` as HTML-escaped text (quotes included).

    Parameters
    ----------
    text : object
        Anything; its ``str`` is escaped.

    Returns
    -------
    str
    """
    return html.escape(str(text), quote=True)


def num(value: Any) -> str:
    """A number in 4 significant digits (``nan``, ``inf``, ``-inf`` spelled out).

    Parameters
    ----------
    value : float-like

    Returns
    -------
    str

    Examples
    --------
    >>> num(1234.5678), num(float("nan")), num(-0.000123456)
    ('1235', 'nan', '-0.0001235')
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        return esc(value)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.4g}"


def card(title: str, parts: Sequence[str], meta: str = "") -> str:
    """One summary: a bold title, the body parts in order and a muted line of settings.

    Parameters
    ----------
    title : str
        Already-escaped HTML.
    parts : sequence of str
        Already-escaped HTML blocks.
    meta : str, default=""
        Already-escaped text of the muted line (omitted when empty).

    Returns
    -------
    str
    """
    head = f'<div style="font-weight:600;margin-bottom:2px">{title}</div>'
    tail = f'<div style="{_MUTED}">{meta}</div>' if meta else ""
    return ('<div class="ixplain-repr" style="font-size:12px;line-height:1.35;max-width:700px">'
            + head + "".join(parts) + tail + "</div>")


def sentence(text: str) -> str:
    """A paragraph of plain text (escaped)."""
    return f'<div style="margin:2px 0">{esc(text)}</div>'


def settings_line(settings: dict[str, Any] | None, *first: str, limit: int = 8) -> str:
    """``first`` then up to ``limit`` ``key=value`` pairs of ``settings`` (numbers in 4
    digits, sequences by their length, long texts cut), escaped, joined with `` · ``."""
    items = [f for f in first if f]
    for key, value in list((settings or {}).items())[:limit]:
        items.append(f"{key}={_setting(value)}")
    return esc(" · ".join(items))


def _setting(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return num(value)
    if isinstance(value, (list, tuple, np.ndarray)) and len(value) > 4:
        return f"<{len(value)} values>"
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _more(shown: int, total: int, what: str, where: str) -> str:
    if total <= shown:
        return ""
    return f'<div style="{_MUTED}">... and {total - shown} more {what} ({esc(where)}).</div>'


# ---------------------------------------------------------------------------------- SVG
def _finite(*arrays: Any) -> np.ndarray:
    flat = [np.asarray(a, dtype=np.float64).ravel() for a in arrays]
    allv = np.concatenate(flat) if flat else np.zeros(0)
    return allv[np.isfinite(allv)]


def domain(values: Any, lows: Any = (), highs: Any = ()) -> tuple[float, float]:
    """The bars' common scale: it holds 0, every finite value and the finite bounds, the bounds
    cut at three times the largest absolute value (whiskers beyond it are drawn to the edge).

    Returns
    -------
    (float, float)
        ``lo < hi``.
    """
    vals = _finite(values, [0.0])
    reach = 3 * float(np.abs(vals).max()) if vals.size else 1.0
    bounds = _finite(lows, highs)
    if reach > 0:
        bounds = np.clip(bounds, -reach, reach)
    allv = np.concatenate([vals, bounds])
    lo, hi = float(allv.min()), float(allv.max())
    return (lo, hi) if hi > lo else (lo - 0.5, lo + 0.5)


def _bx(v: float, dom: tuple[float, float]) -> float:
    return 1 + (min(max(v, dom[0]), dom[1]) - dom[0]) / (dom[1] - dom[0]) * (BAR_W - 2)


def bar_svg(row: Row, dom: tuple[float, float]) -> str:
    """The inline bar of one ranking row: a zero line, a bar from 0 to the value (``_POS`` to
    the right, ``_NEG`` to the left), a whisker over ``[low, high]`` (without an end tick
    where the scale cuts it) and a dark tick at ``ref`` (a value before)."""
    x0 = _bx(0.0, dom)
    out = [f'<svg width="{BAR_W}" height="{BAR_H}"><path d="M{x0:.1f} 0V{BAR_H}" '
           'stroke="#999" stroke-width=".6"/>']
    if math.isfinite(row.value):
        x = _bx(row.value, dom)
        a, b = min(x0, x), max(x0, x)
        out.append(f'<rect x="{a:.1f}" y="3" width="{max(b - a, .6):.1f}" height="6" '
                   f'fill="{_POS if row.value >= 0 else _NEG}"/>')
    if math.isfinite(row.ref):
        xr = _bx(row.ref, dom)
        out.append(f'<path d="M{xr:.1f} 1V{BAR_H - 1}" stroke="#333" stroke-width="1.2"/>')
    if not (math.isnan(row.low) or math.isnan(row.high)):
        xl, xh = _bx(row.low, dom), _bx(row.high, dom)
        ticks = "".join(f"M{x:.1f} 3.5V8.5" for x, v in ((xl, row.low), (xh, row.high))
                        if dom[0] <= v <= dom[1])
        out.append(f'<path d="M{xl:.1f} 6H{xh:.1f}{ticks}" stroke="#222" stroke-width=".8"/>')
    return "".join(out) + "</svg>"


def thin(y: np.ndarray, limit: int = MAX_POINTS) -> np.ndarray:
    """Indices of at most ``limit`` points of ``y``, in order: the first and the last, and the
    lowest and highest point of each of ``(limit - 2) // 2`` equal buckets (a dip lasting one
    snapshot is kept).

    Examples
    --------
    >>> thin(np.array([0.0, 5.0, 1.0, 2.0, -3.0, 1.0]), 4).tolist()
    [0, 1, 4, 5]
    """
    n = len(y)
    if n <= limit:
        return np.arange(n)
    keep: list[int] = []
    for chunk in np.array_split(np.arange(n), max((limit - 2) // 2, 1)):
        part = y[chunk]
        keep.extend(sorted({int(chunk[np.argmin(part)]), int(chunk[np.argmax(part)])}))
    return np.unique(np.array(keep + [0, n - 1]))


def _polyline(x: np.ndarray, y: np.ndarray, box: tuple[float, float, float, float],
              y_range: tuple[float, float], colour: str) -> str:
    left, top, width, height = box
    x0, x1 = float(x.min()), float(x.max())
    sx = (x - x0) / (x1 - x0) if x1 > x0 else np.full(len(x), 0.5)
    lo, hi = y_range
    sy = (y - lo) / (hi - lo) if hi > lo else np.full(len(y), 0.5)
    pts = " ".join(f"{left + a * width:.1f},{top + (1 - b) * height:.1f}" for a, b in zip(sx, sy))
    return f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.2"/>'


def sparkline_svg(x: Any, y: Any, marks: Sequence[float] = ()) -> str:
    """A ``SPARK_W`` x ``SPARK_H`` line of ``y`` over ``x`` (each on its own range, 1 px
    margin; at most :data:`MAX_POINTS` points, see :func:`thin`), a dashed zero line when 0
    is inside the range, a red tick at each of ``marks`` (stream rows, e.g. a detector's
    events) inside the range of ``x``, and a tooltip with the first, last, lowest and highest
    values. Non-finite points are left out; fewer than two finite points give an empty
    string."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(y) < 2:
        return ""
    idx = thin(y)
    lo, hi = float(y.min()), float(y.max())
    box = (1.0, 1.0, SPARK_W - 2.0, SPARK_H - 2.0)
    extra = ""
    if lo < 0 < hi:
        z = 1 + (1 - (0 - lo) / (hi - lo)) * (SPARK_H - 2)
        extra = f'<path d="M0 {z:.1f}H{SPARK_W}" stroke="#bbb" stroke-dasharray="2 2"/>'
    x0, x1 = float(x[0]), float(x[-1])
    ticks = "".join(f"M{1 + (m - x0) / (x1 - x0) * (SPARK_W - 2):.1f} 0V{SPARK_H}"
                    for m in marks if x1 > x0 and x0 <= m <= x1)
    if ticks:
        extra += f'<path d="{ticks}" stroke="#d62728" stroke-width="1"/>'
    tip = (f"row {x0:.0f}: {num(y[0])} ... row {x1:.0f}: {num(y[-1])} "
           f"(min {num(lo)}, max {num(hi)})")
    return (f'<svg width="{SPARK_W}" height="{SPARK_H}"><title>{tip}</title>{extra}'
            + _polyline(x[idx], y[idx], box, (lo, hi), _POS) + "</svg>")


# ---------------------------------------------------------------------------------- tables
def ranking(rows: Sequence[Row], *, bound: str = "", trace: bool = False,
            where: str = "to_frame()", order: bool = True, value: str = "value",
            limit: int = MAX_ROWS, label: str = "feature") -> str:
    """A ranking table: name, bar, value, bounds (``bound`` names them) and, with ``trace``,
    a sparkline per row.

    Parameters
    ----------
    rows : sequence of Row
    bound : str, default=""
        Header of the bounds column (no column when empty).
    trace : bool, default=False
        Add the sparkline column.
    where : str, default="to_frame()"
        Where the rows beyond ``limit`` are (named in the note).
    order : bool, default=True
        Sort by value, largest first (NaN last); False keeps the given order.
    value : str, default="value"
        Header of the value column.
    limit : int, default=MAX_ROWS
        Rows shown at most.
    label : str, default="feature"
        Header of the name column.

    Returns
    -------
    str
    """
    if order:
        rows = sorted(rows, key=lambda r: -r.value if math.isfinite(r.value) else math.inf)
    shown = list(rows[:limit])
    dom = domain([r.value for r in shown] + [r.ref for r in shown],
                 [r.low for r in shown], [r.high for r in shown])
    head = f"<tr><th{_LEFT}>{esc(label)}</th><th></th><th>{esc(value)}</th>"
    head += f"<th>{esc(bound)}</th>" if bound else ""
    head += "<th>trace</th>" if trace else ""
    body = []
    for r in shown:
        cells = [f"<td{_LEFT}>{esc(r.name)}</td><td>{bar_svg(r, dom)}</td>"
                 f"<td>{r.note or num(r.value)}</td>"]
        if bound:
            cells.append(f"<td>[{num(r.low)}, {num(r.high)}]</td>")
        if trace:
            cells.append("<td>" + (sparkline_svg(*r.trace) if r.trace else "") + "</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (_TABLE + head + "</tr>" + "".join(body) + "</table>"
            + _more(len(shown), len(rows), "rows", where))


def plain_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A table of already-escaped cells; the first ``left`` columns aligned left."""
    def tr(cells: Sequence[str], tag: str) -> str:
        return "<tr>" + "".join(
            f"<{tag}{_LEFT if i < left else ''}>{c}</{tag}>" for i, c in enumerate(cells)) + "</tr>"

    return _TABLE + tr(header, "th") + "".join(tr(r, "td") for r in rows) + "</table>"


# ---------------------------------------------------------------------------------- curves
def _axis(values: Any) -> np.ndarray | None:
    """Grid values as floats (datetimes as their integer time), or None when they are not
    numbers (levels)."""
    arr = np.asarray(values)
    if arr.dtype.kind in "Mm":
        return arr.astype("int64").astype(np.float64)
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def curve_svg(x: np.ndarray, ys: np.ndarray, low: np.ndarray | None = None,
              high: np.ndarray | None = None) -> str:
    """Up to six curves ``ys`` (shape (n_curves, n)) over ``x`` in a ``CURVE_W`` x ``CURVE_H``
    chart, with a shaded band ``[low, high]`` (same shape) where given; on one common range."""
    ys = np.asarray(ys, dtype=np.float64)[: len(_LINES)]
    rng = _finite(ys, [] if low is None else low[: len(ys)], [] if high is None else
                  high[: len(ys)])
    if rng.size == 0:
        return ""
    lo, hi = float(rng.min()), float(rng.max())
    box = (2.0, 2.0, CURVE_W - 4.0, CURVE_H - 4.0)
    parts = []
    for k, y in enumerate(ys):
        ok = np.isfinite(x) & np.isfinite(y)
        if low is not None and high is not None:
            parts.append(_band(x, low[k], high[k], ok, box, (lo, hi), _LINES[k]))
        if ok.sum() >= 2:
            parts.append(_polyline(x[ok], y[ok], box, (lo, hi), _LINES[k]))
        elif ok.sum() == 1:  # one grid point: a dot in the middle
            parts.append(f'<circle cx="{CURVE_W / 2}" cy="{CURVE_H / 2}" r="2.5" '
                         f'fill="{_LINES[k]}"/>')
    return (f'<svg width="{CURVE_W}" height="{CURVE_H}" style="border:1px solid #ddd">'
            + "".join(parts) + "</svg>")


def _band(x: np.ndarray, low: np.ndarray, high: np.ndarray, ok: np.ndarray,
          box: tuple[float, float, float, float], y_range: tuple[float, float],
          colour: str) -> str:
    ok = ok & np.isfinite(low) & np.isfinite(high)
    if ok.sum() < 2:
        return ""
    lo, hi = y_range
    xs = np.concatenate([x[ok], x[ok][::-1]])
    ys = np.clip(np.concatenate([high[ok], low[ok][::-1]]), lo, hi)
    line = _polyline(xs, ys, box, y_range, "none")
    pts = line.split('points="')[1].split('"')[0]
    return f'<polygon points="{pts}" fill="{colour}" fill-opacity=".18"/>'


def guarded(render: Callable[[Any], str], obj: Any) -> str:
    """``render(obj)``, or when it raises, a card that says so in one line (a notebook's repr
    must not raise)."""
    try:
        return render(obj)
    except Exception as exc:
        return card(esc(type(obj).__name__), [sentence(
            f"(no summary: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        )])
