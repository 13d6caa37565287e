"""``ixplain compare``: what changed between two models, or a reference and a current table.

Reads the tables and the saved models, runs :func:`ixplain.change.compare` (paired intervals
for two models on the same rows, independent ones for two tables; Holm across features), and
writes ``change.csv`` / ``change.json`` (one row per method x feature), ``curves.csv`` (the
PD/ALE changes per grid point), PNGs (:class:`~ixplain.change._display.ChangeDisplay`) and
``report.html`` (:func:`ixplain.report.render_page` of the comparison's payload) to ``--out``.
"""

from __future__ import annotations

import base64
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from ._data import check_column, read_table, select_columns
from ._errors import CLIError

__all__ = ["CompareConfig", "make_compare_command", "run_compare"]

_METHODS = ("pfi", "sage", "interactions", "pd", "ale", "shift")
_MAX_CURVE_PNGS = 6


@dataclass
class CompareConfig:
    """Settings of one ``ixplain compare`` run (the CLI options)."""

    reference: str
    model: str
    current: str | None = None
    model_b: str | None = None
    target: str | None = None
    methods: Sequence[str] | None = None
    features: Sequence[str] | None = None
    label_free: bool = False
    n_repeats: int = 5
    trust: Sequence[str] | None = None
    seed: int = 0


def _methods(cfg: CompareConfig) -> list[str]:
    methods = list(dict.fromkeys(cfg.methods or ["pfi", "pd"]))
    bad = [m for m in methods if m not in _METHODS]
    if bad:
        raise CLIError(f"--methods: unknown method(s) {bad}; choose from {', '.join(_METHODS)}.")
    if "shift" in methods and cfg.current is None:
        raise CLIError("--methods shift tests a shift between two tables; give --current.")
    return methods


def _load(cfg: CompareConfig) -> tuple[Any, Any, pd.DataFrame, pd.DataFrame | None]:
    from ._static import load_model

    if cfg.current is None and cfg.model_b is None:
        raise CLIError("nothing to compare: give --current (a second table), --model-b (a "
                       "second model) or both.")
    ref = read_table(cfg.reference)
    cur = None if cfg.current is None else read_table(cfg.current)
    model_a = load_model(cfg.model, cfg.trust)
    model_b = None if cfg.model_b is None else load_model(cfg.model_b, cfg.trust)
    return model_a, model_b, ref, cur


