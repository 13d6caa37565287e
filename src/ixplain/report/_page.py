"""The report page: one self-contained HTML document drawn from a payload (contract A).

The server side (this module) writes the text parts -- title, summary, notes, settings, tables,
static PNGs, files -- through :func:`html.escape`; the charts, the ranking and the incidents are
drawn in the browser by the page's script from the payload, embedded as JSON in a
``<script type="application/json">`` element with ``<``, ``>`` and ``&`` written as ``\\u003c``,
``\\u003e`` and ``\\u0026`` (so no string of the data can close the element), and shown with
``textContent`` only.
"""

from __future__ import annotations

import html
import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import _assets
from ._payload import MAX_POINTS, prepare_payload

__all__ = ["render_page", "write_live_data"]

#: The payload's keys the page's script draws (the rest is written here, as HTML).
_DRAWN = ("title", "subtitle", "status", "summary", "ranking", "headline", "charts", "incidents",
          "refresh_seconds")


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            return "nan" if math.isnan(value) else str(value)
        return f"{value:.4g}"
    if value is None:
        return ""
    return str(value)


def _esc(value: Any) -> str:
    return html.escape(_fmt(value), quote=True)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def embed_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script type="application/json">`` element.

    Examples
    --------
    >>> embed_json({"name": "</script><b>&"})
    '{"name": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                       ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, code)
    return text


def _table(columns: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="num">{_esc(v)}</td>' if _is_number(v) else f"<td>{_esc(v)}</td>"
            for v in row
        )
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _details(summary: str, body: str, *, open_: bool = False) -> str:
    return (f"<details{' open' if open_ else ''}><summary>{_esc(summary)}</summary>"
            f'<div class="details-body">{body}</div></details>')


def _below(page: Mapping[str, Any], open_: bool) -> list[str]:
    """Settings, tables, static PNGs and files, each behind a disclosure."""
    parts = []
    if page["settings"]:
        parts.append(_details("Settings and run", _table(["setting", "value"], page["settings"]),
                              open_=open_))
    for table in page["tables"]:
        parts.append(_details(table["title"], _table(table["columns"], table["rows"]), open_=open_))
    if page["images"]:
        figures = "".join(
            f'<figure><img alt="{_esc(im["caption"])}" src="data:image/png;base64,{im["png_base64"]}">'
            f"<figcaption>{_esc(im['caption'])}</figcaption></figure>"
            for im in page["images"]
        )
        parts.append(_details(f"Static plots ({len(page['images'])} PNG)", figures, open_=open_))
    if page["files"]:
        items = "".join(f"<li><code>{_esc(f)}</code></li>" for f in page["files"])
        parts.append(_details(f"Files ({len(page['files'])})", f"<ul>{items}</ul>", open_=open_))
    return parts


def _csp(live: bool) -> str:
    policy = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
              "img-src data:")
    if live:
        policy += "; connect-src 'self'"
    return policy


def _head(page: Mapping[str, Any], live: bool) -> list[str]:
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Nothing from outside the file: inline script and style, data: images, and in live
        # mode requests to the page's own origin (data.json).
        f'<meta http-equiv="Content-Security-Policy" content="{_csp(live)}">',
        f"<title>{_esc(page['title'])}</title><style>{_assets.page_css()}</style></head>",
        f'<body class="{"live" if live else "static"}">',
    ]


def _top(page: Mapping[str, Any]) -> list[str]:
    subtitle = page["subtitle"] or ""
    summary = "".join(f"<p>{_esc(s)}</p>" for s in page["summary"])
    notes = "".join(f'<p class="note">{_esc(n)}</p>' for n in page["notes"])
    return [
        '<header><h1 id="title">' + _esc(page["title"]) + "</h1>",
        f'<p id="subtitle" class="muted"{"" if subtitle else " hidden"}>{_esc(subtitle)}</p>',
        '<p id="status" class="status" hidden></p></header>',
        f'<section id="summary" class="summary">{summary}</section>',
        f'<div id="notes">{notes}</div>',
        '<noscript><p class="note">The charts need JavaScript; the tables below hold the values.'
        "</p></noscript>",
        '<main id="first" class="first"><div id="headline" class="chart headline" hidden></div>'
        '<div id="ranking" class="chart ranking" hidden></div></main>',
        '<section id="incidents" hidden><h2 id="incidents-title">Incidents</h2>'
        '<ol id="incident-list" class="incident-list"></ol>'
        '<div id="incident-panel" class="incident-panel" hidden></div></section>',
        '<section id="charts" class="charts"></section>',
    ]


