"""``ixplain stream``'s explanation drift detection: the functions of the ``"drift"`` entry.

An :class:`~ixplain.ExplanationDriftDetector` at its default settings watches the per-row values
of the run's iPFI explainer (iSAGE's when iPFI is not run); the report lists its events (row,
feature, channel, before -> after) and marks them, in their feature's colour, on the importance
traces (``importance_traces.png`` and ``drift_events.png``, which shows only the watched
method) next to the known change points and ADWIN's detections on the prequential error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from . import _plots
from ._writers import Table, write_frame, write_json

if TYPE_CHECKING:
    from ._stream_run import ExplainerOptions, StreamExplainers, StreamRun

__all__ = ["build_drift", "drift_tables", "plot_drift", "write_drift"]

_WATCHED = ("pfi", "sage")


def build_drift(ex: StreamExplainers, method: str, klass: Any, model: Any,
                options: ExplainerOptions) -> None:
    """Attach a detector to the first importance explainer of the run (iPFI, else iSAGE)."""
    from ..drift.detector import attach_detector

    for name in _WATCHED:
        explainer = ex.importance.get(name)
        if explainer is not None:
            ex.drift[name] = attach_detector(explainer, klass(random_state=options.seed))
            return


def snapshot_drift(ex: StreamExplainers, key: str, explainer: Any, row: int) -> None:
    """Nothing to record: the detector keeps its events."""


def _events(run: StreamRun) -> pd.DataFrame:
    frames = [det.events_frame().assign(method=m) for m, det in run.explainers.drift.items()]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def write_drift(run: StreamRun, out: Path) -> list[Path]:
    """``drift_events.csv`` (one row per event) and ``drift_events.json`` (with each event's
    before/after importances of every feature)."""
    if not run.explainers.drift:
        return []
    payload = {
        m: [det.explain_change(i).to_dict() for i in range(len(det.events_))]
        for m, det in run.explainers.drift.items()
    }
    return [*write_frame(out, "drift_events", _events(run)),
            write_json(out / "drift_events.json", payload)]


def plot_drift(run: StreamRun, out: Path) -> list[tuple[str, Path]]:
    """The watched importances over the stream with the explanation events marked."""
    drift = run.explainers.drift
    if not drift:
        return []
    fig, axes = _plots._figure(len(drift), width=9.0)
    for ax, (method, det) in zip(axes, drift.items()):
        _draw_events(ax, run, method, det)
    path = out / "drift_events.png"
    fig.savefig(path, dpi=90)
    caption = ("Explanation drift events on the importance traces (triangles: data channel, a "
               "frozen model snapshot on new rows; squares: model channel, the current model on "
               "a fixed reference sample); dashed red: known change points; dotted grey: ADWIN "
               "on the prequential error.")
    return [(caption, path)]


def _draw_events(ax: Any, run: StreamRun, method: str, det: Any) -> None:
    trace = run.explainers.traces.get(method)
    names = run.feature_names
    events = det.events_
    if trace is None or not trace.rows:
        ax.text(0.5, 0.5, "no snapshot yet", ha="center", transform=ax.transAxes)
        return
    rows, values = np.asarray(trace.rows), np.vstack(trace.values)
    shown = _plots.shown_features(values[-1], events, names, n_top=4)
    colors = _plots.feature_colors(len(names))  # as in importance_traces.png
    for j in shown:
        ax.plot(rows, values[:, j], color=colors[j], lw=1.4, label=_plots._text(names[j]))
    _plots.mark_events(ax, events, rows, values, names, shown, colors)
    _plots._drift_lines(ax, run.known_drift_seen, run.detected_drift)
    ax.set_title(f"{_plots._TITLES.get(method, method)}: {len(events)} explanation drift "
                 "event(s)")
    ax.set_xlabel("rows seen")
    ax.set_ylabel(_plots.importance_label(method, run.losses.get(method)))
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, framealpha=0.8)
    ax.grid(alpha=0.3)


def drift_tables(run: StreamRun) -> list[Table]:
    """One table of events: row, feature, channel, before -> after (95 % bounds), test."""
    if not run.explainers.drift:
        return []
    rows = [
        [e.row, e.feature, e.channel,
         f"{e.before:.4g} [{e.before_low:.3g}, {e.before_high:.3g}] -> "
         f"{e.after:.4g} [{e.after_low:.3g}, {e.after_high:.3g}]",
         e.direction, e.start, e.test]
        for det in run.explainers.drift.values() for e in det.events_
    ]
    caption = (f"Explanation drift events ({len(rows)}; known change points: "
               f"{run.known_drift_seen or 'none'}; ADWIN on the error: "
               f"{run.detected_drift or 'none'})")
    columns = ["row", "feature", "channel", "before -> after (95% bounds)", "direction",
               "change from row", "test"]
    return [(caption, columns, rows)]
