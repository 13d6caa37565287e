"""``ixplain explain --methods interactions``: Shapley interactions of the loss game (k-SII)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ._methods import _public
from ._writers import Table, write_frame, write_json

if TYPE_CHECKING:
    from ._static_run import Image, StaticRun

__all__ = ["compute_interactions", "interaction_tables", "plot_interactions", "write_interactions"]

#: Rows explained by ``interactions`` (a seeded subsample of the table): the exact enumeration
#: costs ``(2^d - 1) * n_samples + 1`` model rows per explained row.
INTERACTION_ROWS = 256


def compute_interactions(run: StaticRun) -> None:
    """k-SII of the loss game on a seeded subsample of at most INTERACTION_ROWS rows."""
    from .._random import keyed_generator

    loss = run.cfg.loss or ("log_loss" if run.is_classifier else "squared_error")
    n = len(run.X)
    rows = np.arange(n)
    if n > INTERACTION_ROWS:
        rng = keyed_generator(int(run.cfg.seed), "cli", "interactions")
        rows = np.sort(rng.choice(n, INTERACTION_ROWS, replace=False))
    with run.timed("interactions"):
        run.results["interactions"] = _public("shapley_interactions")(
            run.model, run.X.iloc[rows], run.y[rows], loss=loss, random_state=run.cfg.seed
        )


def write_interactions(run: StaticRun) -> list[Path]:
    """``interactions.csv`` (long: feature_i, feature_j, value, std) and ``.json``."""
    res = run.results.get("interactions")
    if res is None:
        return []
    files = write_frame(run.out, "interactions", res.to_frame())
    return [*files, write_json(run.out / "interactions.json", res.to_dict())]


def plot_interactions(run: StaticRun) -> list[Image]:
    """``interactions.png``: the pair heatmap with the main terms on the diagonal."""
    res = run.results.get("interactions")
    display = _public("InteractionHeatmapDisplay")
    if res is None or display is None:
        return []
    from matplotlib.figure import Figure

    size = 1.2 + 0.55 * len(res.feature_names)
    fig = Figure(figsize=(size + 1.5, size))
    display.from_result(res, ax=fig.subplots(), fmt=".2g")
    fig.tight_layout()
    path = run.out / "interactions.png"
    fig.savefig(path, dpi=90)
    caption = (
        f"Shapley interactions ({res.index}) of the loss game on {res.settings['n_observations']}"
        " rows: pairs off the diagonal, main terms on it; * = the +-2 standard error interval "
        "excludes 0."
    )
    return [(caption, path)]


def interaction_tables(run: StaticRun) -> list[Table]:
    """The report table of the 10 strongest pairs."""
    res = run.results.get("interactions")
    if res is None:
        return []
    idx = {n: i for i, n in enumerate(res.feature_names)}
    rows = [
        [a, b, f"{v:.4g}", f"{res.pair_std[idx[a], idx[b]]:.2g}"]
        for a, b, v in res.top_pairs(10)
    ]
    return [(f"Strongest pairs ({res.index})", ["feature i", "feature j", "value", "std"], rows)]
