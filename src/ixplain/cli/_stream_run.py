"""The data of one ``ixplain stream`` run: its settings, its explainers and what it produced.

The registry :data:`STREAM_METHODS` (``--explain`` name -> :class:`StreamMethod`) is declared
here and filled by :mod:`ixplain.cli._stream_methods`; the writers of each method
(:mod:`~ixplain.cli._drift`, :mod:`~ixplain.cli._stream_interactions`) depend on this module
alone, never on the loop (:mod:`~ixplain.cli._stream`) that calls them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..observers import ExplainerObserver
from ._errors import CLIError
from ._methods import _public
from ._writers import Table

__all__ = ["STREAM_METHODS", "ExplainerOptions", "StreamConfig", "StreamExplainers",
           "StreamMethod", "StreamRun", "incident_dicts", "run_incidents"]

@dataclass
class StreamConfig:
    """Settings of one ``ixplain stream`` run (the CLI options, validated)."""

    dataset: str | None = "bike"
    data: str | None = None
    target: str | None = None
    task: str | None = None
    model: str | None = None
    explain: Sequence[str] | None = None
    features: Sequence[str] | None = None
    pd_features: Sequence[str] | None = None
    alpha: float | None = None
    every: int | None = None
    n_rows: int | None = None
    loss: str | None = None
    seed: int = 0
    grid_resolution: int = 20
    sage_samples: int | None = None
    batch_size: int = 16
    progress: bool = True
    removal: str = "marginal"


@dataclass
class StreamRun:
    """Everything a stream run produced, ready to be written."""

    config: StreamConfig
    source: str
    task: str
    target: str
    model_name: str
    model_repr: str
    loss: str
    losses: dict[str, str]
    alpha: float
    every: int
    methods: list[str]
    feature_names: list[str]
    explainers: StreamExplainers
    metric_name: str
    per_row_metric: np.ndarray
    rolling_window: int
    known_drift: list[int]
    detected_drift: list[int]
    rows_seen: int
    n_rows_total: int
    seconds: float
    interrupted: bool = False
    skipped_methods: list[str] = field(default_factory=list)
    frame_sample: pd.DataFrame | None = None
    dropped_columns: list[str] = field(default_factory=list)

    @property
    def known_drift_seen(self) -> list[int]:
        """The known change points among the rows seen."""
        return [r for r in self.known_drift if r <= self.rows_seen]

    @property
    def incidents(self) -> list[dict[str, Any]]:
        """The drift detector's incidents and model updates, measured on the run's plotted
        importance trace: ``Incident.to_dict()`` (contract B) plus the watched ``method``,
        in the order of detection (empty without ``drift``)."""
        return incident_dicts(self)

    @property
    def rolling_metric(self) -> np.ndarray:
        v = self.per_row_metric[: self.rows_seen]
        if len(v) == 0:
            return v
        c = np.cumsum(np.insert(v, 0, 0.0))
        w = self.rolling_window
        idx = np.arange(1, len(v) + 1)
        lo = np.maximum(idx - w, 0)
        return (c[idx] - c[lo]) / (idx - lo)



def run_incidents(run: StreamRun) -> list[tuple[str, Any]]:
    """(method, :class:`~ixplain.drift.Incident`) of every drift detector of ``run``,
    measured on the run's recorded trace of the watched method (the plotted one)."""
    out: list[tuple[str, Any]] = []
    for method, det in run.explainers.drift.items():
        trace = run.explainers.traces.get(method)
        given = None
        if trace is not None and trace.rows:
            given = {"rows": trace.rows, "values": np.vstack(trace.values),
                     "bounds": np.vstack(trace.bounds), "feature_names": run.feature_names}
        out.extend((method, inc) for inc in det.incidents(given))
    return out


def incident_dicts(run: StreamRun) -> list[dict[str, Any]]:
    """The run's incidents and model updates as dicts (``Incident.to_dict()`` plus the
    watched ``method``): :attr:`StreamRun.incidents`, what the report builders read."""
    return [{**inc.to_dict(), "method": method} for method, inc in run_incidents(run)]


#: A report figure: (caption, path of the PNG).
Image = tuple[str, Path]


