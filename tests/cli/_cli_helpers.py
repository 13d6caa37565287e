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


def correlated_linear(d: Path, n: int) -> tuple[Path, object, object]:
    """A saved regression problem in ``d``: ``a`` and ``b`` correlated (0.9), ``c`` apart,
    ``y = a + c + noise`` over ``n`` rows (``d.csv``) and a LinearRegression fitted to it
    (``m.joblib``). Returns ``(d, model, frame)``."""
    import joblib
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = rng.multivariate_normal(np.zeros(3), [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]], size=n)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["y"] = X[:, 0] + X[:, 2] + rng.normal(0, 0.1, n)
    frame.to_csv(d / "d.csv", index=False)
    model = LinearRegression().fit(frame[["a", "b", "c"]], frame["y"])
    joblib.dump(model, d / "m.joblib")
    return d, model, frame
