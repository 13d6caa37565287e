"""Fixtures for the command-line tests (helpers live in ``_cli_helpers``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest


@pytest.fixture(scope="session")
def bike_csv(tmp_path_factory) -> Path:
    """The first 600 rows of the bundled bike-sharing stream as a CSV file."""
    from ixplain.datasets import load_bike_sharing

    path = tmp_path_factory.mktemp("data") / "bike600.csv"
    load_bike_sharing().head(600).to_csv(path, index=False)
    return path


@pytest.fixture(scope="session")
def small_frame() -> pd.DataFrame:
    from ixplain.datasets import load_bike_sharing

    return load_bike_sharing().head(600)
