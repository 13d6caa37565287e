"""Every python block of the README runs on its own, in a fresh interpreter.

A reader copies one block: the "Plots" block used ``ipfi`` / ``ipdp`` from earlier blocks and
the Dask ``removal="conditional"`` block the imports and ``model`` / ``ddf`` of the block before,
so they failed with NameError when run alone.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
SRC = README.parent / "src"


def _blocks() -> list[tuple[int, str]]:
    text = README.read_text()
    return [(text[: m.start()].count("\n") + 1, m.group(1))
            for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def _missing_module(code: str) -> str | None:
    for name in re.findall(r"^\s*(?:from|import)\s+([A-Za-z_][\w]*)", code, re.M):
        if importlib.util.find_spec(name) is None:
            return name
    return None


def test_the_readme_has_python_blocks():
    assert len(_blocks()) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("line, code", _blocks(), ids=[f"line{n}" for n, _ in _blocks()])
def test_readme_block_runs_alone(line, code, tmp_path):
    missing = _missing_module(code)
    if missing is not None:
        pytest.skip(f"the block at README line {line} needs {missing}, not installed")
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"README block at line {line} failed alone:\n{proc.stderr[-3000:]}"
