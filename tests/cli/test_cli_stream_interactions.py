"""``ixplain stream --explain interactions``: the files equal the library's explainer fed the
same prequential loop, the report draws the pairs over time, and it is not on by default."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("river")
pytest.importorskip("typer")
pytest.importorskip("matplotlib")

SEED = 2
ALPHA = 0.05
N_ROWS = 160
EVERY = 40
BATCH = 16
FEATURES = ["hour", "temp", "workingday", "humidity"]


@pytest.fixture(scope="module")
def stream_out(bike_csv, tmp_path_factory):
    from ixplain.cli import main

    out = tmp_path_factory.mktemp("stream-interactions")
    with pytest.raises(SystemExit) as info:
        main(["stream", "--data", str(bike_csv), "--target", "count",
              "--features", ",".join(FEATURES), "--explain", "interactions",
              "--alpha", str(ALPHA), "--every", str(EVERY), "--n-rows", str(N_ROWS),
              "--seed", str(SEED), "--out", str(out), "--no-progress"])
    assert info.value.code in (0, None)
    return out


def _library_run(bike_csv):
    """The CLI's loop with the public API: mini-batches of BATCH rows that never cross a
    snapshot row, explained with the model before it learns them; a snapshot every EVERY rows."""
    from ixplain import IncrementalShapleyInteractions
    from ixplain.cli._data import split_kinds
    from ixplain.cli._models import make_river_model
    from ixplain.datasets import iter_frame

    frame = pd.read_csv(bike_csv).head(N_ROWS)[[*FEATURES, "count"]]
    numeric, categorical = split_kinds(frame, FEATURES)
    model = make_river_model("hoeffding-tree", "regression", numeric, categorical, SEED)
    explainer = IncrementalShapleyInteractions(
        model, loss="squared_error", feature_names=FEATURES, alpha=ALPHA, random_state=SEED,
        nan_policy="pass")
    rows = list(iter_frame(frame, "count"))
    snapshots = {}
    for block in range(0, N_ROWS, EVERY):
        for s in range(block, block + EVERY, BATCH):
            chunk = rows[s: min(s + BATCH, block + EVERY)]
            explainer.explain_many([x for x, _ in chunk], [y for _, y in chunk])
            for x, y in chunk:
                model.learn_one(x, y)
        if explainer.n_explained_:
            snapshots[block + EVERY] = (explainer.importances_.copy(),
                                        explainer.standard_errors().copy())
    return explainer, snapshots


def test_stream_interactions_equal_the_library(stream_out, bike_csv):
    explainer, snapshots = _library_run(bike_csv)
    table = pd.read_csv(stream_out / "interactions_over_time.csv")
    assert list(table.columns) == ["row", "feature_i", "feature_j", "value", "variance", "std"]
    assert sorted(set(table["row"])) == sorted(snapshots)
    G = len(FEATURES)
    assert len(table) == len(snapshots) * (G + G * (G - 1) // 2)
    for row, (values, std) in snapshots.items():
        got = table[table["row"] == row]
        np.testing.assert_allclose(got["value"], values, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got["std"], std, rtol=1e-10, atol=1e-12)
    final = json.loads((stream_out / "interactions.json").read_text())["final"]
    want = explainer.to_result().to_dict()
    assert final["feature_names"] == want["feature_names"] == FEATURES
    np.testing.assert_allclose(np.asarray(final["pair_values"], dtype=float),
                               np.asarray(want["pair_values"], dtype=float), atol=1e-12)


def test_stream_interactions_report_and_summary(stream_out):
    summary = json.loads((stream_out / "summary.json").read_text())
    assert summary["settings"]["methods"] == "interactions"
    files = set(summary["files"])
    assert {"interactions_over_time.csv", "interactions.json",
            "interactions_over_time.png"} <= files
    html = (stream_out / "report.html").read_text()
    assert "interactions_over_time.png" in html or "Shapley interactions" in html
    assert "Strongest pairs at the end of the stream (k-SII)" in html
    assert (stream_out / "interactions_over_time.png").stat().st_size > 0


def test_interactions_are_opt_in():
    from ixplain.cli._stream import StreamConfig, _choose_methods
    from ixplain.cli._stream_methods import STREAM_METHODS

    methods, skipped = _choose_methods(StreamConfig())
    assert "interactions" not in methods and "interactions" not in skipped
    assert methods == [m for m in STREAM_METHODS if m != "interactions"]
    assert _choose_methods(StreamConfig(explain=["pfi", "interactions"]))[0] == [
        "pfi", "interactions"]
