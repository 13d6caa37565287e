"""The stream report's payload answers first: summary sentences, the final ranking sorted, the
headline chart of importances over the stream with the known change marked, series in ranking
order; incidents (contract B dicts on the run) become markers and a sentence."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("river")

from ixplain.cli._outputs import run_incidents, stream_payload
from ixplain.cli._stream import StreamConfig, run_stream

CHANGE = 300


@pytest.fixture(scope="module")
def switch_run(tmp_path_factory):
    """y = 3 a before row 300, y = 3 b after it (c is noise); a linear model learns online."""
    d = tmp_path_factory.mktemp("switch")
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                          "c": rng.normal(size=n)})
    frame["y"] = np.where(np.arange(n) < CHANGE, 3 * frame["a"], 3 * frame["b"])
    frame.to_csv(d / "switch.csv", index=False)
    cfg = StreamConfig(dataset=None, data=str(d / "switch.csv"), target="y", model="linear",
                       explain=["pfi", "pdp", "drift"], pd_features=["a", "b"], alpha=0.05,
                       every=20, progress=False)
    run = run_stream(cfg)
    run.known_drift = [CHANGE]  # (a file has no documented change points; this one is known)
    return run


def test_first_screen_parts(switch_run):
    p = stream_payload(switch_run)
    json.dumps(p, allow_nan=False)  # plain JSON
    assert p["status"] == {"state": "finished", "rows_seen": 600, "rows_total": 600}
    ranking = p["ranking"]
    values = ranking["values"]
    assert ranking["features"][0] == "b" and values == sorted(values, reverse=True)
    final = dict(zip(switch_run.feature_names, switch_run.explainers.traces["pfi"].values[-1]))
    assert values == pytest.approx([final[f] for f in ranking["features"]])
    headline = next(c for c in p["charts"] if c["id"] == p["headline"])
    assert headline["id"] == "importances-pfi" and headline["kind"] == "traces"
    assert [s["name"] for s in headline["series"]] == ranking["features"]
    assert {"x": CHANGE, "label": f"known change at row {CHANGE}", "kind": "known",
            "incident": None} in headline["markers"]
    assert headline["x"][-1] == 600 and all(len(s["y"]) == len(headline["x"])
                                            for s in headline["series"])


def test_summary_tells_the_switch(switch_run):
    p = stream_payload(switch_run)
    share = p["ranking"]["values"][0] / sum(v for v in p["ranking"]["values"] if v > 0)
    first = p["summary"][0]
    assert first.startswith(f"`b` carries {100 * share:.0f} % of the summed")
    assert f"since the known change at row {CHANGE} `b` took the lead from `a`" in first
    # an incident sentence when the run groups its drift events into incidents
    assert len(p["summary"]) == (1 if run_incidents(switch_run) is None else 2)


def test_pd_curves_before_the_change_and_now(switch_run):
    p = stream_payload(switch_run)
    curves = {c["id"]: c for c in p["charts"] if c["kind"] == "curves"}
    assert list(curves) == ["pd-b", "pd-a"]  # strongest feature first
    names = [s["name"] for s in curves["pd-b"]["series"]]
    assert names == [f"row {CHANGE}", "row 600 (now)"]
    assert {s["group"] for s in curves["pd-a"]["series"]} == {"a"}


def test_traces_thinned_to_max_points(switch_run):
    p = stream_payload(switch_run, max_points=7)
    headline = p["charts"][0]
    assert len(headline["x"]) == 7 and headline["x"][0] == 20 and headline["x"][-1] == 600
    bands = [s["lower"] is not None for s in headline["series"]]
    assert bands == [True, True, True]  # 3 features: all among the 5 with bands


def test_incidents_become_markers_and_a_sentence(switch_run, monkeypatch):
    incidents = [
        {"id": 0, "kind": "incident", "channel": "data", "start": 310, "detected": 340,
         "end": None, "headline": "the data changed", "events": [0],
         "features": [{"name": "b", "before": 0.1, "after": 9.0, "change": 8.9}]},
        {"id": 1, "kind": "model_update", "channel": "model", "start": 400, "detected": 420,
         "end": None, "headline": "the model changed as it learned", "events": [1],
         "features": []},
    ]
    monkeypatch.setattr(type(switch_run), "incidents", property(lambda run: incidents),
                        raising=False)
    p = stream_payload(switch_run)
    kinds = [(m["kind"], m["x"], m["incident"]) for m in p["charts"][0]["markers"]]
    assert kinds == [("known", CHANGE, None), ("incident", 340, 0), ("model_update", 420, 1)]
    assert p["incidents"][0]["headline"] == "the data changed"
    assert p["summary"][1] == ("1 incident, after the known change at 300 (the first detected "
                               "40 rows after it, led by `b`); 1 model update as the model "
                               "learned.")


def test_payload_passes_the_page_check(switch_run):
    report = pytest.importorskip("ixplain.report")
    if not hasattr(report, "prepare_payload"):
        pytest.skip("this build has no ixplain.report.prepare_payload (the report page)")
    report.prepare_payload(stream_payload(switch_run))


def test_report_without_plotly_keeps_text_tables_and_a_note(tmp_path, monkeypatch):
    import ixplain.report as report_package
    from ixplain.cli._outputs import write_page
    from ixplain.cli.report import Report

    def missing(payload, live=False):
        raise ImportError("the report page needs plotly: pip install 'ixplain[cli]'")

    monkeypatch.setattr(report_package, "render_page", missing)
    legacy = Report("run", settings=[("seed", 0)], notes=["kept"])
    write_page(tmp_path / "report.html", {"title": "run"}, legacy)
    html = (tmp_path / "report.html").read_text()
    assert "kept" in html and "The interactive charts are left out" in html
    assert "pip install &#x27;ixplain[cli]&#x27;" in html or "pip install 'ixplain[cli]'" in html
    with pytest.raises(ImportError, match="needs plotly"):
        write_page(tmp_path / "index.html", {"title": "run"}, legacy, live=True)
