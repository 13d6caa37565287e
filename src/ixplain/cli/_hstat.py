"""``ixplain explain --methods hstat``: Friedman's H-statistic of the model on the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._methods import _public
from ._writers import Table, write_frame, write_json

__all__ = ["compute_hstat", "hstat_tables", "plot_hstat", "write_hstat"]

#: Pairs listed in the report table.
_TOP_PAIRS = 10


def compute_hstat(run: Any) -> None:
    """Overall and pairwise ``H^2`` (exact for tree ensembles, else on a 300-row subsample)."""
    with run.timed("hstat"):
        run.results["hstat"] = _public("h_statistic")(run.model, run.X, random_state=run.cfg.seed)


def write_hstat(run: Any) -> list[Path]:
    """``hstat.csv`` (and ``.parquet``): the long table; ``hstat.json``: every array."""
    result = run.results.get("hstat")
    if result is None:
        return []
    files = write_frame(run.out, "hstat", result.to_frame())
    return [*files, write_json(run.out / "hstat.json", result.to_dict())]


def plot_hstat(run: Any) -> list[tuple[str, Path]]:
    result = run.results.get("hstat")
    if result is None:
        return []
    display = _public("HStatisticDisplay").from_result(result)
    path = run.out / "hstat.png"
    display.figure_.tight_layout()
    display.figure_.savefig(path, dpi=90)
    import matplotlib.pyplot as plt

    plt.close(display.figure_)
    caption = (f"Friedman's H-statistic ({result.settings['method']} method, "
               f"{result.settings['n_rows']} rows): overall H^2 per feature and pairwise H^2 of "
               "the features with the strongest overall interaction (first output).")
    return [(caption, path)]


def hstat_tables(run: Any) -> list[Table]:
    result = run.results.get("hstat")
    if result is None:
        return []
    frame = result.to_frame(output=0)
    pairs = frame[frame["feature_j"].notna()].sort_values("h2", ascending=False)
    rows = [[r.feature_i, r.feature_j, r.h2, r.unnormalized]
            for r in pairs.head(_TOP_PAIRS).itertuples()]
    if not rows:
        return []
    return [("Strongest pairwise interactions (H^2, first output)",
             ["feature", "feature", "H^2", "unnormalized"], rows)]
