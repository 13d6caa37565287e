"""The ``ixplain`` command line (typer): ``stream``, ``explain`` and ``datasets``."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from ._errors import CLIError, RunInterrupted


class _HelpWithoutType:
    """Typer (0.29) prints a value type beside every option, ``<bool>`` beside ``--help``
    too; the help option takes no value, so it gets none (an empty metavar)."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.metavar = ""
        return option


class _Group(_HelpWithoutType, TyperGroup):
    """The ``ixplain`` group, its ``--help`` without a type."""


class _Command(_HelpWithoutType, TyperCommand):
    """An ``ixplain`` command, its ``--help`` without a type."""


app = typer.Typer(
    cls=_Group,
    name="ixplain",
    help=(
        "Explain machine-learning models globally: on a data stream while an online model "
        "learns (stream), a saved scikit-learn model on a table (explain), or what changed "
        "between two models or two tables (compare)."
    ),
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

#: Exit status for a user error (bad file, missing column, unknown name).
EXIT_USER_ERROR = 2
#: Exit status after Ctrl-C (partial results written).
EXIT_INTERRUPTED = 130


def _split(values: list[str] | None) -> list[str] | None:
    """``--x a,b --x c`` -> ``["a", "b", "c"]`` (None when not given)."""
    if not values:
        return None
    out = [v.strip() for item in values for v in item.split(",") if v.strip()]
    return out or None


def _split_given(values: list[str] | None, option: str) -> list[str] | None:
    """:func:`_split`, refusing an option given with no name in it (``--methods ""``): it
    used to mean the default, silently."""
    out = _split(values)
    if values is not None and out is None:
        raise CLIError(f"{option} was given without a name (got {', '.join(map(repr, values))});"
                       f" leave {option} out for the default.")
    return out


def _guard(debug: bool, body: Callable[[], Any]) -> Any:
    """Run ``body``; turn any error into one line on stderr and a non-zero exit (unless debug).

    Warnings (rows skipped for missing values, ...) are printed as one line each too.
    """
    try:
        with warnings.catch_warnings():
            if not debug:
                warnings.showwarning = _one_line_warning
            return body()
    except RunInterrupted as exc:
        typer.echo(f"ixplain: {exc}", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except KeyboardInterrupt:
        typer.echo("ixplain: interrupted.", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except typer.Exit:
        raise
    except Exception as exc:
        if debug:
            raise
        typer.echo(f"ixplain: error: {_one_line(exc)}", err=True)
        raise typer.Exit(EXIT_USER_ERROR if isinstance(exc, CLIError) else 1) from None


def _one_line_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                      line: Any = None) -> None:
    typer.echo(f"ixplain: warning: {' '.join(str(message).split())}", err=True)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if not isinstance(exc, CLIError):
        text = f"{type(exc).__name__}: {text}"
    return text + " (run with --debug for the traceback)" if not isinstance(exc, CLIError) else text


@app.command(cls=_Command)
def stream(
    dataset: Annotated[
        str | None,
        typer.Option(help="Bundled dataset (see `ixplain datasets`); default bike."),
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option(
            help="Your own stream: a .csv (optionally compressed) or .parquet file, rows in time order."
        ),
    ] = None,
    target: Annotated[
        str | None, typer.Option(help="Target column (required with --data).")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option(help="regression or binary; default inferred from the target column."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="River model: linear, hoeffding-tree (default), adaptive-tree, arf, knn, "
            "naive-bayes (binary only). Numeric columns are standardised and string columns "
            "one-hot encoded online."
        ),
    ] = None,
    explain: Annotated[
        list[str] | None,
        typer.Option(help="Methods, comma-separated: pfi, sage, pdp, ale, drift, interactions (default: pfi, sage, pdp, ale, drift; drift tests iPFI's per-row values for changes, iSAGE's without pfi; interactions, opt-in: Shapley interactions of the loss game over time, costlier per row)."),
    ] = None,
    features: Annotated[
        list[str] | None,
        typer.Option(help="Feature columns to use, comma-separated (default: all but the target)."),
    ] = None,
    pd_features: Annotated[
        list[str] | None,
        typer.Option(help="Features whose PD curves are tracked (default: two per dataset)."),
    ] = None,
    alpha: Annotated[
        float | None,
        typer.Option(
            help="Smoothing factor of the explanations in (0, 1]; default 10/rows clipped to [0.001, 0.05]."
        ),
    ] = None,
    every: Annotated[
        int | None,
        typer.Option(help="Record a snapshot of the explanations every N rows (default rows/200)."),
    ] = None,
    n_rows: Annotated[int | None, typer.Option(help="Stop after this many rows.")] = None,
    batch_size: Annotated[
        int,
        typer.Option(
            help="Rows explained together (one batched model call per explainer), with the "
            "model as it is before it learns them; the metric stays strictly prequential. "
            "1 explains each row just before it is learnt."
        ),
    ] = 16,
    loss: Annotated[
        str | None,
        typer.Option(
            help="Loss of pfi/sage: squared_error (regression default), absolute_error, zero_one (binary default), log_loss, brier."
        ),
    ] = None,
    removal: Annotated[
        str,
        typer.Option(
            help="How pfi and sage remove a feature: marginal (the model's structure), "
            "conditional (drawn given the other features, from trees that follow the stream: "
            "data-aware) or both, side by side."
        ),
    ] = "marginal",
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("ixplain-output"),
    seed: Annotated[
        int, typer.Option(help="Seed of every random choice (same seed, same results).")
    ] = 0,
    progress: Annotated[bool, typer.Option(help="Show the progress bar.")] = True,
    live: Annotated[
        bool,
        typer.Option(
            help="Serve the report on 127.0.0.1 while the stream runs (the URL is printed; "
            "the page updates every 2 s); the end of the stream or Ctrl-C writes report.html "
            "as without --live."
        ),
    ] = False,
    port: Annotated[
        int | None,
        typer.Option(help="Port of --live on 127.0.0.1 (default 0: any free port)."),
    ] = None,
    debug: Annotated[bool, typer.Option(help="Show tracebacks of errors.")] = False,
) -> None:
    """Stream a dataset through an online River model and explain it as it learns.

    The prequential loop: each mini-batch of rows is explained (iPFI, iSAGE, iPDP, iALE; with --explain interactions also Shapley interactions) with the model as it is, then every row is predicted, scored and learnt. Writes importances over time and PD snapshots (CSV, JSON, Parquet), the rolling metric, PNG plots and a self-contained report.html to --out. Ctrl-C or SIGTERM stops the run and writes what was computed so far (exit status 130). With --live the report is served on 127.0.0.1 and updated while the stream runs.
    """

    def body() -> None:
        from ._live import check_port, run_live
        from ._outputs import write_stream_outputs
        from ._stream import StreamConfig, run_stream

        _check_stream_options(dataset, data, task, alpha, every, n_rows, loss)
        if seed < 0:
            raise CLIError(f"--seed must be >= 0, got {seed}.")
        if batch_size < 1:
            raise CLIError(f"--batch-size must be >= 1, got {batch_size}.")
        if removal not in ("marginal", "conditional", "both"):
            raise CLIError(
                f"--removal must be 'marginal', 'conditional' or 'both', got {removal!r}.")
        if explain is not None and _split(explain) is None:
            raise CLIError(f"--explain got no method name ({explain!r}); choose from: pfi, sage, "
                           "pdp, ale, drift, interactions.")
        live_port = check_port(port, live)
        _prepare_out(out)
        cfg = StreamConfig(
            dataset=dataset if data is None else None,
            data=str(data) if data is not None else None,
            target=target,
            task=task,
            model=model,
            explain=_split(explain),
            features=_split(features),
            pd_features=_split(pd_features),
            alpha=alpha,
            every=every,
            n_rows=n_rows,
            loss=loss,
            seed=seed,
            batch_size=batch_size,
            progress=progress,
            removal=removal,
        )
        if live:
            run = run_live(cfg, out, live_port, typer.echo)
        else:
            run = run_stream(cfg)
            write_stream_outputs(run, out)
        report = (out / "report.html").resolve()
        if run.interrupted:
            raise RunInterrupted(str(out), run.rows_seen)
        typer.echo(
            f"ixplain: explained {run.rows_seen} rows of {run.source} in {run.seconds:.1f} s "
            f"({', '.join(run.methods) or 'no methods available'})."
        )
        typer.echo(f"Report: {report}")

    _guard(debug, body)


def _prepare_out(out: Path) -> None:
    """Create the output folder now, so a bad ``--out`` fails before the run, not after it."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".ixplain-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise CLIError(f"cannot write to --out {out}: {reason}.") from None


def _check_stream_options(dataset, data, task, alpha, every, n_rows, loss) -> None:
    if dataset is not None and data is not None:
        raise CLIError("give either --dataset or --data, not both.")
    if task is not None and task not in ("regression", "binary"):
        raise CLIError(f"--task must be 'regression' or 'binary', got {task!r}.")
    if alpha is not None and not (0.0 < alpha <= 1.0):
        raise CLIError(f"--alpha must be in (0, 1], got {alpha}.")
    if every is not None and every < 1:
        raise CLIError(f"--every must be >= 1, got {every}.")
    if n_rows is not None and n_rows < 1:
        raise CLIError(f"--n-rows must be >= 1, got {n_rows}.")
    _check_loss(loss)


def _check_loss(loss: str | None) -> None:
    """Refuse a ``--loss`` that is not a loss name (a command line cannot pass a callable)."""
    from ..losses import LOSSES

    if loss is not None and loss not in LOSSES:
        raise CLIError(f"--loss must be one of {', '.join(sorted(LOSSES))}; got {loss!r}.")


@app.command(name="explain", cls=_Command)
def explain_cmd(
    data: Annotated[
        Path, typer.Option(help="The table: .csv (optionally compressed) or .parquet.")
    ],
    target: Annotated[str, typer.Option(help="Target column.")],
    model: Annotated[
        Path,
        typer.Option(
            help="Saved fitted scikit-learn model: .joblib/.pkl (WARNING: loading a pickle or "
            "joblib file executes code from it; only load files you trust) or .skops (safer; "
            "needs `pip install skops`)."
        ),
    ],
    features: Annotated[
        list[str] | None,
        typer.Option(
            help="Model input columns, comma-separated (default: the columns a model fitted on a DataFrame was fitted on, in fitted order, the table's other columns left out; else all but the target). Given in another order, they are put in the fitted order."
        ),
    ] = None,
    methods: Annotated[
        list[str] | None,
        typer.Option(help="Comma-separated: pfi, sage, pd, ice, ale, hstat, interactions (default: the fast set pfi, sage, pd, ice, ale; hstat (Friedman's H-statistic) and interactions (Shapley interactions of the loss game) are opt-in: slow on wide tables)."),
    ] = None,
    pd_features: Annotated[
        list[str] | None,
        typer.Option(
            help="Features for PD/ICE (default: the 3 most important by PFI, else the first 3)."
        ),
    ] = None,
    n_repeats: Annotated[int, typer.Option(help="PFI repeats.")] = 5,
    grid_resolution: Annotated[int, typer.Option(help="PD grid points per feature.")] = 50,
    ice_rows: Annotated[
        int,
        typer.Option(
            help="Rows whose ICE curves are computed and written (a random subset with --seed; "
            "0: every row). PD always uses every row."
        ),
    ] = 500,
    loss: Annotated[
        str | None,
        typer.Option(
            help="Loss for pfi and sage (default: the model's score for pfi, or with --removal conditional/both, which needs a loss, zero_one or squared_error for every removal; log_loss or squared_error for sage)."
        ),
    ] = None,
    trust: Annotated[
        list[str] | None,
        typer.Option(
            help="Types to trust when loading a .skops file (see skops.io.get_untrusted_types)."
        ),
    ] = None,
    removal: Annotated[
        str,
        typer.Option(
            help="How pfi and sage remove a feature: marginal (the model's structure), "
            "conditional (drawn given the other features: data-aware) or both, side by side."
        ),
    ] = "marginal",
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("ixplain-output"),
    seed: Annotated[int, typer.Option(help="Seed (same seed, same results).")] = 0,
    progress: Annotated[
        bool, typer.Option(help="Show each method's progress on stderr (a bar per method).")
    ] = True,
    debug: Annotated[bool, typer.Option(help="Show tracebacks of errors.")] = False,
) -> None:
    """Explain a saved scikit-learn model on a table: PD, ICE, permutation importance, SAGE, ALE (and, with --methods, the H-statistic and Shapley interactions).

    WARNING: loading a pickle or joblib file executes code stored in it; only use files you trust, or save your model with skops (.skops) and load it with --trust for the types it lists.
    """

    def body() -> None:
        from ._static import ExplainConfig, run_explain
        from ._static_run import progress_shown

        if n_repeats < 1:
            raise CLIError(f"--n-repeats must be >= 1, got {n_repeats}.")
        if grid_resolution < 2:
            raise CLIError(f"--grid-resolution must be >= 2, got {grid_resolution}.")
        if removal not in ("marginal", "conditional", "both"):
            raise CLIError(
                f"--removal must be 'marginal', 'conditional' or 'both', got {removal!r}.")
        if ice_rows < 0:
            raise CLIError(f"--ice-rows must be >= 0 (0: every row), got {ice_rows}.")
        if seed < 0:  # before any computation, as ixplain stream does
            raise CLIError(f"--seed must be >= 0, got {seed}.")
        _check_loss(loss)
        _prepare_out(out)
        cfg = ExplainConfig(
            data=str(data),
            target=target,
            model=str(model),
            features=_split_given(features, "--features"),
            methods=_split_given(methods, "--methods"),
            pd_features=_split_given(pd_features, "--pd-features"),
            n_repeats=n_repeats,
            grid_resolution=grid_resolution,
            ice_rows=ice_rows,
            loss=loss,
            trust=_split(trust),
            seed=seed,
            removal=removal,
        )
        with progress_shown(progress):  # stderr only: stdout and the files do not change
            summary = run_explain(cfg, out)
        _explain_outcome(summary, out)

    _guard(debug, body)


def _explain_outcome(summary: dict[str, Any], out: Path) -> None:
    """Print what ``ixplain explain`` computed; exit 1 when a method failed.

    When every method failed nothing but ``summary.json`` and ``report.html`` (which list the
    errors) was written, and the message says so.
    """
    done = [m for m in summary["methods"] if m not in summary["failed"]]
    report = (out / "report.html").resolve()
    failed = "; ".join(f"{m}: {why}" for m, why in summary["failed"].items())
    if not done:
        typer.echo(f"ixplain: error: every method failed on {summary['settings']['model']}, "
                   f"nothing was explained: {failed} (the errors are in {report}).", err=True)
        raise typer.Exit(1)
    typer.echo(
        f"ixplain: explained {summary['settings']['model']} on {summary['settings']['rows']} "
        f"rows ({', '.join(done)})."
    )
    typer.echo(f"Report: {report}")
    if failed:
        typer.echo(f"ixplain: error: {failed} (the other methods' outputs are written to "
                   f"{out}).", err=True)
        raise typer.Exit(1)  # a method failed at run time (2 is for bad options)


@app.command(cls=_Command)
def datasets() -> None:
    """List the bundled datasets and synthetic streams (size, task, source)."""
    from ..datasets import DATASETS

    width = max(len(n) for n in DATASETS)
    typer.echo(f"{'name':<{width}}  {'task':<10}  {'rows':>6}  {'feat':>4}  drift   source")
    for info in DATASETS.values():
        drift = ",".join(str(p) for p in info.drift_points) or "-"
        typer.echo(
            f"{info.name:<{width}}  {info.task:<10}  {info.n_rows:>6}  {info.n_features:>4}  "
            f"{drift:<6}  {info.source} [{info.license}]"
        )
    typer.echo("Use one with: ixplain stream --dataset NAME")


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``ixplain`` console script and ``python -m ixplain``."""
    app(args=argv if argv is not None else sys.argv[1:], prog_name="ixplain")


# ``ixplain compare`` (its options and body live in _compare)
from ._compare import make_compare_command  # noqa: E402

app.command(name="compare", cls=_Command)(
    make_compare_command(_guard, _prepare_out, _split, _split_given))
