"""``ixplain explain`` shows each method's progress on stderr, by name, unless
``--no-progress``; stdout and the written files are the same either way (issue 29 item 8: it
printed nothing for minutes)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _cli_helpers import run_cli

pytest.importorskip("typer")
pytest.importorskip("sklearn")
joblib = pytest.importorskip("joblib")

METHODS = ("pfi", "sage", "pd", "ale")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same small explain run with and without --no-progress (subprocesses)."""
    from sklearn.linear_model import LinearRegression

    d = tmp_path_factory.mktemp("progress")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    frame["y"] = 2 * frame["a"] - frame["b"]
    frame.to_csv(d / "t.csv", index=False)
    joblib.dump(LinearRegression().fit(frame[["a", "b", "c"]], frame["y"]), d / "m.joblib")
    common = ("explain", "--data", str(d / "t.csv"), "--target", "y", "--model",
              str(d / "m.joblib"), "--methods", ",".join(METHODS), "--n-repeats", "2",
              "--grid-resolution", "5")
    shown = run_cli(*common, "--out", str(d / "shown"))
    quiet = run_cli(*common, "--out", str(d / "quiet"), "--no-progress")
    assert shown.returncode == 0, shown.stderr
    assert quiet.returncode == 0, quiet.stderr
    return d, shown, quiet


def test_default_shows_each_methods_name_on_stderr(runs):
    _, shown, _ = runs
    for method in METHODS:
        assert f"ixplain explain: {method}" in shown.stderr, shown.stderr
    assert shown.stderr.count("done") >= len(METHODS)
    # a method that reports its units gets a bar with a count
    assert "100%" in shown.stderr


def test_no_progress_prints_no_bar(runs):
    _, _, quiet = runs
    assert quiet.stderr == ""


def test_progress_goes_to_stderr_only(runs):
    d, shown, quiet = runs
    assert "ixplain explain:" not in shown.stdout
    assert shown.stdout.replace(str(d / "shown"), "OUT") == quiet.stdout.replace(
        str(d / "quiet"), "OUT")
    a = json.loads((d / "shown" / "summary.json").read_text())
    b = json.loads((d / "quiet" / "summary.json").read_text())
    assert a["importances"] == b["importances"]


def test_a_library_call_of_run_explain_shows_nothing(tmp_path, capsys, runs):
    """Progress is the command's: run_explain from Python stays silent."""
    from ixplain.cli._static import ExplainConfig, run_explain

    d, _, _ = runs
    cfg = ExplainConfig(data=str(d / "t.csv"), target="y", model=str(d / "m.joblib"),
                        methods=["pfi"], n_repeats=2)
    run_explain(cfg, tmp_path / "o")
    assert "ixplain explain" not in capsys.readouterr().err
