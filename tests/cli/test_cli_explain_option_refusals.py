"""``ixplain explain`` refuses, with exit 2 and the option named, what used to run:
``--methods ""`` ran the default set silently, and a text ``--target`` for a regressor exited 1
with "every method failed" after loading everything."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _cli_helpers import run_main

pytest.importorskip("typer")
pytest.importorskip("sklearn")
joblib = pytest.importorskip("joblib")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    from sklearn.linear_model import LinearRegression

    d = tmp_path_factory.mktemp("refusals")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=100), "b": rng.normal(size=100)})
    frame["y"] = 2 * frame.a + frame.b
    frame["txt"] = rng.choice(["low", "high"], size=100)
    frame.to_csv(d / "t.csv", index=False)
    joblib.dump(LinearRegression().fit(frame[["a", "b"]], frame.y), d / "lr.joblib")
    return d


def _explain(capsys, d, *extra):
    return run_main(capsys, "explain", "--data", str(d / "t.csv"), "--model",
                    str(d / "lr.joblib"), "--features", "a,b", *extra)


@pytest.mark.parametrize("option", ["--methods", "--pd-features", "--features"])
@pytest.mark.parametrize("value", ["", " , "])
def test_an_option_given_without_a_name_is_refused(capsys, table, option, value):
    extra = ["--target", "y", option, value, "--out", str(table / "o_empty")]
    if option == "--features":
        code, out, err = run_main(capsys, "explain", "--data", str(table / "t.csv"), "--model",
                                  str(table / "lr.joblib"), *extra)
    else:
        code, out, err = _explain(capsys, table, *extra)
    assert code == 2, err
    assert f"{option} was given without a name" in err
    assert not (table / "o_empty" / "summary.json").exists()


def test_a_text_target_for_a_regressor_is_an_option_error(capsys, table):
    code, out, err = _explain(capsys, table, "--target", "txt", "--methods", "pfi",
                              "--out", str(table / "o_txt"))
    assert code == 2, err
    assert "--target 'txt'" in err and "regressor" in err and "every method failed" not in err


def test_a_numeric_target_still_runs(capsys, table):
    code, out, err = _explain(capsys, table, "--target", "y", "--methods", "pfi",
                              "--out", str(table / "o_ok"))
    assert code == 0, err
    assert "explained" in out
