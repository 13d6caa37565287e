"""Helpers shared by the Dask drivers: the DataFrame check, column and feature resolution, row
counts and rows drawn from the whole data by global row index (backgrounds, the conditional
sampler's rows).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._random import keyed_generator
from .._validation import param_error
from ..imputation import ConditionalSampler
from ..imputation.conditional import averaged_sampler
from ..tabular import Table, as_table

__all__: list[str] = []  # helpers of the drivers in this package


def _require_dask_frame(ddf: Any, owner: str) -> Any:
    try:
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - exercised only without dask
        raise ImportError(
            f"{owner} needs dask: pip install 'ixplain[dask]' (or pip install 'dask[dataframe]')."
        ) from exc
    if not isinstance(ddf, dd.DataFrame):
        raise param_error(owner, "ddf", "a dask.dataframe.DataFrame", type(ddf).__name__,
                          exc=TypeError)
    return dd


def _feature_labels(features: Any, columns: list[Any], owner: str) -> list[Any]:
    feats = [features] if isinstance(features, (str, int, np.integer)) else list(features)
    if not feats or len(feats) > 2:
        raise param_error(owner, "features", "one feature or a pair of features", features)
    by_name = {str(c): c for c in columns}
    out = []
    for f in feats:
        if isinstance(f, (int, np.integer)) and not isinstance(f, bool) and f not in columns:
            if not 0 <= int(f) < len(columns):
                raise ValueError(
                    f"{owner}: feature index {f} is out of range for {len(columns)} columns."
                )
            out.append(columns[int(f)])
        elif str(f) in by_name:
            out.append(by_name[str(f)])
        else:
            raise ValueError(
                f"{owner}: unknown feature {f!r}. Available features: {[str(c) for c in columns]}."
            )
    return out


def _head(ddf: Any, columns: list[Any], owner: str) -> Table:
    """The first row of ``ddf[columns]`` (from the first non-empty partition) as a Table."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask warns when the first partitions are short
        head = ddf[columns].head(1, npartitions=-1)
    if len(head) == 0:
        raise ValueError(f"{owner}: the DataFrame has 0 rows.")
    return as_table(head.reset_index(drop=True), owner=owner)


def _n_rows(ddf: Any, owner: str) -> tuple[np.ndarray, int]:
    lengths = np.asarray(ddf.map_partitions(len).compute(), dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        raise ValueError(f"{owner}: the DataFrame has 0 rows.")
    return lengths, total


def _background(ddf: Any, columns: list[Any], n: int, seed: int, owner: str,
                key: str = "background") -> Table:
    """``n`` rows drawn without replacement from all of ``ddf`` by *global* row index (the
    same rows for any partitioning; all rows when there are at most ``n``), as a Table in row
    order: ``sort(keyed_generator(seed, key).choice(n_rows, n, replace=False))``."""
    return _sample_rows(ddf, columns, n, seed, owner, key)[0]


def _conditional_sampler(ddf: Any, columns: list[Any], n: int, seed: int, owner: str,
                         averaged: bool = False) -> tuple[ConditionalSampler, np.ndarray | None]:
    """The sampler of ``removal="conditional"``, fitted on the client on ``n`` rows drawn by
    global row index (key ``"conditional-sampler"``; all rows when there are at most ``n``),
    and the sorted global ids of its rows (None: all rows, in order). ``averaged`` (SAGE):
    :func:`~ixplain.imputation.conditional.averaged_sampler`'s leaves, as :func:`ixplain.sage`."""
    table, picks, total = _sample_rows(ddf, columns, n, seed, owner, "conditional-sampler")
    sampler = averaged_sampler(table) if averaged else ConditionalSampler().fit(table)
    return sampler, None if len(picks) == total else picks


def _sample_rows(ddf: Any, columns: list[Any], n: int, seed: int, owner: str,
                 key: str) -> tuple[Table, np.ndarray, int]:
    """:func:`_background`'s rows, their global ids and the number of rows of ``ddf``."""
    import dask
    import pandas as pd

    lengths, total = _n_rows(ddf, owner)
    if total <= n:
        picks = np.arange(total)
    else:
        picks = np.sort(keyed_generator(seed, key).choice(total, n, replace=False))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    parts = []
    for i, part in enumerate(ddf[columns].to_delayed()):
        local = picks[(picks >= starts[i]) & (picks < starts[i] + lengths[i])] - starts[i]
        if len(local):
            parts.append(dask.delayed(lambda p, idx: p.iloc[idx])(part, local))
    frame = pd.concat(dask.compute(*parts)).reset_index(drop=True)
    return as_table(frame, owner=owner), picks, total


def _label_column(y: Any, ddf: Any, owner: str) -> Any:
    if not isinstance(y, (str, int, np.integer)) or isinstance(y, bool):
        raise param_error(owner, "y", "the name of the target column of ddf",
                          type(y).__name__, exc=TypeError)
    if y not in list(ddf.columns):
        raise ValueError(
            f"{owner}: the target column {y!r} is not in the DataFrame "
            f"(columns {[str(c) for c in ddf.columns]})."
        )
    return y



def _plain_columns(ddf: Any, features: Any, special: tuple[Any, ...], owner: str) -> list[Any]:
    """The feature columns: ``features`` (checked) or every column but the special ones."""
    columns = list(ddf.columns)
    for name, what in zip(special, ("label", "sample_weight")):
        if name is not None and name not in columns:
            raise ValueError(f"{owner}: the {what} column {name!r} is not in the DataFrame "
                             f"(columns {[str(c) for c in columns]}).")
    rest = [c for c in columns if c not in special]
    if features is None:
        return rest
    unknown = [f for f in features if f not in rest]
    if unknown:
        raise ValueError(f"{owner}: unknown feature(s) {unknown!r}. Available features: "
                         f"{[str(c) for c in rest]}.")
    return list(features)
