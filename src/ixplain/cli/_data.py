"""Reading the user's table and checking the target and feature columns."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ._errors import CLIError

__all__ = ["check_column", "check_regression_target", "infer_task", "read_table", "select_columns", "split_kinds"]


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a CSV (optionally compressed) or Parquet file; ``CLIError`` when it cannot.

    Raises
    ------
    CLIError
        Missing file, a directory, an empty file or table, a file pandas cannot parse, or a CSV
        header naming a column twice (pandas would rename the second ``a`` to ``a.1``).
    """
    p = Path(path)
    if not p.exists():
        raise CLIError(f"cannot read {p}: no such file.")
    if p.is_dir():
        raise CLIError(f"cannot read {p}: it is a directory, not a file.")
    if p.stat().st_size == 0:
        raise CLIError(f"cannot read {p}: the file is empty.")
    suffixes = [s.lower() for s in p.suffixes]
    try:
        if suffixes and suffixes[-1] in (".parquet", ".pq"):
            frame = pd.read_parquet(p)
        else:
            frame = pd.read_csv(p)
    except ImportError as exc:
        raise CLIError(f"cannot read {p}: {exc}") from exc
    except Exception as exc:  # pandas raises many types for a malformed file
        kind = "Parquet" if suffixes and suffixes[-1] in (".parquet", ".pq") else "CSV"
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CLIError(f"cannot read {p} as {kind}: {reason}") from exc
    if not (suffixes and suffixes[-1] in (".parquet", ".pq")):
        _refuse_duplicate_header(p)
    if frame.shape[0] == 0:
        raise CLIError(f"cannot use {p}: it has a header but no data rows.")
    if frame.shape[1] < 2:
        raise CLIError(
            f"cannot use {p}: it has {frame.shape[1]} column(s); ixplain needs at least one "
            "feature and a target (is the separator a comma?)."
        )
    frame.columns = [str(c) for c in frame.columns]
    return frame


def _refuse_duplicate_header(p: Path) -> None:
    """A CSV header with a name twice: an error naming it, not pandas' silent ``a.1``."""
    header = pd.read_csv(p, header=None, nrows=1, dtype=str, keep_default_na=False)
    names = [str(v) for v in header.iloc[0].tolist()] if len(header) else []
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise CLIError(
            f"cannot use {p}: its header names the column(s) {', '.join(map(repr, dups))} more "
            "than once; give every column its own name."
        )


def check_column(frame: pd.DataFrame, name: str, what: str, source: str) -> None:
    """``CLIError`` naming the table's columns when ``name`` is not one of them."""
    if name not in frame.columns:
        shown = ", ".join(repr(c) for c in list(frame.columns)[:20])
        more = "" if frame.shape[1] <= 20 else f" (and {frame.shape[1] - 20} more)"
        raise CLIError(
            f"{what} column {name!r} is not in {source}; its columns are: {shown}{more}."
        )


def select_columns(
    frame: pd.DataFrame, target: str, features: Sequence[str] | None, source: str
) -> tuple[pd.DataFrame, str]:
    """Keep ``features`` (default: every column but the target) and the target, in that order."""
    check_column(frame, target, "target", source)
    if features:
        for f in features:
            check_column(frame, f, "feature", source)
        if target in features:
            raise CLIError(f"the target column {target!r} cannot also be a feature.")
        names = list(dict.fromkeys(features))
    else:
        names = [c for c in frame.columns if c != target]
    if frame[target].isna().any():
        n = int(frame[target].isna().sum())
        raise CLIError(f"target column {target!r} in {source} has {n} missing value(s).")
    for name in names:
        bad = _non_numbers(frame[name])
        # a column of many distinct numbers with a few typos ('12,5', 'n.a'): reading it as
        # categorical would one-hot encode every number and silently change the explanation
        # (a code column such as 1, 2, 3, 'other' has few distinct numbers and stays categorical)
        if (
            bad is not None
            and 0 < len(bad) <= 0.1 * frame[name].notna().sum()
            and pd.to_numeric(frame[name], errors="coerce").nunique() > 20
        ):
            raise CLIError(
                f"feature column {name!r} in {source} holds numbers except {len(bad)} value(s) "
                f"such as {bad.iloc[0]!r}; fix them or leave the cells empty (missing)."
            )
    return frame[[*names, target]], target


def check_regression_target(frame: pd.DataFrame, target: str, model: Any, source: str) -> None:
    """Refuse a non-numeric ``--target`` for a scikit-learn regressor, before any method runs.

    Raises
    ------
    CLIError
        If ``model`` is a scikit-learn regressor and the target column holds text that does
        not parse as numbers.
    """
    from sklearn.base import is_regressor

    if not is_regressor(model):
        return
    bad = _non_numbers(frame[target])
    if bad is not None and len(bad):
        raise CLIError(
            f"--target {target!r}: the column in {source} is not numeric (e.g. "
            f"{bad.iloc[0]!r}) but the model ({type(model).__name__}) is a regressor; a "
            "regression target must be numbers."
        )


def _non_numbers(column: pd.Series) -> pd.Series | None:
    """The values of a text column that do not parse as numbers (None for other columns)."""
    if not (pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)):
        return None
    values = column.dropna()
    parsed = pd.to_numeric(values, errors="coerce")
    return values[parsed.isna()]


def infer_task(frame: pd.DataFrame, target: str, task: str | None, source: str) -> str:
    """``"regression"`` or ``"binary"``, from ``task`` when given, else from the target values.

    Raises
    ------
    CLIError
        A non-numeric target for regression, a target with one value, or more than two classes.
    """
    y = frame[target]
    numeric = pd.api.types.is_numeric_dtype(y) and not pd.api.types.is_bool_dtype(y)
    n_unique = int(y.nunique())
    if task == "regression":
        if not numeric:
            bad = _non_numbers(y)
            example = repr(bad.iloc[0] if bad is not None and len(bad) else y.iloc[0])
            raise CLIError(
                f"target column {target!r} in {source} is not numeric (e.g. {example}); a "
                "regression target must be numbers."
            )
        return "regression"
    if n_unique < 2:
        raise CLIError(
            f"target column {target!r} in {source} has a single value; nothing to explain."
        )
    if task == "binary" or (task is None and (n_unique == 2 or not numeric)):
        if n_unique != 2:
            raise CLIError(
                f"target column {target!r} in {source} has {n_unique} classes; ixplain stream "
                "handles regression (numeric target) and binary classification."
            )
        return "binary"
    return "regression"


def split_kinds(frame: pd.DataFrame, names: Sequence[str]) -> tuple[list[str], list[str]]:
    """Numeric and categorical feature names (booleans and strings are categorical)."""
    numeric = [
        n
        for n in names
        if pd.api.types.is_numeric_dtype(frame[n]) and not pd.api.types.is_bool_dtype(frame[n])
    ]
    categorical = [n for n in names if n not in numeric]
    return numeric, categorical
