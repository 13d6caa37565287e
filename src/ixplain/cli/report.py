"""The CLI's report: a :class:`Report` of settings, tables, PNGs and notes, drawn by the report page.

:func:`render_report` turns a :class:`Report` into a payload of :mod:`ixplain.report` and renders
it with :func:`ixplain.report.render_page`, the one page renderer: the page loads nothing from the
network (its script and style are inline, its images ``data:`` URIs) and every piece of text that
comes from the user's data -- feature names, column names, values, file names -- is escaped, so a
column named ``<script>alert(1)</script>`` is shown as text and never runs.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..report import render_page

__all__ = ["Report", "render_report"]


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


def _rows(rows: Iterable[Sequence[Any]]) -> list[list[Any]]:
    return [list(row) for row in rows]


def report_payload(report: Report) -> dict[str, Any]:
    """The :class:`Report` as a report payload (contract A of :mod:`ixplain.report`).

    Parameters
    ----------
    report : Report

    Returns
    -------
    dict
        ``title``, ``notes``, ``settings``, ``tables``, ``images`` (the PNG files read and
        base64-encoded) and ``files``.
    """
    return {
        "title": report.title,
        "notes": [str(n) for n in report.notes],
        "settings": [[str(k), v] for k, v in report.settings],
        "tables": [{"title": str(caption), "columns": [str(c) for c in columns], "rows": _rows(rows)}
                   for caption, columns, rows in report.tables],
        "images": [{"caption": str(caption),
                    "png_base64": base64.b64encode(Path(path).read_bytes()).decode("ascii")}
                   for caption, path in report.images],
        "files": [str(f) for f in report.files],
    }


def render_report(report: Report) -> str:
    """The report as one self-contained HTML document (a string).

    Examples
    --------
    >>> page = render_report(Report("run", settings=[("feature", "<script>alert(1)</script>")]))
    >>> "<script>alert(1)" in page, "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    (False, True)
    """
    return render_page(report_payload(report))