def render_page(payload: Mapping[str, Any], *, live: bool = False) -> str:
    """The report as one self-contained, interactive HTML document (a string).

    The first screen holds the title, the summary sentences, the headline chart (importances
    over the stream with their bands and the timeline's marks) and the final ranking (bars with
    bounds); clicking an incident (its mark or its entry in the list) opens its before/after
    ranking and curves. The other charts follow; settings, tables, static PNGs and files are
    behind disclosures. Charts are drawn with plotly.js, inlined from the ``plotly`` package.

    Parameters
    ----------
    payload : dict
        The report payload (contract A): ``title`` (required), ``subtitle``, ``status``
        (``{"state": "running"|"finished"|"interrupted", "rows_seen", "rows_total"}``),
        ``summary`` (sentences), ``ranking`` (``title``, ``unit``, ``features``, ``values``,
        ``lower``, ``upper``, optional ``caption`` under its chart), ``headline`` (a chart
        id), ``charts`` (kinds ``"traces"``, ``"curves"``, ``"bars"``), ``incidents``, ``tables``, ``settings``, ``images``
        (``png_base64``), ``notes``, ``files`` and ``refresh_seconds`` (default 3). See
        :func:`ixplain.report.example_payload` for a complete one. Series longer than 2000
        points are thinned (first and last kept; the chart's caption says so). The curves of an
        incident's feature are the series of ``"curves"`` charts whose ``group`` (or, without
        one, ``name``) is the feature's name.
    live : bool, default=False
        Poll ``data.json`` (same origin, written with :func:`write_live_data`) every
        ``refresh_seconds`` and redraw; stop when the status is finished or interrupted.

    Returns
    -------
    str
        The HTML document. It loads nothing from outside the file: the Content-Security-Policy
        allows inline script and style, ``data:`` images and, in live mode only, requests to the
        page's own origin.

    Raises
    ------
    TypeError, ValueError
        If the payload is malformed; the message names the key (see
        :func:`ixplain.report.prepare_payload`).
    ImportError
        If the ``plotly`` package is not installed and the page has something to draw (a
        ranking, charts or incidents) or is live. A page of text, tables and PNGs only does
        not inline plotly.js.

    Examples
    --------
    >>> page = render_page({"title": "run", "summary": ["<script>alert(1)</script> leads."]})
    >>> "<script>alert(1)" in page, "&lt;script&gt;alert(1)&lt;/script&gt; leads." in page
    (False, True)
    """
    page = prepare_payload(payload)
    first_screen = page["ranking"] is not None or bool(page["charts"])
    # plotly.js (4.8 MB) only when there is something to draw, or may be (a live page)
    charts = live or first_screen or bool(page["incidents"])
    config = {"live": bool(live), "palette": list(_assets.PALETTE), "markers": _assets.MARKER_COLOURS,
              "band_top": _assets.BAND_TOP, "max_points": MAX_POINTS}
    parts = [*_head(page, live), *_top(page), *_below(page, open_=not first_screen)]
    parts += [
        '<p class="muted footer">Written by ixplain.</p>',
        '<script type="application/json" id="ixplain-payload">'
        + embed_json({k: page[k] for k in _DRAWN}) + "</script>",
        '<script type="application/json" id="ixplain-config">' + embed_json(config) + "</script>",
        f"<script>{_assets.plotly_js()}</script>" if charts else "",
        f"<script>{_assets.page_js()}</script>",
        "</body></html>",
    ]
    return "\n".join(parts)


def write_live_data(payload: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write the payload as the ``data.json`` a live page polls (checked, thinned, atomic).

    Parameters
    ----------
    payload : dict
        The report payload (see :func:`render_page`).
    path : str or path-like
        The file to write, normally ``data.json`` next to the live page. It is replaced in one
        step (written to a temporary file in the same folder, then renamed), so the page never
        reads half a file.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    TypeError, ValueError
        If the payload is malformed (see :func:`ixplain.report.prepare_payload`).
    """
    page = prepare_payload(payload)
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=".data-", suffix=".json", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({k: page[k] for k in _DRAWN}, handle, ensure_ascii=False, allow_nan=False)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
