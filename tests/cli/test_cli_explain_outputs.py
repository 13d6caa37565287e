"""QA 16 of ``ixplain explain``: the loss the settings name, outputs of failed methods, files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _cli_helpers import correlated_linear

pytest.importorskip("typer")
pytest.importorskip("sklearn")
joblib = pytest.importorskip("joblib")


@pytest.fixture(scope="module")
def linear(tmp_path_factory):
    return correlated_linear(tmp_path_factory.mktemp("qa16"), 300)


def _explain(d, out, *extra):
    from ixplain.cli import main

    try:
        main(["explain", "--data", str(d / "d.csv"), "--target", "y", "--model",
              str(d / "m.joblib"), "--seed", "1", "--out", str(out), *extra])
    except SystemExit as exc:
        return exc.code
    return 0


def test_removal_both_names_the_loss_both_removals_share(linear, tmp_path):
    """Conditional PFI needs a loss, so with --removal both the marginal PFI uses it too (same
    units side by side); the settings and the axis say so instead of "model score"."""
    from ixplain import permutation_importance

    d, model, frame = linear
    assert _explain(d, tmp_path / "b", "--methods", "pfi", "--removal", "both") == 0
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    ref = permutation_importance(model, frame[["a", "b", "c"]], frame["y"].to_numpy(),
                                 loss="squared_error", n_repeats=5, random_state=1)
    marg = summary["importances"]["pfi"]
    np.testing.assert_allclose([marg[n] for n in "abc"], ref.importances_mean, rtol=1e-12)
    loss = summary["settings"]["loss"]
    assert loss.startswith("squared_error (PFI") and "model score" not in loss
    assert "SAGE" not in loss  # only pfi ran
    assert loss == "squared_error (PFI, both removals: conditional needs a loss)"
    assert _explain(d, tmp_path / "c", "--methods", "pfi", "--removal", "conditional") == 0
    conditional = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert conditional["settings"]["loss"] == "squared_error (PFI: conditional needs a loss)"
    assert _explain(d, tmp_path / "m", "--methods", "pfi") == 0
    marginal = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert marginal["settings"]["loss"] == "model score (PFI)"


def test_files_are_listed_once(linear, tmp_path):
    d, *_ = linear
    assert _explain(d, tmp_path / "o", "--methods", "pfi,sage,pd") == 0
    files = json.loads((tmp_path / "o" / "summary.json").read_text())["files"]
    assert len(files) == len(set(files)) and "importances.csv" in files
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["settings"]["loss"] == (
        "model score (PFI); squared_error (SAGE)")


def test_when_every_method_fails_only_summary_and_report_are_written(tmp_path, capsys):
    """A NaN in ``u``: LogisticRegression refuses every input with it, but PD on ``u`` itself
    (which replaces ``u``) used to succeed before the next feature failed, so pd.png and ale.png
    were drawn from half-computed curves whose data was never written."""
    from sklearn.linear_model import LogisticRegression

    from ixplain.cli import main

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"u": rng.normal(size=80), "v": rng.normal(size=80)})
    frame["t"] = (frame["u"] + frame["v"] > 0).astype(int)
    model = LogisticRegression().fit(frame[["u", "v"]], frame["t"])
    frame.loc[3, "u"] = np.nan
    frame.to_csv(tmp_path / "clf_nan.csv", index=False)
    joblib.dump(model, tmp_path / "clf.joblib")
    out = tmp_path / "o"
    with pytest.raises(SystemExit) as info:
        main(["explain", "--data", str(tmp_path / "clf_nan.csv"), "--target", "t", "--model",
              str(tmp_path / "clf.joblib"), "--pd-features", "u,v", "--out", str(out)])
    assert info.value.code == 1 and "nothing was explained" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "summary.json"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["files"] == ["summary.json", "report.html"]
    assert set(summary["failed"]) == {"pfi", "sage", "pd", "ice", "ale"}
