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


def test_ice_is_a_seeded_subset_and_pd_uses_every_row(saved, tmp_path):
    """Issue 15 item 10: ICE of --ice-rows rows (seeded), on the PD's grid; PD stays exact."""
    from ixplain import partial_dependence

    d, model, X, _ = saved
    args = ["explain", "--data", str(d / "houses.csv"), "--target", "MedHouseVal",
            "--model", str(d / "model.joblib"), "--methods", "pd,ice", "--pd-features",
            "MedInc", "--grid-resolution", "8", "--ice-rows", "40", "--seed", "1"]
    proc = run_cli(*args, "--out", str(tmp_path / "a"))
    assert proc.returncode == 0, proc.stderr
    ice = pd.read_csv(tmp_path / "a" / "ice.csv")
    rows = np.sort(ice["row"].unique())
    assert len(rows) == 40 and len(ice) == 40 * 8
    ref = partial_dependence(model, X, ["MedInc"], kind="both", grid_resolution=8)
    mine = ice.pivot(index="row", columns="grid_value", values="ice").to_numpy()
    np.testing.assert_allclose(mine, ref["individual"][0][rows], rtol=1e-12)
    pd_json = json.loads((tmp_path / "a" / "pd.json").read_text())
    np.testing.assert_allclose(pd_json["MedInc"]["average"], ref["average"][0], rtol=1e-12)
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["settings"]["ICE rows"] == "40 of 300 (random, seed 1)"
    assert run_cli(*args, "--out", str(tmp_path / "b")).returncode == 0
    assert pd.read_csv(tmp_path / "b" / "ice.csv").equals(ice)  # same seed, same rows


def test_a_failing_method_keeps_the_others_outputs(saved, tmp_path, monkeypatch, capsys):
    """Issue 15 item 6: SAGE failing no longer discards the PFI already computed."""
    from ixplain.cli import _static_methods, main

    def boom(run):
        raise RuntimeError("the model cannot take NaN")

    entry = _static_methods.STATIC_METHODS["sage"]
    monkeypatch.setitem(_static_methods.STATIC_METHODS, "sage",
                        _static_methods.StaticMethod(entry.needs, boom, entry.write, entry.plot,
                                                     entry.tables))
    d, *_ = saved
    out = tmp_path / "o"
    with pytest.raises(SystemExit) as info:
        main(["explain", "--data", str(d / "houses.csv"), "--target", "MedHouseVal",
              "--model", str(d / "model.joblib"), "--methods", "pfi,sage", "--out", str(out)])
    err = capsys.readouterr().err
    assert info.value.code == 1 and "sage: RuntimeError: the model cannot take NaN" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == {"sage": "RuntimeError: the model cannot take NaN"}
    assert set(summary["importances"]) == {"pfi"}
    assert (out / "importances.csv").is_file()
    assert "sage failed: RuntimeError" in (out / "report.html").read_text()


def test_bad_options_fail_before_any_computation(saved, tmp_path, capsys):
    from ixplain.cli import main

    d, *_ = saved
    for extra, message in ((["--loss", "nope"], "--loss must be one of absolute_error"),
                           (["--ice-rows", "-1"], "--ice-rows must be >= 0")):
        with pytest.raises(SystemExit) as info:
            main(["explain", "--data", str(d / "houses.csv"), "--target", "MedHouseVal",
                  "--model", str(d / "model.joblib"), "--out", str(tmp_path / "o"), *extra])
        assert info.value.code != 0 and message in capsys.readouterr().err


def test_default_methods_are_the_fast_set_and_the_slow_ones_opt_in(capsys):
    """Without --methods: pfi, sage, pd, ice, ale; hstat and interactions only when asked for
    (and --help says so)."""
    from ixplain.cli import main
    from ixplain.cli._static import ExplainConfig, _methods

    assert _methods(ExplainConfig("d.csv", "y", "m.joblib")) == ["pfi", "sage", "pd", "ice", "ale"]
    asked = ExplainConfig("d.csv", "y", "m.joblib", methods=["interactions", "pfi", "hstat"])
    assert _methods(asked) == ["pfi", "hstat", "interactions"]
    with pytest.raises(SystemExit):
        main(["explain", "--help"])
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())  # rich's box borders
    assert "default: the fast set pfi, sage, pd, ice, ale" in text and "opt-in" in text


@pytest.fixture(scope="module")
def extra_column(tmp_path_factory):
    """A table with a, b, c, y and a linear model fitted on the DataFrame [a, b]."""
    from sklearn.linear_model import LinearRegression

    d = tmp_path_factory.mktemp("extra")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200),
                          "c": rng.choice(["x", "z"], size=200)})
    frame["y"] = 2 * frame.a + frame.b
    frame.to_csv(d / "t.csv", index=False)
    joblib.dump(LinearRegression().fit(frame[["a", "b"]], frame.y), d / "lr.joblib")
    return d


def _explain(capsys, d, *extra):
    from _cli_helpers import run_main

    return run_main(capsys, "explain", "--data", str(d / "t.csv"), "--target", "y",
                    "--model", str(d / "lr.joblib"), "--methods", "pfi", *extra)


