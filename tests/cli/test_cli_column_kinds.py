"""How ``ixplain stream`` / ``explain`` read a column's kind: a typo in a numeric column or a
regression target is named (not one-hot encoded), a code column with a few words stays
categorical, integer PD features are shown on every level."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain.cli import main


def _run(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    return int(info.value.code or 0), capsys.readouterr().err


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
