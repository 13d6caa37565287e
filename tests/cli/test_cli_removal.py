"""``ixplain explain --removal marginal|conditional|both``: the two readings side by side."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _cli_helpers import correlated_linear, run_cli

pytest.importorskip("typer")
pytest.importorskip("sklearn")
joblib = pytest.importorskip("joblib")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    return correlated_linear(tmp_path_factory.mktemp("removal"), 2000)


@pytest.mark.slow
def test_removal_both_side_by_side(saved):
    from ixplain import permutation_importance

    d, model, frame = saved
    out = d / "out"
    proc = run_cli("explain", "--data", str(d / "d.csv"), "--target", "y", "--model",
                   str(d / "m.joblib"), "--methods", "pfi", "--removal", "both", "--seed", "1",
                   "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    cond = summary["importances"]["pfi (conditional)"]
    ref = permutation_importance(model, frame[["a", "b", "c"]], frame["y"].to_numpy(),
                                 loss="squared_error", random_state=1, removal="conditional")
    np.testing.assert_allclose([cond[n] for n in "abc"], ref.importances_mean, rtol=1e-12)
    marg = summary["importances"]["pfi"]
    assert marg["a"] > 1.5 and cond["a"] < 0.5  # 2 Var(a) vs 2 (1 - 0.81)
    assert "how to read the two removals" in (out / "report.html").read_text()


def test_removal_bad_value(saved):
    d, _, _ = saved
    proc = run_cli("explain", "--data", str(d / "d.csv"), "--target", "y", "--model",
                   str(d / "m.joblib"), "--removal", "observational", "--out", str(d / "o2"))
    assert proc.returncode != 0
    assert "--removal must be 'marginal', 'conditional' or 'both'" in proc.stderr


@pytest.mark.slow
def test_stream_removal_both(tmp_path):
    out = tmp_path / "s"
    proc = run_cli("stream", "--dataset", "bike", "--n-rows", "400", "--explain", "pfi",
                   "--removal", "both", "--no-progress", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_csv(out / "importances.csv")
    assert set(frame["method"]) == {"pfi", "pfi (conditional)"}
    assert "how to read the two removals" in (out / "report.html").read_text()
