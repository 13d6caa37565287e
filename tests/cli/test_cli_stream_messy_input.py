"""QA of ``ixplain stream`` on messy real-world input (missing values, bad output folders)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ixplain.cli import main
from ixplain.cli._models import OnlinePreprocessor


def _run(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    return int(info.value.code or 0), capsys.readouterr().err


@pytest.fixture
def csv_with_a_missing_value(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    df["y"] = 2 * df["a"] + df["b"]
    df.loc[5, "a"] = np.nan  # one empty cell, as real CSV exports have
    path = tmp_path / "gap.csv"
    df.to_csv(path, index=False)
    return path


def test_one_missing_feature_value_does_not_poison_the_model(capsys, tmp_path, csv_with_a_missing_value):
    code, err = _run(capsys, "stream", "--data", str(csv_with_a_missing_value), "--target", "y",
                     "--model", "linear", "--explain", "pfi", "--out", str(tmp_path / "o"),
                     "--no-progress")
    assert code == 0, err
    metric = pd.read_csv(tmp_path / "o" / "metric.csv")
    assert np.isfinite(metric.iloc[:, 1:].to_numpy(dtype=float)[10:]).all()


def test_preprocessor_statistics_skip_missing_values():
    p = OnlinePreprocessor(["a"], [])
    for v in (1.0, float("nan"), 3.0):
        p.learn_one({"a": v})
    # mean 2 and population variance 1 over the two observed values: 3 -> +1
    assert p.transform_one({"a": 3.0}) == {"a": pytest.approx(1.0)}
    z = p.transform_one({"a": float("nan")})["a"]
    assert not math.isnan(z)


@pytest.mark.parametrize("make_out", [
    lambda d: d / "afile" / "sub",     # parent is a regular file
    lambda d: d / "afile",             # --out is an existing file
])
def test_unusable_out_fails_before_the_run_with_one_clear_line(capsys, tmp_path, make_out):
    (tmp_path / "afile").write_text("x")
    out = make_out(tmp_path)
    code, err = _run(capsys, "stream", "--dataset", "bike", "--n-rows", "50", "--out", str(out),
                     "--no-progress")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"ixplain: error: cannot write to --out {out}")
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["stream", "explain"])
def test_a_typo_in_a_numeric_column_is_named_not_one_hot_encoded(capsys, tmp_path, command):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(18, 80, 100), "income": rng.normal(50, 10, 100)})
    df["y"] = df["age"] * 0.5 + df["income"]
    df["income"] = df["income"].astype(object)
    df.loc[40, "income"] = "12,5"  # a decimal comma: the whole column would read as strings
    path = tmp_path / "typo.csv"
    df.to_csv(path, index=False)
    extra = []
    if command == "explain":
        import joblib
        from sklearn.linear_model import LinearRegression

        joblib.dump(LinearRegression().fit(np.ones((3, 2)), [0.0, 1.0, 2.0]), tmp_path / "m.joblib")
        extra = ["--model", str(tmp_path / "m.joblib")]
    code, err = _run(capsys, command, "--data", str(path), "--target", "y", *extra,
                     "--out", str(tmp_path / "o"))
    assert code == 2
    # (explain also notes that the array-fitted model gets the table's column order)
    lines = [line for line in err.strip().splitlines()
             if "fitted without column names" not in line]
    assert len(lines) == 1, err
    assert "column 'income'" in lines[0] and "'12,5'" in lines[0]


def test_a_typo_in_a_regression_target_is_the_example_shown(capsys, tmp_path):
    df = pd.DataFrame({"a": np.arange(50.0), "y": [str(v) for v in np.arange(50.0)]})
    df.loc[30, "y"] = "3O.0"
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    code, err = _run(capsys, "stream", "--data", str(path), "--target", "y", "--task",
                     "regression", "--out", str(tmp_path / "o"))
    assert code == 2
    assert "'3O.0'" in err


def test_a_code_column_with_a_few_words_stays_categorical(capsys, tmp_path):
    rng = np.random.default_rng(0)
    codes = rng.choice(["1", "2", "3"], 100).astype(object)
    codes[::25] = "other"
    df = pd.DataFrame({"code": codes, "a": rng.normal(size=100)})
    df["y"] = df["a"]
    df.to_csv(tmp_path / "c.csv", index=False)
    code, err = _run(capsys, "stream", "--data", str(tmp_path / "c.csv"), "--target", "y",
                     "--explain", "pfi", "--out", str(tmp_path / "o"), "--no-progress")
    assert code == 0, err


def test_warnings_during_a_run_are_one_line_each(tmp_path, csv_with_a_missing_value):
    from _cli_helpers import run_cli

    df = pd.read_csv(csv_with_a_missing_value).assign(empty=np.nan)  # warned about, left out
    df.to_csv(tmp_path / "warn.csv", index=False)
    proc = run_cli("stream", "--data", str(tmp_path / "warn.csv"), "--target", "y",
                   "--out", str(tmp_path / "o"), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines, "the empty column should be reported"
    assert all(line.startswith("ixplain: warning: ") for line in lines), proc.stderr
    assert "'empty' have no value" in proc.stderr


def test_missing_values_are_explained_and_counted_and_an_empty_column_is_left_out(
    capsys, tmp_path
):
    """Issue 15 item 1: 30% of the rows miss 'a' (which determines y) and one column is empty.
    The CLI's models impute missing values, so every row is explained (nan_policy='pass'); the
    summary and the report say how many rows each explainer explained; the empty column is left
    out with a warning, and 'a' keeps its importance (it used to be exactly 0)."""
    rng = np.random.default_rng(0)
    n = 1500
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "empty": np.nan})
    df["y"] = 2 * df["a"] + df["b"]
    df.loc[rng.random(n) < 0.3, "a"] = np.nan
    path = tmp_path / "holes.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "o"
    code, err = _run(capsys, "stream", "--data", str(path), "--target", "y", "--model", "linear",
                     "--explain", "pfi,pdp", "--pd-features", "b", "--out", str(out),
                     "--no-progress")
    assert code == 0, err
    assert "'empty' have no value" in err and "left out" in err
    summary = __import__("json").loads((out / "summary.json").read_text())
    assert summary["dropped_columns"] == ["empty"]
    counts = summary["rows_explained"]
    assert counts["pfi"] == {"seen": n, "explained": n - 1, "skipped": 0}  # row 0 only stored
    assert counts["pdp:b"]["explained"] == n
    assert set(summary["final_importances"]["pfi"]) == {"a", "b"}
    assert summary["final_importances"]["pfi"]["a"] > 1.0
    report = (out / "report.html").read_text()
    assert "rows explained" in report and "Left out, every value missing: &#x27;empty&#x27;" in report


def test_an_empty_target_or_only_empty_features_are_errors(capsys, tmp_path):
    df = pd.DataFrame({"a": [np.nan] * 50, "y": np.arange(50.0)})
    df.to_csv(tmp_path / "e.csv", index=False)
    code, err = _run(capsys, "stream", "--data", str(tmp_path / "e.csv"), "--target", "y",
                     "--out", str(tmp_path / "o"), "--no-progress")
    assert code != 0 and "every feature column is empty" in err
    df = pd.DataFrame({"a": np.arange(50.0), "y": [np.nan] * 50})
    df.to_csv(tmp_path / "t.csv", index=False)
    code, err = _run(capsys, "stream", "--data", str(tmp_path / "t.csv"), "--target", "y",
                     "--task", "regression", "--out", str(tmp_path / "o2"), "--no-progress")
    assert code != 0 and "target column 'y'" in err and "50 missing value(s)" in err


def test_rainfall_defaults_to_a_model_that_keeps_learning():
    """The Hoeffding tree stops splitting on rainfall after ~1,800 rows (every importance then
    decays to 0); the default there is the online logistic regression; --model still wins."""
    from ixplain.cli._stream import StreamConfig, _setup

    setup = _setup(StreamConfig(dataset="rainfall", n_rows=50, explain=["pfi"], progress=False))
    assert setup.model_name == "linear"
    setup = _setup(StreamConfig(dataset="bike", n_rows=50, explain=["pfi"], progress=False))
    assert setup.model_name == "hoeffding-tree"
    setup = _setup(StreamConfig(dataset="rainfall", model="arf", n_rows=50, explain=["pfi"],
                                progress=False))
    assert setup.model_name == "arf"


def test_integer_pd_features_are_shown_on_every_level(capsys, tmp_path):
    """The demo's hour was evaluated at even hours only (the 1-2-5 ladder chose step 2 for
    grid_resolution=20): an integer feature with at most 50 levels gets every level."""
    from ixplain.cli._stream_methods import integer_pd_options

    assert integer_pd_options(pd.Series(np.arange(24.0))) == {
        "grid_resolution": 24, "percentiles": (0.0, 1.0)}
    assert integer_pd_options(pd.Series([0.5, 1.0])) == {}
    assert integer_pd_options(pd.Series(np.arange(200))) == {}
    out = tmp_path / "o"
    code, err = _run(capsys, "stream", "--dataset", "bike", "--n-rows", "800", "--explain",
                     "pdp", "--pd-features", "hour,temp", "--out", str(out), "--no-progress")
    assert code == 0, err
    curves = pd.read_csv(out / "pd.csv")
    last = curves[(curves["feature"] == "hour") & (curves["row"] == curves["row"].max())]
    assert last["grid_value"].tolist() == list(range(24))  # one snapshot at the last row


def test_infinite_cells_are_missing_values_not_a_poisoned_scaler(capsys, tmp_path):
    """QA #218: one inf cell made the online scaler's mean infinite; 'income' then had
    importance exactly 0 for the whole run. Now inf is a missing value, with a warning."""
    rng = np.random.default_rng(0)
    n = 1500
    df = pd.DataFrame({"age": rng.normal(size=n), "income": rng.normal(size=n)})
    df["y"] = 2 * df["age"] + df["income"]
    df.loc[30, "income"] = np.inf
    df.to_csv(tmp_path / "inf.csv", index=False)
    code, err = _run(capsys, "stream", "--data", str(tmp_path / "inf.csv"), "--target", "y",
                     "--model", "linear", "--explain", "pfi", "--out", str(tmp_path / "o"),
                     "--no-progress")
    assert code == 0, err
    assert "infinite values are treated as missing: 'income' (1 row(s))" in err
    summary = __import__("json").loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["final_importances"]["pfi"]["income"] > 0.5


def test_bad_stream_options_are_usage_errors(capsys, tmp_path):
    code, err = _run(capsys, "stream", "--seed", "-1", "--out", str(tmp_path / "a"))
    assert code == 2 and "--seed must be >= 0" in err
    code, err = _run(capsys, "stream", "--dataset", "agrawal", "--n-rows", "99999999",
                     "--out", str(tmp_path / "b"), "--no-progress")
    assert code == 2 and "at most 1,000,000 rows" in err


def test_a_classification_loss_on_a_regression_stream_is_a_usage_error(capsys, tmp_path):
    code, err = _run(capsys, "stream", "--loss", "log_loss", "--n-rows", "50", "--out",
                     str(tmp_path / "o"), "--no-progress")
    assert code == 2 and "--loss log_loss needs a binary target" in err
