"""The methods of ``ixplain explain``: one registry entry each, and the functions it names.

``STATIC_METHODS`` maps a ``--methods`` name to a :class:`StaticMethod`: the public function it
needs, how to compute it (the result is stored on the :class:`StaticRun`), which files it writes,
which plots it adds to the report and which tables. Methods that share a function (PFI and SAGE
write one importance table; PD and ICE are one computation) run it once, in registry order, so
adding a method (``ale``, ``interactions``) is one entry plus its functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _plots
from ._errors import CLIError
from ._hstat import compute_hstat, hstat_tables, plot_hstat, write_hstat
from ._interactions import (
    compute_interactions,
    interaction_tables,
    plot_interactions,
    write_interactions,
)
from ._methods import _public
from ._static_run import Image, StaticRun
from ._writers import Table, importance_table, write_frame, write_json

__all__ = [
    "STATIC_METHODS", "StaticMethod", "StaticRun", "importance_arrays", "loss_text", "pfi_loss"
]


def _nothing(run: StaticRun) -> list[Any]:
    return []


@dataclass(frozen=True)
class StaticMethod:
    """How ``ixplain explain`` runs one method and shows its result.

    Attributes
    ----------
    needs : str
        Public ixplain function the method needs (a build without it reports it unavailable).
    compute : callable (StaticRun) -> None
        Runs the explainer and stores its result on the run.
    write : callable (StaticRun) -> list of Path
        Writes the CSV/Parquet/JSON files of the result; returns their paths.
    plot : callable (StaticRun) -> list of (caption, Path)
        Draws the PNGs shown in the report.
    tables : callable (StaticRun) -> list of (caption, columns, rows)
        Tables of the report (before the data sample).
    default : bool, default=True
        Whether a run without ``--methods`` includes it (slow methods are opt-in).
    """

    needs: str
    compute: Callable[[StaticRun], None]
    write: Callable[[StaticRun], list[Path]]
    plot: Callable[[StaticRun], list[Image]]
    tables: Callable[[StaticRun], list[Table]] = _nothing
    default: bool = True


def importance_arrays(result: Any, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(values, standard deviations or errors) in ``names`` order from an importance result."""

    def get(*keys: str) -> Any:
        for k in keys:
            v = getattr(result, k, None)
            if v is None and isinstance(result, dict):
                v = result.get(k)
            if v is not None:
                return v
        return None

    values = get("importances_mean", "values", "importances_")
    errors = get("importances_std", "std", "stderr", "standard_errors")
    result_names = get("feature_names", "feature_names_")
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    errors = (
        np.full_like(values, np.nan) if errors is None else np.asarray(errors, float).reshape(-1)
    )
    if result_names is not None and len(result_names) == len(values):
        pos = {str(n): i for i, n in enumerate(result_names)}
        if all(n in pos for n in names):
            idx = [pos[n] for n in names]
            return values[idx], errors[idx]
    return values, errors


# --- importances: PFI and SAGE ------------------------------------------------------------


#: How to read ``--removal both`` (shown under the importance table).
BOTH_NOTE = (
    "marginal: the model's structure (what it computes from each feature); conditional: "
    "data-aware (what a feature adds beyond the features it is kept with); a feature "
    "important marginally but not conditionally shares its information with others."
)


def _removals(run: StaticRun) -> list[tuple[str, str]]:
    """(result key suffix, removal) for ``--removal``: marginal, conditional or both."""
    chosen = getattr(run.cfg, "removal", "marginal")
    both = [("", "marginal"), (" (conditional)", "conditional")]
    return both if chosen == "both" else [b for b in both if b[1] == chosen]


def pfi_loss(run: StaticRun) -> str | None:
    """The loss PFI uses: ``--loss``; else, when a removal is conditional (which needs a
    loss), the loss of the model's default score (``zero_one`` for a classifier,
    ``squared_error`` otherwise) for every removal, so marginal and conditional PFI share
    units; else None (the drop of the model's score)."""
    if run.cfg.loss is None and any(r == "conditional" for _, r in _removals(run)):
        return "zero_one" if run.is_classifier else "squared_error"
    return run.cfg.loss  # type: ignore[no-any-return]


def loss_text(run: StaticRun) -> str:
    """The ``loss`` setting of the report: what PFI and the loss-game methods used."""
    parts = []
    if "pfi" in run.methods:
        loss = pfi_loss(run)
        both = len(_removals(run)) > 1
        why = ("" if loss is None or run.cfg.loss
               else f"{', both removals' if both else ''}: conditional needs a loss")
        parts.append(f"{loss or 'model score'} (PFI{why})")
    games = [m for m in ("sage", "interactions") if m in run.methods]
    if games:
        parts.append(f"{_sage_loss(run)} ({', '.join(m.upper() if m == 'sage' else m for m in games)})")
    return "; ".join(parts) or "-"


