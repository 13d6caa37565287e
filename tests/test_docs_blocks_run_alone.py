"""Every python block of the user guide (and of the README) runs on its own, in a fresh
interpreter.

A reader copies one block: the README's "Plots" block used ``ipfi`` / ``ipdp`` from earlier
blocks and the Dask ``removal="conditional"`` block the imports and ``model`` / ``ddf`` of the
block before, so they failed with NameError when run alone. The README's reference examples
now live in ``docs/user_guide/*.rst``; this test reads them there.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

from _docs_blocks import ROOT, guide_blocks

SRC = ROOT / "src"
BLOCKS = guide_blocks()


def _missing_module(code: str) -> str | None:
    for name in re.findall(r"^\s*(?:from|import)\s+([A-Za-z_][\w]*)", code, re.M):
        if importlib.util.find_spec(name) is None:
            return name
    return None


def test_the_user_guide_has_python_blocks():
    assert len(BLOCKS) >= 10
    assert {name for name, _, _ in BLOCKS} >= {"drift.rst", "change.rst", "cli.rst", "README.md"}


@pytest.mark.slow
@pytest.mark.parametrize("name, line, code", BLOCKS, ids=[f"{n}:{k}" for n, k, _ in BLOCKS])
def test_user_guide_block_runs_alone(name, line, code, tmp_path):
    missing = _missing_module(code)
    if missing is not None:
        pytest.skip(f"the block at {name} line {line} needs {missing}, not installed")
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{name} block at line {line} failed alone:\n{proc.stderr[-3000:]}"
