"""compare() on Dask collections: gathered with their column names, so the result equals
compare() on the pandas frames (also for reordered columns and a pandas/Dask mix)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain import compare

dd = pytest.importorskip("dask.dataframe")

rng = np.random.default_rng(0)
X = rng.normal(size=(120, 3))
y = X @ np.array([2.0, 1.0, 0.0])
df = pd.DataFrame(X, columns=["a", "b", "c"])


def model_a(d):
    return 2 * d["a"].to_numpy() + d["b"].to_numpy()


def model_b(d):
    return 2 * d["a"].to_numpy() + d["c"].to_numpy()


def _frame(res):
    return res.to_frame()[["feature", "a", "b", "delta"]]


def test_dask_frame_keeps_names_and_equals_pandas():
    ref = compare(model_a, df, y, model_b=model_b, random_state=0)
    got = compare(model_a, dd.from_pandas(df, npartitions=3),
                  dd.from_pandas(pd.Series(y), npartitions=3), model_b=model_b, random_state=0)
    assert got.importance["pfi"].features == ["a", "b", "c"]
    pd.testing.assert_frame_equal(_frame(got), _frame(ref))


def test_reordered_dask_columns_are_fed_by_name():
    # the models read columns by name: the reordered frame gives the same importances
    ref = compare(model_a, df, y, model_b=model_b, random_state=0)
    got = compare(model_a, dd.from_pandas(df[["c", "a", "b"]], npartitions=3), y,
                  model_b=model_b, random_state=0)
    assert got.importance["pfi"].features == ["c", "a", "b"]
    exp = ref.to_frame().set_index("feature").loc[["c", "a", "b"], ["a", "b", "delta"]]
    np.testing.assert_allclose(got.to_frame()[["a", "b", "delta"]].to_numpy(),
                               exp.to_numpy(), atol=0.5)
    assert got.importance["pfi"].a[0] == 0.0  # c does not enter model a


def test_pandas_and_dask_sides_mix():
    half = df.iloc[60:].reset_index(drop=True)
    ref = compare(model_a, df, y, X_b=half, y_b=y[60:], random_state=0)
    got = compare(model_a, df, y, X_b=dd.from_pandas(half, npartitions=2),
                  y_b=dd.from_pandas(pd.Series(y[60:]), npartitions=2), random_state=0)
    pd.testing.assert_frame_equal(_frame(got), _frame(ref))