def test_default_features_are_the_fitted_columns_in_fitted_order(capsys, extra_column):
    """QA9 item 6: an extra column made every method fail; --features b,a failed too."""
    d = extra_column
    code, out, err = _explain(capsys, d, "--out", str(d / "o1"))
    assert code == 0, err
    assert "other column(s) of" in err and "['c'], are not used" in err
    first = json.loads((d / "o1" / "summary.json").read_text())["importances"]["pfi"]
    assert list(first) == ["a", "b"]
    code, _, err = _explain(capsys, d, "--features", "b,a", "--out", str(d / "o2"))
    assert code == 0, err
    second = json.loads((d / "o2" / "summary.json").read_text())["importances"]["pfi"]
    assert second == first  # reordered to the fitted order: the same run


@pytest.mark.parametrize("features, message", [
    ("a", "--features leaves out ['b']"),
    ("a,b,c", "--features names ['c'], which the model was not fitted on"),
])
def test_features_other_than_the_fitted_ones_are_an_option_error(capsys, extra_column, features,
                                                                 message):
    d = extra_column
    code, _, err = _explain(capsys, d, "--features", features, "--out", str(d / "o3"))
    assert code == 2 and message in err and "the model takes the column(s) ['a', 'b']" in err


def test_when_every_method_fails_the_message_says_nothing_was_explained(
        capsys, extra_column, monkeypatch):
    """QA9 item 6: it said "(no method)" and "the other methods' outputs are written"."""
    from ixplain.cli import _static_methods

    def boom(run):
        raise RuntimeError("cannot predict")

    for name in ("pfi", "sage"):
        entry = _static_methods.STATIC_METHODS[name]
        monkeypatch.setitem(_static_methods.STATIC_METHODS, name, _static_methods.StaticMethod(
            entry.needs, boom, entry.write, entry.plot, entry.tables))
    d = extra_column
    code, out, err = _explain(capsys, d, "--methods", "pfi,sage", "--out", str(d / "o4"))
    assert code == 1 and out == ""
    assert "every method failed" in err and "nothing was explained" in err
    assert "(no method)" not in err and "other methods' outputs" not in err
    assert sorted(p.name for p in (d / "o4").iterdir()) == ["report.html", "summary.json"]


def test_a_model_fitted_on_an_array_needs_as_many_columns_as_it_takes(extra_column):
    from sklearn.linear_model import LinearRegression

    from ixplain.cli._errors import CLIError
    from ixplain.cli._static import model_features

    model = LinearRegression().fit(np.eye(3)[:, :2], [0.0, 1.0, 2.0])
    cols = ["a", "b", "c", "y"]
    assert model_features(model, cols, "y", ["b", "a"], "t.csv") == ["b", "a"]  # as given
    with pytest.raises(CLIError, match=r"takes 2 feature\(s\) but 3 column\(s\)"):
        model_features(model, cols, "y", None, "t.csv")
    with pytest.warns(UserWarning, match=r"in the table's order: \['b', 'a'\]; if it was"):
        assert model_features(model, ["b", "a", "y"], "y", None, "t.csv") is None


def test_pd_features_without_pd_ice_or_ale_is_a_warning(capsys, extra_column):
    """QA9 item 15: --pd-features was ignored without a word with --methods pfi."""
    d = extra_column
    code, _, err = _explain(capsys, d, "--pd-features", "a", "--out", str(d / "o5"))
    assert code == 0 and "--pd-features is ignored: it picks the features of pd, ice and ale" in err


def test_a_model_fitted_on_an_array_gets_no_feature_names_warning(capsys, tmp_path):
    """A LinearRegression fitted on an array, explained on a CSV: scikit-learn warned "X has
    feature names, but LinearRegression was fitted without feature names" once per method
    (the adapter gave it the DataFrame); it now gets the array it was fitted on, and the
    numbers equal the library's on that array."""
    from _cli_helpers import run_main
    from sklearn.linear_model import LinearRegression

    from ixplain import partial_dependence, permutation_importance

    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.normal(size=120), "b": rng.normal(size=120)})
    frame["y"] = 2 * frame.a - frame.b + rng.normal(scale=0.1, size=120)
    frame.to_csv(tmp_path / "t.csv", index=False)
    X, y = frame[["a", "b"]].to_numpy(), frame.y.to_numpy()
    model = LinearRegression().fit(X, y)
    joblib.dump(model, tmp_path / "lr.joblib")
    code, _, err = run_main(capsys, "explain", "--data", str(tmp_path / "t.csv"), "--target",
                            "y", "--model", str(tmp_path / "lr.joblib"), "--methods", "pfi,pd",
                            "--grid-resolution", "5", "--seed", str(SEED), "--out",
                            str(tmp_path / "o"))
    assert code == 0, err
    assert "X has feature names" not in err, err
    # (one notice, from the CLI: nothing can check that the file's order is the fitted one)
    assert err.count("fitted without column names, so it gets the columns in the table's "
                     "order: ['a', 'b']") == 1, err
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    ref = permutation_importance(model, X, y, n_repeats=5, random_state=SEED)
    got = [summary["importances"]["pfi"][n] for n in ("a", "b")]
    np.testing.assert_allclose(got, ref.importances_mean, rtol=1e-12, atol=1e-15)
    pd_json = json.loads((tmp_path / "o" / "pd.json").read_text())
    ref_pd = partial_dependence(model, X, [0], grid_resolution=5)
    np.testing.assert_allclose(pd_json["a"]["average"], ref_pd["average"][0], rtol=1e-12)
