"""End-to-end ``ixplain stream`` runs (subprocess) on small data, checked against the library API."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from _cli_helpers import cli_env, run_cli

pytest.importorskip("river")
pytest.importorskip("typer")

SEED = 3
ALPHA = 0.05
N_ROWS = 300
BATCH = 16
EVERY = 50


@pytest.fixture(scope="module")
def stream_run(bike_csv, tmp_path_factory):
    out = tmp_path_factory.mktemp("stream-out")
    proc = run_cli(
        "stream", "--data", str(bike_csv), "--target", "count",
        "--explain", "pfi,sage,pdp", "--pd-features", "hour",
        "--alpha", str(ALPHA), "--every", str(EVERY), "--n-rows", str(N_ROWS),
        "--seed", str(SEED), "--out", str(out),
    )
    assert proc.returncode == 0, proc.stderr
    return out, proc


def _library_run(bike_csv):
    """The same prequential loop written with the public API (what the CLI must reproduce)."""
    from ixplain import IncrementalPDP, IncrementalPFI, IncrementalSAGE
    from ixplain.cli._data import split_kinds
    from ixplain.cli._models import make_river_model
    from ixplain.datasets import iter_frame

    frame = pd.read_csv(bike_csv).head(N_ROWS)
    names = [c for c in frame.columns if c != "count"]
    numeric, categorical = split_kinds(frame, names)
    model = make_river_model("hoeffding-tree", "regression", numeric, categorical, SEED)
    from ixplain import UniformReservoir

    # the CLI's settings: missing values passed to its imputing models; the PD range from a
    # uniform reservoir of the whole stream; the integer feature hour on every level
    common = {"feature_names": names, "alpha": ALPHA, "random_state": SEED, "nan_policy": "pass"}
    pfi = IncrementalPFI(model, loss="squared_error", **common)
    sage = IncrementalSAGE(model, loss="squared_error", **common)
    pdp = IncrementalPDP(model, "hour", grid_resolution=24, percentiles=(0.0, 1.0), alpha=ALPHA,
                         random_state=SEED, nan_policy="pass", range_source="storage",
                         storage=UniformReservoir(2000))
    rows = list(iter_frame(frame, "count"))
    abs_errors = []
    starts = [s for block in range(0, N_ROWS, EVERY) for s in range(block, block + EVERY, BATCH)]
    for s in starts:  # mini-batches of BATCH rows that never cross a snapshot row
        chunk = rows[s : min(s + BATCH, s - s % EVERY + EVERY)]
        xs, ys = [x for x, _ in chunk], [y for _, y in chunk]
        for explainer in (pfi, sage, pdp):
            explainer.explain_many(xs, ys)
        for x, y in chunk:
            abs_errors.append(abs(y - model.predict_one(x)))
            model.learn_one(x, y)
    return names, pfi, sage, pdp, np.array(abs_errors)


def test_stream_numbers_equal_the_library_api(stream_run, bike_csv):
    out, _ = stream_run
    names, pfi, sage, pdp, abs_errors = _library_run(bike_csv)
    summary = json.loads((out / "summary.json").read_text())
    got_pfi = np.array([summary["final_importances"]["pfi"][n] for n in names])
    got_sage = np.array([summary["final_importances"]["sage"][n] for n in names])
    np.testing.assert_allclose(got_pfi, pfi.importances_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_sage, sage.importances_, rtol=1e-12, atol=1e-12)
    bounds = np.array([summary["final_bounds"]["pfi"][n] for n in names])
    np.testing.assert_allclose(bounds, pfi.confidence_bound(0.05), rtol=1e-12)
    pd_json = json.loads((out / "pd.json").read_text())
    last = pd_json["hour"][-1]
    assert last["row"] == N_ROWS
    np.testing.assert_allclose(last["grid_values"], pdp.pd_.grid_values[0])
    np.testing.assert_allclose(last["average"], pdp.pd_.average[0], rtol=1e-12)
    metric = pd.read_csv(out / "metric.csv")
    np.testing.assert_allclose(metric["MAE"].to_numpy(), abs_errors, rtol=1e-12)


def test_stream_outputs_are_well_formed(stream_run):
    out, proc = stream_run
    for name in (
        "importances.csv", "importances.json", "pd.csv", "pd.json", "metric.csv",
        "summary.json", "report.html", "importance_traces.png", "importance_final.png",
        "pd_over_time.png", "metric.png",
    ):
        assert (out / name).is_file(), name
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    imp = pd.read_csv(out / "importances.csv")
    assert list(imp.columns) == ["method", "row", "feature", "importance", "variance", "bound"]
    snapshots = sorted(imp["row"].unique())
    assert snapshots == [50, 100, 150, 200, 250, 300]
    assert len(imp) == 2 * len(snapshots) * 12  # pfi and sage, 12 features
    assert imp[["importance", "variance", "bound"]].notna().all().all()
    trace = json.loads((out / "importances.json").read_text())
    assert trace["methods"]["pfi"]["rows"] == snapshots
    assert np.array(trace["methods"]["sage"]["importances"]).shape == (len(snapshots), 12)
    pdf = pd.read_csv(out / "pd.csv")
    assert set(pdf["feature"]) == {"hour"} and pdf["pd"].notna().all()
    metric = pd.read_csv(out / "metric.csv")
    assert len(metric) == N_ROWS and list(metric.columns) == ["row", "MAE", "rolling_MAE"]
    pytest.importorskip("pyarrow")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "importances.parquet"), imp)
    html = (out / "report.html").read_text()
    assert html.count('src="data:image/png;base64,') == 4
    assert "http://" not in html and "https://" not in html
    assert f"Report: {(out / 'report.html').resolve()}" in proc.stdout


def test_stream_bundled_synthetic_dataset_marks_known_drift(tmp_path):
    out = tmp_path / "o"
    proc = run_cli(
        "stream", "--dataset", "agrawal-drift", "--explain", "pfi", "--n-rows", "200",
        "--every", "100", "--out", str(out), "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["known_drift"] == [10000]
    assert summary["settings"]["loss"] == "pfi: zero_one"
    assert set(summary["final_importances"]["pfi"]) == {
        "salary", "commission", "age", "elevel", "car", "zipcode", "hvalue", "hyears", "loan"
    }


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_writes_partial_results_and_exits_non_zero(tmp_path, sig):
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ixplain", "stream", "--explain", "pfi", "--batch-size", "1",
         "--every", "10", "--out", str(out)],
        env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stderr is not None
    seen = ""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until the progress bar shows rows explained
        chunk = proc.stderr.read(64)
        if not chunk:
            break
        seen += chunk
        counts = [int(c) for c in re.findall(r"\|\s*(\d+)/17379", seen)]
        if counts and max(counts) >= 20:
            break
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted after" in stderr and "Traceback" not in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True
    rows = int(summary["settings"]["rows"].split()[0])
    assert 20 <= rows < 17379
    assert (out / "report.html").is_file()
    assert "Interrupted (Ctrl-C or SIGTERM)" in (out / "report.html").read_text()
    imp = pd.read_csv(out / "importances.csv")
    assert imp["row"].max() == rows


def test_python_dash_m_and_datasets_listing():
    proc = run_cli("datasets")
    assert proc.returncode == 0, proc.stderr
    for name in ("bike", "rainfall", "adult", "california", "agrawal", "agrawal-drift"):
        assert re.search(rf"^{re.escape(name)}\s", proc.stdout, re.M), name
    assert "17379" in proc.stdout and "18159" in proc.stdout and "12000" in proc.stdout


def test_parquet_stream_with_string_labels(tmp_path):
    """A binary target given as strings ('dry'/'wet'), read from Parquet, run in-process."""
    pytest.importorskip("pyarrow")
    from ixplain.cli import main
    from ixplain.datasets import load_rainfall

    frame = load_rainfall().head(300)
    frame["rain"] = frame["rain"].map({0: "dry", 1: "wet"})
    frame.to_parquet(tmp_path / "rain.parquet")
    out = tmp_path / "o"
    with pytest.raises(SystemExit) as info:
        main(["stream", "--data", str(tmp_path / "rain.parquet"), "--target", "rain",
              "--explain", "pfi,sage", "--every", "100", "--out", str(out), "--no-progress"])
    assert info.value.code in (0, None)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["task"] == "binary"
    assert summary["settings"]["loss"] == "pfi: zero_one, sage: brier"
    metric = pd.read_csv(out / "metric.csv")
    assert set(metric["accuracy"].unique()) <= {0.0, 1.0}
    for values in summary["final_importances"].values():
        assert all(np.isfinite(v) for v in values.values())


def test_default_methods_follow_what_this_build_has(monkeypatch, bike_csv, tmp_path, capsys):
    """Without an explainer class (a build where its branch is absent) the default run skips it."""
    import ixplain
    from ixplain.cli import main

    monkeypatch.delattr(ixplain, "IncrementalSAGE")
    out = tmp_path / "o"
    with pytest.raises(SystemExit) as info:
        main(["stream", "--data", str(bike_csv), "--target", "count", "--n-rows", "64",
              "--every", "32", "--out", str(out), "--no-progress"])
    assert info.value.code in (0, None)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["methods"] == "pfi, pdp"
    assert "skipped: sage" in (out / "report.html").read_text()
    with pytest.raises(SystemExit) as info:  # asking for it explicitly is an error
        main(["stream", "--data", str(bike_csv), "--target", "count", "--explain", "sage",
              "--out", str(out)])
    assert info.value.code == 2
    assert "ixplain.IncrementalSAGE is missing" in capsys.readouterr().err
