"""`ixplain stream` on a CSV whose string column is empty in its first row (QA session 9)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _cli_helpers import run_main

pytest.importorskip("river")
pytest.importorskip("typer")


def test_stream_a_csv_whose_string_column_starts_empty(tmp_path, capsys):
    """Row 0 of 'c' is empty (NaN once read): the run used to stop at the first string
    (rc=1, an empty output folder); now it explains every row, 'c' among the features."""
    rng = np.random.default_rng(0)
    n = 200
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                       "c": rng.choice(["x", "y"], size=n)})
    df["y"] = 2 * df.a + df.b + (df.c == "x")
    df.loc[0, "c"] = np.nan
    df.to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "out"
    rc, _, err = run_main(capsys, "stream", "--data", str(tmp_path / "t.csv"), "--target", "y",
                          "--out", str(out), "--explain", "pfi", "--no-progress")
    assert rc == 0, err
    assert set(pd.read_csv(out / "importances.csv").feature) == {"a", "b", "c"}
    rows = json.loads((out / "summary.json").read_text())["rows_explained"]["pfi"]
    assert rows == {"seen": n, "explained": n - 1, "skipped": 0}  # row 0: nothing stored yet