def _columns(cfg: CompareConfig, model: Any, ref: pd.DataFrame,
             cur: pd.DataFrame | None) -> tuple[list[str], str | None]:
    """The feature columns (the model's fitted ones when it knows them) and the target."""
    from ._static import model_features

    if cfg.target is None and not cfg.label_free:
        raise CLIError("--target is required (or --label-free, which compares the models' "
                       "predictions without labels).")
    target = cfg.target
    if target is not None:
        check_column(ref, target, "target", cfg.reference)
    columns = list(ref.columns)
    if target is None:
        target = "__no_target__"
        columns.append(target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (extra columns: reported by the check below)
        names = model_features(model, columns, target, cfg.features, cfg.reference)
    names = names or [c for c in ref.columns if c != target]
    if cur is not None:
        missing = [c for c in names if c not in cur.columns]
        if missing:
            raise CLIError(
                f"--current {cfg.current} lacks the feature column(s) {missing} that "
                f"--reference {cfg.reference} and the model use; both tables need them.")
        if cfg.target is not None and cfg.target not in cur.columns:
            raise CLIError(f"--current {cfg.current} has no target column {cfg.target!r}; "
                           "give it, or use --label-free.")
    return names, cfg.target


def _frames(cfg: CompareConfig, frame: pd.DataFrame, names: list[str], target: str | None,
            source: str) -> tuple[pd.DataFrame, Any]:
    if target is None:
        for n in names:
            check_column(frame, n, "feature", source)
        return frame[names], None
    data, _ = select_columns(frame, target, names, source)
    return data[names], data[target].to_numpy()


def _probe(model: Any, path: str, X: pd.DataFrame, source: str) -> None:
    """Refuse, with the model's own error, a model that cannot predict a few rows."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the error, if any, says what is wrong)
            model.predict(X.iloc[:5])
    except Exception as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        culprit = _bad_column(X, source)
        if culprit is not None:
            raise CLIError(f"the model {path} failed to predict rows of {source}: {culprit}; "
                           f"fix or drop them ({type(exc).__name__}: {reason.split('. ')[0]})") from exc
        raise CLIError(f"the model {path} failed to predict rows of {source} "
                       f"({type(exc).__name__}: {reason}); is it the model for these columns?"
                       ) from exc


def _bad_column(X: pd.DataFrame, source: str) -> str | None:
    """The first feature column of ``X`` holding text that is not a number, or missing or
    infinite values, named with its first such value and data row (1 = first row under the
    header); None when every column is clean numbers."""
    import numpy as np

    from ._data import _non_numbers

    for name in X.columns:
        text = _non_numbers(X[name])
        if text is not None and len(text):
            row = int(np.flatnonzero(X.index == text.index[0])[0]) + 1
            return (f"feature column {name!r} in {source} holds {len(text)} value(s) that are "
                    f"not numbers, such as {text.iloc[0]!r} (data row {row})")
        values = pd.to_numeric(X[name], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            i = int(np.argmax(bad))
            return (f"feature column {name!r} in {source} has {int(bad.sum())} missing or "
                    f"infinite value(s), the first ({float(values[i])}) in data row {i + 1}")
    return None


def _refuse_bad_cells(exc: Exception, X_a: pd.DataFrame, ref: str, X_b: pd.DataFrame | None,
                      cur: str | None) -> None:
    """When a model failed inside compare() on rows with bad values, name them by file."""
    from .._validation import ModelEvaluationError

    if not isinstance(exc.__cause__, ModelEvaluationError):
        return
    culprit = _bad_column(X_a, ref) or (None if X_b is None else _bad_column(X_b, str(cur)))
    if culprit is not None:
        raise CLIError(f"a model failed to predict rows: {culprit}; fix or drop them.") from exc


def run_compare(cfg: CompareConfig, out: Path) -> dict[str, Any]:
    """Run the comparison and write its outputs to ``out``; return what the CLI prints.

    Raises
    ------
    CLIError
        Missing or unreadable files, columns missing on a side, a model that fails on the
        rows, bad options.
    """
    from ..change import compare

    methods = _methods(cfg)
    model_a, model_b, ref, cur = _load(cfg)
    names, target = _columns(cfg, model_a, ref, cur)
    X_a, y_a = _frames(cfg, ref, names, target, cfg.reference)
    X_b, y_b = (None, None) if cur is None else _frames(cfg, cur, names, target,
                                                        str(cfg.current))
    _probe(model_a, cfg.model, X_a, cfg.reference)
    if model_b is not None:
        _probe(model_b, str(cfg.model_b), X_a if X_b is None else X_b,
               cfg.reference if X_b is None else str(cfg.current))
    if X_b is not None:
        _probe(model_a, cfg.model, X_b, str(cfg.current))
    try:
        result = compare(model_a, X_a, y_a, model_b=model_b, X_b=X_b, y_b=y_b,
                         methods=tuple(methods), n_repeats=cfg.n_repeats,
                         label_free=cfg.label_free, random_state=cfg.seed)
    except (ValueError, TypeError) as exc:
        _refuse_bad_cells(exc, X_a, cfg.reference, X_b, cfg.current)
        raise CLIError(" ".join(str(exc).split())) from exc
    result.settings["side_names"] = _side_names(cfg)
    if cfg.label_free and cfg.target is not None:
        result.notes.append(f"--target {cfg.target!r} is not used with --label-free (the "
                            "importances compare the models' own predictions); the column is "
                            "left out of the features.")
    return write_outputs(result, cfg, out)


def _side_names(cfg: CompareConfig) -> list[str]:
    a = Path(cfg.model).name if cfg.model_b is not None else Path(cfg.reference).name
    if cfg.model_b is not None and cfg.current is not None:
        return [f"{Path(cfg.model).name} on {Path(cfg.reference).name}",
                f"{Path(cfg.model_b).name} on {Path(cfg.current).name}"]
    b = Path(cfg.model_b).name if cfg.model_b is not None else Path(str(cfg.current)).name
    return [a, b] if a != b else [f"a: {a}", f"b: {b}"]


def _curve_frame(result: Any) -> pd.DataFrame | None:
    from ..change._payload import _curve_list

    curves = _curve_list(result)
    if not curves:
        return None
    return pd.concat([c.to_frame() for c in curves], ignore_index=True)


def _pngs(result: Any, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from ..change._display import ChangeDisplay
    from ..change._payload import _curve_list

    written = []
    for method in result.importance:
        disp = ChangeDisplay.from_result(result, method=method).plot()
        path = out / f"change_{method}.png"
        disp.figure_.savefig(path, dpi=110)
        plt.close(disp.figure_)
        written.append(path)
    display = ChangeDisplay.from_result(result)
    for c in _curve_list(result)[:_MAX_CURVE_PNGS]:
        display.plot_curve(c.feature, method=c.method)
        path = out / f"curve_{c.method}_{_safe(c.feature)}.png"
        display.figure_.savefig(path, dpi=110)
        plt.close(display.figure_)
        written.append(path)
    return written


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)[:60] or "feature"


def write_outputs(result: Any, cfg: CompareConfig, out: Path) -> dict[str, Any]:
    """``change.csv``, ``change.json``, ``curves.csv``, PNGs and ``report.html`` in ``out``."""
    from ._writers import write_json

    files = [out / "change.csv"]
    result.to_frame().to_csv(files[0], index=False)
    curves = _curve_frame(result)
    if curves is not None:
        files.append(out / "curves.csv")
        curves.to_csv(files[-1], index=False)
    files.append(write_json(out / "change.json", result.to_dict()))
    pngs = _pngs(result, out)
    files += pngs
    payload = result.to_payload()
    payload["images"] = [{"caption": p.stem.replace("_", " "),
                          "png_base64": base64.b64encode(p.read_bytes()).decode("ascii")}
                         for p in pngs]
    payload["settings"] += [["reference", cfg.reference], ["current", cfg.current],
                            ["model", cfg.model], ["model_b", cfg.model_b],
                            ["target", cfg.target], ["seed", cfg.seed]]
    report = _write_report(payload, out, files)
    return {"summary": payload["summary"], "files": files, "report": report,
            "notes": list(getattr(result, "notes", None) or [])}


def _write_report(payload: dict[str, Any], out: Path, files: list[Path]) -> Path | None:
    try:
        from ..report import render_page
    except ImportError:  # (the report package is not part of this build)
        warnings.warn("report.html is not written: ixplain.report.render_page is not "
                      "available in this build.", UserWarning, stacklevel=2)
        return None
    path = out / "report.html"
    payload["files"] = [p.name for p in [*files, path]]
    path.write_text(render_page(payload), encoding="utf-8")
    files.append(path)
    return path


def make_compare_command(guard: Any, prepare_out: Any, split: Any, split_given: Any) -> Any:
    """The ``ixplain compare`` command function, given the CLI's error guard and option
    helpers (``_app`` registers it; this module does not import ``_app``)."""

    def compare_cmd(
        reference: Annotated[Path, typer.Option(
            help="The reference table (side a): .csv (optionally compressed) or .parquet.")],
        model: Annotated[Path, typer.Option(
            help="Saved fitted scikit-learn model (side a): .joblib/.pkl (WARNING: loading a "
            "pickle executes code from it; only load files you trust) or .skops.")],
        current: Annotated[Path | None, typer.Option(
            help="The current table (side b; default: the reference rows, for two models).")] = None,
        model_b: Annotated[Path | None, typer.Option(
            help="The second model (side b; default: --model, for two tables).")] = None,
        target: Annotated[str | None, typer.Option(
            help="Target column (required unless --label-free).")] = None,
        methods: Annotated[list[str] | None, typer.Option(
            help="Comma-separated: pfi, sage, interactions, pd, ale, shift (default pfi, pd; "
            "interactions: pairwise Shapley interactions among the 5 strongest features; shift: "
            "the explanation-shift test, needs --current).")] = None,
        features: Annotated[list[str] | None, typer.Option(
            help="Model input columns, comma-separated (default: the model's fitted columns, "
            "else all but the target).")] = None,
        label_free: Annotated[bool, typer.Option(
            help="Compare without labels: prediction-sensitivity PFI, PD/ALE.")] = False,
        n_repeats: Annotated[int, typer.Option(help="PFI draws per row and feature.")] = 5,
        trust: Annotated[list[str] | None, typer.Option(
            help="Types to trust when loading a .skops file.")] = None,
        out: Annotated[Path, typer.Option(help="Output folder.")] = Path("ixplain-compare"),
        seed: Annotated[int, typer.Option(help="Seed (same seed, same results).")] = 0,
        debug: Annotated[bool, typer.Option(help="Show tracebacks of errors.")] = False,
    ) -> None:
        """Explain what changed between two models (--model-b) or two tables (--current): per-feature importance changes b - a with paired (two models, same rows) or Welch (two tables) intervals and Holm's family-wise test, PD/ALE curve changes with bands, and a report.

        WARNING: loading a pickle or joblib file executes code stored in it; only use files you trust.
        """
        def body() -> None:
            if n_repeats < 1:
                raise CLIError(f"--n-repeats must be >= 1, got {n_repeats}.")
            if seed < 0:
                raise CLIError(f"--seed must be >= 0, got {seed}.")
            prepare_out(out)
            cfg = CompareConfig(
                reference=str(reference), model=str(model),
                current=None if current is None else str(current),
                model_b=None if model_b is None else str(model_b), target=target,
                methods=split_given(methods, "--methods"),
                features=split_given(features, "--features"), label_free=label_free,
                n_repeats=n_repeats, trust=split(trust), seed=seed,
            )
            done = run_compare(cfg, out)
            for sentence in done["summary"]:
                typer.echo(sentence)
            for note in done.get("notes", []):
                typer.echo(f"Note: {note}")
            if done["report"] is not None:
                typer.echo(f"Report: {Path(done['report']).resolve()}")
            else:
                typer.echo(f"Outputs: {out.resolve()}")

        guard(debug, body)

    return compare_cmd
