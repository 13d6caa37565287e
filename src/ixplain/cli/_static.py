"""``ixplain explain``: static explanations of a saved scikit-learn model on a table."""

from __future__ import annotations

import base64
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import _plots
from ._data import check_column, check_regression_target, read_table, select_columns
from ._errors import CLIError
from ._methods import available
from ._outputs import write_page
from ._static_methods import (
    STATIC_METHODS,
    StaticRun,
    check_pd_features,
    importance_arrays,
    loss_text,
)
from ._writers import json_safe, sample_table, write_json
from .report import Report

__all__ = ["ExplainConfig", "importance_arrays", "load_model", "model_features", "run_explain"]


@dataclass
class ExplainConfig:
    """Settings of one ``ixplain explain`` run (the CLI options)."""
    data: str
    target: str
    model: str
    features: Sequence[str] | None = None
    methods: Sequence[str] | None = None
    pd_features: Sequence[str] | None = None
    n_repeats: int = 5
    grid_resolution: int = 50
    ice_rows: int = 500
    loss: str | None = None
    trust: Sequence[str] | None = None
    seed: int = 0
    removal: str = "marginal"


def load_model(path: str | Path, trust: Sequence[str] | None = None) -> Any:
    """Load a fitted model from ``.joblib``/``.pkl``/``.pickle`` (executes code!) or ``.skops``.

    Raises
    ------
    CLIError
        Missing or unreadable file, untrusted skops types, skops not installed, or an object
        without ``predict``.
    """
    p = Path(path)
    if not p.exists():
        raise CLIError(f"cannot load model {p}: no such file.")
    if p.is_dir() or p.stat().st_size == 0:
        raise CLIError(
            f"cannot load model {p}: {'a directory' if p.is_dir() else 'the file is empty'}."
        )
    suffix = p.suffix.lower()
    if suffix == ".skops":
        try:
            import skops.io as sio
        except ImportError as exc:
            raise CLIError(
                f"cannot load model {p}: reading .skops files needs skops (pip install skops)."
            ) from exc
        try:
            untrusted = [t for t in sio.get_untrusted_types(file=p) if t not in (trust or ())]
            if untrusted:
                raise CLIError(
                    f"model {p} contains types skops does not trust by default: "
                    f"{', '.join(untrusted)}; if you trust them, pass --trust "
                    f"{','.join(untrusted)}."
                )
            model = sio.load(p, trusted=list(trust or ()) or None)
        except CLIError:
            raise
        except Exception as exc:
            raise CLIError(f"cannot load model {p} as skops: {_first_line(exc)}") from exc
    elif suffix in (".joblib", ".pkl", ".pickle"):
        try:
            import joblib

            model = joblib.load(p)
        except (ImportError, AttributeError) as exc:  # a class from a missing/older package
            raise CLIError(
                f"cannot load model {p}: {_first_line(exc)} (is the library that saved it "
                "installed, in a compatible version?)"
            ) from exc
        except Exception as exc:  # pickle raises KeyError, EOFError, ... on a foreign file
            raise CLIError(
                f"cannot load model {p}: it is not a model file joblib/pickle can load "
                f"({_first_line(exc)})."
            ) from exc
    else:
        raise CLIError(
            f"cannot load model {p}: unknown file type {suffix or '(none)'}; use .joblib, .pkl "
            "or .skops."
        )
    if not hasattr(model, "predict"):
        raise CLIError(f"the object in {p} ({type(model).__name__}) has no predict method.")
    return model


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def _methods(cfg: ExplainConfig) -> list[str]:
    """The methods to run, in registry order: ``--methods``, else the available default ones
    (pfi, sage, pd, ice, ale; hstat and interactions are opt-in)."""
    have = available(STATIC_METHODS)
    if cfg.methods is None:
        return [m for m in STATIC_METHODS if have[m] and STATIC_METHODS[m].default]
    for m in cfg.methods:
        if m not in STATIC_METHODS:
            raise CLIError(f"unknown method {m!r}; choose from: {', '.join(STATIC_METHODS)}.")
        if not have[m]:
            raise CLIError(
                f"method {m!r} is not available in this build of ixplain "
                f"(ixplain.{STATIC_METHODS[m].needs} is missing)."
            )
    order = list(STATIC_METHODS)
    return sorted(dict.fromkeys(cfg.methods), key=order.index)


