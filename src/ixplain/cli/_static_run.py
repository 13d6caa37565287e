"""The state of one ``ixplain explain`` run, shared by the registry and every method's functions.

:class:`StaticRun` holds a run's inputs and what its methods produced; each method module
(``_static_methods``, ``_interactions``, ``_hstat``) reads and writes it, so it lives below them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Image", "MethodProgress", "StaticRun", "progress_shown"]

#: A report figure: (caption, path of the PNG).
Image = tuple[str, Path]

_SHOW_PROGRESS: ContextVar[bool] = ContextVar("ixplain_explain_progress", default=False)


@contextmanager
def progress_shown(enabled: bool = True) -> Iterator[None]:
    """Within the block, every method a :class:`StaticRun` times shows its progress on stderr
    (:class:`MethodProgress`); outside it (the default, e.g. ``run_explain`` called from
    Python) nothing is shown. ``ixplain explain --no-progress`` passes ``enabled=False``."""
    token = _SHOW_PROGRESS.set(bool(enabled))
    try:
        yield
    finally:
        _SHOW_PROGRESS.reset(token)


class MethodProgress:
    """One method's progress on stderr, named after it: a tqdm bar (a line per method left
    on screen when it ends) or, without tqdm, a line when it starts and one when it ends.

    Called with the library's ``ProgressInfo`` reports (``progress=`` of
    ``permutation_importance``, ``sage``, ``partial_dependence``): the bar counts their units
    (rows explained, SAGE permutations); successive calls of one method (PD feature after
    feature) add up. A method that reports nothing shows its name and elapsed time.

    Parameters
    ----------
    name : str
        The method's name as in ``--methods`` (``"pfi"``, ``"pfi (conditional)"``, ...).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._base = 0  # units of the method's finished calls
        self._last = 0
        self._last_total: int | None = None
        self._t0 = time.perf_counter()
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is in the cli extra
            self._bar: Any = None
            print(f"ixplain explain: {name} ...", file=sys.stderr, flush=True)
            return
        self._bar = tqdm(total=None, desc=f"ixplain explain: {name}", unit="", file=sys.stderr,
                         leave=True, dynamic_ncols=True, mininterval=0.5,
                         bar_format="{desc}: {elapsed}{postfix}")

    def __call__(self, info: Any) -> None:
        if info.done < self._last:  # a new call of the same method
            self._base += self._last_total or self._last
        self._last, self._last_total = int(info.done), info.total
        if self._bar is None:
            return
        if info.total is not None:
            self._bar.total = self._base + int(info.total)
            self._bar.bar_format = None  # the full bar, now that a total is known
        self._bar.update(self._base + int(info.done) - self._bar.n)
        if info.convergence_ratio is not None:
            self._bar.set_postfix_str(f"convergence ratio {info.convergence_ratio:.4f}",
                                      refresh=False)

    def close(self, failed: bool = False) -> None:
        """End the line: ``done`` (or ``failed``) with the elapsed time."""
        outcome = "failed" if failed else "done"
        if self._bar is None:
            seconds = time.perf_counter() - self._t0
            print(f"ixplain explain: {self.name} {outcome} in {seconds:.1f} s", file=sys.stderr)
            return
        self._bar.set_postfix_str(outcome, refresh=False)
        self._bar.close()


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
    reporter : MethodProgress or None
        Inside :meth:`timed` within :func:`progress_shown`: the running method's progress
        reporter, for the ``progress=`` argument of the library functions; else None.
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
    #: The running method's progress reporter inside :meth:`timed` (``progress=`` of the
    #: library functions), None when progress is not shown.
    reporter: MethodProgress | None = None

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
        """Record the seconds spent in the ``with`` block as ``timings[key]`` (not when it
        raises); within :func:`progress_shown`, show the method's progress meanwhile
        (:attr:`reporter`)."""
        t0 = time.perf_counter()
        self.reporter = MethodProgress(key) if _SHOW_PROGRESS.get() else None
        try:
            yield
        except BaseException:
            if self.reporter is not None:
                self.reporter.close(failed=True)
            raise
        finally:
            reporter, self.reporter = self.reporter, None
        self.timings[key] = time.perf_counter() - t0
        if reporter is not None:
            reporter.close()
