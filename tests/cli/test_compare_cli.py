"""``ixplain compare`` end to end on small CSVs: two models and two tables give change.csv/json,
curves.csv, PNGs and report.html whose numbers are compare()'s; bad inputs get one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from _cli_helpers import run_main
from sklearn.linear_model import LinearRegression

from ixplain.change import compare


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("compare")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    ref = pd.DataFrame(X, columns=["a", "b", "c"])
    ref["y"] = 2 * X[:, 0] + X[:, 1] + 0.2 * rng.normal(size=300)
    ref.to_csv(d / "ref.csv", index=False)
    Xc = rng.normal(size=(250, 3)) + [0.0, 0.0, 1.0]
    cur = pd.DataFrame(Xc, columns=["a", "b", "c"])
    cur["y"] = 2 * Xc[:, 0] + Xc[:, 2] + 0.2 * rng.normal(size=250)
    cur.to_csv(d / "cur.csv", index=False)
    joblib.dump(LinearRegression().fit(ref[["a", "b", "c"]], ref["y"]), d / "a.joblib")
    joblib.dump(LinearRegression().fit(cur[["a", "b", "c"]], cur["y"]), d / "b.joblib")
    joblib.dump(LinearRegression().fit(ref[["a", "b"]].to_numpy(), ref["y"]), d / "two.joblib")
    return d


def test_two_models_end_to_end_match_the_library(files, capsys):
    out = files / "out2m"
    code, stdout, err = run_main(
        capsys, "compare", "--reference", str(files / "ref.csv"), "--model",
        str(files / "a.joblib"), "--model-b", str(files / "b.joblib"), "--target", "y",
        "--methods", "pfi,pd,ale", "--out", str(out), "--seed", "3")
    assert code == 0, err
    for name in ("change.csv", "change.json", "curves.csv", "change_pfi.png"):
        assert (out / name).exists(), name
    assert list(out.glob("curve_pd_*.png")) and list(out.glob("curve_ale_*.png"))
    ref = pd.read_csv(files / "ref.csv")
    res = compare(joblib.load(files / "a.joblib"), ref[["a", "b", "c"]], ref["y"].to_numpy(),
                  model_b=joblib.load(files / "b.joblib"), methods=("pfi", "pd", "ale"),
                  random_state=3)
    frame = pd.read_csv(out / "change.csv")
    np.testing.assert_allclose(frame["delta"], res.to_frame()["delta"], rtol=1e-12)
    # model b dropped b: its PFI (on the reference labels 2a + b) fell by about 2 Var(b) = 2
    row = frame.loc[frame["feature"] == "b"]
    assert row["significant"].item() and row["delta"].item() < -1.5
    assert "changed significantly" in stdout
    data = json.loads((out / "change.json").read_text())
    assert set(data["curves"]) == {"pd", "ale"}
    if (out / "report.html").exists():
        html = (out / "report.html").read_text()
        assert "changed significantly" in html and "Report:" in stdout


def test_two_tables_label_free_with_the_shift_test(files, capsys):
    out = files / "out2t"
    code, stdout, err = run_main(
        capsys, "compare", "--reference", str(files / "ref.csv"), "--current",
        str(files / "cur.csv"), "--model", str(files / "a.joblib"), "--label-free",
        "--methods", "pfi,pd,shift", "--out", str(out))
    assert code == 0, err
    data = json.loads((out / "change.json").read_text())
    assert data["shift"]["p_value"] < 0.01  # c moved by 1
    assert data["importance"]["pfi"]["design"] == "independent"


@pytest.mark.parametrize("args, message", [
    (["--reference", "missing.csv", "--model", "a.joblib", "--model-b", "b.joblib",
      "--target", "y"], "cannot read missing.csv: no such file."),
    (["--reference", "ref.csv", "--model", "a.joblib", "--target", "y"],
     "nothing to compare: give --current"),
    (["--reference", "ref.csv", "--model", "nope.joblib", "--model-b", "b.joblib", "--target",
      "y"], "cannot load model nope.joblib: no such file."),
    (["--reference", "ref.csv", "--current", "cur2.csv", "--model", "a.joblib", "--target",
      "y"], "--current cur2.csv lacks the feature column(s) ['c']"),
    (["--reference", "ref.csv", "--model", "a.joblib", "--model-b", "two.joblib", "--target",
      "y"], "the model two.joblib failed to predict rows of ref.csv"),
    (["--reference", "ref.csv", "--model", "a.joblib", "--model-b", "b.joblib"],
     "--target is required"),
    (["--reference", "ref.csv", "--model", "a.joblib", "--model-b", "b.joblib", "--target",
      "y", "--methods", "pfi,shap"], "--methods: unknown method(s) ['shap']"),
])
def test_bad_inputs_give_one_clear_line(files, capsys, monkeypatch, args, message):
    monkeypatch.chdir(files)
    pd.read_csv(files / "cur.csv").drop(columns="c").to_csv(files / "cur2.csv", index=False)
    code, _, err = run_main(capsys, "compare", *args, "--out", str(files / "bad"))
    assert code == 2, err
    assert message in err and err.count("\n") == 1


def test_interaction_pairs_from_the_command_line_are_the_library_s(files, capsys):
    """Two additive (linear) models: every pairwise interaction of both is 0 up to the Monte
    Carlo draws, so no pair changes significantly; the CLI's rows are compare()'s."""
    out = files / "out_pairs"
    code, stdout, err = run_main(
        capsys, "compare", "--reference", str(files / "ref.csv"), "--model",
        str(files / "a.joblib"), "--model-b", str(files / "b.joblib"), "--target", "y",
        "--methods", "interactions", "--out", str(out), "--seed", "1")
    assert code == 0, err
    frame = pd.read_csv(out / "change.csv")
    pairs = frame.loc[frame["method"] == "interactions"]
    assert sorted(pairs["feature"]) == ["a x b", "a x c", "b x c"]
    assert not pairs["significant"].any()
    ref = pd.read_csv(files / "ref.csv")
    res = compare(joblib.load(files / "a.joblib"), ref[["a", "b", "c"]], ref["y"].to_numpy(),
                  model_b=joblib.load(files / "b.joblib"), methods=("interactions",),
                  random_state=1)
    np.testing.assert_allclose(pairs["delta"], res.to_frame()["delta"], rtol=1e-12, atol=1e-15)
    assert "pairwise Shapley interactions (SII)" in (out / "report.html").read_text()
