"""``ixplain stream``'s explanation drift detection: the functions of the ``"drift"`` entry.

An :class:`~ixplain.ExplanationDriftDetector` at its default settings watches the per-row values
of the run's iPFI explainer (iSAGE's when iPFI is not run). Its events are grouped into
**incidents** (:meth:`~ixplain.ExplanationDriftDetector.incidents`, measured on the run's
plotted importance trace): the report lists the incidents (what changed, in words, and the
features it moved on the plotted scale) before the events (row, feature, channel, per-row
means before -> after, how each was found); ``incidents.csv``/``.json`` sit next to
``drift_events.csv``/``.json``; ``drift_events.png`` marks each incident in red (shaded from
its start to its detection, its top feature's before and after as dots) and each model
update (a learning model's scheduled check) as a light blue line, next to the known change
points and ADWIN's detections on the prequential error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from . import _plots
from ._stream_run import incident_dicts, run_incidents
from ._writers import Table, write_frame, write_json

if TYPE_CHECKING:
    from ._stream_run import ExplainerOptions, StreamExplainers, StreamRun

__all__ = ["build_drift", "drift_tables", "plot_drift", "write_drift"]

_WATCHED = ("pfi", "sage")
#: The marks of incidents and model updates (the report page's colours, contract A).
INCIDENT_COLOR = _plots.MARKER_COLORS["incident"]
MODEL_UPDATE_COLOR = _plots.MARKER_COLORS["model update"]


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


def _features_text(inc: Any, n: int = 3) -> str:
    """``"hour 4,890 -> 21,400; month 245 -> 1,600"``: the top ``n`` features moved."""
    from ..drift._incidents import pair_text

    return "; ".join(f"{f.name} {pair_text(f.before, f.after)}" for f in inc.features[:n])


def _incidents_frame(run: StreamRun) -> pd.DataFrame:
    columns = ["id", "method", "kind", "channel", "start", "detected", "end", "headline",
               "features", "events", "loss_before", "loss_after", "scale"]
    rows = [{"id": inc.id, "method": method, "kind": inc.kind, "channel": inc.channel,
             "start": inc.start, "detected": inc.detected, "end": inc.end,
             "headline": inc.headline, "features": _features_text(inc, n=len(inc.features)),
             "events": " ".join(map(str, inc.events)), "loss_before": inc.loss_before,
             "loss_after": inc.loss_after, "scale": inc.scale}
            for method, inc in sorted(run_incidents(run), key=lambda m_inc: m_inc[1].id)]
    return pd.DataFrame(rows, columns=columns)


def write_drift(run: StreamRun, out: Path) -> list[Path]:
    """``drift_events.csv`` (one row per event), ``drift_events.json`` (with each event's
    before/after importances of every feature), ``incidents.csv`` (one row per incident, then
    per model update: by ``id``) and ``incidents.json`` (:attr:`StreamRun.incidents`, in the
    order of detection)."""
    if not run.explainers.drift:
        return []
    payload = {
        m: [det.explain_change(i).to_dict() for i in range(len(det.events_))]
        for m, det in run.explainers.drift.items()
    }
    return [*write_frame(out, "drift_events", _events(run)),
            write_json(out / "drift_events.json", payload),
            *write_frame(out, "incidents", _incidents_frame(run)),
            write_json(out / "incidents.json", incident_dicts(run))]


def plot_drift(run: StreamRun, out: Path) -> list[tuple[str, Path]]:
    """The watched importances over the stream with the incidents and model updates marked."""
    drift = run.explainers.drift
    if not drift:
        return []
    fig, axes = _plots._figure(len(drift), width=9.0)
    found = run_incidents(run)
    for ax, (method, det) in zip(axes, drift.items()):
        _draw_events(ax, run, method, det, [inc for m, inc in found if m == method])
    path = out / "drift_events.png"
    fig.savefig(path, dpi=90)
    caption = ("Drift incidents on the importance traces: red, shaded from the change's start "
               "to its detection, numbered as in the incidents table (dots: its top feature "
               "before the start and where the change is largest); light blue lines: model "
               "updates (the learning model's scheduled checks found its explanation moved); "
               "dashed dark grey: known change points; dotted grey: ADWIN on the prequential "
               "error.")
    return [(caption, path)]


def _shown(values: np.ndarray, incidents: list[Any], names: list[str]) -> list[int]:
    """The features drawn: each incident's top two, then the largest final importances."""
    top = [names.index(f.name) for inc in incidents if inc.kind == "incident"
           for f in inc.features[:2] if f.name in names]
    order = list(np.argsort(-np.nan_to_num(values, nan=-np.inf)))
    return list(dict.fromkeys(top + order[:4]))[:_plots._MAX_LINES]


