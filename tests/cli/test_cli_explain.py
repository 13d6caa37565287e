"""End-to-end ``ixplain explain`` (subprocess): a saved scikit-learn model on a table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _cli_helpers import run_cli

pytest.importorskip("typer")
sklearn = pytest.importorskip("sklearn")
joblib = pytest.importorskip("joblib")

SEED = 4


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    from sklearn.ensemble import HistGradientBoostingRegressor

    from ixplain.datasets import load_california_housing

    d = tmp_path_factory.mktemp("explain")
    frame = load_california_housing().sample(300, random_state=0).reset_index(drop=True)
    frame = frame[["MedInc", "HouseAge", "AveRooms", "Latitude", "MedHouseVal"]]
    X, y = frame.drop(columns="MedHouseVal"), frame["MedHouseVal"]
    model = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, y)
    frame.to_csv(d / "houses.csv", index=False)
    joblib.dump(model, d / "model.joblib")
    return d, model, X, y


@pytest.fixture(scope="module")
def explain_run(saved):
    d, *_ = saved
    out = d / "out"
    proc = run_cli(
        "explain", "--data", str(d / "houses.csv"), "--target", "MedHouseVal",
        "--model", str(d / "model.joblib"), "--methods", "pfi,sage,pd,ice",
        "--pd-features", "MedInc,Latitude", "--grid-resolution", "10",
        "--seed", str(SEED), "--out", str(out),
    )
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_explain_numbers_equal_the_library_api(explain_run, saved):
    from ixplain import partial_dependence, permutation_importance, sage

    out, _ = explain_run
    _, model, X, y = saved
    summary = json.loads((out / "summary.json").read_text())
    names = list(X.columns)
    pfi = permutation_importance(model, X, y.to_numpy(), n_repeats=5, random_state=SEED)
    got = np.array([summary["importances"]["pfi"][n] for n in names])
    np.testing.assert_allclose(got, pfi.importances_mean, rtol=1e-12, atol=1e-15)
    got_std = np.array([summary["std"]["pfi"][n] for n in names])
    np.testing.assert_allclose(got_std, pfi.importances_std, rtol=1e-12, atol=1e-15)
    sg = sage(model, X, y.to_numpy(), loss="squared_error", random_state=SEED)
    got = np.array([summary["importances"]["sage"][n] for n in names])
    np.testing.assert_allclose(got, sg.importances_mean, rtol=1e-12, atol=1e-15)
    pd_json = json.loads((out / "pd.json").read_text())
    ice = pd.read_csv(out / "ice.csv")
    for f in ("MedInc", "Latitude"):
        ref = partial_dependence(model, X, [f], kind="both", grid_resolution=10, random_state=SEED)
        np.testing.assert_allclose(pd_json[f]["grid_values"], ref["grid_values"][0])
        np.testing.assert_allclose(pd_json[f]["average"], ref["average"][0], rtol=1e-12)
        mine = ice[ice["feature"] == f].pivot(index="row", columns="grid_value", values="ice")
        np.testing.assert_allclose(mine.to_numpy(), ref["individual"][0], rtol=1e-12)


def test_explain_outputs_are_well_formed(explain_run):
    out, proc = explain_run
    for name in ("importances.csv", "importances.json", "pd.csv", "pd.json", "ice.csv",
                 "summary.json", "report.html", "importance_final.png", "pd.png"):
        assert (out / name).is_file(), name
    imp = pd.read_csv(out / "importances.csv")
    assert list(imp.columns) == ["method", "feature", "importance", "std"]
    assert len(imp) == 2 * 4 and imp["importance"].notna().all()
    html = (out / "report.html").read_text()
    assert html.count('src="data:image/png;base64,') == 2
    assert "Report:" in proc.stdout


def test_explain_help_warns_that_pickles_execute_code(capsys):
    from ixplain.cli import main

    with pytest.raises(SystemExit) as info:
        main(["explain", "--help"])
    assert info.value.code in (0, None)
    text = " ".join(capsys.readouterr().out.split())
    assert "executes code" in text and ".skops" in text
