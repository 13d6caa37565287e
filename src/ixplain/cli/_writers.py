"""Writers shared by the commands: JSON, CSV/Parquet tables and the report's importance table."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Table", "importance_table", "json_safe", "sample_table", "write_frame", "write_json"]

#: A table of the HTML report: (caption, column names, rows).
Table = tuple[str, list[Any], list[list[Any]]]


def json_safe(value: Any) -> Any:
    """Plain JSON types: arrays to lists, numpy scalars to Python, NaN/inf to ``None``."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        return json_safe(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def write_json(path: Path, payload: Any) -> Path:
    path.write_text(json.dumps(json_safe(payload), indent=1, allow_nan=False) + "\n")
    return path


def write_frame(out: Path, stem: str, frame: pd.DataFrame) -> list[Path]:
    """``stem.csv`` always, ``stem.parquet`` when pyarrow is installed."""
    written = [out / f"{stem}.csv"]
    frame.to_csv(written[0], index=False)
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return written
    parquet_frame = frame.copy()
    for col in parquet_frame.columns:  # mixed grid values (numbers and levels) as text
        if parquet_frame[col].dtype == object:
            parquet_frame[col] = parquet_frame[col].astype(str)
    parquet_frame.to_parquet(out / f"{stem}.parquet", index=False)
    written.append(out / f"{stem}.parquet")
    return written


def importance_table(
    caption: str,
    final: dict[str, tuple[np.ndarray, np.ndarray]],
    names: Sequence[str],
    error_label: str,
) -> list[Table]:
    """Importances of every method, one row per feature ranked by the first method.

    ``final`` maps a method to (values, errors) in ``names`` order; each method gets two
    columns, ``method`` and ``f"{method} {error_label}"``. No methods: no table.
    """
    if not final:
        return []
    methods = list(final)
    order = np.argsort(-np.nan_to_num(final[methods[0]][0], nan=-np.inf))
    columns: list[Any] = ["feature"] + [c for m in methods for c in (m, f"{m} {error_label}")]
    rows = [
        [names[j]] + [x for m in methods for x in (final[m][0][j], final[m][1][j])]
        for j in order
    ]
    return [(caption, columns, rows)]


def sample_table(caption: str, sample: pd.DataFrame) -> Table:
    """The first rows of the data as a report table."""
    return (caption, list(sample.columns), [list(r) for r in sample.itertuples(index=False)])
