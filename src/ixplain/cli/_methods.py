"""What the CLI's methods share: finding explainers by public name and reading their results.

Each command has a registry of its methods (``_static_methods.STATIC_METHODS`` for ``explain``,
``_stream_methods.STREAM_METHODS`` for ``stream``). A method whose function or class is not in
this build of ixplain is reported as unavailable and skipped by the default run (asking for it
explicitly is an error).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["DELTA", "available", "importance_vector", "pd_curve"]

#: Confidence level of the bands drawn around importance traces (1 - delta).
DELTA = 0.05


def _public(name: str) -> Any:
    import ixplain

    return getattr(ixplain, name, None)


def available(registry: Mapping[str, Any]) -> dict[str, bool]:
    """Which methods of a registry this build of ixplain provides (each entry's ``needs``)."""
    return {key: _public(entry.needs) is not None for key, entry in registry.items()}


def importance_vector(values: Any, names: Sequence[str]) -> np.ndarray:
    """Importances (a mapping name -> value, or an array in ``names`` order) as a float array."""
    if values is None:
        return np.full(len(names), np.nan)
    if isinstance(values, Mapping):
        return np.array([float(values.get(n, np.nan)) for n in names], dtype=np.float64)
    arr = np.asarray(values, dtype=np.float64).reshape(-1)
    if arr.shape[0] != len(names):
        # one number (a scalar bound) applies to every feature
        if arr.shape[0] == 1:
            return np.full(len(names), float(arr[0]))
        raise ValueError(f"expected {len(names)} importance values, got {arr.shape[0]}")
    return arr


def pd_curve(pd_: Any, feature: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``(grid, values)`` of one feature's current PD, whatever container ``pd_`` is."""
    if pd_ is None:
        return None
    grid: Any
    values: Any
    if hasattr(pd_, "grid_values") and hasattr(pd_, "average"):
        grid, values = pd_.grid_values, pd_.average
        if isinstance(grid, (list, tuple)) and len(grid) and np.ndim(grid[0]) >= 1:
            grid = grid[0]
    elif isinstance(pd_, Mapping):
        grid = pd_.get("grid_values", pd_.get("grid"))
        values = pd_.get("average", pd_.get("values", pd_.get("pd")))
        if isinstance(grid, (list, tuple)) and len(grid) and np.ndim(grid[0]) >= 1:
            grid = grid[0]
    elif isinstance(pd_, tuple) and len(pd_) == 2:
        grid, values = pd_
    else:
        return None
    if grid is None or values is None:
        return None
    grid = np.asarray(grid)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim > 1:  # (n_outputs, n_grid): the first output (binary: positive class)
        values = values.reshape(-1, values.shape[-1])[0]
    if grid.shape[0] != values.shape[0]:
        return None
    return grid, values
