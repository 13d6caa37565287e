"""``ixplain stream --explain interactions``: Shapley interactions of the loss game over a stream.

One :class:`~ixplain.IncrementalShapleyInteractions` (k-SII, the run's ``alpha`` and seed, the
``"interactions"`` loss: squared error for regression, Brier for a binary target) is fed the
same mini-batches as the other explainers. Every ``--every`` rows the current main and pair
terms, their per-row variances and standard errors are recorded; the run writes them as
``interactions_over_time.csv``/``.parquet`` (long: row, feature_i, feature_j, value, variance,
std; main terms with ``feature_j == feature_i``) and ``interactions.json`` (the final estimate),
and the report draws the strongest pairs over stream time with confidence bands
(:class:`~ixplain.InteractionTraceDisplay`) and lists them in a table.

Not run by default (the cost per row grows with ``2^d`` coalitions up to 6 features, then the
permutation estimator's ``2 d`` per row): ask for it with ``--explain interactions``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._methods import DELTA, _public
from ._writers import Table, write_frame, write_json

if TYPE_CHECKING:
    from ._stream_run import ExplainerOptions, StreamExplainers, StreamRun

__all__ = ["build_interactions", "interaction_tables", "plot_interactions",
           "snapshot_interactions", "write_interactions"]

_KEY = "interactions"
#: Pairs drawn over time and listed in the report table.
_TOP = 5


def build_interactions(ex: StreamExplainers, method: str, klass: Any, model: Any,
                       options: ExplainerOptions) -> None:
    """The incremental Shapley interaction explainer of the run (k-SII)."""
    loss = options.loss
    ex.explainers[_KEY] = klass(
        model, loss=loss.get(_KEY, "squared_error") if isinstance(loss, dict) else loss,
        feature_names=list(options.feature_names), alpha=options.alpha,
        random_state=options.seed, nan_policy=options.nan_policy,
        history_every=options.every,
    )
    ex.snapshots[_KEY] = []


def snapshot_interactions(ex: StreamExplainers, key: str, explainer: Any, row: int) -> None:
    """``(row, values, variances, standard errors)`` once the explainer has explained a row."""
    if explainer.n_explained_ == 0:  # still warming up its storage
        return
    ex.snapshots[_KEY].append((row, np.array(explainer.importances_, dtype=np.float64),
                               np.array(explainer.variances_, dtype=np.float64),
                               np.array(explainer.standard_errors(), dtype=np.float64)))


def _series(run: StreamRun) -> tuple[Any, np.ndarray] | None:
    """The snapshots as an ``InteractionTimeSeries`` and their standard errors, or None."""
    snaps = run.explainers.snapshots.get(_KEY, [])
    explainer = run.explainers.explainers.get(_KEY)
    if not snaps or explainer is None:
        return None
    ts = _public("InteractionTimeSeries")(
        np.array([s[0] for s in snaps], dtype=np.int64), np.array([s[1] for s in snaps]),
        np.array([s[2] for s in snaps]), list(explainer.players_), explainer.index,
        {"aggregation": explainer.aggregation, "alpha": explainer.alpha},
    )
    return ts, np.array([s[3] for s in snaps])


def write_interactions(run: StreamRun, out: Path) -> list[Path]:
    """``interactions_over_time.csv`` (and ``.parquet``) and ``interactions.json``."""
    got = _series(run)
    if got is None:
        return []
    ts, std = got
    frame = ts.to_frame().rename(columns={"n_seen": "row"})
    frame["std"] = std.reshape(-1)
    final = run.explainers.explainers[_KEY].to_result()
    payload = {"over_time": ts.to_dict(), "final": final.to_dict()}
    return [*write_frame(out, "interactions_over_time", frame),
            write_json(out / "interactions.json", payload)]


def plot_interactions(run: StreamRun, out: Path) -> list[tuple[str, Path]]:
    """``interactions_over_time.png``: the strongest pairs over the stream, with bands."""
    got = _series(run)
    if got is None:
        return []
    from matplotlib.figure import Figure

    ts = got[0]
    fig = Figure(figsize=(9.0, 3.6), layout="constrained")
    ax = fig.subplots()
    _public("InteractionTraceDisplay").from_result(
        ts, top=_TOP, delta=DELTA, drift_points=run.known_drift_seen or None, ax=ax)
    ax.set_title(f"Shapley interactions ({ts.index}) of the loss over the stream")
    path = out / "interactions_over_time.png"
    fig.savefig(path, dpi=90)
    caption = (f"Shapley interactions ({ts.index}) of the loss game over the stream: the "
               f"{_TOP} strongest pairs, with {1 - DELTA:.0%} bands; dashed: known change "
               "points.")
    return [(caption, path)]


def interaction_tables(run: StreamRun) -> list[Table]:
    """The strongest pairs at the end of the run, with their standard errors."""
    explainer = run.explainers.explainers.get(_KEY)
    if explainer is None or explainer.n_explained_ == 0:
        return []
    res = explainer.to_result()
    idx = {n: i for i, n in enumerate(res.feature_names)}
    rows = [[a, b, f"{v:.4g}", f"{res.pair_std[idx[a], idx[b]]:.2g}"]
            for a, b, v in res.top_pairs(10)]
    return [(f"Strongest pairs at the end of the stream ({res.index})",
             ["feature i", "feature j", "value", "std"], rows)]