def _compute_pfi(run: StaticRun) -> None:
    loss = pfi_loss(run)
    for suffix, removal in _removals(run):
        kwargs: dict[str, Any] = {"n_repeats": run.cfg.n_repeats, "random_state": run.cfg.seed}
        if loss is not None:
            kwargs["loss"] = loss
        if removal == "conditional":
            kwargs["removal"] = removal
        with run.timed("pfi" + suffix):
            result = _public("permutation_importance")(run.model, run.X, run.y,
                                                       progress=run.reporter, **kwargs)
            run.importances["pfi" + suffix] = importance_arrays(result, run.names)


def _sage_loss(run: StaticRun) -> str:
    return run.cfg.loss or ("log_loss" if run.is_classifier else "squared_error")


def _compute_sage(run: StaticRun) -> None:
    loss = _sage_loss(run)
    for suffix, removal in _removals(run):
        extra = {"removal": removal} if removal == "conditional" else {}
        with run.timed("sage" + suffix):
            result = _public("sage")(run.model, run.X, run.y, loss=loss,
                                     random_state=run.cfg.seed, progress=run.reporter, **extra)
            run.importances["sage" + suffix] = importance_arrays(result, run.names)


def _write_importances(run: StaticRun) -> list[Path]:
    if not run.importances:
        return []
    names = run.names
    records = [
        {"method": m, "feature": n, "importance": float(v[j]), "std": float(e[j])}
        for m, (v, e) in run.importances.items()
        for j, n in enumerate(names)
    ]
    files = write_frame(run.out, "importances", pd.DataFrame.from_records(records))
    payload = {
        m: {"feature_names": names, "importances": v, "std": e}
        for m, (v, e) in run.importances.items()
    }
    return [*files, write_json(run.out / "importances.json", payload)]


def _plot_importances(run: StaticRun) -> list[Image]:
    if not run.importances:
        return []
    loss = pfi_loss(run)
    pfi_label = (_plots.importance_label("pfi", loss) if loss
                 else "decrease of the model's score")  # permutation_importance's default
    path = _plots.plot_importance_bars(
        run.out / "importance_final.png",
        run.importances,
        run.names,
        xlabel={"pfi": pfi_label, "sage": _plots.importance_label("sage", _sage_loss(run))},
        title="{method} (error bar: std / standard error)",
        titles=_plots.STATIC_TITLES,
    )
    caption = (
        "Importances (error bar: standard deviation over repeats for PFI, standard "
        "error for SAGE)."
    )
    return [(caption, path)]


def _importance_tables(run: StaticRun) -> list[Table]:
    caption = "Importances"
    if getattr(run.cfg, "removal", "marginal") == "both":
        caption += " -- how to read the two removals: " + BOTH_NOTE
    return importance_table(caption, run.importances, run.names, "std")


# --- curves: PD and ICE --------------------------------------------------------------------


def check_pd_features(pd_features: Sequence[str] | None, names: Sequence[str]) -> None:
    """Raise :class:`CLIError` for a ``--pd-features`` name that is not a feature."""
    for f in pd_features or ():
        if f not in names:
            raise CLIError(f"--pd-features: {f!r} is not a feature; features: {', '.join(names)}.")


def _pd_features(run: StaticRun) -> list[str]:
    """``--pd-features``, else the 3 most important by the first importance, else the first 3."""
    if run.cfg.pd_features:
        return list(run.cfg.pd_features)
    if run.importances:
        values = next(iter(run.importances.values()))[0]
        order = np.argsort(-np.nan_to_num(values, nan=-np.inf))
        return [run.names[j] for j in order[:3]]
    return run.names[:3]


def _with_ice(run: StaticRun) -> bool:
    return "ice" in run.methods


def _ice_rows(run: StaticRun) -> np.ndarray:
    """Sorted indices of the rows whose ICE curves are kept: ``--ice-rows`` of them drawn
    with ``--seed`` (all rows for 0 or more than the table has)."""
    from .._random import keyed_generator

    n, k = int(run.X.shape[0]), int(run.cfg.ice_rows)
    if k == 0 or k >= n:
        return np.arange(n)
    return np.sort(keyed_generator(run.cfg.seed, "cli-ice").choice(n, size=k, replace=False))


def _compute_curves(run: StaticRun) -> None:
    """PD on every row; ICE (``--methods ice``) on the ``--ice-rows`` subset, on the PD's grid."""
    run.pd_features = _pd_features(run)
    pdf = _public("partial_dependence")
    with run.timed("pd"):
        if _with_ice(run):
            run.ice_index = _ice_rows(run)
        for f in run.pd_features:
            res = pdf(run.model, run.X, [f], kind="average", progress=run.reporter,
                      grid_resolution=run.cfg.grid_resolution)  # fmt: skip
            grid = np.asarray(res["grid_values"][0])
            ice = None
            if run.ice_index is not None:
                rows = run.X.iloc[run.ice_index]
                ind = pdf(run.model, rows, [f], kind="individual", custom_values={f: grid},
                          progress=run.reporter)
                ice = np.asarray(ind["individual"])[0]
            run.curves[f] = (grid, np.asarray(res["average"])[0], ice)


