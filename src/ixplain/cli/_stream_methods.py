"""The methods of ``ixplain stream``: one registry entry each, and the functions it names.

``STREAM_METHODS`` maps an ``--explain`` name to a :class:`StreamMethod`: the public class it
needs, how to build its explainer(s) into :class:`StreamExplainers`, how to record a snapshot of
them, which files it writes, which plots and tables it adds to the report. Methods sharing a
function (iPFI and iSAGE share the importance traces, files and plots) run it once, in registry
order, so adding a method is one entry plus its functions.

The CLI uses only the explainers' documented interface: the constructor arguments,
``explain_many(xs, ys)``, ``importances_``, ``variances_``, ``confidence_bound(delta)`` and
``pd_``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _drift, _plots, _stream_interactions
from ._methods import DELTA, importance_vector, pd_curve
from ._stream_run import (
    STREAM_METHODS,
    ExplainerOptions,
    Image,
    StreamExplainers,
    StreamMethod,
    StreamRun,
    _Trace,
)
from ._writers import Table, importance_table, write_frame, write_json

__all__ = ["STREAM_METHODS", "ExplainerOptions", "StreamExplainers", "StreamMethod", "integer_pd_options"]

# --- importances: iPFI and iSAGE ----------------------------------------------------------


def _build_importance(
    ex: StreamExplainers, method: str, klass: Any, model: Any, options: ExplainerOptions
) -> None:
    loss = options.loss
    kwargs: dict[str, Any] = {
        "loss": loss[method] if isinstance(loss, dict) else loss,
        "feature_names": list(options.feature_names),
        "alpha": options.alpha,
        "random_state": options.seed,
        "nan_policy": options.nan_policy,
        "history_every": options.every,
    }
    if method == "sage" and options.sage_samples is not None:
        kwargs["n_samples"] = options.sage_samples
    both = [("", "marginal"), (" (conditional)", "conditional")]
    for suffix, removal in both if options.removal == "both" else [
            b for b in both if b[1] == options.removal]:
        extra = {"removal": removal} if removal == "conditional" else {}
        key = method + suffix
        ex.importance[key] = ex.explainers[key] = klass(model, **kwargs, **extra)
        ex.traces[key] = _Trace()


def _snapshot_importance(ex: StreamExplainers, key: str, explainer: Any, row: int) -> None:
    """Importances, variances and 95% bounds (NaN before an explainer has a bound)."""
    names = ex.feature_names
    trace = ex.traces[key]
    values = importance_vector(getattr(explainer, "importances_", None), names)
    variances = importance_vector(getattr(explainer, "variances_", None), names)
    try:
        bound = importance_vector(explainer.confidence_bound(DELTA), names)
    except Exception:  # an explainer without a bound yet: no band
        bound = np.full(len(names), np.nan)
    trace.rows.append(row)
    trace.values.append(values)
    trace.variances.append(variances)
    trace.bounds.append(bound)


def final_importances(ex: StreamExplainers) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """method -> (last importances, last bounds), for the methods with a snapshot."""
    return {m: (t.values[-1], t.bounds[-1]) for m, t in ex.traces.items() if t.rows}


def _importance_frame(run: StreamRun) -> pd.DataFrame:
    records = [
        {
            "method": method,
            "row": int(row),
            "feature": name,
            "importance": float(vals[j]),
            "variance": float(var[j]),
            "bound": float(bnd[j]),
        }
        for method, trace in run.explainers.traces.items()
        for row, vals, var, bnd in zip(trace.rows, trace.values, trace.variances, trace.bounds)
        for j, name in enumerate(run.feature_names)
    ]
    cols = ["method", "row", "feature", "importance", "variance", "bound"]
    return pd.DataFrame.from_records(records, columns=cols)


def _write_importances(run: StreamRun, out: Path) -> list[Path]:
    traces = run.explainers.traces
    if not traces:
        return []
    payload = {
        "feature_names": run.feature_names,
        "delta": DELTA,
        "methods": {
            m: {
                "rows": t.rows,
                "importances": t.values,
                "variances": t.variances,
                "confidence_bound": t.bounds,
            }
            for m, t in traces.items()
        },
    }
    files = write_frame(out, "importances", _importance_frame(run))
    return [*files, write_json(out / "importances.json", payload)]


def _plot_importances(run: StreamRun, out: Path) -> list[Image]:
    if not run.explainers.traces:
        return []
    traces = _plots.plot_importance_traces(
        out / "importance_traces.png",
        run.explainers.traces,
        run.feature_names,
        known_drift=run.known_drift_seen,
        detected_drift=run.detected_drift,
        losses=run.losses,
        incidents=_incidents_by_method(run),
    )
    labels = {m: _plots.importance_label(m, loss) for m, loss in run.losses.items()}
    bars = _plots.plot_importance_bars(
        out / "importance_final.png",
        final_importances(run.explainers),
        run.feature_names,
        xlabel=labels,
    )
    return [
        (
            "Importances over the stream (the strongest features and those a drift incident "
            f"moved), with the 95% confidence bands of the {_plots._MAX_BANDS} strongest "
            "(lighter where a band is wider than half the panel); red: drift incidents, shaded "
            "from the change's start to its detection, numbered as in the incidents table "
            "(dots: its top feature before the start and where the change is largest); light "
            "blue lines: model updates; dashed dark grey: known change points; dotted grey: "
            "changes detected by ADWIN on the model's prequential error.",
            traces,
        ),
        ("Final importances with their 95% bounds.", bars),
    ]


def _incidents_by_method(run: StreamRun) -> dict[str, list[dict[str, Any]]]:
    """The run's incidents and model updates (:attr:`StreamRun.incidents`), by watched method."""
    by_method: dict[str, list[dict[str, Any]]] = {}
    for inc in run.incidents:
        by_method.setdefault(inc["method"], []).append(inc)
    return by_method


