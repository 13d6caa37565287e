"""A self-contained HTML report: settings, tables of values and the plots embedded as base64.

The page loads nothing from the network (no scripts, fonts or style sheets from elsewhere) and
every piece of text that comes from the user's data -- feature names, column names, values, file
names -- goes through :func:`html.escape`, so a column named ``<script>alert(1)</script>`` is
shown as text and never runs.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Report", "render_report"]

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 980px; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 1.6em;
     border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: 0.5em 0.8em; }
.muted { color: #666; font-size: 0.85em; }
"""


def _esc(value: Any) -> str:
    return html.escape(_fmt(value), quote=True)


def _fmt(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not np.isfinite(v):
            return "nan" if np.isnan(v) else str(v)
        return f"{v:.4g}"
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


@dataclass
class Report:
    """The content of a report; :func:`render_report` turns it into one HTML string.

    Attributes
    ----------
    title : str
    settings : list of (str, object)
        Shown as a two-column table ("Settings and run").
    tables : list of (caption, column names, rows)
        Tables of values (final importances, data sample).
    images : list of (caption, path to a PNG)
        Embedded as ``data:image/png;base64`` URIs.
    notes : list of str
        Highlighted remarks (interrupted run, skipped methods).
    files : list of str
        The output files, listed at the end.
    """

    title: str
    settings: list[tuple[str, Any]] = field(default_factory=list)
    tables: list[tuple[str, Any, Any]] = field(default_factory=list)
    images: list[tuple[str, Path]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def _table(columns: Sequence[Any], rows: Iterable[Sequence[Any]]) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="num">{_esc(v)}</td>' if _is_number(v) else f"<td>{_esc(v)}</td>"
            for v in row
        )
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _image(caption: str, path: Path) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{_esc(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_esc(caption)}</figcaption></figure>"
    )


def render_report(report: Report) -> str:
    """The report as one self-contained HTML document (a string).

    Examples
    --------
    >>> page = render_report(Report("run", settings=[("feature", "<script>alert(1)</script>")]))
    >>> "<script>" in page, "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    (False, True)
    """
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # No network: the only resources are the inline style and data: images.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "img-src data:; style-src 'unsafe-inline'\">",
        f"<title>{_esc(report.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_esc(report.title)}</h1>",
    ]
    for note in report.notes:
        parts.append(f'<p class="note">{_esc(note)}</p>')
    if report.settings:
        parts.append("<h2>Settings and run</h2>")
        parts.append(_table(["setting", "value"], report.settings))
    for caption, columns, rows in report.tables:
        parts.append(f"<h2>{_esc(caption)}</h2>")
        parts.append(_table(columns, rows))
    if report.images:
        parts.append("<h2>Plots</h2>")
        for caption, path in report.images:
            parts.append(_image(caption, path))
    if report.files:
        parts.append("<h2>Files</h2><ul>")
        parts.extend(f"<li><code>{_esc(f)}</code></li>" for f in report.files)
        parts.append("</ul>")
    parts.append('<p class="muted">Written by ixplain.</p></body></html>')
    return "\n".join(parts)
