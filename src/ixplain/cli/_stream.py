"""``ixplain stream``: the prequential loop (predict, score, explain, learn) over a stream."""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import numpy as np
import pandas as pd

from ..datasets import DATASETS, iter_frame, load_dataset
from ._data import infer_task, read_table, select_columns, split_kinds
from ._errors import CLIError
from ._methods import INCREMENTAL_CLASSES, StreamExplainers, available
from ._models import DEFAULT_MODELS, make_river_model

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
#: Loss of each importance explainer per task (``--loss`` overrides both). For binary targets
#: PFI uses the 0-1 loss (accuracy drop, the iPFI paper's choice) and SAGE the Brier score on
#: P(positive class) (SAGE scores the loss of an averaged prediction, which needs probabilities).
DEFAULT_LOSS = {
    "regression": {"pfi": "squared_error", "sage": "squared_error"},
    "binary": {"pfi": "zero_one", "sage": "brier"},
}


def default_alpha(n_rows: int) -> float:
    """Smoothing factor: ``10 / n_rows`` clipped to [0.001, 0.05] (a memory of ~n_rows/10 rows).

    Examples
    --------
    >>> default_alpha(17379), default_alpha(1000)
    (0.001, 0.01)
    """
    return float(min(0.05, max(0.001, round(10.0 / max(n_rows, 1), 6))))


@dataclass
class StreamConfig:
    """Settings of one ``ixplain stream`` run (the CLI options, validated)."""

    dataset: str | None = "bike"
    data: str | None = None
    target: str | None = None
    task: str | None = None
    model: str | None = None
    explain: Sequence[str] | None = None
    features: Sequence[str] | None = None
    pd_features: Sequence[str] | None = None
    alpha: float | None = None
    every: int | None = None
    n_rows: int | None = None
    loss: str | None = None
    seed: int = 0
    grid_resolution: int = 20
    sage_samples: int | None = None
    batch_size: int = 16
    progress: bool = True


@dataclass
class StreamRun:
    """Everything a stream run produced, ready to be written."""

    config: StreamConfig
    source: str
    task: str
    target: str
    model_name: str
    model_repr: str
    loss: str
    losses: dict[str, str]
    alpha: float
    every: int
    methods: list[str]
    feature_names: list[str]
    explainers: StreamExplainers
    metric_name: str
    per_row_metric: np.ndarray
    rolling_window: int
    known_drift: list[int]
    detected_drift: list[int]
    rows_seen: int
    n_rows_total: int
    seconds: float
    interrupted: bool = False
    skipped_methods: list[str] = field(default_factory=list)
    frame_sample: pd.DataFrame | None = None

    @property
    def rolling_metric(self) -> np.ndarray:
        v = self.per_row_metric[: self.rows_seen]
        if len(v) == 0:
            return v
        c = np.cumsum(np.insert(v, 0, 0.0))
        w = self.rolling_window
        idx = np.arange(1, len(v) + 1)
        lo = np.maximum(idx - w, 0)
        return (c[idx] - c[lo]) / (idx - lo)


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
            kwargs["n_rows"] = cfg.n_rows
    frame = load_dataset(name, **kwargs)
    target = cfg.target or info.target
    frame, target = select_columns(frame, target, cfg.features, f"dataset {name!r}")
    task = infer_task(frame, target, cfg.task or info.task, f"dataset {name!r}")
    return frame, target, task, f"{name}: {info.title}", list(info.drift_points)


def _choose_methods(cfg: StreamConfig) -> tuple[list[str], list[str]]:
    have = available("incremental")
    if cfg.explain is None:
        methods = [m for m in INCREMENTAL_CLASSES if have[m]]
        return methods, [m for m in INCREMENTAL_CLASSES if not have[m]]
    methods = []
    for m in cfg.explain:
        if m not in INCREMENTAL_CLASSES:
            raise CLIError(
                f"unknown method {m!r} for --explain; choose from: {', '.join(INCREMENTAL_CLASSES)}."
            )
        if not have[m]:
            raise CLIError(
                f"method {m!r} is not available in this build of ixplain "
                f"(ixplain.{INCREMENTAL_CLASSES[m]} is missing)."
            )
        methods.append(m)
    return list(dict.fromkeys(methods)), []


def _pd_features(cfg: StreamConfig, names: list[str], numeric: list[str]) -> list[str]:
    if cfg.pd_features:
        for f in cfg.pd_features:
            if f not in names:
                raise CLIError(
                    f"--pd-features: {f!r} is not a feature; features: {', '.join(names)}."
                )
        return list(cfg.pd_features)
    defaults = DEFAULT_PD_FEATURES.get(cfg.dataset or "", ()) if cfg.data is None else ()
    chosen = [f for f in defaults if f in names]
    return chosen or (numeric[:2] if numeric else names[:1])


