"""The user guide's command-line page (docs/user_guide/cli.rst, where the README's command-line
section moved) says what ``ixplain stream`` does: its file table names
every file the drift entry writes (``incidents.csv``/``.json`` next to ``drift_events``), and
its one-line account of the preprocessing gives the online scaling's rule and bound as
:class:`~ixplain.cli._models.OnlinePreprocessor` applies them (a floored scale and a clip,
not a plain standardisation)."""

from __future__ import annotations

import inspect
import pathlib
import re
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("river")

CLI_PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "cli.rst"


def _file_table() -> str:
    """The first list-table of the page: the files ``make demo`` writes."""
    text = CLI_PAGE.read_text()
    return text.split(".. list-table::", 1)[1].split("\n\n\n", 1)[0]


def _drift_run():
    """A run whose detector has no events: write_drift still writes every drift file."""
    from ixplain import ExplanationDriftDetector

    det = ExplanationDriftDetector()
    det.events_, det.loss_changes_ = [], []
    det.feature_names_, det._k, det.n_rows_ = ["a", "b"], 2, 100
    det._changes = []
    rows = [50, 100]
    values = np.array([[1.0, 2.0], [1.0, 2.0]])
    trace = SimpleNamespace(rows=rows, values=list(values),
                            bounds=list(np.full_like(values, 0.1)))
    return SimpleNamespace(explainers=SimpleNamespace(traces={"pfi": trace}, drift={"pfi": det}),
                           feature_names=["a", "b"])


def test_the_guide_file_table_names_every_file_the_drift_entry_writes(tmp_path):
    from ixplain.cli import _drift

    written = {p.name for p in _drift.write_drift(_drift_run(), tmp_path)}
    assert {"incidents.csv", "incidents.json"} <= written
    first_column = [row for row in _file_table().splitlines() if row.startswith("   * - ")]
    cells = {c for cell in first_column for c in re.findall(r"``([^`]+)``", cell)}
    for name in written:
        stem, ext = name.rsplit(".", 1)
        assert name in cells or (f".{ext}" in cells and any(
            c.startswith(stem + ".") for c in cells)), name


def test_the_preprocessing_line_states_the_scaling_rule_and_its_bound():
    from ixplain.cli._models import OnlinePreprocessor

    bound = inspect.signature(OnlinePreprocessor).parameters["z_bound"].default
    text = " ".join(CLI_PAGE.read_text().split(".. list-table::", 1)[0]
                    .split("Options: ``--dataset NAME``", 1)[1].split())
    assert "standardised" not in text
    assert f"``(x - mean) / max(sd, range / {bound:g})``" in text
    assert f"clipped to ±{bound:g}" in text