def _unique(functions: Any) -> list[Any]:
    """Each function once, in first-seen order (methods may share one)."""
    return list(dict.fromkeys(functions))


def run_explain(cfg: ExplainConfig, out: Path) -> dict[str, Any]:
    """Compute the requested static explanations and write CSV/JSON/PNG and ``report.html``.

    Each method's files are written as soon as it finishes; a method that fails (a model
    that cannot take NaN in SAGE, say) is recorded in ``summary["failed"]`` and the report, and
    the other methods still run and are written (the command then exits non-zero).
    """
    run = _prepare(cfg, out)
    entries = [STATIC_METHODS[m] for m in run.methods]
    start = time.perf_counter()
    files: list[Path] = []
    for compute in _unique(e.compute for e in entries):
        group = [m for m in run.methods if STATIC_METHODS[m].compute is compute]
        try:
            compute(run)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # keep what the other methods compute
            run.failed.update({m: _first_line(exc) for m in group})
            _discard(run, group)
            continue
        for write in _unique(STATIC_METHODS[m].write for m in group):
            files += write(run)
    done = [STATIC_METHODS[m] for m in run.methods if m not in run.failed]
    images = [im for plot in _unique(e.plot for e in done) for im in plot(run)]
    tables = [t for table in _unique(e.tables for e in done) for t in table(run)]
    settings = _settings(run, time.perf_counter() - start)
    files += [p for _, p in images]
    files += [out / "summary.json", out / "report.html"]
    files = list(dict.fromkeys(files))  # pfi and sage both (re)write the importance table
    summary = _summary(run, settings, files)
    write_json(out / "summary.json", summary)
    report = Report(
        title=f"ixplain explain: {Path(cfg.model).name} on {Path(cfg.data).name}",
        notes=[f"{m} failed: {why}" for m, why in run.failed.items()],
        settings=settings,
        tables=[*tables, sample_table("First rows of the data", run.frame.head(5))],
        images=images,
        files=[p.name for p in files],
    )
    write_page(out / "report.html", explain_payload(run, report), report)
    return summary


def _discard(run: StaticRun, group: Sequence[str]) -> None:
    """Drop what a failed group of methods left half-done on the run (all-or-nothing: no
    plot, table or summary entry shows part of a method that failed)."""
    for m in group:
        for key in [k for k in run.importances if k == m or k.startswith(f"{m} (")]:
            del run.importances[key]
        run.results.pop(m, None)
    if {"pd", "ice"} & set(group):
        run.curves.clear()
        run.ice_index = None


def _prepare(cfg: ExplainConfig, out: Path) -> StaticRun:
    """Read the table and the model, check the options; the run before any method."""
    frame = read_table(cfg.data)
    check_column(frame, cfg.target, "target", cfg.data)  # before loading the model
    model = load_model(cfg.model, cfg.trust)
    check_regression_target(frame, cfg.target, model, cfg.data)
    features = model_features(model, list(frame.columns), cfg.target, cfg.features, cfg.data)
    frame, target = select_columns(frame, cfg.target, features, cfg.data)
    run = StaticRun(cfg, out, frame, target, model, _methods(cfg))
    check_pd_features(cfg.pd_features, run.names)
    if cfg.pd_features and not {"pd", "ice", "ale"} & set(run.methods):
        warnings.warn(
            "--pd-features is ignored: it picks the features of pd, ice and ale, and --methods "
            f"has none of them ({', '.join(run.methods)}).",
            UserWarning,
            stacklevel=2,
        )
    out.mkdir(parents=True, exist_ok=True)
    return run