def _write_curves(run: StaticRun) -> list[Path]:
    if not run.curves:
        return []
    rows = [
        {"feature": f, "grid_value": g, "pd": v}
        for f, (grid, avg, _) in run.curves.items()
        for g, v in zip(grid.tolist(), avg.tolist())
    ]
    files = write_frame(run.out, "pd", pd.DataFrame.from_records(rows))
    payload = {f: {"grid_values": g, "average": a} for f, (g, a, _) in run.curves.items()}
    files.append(write_json(run.out / "pd.json", payload))
    if _with_ice(run):
        index = run.ice_index if run.ice_index is not None else np.arange(0)
        ice_rows = [
            {"feature": f, "row": int(i), "grid_value": g, "ice": float(v)}
            for f, (grid, _, ice_f) in run.curves.items()
            if ice_f is not None
            for i, curve in zip(index.tolist(), ice_f)
            for g, v in zip(grid.tolist(), curve.tolist())
        ]
        files += write_frame(run.out, "ice", pd.DataFrame.from_records(ice_rows))
    return files


def _prediction_label(run: StaticRun) -> str:
    """y-axis label of the curves: binary: classes_[1]; multiclass: the first class's output."""
    if not run.is_classifier:
        return "prediction"
    classes = list(getattr(run.model, "classes_", []))
    shown = classes[1] if len(classes) == 2 else (classes[0] if classes else "?")
    return f"P({run.target} = {shown})"


def _plot_curves(run: StaticRun) -> list[Image]:
    if not run.curves:
        return []
    caption = (
        "Partial dependence (red) and ICE curves (grey, up to 50 rows)."
        if _with_ice(run)
        else "Partial dependence."
    )
    path = _plots.plot_pd_curves(run.out / "pd.png", run.curves, _prediction_label(run))
    return [(caption, path)]


# --- accumulated local effects ------------------------------------------------------------


def _compute_ale(run: StaticRun) -> None:
    if not run.pd_features:
        run.pd_features = _pd_features(run)
    ale = _public("accumulated_local_effects")
    with run.timed("ale"):
        for f in run.pd_features:
            run.results.setdefault("ale", {})[f] = ale(run.model, run.X, [f])


def _write_ale(run: StaticRun) -> list[Path]:
    results = run.results.get("ale", {})
    if not results:
        return []
    rows = [
        {"feature": f, "grid_value": g, "ale": v, "std": s}
        for f, res in results.items()
        for g, v, s in zip(np.asarray(res.grid_values[0], dtype=object).tolist(),
                           res.average[0].tolist(), res.std[0].tolist())
    ]
    files = write_frame(run.out, "ale", pd.DataFrame.from_records(rows))
    return [*files, write_json(run.out / "ale.json", {f: r.to_dict() for f, r in results.items()})]


def _plot_ale(run: StaticRun) -> list[Image]:
    results = run.results.get("ale", {})
    if not results:
        return []
    from ..plot.ale import AccumulatedLocalEffectsDisplay

    display = AccumulatedLocalEffectsDisplay.from_result(list(results.values()))
    path = run.out / "ale.png"
    display.figure_.savefig(path, dpi=90)
    caption = ("Accumulated local effects (centred; band: 95 % from the accumulated variance "
               "of the bin means; rug: deciles). Unlike PD, ALE only uses rows inside each bin.")
    return [(caption, path)]


#: ``--methods`` name -> how ``ixplain explain`` runs it (registry order is run order; a run
#: without ``--methods`` runs the available entries with ``default=True``).
STATIC_METHODS: dict[str, StaticMethod] = {
    "pfi": StaticMethod(
        "permutation_importance",
        _compute_pfi,
        _write_importances,
        _plot_importances,
        _importance_tables,
    ),
    "sage": StaticMethod(
        "sage", _compute_sage, _write_importances, _plot_importances, _importance_tables
    ),
    "pd": StaticMethod("partial_dependence", _compute_curves, _write_curves, _plot_curves),
    "ice": StaticMethod("partial_dependence", _compute_curves, _write_curves, _plot_curves),
    "ale": StaticMethod("accumulated_local_effects", _compute_ale, _write_ale, _plot_ale),
    # opt-in (--methods hstat,interactions): a model pass per feature and pair, and 2^d
    # coalitions per row; slow on wide tables
    "hstat": StaticMethod("h_statistic", compute_hstat, write_hstat, plot_hstat, hstat_tables,
                          default=False),
    "interactions": StaticMethod("shapley_interactions", compute_interactions,
                                 write_interactions, plot_interactions, interaction_tables,
                                 default=False),
}
