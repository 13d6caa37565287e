"""Compact HTML summaries for notebooks: the ``_repr_html_`` of results, explainers and detectors.

One card per object: a title, the ranking as a table with inline bars (negative values drawn
to the left of a zero line, in another colour) and the bounds as numbers and whiskers, the
trace of a stream explainer as a small sparkline per feature, curves (PD, ALE) as one small
chart, and the shapes and settings in one muted line. Plain HTML with inline SVG and inline
styles: no script (a notebook that is not trusted shows it all the same), nothing loaded from
the network, and every text that comes from the user's data escaped (:func:`html.escape`).
Objects that hold nothing yet (an explainer before its first row, a detector without events,
NaN values) render a sentence; a renderer that fails renders the error in one line instead
of raising (:func:`render`).

The package imports nothing else from ixplain (it reads the objects by their attributes), so
the results, the explainers and the drift detector all use it without an import cycle; they
import it when a notebook asks for the summary.

Examples
--------
>>> import numpy as np
>>> from ixplain.results import FeatureImportance
>>> r = FeatureImportance.from_importances(np.array([[0.5], [2.0], [-0.1]]), ["a", "<b>", "c"])
>>> page = r._repr_html_()
>>> page.index("&lt;b&gt;") < page.index(">a<") < page.index(">c<")
True
>>> "<script" in page
False
"""

from __future__ import annotations

from typing import Any

from ._blocks import guarded
from ._change import change_html
from ._results import (
    curve_html,
    drift_explanation_html,
    hstatistic_html,
    importance_html,
    importance_series_html,
    interaction_series_html,
    interactions_html,
)
from ._stream import detector_html, explainer_html

__all__ = ["render"]

_VIEWS = {
    "importance": importance_html,
    "importance_series": importance_series_html,
    "interactions": interactions_html,
    "interaction_series": interaction_series_html,
    "hstatistic": hstatistic_html,
    "curve": curve_html,
    "drift_explanation": drift_explanation_html,
    "explainer": explainer_html,
    "detector": detector_html,
    "change": change_html,
}


def render(view: str, obj: Any) -> str:
    """The HTML summary of ``obj`` by the named view; never raises for the object's state (a
    failure becomes a one-line card).

    Parameters
    ----------
    view : {"importance", "importance_series", "interactions", "interaction_series", \
"hstatistic", "curve", "drift_explanation", "explainer", "detector", "change"}
        Which summary.
    obj : object
        The result, explainer or detector.

    Returns
    -------
    str
        An HTML fragment (a ``<div>``).

    Raises
    ------
    KeyError
        If ``view`` is not one of the names above (a programming error, not a state).
    """
    return guarded(_VIEWS[view], obj)
