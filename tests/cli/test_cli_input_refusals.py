"""CLI regressions from the #15 new-user campaign (qa15)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")
pytest.importorskip("river")

from _cli_helpers import run_main


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    d = tmp_path_factory.mktemp("qa15")
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    df["y"] = df["a"] + 2 * df["b"]
    df.to_csv(d / "ok.csv", index=False)
    text = (d / "ok.csv").read_text().replace("a,b,c,y", "a,a,c,y", 1)
    (d / "dup.csv").write_text(text)
    return d


@pytest.mark.parametrize("command", ["stream", "explain"])
def test_duplicate_csv_header_is_refused_not_renamed(capsys, table, command):
    """pandas renames a second 'a' to 'a.1': the stream used to run on it without a word."""
    args = ["--data", str(table / "dup.csv"), "--target", "y", "--out", str(table / command)]
    if command == "explain":
        import joblib
        from sklearn.linear_model import LinearRegression

        joblib.dump(LinearRegression().fit(pd.read_csv(table / "ok.csv")[["a", "b", "c"]],
                                           np.zeros(80)), table / "m.joblib")
        args += ["--model", str(table / "m.joblib")]
    code, _, err = run_main(capsys, command, *args)
    assert code == 2
    assert "names the column(s) 'a' more than once" in err
    assert not (table / command / "summary.json").exists()


def test_explain_negative_seed_is_refused_before_any_method(capsys, table):
    """--seed -1 used to be found by PFI after the run started (exit 1, no method)."""
    import joblib
    from sklearn.linear_model import LinearRegression

    df = pd.read_csv(table / "ok.csv")
    joblib.dump(LinearRegression().fit(df[["a", "b", "c"]], df["y"]), table / "ok.joblib")
    code, _, err = run_main(capsys, "explain", "--data", str(table / "ok.csv"), "--target", "y",
                            "--model", str(table / "ok.joblib"), "--seed", "-1",
                            "--out", str(table / "seed"))
    assert code == 2
    assert "--seed must be >= 0, got -1." in err
    assert not (table / "seed").exists()
