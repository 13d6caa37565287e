"""Helpers for the command-line tests: run ``python -m ixplain`` in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    env["OMP_NUM_THREADS"] = "1"
    return env


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    """``python -m ixplain ARGS`` with this checkout's source; text output captured."""
    return subprocess.run(
        [sys.executable, "-m", "ixplain", *args],
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    """``ixplain.cli.main(ARGS)`` in this process: (exit status, stdout, stderr)."""
    import pytest

    from ixplain.cli import main

    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err
