"""Writing a run's results: CSV, JSON, Parquet (where pyarrow is installed), PNG and HTML."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _plots
from ._stream import StreamRun
from .report import Report, render_report

__all__ = ["json_safe", "write_frame", "write_json", "write_stream_outputs"]


def json_safe(value: Any) -> Any:
    """Plain JSON types: arrays to lists, numpy scalars to Python, NaN/inf to ``None``."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        return json_safe(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def write_json(path: Path, payload: Any) -> Path:
    path.write_text(json.dumps(json_safe(payload), indent=1, allow_nan=False) + "\n")
    return path


def write_frame(out: Path, stem: str, frame: pd.DataFrame) -> list[Path]:
    """``stem.csv`` always, ``stem.parquet`` when pyarrow is installed."""
    written = [out / f"{stem}.csv"]
    frame.to_csv(written[0], index=False)
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return written
    parquet_frame = frame.copy()
    for col in parquet_frame.columns:  # mixed grid values (numbers and levels) as text
        if parquet_frame[col].dtype == object:
            parquet_frame[col] = parquet_frame[col].astype(str)
    parquet_frame.to_parquet(out / f"{stem}.parquet", index=False)
    written.append(out / f"{stem}.parquet")
    return written


def _importance_frame(run: StreamRun) -> pd.DataFrame:
    records = []
    for method, trace in run.explainers.traces.items():
        for row, vals, var, bnd in zip(trace.rows, trace.values, trace.variances, trace.bounds):
            for j, name in enumerate(run.feature_names):
                records.append(
                    {
                        "method": method,
                        "row": int(row),
                        "feature": name,
                        "importance": float(vals[j]),
                        "variance": float(var[j]),
                        "bound": float(bnd[j]),
                    }
                )
    cols = ["method", "row", "feature", "importance", "variance", "bound"]
    return pd.DataFrame.from_records(records, columns=cols)


def _pd_frame(run: StreamRun) -> pd.DataFrame:
    records = []
    for feature, snaps in run.explainers.pd_snapshots.items():
        for row, grid, values in snaps:
            for g, v in zip(grid.tolist(), values.tolist()):
                records.append({"feature": feature, "row": int(row), "grid_value": g, "pd": v})
    return pd.DataFrame.from_records(records, columns=["feature", "row", "grid_value", "pd"])


def _final_importances(run: StreamRun) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    final = {}
    for method, trace in run.explainers.traces.items():
        if trace.rows:
            final[method] = (trace.values[-1], trace.bounds[-1])
    return final


