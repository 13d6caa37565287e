"""The drift benchmark's ``--only``: whole words of the stream names, not substrings; a whole
stream name selects that stream alone."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("river")

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_explanation_drift.py"
NAMES = ["1 agrawal 1->2 abrupt", "1 agrawal 1->2 abrupt (static)", "1 agrawal 1->2 gradual",
         "2 salary<->commission", "2 salary<->commission (static)",
         "3 copy switch (error-blind)", "4 stationary agrawal (static)", "4 stationary agrawal",
         "4 stationary bike 2011", "5 friedman gra", "5 friedman lea"]


def _selected():
    spec = importlib.util.spec_from_file_location("bench_explanation_drift", _PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module.selected


@pytest.mark.parametrize(("only", "expected"), [
    ("gra", ["5 friedman gra"]),  # (a substring of "agrawal": selected it too before)
    ("GRA", ["5 friedman gra"]),
    ("static", [NAMES[1], NAMES[4], NAMES[6]]),
    ("friedman", NAMES[-2:]),
    ("4 stationary", NAMES[6:9]),
    ("bike", ["4 stationary bike 2011"]),
    ("agrawal", NAMES[:3] + NAMES[6:8]),
    ("2 salary<->commission (static)", [NAMES[4]]),
    # a whole name selects that stream, not its "(static)" twin (whose words contain its own)
    ("1 agrawal 1->2 abrupt", [NAMES[0]]),
    ("2 Salary<->Commission ", [NAMES[3]]),
    ("4 stationary agrawal", [NAMES[7]]),
    ("1 agrawal 1->2", NAMES[:3]),  # (not a whole name: the words, in a row)
    ("stationary 4", []),  # words in another order
    ("", NAMES),
])
def test_only_selects_whole_words_of_the_stream_name(only, expected):
    selected = _selected()
    assert [n for n in NAMES if selected(n, only, NAMES)] == expected
