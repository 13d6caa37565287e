"""``ixplain stream`` options checked before the run: an unusable output folder, bad options and a
classification loss on a regression stream are one-line usage errors; the default model for
rainfall keeps learning."""

from __future__ import annotations

import pytest

from ixplain.cli import main


def _run(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    return int(info.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize("make_out", [
    lambda d: d / "afile" / "sub",     # parent is a regular file
    lambda d: d / "afile",             # --out is an existing file
])
def test_unusable_out_fails_before_the_run_with_one_clear_line(capsys, tmp_path, make_out):
    (tmp_path / "afile").write_text("x")
    out = make_out(tmp_path)
    code, err = _run(capsys, "stream", "--dataset", "bike", "--n-rows", "50", "--out", str(out),
                     "--no-progress")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"ixplain: error: cannot write to --out {out}")
    assert "Traceback" not in err


def test_rainfall_defaults_to_a_model_that_keeps_learning():
    """The Hoeffding tree stops splitting on rainfall after ~1,800 rows (every importance then
    decays to 0); the default there is the online logistic regression; --model still wins."""
    from ixplain.cli._stream import StreamConfig, _setup

    setup = _setup(StreamConfig(dataset="rainfall", n_rows=50, explain=["pfi"], progress=False))
    assert setup.model_name == "linear"
    setup = _setup(StreamConfig(dataset="bike", n_rows=50, explain=["pfi"], progress=False))
    assert setup.model_name == "hoeffding-tree"
    setup = _setup(StreamConfig(dataset="rainfall", model="arf", n_rows=50, explain=["pfi"],
                                progress=False))
    assert setup.model_name == "arf"


def test_bad_stream_options_are_usage_errors(capsys, tmp_path):
    code, err = _run(capsys, "stream", "--seed", "-1", "--out", str(tmp_path / "a"))
    assert code == 2 and "--seed must be >= 0" in err
    code, err = _run(capsys, "stream", "--dataset", "agrawal", "--n-rows", "99999999",
                     "--out", str(tmp_path / "b"), "--no-progress")
    assert code == 2 and "at most 1,000,000 rows" in err


def test_a_classification_loss_on_a_regression_stream_is_a_usage_error(capsys, tmp_path):
    code, err = _run(capsys, "stream", "--loss", "log_loss", "--n-rows", "50", "--out",
                     str(tmp_path / "o"), "--no-progress")
    assert code == 2 and "--loss log_loss needs a binary target" in err
