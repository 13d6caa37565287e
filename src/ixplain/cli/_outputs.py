"""Writing a stream run's results: CSV, JSON, Parquet (where pyarrow is installed), PNG and HTML.

Each method's files, plots and tables come from its entry in
:data:`~ixplain.cli._stream_methods.STREAM_METHODS`; this module adds what every run has (the
model's prequential metric, the summary and the report).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _plots
from ._stream import StreamRun
from ._stream_methods import STREAM_METHODS, final_importances
from ._writers import json_safe, sample_table, write_frame, write_json
from .report import Report, render_report

__all__ = ["json_safe", "write_frame", "write_json", "write_stream_outputs"]


def write_stream_outputs(run: StreamRun, out: Path) -> dict[str, Any]:
    """Write every output of a stream run into ``out``; return the summary (also in JSON)."""
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
    report = Report(
        title=f"ixplain stream: {run.source}",
        settings=settings,
        tables=tables,
        images=images,
        notes=_notes(run),
        files=[p.name for p in files],
    )
    (out / "report.html").write_text(render_report(report), encoding="utf-8")
    return summary


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
