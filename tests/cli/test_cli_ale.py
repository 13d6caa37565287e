"""``--methods ale`` (explain) and ``--explain ale`` (stream) end to end, against the library."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from _cli_helpers import run_cli

pytest.importorskip("typer")
pytest.importorskip("matplotlib")


@pytest.mark.slow  # a subprocess run of the CLI (end to end)
def test_explain_methods_ale_equals_the_library(tmp_path):
    joblib = pytest.importorskip("joblib")
    from sklearn.ensemble import HistGradientBoostingRegressor

    from ixplain import accumulated_local_effects
    from ixplain.datasets import load_california_housing

    frame = load_california_housing().sample(300, random_state=0).reset_index(drop=True)
    frame = frame[["MedInc", "HouseAge", "Latitude", "MedHouseVal"]]
    X, y = frame.drop(columns="MedHouseVal"), frame["MedHouseVal"]
    model = HistGradientBoostingRegressor(max_iter=10, random_state=0).fit(X, y)
    frame.to_csv(tmp_path / "houses.csv", index=False)
    joblib.dump(model, tmp_path / "model.joblib")
    out = tmp_path / "out"
    proc = run_cli("explain", "--data", str(tmp_path / "houses.csv"), "--target", "MedHouseVal",
                   "--model", str(tmp_path / "model.joblib"), "--methods", "ale",
                   "--pd-features", "MedInc", "--grid-resolution", "10", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(out / "ale.csv")
    ref = accumulated_local_effects(model, X, ["MedInc"])
    np.testing.assert_allclose(table["grid_value"], ref.grid_values[0])
    np.testing.assert_allclose(table["ale"], ref.average[0], rtol=1e-12, atol=1e-14)
    assert json.loads((out / "ale.json").read_text())["MedInc"]["method"] == "ale"
    assert (out / "ale.png").stat().st_size > 0
    assert "ale.png" in (out / "report.html").read_text()


@pytest.mark.slow  # a subprocess run of the CLI (end to end)
def test_stream_explain_ale_writes_curves_over_time(tmp_path):
    from ixplain.datasets import load_bike_sharing

    path = tmp_path / "bike.csv"
    load_bike_sharing().head(400).to_csv(path, index=False)
    out = tmp_path / "out"
    proc = run_cli("stream", "--data", str(path), "--target", "count", "--explain", "pdp,ale",
                   "--pd-features", "hour", "--alpha", "0.05", "--every", "100",
                   "--n-rows", "400", "--seed", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(out / "ale.csv")
    assert set(table["feature"]) == {"hour"}
    rows = sorted(set(table["row"]))
    assert rows[-1] == 400 and len(rows) >= 2  # a snapshot after the warm-up, one at the end
    last = table.iloc[-21:]  # the final snapshot: 21 edges of 20 bins
    assert (last["row"] == 400).all() and np.isfinite(last["ale"]).all()
    assert np.all(np.diff(last["edge"]) > 0)
    assert "ale_over_time.png" in (out / "report.html").read_text()


def test_stream_ale_skips_a_categorical_pd_feature_with_a_warning():
    """``stream --pd-features c,a`` with a categorical c: iALE refused c and ended the whole
    run (the default --explain includes ale); now c is skipped with a warning, a is explained."""
    from ixplain.cli._stream_methods import ExplainerOptions, StreamExplainers

    options = ExplainerOptions(loss="squared_error", feature_names=["a", "c"],
                               pd_features=["c", "a"], alpha=0.05, seed=0,
                               numeric_features=("a",))
    with pytest.warns(UserWarning, match=r"skipped \['c'\]"):
        ex = StreamExplainers.build(["ale"], lambda A: A[:, 0], options)
    assert [k for k in ex.explainers if k.startswith("ale:")] == ["ale:a"]


@pytest.mark.slow  # a subprocess run of the CLI (end to end)
def test_stream_explain_ale_alone_writes_each_snapshot_once(tmp_path):
    """``--explain ale`` alone with ``--n-rows`` a multiple of ``--every``: the final snapshot
    was taken a second time at the end (iALE's snapshots were not seen as the latest), so
    ale.csv held the last row's 21 edges twice."""
    from ixplain.datasets import load_bike_sharing

    path = tmp_path / "bike.csv"
    load_bike_sharing().head(300).to_csv(path, index=False)
    out = tmp_path / "out"
    proc = run_cli("stream", "--data", str(path), "--target", "count", "--explain", "ale",
                   "--pd-features", "hour", "--every", "100", "--n-rows", "300",
                   "--seed", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(out / "ale.csv")
    sizes = table.groupby(["feature", "row"]).size()
    assert sizes.index.get_level_values("row").max() == 300
    assert (sizes == 21).all(), sizes


def test_stream_explain_ale_on_a_stream_shorter_than_the_warm_up_says_so(tmp_path):
    """50 rows end inside iALE's 100-row warm-up: nothing can be written, and the run used to
    exit 0 without a word (only summary.json's "explained": 0 showed it)."""
    from ixplain.datasets import load_bike_sharing

    path = tmp_path / "bike.csv"
    load_bike_sharing().head(50).to_csv(path, index=False)
    out = tmp_path / "out"
    proc = run_cli("stream", "--data", str(path), "--target", "count", "--explain", "ale",
                   "--pd-features", "hour", "--n-rows", "50", "--seed", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert not (out / "ale.csv").exists()
    assert "no ALE curve written" in proc.stderr and "regrid_every=100" in proc.stderr
    assert "this run saw 50 rows" in proc.stderr
