"""Shared set-up for the benchmark scripts: one thread for BLAS/OpenMP, extras installed on demand.

Import this module first in every benchmark (before numpy), then call :func:`ensure_installed`.
Benchmarks print ratios measured in one run against the anchor libraries; they are not tests.
"""

from __future__ import annotations

import importlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REQUIREMENTS = Path(__file__).with_name("requirements.txt")


def ensure_installed(modules: dict[str, str]) -> None:
    """Install the PyPI packages behind any of ``modules`` (import name -> requirement) missing."""
    missing = []
    for module, requirement in modules.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(requirement)
    if missing:
        print(f"installing benchmark dependencies: {' '.join(missing)}", flush=True)
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", *missing])
        importlib.invalidate_caches()


def median_time(fn: Callable[[], object], repeats: int = 5) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls of ``fn`` (seconds) and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result