def _importance_tables(run: StreamRun) -> list[Table]:
    from ._static_methods import BOTH_NOTE

    final = final_importances(run.explainers)
    caption = "Final importances"
    if any(m.endswith(" (conditional)") and m[: -len(" (conditional)")] in final for m in final):
        caption += " -- how to read the two removals: " + BOTH_NOTE
    return importance_table(caption, final, run.feature_names, "± bound")


# --- partial dependence: iPDP --------------------------------------------------------------


def _build_pdp(
    ex: StreamExplainers, method: str, klass: Any, model: Any, options: ExplainerOptions
) -> None:
    """One iPDP per feature. The range comes from a uniform reservoir of the whole stream so
    far (``range_source="storage"``), so the curves of successive snapshots share one axis
    (a window of recent rows follows the seasons, and the curves look like disjoint pieces)."""
    from ..storage import UniformReservoir

    for feature in options.pd_features:
        kwargs: dict[str, Any] = {"grid_resolution": options.grid_resolution}
        kwargs.update(options.pd_options.get(feature, {}))
        ex.pdp[feature] = ex.explainers[f"pdp:{feature}"] = klass(
            model,
            feature,
            alpha=options.alpha,
            random_state=options.seed,
            nan_policy=options.nan_policy,
            range_source="storage",
            storage=UniformReservoir(2000),
            history_every=options.every,
            **kwargs,
        )
        ex.pd_snapshots[feature] = []


