"""The state of one ``ixplain explain`` run, shared by the registry and every method's functions.

:class:`StaticRun` holds a run's inputs and what its methods produced; each method module
(``_static_methods``, ``_interactions``, ``_hstat``) reads and writes it, so it lives below them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Image", "StaticRun"]

#: A report figure: (caption, path of the PNG).
Image = tuple[str, Path]


@dataclass
class StaticRun:
    """One ``ixplain explain`` run: its inputs and what its methods produced.

    Attributes
    ----------
    cfg : ExplainConfig
        The options of the run.
    importances : dict of str to (ndarray of shape (n_features,), ndarray of shape (n_features,))
        Importance methods' values and errors (std over repeats, standard error), ``names`` order.
    curves : dict of str to (grid, average, ICE or None)
        PD per feature: grid of shape (n_grid,), average of shape (n_grid,), ICE of shape
        (n_rows, n_grid) when ICE was asked for.
    pd_features : list of str
        The features whose curves were computed.
    results : dict of str to object
        Results of methods without a field of their own, by method name (where a new method's
        ``compute`` leaves what its ``write``/``plot``/``tables`` read).
    timings : dict of str to float
        Seconds spent computing each method (``"pd"`` for PD and ICE together).
    """

    cfg: Any
    out: Path
    frame: pd.DataFrame
    target: str
    model: Any
    methods: list[str]
    X: pd.DataFrame = field(init=False)
    y: np.ndarray = field(init=False)
    names: list[str] = field(init=False)
    importances: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = field(
        default_factory=dict
    )
    pd_features: list[str] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    ice_index: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.X = self.frame.drop(columns=[self.target])
        self.y = self.frame[self.target].to_numpy()
        self.names = [str(c) for c in self.X.columns]

    @property
    def is_classifier(self) -> bool:
        return hasattr(self.model, "classes_")

    @property
    def ice_text(self) -> str:
        """The ICE rows for the report: ``"500 of 20,000 (random, seed 0)"``, ``"all"`` or ``"-"``."""
        if self.ice_index is None:
            return "-"
        n = int(self.X.shape[0])
        if len(self.ice_index) == n:
            return f"all {n:,}"
        return f"{len(self.ice_index):,} of {n:,} (random, seed {self.cfg.seed})"

    @contextmanager
    def timed(self, key: str) -> Iterator[None]:
        """Record the seconds spent in the ``with`` block as ``timings[key]``."""
        t0 = time.perf_counter()
        yield
        self.timings[key] = time.perf_counter() - t0
