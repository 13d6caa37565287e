"""``ixplain stream`` runs the explanation drift detector by default and reports its events."""

from __future__ import annotations

import pandas as pd
import pytest
from _cli_helpers import run_cli

pytest.importorskip("river")
pytest.importorskip("typer")


def test_drift_is_a_default_method():
    from ixplain.cli._stream import StreamConfig, _choose_methods

    methods, _ = _choose_methods(StreamConfig())
    assert methods[-1] == "drift" and "pfi" in methods


def test_stream_reports_the_events_of_the_detector(tmp_path):
    """A short Agrawal run: the events file (one row per event of the detector), the events
    table of the report (its caption counts them) and the marked traces."""
    out = tmp_path / "out"
    proc = run_cli("stream", "--dataset", "agrawal", "--explain", "pfi,drift",
                   "--n-rows", "1500", "--batch-size", "32", "--seed", "0", "--out", str(out),
                   "--no-progress")
    assert proc.returncode == 0, proc.stderr
    html = (out / "report.html").read_text()
    assert (out / "drift_events.png").exists() and (out / "drift_events.json").exists()
    text = (out / "drift_events.csv").read_text()
    n_events = len(pd.read_csv(out / "drift_events.csv")) if text.strip() else 0
    if n_events:
        events = pd.read_csv(out / "drift_events.csv")
        assert {"row", "feature", "channel", "before", "after", "test", "method"} <= set(events)
        assert set(events["channel"]) <= {"data", "model"}
    assert f"Explanation drift events ({n_events};" in html
