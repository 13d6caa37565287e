"""``ixplain stream --alpha`` far below 1/rows is warned: the exponential means start at 0,
so the explanations would read a small fraction of their size at the end, silently."""

import warnings

import pytest
from _cli_helpers import run_main

from ixplain.cli._alpha import check_alpha, stream_weight

pytest.importorskip("river")
pytest.importorskip("typer")


def test_the_weight_is_the_exponential_means_closed_form():
    assert stream_weight(1e-6, 10_000) == pytest.approx(1 - (1 - 1e-6) ** 10_000, rel=1e-12)
    assert stream_weight(0.05, 300) == pytest.approx(1 - 0.95**300)


@pytest.mark.parametrize("alpha, n, warned", [
    (1e-6, 10_000, True), (2e-5, 10_000, True), (5e-5, 10_000, False), (5e-4, 300, True),
    (0.001, 300, False), (0.05, 300, False), (1.0, 1, False), (None, 10, False),
])
def test_warned_below_a_quarter_of_the_weight(alpha, n, warned):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_alpha(alpha, n)
    assert bool(caught) == warned
    if warned:
        text = str(caught[0].message)
        assert f"--alpha {alpha:g} is far below 1/rows" in text and f"{n:,} rows" in text
        assert f"{stream_weight(alpha, n):.1%}" in text


def test_the_command_prints_the_warning(capsys, tmp_path):
    # before: the run finished silently with importances about 3% of their size
    code, _, err = run_main(capsys, "stream", "--n-rows", "300", "--alpha", "0.0001",
                            "--explain", "pfi", "--out", str(tmp_path / "out"))
    assert code == 0
    assert "ixplain: warning: --alpha 0.0001 is far below 1/rows (0.00333 for 300 rows)" in err
    assert "carry only 3.0% of their weight" in err
