"""Rows an incremental explainer skips, and the one warning that says why.

A row with NaN or +-inf in a numeric feature or its label is skipped (``nan_policy="skip"``),
refused (``"raise"``) or passed on (``"pass"``): :func:`drop_nan_rows`. A row whose
explanation is not finite is never aggregated; :func:`nonfinite_reason` says why (a NaN
label, a model returning NaN, a loss that overflowed float64). Every skip is counted in
``n_skipped_`` and warned of once per explainer (:func:`warn_skipped`); inside
``explain_many`` the warning waits for the call's end and counts every part
(:func:`skip_warning`). Each function takes the explainer.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._validation import user_stacklevel

__all__ = ["apply_nan_policy", "drop_nan_rows", "nonfinite_reason", "skip_warning",
           "warn_skipped"]


def drop_nan_rows(
    explainer: Any, cols: dict[str, np.ndarray], y: np.ndarray | None, B: int
) -> tuple[dict[str, np.ndarray], np.ndarray | None, np.ndarray | None]:
    """Drop (``"skip"``) or reject (``"raise"``) rows with NaN; returns the kept columns,
    labels and the mask of kept rows (None: all kept)."""
    if explainer.nan_policy == "pass":
        return cols, y, None
    assert explainer._schema is not None
    bad = np.zeros(B, dtype=bool)
    first_bad = None
    numeric = [n for n, k in zip(explainer._schema.names, explainer._schema.kinds) if k == "numeric"]
    stacked = getattr(cols, "matrix", None)
    if stacked is None or not np.isfinite(stacked).all():
        for name in numeric:
            nan = ~np.isfinite(cols[name])
            if nan.any():
                bad |= nan
                first_bad = first_bad or f"feature {name!r}"
    if y is not None and y.dtype.kind == "f":
        nan = (~np.isfinite(y)).reshape(B, -1).any(axis=1)  # (B,) or (B, n_outputs) labels
        if nan.any():
            bad |= nan
            first_bad = first_bad or "the label y"
    if not bad.any():
        return cols, y, None
    if explainer.nan_policy == "raise":
        raise_nan(explainer, cols, y, int(np.argmax(bad)), numeric)
    explainer.n_skipped_ += int(bad.sum())
    warn_skipped(explainer, "nan", f"NaN or infinite values (first in {first_bad})", int(bad.sum()), B)
    good = ~bad
    return {k: v[good] for k, v in cols.items()}, None if y is None else y[good], good


def raise_nan(explainer: Any, cols: dict[str, np.ndarray], y: np.ndarray | None, i: int,
               numeric: list[str]) -> None:
    """The ``nan_policy='raise'`` error for row ``i`` of the part, the first bad one:
    names its first bad value and the row (of the caller's batch, and of the stream)."""
    what = next((f"feature {n!r}" for n in numeric if not np.isfinite(cols[n][i])),
                "the label y")
    start = explainer.__dict__.get("_batch_start")
    stream_row = explainer.n_seen_ + i
    where = (f"batch row {stream_row - start} (stream row {stream_row})"
             if start is not None else f"the observation (stream row {stream_row})")
    raise ValueError(f"{explainer._owner}: {what} is NaN or infinite in {where} "
                     "(nan_policy='raise'; use nan_policy='skip' to skip such rows).")



def warn_skipped(explainer: Any, kind: str, reason: str, n: int, B: int) -> None:
    """The warning of skipped rows (once per explainer): ``n`` of a part's ``B`` rows
    were skipped for ``reason`` (of sort ``kind``: ``"nan"`` inputs or ``"values"`` not
    finite). Inside :meth:`explain_many` it is kept for the call's one warning
    (:func:`skip_warning`), whose count covers every part of the call (the call is cut
    in parts of ``max_batch`` rows, at a drift detector's check rows, at iALE's re-grid
    rows); elsewhere (:meth:`explain_one`, a drift detector's own copies) it is issued
    at once."""
    if explainer._warned:
        return
    deferred = explainer.__dict__.get("_deferred")
    if deferred is not None:
        if kind not in deferred:  # (rebound, not changed: a failing part's undo drops it)
            explainer.__dict__["_deferred"] = {**deferred, kind: reason}
        return
    explainer._warned = True
    warnings.warn(f"{explainer._owner}: {n} of {B} observation(s) skipped ({reason}); "
                  "n_skipped_ counts them.", RuntimeWarning, stacklevel=user_stacklevel())


def skip_warning(explainer: Any, start: tuple[int, int]) -> None:
    """After :meth:`explain_many` (also when a later part raised): one warning of the
    rows the call skipped (NaN inputs, explanations not finite), kept by :func:`warn_skipped`,
    with the number ``n_skipped_`` counted for the call (``start``: ``n_skipped_`` and
    ``n_seen_`` before it) out of the rows it took, and the first reason of each sort."""
    reasons = explainer.__dict__.pop("_deferred", None)
    k = explainer.n_skipped_ - start[0]
    if reasons and k > 0 and not explainer._warned:
        explainer._warned = True
        warnings.warn(
            f"{explainer._owner}: {k} of {explainer.n_seen_ - start[1]} observation(s) of this call "
            f"skipped ({'; '.join(reasons.values())}); n_skipped_ counts them.",
            RuntimeWarning, stacklevel=user_stacklevel())


def nonfinite_reason(explainer: Any, y: np.ndarray | None, bad: np.ndarray, rows: Any,
                      losses: np.ndarray | None) -> str:
    """Why the explanations of the batch rows ``bad`` (mask, shape (B,)) are not finite,
    for the warning (:func:`warn_skipped`, which adds the count): a NaN or infinite label; else,
    from the first such row (stream index ``rows[i]``) and the model's own loss
    ``losses`` a method reported (shape (B,)): an infinite loss of finite values
    overflowed float64 (e.g. squared error of ``y = 1e200``); a NaN one, or no loss at
    all (iPDP, iALE), means the model returned NaN; with a finite one, a perturbed copy's
    prediction or loss was not finite. With a ``label_free`` drift detector the labels
    may be the model's own predictions: the text calls them "the label", not "y"."""
    free = bool(getattr(explainer.__dict__.get("drift_detector"), "label_free", False))
    y_name = "label" if free else "y"  # (in |prediction - y|)
    if _nan_labels(y, bad):
        return f"a NaN or infinite label{'' if free else ' y'}"
    head = "explanations that were not finite"
    i = int(np.flatnonzero(bad)[0])
    big = "|label|" if free else "|y|"
    rescale = (f"rescale {'the labels and' if free else 'y (and'} the model's outputs"
               f"{'' if free else ')'} to units where {big} < 1e100, e.g. thousands "
               "instead of units")
    if getattr(explainer, "_loss", None) is None:
        return f"{head} (does the model return NaN or inf?)"
    if losses is None or np.isnan(losses[i]):
        return (f"{head}, first at stream row {rows[i]}: the model returned NaN, or the "
                f"loss overflowed float64 (|prediction - {y_name}| too large to square); "
                f"if {big} is large, {rescale}")
    value = None if y is None else np.asarray(y[i]).tolist()
    y_text = "" if y is None else (f" with label {value!r}" if free else f" with y = {value!r}")
    if np.isinf(losses[i]):
        return (f"{head}: the loss overflowed float64 at stream row {rows[i]} (the loss "
                f"of the model's prediction{y_text} is inf: |prediction - {y_name}| is too "
                f"large to square, or the prediction itself is infinite); {rescale}")
    return (f"{head}, first at stream row {rows[i]}{y_text}: the loss of a perturbed copy "
            f"overflowed float64 or the model returned NaN for it; if {big} or the "
            f"predictions are large, {rescale}")


def apply_nan_policy(
    explainer: Any, cols: dict[str, np.ndarray], y: np.ndarray | None, B: int
) -> tuple[dict[str, np.ndarray], np.ndarray | None, int]:
    """:func:`drop_nan_rows` with the number of kept rows instead of their mask."""
    cols, y, good = drop_nan_rows(explainer, cols, y, B)
    return cols, y, B if good is None else int(good.sum())


def _nan_labels(y: np.ndarray | None, rows: np.ndarray) -> bool:
    """Whether one of ``rows`` has a NaN or infinite numeric label."""
    if y is None:
        return False
    try:
        return not np.isfinite(np.asarray(y[rows], dtype=np.float64)).all()
    except (TypeError, ValueError):  # class labels
        return False
