"""Run ixai's own README quickstart, examples and notebook against ``ixplain.compat.ixai``.

Usage::

    PYTHONPATH=src python benchmarks/peer_ixai_examples.py /work/.mirror/mmschlk+iXAI/repo \
        [--n-samples 3000] [--timeout 1800] [--only NAME ...]

The argument is a git directory of ixai's repository (the ``fetch`` tool's snapshot; read with
``git show HEAD:<path>``). Each program runs in its own Python process (``MPLBACKEND=Agg``) with
only its import lines rewritten; this script prints one line per program (``run`` / ``fail`` /
``skip``, seconds, and the last line of the error) and, for the notebook, one per code cell.
Then ixai's own ``tests/test_storage.py`` runs under pytest with the same import rewrite (its
``test_wrappers.py`` imports PyTorch at the top: not run).

What is rewritten (import lines only, nothing else of a program):

* ``ixai`` -> ``ixplain.compat.ixai`` (the change a user makes);
* River >= 0.22 renamed the adaptive random forests: ``river.ensemble.
  AdaptiveRandomForestClassifier`` / ``...Regressor`` are imported from ``river.forest``
  (``ARFClassifier`` / ``ARFRegressor``) under the old names -- ixai's code would need the same
  with today's River;
* ``sklearn.datasets.fetch_california_housing`` downloads from the web, which this machine
  cannot reach: it is imported from a helper that returns River's synthetic ``Friedman`` stream
  (10 features named ``0``..``9``, ints) in the same ``Bunch`` layout (``data``, ``target``,
  ``feature_names``), ``--n-samples`` rows (default 20,640, California housing's size);
* the README quickstart iterates the endless ``Agrawal`` stream without a ``break``: its
  ``Agrawal`` is imported from a helper that stops after ``--n-samples`` rows (default 3,000,
  the last row the README prints). The quickstart also lacks the colon after its ``for`` line
  (a typo in ixai's README, which ixai would fail on too); the colon is added and reported.

Stream lengths are reduced only through a program's own parameter: ``N_SAMPLES`` of the
Agrawal examples and ``n_samples`` of the notebook are set to ``--n-samples`` when it is given
(default: the program's own value). ``examples/neural_network.py`` needs PyTorch and River's
``Elec2`` download: reported as ``skip``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

EXAMPLES = [
    "examples/agrawal_accuracy_loss.py",
    "examples/agrawal_cross_entropy_loss.py",
    "examples/pandas_example.py",
    "examples/sklearn_example.py",
]
NEEDS_TORCH = ["examples/neural_network.py"]
NOTEBOOK = "examples/basic_usage.ipynb"

HELPERS = '''
"""Stand-ins for what ixai's examples download or never stop (see peer_ixai_examples.py)."""
import itertools
import numpy as np
from river.datasets import synth

N_ROWS = {n_rows}
README_ROWS = {readme_rows}


def fetch_california_housing(*args, **kwargs):
    from sklearn.utils import Bunch
    rows = list(itertools.islice(synth.Friedman(seed=42), N_ROWS))
    names = list(rows[0][0])
    data = np.array([[x[k] for k in names] for x, _ in rows])
    target = np.array([y for _, y in rows])
    return Bunch(data=data, target=target, feature_names=names)


class Agrawal(synth.Agrawal):
    def __iter__(self):
        return itertools.islice(super().__iter__(), README_ROWS)
'''

_RIVER_FORESTS = {
    "AdaptiveRandomForestClassifier": "ARFClassifier",
    "AdaptiveRandomForestRegressor": "ARFRegressor",
}


def rewrite_imports(source: str, readme: bool = False) -> tuple[str, list[str]]:
    """``source`` with its import lines rewritten (see the module docstring) and the list of
    rewrites made."""
    out, notes = [], []
    for line in source.splitlines():
        new = re.sub(r"^(\s*)(from|import)\s+ixai\b", r"\1\2 ixplain.compat.ixai", line)
        m = re.match(r"^(\s*)from river\.ensemble import (.+)$", new)
        if m and any(k in m.group(2) for k in _RIVER_FORESTS):
            names = [n.strip() for n in m.group(2).split(",")]
            new = m.group(1) + "from river.forest import " + ", ".join(
                f"{_RIVER_FORESTS[n]} as {n}" if n in _RIVER_FORESTS else n for n in names)
        if re.match(r"^\s*from sklearn\.datasets import fetch_california_housing\s*$", new):
            new = new.replace("sklearn.datasets", "_ixai_peer_helpers")
        if readme and re.match(r"^\s*from river\.datasets\.synth import Agrawal\s*$", new):
            new = new.replace("river.datasets.synth", "_ixai_peer_helpers")
        if new != line:
            notes.append(f"{line.strip()}  ->  {new.strip()}")
        out.append(new)
    return "\n".join(out) + "\n", notes


def set_parameter(source: str, name: str, value: int | None) -> str:
    """Set a program's own stream-length parameter (a top-level ``NAME = ...`` line)."""
    if value is None:
        return source
    return re.sub(rf"^(\s*){name}\s*=\s*[0-9_]+", rf"\g<1>{name} = {value}", source, count=1,
                  flags=re.M)


def readme_quickstart(readme: str) -> tuple[str, list[str]]:
    """The README's doctest-style quickstart as a script (prompts and printed output dropped)."""
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    if block is None:
        raise ValueError("no python block in ixai's README")
    lines = []
    for line in block.group(1).splitlines():
        if line.startswith(">>> ") or line.startswith("... "):
            lines.append(line[4:])
        elif line in (">>>", "..."):
            lines.append("")
    notes = []
    for i, line in enumerate(lines):
        if line.startswith("for ") and not line.rstrip().endswith(":"):
            lines[i] = line.rstrip() + ":"
            notes.append("added the missing ':' after the README's for line (ixai's typo)")
    return "\n".join(lines) + "\n", notes


def notebook_cells(text: str) -> list[str]:
    cells = json.loads(text)["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _run(code: str, workdir: str, timeout: float) -> tuple[str, float, str, str]:
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore")
    env["PYTHONPATH"] = os.pathsep.join([workdir, env.get("PYTHONPATH", "")])
    path = Path(workdir) / "program.py"
    path.write_text(code)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(path)], cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "fail", time.perf_counter() - t0, f"timeout after {timeout:.0f} s", ""
    seconds = time.perf_counter() - t0
    if proc.returncode == 0:
        return "run", seconds, "", proc.stdout
    err = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    return "fail", seconds, err[-1] if err else f"exit code {proc.returncode}", proc.stdout


_CELL_RUNNER = '''
import json, sys, traceback
cells = json.loads(open("cells.json").read())
ns = {"__name__": "__main__"}
for i, cell in enumerate(cells):
    try:
        exec(compile(cell, f"cell {i}", "exec"), ns)
        print("CELL", json.dumps([i, "run", ""]), flush=True)
    except BaseException as exc:
        print("CELL", json.dumps([i, "fail", f"{type(exc).__name__}: {exc}"[:300]]), flush=True)
