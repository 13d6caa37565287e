"""``ixplain stream``: the prequential loop (predict, score, explain, learn) over a stream."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import numpy as np
import pandas as pd

from ..datasets import DATASETS, iter_frame, load_dataset
from ._alpha import check_alpha
from ._data import infer_task, read_table, select_columns, split_kinds
from ._errors import CLIError
from ._methods import available
from ._models import DATASET_MODELS, DEFAULT_MODELS, make_river_model
from ._stream_methods import integer_pd_options
from ._stream_run import STREAM_METHODS, ExplainerOptions, StreamConfig, StreamExplainers, StreamRun

__all__ = ["StreamConfig", "StreamRun", "default_alpha", "run_stream"]

#: Features whose PD curves the default run draws, per bundled dataset.
DEFAULT_PD_FEATURES = {
    "bike": ("hour", "temp"),
    "rainfall": ("dew_point", "visibility"),
    "agrawal": ("salary", "age"),
    "agrawal-drift": ("salary", "age"),
    "adult": ("age", "hours-per-week"),
    "california": ("MedInc", "AveOccup"),
}
#: Loss of each importance (and interaction) explainer per task (``--loss`` overrides all). For binary targets
#: PFI uses the 0-1 loss (accuracy drop, the iPFI paper's choice) and SAGE the Brier score on
#: P(positive class) (SAGE scores the loss of an averaged prediction, which needs probabilities).
DEFAULT_LOSS = {
    "regression": {"pfi": "squared_error", "sage": "squared_error",
                   "interactions": "squared_error"},
    "binary": {"pfi": "zero_one", "sage": "brier", "interactions": "brier"},
}


#: Most rows of a synthetic stream (``--dataset agrawal``), which is generated up front.
MAX_SYNTHETIC_ROWS = 1_000_000


def default_alpha(n_rows: int) -> float:
    """Smoothing factor: ``10 / n_rows`` clipped to [0.001, 0.05] (a memory of ~n_rows/10 rows).

    Examples
    --------
    >>> default_alpha(17379), default_alpha(1000)
    (0.001, 0.01)
    """
    return float(min(0.05, max(0.001, round(10.0 / max(n_rows, 1), 6))))


def _load_source(cfg: StreamConfig) -> tuple[pd.DataFrame, str, str, str, list[int]]:
    """(frame with features then target, target, task, source description, known drift)."""
    if cfg.data is not None:
        if not cfg.target:
            raise CLIError("--data needs --target COLUMN (the column to predict).")
        frame = read_table(cfg.data)
        frame, target = select_columns(frame, cfg.target, cfg.features, cfg.data)
        task = infer_task(frame, target, cfg.task, cfg.data)
        return frame, target, task, str(cfg.data), []
    name = cfg.dataset or "bike"
    if name not in DATASETS:
        raise CLIError(
            f"unknown dataset {name!r}; choose one of: {', '.join(DATASETS)} "
            "(or pass --data FILE --target COLUMN)."
        )
    info = DATASETS[name]
    kwargs: dict[str, Any] = {}
    if info.synthetic:
        kwargs["seed"] = cfg.seed
        if cfg.n_rows is not None:
            if cfg.n_rows > MAX_SYNTHETIC_ROWS:
                raise CLIError(
                    f"--n-rows {cfg.n_rows:,}: the synthetic stream {name!r} is generated in "
                    f"memory before the run; at most {MAX_SYNTHETIC_ROWS:,} rows."
                )
            kwargs["n_rows"] = cfg.n_rows
    frame = load_dataset(name, **kwargs)
    target = cfg.target or info.target
    frame, target = select_columns(frame, target, cfg.features, f"dataset {name!r}")
    task = infer_task(frame, target, cfg.task or info.task, f"dataset {name!r}")
    return frame, target, task, f"{name}: {info.title}", list(info.drift_points)


def _choose_methods(cfg: StreamConfig) -> tuple[list[str], list[str]]:
    """(methods to run, default methods unavailable in this build): ``--explain``, else the
    available registry entries with ``default=True`` (``interactions`` is opt-in)."""
    have = available(STREAM_METHODS)
    if cfg.explain is None:
        defaults = [m for m in STREAM_METHODS if STREAM_METHODS[m].default]
        return [m for m in defaults if have[m]], [m for m in defaults if not have[m]]
    for m in cfg.explain:
        if m not in STREAM_METHODS:
            raise CLIError(
                f"unknown method {m!r} for --explain; choose from: {', '.join(STREAM_METHODS)}."
            )
        if not have[m]:
            raise CLIError(
                f"method {m!r} is not available in this build of ixplain "
                f"(ixplain.{STREAM_METHODS[m].needs} is missing)."
            )
    if "drift" in cfg.explain and not {"pfi", "sage"} & set(cfg.explain):
        raise CLIError(
            "--explain drift watches the per-row values of iPFI or iSAGE; add one of them, "
            "e.g. --explain pfi,drift."
        )
    return list(dict.fromkeys(cfg.explain)), []


def _check_method_needs(cfg: StreamConfig, methods: list[str], names: list[str]) -> None:
    """Options the methods cannot use, before the run: interactions of a single feature
    (``CLIError``), ``--pd-features`` without pdp or ale (a warning: it would be ignored)."""
    if "interactions" in methods and len(names) < 2:
        raise CLIError(
            f"--explain interactions needs at least 2 features; the stream has {len(names)} "
            f"({', '.join(names)}): add features or leave interactions out."
        )
    if cfg.pd_features and not {"pdp", "ale"} & set(methods):
        warnings.warn(
            "--pd-features is ignored: it picks the features of pdp and ale, and --explain "
            f"has neither ({', '.join(methods)}).",
            UserWarning,
            stacklevel=2,
        )


def _pd_features(cfg: StreamConfig, frame: pd.DataFrame, names: list[str],
                 numeric: list[str], methods: list[str]) -> list[str]:
    """The features of pdp and ale: ``--pd-features`` (each a feature; no column of dates or
    durations for pdp: :func:`_date_column`), else the dataset's defaults, else the first two
    numeric features, else the first feature that holds no dates (none, with a warning, when
    every feature does). Checked before the run: iPDP refused a date column only at its
    first row, after the model had been called (exit code 1)."""
    dates = {f: found for f in names if (found := _date_column(frame[f])) is not None}
    if cfg.pd_features:
        for f in cfg.pd_features:
            if f not in names:
                raise CLIError(
                    f"--pd-features: {f!r} is not a feature; features: {', '.join(names)}."
                )
            if f in dates and "pdp" in methods:
                noun, what = dates[f]
                raise CLIError(
                    f"--pd-features: {f!r} holds {noun} ({what}); pdp (iPDP) cannot put them "
                    "on a grid (it would get one grid value per distinct value, without end). "
                    "Store the column as a number in the file (e.g. seconds since the first "
                    "date) or pick another feature.")
            many = _too_many_levels(frame[f]) if "pdp" in methods else None
            if many is not None:
                raise CLIError(f"--pd-features: {f!r} {many}")
        return list(cfg.pd_features)
    defaults = DEFAULT_PD_FEATURES.get(cfg.dataset or "", ()) if cfg.data is None else ()
    chosen = [f for f in defaults if f in names] or numeric[:2] or [
        f for f in names if f not in dates and _too_many_levels(frame[f]) is None][:1]
    if not chosen:
        warnings.warn(
            f"--explain {'/'.join(m for m in methods if m in ('pdp', 'ale'))}: no feature to "
            f"explain, every feature holds dates or durations ({', '.join(dates)}) or text "
            f"of more than {MAX_PD_LEVELS} levels; store one as a number in the file to "
            "explain it.", UserWarning, stacklevel=2)
    return chosen


#: Distinct values of a text column above which ``ixplain stream`` refuses it for pdp: iPDP's
#: grid of a categorical feature holds every level seen, so a column of IDs or of dates
#: written as text (a CSV's) gives one grid value per row and output that grows with the
#: square of the rows (QA: 200 rows, 20,101 lines of pd.csv).
MAX_PD_LEVELS = 100


def _too_many_levels(column: pd.Series) -> str | None:
    """Why a text (object, string or category) column cannot be pdp's feature, or None: more
    than :data:`MAX_PD_LEVELS` distinct values (named as dates when the first ones read as
    ISO 8601 dates)."""
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return None
    if pd.api.types.is_datetime64_any_dtype(column.dtype) or column.dtype.kind == "m":
        return None  # (dates: _date_column)
    n = int(column.nunique(dropna=True))
    if n <= MAX_PD_LEVELS:
        return None
    sample = column.dropna().astype(str).head(20)
    try:
        pd.to_datetime(sample, format="ISO8601")
        what = ("holds dates written as text (e.g. " f"{sample.iloc[0]!r}); store them as a "
                "number (e.g. seconds since the first date) to explain them")
    except (ValueError, TypeError):
        what = "is a text column; pick a feature with fewer levels, or a number"
    return (f"has {n:,} distinct values (at most {MAX_PD_LEVELS} for pdp, whose grid of a "
            f"categorical feature holds every level seen): it {what}.")


def _date_column(column: pd.Series) -> tuple[str, str] | None:
    """``(noun, how it showed it)`` for a column of dates, datetimes, durations or periods
    (:func:`~ixplain._validation.date_sort`: a datetime64/timedelta64/period dtype, or
    date objects), e.g. ``("dates or datetimes", "dtype datetime64[us]")``; None otherwise."""
    from .._validation import _DATE_TEXT, date_sort

    found = date_sort(column.tolist() if column.dtype == object else (), column.dtype)
    return None if found is None else (_DATE_TEXT[found[0]][0], found[1])


@dataclass
class _Setup:
    """A stream run before its first row: the data, the model and the explainers."""

    frame: pd.DataFrame
    target: str
    task: str
    source: str
    known_drift: list[int]
    names: list[str]
    model_name: str
    model: Any
    methods: list[str]
    skipped: list[str]
    alpha: float
    every: int
    losses: dict[str, str]
    explainers: StreamExplainers
    dropped: list[str] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return int(self.frame.shape[0])


def _setup(cfg: StreamConfig) -> _Setup:
    if cfg.data is None and cfg.dataset is None:
        cfg.dataset = "bike"
    frame, target, task, source, known_drift = _load_source(cfg)
    if cfg.n_rows is not None:
        frame = frame.iloc[: cfg.n_rows]
    frame = _infinite_as_missing(frame, target)
    frame, dropped = _drop_empty_columns(frame, target)
    names = [c for c in frame.columns if c != target]
    numeric, categorical = split_kinds(frame, names)
    frame = _missing_as_none(frame, categorical)
    n_total = int(frame.shape[0])
    dataset_default = DATASET_MODELS.get(cfg.dataset or "") if cfg.data is None else None
    model_name = cfg.model or dataset_default or DEFAULT_MODELS[task]
    model = make_river_model(model_name, task, numeric, categorical, cfg.seed)
    methods, skipped = _choose_methods(cfg)
    alpha = cfg.alpha if cfg.alpha is not None else default_alpha(n_total)
    check_alpha(cfg.alpha, n_total)  # warns when far below 1/rows (cli/_alpha.py)
    every = cfg.every if cfg.every is not None else max(1, n_total // 200)
    if cfg.loss in ("log_loss", "brier", "zero_one") and task == "regression":
        raise CLIError(f"--loss {cfg.loss} needs a binary target; this one is a regression "
                       "target (use squared_error or absolute_error, or --task binary).")
    losses = dict.fromkeys(DEFAULT_LOSS[task], cfg.loss) if cfg.loss else dict(DEFAULT_LOSS[task])
    _check_method_needs(cfg, methods, names)
    pd_features = (_pd_features(cfg, frame, names, numeric, methods)
                   if {"pdp", "ale"} & set(methods) else [])
    options = ExplainerOptions(
        loss=losses,
        feature_names=names,
        pd_features=pd_features,
        pd_options={f: integer_pd_options(frame[f]) for f in pd_features if f in numeric},
        numeric_features=tuple(numeric),
        alpha=alpha,
        seed=cfg.seed,
        grid_resolution=cfg.grid_resolution,
        sage_samples=cfg.sage_samples,
        removal=cfg.removal,
        every=every,
    )
    explainers = StreamExplainers.build(methods, model, options)
    return _Setup(frame, target, task, source, known_drift, names, model_name, model,
                  methods, skipped, alpha, every, losses, explainers, dropped)  # fmt: skip


def _infinite_as_missing(frame: pd.DataFrame, target: str) -> pd.DataFrame:
    """Infinite feature values become missing values (with a warning naming the columns): the
    online scaler would learn an infinite mean from them and every later prediction would be
    wrong. An infinite target is an error naming the first row."""
    import numpy as np

    numeric = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
    counts = {c: int(np.isinf(frame[c].to_numpy()).sum()) for c in numeric}
    if counts.get(target):
        row = int(np.flatnonzero(np.isinf(frame[target].to_numpy()))[0])
        raise CLIError(f"the target column {target!r} is infinite in {counts[target]} row(s) "
                       f"(first: row {row}); remove or fix those rows.")
    bad = {c: n for c, n in counts.items() if n and c != target}
    if not bad:
        return frame
    warnings.warn(
        "infinite values are treated as missing: "
        + ", ".join(f"{c!r} ({n} row(s))" for c, n in bad.items()) + ".",
        UserWarning,
        stacklevel=2,
    )
    frame = frame.copy()
    for c in bad:
        frame[c] = frame[c].replace([np.inf, -np.inf], np.nan)
    return frame


def _missing_as_none(frame: pd.DataFrame, categorical: Sequence[str]) -> pd.DataFrame:
    """A missing value of a string (categorical) column becomes None in the records, not the
    NaN pandas gives: a NaN in the first row made the explainers take the column as numeric
    (nan_policy 'pass' stores that row), and its first string stopped the run."""
    missing = [c for c in categorical if frame[c].isna().any()]
    if not missing:
        return frame
    frame = frame.copy()
    for c in missing:
        frame[c] = frame[c].astype(object).where(frame[c].notna(), None)
    return frame


def _drop_empty_columns(frame: pd.DataFrame, target: str) -> tuple[pd.DataFrame, list[str]]:
    """Leave out feature columns with no value at all (with a warning): nothing can be learnt
    from them or explained about them."""
    empty = [c for c in frame.columns if c != target and frame[c].isna().all()]
    if not empty:
        return frame, []
    if len(empty) == frame.shape[1] - 1:
        raise CLIError("every feature column is empty (all values missing); nothing to explain.")
    warnings.warn(
        f"column(s) {', '.join(map(repr, empty))} have no value (every row is missing) and are "
        "left out.",
        UserWarning,
        stacklevel=2,
    )
    return frame.drop(columns=empty), empty


@dataclass
class _Prequential:
    """The model's prequential metric (predict, score, then learn) and ADWIN on its error.

    ``rows_seen`` counts the rows learnt so far (the rows whose metric is recorded).
    """

    task: str
    n_rows: int
    rows_seen: int = 0
    per_row: np.ndarray = field(init=False)
    window: int = field(init=False)
    recent: deque[float] = field(init=False)
    detector: Any = field(default_factory=lambda: _drift_detector())
    detected: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.per_row = np.full(self.n_rows, np.nan)
        self.window = int(min(1000, max(10, self.n_rows // 20)))
        self.recent = deque(maxlen=self.window)

    @property
    def metric_name(self) -> str:
        return "MAE" if self.task == "regression" else "accuracy"

    def learn(self, model: Any, chunk: list[tuple[dict[str, Any], Any]], offset: int) -> None:
        """Each row of ``chunk`` (stream rows ``offset``, ...): predict, score, then learn."""
        for i, (x, y) in enumerate(chunk):
            y_pred = model.predict_one(x)
            if self.task == "regression":
                value = abs(float(y) - float(y_pred if y_pred is not None else 0.0))
                err = value
            else:
                value = 1.0 if y_pred == y else 0.0
                err = 1.0 - value
            self.per_row[offset + i] = value
            self.recent.append(value)
            if self.detector is not None:
                self.detector.update(err)
                if self.detector.drift_detected:
                    self.detected.append(offset + i)
            model.learn_one(x, y)
        self.rows_seen = offset + len(chunk)


def run_stream(cfg: StreamConfig, *, on_update: Callable[[StreamRun], None] | None = None,
               update_seconds: float = 2.0) -> StreamRun:
    """Run the prequential loop; on Ctrl-C or SIGTERM return what was computed
    (``interrupted=True``).

    ``on_update`` (the live report) gets the run as it stands between two mini-batches: after
    the first one, then at most every ``update_seconds`` (time-based, not per row)."""
    with _sigterm_as_interrupt():  # during start-up: "interrupted", exit 130, as Ctrl-C
        setup = _setup(cfg)
    metric = _Prequential(setup.task, setup.n_rows)
    bar = _progress(setup.n_rows, cfg.progress)
    start = time.perf_counter()
    interrupted = False
    tick = None if on_update is None else _Ticker(
        lambda: on_update(_stream_run(cfg, setup, metric, metric.rows_seen,
                                      time.perf_counter() - start, False)), update_seconds)
    try:
        with _sigterm_as_interrupt():
            _loop(setup, metric, max(1, int(cfg.batch_size)), bar, tick)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    seen = metric.rows_seen
    if seen > 0 and setup.explainers.last_snapshot_row() != seen:
        setup.explainers.snapshot(seen)
    return _stream_run(cfg, setup, metric, seen, time.perf_counter() - start, interrupted)


class _Ticker:
    """Calls ``action`` at the first :meth:`__call__`, then when ``seconds`` have passed."""

    def __init__(self, action: Callable[[], None], seconds: float) -> None:
        self.action, self.seconds, self.due = action, float(seconds), 0.0

    def __call__(self) -> None:
        now = time.monotonic()
        if now >= self.due:
            self.action()
            self.due = time.monotonic() + self.seconds


def _loop(setup: _Setup, metric: _Prequential, batch: int, bar: Any,
          tick: Callable[[], None] | None = None) -> None:
    """Explain each mini-batch, then learn it row by row (``metric.rows_seen`` counts them);
    ``tick`` after each mini-batch."""
    every, n_total = setup.every, setup.n_rows
    stream = iter_frame(setup.frame, setup.target)
    while metric.rows_seen < n_total:
        before = metric.rows_seen
        # a batch never crosses a snapshot row, so snapshots fall on multiples of `every`
        chunk = list(islice(stream, min(batch, every - before % every)))
        if not chunk:
            break
        # 1. explain the mini-batch with the model as it is now (it has not seen these rows;
        #    one batched model call per explainer)
        setup.explainers.explain_many([x for x, _ in chunk], [y for _, y in chunk])
        # 2. strictly prequential for each row: predict, score, then learn (the explainers
        #    published their snapshots to the run's recorders: StreamExplainers)
        metric.learn(setup.model, chunk, before)
        now = metric.rows_seen
        if bar is not None:
            bar.update(len(chunk))
            if now // 256 > before // 256:
                text = f"rolling {metric.metric_name}={np.mean(metric.recent):.3g}"
                bar.set_postfix_str(text, refresh=False)
        if tick is not None:
            tick()


def _stream_run(
    cfg: StreamConfig,
    setup: _Setup,
    metric: _Prequential,
    rows_seen: int,
    seconds: float,
    interrupted: bool,
) -> StreamRun:
    methods = setup.methods
    losses = {m: setup.losses[m] for m in methods if m in setup.losses}
    return StreamRun(
        config=cfg,
        source=setup.source,
        task=setup.task,
        target=setup.target,
        model_name=setup.model_name,
        model_repr=_model_repr(setup.model),
        loss=", ".join(f"{m}: {loss}" for m, loss in losses.items()) or "-",
        losses=losses,
        alpha=setup.alpha,
        every=setup.every,
        methods=methods,
        feature_names=setup.names,
        explainers=setup.explainers,
        metric_name=metric.metric_name,
        per_row_metric=metric.per_row,
        rolling_window=metric.window,
        known_drift=setup.known_drift,
        detected_drift=metric.detected,
        rows_seen=rows_seen,
        n_rows_total=setup.n_rows,
        seconds=seconds,
        interrupted=interrupted,
        skipped_methods=setup.skipped,
        frame_sample=setup.frame.head(5),
        dropped_columns=setup.dropped,
    )


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM (``kill``, a job scheduler's stop) stops the loop as Ctrl-C
    does, so the rows computed so far are written; the previous handler comes back after."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _drift_detector() -> Any:
    try:
        from river import drift
    except ImportError:  # pragma: no cover
        return None
    return drift.ADWIN()


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is in the cli extra
        return None
    return tqdm(
        total=total,
        unit=" rows",
        file=sys.stderr,
        mininterval=0.5,
        dynamic_ncols=True,
        desc="ixplain stream",
    )


def _model_repr(model: Any) -> str:
    return repr(model)