@dataclass(frozen=True)
class ExplainerOptions:
    """What the explainers of a stream run are built with (every one gets ``random_state=seed``).

    ``loss`` is one loss name or a mapping method -> loss name.
    """

    loss: str | dict[str, str]
    feature_names: Sequence[str]
    pd_features: Sequence[str]
    alpha: float
    seed: int
    grid_resolution: int = 20
    sage_samples: int | None = None
    removal: str = "marginal"
    #: The CLI's River models map a missing value to the running mean, so rows with missing
    #: values are explained as they are (``"pass"``), not skipped.
    nan_policy: str = "pass"
    #: Per PD feature, extra IncrementalPDP arguments (integer features on their levels).
    pd_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The numeric features (None: unknown, all taken as numeric); iALE explains only these.
    numeric_features: Sequence[str] | None = None
    #: Rows between snapshots: every explainer's ``history_every`` (its snapshots are what
    #: the run records, :class:`_Recorder`).
    every: int = 100


@dataclass
class _Trace:
    rows: list[int] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    variances: list[np.ndarray] = field(default_factory=list)
    bounds: list[np.ndarray] = field(default_factory=list)


class _Recorder(ExplainerObserver):
    """Records one explainer's snapshots for the run's files: subscribed to the explainer
    (:mod:`ixplain.observers`), it notes the snapshot row the explainer publishes
    (``on_snapshot``; its ``history_every`` is the run's ``every``) and, once the explain call
    has taken all its rows (``on_call_end``), records the explainer's state with its method's
    ``snapshot`` function. The loop's batches end on snapshot rows, so that state is the one
    after the snapshot row."""

    def __init__(self, run: StreamExplainers, key: str, explainer: Any,
                 record: Callable[[StreamExplainers, str, Any, int], None]) -> None:
        self.run, self.key, self.explainer, self.record = run, key, explainer, record
        self.due: int | None = None

    def values_undo(self) -> None:
        return None  # (takes no values)

    def on_snapshot(self, n_seen: int, estimate: Any, variance: Any) -> None:
        self.due = n_seen

    def on_failure(self, exc: BaseException) -> None:
        self.due = None  # (the part that reached it was taken back)

    def on_call_end(self) -> None:
        if self.due is not None:
            row, self.due = self.due, None
            self.record(self.run, self.key, self.explainer, row)
            self.run.last_row = row


