"""The checks of :meth:`ExplanationDriftDetector.update_values`' own inputs: the values' names
and the per-row losses (the values themselves go through the channels' row checks)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._state import OWNER

__all__ = ["checked_losses", "named_columns"]


def named_columns(known: list[str] | None, values: Any, feature_names: Any) -> tuple[Any, Any]:
    """``update_values``' values and names: a DataFrame's columns name its values (and
    are put in the first call's order on later calls); names that differ from the first
    call's (``known``: the names the detector watches, or None before the first call), or
    repeat, are refused."""
    columns = getattr(values, "columns", None)
    if columns is not None:
        columns = [str(c) for c in columns]
        if known is not None and columns != known and sorted(columns) == sorted(known):
            values = values[[c for k in known for c in values.columns if str(c) == k]]
            columns = list(known)  # the same columns, another order
        if feature_names is None:
            feature_names = columns
    if feature_names is not None:
        names = [str(n) for n in feature_names]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"{OWNER}.update_values: feature name {dup!r} is repeated.")
        if columns is not None and names != columns:
            raise ValueError(f"{OWNER}.update_values: feature_names {names} differ from "
                             f"the DataFrame's columns {columns}.")
        if known is not None and names != known:
            raise ValueError(f"{OWNER}.update_values: got features {names}, but the "
                             f"detector watches {known} (the feature set "
                             "cannot change; build a new detector).")
    return values, feature_names


def checked_losses(watched: bool | None, losses: Any, rows: np.ndarray) -> np.ndarray | None:
    """``losses`` as float64 ``(B,)`` for the stream rows ``rows`` (None if not given);
    a non-finite loss is refused naming its stream row (and its row in the batch).
    ``watched``: whether the values channel tests losses (None before its first call)."""
    n = len(rows)
    if losses is None:
        if watched:
            raise ValueError(f"{OWNER}.update_values: losses were given before; give "
                             "them on every call.")
        return None
    if watched is False:
        raise ValueError(f"{OWNER}.update_values: losses must be given from the first "
                         "call on (the loss test needs its warm-up).")
    try:
        arr = np.asarray(losses, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{OWNER}.update_values: losses must be numbers, one per row; got "
                        f"{type(losses).__name__}.") from None
    if arr.ndim > 1 and arr.size != n:
        raise ValueError(f"{OWNER}.update_values: losses must have shape ({n},), one per "
                         f"row; got shape {arr.shape}.")
    arr = arr.reshape(-1)
    if len(arr) != n:
        raise ValueError(f"{OWNER}.update_values: got {n} rows of values but "
                         f"{len(arr)} losses.")
    if not np.isfinite(arr).all():
        i = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{OWNER}.update_values: the loss at row {int(rows[i])} (row {i} "
                         f"of this batch) is {float(arr[i])}; losses must be finite.")
    return arr
