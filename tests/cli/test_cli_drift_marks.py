"""``ixplain stream``'s figures: ``importance_traces.png`` marks the run's drift incidents
(red, shaded from start to detection, numbered as in the incidents table) and model updates
(light blue) like ``drift_events.png``, not one mark per raw explanation drift event, keeps the
known change points, and a feature has one colour in both figures."""

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


#: Two incidents (tiny, then age, moved) and a model update (hvalue), as the detector makes them.
INCIDENTS = [Incident(1, "incident", "data", 601, 701, 800, "",
                      (IncidentFeature("tiny", 0.0, 0.5, 0.5),), (0,)),
             Incident(2, "incident", "model", 1001, 1501, 1600, "",
                      (IncidentFeature("age", 1.0, 2.0, 1.0),), (1,)),
             Incident(3, "model_update", "model", 1701, 1801, 1801, "",
                      (IncidentFeature("hvalue", 1.0, 1.5, 0.5),), (2,))]


def _capture(monkeypatch):
    from matplotlib.figure import Figure

    figures = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: figures.append(fig))
    return figures


def _colours_by_label(ax):
    from matplotlib.colors import to_hex

    return {line.get_label(): to_hex(line.get_color()) for line in ax.get_lines()
            if not line.get_label().startswith("_") and len(line.get_xdata()) > 1}


def _vlines(ax):
    """(row, colour) of the vertical lines drawn with ``axvline``."""
    from matplotlib.colors import to_hex

    return {(float(ln.get_xdata()[0]), to_hex(ln.get_color())) for ln in ax.get_lines()
            if len(ln.get_xdata()) == 2 and ln.get_xdata()[0] == ln.get_xdata()[1]}


def _run(trace):
    from ixplain.cli._stream_run import StreamRun

    det = SimpleNamespace(events_=[object()] * 3, incidents=lambda given=None: INCIDENTS)
    run = SimpleNamespace(explainers=SimpleNamespace(traces={"pfi": trace}, drift={"pfi": det}),
                          feature_names=NAMES, known_drift_seen=[1000], detected_drift=[1200],
                          losses={"pfi": "squared_error"})
    run.incidents = StreamRun.incidents.fget(run)
    return run


def test_importance_traces_mark_the_runs_incidents_not_its_events(tmp_path, monkeypatch):
    from matplotlib.colors import to_hex

    from ixplain.cli import _drift, _plots, _stream_methods

    figures = _capture(monkeypatch)
    run = _run(_trace())
    (caption, _), _ = _stream_methods._plot_importances(run, tmp_path)
    ax = figures[0].axes[0]
    red, light = _plots.MARKER_COLORS["incident"], _plots.MARKER_COLORS["model update"]
    lines = _vlines(ax)
    assert {(701.0, red), (1501.0, red), (1801.0, light)} <= lines
    assert (1000.0, to_hex("0.15")) in lines  # the known change point stays, dark grey
    assert not [ln for ln in ax.get_lines() if ln.get_linestyle() == "-."]  # no event lines
    assert not [ln for ln in ax.get_lines() if ln.get_marker() in ("v", "s")]
    spans = [p for p in ax.patches if to_hex(p.get_facecolor()) == red]
    assert sorted(tuple(p.get_x() for p in spans)) == [601.0, 1001.0]
    assert [t.get_text() for t in ax.texts] == ["1", "2"]  # numbered as in the table
    dots = [list(ln.get_ydata()) for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert dots == [[0.0, 0.5], [1.0, 2.0]]  # each incident's top feature: before, after
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"incident (start to detection)", "model update (the model learned)",
            "known change point", "detected change (ADWIN)"} <= set(legend)
    # the same marks, at the same rows, as drift_events.png
    fig, axes = _plots._figure(1)
    _drift._draw_events(axes[0], run, "pfi", run.explainers.drift["pfi"])
    assert {v for v in _vlines(axes[0]) if v[1] in (red, light)} == {
        v for v in lines if v[1] in (red, light)}
    # the caption says what is drawn: bands for the strongest three only, incidents in red
    assert "with 95% confidence bands;" not in caption
    assert f"bands of the {_plots._MAX_BANDS} strongest" in caption
    assert "red: drift incidents" in caption and "light blue lines: model updates" in caption


def test_an_incidents_features_have_one_colour_in_both_figures(tmp_path, monkeypatch):
    from matplotlib.colors import to_hex

    from ixplain.cli import _drift, _plots

    figures = _capture(monkeypatch)
    trace = _trace()
    run = _run(trace)
    _plots.plot_importance_traces(tmp_path / "t.png", {"pfi": trace}, NAMES,
                                  known_drift=[1000], detected_drift=[1200],
                                  incidents={"pfi": run.incidents})
    ax_traces = figures[0].axes[0]
    fig, axes = _plots._figure(1)
    _drift._draw_events(axes[0], run, "pfi", run.explainers.drift["pfi"], INCIDENTS)
    palette = [to_hex(c) for c in _plots.feature_colors(len(NAMES))]
    for ax in (ax_traces, axes[0]):
        colours = _colours_by_label(ax)
        assert colours["tiny"] == palette[NAMES.index("tiny")]  # drawn although not in the top
        assert colours["age"] == palette[NAMES.index("age")]
    shared = set(_colours_by_label(ax_traces)) & set(_colours_by_label(axes[0])) & set(NAMES)
    assert {"tiny", "age", "salary"} <= shared
    for name in shared:  # one colour per feature in both figures
        assert _colours_by_label(ax_traces)[name] == _colours_by_label(axes[0])[name]


def test_no_incidents_no_marks(tmp_path, monkeypatch):
    from ixplain.cli import _plots

    figures = _capture(monkeypatch)
    _plots.plot_importance_traces(tmp_path / "t.png", {"pfi": _trace()}, NAMES)
    ax = figures[0].axes[0]
    assert _vlines(ax) == set() and not ax.patches and not ax.texts
