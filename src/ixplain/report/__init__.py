"""The report: its first-screen sentences (:func:`summarize_stream`, :func:`summarize_static`).

(Minimal module of the ``rcontent`` branch; the ``rpage`` branch adds ``render_page``.)
"""

from ._summary import summarize_static, summarize_stream

__all__ = ["summarize_static", "summarize_stream"]
