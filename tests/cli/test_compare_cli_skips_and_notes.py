"""``ixplain compare`` keeps going when one method cannot run for one feature (ALE of a column
constant on one side only): the other results are written and a true note is printed."""

from __future__ import annotations

import json
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from _cli_helpers import run_main
from sklearn.linear_model import LinearRegression


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("compare_notes")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    ref = pd.DataFrame(X, columns=["a", "b", "c"])
    ref["y"] = 2 * X[:, 0] + X[:, 1] + 0.2 * rng.normal(size=200)
    ref.to_csv(d / "ref.csv", index=False)
    ref.assign(c=1.0).to_csv(d / "ref_const.csv", index=False)
    joblib.dump(LinearRegression().fit(ref[["a", "b", "c"]], ref["y"]), d / "m.joblib")
    return d


def test_ale_of_a_one_sided_constant_is_skipped_with_a_true_note(files, capsys):
    out = files / "out_const"
    code, stdout, err = run_main(
        capsys, "compare", "--reference", str(files / "ref_const.csv"), "--current",
        str(files / "ref.csv"), "--model", str(files / "m.joblib"), "--target", "y",
        "--methods", "pfi,pd,ale", "--out", str(out))
    assert code == 0, err
    assert "Note: ALE of 'c' skipped" in stdout and "constant on both sides" not in stdout
    data = json.loads((out / "change.json").read_text())
    assert set(data["curves"]["ale"]) == {"a", "b"} and set(data["curves"]["pd"]) == {"a", "b", "c"}
    assert data["importance"]["pfi"]["features"] == ["a", "b", "c"]


@pytest.mark.parametrize("side", ["--reference", "--current"])
@pytest.mark.parametrize("edit, message", [
    (lambda f: f.assign(b=f["b"].astype(str) + "x"),
     "feature column 'b' in bad.csv holds 200 value(s) that are not numbers, such as "),
    (lambda f: f.assign(a=f["a"].where(f.index != 3)),
     "feature column 'a' in bad.csv has 1 missing or infinite value(s), the first (nan) in "
     "data row 4"),
    (lambda f: f.assign(c=f["c"].where(f.index != 150, np.inf)),
     "feature column 'c' in bad.csv has 1 missing or infinite value(s), the first (inf) in "
     "data row 151"),
])
def test_bad_values_are_named_on_either_side(files, capsys, monkeypatch, side, edit, message):
    monkeypatch.chdir(files)
    edit(pd.read_csv(files / "ref.csv")).to_csv(files / "bad.csv", index=False)
    other = "--current" if side == "--reference" else "--reference"
    code, _, err = run_main(capsys, "compare", side, "bad.csv", other, "ref.csv", "--model",
                            "m.joblib", "--target", "y", "--methods", "pfi",
                            "--out", str(files / "out_bad"))
    assert code == 2, err
    assert message in err and err.count("\n") == 1
    assert "is it the model for these columns" not in err


def test_label_free_with_a_target_says_the_target_is_unused(files, capsys):
    out = files / "out_lf"
    code, stdout, err = run_main(
        capsys, "compare", "--reference", str(files / "ref.csv"), "--current",
        str(files / "ref_const.csv"), "--model", str(files / "m.joblib"), "--label-free",
        "--target", "y", "--methods", "pfi", "--out", str(out))
    assert code == 0, err
    assert "Note: --target 'y' is not used with --label-free" in stdout
    data = json.loads((out / "change.json").read_text())
    assert data["importance"]["pfi"]["features"] == ["a", "b", "c"]
    assert any("--label-free" in n for n in data["notes"])
