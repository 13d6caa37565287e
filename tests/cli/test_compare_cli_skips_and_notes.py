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