'''


def run_notebook(text: str, workdir: str, n_samples: int | None,
                 timeout: float) -> list[tuple[int, str, str]]:
    cells, notes = [], []
    for cell in notebook_cells(text):
        cell, cell_notes = rewrite_imports(cell)
        notes += cell_notes
        cells.append(set_parameter(cell, "n_samples", n_samples))
    (Path(workdir) / "cells.json").write_text(json.dumps(cells))
    status, seconds, err, out = _run(_CELL_RUNNER, workdir, timeout)
    results = []
    for line in out.splitlines():
        if line.startswith("CELL "):
            i, st, msg = json.loads(line[5:])
            results.append((i, st, msg))
    if status == "fail" and len(results) < len(cells):
        results.append((len(results), "fail", err))
    print(f"  rewrites: {notes}")
    print(f"  {seconds:.0f} s")
    return results


def _show(repo: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, "show", f"HEAD:{path}"], check=True,
                          capture_output=True, text=True).stdout


def run_scripts(args: argparse.Namespace, workdir: str) -> int:
    """Run the README quickstart and the examples; return the number of failures."""
    n_fail = 0
    if args.only is None or "README" in args.only:
        code, notes = readme_quickstart(_show(args.repo, "README.md"))
        code, more = rewrite_imports(code, readme=True)
        status, seconds, err, _ = _run(code, workdir, args.timeout)
        n_fail += status != "run"
        print(f"{status:4}  {seconds:7.1f} s  README quickstart  {err}\n  rewrites: {notes + more}")
    for path in EXAMPLES:
        if args.only is not None and path not in args.only:
            continue
        code, notes = rewrite_imports(_show(args.repo, path))
        code = set_parameter(code, "N_SAMPLES", args.n_samples)
        status, seconds, err, out = _run(code, workdir, args.timeout)
        n_fail += status != "run"
        print(f"{status:4}  {seconds:7.1f} s  {path}  {err}\n  rewrites: {notes}")
        if args.verbose:
            print(textwrap.indent(out, "    | "))
    for path in NEEDS_TORCH:
        if args.only is None or path in args.only:
            print(f"skip  {path}  (needs PyTorch and River's Elec2 download)")
    return n_fail


def run_peer_tests(args: argparse.Namespace, workdir: str) -> int:
    """ixai's tests/test_storage.py, imports rewritten, under pytest; 1 if any case failed."""
    tests = Path(workdir) / "peer_tests"
    tests.mkdir()
    code, _ = rewrite_imports(_show(args.repo, "tests/test_storage.py"))
    (tests / "test_storage.py").write_text(code)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-rf", str(tests)], cwd=workdir, capture_output=True, text=True,
                          timeout=args.timeout, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-300:]
    print(f"ixai tests/test_storage.py: {summary}")
    for line in lines:
        print(f"  {line[:200]}")
    return int(proc.returncode != 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="git directory of ixai's repository (fetch snapshot)")
    parser.add_argument("--n-samples", type=int, default=None,
                        help="stream length for the programs that have a parameter for it "
                             "(and rows of the stand-in datasets)")
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--only", nargs="*", default=None,
                        help="run only these (README, notebook, tests or example paths)")
    parser.add_argument("--verbose", action="store_true", help="show the examples' output")
    args = parser.parse_args(argv)
    rev = subprocess.run(["git", "--git-dir", args.repo, "rev-parse", "HEAD"], check=True,
                         capture_output=True, text=True).stdout.strip()
    print(f"ixai snapshot {rev}; python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as workdir:
        (Path(workdir) / "_ixai_peer_helpers.py").write_text(textwrap.dedent(HELPERS.format(
            n_rows=args.n_samples or 20_640, readme_rows=args.n_samples or 3000)))
        n_fail = run_scripts(args, workdir)
        if args.only is None or "tests" in args.only:
            n_fail += run_peer_tests(args, workdir)
        if args.only is None or "notebook" in args.only:
            print(f"notebook {NOTEBOOK}:")
            for i, status, err in run_notebook(_show(args.repo, NOTEBOOK), workdir,
                                               args.n_samples, args.timeout):
                n_fail += status != "run"
                print(f"  code cell {i}: {status}  {err}")
    print(f"failures: {n_fail}")
    return 1 if n_fail else 0


if __name__ == "__main__":
    raise SystemExit(main())