def model_features(
    model: Any,
    columns: Sequence[str],
    target: str,
    features: Sequence[str] | None,
    source: str,
) -> list[str] | None:
    """The model's input columns, in the order it was fitted on.

    A model fitted on a DataFrame (``feature_names_in_``) gets its fitted columns in fitted
    order: by default (``features=None``) the table's other columns are left out, with a
    warning; ``features`` given in another order are reordered. A model fitted on an array
    (``n_features_in_`` only) gets ``features`` (default: every column but the target, in the
    table's order, with a warning that says so: nothing can check that order) as given, which
    must be as many as it takes.

    Parameters
    ----------
    model : fitted estimator
        The loaded model.
    columns : sequence of str
        The table's columns (target included).
    target : str
        The target column.
    features : sequence of str or None
        ``--features`` (None: not given).
    source : str
        The table's path, for the messages.

    Returns
    -------
    list of str or None
        The features to pass to :func:`select_columns` (None: every column but the target).

    Raises
    ------
    CLIError
        The table lacks a fitted column, ``features`` names a column the model was not fitted
        on or leaves a fitted one out, or the number of columns differs from
        ``n_features_in_``.
    """
    fitted = [str(c) for c in getattr(model, "feature_names_in_", [])]
    if not fitted:
        return _check_count(model, columns, target, features)
    missing = [c for c in fitted if c not in columns]
    if missing:
        raise CLIError(
            f"the model was fitted on the column(s) {missing}, which {source} does not have "
            f"(its columns: {[c for c in columns if c != target]})."
        )
    if features is None:
        extra = [c for c in columns if c != target and c not in fitted]
        if extra:
            shown = f"{extra[:10]}" + (f" and {len(extra) - 10} more" if len(extra) > 10 else "")
            warnings.warn(
                f"the model was fitted on {len(fitted)} column(s); the other column(s) of "
                f"{source}, {shown}, are not used.",
                UserWarning,
                stacklevel=2,
            )
        return fitted
    unknown = [f for f in features if f not in fitted]
    left_out = [c for c in fitted if c not in features]
    if unknown or left_out:
        what = [f"names {unknown}, which the model was not fitted on"] if unknown else []
        what += [f"leaves out {left_out}"] if left_out else []
        raise CLIError(
            f"--features {' and '.join(what)}: the model takes the column(s) {fitted}, in this "
            "order (leave --features out to use them)."
        )
    return fitted


def _check_count(
    model: Any, columns: Sequence[str], target: str, features: Sequence[str] | None
) -> list[str] | None:
    """``features`` unchanged, once their number matches the model's ``n_features_in_``."""
    n_in = getattr(model, "n_features_in_", None)
    names = list(dict.fromkeys(features)) if features else [c for c in columns if c != target]
    if isinstance(n_in, int) and n_in != len(names):
        raise CLIError(
            f"the model takes {n_in} feature(s) but {len(names)} column(s) were selected "
            f"({names}); pass the model's input columns, in its order, with --features."
        )
    if not features and isinstance(n_in, int):
        warnings.warn(
            f"the model was fitted without column names, so it gets the columns in the "
            f"table's order: {names[:10]}{' ...' if len(names) > 10 else ''}; if it was "
            "fitted on another order, pass its columns in that order with --features.",
            UserWarning,
            stacklevel=2,
        )
    return list(features) if features else None


def _settings(run: StaticRun, seconds: float) -> list[tuple[str, Any]]:
    cfg = run.cfg
    return [
        ("data", cfg.data),
        ("target", run.target),
        ("model", f"{Path(cfg.model).name}: {type(run.model).__name__}"),
        ("methods", ", ".join(run.methods)),
        ("rows", int(run.X.shape[0])),
        ("features", len(run.names)),
        ("PFI repeats", cfg.n_repeats if "pfi" in run.methods else "-"),
        ("loss", loss_text(run)),
        ("PD features", ", ".join(run.pd_features) if run.curves else "-"),
        ("ICE rows", run.ice_text),
        ("time", f"{seconds:.1f} s"),
        ("seed", cfg.seed),
    ]


def _summary(run: StaticRun, settings: list[tuple[str, Any]], files: list[Path]) -> dict[str, Any]:
    names = run.names
    return {
        "command": "explain",
        "methods": run.methods,
        "settings": dict(settings),
        "importances": {m: dict(zip(names, v.tolist())) for m, (v, _) in run.importances.items()},
        "std": {m: dict(zip(names, e.tolist())) for m, (_, e) in run.importances.items()},
        "timings": run.timings,
        "failed": run.failed,
        "files": [p.name for p in files],
    }