def _draw_events(ax: Any, run: StreamRun, method: str, det: Any,
                 incidents: list[Any] | None = None) -> None:
    trace = run.explainers.traces.get(method)
    names = run.feature_names
    if trace is None or not trace.rows:
        ax.text(0.5, 0.5, "no snapshot yet", ha="center", transform=ax.transAxes)
        return
    if incidents is None:
        incidents = [inc for m, inc in run_incidents(run) if m == method]
    rows, values = np.asarray(trace.rows), np.vstack(trace.values)
    colors = _plots.feature_colors(len(names))  # as in importance_traces.png
    for j in _shown(values[-1], incidents, names):
        ax.plot(rows, values[:, j], color=colors[j], lw=1.4, label=_plots._text(names[j]))
    _mark_incidents(ax, incidents)
    _change_lines(ax, run.known_drift_seen, run.detected_drift)
    n_inc = sum(inc.kind == "incident" for inc in incidents)
    ax.set_title(f"{_plots._TITLES.get(method, method)}: {n_inc} incident(s), "
                 f"{len(incidents) - n_inc} model update(s) "
                 f"(from {len(det.events_)} explanation drift event(s))")
    ax.set_xlabel("rows seen")
    ax.set_ylabel(_plots.importance_label(method, run.losses.get(method)))
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, framealpha=0.8)
    ax.grid(alpha=0.3)


def _change_lines(ax: Any, known: list[int], detected: list[int]) -> None:
    """Known change points (dark grey, dashed) and ADWIN's detections on the error (grey,
    dotted), as in ``importance_traces.png``: not in red, the incidents' colour."""
    _plots._drift_lines(ax, known, detected)


def _mark_incidents(ax: Any, incidents: list[Any]) -> None:
    """Incidents: a red span from start to detection, a red line at detection with its
    number, dots at its top feature's before and after; model updates: light blue lines
    (:func:`_plots.mark_incidents`, as in ``importance_traces.png``)."""
    _plots.mark_incidents(ax, [inc.to_dict() for inc in incidents])


def drift_tables(run: StreamRun) -> list[Table]:
    """The incidents (what changed, the features it moved on the plotted scale), then the
    events (row, feature, channel, per-row means before -> after, how each was found)."""
    if not run.explainers.drift:
        return []
    from ..drift._incidents import event_in_words

    found = run_incidents(run)
    of_event = {(m, i): inc.id for m, inc in found for i in inc.events}
    n_events = sum(len(det.events_) for det in run.explainers.drift.values())
    n_inc = sum(inc.kind == "incident" for _, inc in found)
    inc_rows = [[inc.id, inc.kind.replace("_", " "), f"{inc.start} -> {inc.detected}",
                 inc.headline, _features_text(inc)]
                for _, inc in sorted(found, key=lambda m_inc: m_inc[1].id)]  # incidents first
    inc_caption = (f"Drift incidents ({n_inc}; model updates: {len(found) - n_inc}; from "
                   f"{n_events} explanation drift events). Features: the plotted importance "
                   "before the start -> where the change is largest.")
    inc_columns = ["#", "kind", "rows (start -> detected)", "what changed",
                   "features moved (plotted importance)"]
    rows = [
        [e.row, e.feature, e.channel,
         f"{e.before:.4g} [{e.before_low:.3g}, {e.before_high:.3g}] -> "
         f"{e.after:.4g} [{e.after_low:.3g}, {e.after_high:.3g}]",
         e.direction, e.start, event_in_words(e), of_event.get((m, i), "-")]
        for m, det in run.explainers.drift.items() for i, e in enumerate(det.events_)
    ]
    caption = (f"Explanation drift events ({len(rows)}; known change points: "
               f"{run.known_drift_seen or 'none'}; ADWIN on the error: "
               f"{run.detected_drift or 'none'}). Before -> after: means of the per-row "
               "values (of the frozen model for the data channel), not the plotted scale; "
               "the test's technical name is in drift_events.csv.")
    columns = ["row", "feature", "channel", "before -> after (95% bounds)", "direction",
               "change from row", "found by", "incident"]
    return [(inc_caption, inc_columns, inc_rows), (caption, columns, rows)]
