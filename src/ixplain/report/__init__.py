"""The report page: a payload of results (contract A) drawn as one self-contained HTML file.

:func:`render_page` turns a payload -- title, summary sentences, the headline chart, the final
ranking, other charts, incidents, tables, settings, PNGs -- into an interactive page whose charts
are drawn by plotly.js, inlined from the ``plotly`` package (nothing is loaded from the network).
:func:`example_payload` shows the format; :func:`prepare_payload` checks one;
:func:`write_live_data` writes the ``data.json`` a live page (``render_page(..., live=True)``)
polls. :func:`summarize_stream` and :func:`summarize_static` write the first screen's sentences
from the results.
"""

from ._example import example_payload
from ._page import render_page, write_live_data
from ._payload import MAX_POINTS, prepare_payload, thin_indices
from ._summary import summarize_static, summarize_stream

__all__ = ["MAX_POINTS", "example_payload", "prepare_payload", "render_page",
           "summarize_static", "summarize_stream", "thin_indices", "write_live_data"]
