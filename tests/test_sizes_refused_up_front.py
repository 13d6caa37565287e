"""Work that would not end is refused before any model call, naming the size: exact Shapley
interactions on 20 features, reservoirs of 10**12 rows, a PD grid of an identifier or a datetime
column."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")
from ixplain import partial_dependence

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))


def test_shapley_interactions_exact_on_20_features_is_refused_up_front():
    """method='exact' on 20 features ran for hours (2^20 coalitions per row): now an error
    naming the model rows it would need; 'auto' still runs."""
    from ixplain import shapley_interactions
    from ixplain.methods.interactions import MAX_EXACT_MODEL_ROWS

    X = np.random.default_rng(0).normal(size=(50, 20))
    with pytest.raises(ValueError, match=r"16,777,201 model rows per observation") as info:
        shapley_interactions(lambda A: np.asarray(A).sum(1), X, X.sum(1),
                             loss="squared_error", method="exact")
    assert f"{MAX_EXACT_MODEL_ROWS:,}" in str(info.value)


def test_pd_refuses_grids_that_would_not_end():
    """An identifier column (n levels on n rows: n^2 model rows) and a datetime column (every
    timestamp a level) are refused before any model call, naming the feature and the fix; a
    categorical column within the limit keeps its levels."""
    import pandas as pd

    from ixplain.grids import MAX_LEVELS

    n = MAX_LEVELS + 1
    df = pd.DataFrame({"id": [f"u{i}" for i in range(n)],
                       "t": pd.date_range("2020-01-01", periods=n, freq="min"),
                       "c": [f"c{i % 7}" for i in range(n)], "x": np.arange(n, dtype=float)})
    calls = []

    def f(d):
        calls.append(len(d))
        return d["x"].to_numpy()

    with pytest.raises(ValueError, match=r"feature 'id' has 1,001 distinct levels .*custom_values"):
        partial_dependence(f, df, "id")
    with pytest.raises(ValueError, match=r"feature 't' holds dates or datetimes \(dtype datetime64"):
        partial_dependence(f, df, "t")
    assert calls == []
    assert len(partial_dependence(f, df, "c").grid_values[0]) == 7
    few = partial_dependence(f, df, "id", custom_values={"id": ["u1", "u2"]})
    assert list(few.grid_values[0]) == ["u1", "u2"]


def test_impossible_sizes_are_refused_up_front_with_the_bytes():
    """Issue 15 item 9: these allocated (or swapped) for minutes before a raw MemoryError."""
    from ixplain import (
        ConditionalStorage,
        GeometricReservoir,
        IncrementalPDP,
        SlidingWindow,
        UniformReservoir,
    )

    # a buffer that cannot hold one feature is refused at construction (ConditionalStorage
    # was not: it took the size and failed at its first update)
    for storage in (UniformReservoir, GeometricReservoir, SlidingWindow, ConditionalStorage):
        with pytest.raises(MemoryError, match=rf"{storage.__name__}\(size=1,000,000,000,000\) "
                           r"for 1 feature would need 7,450.6 GiB \(8,000,000,000,000 bytes\), "
                           r"more than the .* GiB"):
            storage(size=10**12)
    with pytest.raises(ValueError, match="'grid_resolution' parameter of IncrementalPDP must be "
                                         "at most 10,000"):
        IncrementalPDP(lambda A: A[:, 0], "x0", grid_resolution=10**7)
    IncrementalPDP(lambda A: A[:, 0], "x0", grid_resolution=10_000)  # the bound itself is fine