def integer_pd_options(column: pd.Series, limit: int = 50) -> dict[str, Any]:
    """IncrementalPDP arguments that put an integer feature with at most ``limit`` levels
    (an hour, a weekday, a count) on every level between its minimum and maximum."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    values = values[np.isfinite(values)]
    if len(values) == 0 or not np.all(values == np.round(values)):
        return {}
    n_levels = int(values.max() - values.min()) + 1
    if n_levels > limit:
        return {}
    return {"grid_resolution": max(n_levels, 2), "percentiles": (0.0, 1.0)}


def _snapshot_pdp(ex: StreamExplainers, key: str, explainer: Any, row: int) -> None:
    feature = key.removeprefix("pdp:")
    curve = pd_curve(getattr(explainer, "pd_", None), feature)
    if curve is not None:
        ex.pd_snapshots[feature].append((row, curve[0], curve[1]))


def _write_pdp(run: StreamRun, out: Path) -> list[Path]:
    snapshots = run.explainers.pd_snapshots
    if not snapshots:
        return []
    records = [
        {"feature": feature, "row": int(row), "grid_value": g, "pd": v}
        for feature, snaps in snapshots.items()
        for row, grid, values in snaps
        for g, v in zip(grid.tolist(), values.tolist())
    ]
    frame = pd.DataFrame.from_records(records, columns=["feature", "row", "grid_value", "pd"])
    payload = {
        f: [{"row": r, "grid_values": g, "average": v} for r, g, v in snaps]
        for f, snaps in snapshots.items()
    }
    return [*write_frame(out, "pd", frame), write_json(out / "pd.json", payload)]


def _plot_pdp(run: StreamRun, out: Path) -> list[Image]:
    if not run.explainers.pd_snapshots:
        return []
    ylabel = "prediction" if run.task == "regression" else "P(positive class)"
    path = _plots.plot_pd_over_time(out / "pd_over_time.png", run.explainers.pd_snapshots, ylabel)
    return [("Partial dependence snapshots over the stream (newest darkest).", path)]


# --- accumulated local effects: iALE ------------------------------------------------------


def _build_ale(
    ex: StreamExplainers, method: str, klass: Any, model: Any, options: ExplainerOptions
) -> None:
    numeric = options.numeric_features
    skipped = [f for f in options.pd_features if numeric is not None and f not in numeric]
    if skipped:  # iPDP draws them; iALE bins numbers only (one categorical must not end the run)
        import warnings

        warnings.warn(f"ale: iALE explains numeric features only; skipped {skipped}.",
                      UserWarning, stacklevel=2)
    for feature in (f for f in options.pd_features if f not in skipped):
        ex.explainers[f"ale:{feature}"] = klass(
            model, feature, grid_resolution=options.grid_resolution, alpha=options.alpha,
            random_state=options.seed, history_every=options.every,
        )
    ex.snapshots["ale"] = []


def _ale_snapshots(run: StreamRun) -> dict[str, list[tuple[int, Any, Any, Any]]]:
    """``{feature: [(row, edges, ale, std), ...]}`` from the recorded snapshots."""
    out: dict[str, list[tuple[int, Any, Any, Any]]] = {}
    for feature, row, edges, values, std in run.explainers.snapshots.get("ale", []):
        out.setdefault(feature, []).append((row, edges, values, std))
    return out


def _snapshot_ale(ex: StreamExplainers, key: str, explainer: Any, row: int) -> None:
    if explainer.n_explained_ == 0:  # still warming up
        return
    res = explainer.ale_
    ex.snapshots["ale"].append(
        (key[4:], row, np.asarray(res.grid_values[0]), res.average[0], res.std[0])
    )


def _warn_no_ale(run: StreamRun) -> None:
    """Say why ``--explain ale`` wrote nothing (a short stream ends within the warm-up)."""
    quiet = {k: e for k, e in run.explainers.explainers.items() if k.startswith("ale:")}
    if not quiet:
        return
    import warnings

    first = next(iter(quiet.values()))
    warnings.warn(
        f"ale: no ALE curve written: IncrementalALE explained no rows of "
        f"{sorted(k[4:] for k in quiet)} (it stores its first regrid_every="
        f"{first.regrid_every} rows as a warm-up before the first bins, and a constant feature "
        f"extends it; this run saw {first.n_seen_} rows). Use a longer stream (--n-rows).",
        UserWarning, stacklevel=2,
    )


def _write_ale(run: StreamRun, out: Path) -> list[Path]:
    snapshots = _ale_snapshots(run)
    if not snapshots:
        _warn_no_ale(run)
        return []
    records = [
        {"feature": feature, "row": int(row), "edge": g, "ale": v, "std": s}
        for feature, snaps in snapshots.items()
        for row, grid, values, std in snaps
        for g, v, s in zip(grid.tolist(), values.tolist(), std.tolist())
    ]
    frame = pd.DataFrame.from_records(records, columns=["feature", "row", "edge", "ale", "std"])
    payload = {
        f: [{"row": r, "edges": g, "ale": v, "std": s} for r, g, v, s in snaps]
        for f, snaps in snapshots.items()
    }
    return [*write_frame(out, "ale", frame), write_json(out / "ale.json", payload)]


def _plot_ale(run: StreamRun, out: Path) -> list[Image]:
    snaps = {f: [(r, g, v) for r, g, v, _ in s] for f, s in _ale_snapshots(run).items()}
    if not snaps:
        return []
    ylabel = "ALE of the prediction" if run.task == "regression" else "ALE of P(positive class)"
    path = _plots.plot_pd_over_time(out / "ale_over_time.png", snaps, ylabel,
                                    title="iALE of {feature} over the stream (newest darkest)")
    caption = ("Accumulated local effects over the stream (newest darkest; centred curves on "
               "the current bin edges).")
    return [(caption, path)]


# ``--explain`` name -> how ``ixplain stream`` runs it (registry order is the run order; a run
# without ``--explain`` runs the available entries with ``default=True``).
STREAM_METHODS.update({
    "pfi": StreamMethod(
        "IncrementalPFI",
        _build_importance,
        _snapshot_importance,
        _write_importances,
        _plot_importances,
        _importance_tables,
    ),
    "sage": StreamMethod(
        "IncrementalSAGE",
        _build_importance,
        _snapshot_importance,
        _write_importances,
        _plot_importances,
        _importance_tables,
    ),
    "pdp": StreamMethod("IncrementalPDP", _build_pdp, _snapshot_pdp, _write_pdp, _plot_pdp),
    "ale": StreamMethod("IncrementalALE", _build_ale, _snapshot_ale, _write_ale, _plot_ale),
    # after the importance explainers it watches
    "drift": StreamMethod("ExplanationDriftDetector", _drift.build_drift, _drift.snapshot_drift,
                          _drift.write_drift, _drift.plot_drift, _drift.drift_tables),
    # opt-in (--explain interactions): 2^d coalitions per row up to 6 features
    "interactions": StreamMethod(
        "IncrementalShapleyInteractions",
        _stream_interactions.build_interactions,
        _stream_interactions.snapshot_interactions,
        _stream_interactions.write_interactions,
        _stream_interactions.plot_interactions,
        _stream_interactions.interaction_tables,
        default=False,
    ),
})
