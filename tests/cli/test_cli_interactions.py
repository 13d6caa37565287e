"""``ixplain explain --methods interactions``: the files equal the library call on the same rows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")
pytest.importorskip("sklearn")
joblib = pytest.importorskip("joblib")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from _cli_helpers import run_cli  # noqa: E402


@pytest.mark.slow  # a subprocess running the CLI (about 5 s unloaded)
def test_explain_interactions_writes_the_library_result(tmp_path):
    from sklearn.ensemble import HistGradientBoostingRegressor

    from ixplain import shapley_interactions
    from ixplain.datasets import load_california_housing

    frame = load_california_housing().sample(120, random_state=0).reset_index(drop=True)
    frame = frame[["MedInc", "HouseAge", "Latitude", "Longitude", "MedHouseVal"]]
    X, y = frame.drop(columns="MedHouseVal"), frame["MedHouseVal"]
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y)
    frame.to_csv(tmp_path / "houses.csv", index=False)
    joblib.dump(model, tmp_path / "model.joblib")
    out = tmp_path / "out"
    proc = run_cli("explain", "--data", str(tmp_path / "houses.csv"), "--target", "MedHouseVal",
                   "--model", str(tmp_path / "model.joblib"), "--methods", "interactions",
                   "--seed", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    got = pd.read_csv(out / "interactions.csv")
    want = shapley_interactions(model, X, y.to_numpy(), loss="squared_error",
                                random_state=3).to_frame()
    assert list(got.columns) == ["feature_i", "feature_j", "value", "std"]
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-9, atol=1e-12)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["methods"] == ["interactions"]
    assert {"interactions.csv", "interactions.json", "interactions.png"} <= set(summary["files"])
    assert "Strongest pairs" in (out / "report.html").read_text()
