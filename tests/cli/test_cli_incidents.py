"""``ixplain stream`` shows drift incidents, not alarms (issue 29, item 5): ``run.incidents``
(contract B dicts), ``incidents.csv``/``.json`` next to the events files, the incidents table
before the events table (whose test column reads in words), and ``drift_events.png`` marks
incidents in red and model updates in light blue instead of one mark per event."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from ixplain.drift import DriftEvent, Incident, IncidentFeature

pytest.importorskip("matplotlib")

NAMES = ["hour", "temp", "holiday"]
LOSS_TEST = "CUSUM(loss, level=0.000154) + mixture sequence (level=0.00417)"


def _event(row, start, feature, channel, test):
    return DriftEvent(row, start, feature, channel, test, 1.0, 0.9, 1.1, 2.0, 1.9, 2.1, 100, 50,
                      "increase", 5.0)


EVENTS = [_event(1299, 1000, "temp", "data", LOSS_TEST),
          _event(3999, 3000, "hour", "model", "paired z (level=0.000167, min_change=0.1)"),
          _event(3499, 3400, "holiday", "data", "CUSUM(level=0.000154)")]


def _run(tmp_path=None):
    """A run whose detector has a loss change (temp named), a scheduled model check (hour,
    whose plotted importance rises after the incident's window) and a weak feature's own event (holiday, invisible on the plot: left out)."""
    from ixplain.cli._stream_run import StreamRun

    rows = list(range(100, 5100, 100))
    values = np.tile([50.0, 10.0, 1.0], (len(rows), 1))
    values[np.array(rows) > 1000, 1] = 30.0  # temp 10 -> 30 after the change at 1,001
    values[np.array(rows) > 3500, 0] = 70.0  # hour 50 -> 70 as the model learns
    trace = SimpleNamespace(rows=rows, values=list(values),
                            bounds=list(np.full_like(values, 2.0)))
    loss = _event(1199, 1000, "loss", "data", "CUSUM(level=7.69e-05)")
    from ixplain import ExplanationDriftDetector

    det = ExplanationDriftDetector()
    det.events_, det.loss_changes_ = list(EVENTS), [loss]
    det.feature_names_, det._k, det.n_rows_ = list(NAMES), 3, 5000
    det._changes = [None] * len(EVENTS)
    explainers = SimpleNamespace(traces={"pfi": trace}, drift={"pfi": det})
    run = SimpleNamespace(explainers=explainers, feature_names=NAMES, known_drift_seen=[1000],
                          detected_drift=[1250], losses={"pfi": "squared_error"})
    run.incidents = StreamRun.incidents.fget(run)
    return run


def test_run_incidents_are_the_detectors_incidents_on_the_plotted_trace():
    run = _run()
    kinds = [(d["id"], d["kind"], d["channel"], d["start"], d["detected"]) for d in run.incidents]
    assert kinds == [(1, "incident", "data", 1001, 1200), (2, "model_update", "model", 3001, 4000)]
    first = run.incidents[0]
    assert first["method"] == "pfi" and first["events"] == [0]
    assert first["headline"] == ("the data changed: the frozen model's loss rose 2.0-fold; temp's "
                                 "importance rose (10.0 -> 30.0)")
    (temp,) = first["features"]
    assert (temp["name"], temp["before"], temp["after"], temp["after_upper"]) == (
        "temp", 10.0, 30.0, 32.0)
    json.dumps(run.incidents, allow_nan=False)


def test_incidents_files_sit_next_to_the_events_files(tmp_path):
    from ixplain.cli import _drift

    run = _run()
    run.explainers.drift["pfi"].explain_change = lambda i: SimpleNamespace(to_dict=lambda: {})
    written = {p.name for p in _drift.write_drift(run, tmp_path)}
    assert {"drift_events.csv", "drift_events.json", "incidents.csv", "incidents.json"} <= written
    frame = pd.read_csv(tmp_path / "incidents.csv")
    assert frame["kind"].tolist() == ["incident", "model_update"]
    assert frame["features"].tolist() == ["temp 10.0 -> 30.0", "hour 50.0 -> 70.0"]
    assert json.loads((tmp_path / "incidents.json").read_text()) == run.incidents
    events = pd.read_csv(tmp_path / "drift_events.csv")
    assert events["test"].tolist() == [e.test for e in EVENTS]  # the technical names stay


def test_the_incidents_table_comes_first_and_the_events_read_in_words():
    from ixplain.cli import _drift

    (inc_caption, inc_cols, inc_rows), (caption, columns, rows) = _drift.drift_tables(_run())
    assert inc_caption.startswith("Drift incidents (1; model updates: 1; from 3 explanation")
    assert [r[:3] for r in inc_rows] == [[1, "incident", "1001 -> 1200"],
                                         [2, "model update", "3001 -> 4000"]]
    assert caption.startswith("Explanation drift events (3;")
    found_by = [r[columns.index("found by")] for r in rows]
    assert found_by == ["named after the frozen model's loss changed (its values moved since "
                        "the loss change)", "a check of the current model on the reference rows",
                        "its own values moved (CUSUM change test)"]
    assert [r[columns.index("incident")] for r in rows] == [1, 2, "-"]
    assert not any("level=" in str(cell) for r in rows for cell in r)


def test_drift_plot_marks_incidents_red_and_model_updates_light_blue(monkeypatch):
    from matplotlib.colors import to_hex

    from ixplain.cli import _drift, _plots

    run = _run()
    fig, axes = _plots._figure(1)
    ax = axes[0]
    _drift._draw_events(ax, run, "pfi", run.explainers.drift["pfi"])
    vlines = [(float(ln.get_xdata()[0]), to_hex(ln.get_color())) for ln in ax.get_lines()
              if len(ln.get_xdata()) == 2 and ln.get_xdata()[0] == ln.get_xdata()[1]]
    assert (1200.0, _drift.INCIDENT_COLOR) in vlines
    assert (4000.0, _drift.MODEL_UPDATE_COLOR) in vlines
    assert not any(c == _drift.INCIDENT_COLOR for x, c in vlines if x in (3500.0, 4000.0))
    spans = [p for p in ax.patches if to_hex(p.get_facecolor()) == _drift.INCIDENT_COLOR]
    assert len(spans) == 1
    dots = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert [list(ln.get_ydata()) for ln in dots] == [[10.0, 30.0]]  # temp before, after
    assert not [ln for ln in ax.get_lines() if ln.get_marker() in ("v", "s")]
    assert [t.get_text() for t in ax.texts] == ["1"]
    assert "1 incident(s), 1 model update(s)" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "incident (start to detection)" in legend
    assert "model update (the model learned)" in legend


def test_incident_dict_keys_are_the_contract():
    f = IncidentFeature("a", 1.0, 2.0, 1.0)
    inc = Incident(1, "incident", "data", 10, 20, 30, "h", (f,), (0,))
    assert list(inc.to_dict())[:9] == ["id", "kind", "channel", "start", "detected", "end",
                                       "headline", "features", "events"]


def test_a_stream_runs_incidents_read_the_plotted_trace_at_their_rows():
    """A short agrawal-drift run (a Hoeffding tree learning: its scheduled checks give model
    updates): every number of run.incidents is the recorded trace's value or bound at the
    incident's start (the snapshot before it) and end."""
    pytest.importorskip("river")
    from ixplain.cli._stream import run_stream
    from ixplain.cli._stream_run import StreamConfig

    run = run_stream(StreamConfig(dataset="agrawal-drift", explain=["pfi", "drift"],
                                  n_rows=4000, progress=False, batch_size=32))
    trace = run.explainers.traces["pfi"]
    rows = list(trace.rows)
    assert run.incidents, "the run found no incident or model update"
    for inc in run.incidents:
        i0 = max(i for i, r in enumerate(rows) if r <= inc["start"] - 1)
        i1 = rows.index(inc["end"])
        assert inc["start"] <= inc["detected"] and inc["end"] >= rows[i0]
        for f in inc["features"]:
            j = run.feature_names.index(f["name"])
            assert f["before"] == trace.values[i0][j] and f["after"] == trace.values[i1][j]
            assert f["after_upper"] - f["after"] == pytest.approx(trace.bounds[i1][j])
