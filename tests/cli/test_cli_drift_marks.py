"""``ixplain stream``'s figures: the explanation drift events are marked on the importance
traces (QA qa13: they appeared only in drift_events.png), each in its feature's colour, and a
feature has one colour in both figures (drift_events.png marks incidents instead of events:
tests/cli/test_cli_incidents.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from ixplain.drift import Incident, IncidentFeature

pytest.importorskip("matplotlib")

NAMES = ["salary", "commission", "age", "elevel", "car", "zipcode", "hvalue", "hyears", "loan",
         "tiny"]


def _trace():
    rows = np.arange(100, 2100, 100)
    rng = np.random.default_rng(0)
    values = np.abs(rng.normal(size=(len(rows), len(NAMES)))) * np.arange(len(NAMES), 0, -1)
    values[:, NAMES.index("tiny")] = 0.0  # never among the top features
    return SimpleNamespace(rows=list(rows), values=list(values),
                           bounds=list(np.full_like(values, 0.1)))


EVENTS = [SimpleNamespace(row=700, feature="tiny", channel="data"),
          SimpleNamespace(row=1500, feature="age", channel="model")]


def _capture(monkeypatch):
    from matplotlib.figure import Figure

    figures = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: figures.append(fig))
    return figures


def _colours_by_label(ax):
    from matplotlib.colors import to_hex

    return {line.get_label(): to_hex(line.get_color()) for line in ax.get_lines()
            if not line.get_label().startswith("_") and len(line.get_xdata()) > 1}


def _event_marks(ax):
    """(row, colour) of the vertical dash-dot lines and of the markers on the traces."""
    from matplotlib.colors import to_hex

    lines = {(float(ln.get_xdata()[0]), to_hex(ln.get_color())) for ln in ax.get_lines()
             if ln.get_linestyle() == "-." and len(ln.get_xdata()) == 2}
    markers = {(float(ln.get_xdata()[0]), to_hex(ln.get_color())) for ln in ax.get_lines()
               if ln.get_marker() in ("v", "s") and len(ln.get_xdata()) == 1}
    return lines, markers


def test_events_are_marked_on_the_importance_traces_in_their_feature_colour(tmp_path,
                                                                             monkeypatch):
    from matplotlib.colors import to_hex

    from ixplain.cli import _drift, _plots

    figures = _capture(monkeypatch)
    trace = _trace()
    _plots.plot_importance_traces(tmp_path / "t.png", {"pfi": trace}, NAMES,
                                  known_drift=[1000], detected_drift=[1200],
                                  events={"pfi": EVENTS})
    run = SimpleNamespace(explainers=SimpleNamespace(traces={"pfi": trace}), feature_names=NAMES,
                          known_drift_seen=[1000], detected_drift=[1200], losses={})
    ax_events = figures[0].axes[0]
    det = SimpleNamespace(events_=EVENTS)
    # drift_events.png draws the features of its incidents (marked in red, not per event)
    incidents = [Incident(1, "incident", "data", 601, 701, 800, "", (IncidentFeature(
        "tiny", 0.0, 0.0, 0.0),), (0,)), Incident(2, "incident", "model", 1001, 1501, 1501, "",
        (IncidentFeature("age", 1.0, 2.0, 1.0),), (1,))]
    fig, axes = _plots._figure(1)
    _drift._draw_events(axes[0], run, "pfi", det, incidents)
    palette = [to_hex(c) for c in _plots.feature_colors(len(NAMES))]
    want = {(700.0, palette[NAMES.index("tiny")]), (1500.0, palette[NAMES.index("age")])}
    lines, markers = _event_marks(ax_events)
    assert lines == want and markers == want
    for ax in (ax_events, axes[0]):
        colours = _colours_by_label(ax)
        assert colours["tiny"] == palette[NAMES.index("tiny")]  # drawn although not in the top
        assert colours["age"] == palette[NAMES.index("age")]
    shared = set(_colours_by_label(ax_events)) & set(_colours_by_label(axes[0])) & set(NAMES)
    assert {"tiny", "age", "salary"} <= shared
    for name in shared:  # one colour per feature in both figures
        assert _colours_by_label(ax_events)[name] == _colours_by_label(axes[0])[name]
    legend = [t.get_text() for t in ax_events.get_legend().get_texts()]
    assert "explanation drift (data channel)" in legend
    assert "explanation drift (model channel)" in legend
    assert "detected change (ADWIN)" in legend  # the error's detections stay distinct


def test_no_events_no_marks(tmp_path, monkeypatch):
    from ixplain.cli import _plots

    figures = _capture(monkeypatch)
    _plots.plot_importance_traces(tmp_path / "t.png", {"pfi": _trace()}, NAMES)
    assert _event_marks(figures[0].axes[0]) == (set(), set())