def write_stream_outputs(run: StreamRun, out: Path) -> dict[str, Any]:
    """Write every output of a stream run into ``out``; return the summary (also in JSON)."""
    out.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    imp = _importance_frame(run)
    pdf = _pd_frame(run)
    rolling = run.rolling_metric
    metric = pd.DataFrame(
        {
            "row": np.arange(1, run.rows_seen + 1),
            run.metric_name: run.per_row_metric[: run.rows_seen],
            f"rolling_{run.metric_name}": rolling,
        }
    )
    if run.explainers.traces:
        files += write_frame(out, "importances", imp)
        files.append(
            write_json(
                out / "importances.json",
                {
                    "feature_names": run.feature_names,
                    "delta": 0.05,
                    "methods": {
                        m: {
                            "rows": t.rows,
                            "importances": t.values,
                            "variances": t.variances,
                            "confidence_bound": t.bounds,
                        }
                        for m, t in run.explainers.traces.items()
                    },
                },
            )
        )
    if run.explainers.pd_snapshots:
        files += write_frame(out, "pd", pdf)
        files.append(
            write_json(
                out / "pd.json",
                {
                    f: [{"row": r, "grid_values": g, "average": v} for r, g, v in snaps]
                    for f, snaps in run.explainers.pd_snapshots.items()
                },
            )
        )
    files += write_frame(out, "metric", metric)

    images: list[tuple[str, Path]] = []
    loss_labels = {m: _plots.importance_label(m, loss) for m, loss in run.losses.items()}
    if run.explainers.traces:
        images.append(
            (
                "Importances over the stream (top features), with 95% confidence bands; "
                "dashed red: known change points; dotted grey: changes detected by ADWIN on "
                "the model's prequential error.",
                _plots.plot_importance_traces(
                    out / "importance_traces.png",
                    run.explainers.traces,
                    run.feature_names,
                    known_drift=[r for r in run.known_drift if r <= run.rows_seen],
                    detected_drift=run.detected_drift,
                    losses=run.losses,
                ),
            )
        )
        images.append(
            (
                "Final importances with their 95% bounds.",
                _plots.plot_importance_bars(
                    out / "importance_final.png",
                    _final_importances(run),
                    run.feature_names,
                    xlabel=loss_labels,
                ),
            )
        )
    if run.explainers.pd_snapshots:
        ylabel = "prediction" if run.task == "regression" else "P(positive class)"
        images.append(
            (
                "Partial dependence snapshots over the stream (newest darkest).",
                _plots.plot_pd_over_time(
                    out / "pd_over_time.png", run.explainers.pd_snapshots, ylabel
                ),
            )
        )
    images.append(
        (
            f"Prequential {run.metric_name} of the model (predict, then learn).",
            _plots.plot_metric(
                out / "metric.png",
                rolling,
                run.metric_name,
                run.rolling_window,
                known_drift=[r for r in run.known_drift if r <= run.rows_seen],
                detected_drift=run.detected_drift,
            ),
        )
    )
    files += [p for _, p in images]

    final = _final_importances(run)
    settings = _settings(run)
    summary = {
        "command": "stream",
        "settings": dict(settings),
        "interrupted": run.interrupted,
        "final_importances": {
            m: dict(zip(run.feature_names, v.tolist())) for m, (v, _) in final.items()
        },
        "final_bounds": {
            m: dict(zip(run.feature_names, b.tolist())) for m, (_, b) in final.items()
        },
        f"final_rolling_{run.metric_name}": float(rolling[-1]) if len(rolling) else None,
        "known_drift": run.known_drift,
        "detected_drift": run.detected_drift,
    }
    files.append(out / "summary.json")
    files.append(out / "report.html")
    summary["files"] = [p.name for p in files]
    write_json(out / "summary.json", summary)

    notes = []
    if run.interrupted:
        notes.append(
            f"Interrupted (Ctrl-C) after {run.rows_seen} of {run.n_rows_total} rows: the values "
            "below are the partial results."
        )
    if run.skipped_methods:
        notes.append(
            "Not available in this build of ixplain, skipped: " + ", ".join(run.skipped_methods)
        )
    tables = []
    if final:
        methods = list(final)
        order = np.argsort(-np.nan_to_num(final[methods[0]][0], nan=-np.inf))
        rows = [
            [run.feature_names[j]] + [x for m in methods for x in (final[m][0][j], final[m][1][j])]
            for j in order
        ]
        columns = ["feature"] + [c for m in methods for c in (m, f"{m} ± bound")]
        tables.append(("Final importances", columns, rows))
    if run.frame_sample is not None:
        sample = run.frame_sample
        tables.append(
            (
                "First rows of the stream",
                list(sample.columns),
                [list(r) for r in sample.itertuples(index=False)],
            )
        )
    report = Report(
        title=f"ixplain stream: {run.source}",
        settings=settings,
        tables=tables,
        images=images,
        notes=notes,
        files=[p.name for p in files],
    )
    (out / "report.html").write_text(render_report(report), encoding="utf-8")
    return summary


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
        ("time", f"{run.seconds:.1f} s ({run.rows_seen / max(run.seconds, 1e-9):.0f} rows/s)"),
        (
            f"final rolling {run.metric_name}",
            float(run.rolling_metric[-1]) if run.rows_seen else "-",
        ),
        ("seed", run.config.seed),
        ("known change points (rows)", ", ".join(map(str, run.known_drift)) or "none documented"),
        ("changes detected (ADWIN)", len(run.detected_drift)),
    ]
