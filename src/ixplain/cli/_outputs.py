"""Writing a stream run's results: CSV, JSON, Parquet (where pyarrow is installed), PNG and HTML.

Each method's files, plots and tables come from its entry in
:data:`~ixplain.cli._stream_methods.STREAM_METHODS`; this module adds what every run has (the
model's prequential metric, the summary and the report).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..report import thin_indices
from . import _plots
from ._stream import StreamRun
from ._stream_methods import STREAM_METHODS, final_importances
from ._writers import json_safe, sample_table, write_frame, write_json
from .report import Report, render_report

__all__ = ["json_safe", "stream_payload", "write_frame", "write_json", "write_page",
           "write_stream_outputs"]


def write_stream_outputs(run: StreamRun, out: Path) -> dict[str, Any]:
    """Write every output of a stream run into ``out``; return the summary (also in JSON).

    ``report.html`` is the report page (:func:`ixplain.report.render_page`) of
    :func:`stream_payload`, with the static PNGs as its images.
    """
    out.mkdir(parents=True, exist_ok=True)
    entries = [STREAM_METHODS[m] for m in run.methods]
    files = [p for write in _unique(e.write for e in entries) for p in write(run, out)]
    files += write_frame(out, "metric", _metric_frame(run))
    images = [im for plot in _unique(e.plot for e in entries) for im in plot(run, out)]
    images.append(_plot_metric(run, out))
    files += [p for _, p in images]
    files += [out / "summary.json", out / "report.html"]
    settings = _settings(run)
    summary = _summary(run, settings, files)
    write_json(out / "summary.json", summary)
    tables = [t for table in _unique(e.tables for e in entries) for t in table(run)]
    if run.frame_sample is not None:
        tables.append(sample_table("First rows of the stream", run.frame_sample))
    payload = stream_payload(run, settings=settings, tables=tables, images=images,
                             files=[p.name for p in files])
    legacy = Report(
        title=f"ixplain stream: {run.source}",
        settings=settings,
        tables=tables,
        images=images,
        notes=_notes(run),
        files=[p.name for p in files],
    )
    write_page(out / "report.html", payload, legacy)
    return summary


def write_page(path: Path, payload: dict[str, Any], legacy: Report | None = None,
               *, live: bool = False) -> Path:
    """Write the report page of ``payload`` to ``path`` (atomically: a page being served
    is never read half-written).

    When the interactive page cannot be drawn (``render_page`` raises ``ImportError``:
    plotly is not installed), the ``legacy`` report (text, tables and PNGs) is written
    instead, with a note saying why; with ``live=True`` (or no ``legacy``) the error is raised.
    """
    try:
        from ..report import render_page

        text = render_page(payload, live=live)
    except ImportError as exc:
        if legacy is None or live:
            raise
        legacy.notes = [*legacy.notes, f"The interactive charts are left out: {exc}"]
        text = render_report(legacy)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def _unique(functions: Any) -> list[Any]:
    """Each function once, in first-seen order (methods may share one)."""
    return list(dict.fromkeys(functions))


def _metric_frame(run: StreamRun) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "row": np.arange(1, run.rows_seen + 1),
            run.metric_name: run.per_row_metric[: run.rows_seen],
            f"rolling_{run.metric_name}": run.rolling_metric,
        }
    )


def _plot_metric(run: StreamRun, out: Path) -> tuple[str, Path]:
    path = _plots.plot_metric(
        out / "metric.png",
        run.rolling_metric,
        run.metric_name,
        run.rolling_window,
        known_drift=run.known_drift_seen,
        detected_drift=run.detected_drift,
    )
    return (f"Prequential {run.metric_name} of the model (predict, then learn).", path)


def _summary(run: StreamRun, settings: list[tuple[str, Any]], files: list[Path]) -> dict[str, Any]:
    final = final_importances(run.explainers)
    names = run.feature_names
    rolling = run.rolling_metric
    return {
        "command": "stream",
        "settings": dict(settings),
        "interrupted": run.interrupted,
        "final_importances": {m: dict(zip(names, v.tolist())) for m, (v, _) in final.items()},
        "final_bounds": {m: dict(zip(names, b.tolist())) for m, (_, b) in final.items()},
        f"final_rolling_{run.metric_name}": float(rolling[-1]) if len(rolling) else None,
        "known_drift": run.known_drift,
        "detected_drift": run.detected_drift,
        "rows_explained": run.explainers.row_counts(),
        "dropped_columns": run.dropped_columns,
        "files": [p.name for p in files],
    }


def _notes(run: StreamRun) -> list[str]:
    notes = []
    if run.interrupted:
        notes.append(
            f"Interrupted (Ctrl-C or SIGTERM) after {run.rows_seen} of {run.n_rows_total} rows: the values "
            "below are the partial results."
        )
    if run.skipped_methods:
        notes.append(
            "Not available in this build of ixplain, skipped: " + ", ".join(run.skipped_methods)
        )
    if run.dropped_columns:
        notes.append(
            "Left out, every value missing: " + ", ".join(map(repr, run.dropped_columns)) + "."
        )
    for name, c in run.explainers.row_counts().items():
        if c["skipped"]:
            notes.append(
                f"{name}: {c['skipped']:,} of {c['seen']:,} rows were not explained (missing "
                "values, or a non-finite explanation); the values describe the other rows."
            )
    return notes


def _settings(run: StreamRun) -> list[tuple[str, Any]]:
    storages = run.explainers.settings.get("storage", {})
    storage = "; ".join(f"{m}: {s}" for m, s in storages.items()) or "-"
    return [
        ("dataset", run.source),
        ("target", run.target),
        ("task", run.task),
        ("model", f"{run.model_name}: {run.model_repr}"),
        ("methods", ", ".join(run.methods) or "none available"),
        ("loss", run.loss),
        ("alpha", run.alpha),
        ("storage", storage),
        ("PD features", ", ".join(run.explainers.pdp) or "-"),
        ("snapshot every", f"{run.every} rows"),
        ("rows", f"{run.rows_seen} of {run.n_rows_total}"),
        ("rows explained", _explained_text(run.explainers.row_counts())),
        ("time", f"{run.seconds:.1f} s ({run.rows_seen / max(run.seconds, 1e-9):.0f} rows/s)"),
        (
            f"final rolling {run.metric_name}",
            float(run.rolling_metric[-1]) if run.rows_seen else "-",
        ),
        ("seed", run.config.seed),
        ("known change points (rows)", ", ".join(map(str, run.known_drift)) or "none documented"),
        ("changes detected (ADWIN)", len(run.detected_drift)),
    ]


def _explained_text(counts: dict[str, dict[str, int]]) -> str:
    """``"pfi: 100 of 100; sage: 98 of 100 (2 skipped)"``."""
    parts = []
    for name, c in counts.items():
        text = f"{name}: {c['explained']:,} of {c['seen']:,}"
        parts.append(text + (f" ({c['skipped']:,} skipped)" if c["skipped"] else ""))
    return "; ".join(parts) or "-"


# --- the report payload (contract A of the session notes: ixplain.report.render_page) -------

#: Points per trace in the payload (snapshots are thinned evenly, the last one always kept).
MAX_POINTS = 400
#: Features drawn with their confidence band in the headline chart (the strongest ones: the
#: bands of every feature together cover the plot early in a stream).
BAND_FEATURES = 5
_LABELS = {"pfi": "iPFI", "sage": "iSAGE"}


def _label(key: str) -> str:
    """``"pfi"`` -> ``"iPFI"``, ``"sage (conditional)"`` -> ``"iSAGE (conditional)"``."""
    base, _, rest = key.partition(" ")
    return _LABELS.get(base, base) + (f" {rest}" if rest else "")


def _primary(run: StreamRun) -> str | None:
    """The importance the first screen shows: iPFI, else iSAGE, else the first with a trace."""
    traces = {k: t for k, t in run.explainers.traces.items() if t.rows}
    for key in ("pfi", "sage"):
        if key in traces:
            return key
    return next(iter(traces), None)


def _order(values: np.ndarray) -> list[int]:
    """Feature indices by decreasing value, missing values last."""
    return [int(j) for j in np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")]


def run_incidents(run: StreamRun) -> list[dict[str, Any]] | None:
    """The run's incidents as dicts (contract B), or None when none were looked for (no
    drift detector, or a build whose run does not group events into incidents)."""
    found = getattr(run, "incidents", None)
    if found is None or not run.explainers.drift:
        return None
    return [i.to_dict() if hasattr(i, "to_dict") else dict(i) for i in found]


def _markers(run: StreamRun, incidents: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    marks: list[dict[str, Any]] = [
        {"x": k, "label": f"known change at row {k:,}", "kind": "known", "incident": None}
        for k in run.known_drift_seen
    ]
    for inc in incidents or []:
        kind = inc.get("kind", "incident")
        what = "model update" if kind == "model_update" else "incident"
        label = (f"{what} {inc['id']}: {inc.get('headline', '')} (from row {inc['start']:,}, "
                 f"detected at row {inc['detected']:,})")
        marks.append({"x": inc["detected"], "label": label, "kind": kind,
                      "incident": inc["id"]})
    return marks


def _ranking(run: StreamRun, key: str) -> dict[str, Any]:
    trace = run.explainers.traces[key]
    values, bounds = trace.values[-1], trace.bounds[-1]
    order = _order(values)
    method = key.partition(" ")[0]
    return {
        "title": f"Final {_label(key)} (row {trace.rows[-1]:,}, 95 % bounds)",
        "unit": _plots.importance_label(method, run.losses.get(method)),
        "features": [run.feature_names[j] for j in order],
        "values": [values[j] for j in order],
        "lower": [values[j] - bounds[j] for j in order],
        "upper": [values[j] + bounds[j] for j in order],
    }


def _trace_chart(run: StreamRun, key: str, markers: list[dict[str, Any]],
                 max_points: int) -> dict[str, Any]:
    """Importances over the stream: one series per feature in final-importance order, bands
    for the strongest :data:`BAND_FEATURES`."""
    trace = run.explainers.traces[key]
    idx = np.asarray(thin_indices(len(trace.rows), max_points))
    values = np.vstack(trace.values)[idx]
    bounds = np.vstack(trace.bounds)[idx]
    series = []
    for rank, j in enumerate(_order(trace.values[-1])):
        band = rank < BAND_FEATURES and np.isfinite(bounds[:, j]).any()
        series.append({
            "name": run.feature_names[j],
            "y": values[:, j],
            "lower": values[:, j] - bounds[:, j] if band else None,
            "upper": values[:, j] + bounds[:, j] if band else None,
        })
    method = key.partition(" ")[0]
    return {
        "id": f"importances-{key}", "kind": "traces",
        "title": f"{_label(key)} over the stream (95 % bands of the top {BAND_FEATURES})",
        "x_label": "rows seen", "y_label": _plots.importance_label(method, run.losses.get(method)),
        "x": np.asarray(trace.rows)[idx], "series": series, "markers": markers,
    }


def _metric_chart(run: StreamRun, markers: list[dict[str, Any]],
                  max_points: int) -> dict[str, Any]:
    rolling = run.rolling_metric
    idx = np.asarray(thin_indices(len(rolling), max_points))
    return {
        "id": "metric", "kind": "traces",
        "title": f"Prequential {run.metric_name} of the model (rolling, {run.rolling_window} rows)",
        "x_label": "rows seen", "y_label": run.metric_name, "x": idx + 1,
        "series": [{"name": f"rolling {run.metric_name}", "y": rolling[idx], "lower": None,
                    "upper": None}],
        "markers": [m for m in markers if m["kind"] == "known"],
    }


def _curve_rows(rows: list[int], known: list[int]) -> list[int]:
    """Indices of the snapshots drawn: the last before each known change, and the last."""
    picked = [max((i for i, r in enumerate(rows) if r <= k), default=None) for k in known]
    return sorted({i for i in picked if i is not None} | {len(rows) - 1})


def _curve_charts(run: StreamRun, snapshots: dict[str, list[tuple[int, Any, Any]]],
                  kind: str, y_label: str) -> list[dict[str, Any]]:
    """One chart per feature (strongest first): its curve before each known change and now."""
    rank = {}
    key = _primary(run)
    if key is not None:
        rank = {run.feature_names[j]: r
                for r, j in enumerate(_order(run.explainers.traces[key].values[-1]))}
    charts = []
    for feature in sorted(snapshots, key=lambda f: rank.get(f, len(rank))):
        snaps = snapshots[feature]
        if not snaps:
            continue
        series = [{
            "name": f"row {snaps[i][0]:,}" + (" (now)" if i == len(snaps) - 1 else ""),
            "x": np.asarray(snaps[i][1], dtype=object), "y": snaps[i][2],
            "lower": None, "upper": None, "group": feature,
        } for i in _curve_rows([s[0] for s in snaps], run.known_drift_seen)]
        charts.append({"id": f"{kind.lower()}-{feature}", "kind": "curves",
                       "title": f"{kind} of {feature}", "x_label": feature,
                       "y_label": y_label, "series": series})
    return charts


def _effect_charts(run: StreamRun) -> list[dict[str, Any]]:
    target = "prediction" if run.task == "regression" else "P(positive class)"
    charts = _curve_charts(run, run.explainers.pd_snapshots, "PD", target)
    ale: dict[str, list[tuple[int, Any, Any]]] = {}
    for feature, row, edges, values, _ in run.explainers.snapshots.get("ale", []):
        ale.setdefault(feature, []).append((row, edges, values))
    return charts + _curve_charts(run, ale, "ALE", f"ALE of the {target}")


def _interaction_chart(run: StreamRun) -> list[dict[str, Any]]:
    explainer = run.explainers.explainers.get("interactions")
    if explainer is None or explainer.n_explained_ == 0:
        return []
    res = explainer.to_result()
    pairs = res.top_pairs(10)
    return [{"id": "interactions", "kind": "bars",
             "title": f"Strongest interactions at row {run.rows_seen:,} ({res.index})",
             "x_label": "pair", "y_label": "interaction",
             "series": [{"name": res.index, "labels": [f"{a} x {b}" for a, b, _ in pairs],
                         "y": [v for _, _, v in pairs], "lower": None, "upper": None}]}]


def stream_payload(run: StreamRun, *, state: str | None = None,
                   settings: list[tuple[str, Any]] | None = None,
                   tables: Sequence[Any] = (), images: Sequence[tuple[str, Path]] = (),
                   files: Sequence[str] = (), max_points: int = MAX_POINTS) -> dict[str, Any]:
    """The report payload of a stream run (plain JSON types; the page's contract).

    First screen: sentences of :func:`ixplain.report.summarize_stream`, the final ranking of
    iPFI (else iSAGE) and, as the headline, its importances over the stream with bands and
    markers (known change points, the run's incidents and model updates). Then the other
    importances, the prequential metric, PD/ALE curves (before each known change and now,
    strongest feature first) and the strongest interactions; tables, settings, images
    (``(caption, PNG path)``) and files below. Traces hold at most ``max_points`` points.
    ``state`` defaults to "interrupted" or "finished".
    """
    from ..report import summarize_stream

    incidents = run_incidents(run)
    markers = _markers(run, incidents)
    key = _primary(run)
    keys = [key] + [k for k, t in run.explainers.traces.items() if t.rows and k != key] \
        if key else []
    charts = [_trace_chart(run, k, markers, max_points) for k in keys]
    charts += [_metric_chart(run, markers, max_points), *_effect_charts(run),
               *_interaction_chart(run)]
    summary = ["No importance method ran."]
    if key is not None:
        trace = run.explainers.traces[key]
        summary = summarize_stream(run.feature_names, trace.rows, np.vstack(trace.values),
                                   method=_label(key), known_changes=run.known_drift_seen,
                                   incidents=incidents)
    payload = {
        "title": f"ixplain stream: {run.source}",
        "subtitle": f"{run.model_name} model, target {run.target}; {run.rows_seen:,} of "
                    f"{run.n_rows_total:,} rows",
        "status": {"state": state or ("interrupted" if run.interrupted else "finished"),
                   "rows_seen": run.rows_seen, "rows_total": run.n_rows_total},
        "summary": summary,
        "ranking": _ranking(run, key) if key else None,
        "headline": charts[0]["id"] if key else None,
        "charts": charts,
        "incidents": incidents or [],
        "tables": [{"title": t[0], "columns": list(t[1]), "rows": [list(r) for r in t[2]]}
                   for t in tables],
        "settings": [[k, v] for k, v in (settings if settings is not None else _settings(run))],
        "images": [{"caption": c, "png_base64": base64.b64encode(Path(p).read_bytes())
                    .decode("ascii")} for c, p in images],
        "notes": _notes(run),
        "files": list(files),
    }
    return json_safe(payload)  # type: ignore[no-any-return]
