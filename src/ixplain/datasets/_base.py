"""The dataset registry: what each bundled or synthetic dataset is, and how to read it.

Every dataset has a :class:`DatasetInfo` in :data:`DATASETS` (name, task, target, size,
source, licence, known drift points) and a loader returning a pandas DataFrame whose last
column is the target. Streams are read in time order with :func:`iter_frame` (or the
``iter_*`` functions), which yields River-style ``(x: dict, y)`` pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DATASETS", "DatasetInfo", "iter_frame", "list_datasets", "load_dataset"]


@dataclass(frozen=True)
class DatasetInfo:
    """Description of one dataset in the registry.

    Attributes
    ----------
    name : str
        Registry key, as used by ``ixplain stream --dataset NAME``.
    title : str
        Human-readable name.
    task : {"regression", "binary"}
    target : str
        Name of the target column in the loaded DataFrame.
    n_rows : int
        Number of rows the loader returns by default.
    n_features : int
    source : str
        Where the data come from (see ``datasets/data/README.md`` for provenance).
    license : str
    time_ordered : bool
        Whether the row order is the order in time (a real stream).
    drift_points : tuple of int
        Row positions where a change of the data-generating process is documented (0-based).
    loader : callable
        ``loader(**kwargs) -> DataFrame`` (features, then the target column).
    """

    name: str
    title: str
    task: str
    target: str
    n_rows: int
    n_features: int
    source: str
    license: str
    time_ordered: bool
    drift_points: tuple[int, ...] = ()
    loader: Callable[..., pd.DataFrame] = field(default=lambda: _empty_frame(), repr=False)
    synthetic: bool = False


#: The registry, filled by the modules that define the loaders.
DATASETS: dict[str, DatasetInfo] = {}


def _empty_frame() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame()


def _register(info: DatasetInfo) -> DatasetInfo:
    DATASETS[info.name] = info
    return info


def _read_bundled(filename: str, **read_csv_kwargs: Any) -> pd.DataFrame:
    """Read ``datasets/data/<filename>`` (a gzip CSV shipped inside the package)."""
    ref = resources.files("ixplain.datasets").joinpath("data", filename)
    import pandas as pd

    with resources.as_file(ref) as path:
        return pd.read_csv(path, **read_csv_kwargs)


def list_datasets() -> pd.DataFrame:
    """Table of the registered datasets: name, task, rows, features, target, drift, source.

    Returns
    -------
    DataFrame
        One row per dataset, indexed by name.

    Examples
    --------
    >>> table = list_datasets()
    >>> table.loc["bike", "task"], int(table.loc["bike", "n_rows"])
    ('regression', 17379)
    """
    rows = [
        {
            "name": d.name,
            "title": d.title,
            "task": d.task,
            "n_rows": d.n_rows,
            "n_features": d.n_features,
            "target": d.target,
            "time_ordered": d.time_ordered,
            "drift_points": ", ".join(str(p) for p in d.drift_points) or "-",
            "source": d.source,
            "license": d.license,
        }
        for d in DATASETS.values()
    ]
    import pandas as pd

    return pd.DataFrame(rows).set_index("name")


def load_dataset(name: str, **kwargs: Any) -> pd.DataFrame:
    """Load a registered dataset by name (features, then the target column).

    Parameters
    ----------
    name : str
        One of ``list_datasets().index``.
    **kwargs
        Passed to the dataset's loader (e.g. ``n_rows``, ``seed`` for synthetic streams).

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> load_dataset("rainfall").shape
    (18159, 9)
    """
    if name not in DATASETS:
        raise ValueError(
            f"Unknown dataset {name!r}. Known datasets: {', '.join(sorted(DATASETS))}."
        )
    return DATASETS[name].loader(**kwargs)


def iter_frame(
    frame: pd.DataFrame, target: str, *, n_rows: int | None = None
) -> Iterator[tuple[dict[str, Any], Any]]:
    """Iterate over the rows of ``frame`` in order as River-style ``(x, y)`` pairs.

    Parameters
    ----------
    frame : DataFrame
        Features and the target column.
    target : str
        Name of the target column (not included in ``x``).
    n_rows : int, optional
        Stop after this many rows.

    Yields
    ------
    x : dict of str to scalar
        The features of one row, as Python scalars (a missing value is NaN in a numeric column,
        as pandas gives it).
    y : scalar
        The target of that row.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 2], "b": ["u", "v"], "y": [0.5, 1.5]})
    >>> list(iter_frame(df, "y"))
    [({'a': 1, 'b': 'u'}, 0.5), ({'a': 2, 'b': 'v'}, 1.5)]
    """
    if n_rows is not None:
        if isinstance(n_rows, bool) or not isinstance(n_rows, (int, np.integer)) or n_rows < 1:
            raise ValueError(
                f"The 'n_rows' parameter of iter_frame must be None or an int >= 1. Got "
                f"{n_rows!r} instead."
            )
        frame = frame.iloc[: int(n_rows)]
    X = frame.drop(columns=[target])
    records = X.to_dict(orient="records")
    ys = frame[target].tolist()
    for x, y in zip(records, ys):
        yield {str(k): v for k, v in x.items()}, y
