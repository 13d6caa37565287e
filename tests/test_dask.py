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


# ------------------------------------------------------------------ permutation importance
from ixplain import permutation_importance  # noqa: E402
from ixplain.dask import permutation_importance as dask_permutation_importance  # noqa: E402


@pytest.fixture(scope="module")
def linear_frame():
    rng = np.random.default_rng(1)
    n = 4000
    X = pd.DataFrame({"a": rng.normal(0, 1, n), "b": rng.normal(0, 2, n), "c": rng.normal(0, 1, n)})
    return X.assign(y=3 * X["a"] - X["b"] + rng.normal(0, 0.1, n))


def linear(X):
    return 3 * X["a"].to_numpy() - X["b"].to_numpy()


def test_pfi_linear_closed_form(linear_frame):
    """For f(x) = sum beta_j x_j, squared error, replacing x_j by an independent copy x'_j adds
    E[(beta_j (x_j - x'_j))^2] = 2 beta_j^2 Var(x_j) to the loss: 2*9*1 = 18, 2*1*4 = 8, 0.
    Per draw, beta^2 (x - x')^2 = beta^2 * 2 Var * chi2_1 has standard deviation
    sqrt(2) * 2 beta^2 Var = sqrt(2) * expected; the standard error used below,
    sqrt(8) * expected / sqrt(n * n_repeats), is twice that (draws of one row share x), and the
    test allows 5 of them (plus 2% for the noise term)."""
    ddf = dd.from_pandas(linear_frame, npartitions=4)
    r = dask_permutation_importance(linear, ddf, "y", loss="squared_error", n_repeats=4,
                                    background_size=2000, random_state=0)
    expected = np.array([18.0, 8.0, 0.0])
    se = np.array([18.0, 8.0, 0.0]) * np.sqrt(8) / np.sqrt(len(linear_frame) * 4)
    assert r.feature_names == ["a", "b", "c"]
    assert np.all(np.abs(r.importances_mean - expected) <= 5 * se + 0.02 * expected)
    assert np.all(r.importances[2] == 0.0)  # an ignored feature is exactly 0
    assert r.importances.shape == (3, 4)


def test_pfi_deterministic_and_scheduler_free(linear_frame):
    import dask

    ddf = dd.from_pandas(linear_frame, npartitions=3)
    kw = dict(loss="squared_error", n_repeats=2, background_size=300, random_state=7)
    with dask.config.set(scheduler="sync"):
        a = dask_permutation_importance(linear, ddf, "y", **kw)
    with dask.config.set(scheduler="threads"):
        b = dask_permutation_importance(linear, ddf, "y", **kw)
    np.testing.assert_array_equal(a.importances, b.importances)
    c = dask_permutation_importance(linear, ddf, "y", **{**kw, "random_state": 8})
    assert not np.array_equal(a.importances, c.importances)


def test_pfi_agrees_with_static_permutation_importance():
    """Same quantity in expectation: the loss increase under marginal replacement. A
    classifier with log loss; tolerance from the repeat-to-repeat spread."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(3)
    n = 3000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n)})
    y = (X["a"] * X["b"] + 0.5 * X["a"] + rng.normal(0, 0.3, n) > 0).astype(int)
    clf = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(X, y)
    static = permutation_importance(clf, X, y, loss="log_loss", n_repeats=10, random_state=0)
    ddf = dd.from_pandas(X.assign(target=y), npartitions=4)
    dist = dask_permutation_importance(clf, ddf, "target", loss="log_loss", n_repeats=10,
                                       background_size=n, random_state=0)
    tol = 4 * np.sqrt(static.importances_std**2 + dist.importances_std**2) / np.sqrt(10) + 0.01
    assert np.all(np.abs(static.importances_mean - dist.importances_mean) <= tol)
    assert dist.importances_mean[0] > dist.importances_mean[2]


def test_pfi_bad_input(linear_frame):
    ddf = dd.from_pandas(linear_frame, npartitions=2)
    with pytest.raises(TypeError, match="'ddf' parameter"):
        dask_permutation_importance(linear, linear_frame, "y", loss="squared_error")
    with pytest.raises(ValueError, match="target column 'label'"):
        dask_permutation_importance(linear, ddf, "label", loss="squared_error")
    with pytest.raises(ValueError, match=r"unknown feature\(s\) \['z'\].*Available features"):
        dask_permutation_importance(linear, ddf, "y", loss="squared_error", features=["z"])
    with pytest.raises(ValueError, match="'n_repeats' parameter"):
        dask_permutation_importance(linear, ddf, "y", loss="squared_error", n_repeats=0)
    with pytest.raises(ValueError, match="'loss' parameter"):
        dask_permutation_importance(linear, ddf, "y", loss="hinge")


# --- QA: messy inputs get clear errors, never silent NaN -----------------------------------
def _qa_frame():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(80, 2)), columns=["a", "b"])
    df["y"] = 2 * df["a"]
    return df


def _qa_model(X):
    return 2 * np.asarray(X["a"], dtype=float)


def test_qa_pfi_target_with_nan_or_inf_is_rejected():
    from ixplain.dask import permutation_importance as dask_pfi

    for bad in (np.nan, np.inf):
        df = _qa_frame()
        df.loc[50, "y"] = bad
        with pytest.raises(ValueError, match="target column 'y'.*(NaN|infinite)"):
            dask_pfi(_qa_model, dd.from_pandas(df, npartitions=4), "y", loss="squared_error")


def test_qa_pfi_target_given_as_series_is_a_type_error():
    from ixplain.dask import permutation_importance as dask_pfi

    ddf = dd.from_pandas(_qa_frame(), npartitions=2)
    with pytest.raises(TypeError, match="'y' parameter"):
        dask_pfi(_qa_model, ddf.drop(columns="y"), ddf["y"], loss="squared_error")


def test_qa_pd_grid_resolution_is_validated_like_the_single_machine_function():
    ddf = dd.from_pandas(_qa_frame(), npartitions=2)
    with pytest.raises(ValueError, match="'grid_resolution' parameter"):
        dask_partial_dependence(_qa_model, ddf.drop(columns="y"), "a", grid_resolution=1)
    with pytest.raises(ValueError, match="'percentiles' parameter"):
        dask_partial_dependence(_qa_model, ddf.drop(columns="y"), "a", percentiles=(0.9, 0.1))
