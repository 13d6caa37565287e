"""The Dask path equals the single-machine computation on the concatenated data."""

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

from ixplain import partial_dependence  # noqa: E402
from ixplain.dask import partial_dependence as dask_partial_dependence  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.uniform(-2, 2, size=n),
            "c": pd.Categorical(rng.choice(["x", "y", "z"], size=n)),
            "k": rng.integers(0, 5, size=n),
        }
    )
    w = rng.uniform(0.1, 2.0, size=n)
    return df, w


def model(X):
    """A non-additive function of all columns (the PD depends on the whole joint sample)."""
    c = X["c"].map({"x": 0.0, "y": 1.0, "z": -1.0}).astype(float).to_numpy()
    return np.sin(X["a"].to_numpy()) * X["b"].to_numpy() + c * X["k"].to_numpy() + X["a"] ** 2


@pytest.mark.parametrize("npartitions", [1, 5])
@pytest.mark.parametrize("features", ["a", "c", "k", ["a", "b"], ["c", "k"]])
def test_equals_single_machine(data, npartitions, features):
    df, _ = data
    ddf = dd.from_pandas(df, npartitions=npartitions)
    ref = partial_dependence(model, df, features, grid_resolution=12)
    got = dask_partial_dependence(model, ddf, features, grid_resolution=12)
    for g_ref, g in zip(ref.grid_values, got.grid_values):
        np.testing.assert_array_equal(np.asarray(g_ref), np.asarray(g))
    assert got.average.shape == ref.average.shape
    np.testing.assert_allclose(got.average, ref.average, rtol=0, atol=1e-12)
    assert got.individual is None and got.n_rows == len(df)


def test_weights_and_centering_equal_single_machine(data):
    df, w = data
    ddf = dd.from_pandas(df.assign(weight=w), npartitions=5)
    ref = partial_dependence(model, df, "b", sample_weight=w, grid_resolution=9, centered=True)
    got = dask_partial_dependence(model, ddf, "b", sample_weight="weight", grid_resolution=9,
                                  centered=True)
    np.testing.assert_allclose(got.average, ref.average, rtol=0, atol=1e-12)
    assert got.centered and np.all(got.average[:, 0] == 0)


def test_sklearn_pipeline_on_partitions(data):
    from sklearn.compose import make_column_transformer
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    df, _ = data
    y = model(df)
    pipe = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["c"]), remainder="passthrough"),
        RandomForestRegressor(n_estimators=10, max_depth=4, random_state=0),
    ).fit(df, y)
    ddf = dd.from_pandas(df, npartitions=3)
    ref = partial_dependence(pipe, df, ["a", "c"], grid_resolution=6)
    got = dask_partial_dependence(pipe, ddf, ["a", "c"], grid_resolution=6)
    np.testing.assert_allclose(got.average, ref.average, rtol=0, atol=1e-12)


def test_bad_input(data):
    df, _ = data
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(TypeError, match="'ddf' parameter"):
        dask_partial_dependence(model, df, "a")
    with pytest.raises(ValueError, match=r"unknown feature 'nope'.*Available features"):
        dask_partial_dependence(model, ddf, "nope")
    with pytest.raises(ValueError, match="sample_weight column 'w'"):
        dask_partial_dependence(model, ddf, "a", sample_weight="w")
    with pytest.raises(ValueError, match="'method' parameter"):
        dask_partial_dependence(model, ddf, "a", method="fast")
    with pytest.raises(ValueError, match="0 rows"):
        dask_partial_dependence(model, dd.from_pandas(df.iloc[:0], npartitions=1), "a")