# --- the report payload (contract A of the session notes: ixplain.report.render_page) -------

_STATIC_LABELS = {"pfi": "PFI", "sage": "SAGE"}


def _method_label(key: str) -> str:
    """``"pfi"`` -> ``"PFI"``, ``"sage (conditional)"`` -> ``"SAGE (conditional)"``."""
    base, _, rest = key.partition(" ")
    return _STATIC_LABELS.get(base, base) + (f" {rest}" if rest else "")


def _ranked(values: Any) -> list[int]:
    return [int(j) for j in np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")]


def _bars(run: StaticRun, key: str) -> dict[str, Any]:
    values, errors = run.importances[key]
    order = _ranked(values)
    return {"id": f"importance-{key}", "kind": "bars",
            "title": f"{_method_label(key)} (error bar: "
                     f"{'standard error' if key.startswith('sage') else 'std over repeats'})",
            "x_label": "feature", "y_label": "importance",
            "series": [{"name": _method_label(key), "labels": [run.names[j] for j in order],
                        "y": [values[j] for j in order],
                        "lower": [values[j] - errors[j] for j in order],
                        "upper": [values[j] + errors[j] for j in order]}]}


def _effects(run: StaticRun) -> tuple[dict[str, tuple[Any, Any]], str]:
    """The curves the summary reads: PD when computed, else ALE; and their name."""
    if run.curves:
        return {f: (g, a) for f, (g, a, _) in run.curves.items()}, "partial dependence"
    ale = run.results.get("ale", {})
    return {f: (r.grid_values[0], r.average[0]) for f, r in ale.items()}, "ALE"


def _effect_charts(run: StaticRun) -> list[dict[str, Any]]:
    """PD (band: 10-90 % of the ICE curves when computed) and ALE (95 % band) per feature."""
    from ._static_methods import _prediction_label

    y_label = _prediction_label(run)
    charts = []
    for f, (grid, avg, ice) in run.curves.items():
        low, up = (None, None) if ice is None else np.nanpercentile(ice, [10, 90], axis=0)
        band = "; band: 10-90 % of the ICE curves" if ice is not None else ""
        charts.append({"id": f"pd-{f}", "kind": "curves", "title": f"Partial dependence of {f}"
                       f"{band}", "x_label": f, "y_label": y_label,
                       "series": [{"name": "PD", "x": np.asarray(grid, dtype=object), "y": avg,
                                   "lower": low, "upper": up, "group": f}]})
    for f, res in run.results.get("ale", {}).items():
        avg, std = np.asarray(res.average[0]), np.asarray(res.std[0])
        charts.append({"id": f"ale-{f}", "kind": "curves",
                       "title": f"Accumulated local effects of {f} (95 % band)", "x_label": f,
                       "y_label": f"ALE of the {y_label}",
                       "series": [{"name": "ALE", "x": np.asarray(res.grid_values[0], dtype=object),
                                   "y": avg, "lower": avg - 1.96 * std, "upper": avg + 1.96 * std,
                                   "group": f}]})
    return charts


def _pairs(run: StaticRun) -> tuple[list[tuple[str, str, float]], str]:
    """The strongest pairs (H^2 first, else Shapley interactions) and the strength's name."""
    hstat = run.results.get("hstat")
    if hstat is not None:
        frame = hstat.to_frame(output=0)
        frame = frame[frame["feature_j"].notna()].sort_values("h2", ascending=False).head(10)
        return [(str(r.feature_i), str(r.feature_j), float(r.h2))
                for r in frame.itertuples()], "H^2"
    res = run.results.get("interactions")
    if res is not None:
        return res.top_pairs(10), f"Shapley interaction ({res.index})"
    return [], ""


def _no_interaction(run: StaticRun, pairs: list[tuple[str, str, float]]) -> list[str]:
    """The H-statistic's sentence when it found no interaction at all (it computes pairs
    only for features that interact with the others)."""
    hstat = run.results.get("hstat")
    if hstat is None or pairs:
        return []
    h2 = hstat.to_frame(output=0)["h2"].to_numpy(dtype=np.float64)
    if len(h2) and np.all(h2[np.isfinite(h2)] == 0) and np.isfinite(h2).any():
        return ["No feature interacts with the others (overall H^2 0 for every feature)."]
    return []


def _unit(run: StaticRun, key: str) -> str:
    from ._static_methods import _sage_loss, pfi_loss

    if key.startswith("sage"):
        return _plots.importance_label("sage", _sage_loss(run))
    loss = pfi_loss(run)
    return _plots.importance_label("pfi", loss) if loss else "decrease of the model's score"


def _ranking_caption(run: StaticRun, key: str) -> str:
    """What the ranking's bars and whiskers are (``_bars``: value +- error)."""
    if key.startswith("sage"):
        return ("Bars: the SAGE values; whiskers: \u00b1 one standard error of each value "
                "(its Monte Carlo estimate over the sampled permutations).")
    return (f"Bars: the mean over the {run.cfg.n_repeats} repeats; whiskers: \u00b1 the "
            "standard deviation over the repeats.")


def _strength(run: StaticRun, effects: dict[str, tuple[Any, Any]]) -> dict[str, float]:
    out = {}
    for f, (_, a) in effects.items():
        a = np.asarray(a, dtype=np.float64)
        out[f] = float(np.nanmax(a) - np.nanmin(a)) if np.isfinite(a).any() else -np.inf
    return out


def explain_payload(run: StaticRun, report: Report) -> dict[str, Any]:
    """The report payload of an ``ixplain explain`` run (plain JSON; the page's contract).

    First screen: sentences of :func:`ixplain.report.summarize_static`, the ranking of the
    first importance method, and as the headline the curve of the strongest effect (the
    widest PD, else ALE), then the other curves (strongest first), the strongest interactions
    and the other importance bars; ``report`` gives the tables, settings, notes, images and
    files.
    """
    from ..report import summarize_static

    effects, effect_name = _effects(run)
    pairs, pair_name = _pairs(run)
    summary = summarize_static(
        run.names, {_method_label(k): v for k, v in run.importances.items()},
        effects=effects, effect_name=effect_name, interactions=pairs,
        interaction_name=pair_name)
    summary += _no_interaction(run, pairs)
    strength = _strength(run, effects)
    charts = sorted(_effect_charts(run), key=lambda c: (
        -strength.get(c["series"][0]["group"], -np.inf), c["id"].startswith("ale-")))
    if pairs:
        charts.append({"id": "interactions", "kind": "bars", "title": f"Strongest pairs "
                       f"({pair_name})", "x_label": "pair", "y_label": pair_name,
                       "series": [{"name": pair_name, "labels": [f"{a} x {b}" for a, b, _ in pairs],
                                   "y": [v for *_, v in pairs], "lower": None, "upper": None}]})
    charts += [_bars(run, k) for k in list(run.importances)[1:]]
    ranking = None
    if run.importances:
        key = next(iter(run.importances))
        bars = _bars(run, key)["series"][0]
        what = "standard error" if key.startswith("sage") else "std over repeats"
        ranking = {"title": f"{_method_label(key)} ranking (error bar: {what})",
                   "unit": _unit(run, key), "features": bars["labels"], "values": bars["y"],
                   "lower": bars["lower"], "upper": bars["upper"],
                   "caption": _ranking_caption(run, key)}
    payload = {
        "title": report.title, "subtitle": f"{type(run.model).__name__} on {len(run.X):,} rows, "
                                           f"target {run.target}",
        "status": {"state": "finished", "rows_seen": len(run.X), "rows_total": len(run.X)},
        "summary": summary, "ranking": ranking,
        "headline": charts[0]["id"] if charts else None, "charts": charts, "incidents": [],
        "tables": [{"title": t[0], "columns": list(t[1]), "rows": [list(r) for r in t[2]]}
                   for t in report.tables],
        "settings": [[k, v] for k, v in report.settings],
        "images": [{"caption": c, "png_base64": base64.b64encode(Path(p).read_bytes())
                    .decode("ascii")} for c, p in report.images],
        "notes": list(report.notes), "files": list(report.files),
    }
    return json_safe(payload)  # type: ignore[no-any-return]
