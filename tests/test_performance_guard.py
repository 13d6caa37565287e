"""The performance guard (``benchmarks/guard.py``): a ratio under its floor fails the run with
exit status 1 and names the case; ratios at or above their floors pass; every case has a floor.

The cases here are stand-ins that sum a range (timed in CPU time, the guard's default), so the
verdicts do not depend on the speed or the load of the machine: the anchor sums a range ten
times longer or shorter than ixplain's.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def guard(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import _guard_cases
    import guard as module

    return module, _guard_cases


def _busy_case(cases, ours: int, anchor: int):
    """A case whose ixplain call sums ``range(ours)`` and whose anchor sums ``range(anchor)``."""
    return lambda full: cases.Case("stand-in", "busy", lambda: sum(range(ours)),
                                   lambda: sum(range(anchor)))


def _install(monkeypatch, guard, ratios: dict[str, float]) -> None:
    module, cases = guard
    stand_ins = {name: _busy_case(cases, 100_000, int(100_000 * r))
                 for name, r in ratios.items()}
    monkeypatch.setattr(cases, "CASES", stand_ins)
    monkeypatch.setattr(module, "FLOORS", {name: (2.0, 10.0) for name in ratios})


def test_a_ratio_below_its_floor_fails_the_run_and_names_the_case(guard, monkeypatch, capsys):
    _install(monkeypatch, guard, {"faster": 10.0, "slower": 0.1})
    assert guard[0].main(["--repeats", "3"]) == 1
    out = capsys.readouterr().out
    verdicts = {line.split()[0]: line for line in out.splitlines() if "stand-in" in line}
    assert " ok " in verdicts["faster"] and "FAIL" not in verdicts["faster"]
    assert " FAIL " in verdicts["slower"]
    assert "guard FAILED: 1 of 2 case(s) below their floor: slower" in out


def test_ratios_at_or_above_their_floors_pass(guard, monkeypatch, capsys):
    _install(monkeypatch, guard, {"a": 10.0, "b": 8.0})
    assert guard[0].main(["--repeats", "3"]) == 0
    assert "guard passed: 2 case(s)" in capsys.readouterr().out


def test_the_ratio_is_anchor_time_over_ixplain_time(guard):
    module, cases = guard
    m = module.measure(_busy_case(cases, 400_000, 2_000_000)(False), 3, time.process_time)
    assert 2.5 < m["ratio"] < 10  # 5 (its inverse would be 0.2), with room for a busy machine
    assert m["spread"][0] <= m["ratio"] <= m["spread"][1]


def test_every_case_has_one_positive_floor(guard):
    module, cases = guard
    assert set(module.FLOORS) == set(cases.CASES)
    assert all(floor > 0 for floor, _ in module.FLOORS.values())


def test_a_case_without_a_floor_stops_the_guard(guard, monkeypatch, capsys):
    module, cases = guard
    monkeypatch.setattr(module, "FLOORS", {})
    assert module.main(["--cases", next(iter(cases.CASES))]) == 2
    assert "FLOORS and _guard_cases.CASES name different cases" in capsys.readouterr().err