def run_stream(cfg: StreamConfig) -> StreamRun:
    """Run the prequential loop; on Ctrl-C return what was computed (``interrupted=True``)."""
    if cfg.data is None and cfg.dataset is None:
        cfg.dataset = "bike"
    frame, target, task, source, known_drift = _load_source(cfg)
    if cfg.n_rows is not None:
        frame = frame.iloc[: cfg.n_rows]
    names = [c for c in frame.columns if c != target]
    numeric, categorical = split_kinds(frame, names)
    n_total = int(frame.shape[0])
    model_name = cfg.model or DEFAULT_MODELS[task]
    model = make_river_model(model_name, task, numeric, categorical, cfg.seed)
    methods, skipped = _choose_methods(cfg)
    alpha = cfg.alpha if cfg.alpha is not None else default_alpha(n_total)
    every = cfg.every if cfg.every is not None else max(1, n_total // 200)
    losses = (
        {"pfi": cfg.loss, "sage": cfg.loss} if cfg.loss else dict(DEFAULT_LOSS[task])
    )
    loss = ", ".join(f"{m}: {losses[m]}" for m in methods if m in losses) or "-"
    pd_feats = _pd_features(cfg, names, numeric) if "pdp" in methods else []
    explainers = StreamExplainers.build(
        methods,
        model,
        loss=losses,
        feature_names=names,
        pd_features=pd_feats,
        alpha=alpha,
        seed=cfg.seed,
        grid_resolution=cfg.grid_resolution,
        sage_samples=cfg.sage_samples,
    )
    metric_name = "MAE" if task == "regression" else "accuracy"
    window = int(min(1000, max(10, n_total // 20)))
    per_row = np.full(n_total, np.nan)
    detector = _drift_detector()
    detected: list[int] = []
    recent: deque[float] = deque(maxlen=window)
    bar = _progress(n_total, cfg.progress)
    start = time.perf_counter()
    rows_seen = 0
    interrupted = False
    batch = max(1, int(cfg.batch_size))
    stream = iter_frame(frame, target)
    try:
        while rows_seen < n_total:
            # a batch never crosses a snapshot row, so snapshots fall on multiples of `every`
            chunk = list(islice(stream, min(batch, every - rows_seen % every)))
            if not chunk:
                break
            xs = [x for x, _ in chunk]
            ys = [y for _, y in chunk]
            # 1. explain the mini-batch with the model as it is now (it has not seen these
            #    rows; one batched model call per explainer)
            explainers.explain_many(xs, ys)
            # 2. strictly prequential for each row: predict, score, then learn
            for i, (x, y) in enumerate(chunk):
                y_pred = model.predict_one(x)
                if task == "regression":
                    value = abs(float(y) - float(y_pred if y_pred is not None else 0.0))
                    err = value
                else:
                    value = 1.0 if y_pred == y else 0.0
                    err = 1.0 - value
                per_row[rows_seen + i] = value
                recent.append(value)
                if detector is not None:
                    detector.update(err)
                    if detector.drift_detected:
                        detected.append(rows_seen + i)
                model.learn_one(x, y)
            before = rows_seen
            rows_seen += len(chunk)
            if rows_seen // every > before // every:
                explainers.snapshot(rows_seen)
            if bar is not None:
                bar.update(len(chunk))
                if rows_seen // 256 > before // 256:
                    bar.set_postfix_str(f"rolling {metric_name}={np.mean(recent):.3g}", refresh=False)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    traces = explainers.traces.values()
    if rows_seen > 0 and not any(t.rows and t.rows[-1] == rows_seen for t in traces):
        explainers.snapshot(rows_seen)
    return StreamRun(
        config=cfg,
        source=source,
        task=task,
        target=target,
        model_name=model_name,
        model_repr=_model_repr(model),
        loss=loss,
        losses={m: losses[m] for m in methods if m in losses},
        alpha=alpha,
        every=every,
        methods=methods,
        feature_names=names,
        explainers=explainers,
        metric_name=metric_name,
        per_row_metric=per_row,
        rolling_window=window,
        known_drift=known_drift,
        detected_drift=detected,
        rows_seen=rows_seen,
        n_rows_total=n_total,
        seconds=time.perf_counter() - start,
        interrupted=interrupted,
        skipped_methods=skipped,
        frame_sample=frame.head(5),
    )


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
