"""The method registries of the commands: every entry names a public explainer, and a new
entry plugs into ``ixplain explain`` with its own files, plots and tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")
joblib = pytest.importorskip("joblib")
pytest.importorskip("sklearn")


def test_every_entry_needs_a_public_explainer():
    import ixplain
    from ixplain.cli._static_methods import STATIC_METHODS
    from ixplain.cli._stream_methods import STREAM_METHODS

    for registry in (STATIC_METHODS, STREAM_METHODS):
        for name, entry in registry.items():
            assert hasattr(ixplain, entry.needs), (name, entry.needs)
    assert list(STATIC_METHODS) == ["pfi", "sage", "pd", "ice", "ale", "hstat", "interactions"]
    assert list(STREAM_METHODS) == ["pfi", "sage", "pdp", "ale", "drift", "interactions"]
    # the costly methods are opt-in (--methods / --explain), the classic set is the default
    assert [m for m, e in STATIC_METHODS.items() if e.default] == ["pfi", "sage", "pd", "ice",
                                                                   "ale"]
    assert [m for m, e in STREAM_METHODS.items() if not e.default] == ["interactions"]


def test_a_new_static_method_is_one_entry_plus_its_functions(tmp_path, monkeypatch):
    from sklearn.linear_model import LinearRegression

    from ixplain.cli import _static_methods as sm
    from ixplain.cli._static import ExplainConfig, run_explain
    from ixplain.cli._writers import write_frame

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    frame["y"] = 3.0 * frame["a"]
    frame.to_csv(tmp_path / "d.csv", index=False)
    joblib.dump(LinearRegression().fit(frame[["a", "b"]], frame["y"]), tmp_path / "m.joblib")

    def compute(run):  # the "method": each feature's mean prediction slope, a stand-in
        run.results["slopes"] = {n: float(run.model.coef_[j]) for j, n in enumerate(run.names)}

    def write(run):
        return write_frame(run.out, "slopes", pd.DataFrame({"slope": run.results["slopes"]}))

    def tables(run):
        rows = [[k, v] for k, v in run.results["slopes"].items()]
        return [("Slopes", ["feature", "slope"], rows)]

    entry = sm.StaticMethod("partial_dependence", compute, write, lambda run: [], tables)
    monkeypatch.setitem(sm.STATIC_METHODS, "slopes", entry)
    out = tmp_path / "out"
    cfg = ExplainConfig(data=str(tmp_path / "d.csv"), target="y", model=str(tmp_path / "m.joblib"),
                        methods=["slopes", "pfi"], n_repeats=2)
    summary = run_explain(cfg, out)
    assert summary["methods"] == ["pfi", "slopes"]  # registry order
    assert "slopes.csv" in summary["files"] and "importances.csv" in summary["files"]
    assert pd.read_csv(out / "slopes.csv")["slope"].tolist() == pytest.approx([3.0, 0.0], abs=1e-9)
    assert "Slopes" in (out / "report.html").read_text()
    assert json.loads((out / "summary.json").read_text())["files"] == summary["files"]