@dataclass
class StreamExplainers:
    """The incremental explainers of one stream run and the snapshots taken of them.

    Attributes
    ----------
    explainers : dict of str to explainer
        Every explainer, in the order rows are fed to them (``"pfi"``, ``"sage"``, ``"pdp:age"``).
    importance : dict of str to explainer
        ``"pfi"`` / ``"sage"`` explainers (one vector of importances each).
    pdp : dict of str to explainer
        One ``IncrementalPDP`` per explained feature.
    traces : dict of str to _Trace
        Importances over time, one snapshot every ``every`` rows.
    pd_snapshots : dict of str to list of (row, grid, values)
    snapshots : dict of str to list
        Snapshots of methods without a field of their own, by method name (what a new
        method's ``snapshot`` records and its ``write``/``plot`` read).
    drift : dict of str to ExplanationDriftDetector
        The detector watching an importance explainer (``"pfi"``, else ``"sage"``).
    settings : dict
        ``"storage"``: a description of each importance explainer's storage.
    last_row : int or None
        The stream row of the latest snapshot recorded (None before the first).
    methods_of : dict of str to str
        The method (``--explain`` name) of each explainer.

    Each explainer publishes its snapshots to a recorder (:class:`_Recorder`) that records
    them with its method's ``snapshot`` function; :meth:`snapshot` records them all at once
    (the run's closing snapshot).
    """

    feature_names: list[str]
    methods: list[str] = field(default_factory=list)
    explainers: dict[str, Any] = field(default_factory=dict)
    importance: dict[str, Any] = field(default_factory=dict)
    pdp: dict[str, Any] = field(default_factory=dict)
    traces: dict[str, _Trace] = field(default_factory=dict)
    pd_snapshots: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = field(default_factory=dict)
    snapshots: dict[str, list[Any]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    drift: dict[str, Any] = field(default_factory=dict)
    last_row: int | None = None
    methods_of: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(
        cls, methods: Sequence[str], model: Any, options: ExplainerOptions
    ) -> StreamExplainers:
        """Construct the explainers named in ``methods`` with their registry entries."""
        self = cls(feature_names=list(options.feature_names), methods=list(methods))
        for method in methods:
            entry = STREAM_METHODS[method]
            klass = _public(entry.needs)
            if klass is None:
                raise CLIError(
                    f"method {method!r} needs ixplain.{entry.needs}, which this build of ixplain "
                    "does not have."
                )
            entry.build(self, method, klass, model, options)
            for key in [k for k in self.explainers if k not in self.methods_of]:
                self.methods_of[key] = method
                explainer = self.explainers[key]
                explainer.subscribe(_Recorder(self, key, explainer, entry.snapshot))
        self.settings = {
            "storage": {m: _describe_storage(e) for m, e in self.importance.items()},
        }
        return self

    def explain_many(self, xs: list[dict[str, Any]], ys: list[Any]) -> None:
        """A mini-batch through every explainer (``explain_many``: one model call per batch)."""
        for ex in self.explainers.values():
            ex.explain_many(xs, ys)

    def explain_one(self, x: dict[str, Any], y: Any) -> None:
        """One observation through every explainer."""
        self.explain_many([x], [y])

    def snapshot(self, row: int) -> None:
        """Record the current state of every explainer at stream row ``row`` (the run's
        closing snapshot; the others are recorded as the explainers publish them)."""
        for key, explainer in self.explainers.items():
            STREAM_METHODS[self.methods_of[key]].snapshot(self, key, explainer, row)
        self.last_row = row

    def last_snapshot_row(self) -> int | None:
        """The stream row of the latest :meth:`snapshot` (None before the first), whichever
        methods recorded something then (the run's closing snapshot is skipped on that row)."""
        return self.last_row

    @property
    def n_explainers(self) -> int:
        return len(self.explainers)

    def row_counts(self) -> dict[str, dict[str, int]]:
        """Per explainer: rows received, explained and skipped (missing values or a
        non-finite explanation; see ``nan_policy``)."""
        return {
            name: {
                "seen": int(getattr(ex, "n_seen_", 0)),
                "explained": int(getattr(ex, "n_explained_", 0)),
                "skipped": int(getattr(ex, "n_skipped_", 0)),
            }
            for name, ex in self.explainers.items()
        }


def _nothing(run: StreamRun) -> list[Any]:
    return []


@dataclass(frozen=True)
class StreamMethod:
    """How ``ixplain stream`` runs one method and shows its result.

    Attributes
    ----------
    needs : str
        Public ixplain class of the explainer (a build without it reports it unavailable).
    build : callable (StreamExplainers, method, class, model, ExplainerOptions) -> None
        Constructs the explainer(s) and adds them to the ``StreamExplainers``.
    snapshot : callable (StreamExplainers, key, explainer, row) -> None
        Records the current values of the explainer ``key`` (one the entry built) at stream
        row ``row``; called when the explainer publishes a snapshot (every ``every`` rows:
        :class:`_Recorder`) and for the run's closing snapshot.
    write : callable (StreamRun, Path) -> list of Path
        Writes the CSV/Parquet/JSON files of the snapshots; returns their paths.
    plot : callable (StreamRun, Path) -> list of (caption, Path)
        Draws the PNGs shown in the report.
    tables : callable (StreamRun) -> list of (caption, columns, rows)
        Tables of the report (before the data sample).
    default : bool, default=True
        Whether a run without ``--explain`` includes it (costly methods are opt-in).
    """

    needs: str
    build: Callable[[StreamExplainers, str, Any, Any, ExplainerOptions], None]
    snapshot: Callable[[StreamExplainers, str, Any, int], None]
    write: Callable[[StreamRun, Path], list[Path]]
    plot: Callable[[StreamRun, Path], list[Image]]
    tables: Callable[[StreamRun], list[Table]] = _nothing
    default: bool = True


def _describe_storage(explainer: Any) -> str:
    storage = getattr(explainer, "storage", None)
    if storage is None:
        return "default"
    size = getattr(storage, "size", None)
    p = getattr(storage, "p", None)
    text = type(storage).__name__
    args = []
    if size is not None:
        args.append(f"size={size}")
    if p is not None:
        args.append(f"p={p}")
    return f"{text}({', '.join(args)})"


#: ``--explain`` name -> how ``ixplain stream`` runs it (registry order is the run order; a run
#: without ``--explain`` runs the available entries with ``default=True``); filled by
#: :mod:`ixplain.cli._stream_methods`.
STREAM_METHODS: dict[str, StreamMethod] = {}

