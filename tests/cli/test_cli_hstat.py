"""``ixplain explain --methods hstat``: the CLI writes the library's H-statistic."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _cli_helpers import run_cli

pytest.importorskip("typer")
pytest.importorskip("sklearn")
joblib = pytest.importorskip("joblib")


def test_explain_hstat_equals_the_library(tmp_path):
    from sklearn.ensemble import HistGradientBoostingRegressor

    from ixplain import h_statistic

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(200, 3)), columns=["a", "b", "c"])
    y = X["a"] * X["b"] + X["c"]
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y)
    X.assign(y=y).to_csv(tmp_path / "t.csv", index=False)
    joblib.dump(model, tmp_path / "m.joblib")
    out = tmp_path / "out"
    proc = run_cli("explain", "--data", str(tmp_path / "t.csv"), "--target", "y", "--model",
                   str(tmp_path / "m.joblib"), "--methods", "hstat", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    got = json.loads((out / "hstat.json").read_text())
    frame = pd.read_csv(tmp_path / "t.csv").drop(columns="y")
    ref = h_statistic(model, frame)
    np.testing.assert_allclose(got["overall_h2"], ref.overall_h2, rtol=1e-12, atol=1e-15)
    assert got["pairs"] == [list(p) for p in ref.pairs] and got["settings"]["method"] == "tree"
    table = pd.read_csv(out / "hstat.csv")
    assert list(table.columns) == ["output", "feature_i", "feature_j", "h2", "unnormalized",
                                   "value"]
    assert (out / "hstat.png").is_file()
    html = (out / "report.html").read_text()
    assert "Strongest pairwise interactions" in html and "H-statistic" in html
