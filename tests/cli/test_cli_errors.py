"""Bad input to the CLI: one clear line on stderr, a non-zero exit, no traceback unless --debug."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest
from _cli_helpers import run_cli, run_main

pytest.importorskip("typer")
pytest.importorskip("river")

from ixplain.cli import main
from ixplain.cli._errors import CLIError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "empty.csv").write_bytes(b"")
    (d / "header_only.csv").write_text("a,b,y\n")
    (d / "bad.parquet").write_bytes(b"this is not parquet")
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.5, 0.1, 0.2], "y": ["x", "y", "z"]}).to_csv(
        d / "strings.csv", index=False
    )
    pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]}).to_csv(
        d / "ok.csv", index=False
    )
    hours = pd.to_timedelta(range(40), unit="h")
    pd.DataFrame({"t": pd.Timestamp("2024-01-01") + hours, "d": hours,
                  "a": [0.5 * i for i in range(40)], "y": [float(i % 7) for i in range(40)]},
                 ).to_parquet(d / "dates.parquet")
    pd.read_parquet(d / "dates.parquet").drop(columns="a").to_parquet(d / "only_dates.parquet")
    # a CSV's dates are text (one level per row); ids too
    many = pd.to_timedelta(range(150), unit="h")
    pd.DataFrame({"t": (pd.Timestamp("2024-01-01") + many).astype(str),
                  "id": [f"u{i}" for i in range(150)], "c": ["p", "q", "r"] * 50,
                  "a": [0.5 * i for i in range(150)], "y": [float(i % 7) for i in range(150)]},
                 ).to_csv(d / "text_dates.csv", index=False)
    (d / "corrupt.joblib").write_bytes(b"\x80\x04not a pickle at all")
    with open(d / "nopredict.pkl", "wb") as fh:
        pickle.dump({"not": "a model"}, fh)
    return d


CASES = [
    # (id, args (with {d} for the files folder), expected text on stderr)
    ("missing-file", ["stream", "--data", "{d}/nope.csv", "--target", "y"], "no such file"),
    ("empty-file", ["stream", "--data", "{d}/empty.csv", "--target", "y"], "the file is empty"),
    ("no-rows", ["stream", "--data", "{d}/header_only.csv", "--target", "y"], "no data rows"),
    ("unreadable", ["stream", "--data", "{d}/bad.parquet", "--target", "y"], "as Parquet"),
    (
        "missing-column",
        ["stream", "--data", "{d}/ok.csv", "--target", "price"],
        "target column 'price' is not in",
    ),
    (
        "missing-feature",
        ["stream", "--data", "{d}/ok.csv", "--target", "y", "--features", "a,zz"],
        "feature column 'zz' is not in",
    ),
    (
        "non-numeric-regression-target",
        ["stream", "--data", "{d}/strings.csv", "--target", "y", "--task", "regression"],
        "is not numeric",
    ),
    (
        "unknown-model",
        ["stream", "--data", "{d}/ok.csv", "--target", "y", "--model", "deep-forest"],
        "unknown model 'deep-forest' for a regression task; choose one of",
    ),
    ("unknown-dataset", ["stream", "--dataset", "mnist"], "unknown dataset 'mnist'"),
    (
        "unknown-method",
        ["stream", "--data", "{d}/ok.csv", "--target", "y", "--explain", "shap"],
        "unknown method 'shap'",
    ),
    (
        # drift watches iPFI / iSAGE values: alone it ran, exited 0 and wrote no events
        "drift-without-importance",
        ["stream", "--data", "{d}/ok.csv", "--target", "y", "--explain", "pdp,drift"],
        "add one of them, e.g. --explain pfi,drift",
    ),
    # an empty --explain fell back to the default methods without a word
    ("empty-explain", ["stream", "--explain", " , "], "--explain got no method name"),
    ("bad-alpha", ["stream", "--alpha", "2"], "--alpha must be in (0, 1]"),
    (
        "unreadable-model",
        ["explain", "--data", "{d}/ok.csv", "--target", "y", "--model", "{d}/corrupt.joblib"],
        # QA9 item 15: it said "cannot load model ...: KeyError: 110"
        "corrupt.joblib: it is not a model file joblib/pickle can load (",
    ),
    (
        # QA9 item 15: failed after starting with the explainer's ValueError (exit 1)
        "interactions-of-one-feature",
        ["stream", "--data", "{d}/ok.csv", "--target", "y", "--explain", "sage,interactions"],
        "--explain interactions needs at least 2 features; the stream has 1 (a)",
    ),
    (
        # a date column for iPDP stopped the run at its first row (exit 1, model called)
        "pd-features-date-column",
        ["stream", "--data", "{d}/dates.parquet", "--target", "y", "--explain", "pfi,pdp",
         "--pd-features", "a,t"],
        "--pd-features: 't' holds dates or datetimes (dtype datetime64[",
    ),
    (
        "pd-features-duration-column",
        ["stream", "--data", "{d}/dates.parquet", "--target", "y", "--explain", "pdp",
         "--pd-features", "d"],
        "--pd-features: 'd' holds durations (dtype timedelta64[",
    ),
    (
        # QA (session 11): a CSV's dates are text; pdp took them as 150 levels, a grid that
        # grows by one value per row and output that grows with the square of the rows
        "pd-features-dates-as-text",
        ["stream", "--data", "{d}/text_dates.csv", "--target", "y", "--explain", "pdp",
         "--pd-features", "t"],
        "--pd-features: 't' has 150 distinct values (at most 100 for pdp, whose grid of a "
        "categorical feature holds every level seen): it holds dates written as text (e.g. "
        "'2024-01-01 00:00:00')",
    ),
    (
        "pd-features-id-column",
        ["stream", "--data", "{d}/text_dates.csv", "--target", "y", "--explain", "pdp",
         "--pd-features", "id"],
        "it is a text column; pick a feature with fewer levels, or a number.",
    ),
    (
        "missing-model",
        ["explain", "--data", "{d}/ok.csv", "--target", "y", "--model", "{d}/none.joblib"],
        "no such file",
    ),
    (
        "model-without-predict",
        ["explain", "--data", "{d}/ok.csv", "--target", "y", "--model", "{d}/nopredict.pkl"],
        "has no predict method",
    ),
    (
        "explain-missing-column",
        ["explain", "--data", "{d}/ok.csv", "--target", "q", "--model", "{d}/corrupt.joblib"],
        "target column 'q' is not in",
    ),
]


@pytest.mark.parametrize("args, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_clear_line(capsys, files, tmp_path, args, message):
    args = [a.format(d=files) for a in args] + ["--out", str(tmp_path / "o")]
    code, _, err = run_main(capsys, *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ixplain: error: ")
    assert message in lines[0]
    assert "Traceback" not in err


def test_debug_shows_the_exception(files, tmp_path):
    with pytest.raises(CLIError, match="no such file"):
        main(["stream", "--data", f"{files}/nope.csv", "--target", "y", "--debug"])


def test_real_process_prints_one_line_and_exits_non_zero(files):
    proc = run_cli("stream", "--data", f"{files}/strings.csv", "--target", "y", "--task",
                   "regression")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"ixplain: error: target column 'y' in {files}/strings.csv is not numeric (e.g. 'x'); "
        "a regression target must be numbers."
    )


def test_skops_file_without_skops_or_untrusted_types(capsys, files, tmp_path):
    path = files / "model.skops"
    path.write_bytes(b"PK\x03\x04 not really a skops archive")
    code, _, err = run_main(capsys, "explain", "--data", f"{files}/ok.csv", "--target", "y",
                            "--model", str(path), "--out", str(tmp_path / "o"))
    assert code == 2 and err.count("\n") == 1
    try:
        import skops.io  # noqa: F401
    except ImportError:
        assert "needs skops (pip install skops)" in err
    else:
        assert "as skops" in err


@pytest.mark.parametrize("command", [[], ["stream"], ["explain"], ["datasets"]])
def test_help_option_shows_no_value_type(capsys, command):
    """QA9 item 15: typer printed ``<bool>`` beside --help (a flag that takes no value)."""
    code, out, _ = run_main(capsys, *command, "--help")
    lines = [line for line in out.splitlines() if "--help" in line]
    assert code == 0 and len(lines) == 1 and "<bool>" not in lines[0], lines


def test_pd_features_without_a_curve_method_is_a_warning(capsys, files, tmp_path):
    """QA9 item 15: --pd-features was ignored without a word when pdp/ale were not run."""
    code, _, err = run_main(capsys, "stream", "--data", f"{files}/ok.csv", "--target", "y",
                            "--explain", "pfi", "--pd-features", "a", "--no-progress",
                            "--out", str(tmp_path / "o"))
    assert code == 0
    assert "ixplain: warning: --pd-features is ignored: it picks the features of pdp and ale" in err


def test_a_date_column_for_pdp_is_refused_before_the_model_is_called(capsys, files, tmp_path,
                                                                      monkeypatch):
    """The refusal of a date column for pdp comes before any model call and any output."""
    import river.linear_model

    calls = []
    for name in ("predict_one", "learn_one"):
        original = getattr(river.linear_model.LinearRegression, name)
        monkeypatch.setattr(river.linear_model.LinearRegression, name,
                            lambda self, *a, _o=original, **k: calls.append(1) or _o(self, *a, **k))
    code, _, err = run_main(capsys, "stream", "--data", f"{files}/dates.parquet", "--target",
                            "y", "--explain", "pdp", "--pd-features", "t", "--model", "linear",
                            "--out", str(tmp_path / "o"))
    assert code == 2 and "'t' holds dates" in err
    assert "pdp (iPDP) cannot put them on a grid" in err
    out = tmp_path / "o"
    assert calls == [] and not (out.exists() and any(out.iterdir()))  # (no output either)


def test_pdp_and_ale_take_no_date_column_by_default(capsys, files, tmp_path):
    """Without --pd-features, pdp explains the numeric 'a' (never the dates 't', 'd'), and
    the run goes through."""
    code, _, err = run_main(capsys, "stream", "--data", f"{files}/dates.parquet", "--target",
                            "y", "--explain", "pdp", "--no-progress", "--out",
                            str(tmp_path / "o"))
    assert code == 0, err
    assert set(pd.read_csv(tmp_path / "o" / "pd.csv")["feature"]) == {"a"}


def test_pdp_of_a_stream_whose_features_are_all_dates_warns(capsys, files, tmp_path):
    """Every feature a date or a duration: the default took the first ('t'), and iPDP
    stopped the run at its first row (exit 1); pdp now explains none, with a warning."""
    code, _, err = run_main(capsys, "stream", "--data", f"{files}/only_dates.parquet",
                            "--target", "y", "--explain", "pfi,pdp", "--no-progress", "--out",
                            str(tmp_path / "o"))
    assert code == 0, err
    assert ("ixplain: warning: --explain pdp: no feature to explain, every feature holds "
            "dates or durations (t, d)") in err


def test_pdp_takes_a_text_column_of_few_levels(capsys, files, tmp_path):
    """A text column of 3 levels is still a pdp feature (the limit is on many levels)."""
    code, _, err = run_main(capsys, "stream", "--data", f"{files}/text_dates.csv", "--target",
                            "y", "--explain", "pdp", "--pd-features", "c", "--no-progress",
                            "--out", str(tmp_path / "o"))
    assert code == 0, err
    assert set(pd.read_csv(tmp_path / "o" / "pd.csv")["feature"]) == {"c"}
