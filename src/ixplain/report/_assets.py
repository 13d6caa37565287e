"""What the page inlines: plotly.js from the ``plotly`` package, the page's own script and style,
and the colours the charts use.

Nothing here is fetched: plotly.js is read from the installed ``plotly`` package's
``package_data/plotly.min.js`` and the page's ``page.js``/``page.css`` ship as package data of
``ixplain.report``.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

__all__ = ["BAND_TOP", "MARKER_COLOURS", "PALETTE", "page_css", "page_js", "plotly_js"]

#: Colours of the timeline's marks: a known change, an incident and a model update.
MARKER_COLOURS = {"known": "#7f7f7f", "incident": "#d62728", "model_update": "#9ecae1"}

#: Feature colours, in legend order; none is a marker colour or close to one (no red, grey or
#: light blue), so a feature's line is never read as a mark.
PALETTE = (
    "#1f5fa8", "#e08a00", "#2a9d3f", "#7b3fa0", "#8c5a2b", "#e377c2",
    "#9aa000", "#00a0a0", "#3c3c8c", "#b07d00", "#5e8c31", "#a64d79",
)

#: Uncertainty bands are drawn for the first (most important) this many series of a chart.
BAND_TOP = 5

_SCRIPT_END = re.compile(r"</(script)", re.IGNORECASE)


def inline_script(source: str) -> str:
    """``source`` made safe to place between ``<script>`` tags, naming no web address.

    Three slashes are escaped: ``</script`` becomes ``<\\/script`` (``<!--`` becomes
    ``<\\!--``), the ``//`` after ``http:``/``https:`` becomes ``\\/\\/`` and
    ``data:image/`` becomes ``data:image\\/``. In a JavaScript string, template, regular
    expression or comment -- the only places these can occur in a script -- ``\\/`` is ``/``
    (and in a string or comment ``\\!`` is ``!``), so the code is unchanged while the page holds no closing tag, no
    web address and no ``data:`` image but its own.

    Examples
    --------
    >>> inline_script('a = "http://x</script>";')
    'a = "http:\\\\/\\\\/x<\\\\/script>";'
    """
    source = _SCRIPT_END.sub(r"<\\/\1", source).replace("<!--", "<\\!--")
    source = source.replace("data:image/", "data:image\\/")
    return re.sub(r"(https?):(?=//)//", r"\1:\\/\\/", source)


@functools.cache
def plotly_js() -> str:
    """The text of plotly.min.js from the installed ``plotly`` package, ready to inline.

    Raises
    ------
    ImportError
        If the ``plotly`` package (>= 5.18) is not installed.
    """
    try:
        path = resources.files("plotly") / "package_data" / "plotly.min.js"
        text = path.read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise ImportError(
            "The interactive report needs plotly.js from the 'plotly' package: "
            "pip install 'ixplain[cli]' (or pip install 'plotly>=5.18')."
        ) from exc
    return inline_script(text)


@functools.cache
def page_js() -> str:
    """The page's own script (``ixplain/report/page.js``), ready to inline."""
    return inline_script(resources.files("ixplain.report").joinpath("page.js").read_text(encoding="utf-8"))


@functools.cache
def page_css() -> str:
    """The page's style sheet (``ixplain/report/page.css``)."""
    return resources.files("ixplain.report").joinpath("page.css").read_text(encoding="utf-8")
