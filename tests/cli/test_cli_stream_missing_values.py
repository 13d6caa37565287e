"""Missing and infinite cells in ``ixplain stream``: they do not poison the model or its scaler,
are explained and counted, an empty column is left out, an empty target is an error, and each
warning is one line."""

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
