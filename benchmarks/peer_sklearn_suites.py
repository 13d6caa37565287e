"""Run scikit-learn's own inspection test files against ixplain (only the import lines changed).

Copies three test files from the *installed* scikit-learn into a temporary directory (they are
scikit-learn's, never committed here), replaces the line that imports the function or Display
under test from ``sklearn.inspection`` by the same import from ``ixplain``, and runs pytest on
them with scikit-learn's own ``conftest`` as a plugin (its ``pyplot`` and ``global_random_seed``
fixtures). A test *reaches ixplain* when it calls the swapped name at least once (a small plugin
wraps ``partial_dependence``, ``permutation_importance`` and the Display's entry points and
counts the calls per test); tests that only exercise scikit-learn's private helpers do not.

Per file it prints the tests that reach ixplain, how many of them pass, and the failing ones
grouped by cause (exception type and the first line of its message, numbers masked).

Run: ``PYTHONPATH=src python benchmarks/peer_sklearn_suites.py [--files pd,pfi,plot] [-v]``
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import sklearn

SUITES = {
    "pd": (
        "inspection/tests/test_partial_dependence.py",
        "from sklearn.inspection import partial_dependence\n",
        "from ixplain import partial_dependence\n",
    ),
    "pfi": (
        "inspection/tests/test_permutation_importance.py",
        "from sklearn.inspection import permutation_importance\n",
        "from ixplain import permutation_importance\n",
    ),
    "plot": (
        "inspection/_plot/tests/test_plot_partial_dependence.py",
        "from sklearn.inspection import PartialDependenceDisplay\n",
        "from ixplain import PartialDependenceDisplay\n",
    ),
}

# The plugin loaded into the pytest run: counts the calls into ixplain per test and writes one
# JSON line per test (nodeid, outcome, reached, cause).
_PLUGIN = '''
import functools, json, os
import pytest
import ixplain

_CALLS = [0]
_OUT = open(os.environ["PEER_SUITE_RESULTS"], "a")


def _counted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _CALLS[0] += 1
        return fn(*args, **kwargs)
    return wrapper


for _name in ("partial_dependence", "permutation_importance"):
    setattr(ixplain, _name, _counted(getattr(ixplain, _name)))
_Display = ixplain.PartialDependenceDisplay
for _name in ("from_estimator", "from_result"):
    if _name in vars(_Display):
        setattr(_Display, _name, classmethod(_counted(vars(_Display)[_name].__func__)))
for _name in ("__init__", "plot"):
    setattr(_Display, _name, _counted(vars(_Display)[_name]))


def pytest_runtest_setup(item):
    _CALLS[0] = 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or report.outcome != "passed":
        cause = ""
        if call.excinfo is not None:
            exc = call.excinfo.value
            first = (str(exc).strip().splitlines() or [""])[0]
            cause = f"{type(exc).__name__}: {first}"
        _OUT.write(json.dumps({"nodeid": item.nodeid, "when": report.when,
                               "outcome": report.outcome, "reached": _CALLS[0] > 0,
                               "cause": cause}) + "\\n")
        _OUT.flush()
'''


def prepare(workdir: Path, suite: str) -> Path:
    """Copy scikit-learn's test file for ``suite`` into ``workdir`` with the import swapped."""
    relative, old, new = SUITES[suite]
    source = Path(sklearn.__file__).parent / relative
    text = source.read_text()
    if text.count(old) != 1:
        raise SystemExit(f"{source}: expected one line {old.strip()!r} to swap")
    target = workdir / f"test_peer_{suite}.py"
    target.write_text(text.replace(old, new))
    return target


def run(suite: str, verbose: bool) -> dict[str, int]:
    """Run one suite; print its counts and failures; return the counts."""
    with tempfile.TemporaryDirectory(prefix="peer_sklearn_") as tmp:
        workdir = Path(tmp)
        test_file = prepare(workdir, suite)
        (workdir / "peer_reach_plugin.py").write_text(_PLUGIN)
        results = workdir / "results.jsonl"
        env = {**__import__("os").environ, "PEER_SUITE_RESULTS": str(results), "MPLBACKEND": "agg"}
        env["PYTHONPATH"] = f"{workdir}:{env.get('PYTHONPATH', '')}"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
               "sklearn.conftest", "-p", "peer_reach_plugin", "--rootdir", str(workdir),
               "-W", "ignore", str(test_file)]
        subprocess.run(cmd, cwd=workdir, env=env, capture_output=not verbose, check=False)
        rows = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    final: dict[str, dict] = {}
    for row in rows:  # a setup failure or the call's report is the test's outcome
        if row["nodeid"] not in final or final[row["nodeid"]]["outcome"] == "passed":
            final[row["nodeid"]] = row
    reached = [r for r in final.values() if r["reached"]]
    passed = [r for r in reached if r["outcome"] == "passed"]
    failed = [r for r in reached if r["outcome"] == "failed"]
    skipped = [r for r in reached if r["outcome"] == "skipped"]
    print(f"\n== {SUITES[suite][0]}: {len(final)} tests run, {len(reached)} reach ixplain, "
          f"{len(passed)} pass, {len(failed)} fail, {len(skipped)} skipped")
    groups: dict[str, list[str]] = defaultdict(list)
    for r in failed:
        groups[re.sub(r"\d+(\.\d+)?", "N", r["cause"])[:160]].append(r["nodeid"].split("::", 1)[1])
    for cause, names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  [{len(names)}] {cause}")
        for name in names:
            print(f"      {name}")
    return {"run": len(final), "reached": len(reached), "passed": len(passed)}


def main() -> None:
    """Parse the arguments and run the chosen suites."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="pd,pfi,plot", help="comma list of pd, pfi, plot")
    parser.add_argument("-v", "--verbose", action="store_true", help="show pytest's own output")
    args = parser.parse_args()
    print(f"scikit-learn {sklearn.__version__}")
    summary = {suite: run(suite, args.verbose) for suite in args.files.split(",")}
    print("\nsummary: " + "; ".join(
        f"{s}: {c['passed']} of {c['reached']} reaching ixplain pass" for s, c in summary.items()))


if __name__ == "__main__":
    main()
