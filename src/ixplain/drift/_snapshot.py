"""Copies of an explainer for the two channels: a frozen model snapshot and a reference probe."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._random import keyed_generator
from ..storage import DatasetStorage

__all__ = [
    "Capture", "detached_copy", "pd_curves", "pseudo_labels", "reference_predictions",
    "reference_values", "value_labels",
]


class Capture:
    """A picklable ``_on_values`` hook that keeps the last chunk's values, mask, reported
    per-row losses (None if the method reported none) and core restarts (iPDP)."""

    losses: np.ndarray | None = None  # (absent from captures pickled before it was reported)
    restarts: Any = ()  # (likewise)

    def __init__(self) -> None:
        self.values: np.ndarray | None = None
        self.ok: np.ndarray | None = None
        self.losses = None
        self.restarts = ()

    def __call__(self, values: Any, ok: np.ndarray, rows: Any, cols: Any, y: Any,
                 losses: np.ndarray | None = None, restarts: Any = ()) -> None:
        self.values, self.ok, self.losses, self.restarts = values, ok, losses, restarts


def detached_copy(explainer: Any, *, keep_storage: bool = True) -> Any:
    """A deep copy of ``explainer`` (its model frozen as it is now) without the drift hook,
    the detector, the history (and the storage unless ``keep_storage``)."""
    memo: dict[int, Any] = {}
    hook = explainer.__dict__.get("_on_values")
    for obj in (hook, getattr(explainer, "drift_detector", None),
                explainer.__dict__.get("_observers")):  # (a copy publishes to no observer)
        if obj is not None:
            memo[id(obj)] = None
    if not keep_storage:
        memo[id(explainer.storage)] = None
    memo[id(explainer.history_)] = None
    undo = explainer.__dict__.get("_undo")  # (a copy made inside a part: not its undo)
    if undo is not None:
        memo[id(undo)] = None
    clone = copy.deepcopy(explainer, memo)
    for transient in ("_undo", "_batch_start", "_resume_as", "_deferred", "_observers"):
        clone.__dict__.pop(transient, None)  # (of the call under way; the observers)
    # the explainer's own warning covers the rows its copies skip (and names them as the
    # user gave them: a label-free copy's labels are the model's predictions)
    clone._warned = True
    clone._on_values = None
    clone.history_every = 0
    clone.history_ = type(explainer.history_)(maxlen=1)
    return clone


def value_labels(explainer: Any, k: int) -> tuple[list[str], int]:
    """Names of the first watched value columns and how many there are (iSAGE values end with
    the two losses, which are not watched)."""
    named = getattr(explainer, "_drift_value_names", None)
    if named is not None:  # iPDP: summaries of the ICE curve
        return named(k), k
    players = getattr(explainer, "players_", None)
    names = [str(p) for p in (players if players is not None else explainer.feature_names_)]
    if len(names) == k or (players is not None and len(names) == k - 2):
        return names, len(names)
    return [f"value[{i}]" for i in range(k)], k


def pseudo_labels(model: Any, table: Any) -> np.ndarray:
    """The model's predicted labels (classes for classifiers): the labels of label-free mode."""
    pred = np.asarray(model.predict(table))
    classes = model.classes_
    method = model.response_method
    if classes is None or len(classes) < 2 or method in ("predict", "predict_one"):
        return pred
    if pred.ndim == 2:
        return np.asarray(classes, dtype=object)[pred.argmax(axis=1)]
    cut = 0.0 if method == "decision_function" else 0.5
    return np.where(pred > cut, classes[1], classes[0])


def reference_predictions(explainer: Any, cols: dict[str, np.ndarray]) -> np.ndarray:
    """The explainer's *current* model's outputs on the reference rows, flattened to
    ``(n * n_outputs,)`` floats (one batched model call; the model channel's screen)."""
    pred = np.asarray(explainer._model.predict(explainer._make_table(cols)))
    try:
        return pred.astype(np.float64).reshape(-1)
    except (TypeError, ValueError):  # class labels: compare them as codes
        _, codes = np.unique(pred.astype(str), return_inverse=True)
        return codes.astype(np.float64).reshape(-1)


def reference_values(
    explainer: Any, cols: dict[str, np.ndarray], y: np.ndarray | None, seed: int,
    label_free: bool, fixed: dict[str, Any],
) -> np.ndarray:
    """Per-row values ``(n, k)`` of the explainer's *current* model on the reference rows,
    with the reference rows as perturbation data (conditional removal: the explainer's
    conditional storage as it was at the first call) and draws fixed by ``seed`` (the same
    draws at every call, so two calls differ only where the model differs). ``fixed`` keeps
    what must not change between calls (iPDP: the grid, taken at the first call; conditional
    removal: that storage)."""
    import pandas as pd

    probe = detached_copy(explainer, keep_storage=False)
    if hasattr(probe, "_use_grid"):
        fixed["grid"] = probe._use_grid(fixed.get("grid"))
    if hasattr(explainer.storage, "segments"):
        # conditional removal: the explainer's stream storage (its trees and pools) frozen at
        # the first call, a copy of it at every call (the same draws while the model is fixed)
        if "storage" not in fixed:
            fixed["storage"] = copy.deepcopy(explainer.storage)
        probe.storage = copy.deepcopy(fixed["storage"])
    else:
        probe.storage = DatasetStorage(pd.DataFrame({k: v for k, v in cols.items()}))
    # the same draws at every call: the probe's row streams restart at row 0 from one seed
    ref_seed = int(keyed_generator(seed, "reference").integers(2**62))
    probe._streams = type(explainer._streams)(ref_seed)
    probe.n_seen_ = 0
    capture = Capture()
    probe._on_values = capture
    n = len(next(iter(cols.values())))
    if label_free:
        y = pseudo_labels(probe._model, probe._make_table(cols))
    out = []
    for s in range(0, n, probe.max_batch):
        part = {k: v[s : s + probe.max_batch] for k, v in cols.items()}
        probe._process(part, None if y is None else y[s : s + probe.max_batch], False)
        assert capture.values is not None
        out.append(capture.values)
    if "grid" in fixed and fixed["grid"] is not None:  # iPDP: the PD on the reference rows
        fixed["curve"] = probe._current()[1:3]
    return np.concatenate(out)


def pd_curves(explainer: Any, cols: dict[str, np.ndarray], grid: Any) -> tuple[Any, Any]:
    """The PD curve (mean ICE curve, shape (n_outputs, n_grid)) of ``explainer``'s model on
    the rows ``cols`` at the grid values ``grid``, and its standard error."""
    probe = detached_copy(explainer, keep_storage=False)
    probe._use_grid(grid)
    n = len(next(iter(cols.values())))
    for s in range(0, n, probe.max_batch):
        probe._process({k: v[s : s + probe.max_batch] for k, v in cols.items()}, None)
    return probe._current()[1:3]
