"""Objects that hold nothing yet, or NaN, render a sentence and never raise; the drift
detector lists its incidents when it has them, else its events."""

from __future__ import annotations

import numpy as np
import pytest
from _parse import parse

from ixplain import IncrementalALE, IncrementalPDP, IncrementalPFI, partial_dependence
from ixplain._html import render
from ixplain.drift import ExplanationDriftDetector
from ixplain.results import FeatureImportance, ImportanceTimeSeries


def _text(obj) -> str:
    return "".join(parse(obj._repr_html_()).text)


@pytest.mark.parametrize("make", [
    lambda: IncrementalPFI(lambda A: A[:, 0], "squared_error", random_state=0),
    lambda: IncrementalPDP(lambda A: A[:, 0], "x0", random_state=0),
    lambda: IncrementalALE(lambda A: A[:, 0], "x0", random_state=0),
], ids=["ipfi", "ipdp", "iale"])
def test_an_explainer_before_its_first_row_says_so(make):
    text = _text(make())
    assert "No row explained yet (0 seen)" in text and "0 rows seen" in text


def test_an_explainer_that_only_stored_its_first_row_says_so():
    e = IncrementalPFI(lambda A: A[:, 0], "squared_error", random_state=0)
    e.explain_one(np.array([1.0, 2.0]), 1.0)  # the first row is only stored
    assert "No row explained yet (1 seen)" in _text(e)


def test_an_ipdp_with_one_grid_point_draws_a_dot():
    e = IncrementalPDP(lambda A: A[:, 0], "x0", random_state=0)
    e.explain_one(np.array([0.5, 1.0]))
    page = e._repr_html_()
    assert "<circle" in page and "(1 points)" in "".join(parse(page).text)


def test_a_detector_without_rows_or_events_says_so():
    det = ExplanationDriftDetector()
    assert "No rows tested yet" in _text(det)
    v = np.random.default_rng(0).normal(0, 0.05, (600, 2))
    det.update_values(v, feature_names=["a", "b"])
    assert not det.events_ and "No change found in 600 rows tested." in _text(det)


def _detector_with_an_event():
    rng = np.random.default_rng(1)
    v = rng.normal(0, 0.05, (3000, 2))
    v[1500:, 0] += 1.0
    return ExplanationDriftDetector().update_values(v, feature_names=["<a>", "b"])


def test_a_detector_lists_its_incidents_with_their_rows_and_values():
    det = _detector_with_an_event()
    (incident,) = (i.to_dict() for i in det.incidents())
    doc = parse(det._repr_html_())
    (table,) = doc.tables
    assert table[0][:3] == ["#", "rows (start .. detected)", "what changed"]
    (moved,) = incident["features"]
    assert table[1][:4] == [
        str(incident["id"]), f"{incident['start']} .. {incident['detected']}",
        incident["headline"], f"<a> {moved['before']:.4g} \u2192 {moved['after']:.4g}",
    ]
    assert "&lt;a&gt;" in det._repr_html_()


def test_a_detector_whose_events_form_no_incident_lists_its_events():
    det = _detector_with_an_event()
    det.incidents = lambda: []  # e.g. every group moved the plotted importances too little
    (event,) = det.events_
    doc = parse(det._repr_html_())
    (table,) = doc.tables
    assert table[0][:3] == ["row", "start", "feature"]
    assert table[1][:4] == [str(event.row), str(event.start), "<a>", "values"]
    assert table[1][5] == f"{event.before:.4g} \u2192 {event.after:.4g}"


class _Incident:
    def __init__(self, **fields):
        self.fields = fields

    def to_dict(self):
        return self.fields


def test_a_detector_with_incidents_lists_them_and_model_updates_apart():
    det = _detector_with_an_event()
    det.incidents = lambda: [
        _Incident(id=0, kind="incident", channel="data", start=1500, detected=1513, end=None,
                  headline="the data changed: <b>loss</b> rose 40 %",
                  features=[{"name": "<a>", "before": 0.0, "after": 1.0, "change": 1.0}],
                  events=[0]),
        _Incident(id=1, kind="model_update", channel="model", start=2000, detected=2100,
                  end=None, headline="the model changed as it learned", features=[],
                  events=[]),
    ]
    doc = parse(det._repr_html_())
    (table,) = doc.tables
    assert table[1][:4] == ["0", "1500 .. 1513", "the data changed: <b>loss</b> rose 40 %",
                        "<a> 0 \u2192 1"]
    text = "".join(doc.text)
    assert "1 incident(s)" in text and "1 model update(s)" in text and "at rows 2100" in text
    assert "<b>" not in det._repr_html_()


def test_a_detector_whose_incidents_fail_shows_its_events():
    det = _detector_with_an_event()

    def broken():
        raise RuntimeError("not ready")

    det.incidents = broken
    assert "1 event(s)" in _text(det)


def test_nan_importances_render_as_nan_without_a_bar():
    r = FeatureImportance.from_importances(np.array([[np.nan], [1.0]]), ["a", "b"])
    doc = parse(r._repr_html_())
    assert doc.column(0) == ["b", "a"] and doc.column(0, 2) == ["1", "nan"]
    assert sum(t == "rect" for t, _ in doc.tags) == 1
    all_nan = FeatureImportance.from_importances(np.full((2, 1), np.nan), ["a", "b"])
    assert "No finite value" in _text(all_nan)


def test_empty_results_say_so():
    assert "No features." in _text(FeatureImportance.from_importances(np.zeros((0, 1)), []))
    ts = ImportanceTimeSeries(np.zeros(0, dtype=int), np.zeros((0, 2)), np.zeros((0, 2)),
                              ["a", "b"])
    assert "No snapshot yet." in _text(ts)


def test_a_nan_curve_says_so():
    X = np.c_[np.linspace(0, 1, 20), np.zeros(20)]
    r = partial_dependence(lambda A: A[:, 0], X, "x0", grid_resolution=5)
    r.average[:] = np.nan  # (the library refuses NaN model outputs; a result may still hold NaN)
    assert "No finite value" in _text(r)
    r.average[0, 2] = 1.0
    assert "No finite value" not in _text(r)


def test_a_failing_summary_is_one_line_not_an_exception():
    page = render("importance", object())
    assert "no summary: AttributeError" in page and page.startswith("<div")


def test_an_attached_detector_marks_its_event_on_the_feature_trace():
    from ixplain._html._blocks import SPARK_W

    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 3))
    X[3000:, 0] *= 0.3  # from row 3000 the spread of x0 shrinks: its importance falls

    def model(A):
        return 2 * A[:, 0] + A[:, 1]

    det = ExplanationDriftDetector(static_model=True, random_state=0)
    e = IncrementalPFI(model, "squared_error", random_state=0, drift_detector=det)
    for s in range(0, 6000, 500):
        e.explain_many(X[s:s + 500], model(X[s:s + 500]))
    event = det.events_[0]
    doc = parse(det._repr_html_())
    (table,) = doc.tables
    # the event forms one incident; its row names the feature it moved
    assert table[0][-1] == "trace (red: detected)" and event.feature == "x0"
    assert table[1][3].startswith("x0 ")
    ticks = [a["d"] for t, a in doc.tags if t == "path" and a.get("stroke") == "#d62728"]
    times = [h[0] for h in e.history_]
    x = 1 + (event.row + 1 - times[0]) / (times[-1] - times[0]) * (SPARK_W - 2)
    assert ticks == [f"M{x:.1f} 0V18"]
