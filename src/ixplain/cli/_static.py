"""``ixplain explain``: static explanations of a saved scikit-learn model on a table."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _plots
from ._data import read_table, select_columns
from ._errors import CLIError
from ._methods import STATIC_FUNCTIONS, _public, available
from .report import Report, render_report

__all__ = ["ExplainConfig", "importance_arrays", "load_model", "run_explain"]


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
    loss: str | None = None
    trust: Sequence[str] | None = None
    seed: int = 0


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
        except Exception as exc:
            raise CLIError(f"cannot load model {p}: {_first_line(exc)}") from exc
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


def _methods(cfg: ExplainConfig) -> list[str]:
    have = available("static")
    if cfg.methods is None:
        return [m for m in ("pfi", "sage", "pd", "ice") if have[m]]
    out = []
    for m in cfg.methods:
        if m not in STATIC_FUNCTIONS:
            raise CLIError(f"unknown method {m!r}; choose from: {', '.join(STATIC_FUNCTIONS)}.")
        if not have[m]:
            raise CLIError(
                f"method {m!r} is not available in this build of ixplain "
                f"(ixplain.{STATIC_FUNCTIONS[m]} is missing)."
            )
        out.append(m)
    order = ["pfi", "sage", "pd", "ice"]
    return sorted(dict.fromkeys(out), key=order.index)


def run_explain(cfg: ExplainConfig, out: Path) -> dict[str, Any]:
    """Compute the requested static explanations and write CSV/JSON/PNG and ``report.html``."""
    from ._outputs import write_frame, write_json

    frame = read_table(cfg.data)
    frame, target = select_columns(frame, cfg.target, cfg.features, cfg.data)
    model = load_model(cfg.model, cfg.trust)
    methods = _methods(cfg)
    X = frame.drop(columns=[target])
    y = frame[target].to_numpy()
    names = [str(c) for c in X.columns]
    is_classifier = hasattr(model, "classes_")
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    images: list[tuple[str, Path]] = []
    final: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    timings: dict[str, float] = {}
    if "pfi" in methods:
        t0 = time.perf_counter()
        kwargs: dict[str, Any] = {"n_repeats": cfg.n_repeats, "random_state": cfg.seed}
        if cfg.loss is not None:
            kwargs["loss"] = cfg.loss
        result = _public("permutation_importance")(model, X, y, **kwargs)
        final["pfi"] = importance_arrays(result, names)
        timings["pfi"] = time.perf_counter() - t0
    if "sage" in methods:
        t0 = time.perf_counter()
        loss = cfg.loss or ("log_loss" if is_classifier else "squared_error")
        result = _public("sage")(model, X, y, loss=loss, random_state=cfg.seed)
        final["sage"] = importance_arrays(result, names)
        timings["sage"] = time.perf_counter() - t0
    if final:
        records = [
            {"method": m, "feature": n, "importance": float(v[j]), "std": float(e[j])}
            for m, (v, e) in final.items()
            for j, n in enumerate(names)
        ]
        files += write_frame(out, "importances", pd.DataFrame.from_records(records))
        files.append(
            write_json(
                out / "importances.json",
                {
                    m: {"feature_names": names, "importances": v, "std": e}
                    for m, (v, e) in final.items()
                },
            )
        )
        images.append(
            (
                "Importances (error bar: standard deviation over repeats for PFI, standard "
                "error for SAGE).",
                _plots.plot_importance_bars(
                    out / "importance_final.png",
                    final,
                    names,
                    xlabel="importance",
                    title="{method} (error bar: std / standard error)",
                ),
            )
        )
    pd_feats = _pd_features(cfg, names, final, X)
    curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
    pd_payload: dict[str, Any] = {}
    if ("pd" in methods or "ice" in methods) and pd_feats:
        t0 = time.perf_counter()
        kind = "both" if "ice" in methods else "average"
        pdf = _public("partial_dependence")
        rows = []
        for f in pd_feats:
            res = pdf(
                model,
                X,
                [f],
                kind=kind,
                grid_resolution=cfg.grid_resolution,
                random_state=cfg.seed,
            )
            grid = np.asarray(res["grid_values"][0])
            ice: Any = np.asarray(res["individual"])[0] if kind == "both" else None
            avg: Any = np.asarray(res["average"])[0]
            curves[f] = (grid, avg, ice)
            pd_payload[f] = {"grid_values": grid, "average": avg}
            rows += [
                {"feature": f, "grid_value": g, "pd": v}
                for g, v in zip(grid.tolist(), avg.tolist())
            ]
        files += write_frame(out, "pd", pd.DataFrame.from_records(rows))
        files.append(write_json(out / "pd.json", pd_payload))
        if kind == "both":
            ice_rows = [
                {"feature": f, "row": i, "grid_value": g, "ice": float(v)}
                for f, (grid, _, ice_f) in curves.items()
                if ice_f is not None
                for i, curve in enumerate(ice_f)
                for g, v in zip(grid.tolist(), curve.tolist())
            ]
            files += write_frame(out, "ice", pd.DataFrame.from_records(ice_rows))
        ylabel = "prediction"
        if is_classifier:  # binary: classes_[1]; multiclass: the first class's output
            classes = list(getattr(model, "classes_", []))
            shown = classes[1] if len(classes) == 2 else (classes[0] if classes else "?")
            ylabel = f"P({target} = {shown})"
        images.append(
            (
                "Partial dependence (red) and ICE curves (grey, up to 50 rows)."
                if kind == "both"
                else "Partial dependence.",
                _plots.plot_pd_curves(out / "pd.png", curves, ylabel),
            )
        )
        timings["pd"] = time.perf_counter() - t0
    seconds = time.perf_counter() - start
    settings = [
        ("data", cfg.data),
        ("target", target),
        ("model", f"{Path(cfg.model).name}: {type(model).__name__}"),
        ("methods", ", ".join(methods)),
        ("rows", int(X.shape[0])),
        ("features", len(names)),
        ("PFI repeats", cfg.n_repeats if "pfi" in methods else "-"),
        ("loss", cfg.loss or ("model score (PFI), default loss (SAGE)")),
        ("PD features", ", ".join(pd_feats) if curves else "-"),
        ("time", f"{seconds:.1f} s"),
        ("seed", cfg.seed),
    ]
    files += [p for _, p in images]
    files += [out / "summary.json", out / "report.html"]
    summary = {
        "command": "explain",
        "methods": methods,
        "settings": dict(settings),
        "importances": {m: dict(zip(names, v.tolist())) for m, (v, _) in final.items()},
        "std": {m: dict(zip(names, e.tolist())) for m, (_, e) in final.items()},
        "timings": timings,
        "files": [p.name for p in files],
    }
    write_json(out / "summary.json", summary)
    tables = []
    if final:
        ms = list(final)
        order = np.argsort(-np.nan_to_num(final[ms[0]][0], nan=-np.inf))
        tables.append(
            (
                "Importances",
                ["feature"] + [c for m in ms for c in (m, f"{m} std")],
                [
                    [names[j]] + [x for m in ms for x in (final[m][0][j], final[m][1][j])]
                    for j in order
                ],
            )
        )
    sample = frame.head(5)
    tables.append(
        (
            "First rows of the data",
            list(sample.columns),
            [list(r) for r in sample.itertuples(index=False)],
        )
    )
    report = Report(
        title=f"ixplain explain: {Path(cfg.model).name} on {Path(cfg.data).name}",
        settings=settings,
        tables=tables,
        images=images,
        files=[p.name for p in files],
    )
    (out / "report.html").write_text(render_report(report), encoding="utf-8")
    return summary


def _pd_features(
    cfg: ExplainConfig,
    names: list[str],
    final: dict[str, tuple[np.ndarray, np.ndarray]],
    X: pd.DataFrame,
) -> list[str]:
    if cfg.pd_features:
        for f in cfg.pd_features:
            if f not in names:
                raise CLIError(
                    f"--pd-features: {f!r} is not a feature; features: {', '.join(names)}."
                )
        return list(cfg.pd_features)
    if final:
        values = next(iter(final.values()))[0]
        order = np.argsort(-np.nan_to_num(values, nan=-np.inf))
        return [names[j] for j in order[:3]]
    return names[:3]
