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


@pytest.mark.parametrize("npartitions", [1, 3, 7])
@pytest.mark.parametrize("features", ["a", "c", "k", ["a", "b"], ["c", "k"]])
def test_equals_single_machine(data, npartitions, features):
    df, _ = data
    ddf = dd.from_pandas(df, npartitions=npartitions)
    ref = partial_dependence(model, df, features, grid_resolution=12)
    got = dask_partial_dependence(model, ddf, features, grid_resolution=12)
    for g_ref, g in zip(ref.grid_values, got.grid_values):
        np.testing.assert_array_equal(np.asarray(g_ref), np.asarray(g))
    assert got.average.shape == ref.average.shape
    np.testing.assert_allclose(got.average, ref.average, rtol=0, atol=1e-10)
    assert got.individual is None and got.n_rows == len(df)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_ice_curves_equal_single_machine(data, npartitions):
    df, _ = data
    ref = partial_dependence(model, df, ["a", "k"], grid_resolution=6, kind="both")
    got = dask_partial_dependence(model, dd.from_pandas(df, npartitions=npartitions), ["a", "k"],
                                  grid_resolution=6, kind="both")
    assert got.individual.shape == ref.individual.shape == (1, len(df), 6, 5)
    np.testing.assert_allclose(got.individual, ref.individual, rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.average, ref.average, rtol=0, atol=1e-10)
    only = dask_partial_dependence(model, dd.from_pandas(df, npartitions=npartitions), "b",
                                   grid_resolution=4, kind="individual")
    assert only.average is None and only.individual.shape == (1, len(df), 4)


def test_tree_method_equals_single_machine(data):
    from sklearn.ensemble import HistGradientBoostingRegressor

    df, _ = data
    X = df[["a", "b", "k"]]
    est = HistGradientBoostingRegressor(max_iter=20, random_state=0).fit(X, model(df))
    ref = partial_dependence(est, X, ["a", "k"], grid_resolution=7)
    got = dask_partial_dependence(est, dd.from_pandas(X, npartitions=3), ["a", "k"],
                                  grid_resolution=7)
    assert got.method == ref.method == "tree"
    np.testing.assert_allclose(got.average, ref.average, rtol=0, atol=1e-10)


def test_pd_progress(data):
    df, _ = data
    ddf = dd.from_pandas(df, npartitions=4)
    seen = []
    a = dask_partial_dependence(model, ddf, "a", grid_resolution=5, progress=seen.append)
    b = dask_partial_dependence(model, ddf, "a", grid_resolution=5)
    np.testing.assert_array_equal(a.average, b.average)
    done = [i.done for i in seen]
    assert done == sorted(done) and done[-1] == len(df) and seen[-1].total == len(df)


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


def _interaction(X):
    return 3 * X["a"].to_numpy() - X["b"].to_numpy() + X["a"].to_numpy() * X["c"].to_numpy()


def test_pfi_does_not_depend_on_the_number_of_partitions(linear_frame):
    """Row t's draws are keyed by (seed, t) and the background is picked by global row index,
    so 1, 3 and 7 partitions give the same values (to float rounding of the merged means), and
    the engine's static driver on the concatenated frame gives them too."""
    from ixplain.methods._engine import explain_rows
    from ixplain.methods.pfi import BackgroundPFI
    from ixplain.tabular import as_table

    kw = dict(loss="squared_error", n_repeats=3, background_size=500, random_state=11)
    runs = [dask_permutation_importance(_interaction, dd.from_pandas(linear_frame, npartitions=k),
                                        "y", **kw) for k in (1, 3, 7)]
    for r in runs[1:]:
        np.testing.assert_allclose(r.importances, runs[0].importances, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(r.settings["standard_error"], runs[0].settings["standard_error"],
                                   rtol=1e-9)
    # the same method object on one machine, fed the same background rows
    from ixplain._random import keyed_generator, root_seed
    from ixplain.losses import get_loss
    from ixplain.models import as_model

    X = linear_frame.drop(columns="y")
    picks = np.sort(keyed_generator(root_seed(11), "background").choice(len(X), 500, replace=False))
    fn = BackgroundPFI(as_model(_interaction), get_loss("squared_error"), [["a"], ["b"], ["c"]],
                       as_table(X.iloc[picks].reset_index(drop=True)), 3, 11)
    single = explain_rows(fn, as_table(X), linear_frame["y"].to_numpy())
    np.testing.assert_allclose(runs[0].importances, single.mean.get()[:, 1:], rtol=1e-12)


def test_pfi_agrees_with_static_permutation_importance_within_standard_errors():
    """Not the same number for a seed (the static one uses global permutations, which a
    partition cannot form without a shuffle), the same quantity: the mean loss increase under
    marginal replacement. Both report the standard error of their mean from the spread of the
    rows' values; the difference must be within 4 combined standard errors."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(3)
    n = 3000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n)})
    y = (X["a"] * X["b"] + 0.5 * X["a"] + rng.normal(0, 0.3, n) > 0).astype(int)
    clf = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(X, y)
    static = permutation_importance(clf, X, y, loss="log_loss", n_repeats=5, random_state=0)
    ddf = dd.from_pandas(X.assign(target=y), npartitions=4)
    dist = dask_permutation_importance(clf, ddf, "target", loss="log_loss", n_repeats=5,
                                       background_size=n, random_state=0)
    se = np.hypot(static.settings["standard_error"], dist.settings["standard_error"])
    assert np.all(se > 0) and np.all(se < 0.05 * np.abs(static.importances_mean).max())
    assert np.all(np.abs(static.importances_mean - dist.importances_mean) <= 4 * se)
    assert dist.importances_mean[0] > dist.importances_mean[2]


def test_pfi_scoring_is_the_scaled_loss_increase(linear_frame):
    """R^2 decrease = MSE increase / Var(y); -MSE decrease = MSE increase; accuracy decrease =
    0-1 loss increase. Same draws for the same seed, so the numbers match exactly."""
    from sklearn.linear_model import LinearRegression, LogisticRegression

    X = linear_frame.drop(columns="y")
    reg = LinearRegression().fit(X, linear_frame["y"])
    ddf = dd.from_pandas(linear_frame, npartitions=3)
    kw = dict(n_repeats=2, background_size=400, random_state=5)
    by_loss = dask_permutation_importance(reg, ddf, "y", loss="squared_error", **kw)
    r2 = dask_permutation_importance(reg, ddf, "y", **kw)  # scoring=None: the R^2 score
    mse = dask_permutation_importance(reg, ddf, "y", scoring="neg_mean_squared_error", **kw)
    np.testing.assert_allclose(r2.importances, by_loss.importances / linear_frame["y"].var(ddof=0),
                               rtol=1e-10)
    np.testing.assert_allclose(mse.importances, by_loss.importances, rtol=1e-12)
    assert r2.settings["scoring"] == "r2" and mse.settings["scoring"] == "neg_mean_squared_error"
    static = permutation_importance(reg, X, linear_frame["y"], scoring="r2", n_repeats=5,
                                    random_state=0)
    se = np.hypot(static.settings["standard_error"], r2.settings["standard_error"])
    assert np.all(np.abs(static.importances_mean - r2.importances_mean) <= 4 * se + 1e-12)

    labels = (linear_frame["y"] > 0).astype(int)
    clf = LogisticRegression().fit(X, labels)
    cdf = dd.from_pandas(X.assign(t=labels), npartitions=3)
    acc = dask_permutation_importance(clf, cdf, "t", scoring="accuracy", **kw)
    zero_one = dask_permutation_importance(clf, cdf, "t", loss="zero_one", **kw)
    np.testing.assert_allclose(acc.importances, zero_one.importances, rtol=1e-12)
    with pytest.raises(ValueError, match="'scoring' parameter of ixplain.dask.permutation_impo"):
        dask_permutation_importance(clf, cdf, "t", scoring="roc_auc")
    with pytest.raises(TypeError, match="'scoring' needs a scikit-learn-API estimator"):
        dask_permutation_importance(linear, ddf, "y")


def test_pfi_progress_is_reported_and_changes_nothing(linear_frame, capsys):
    ddf = dd.from_pandas(linear_frame, npartitions=5)
    kw = dict(loss="squared_error", n_repeats=2, background_size=100, random_state=1)
    seen = []
    a = dask_permutation_importance(linear, ddf, "y", progress=seen.append, **kw)
    b = dask_permutation_importance(linear, ddf, "y", progress=False, **kw)
    np.testing.assert_array_equal(a.importances, b.importances)
    assert capsys.readouterr() == ("", "")
    done = [i.done for i in seen]
    assert len(done) >= 2 and done == sorted(done) and done[-1] == len(linear_frame)
    # the bar shows the public function, not the engine's internal variant's name
    assert {i.method for i in seen} == {"permutation_importance"}


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


# ------------------------------------------------------------------------------ SAGE
from ixplain import sage  # noqa: E402
from ixplain.dask import sage as dask_sage  # noqa: E402


@pytest.fixture(scope="module")
def sage_frame():
    rng = np.random.default_rng(4)
    n = 2400
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n)})
    return X.assign(y=_sage_model(X) + rng.normal(0, 0.2, n))


def _sage_model(X):
    return 2 * X["a"].to_numpy() + X["b"].to_numpy() * X["c"].to_numpy()


@pytest.mark.parametrize("npartitions", [1, 3, 7])
@pytest.mark.parametrize("n_samples", [8, None])
def test_sage_equals_one_pass_of_static_sage(sage_frame, npartitions, n_samples):
    """Row t takes the order and draws of its place in ixplain.sage's first pass (keyed by the
    seed), and the default background is the same rows: equal to ixplain.sage with
    n_permutations=n_rows and no early stop, for any partitioning (sampled draws and the exact
    inner average over a given background)."""
    X, y = sage_frame.drop(columns="y"), sage_frame["y"]
    kw = dict(loss="squared_error", random_state=3, n_samples=n_samples)
    if n_samples is None:
        kw["background"] = X.iloc[:24]
    static = sage(_sage_model, X, y, n_permutations=len(X), convergence_threshold=None, **kw)
    got = dask_sage(_sage_model, dd.from_pandas(sage_frame, npartitions=npartitions), "y", **kw)
    np.testing.assert_allclose(got.importances_mean, static.importances_mean, rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(got.importances_std, static.importances_std, rtol=1e-8)
    assert got.settings["n_permutations"] == static.settings["n_permutations"] == len(X)
    np.testing.assert_allclose(got.importances_mean.sum(), got.settings["explained_loss"],
                               rtol=1e-10)  # efficiency (control variate)
    np.testing.assert_allclose(got.settings["explained_loss"],
                               static.settings["explained_loss"], rtol=1e-12)


def test_sage_agrees_with_converged_static_sage_within_standard_errors(sage_frame):
    """ixplain.sage's default stops at convergence (fewer or more orders than rows): the same
    game, another sample, so the difference is within 4 combined standard errors."""
    X = sage_frame.drop(columns="y")
    background = X.iloc[:48]
    static = sage(_sage_model, X, sage_frame["y"], loss="squared_error", background=background,
                  n_samples=8, random_state=0, convergence_threshold=0.01)
    dist = dask_sage(_sage_model, dd.from_pandas(sage_frame, npartitions=4), "y",
                     loss="squared_error", background=background, n_samples=8, random_state=0)
    se = np.hypot(static.importances_std, dist.importances_std)
    assert np.all(se > 0)
    assert np.all(np.abs(static.importances_mean - dist.importances_mean) <= 4 * se)
    # Var(2a) = 4; b * c: Var = 1, split between b and c
    np.testing.assert_allclose(dist.importances_mean, [4.0, 0.5, 0.5], atol=0.3)


def test_sage_progress_and_bad_input(sage_frame):
    ddf = dd.from_pandas(sage_frame, npartitions=3)
    seen = []
    a = dask_sage(_sage_model, ddf, "y", loss="squared_error", background_size=16, n_samples=4,
                  random_state=0, progress=seen.append)
    b = dask_sage(_sage_model, ddf, "y", loss="squared_error", background_size=16, n_samples=4,
                  random_state=0)
    np.testing.assert_array_equal(a.importances_mean, b.importances_mean)
    assert [i.done for i in seen][-1] == len(sage_frame)
    with pytest.raises(TypeError, match="'ddf' parameter"):
        dask_sage(_sage_model, sage_frame, "y", loss="squared_error")
    with pytest.raises(ValueError, match="target column 'z'"):
        dask_sage(_sage_model, ddf, "z", loss="squared_error")
    with pytest.raises(ValueError, match="'loss' parameter"):
        dask_sage(_sage_model, ddf, "y", loss="hinge")
    with pytest.raises(ValueError, match="unknown feature 'q'"):
        dask_sage(_sage_model, ddf, "y", loss="squared_error", groups={"g": ["q"]})
    with pytest.raises(TypeError, match="'progress' parameter"):
        dask_sage(_sage_model, ddf, "y", loss="squared_error", progress="yes")


# ---------------------------------------------------------------------------- conditional removal
@pytest.fixture(scope="module")
def correlated_frame():
    """The issue's Gaussian DGP: corr(x0, x1) = 0.9, x2 and x3 independent, y = x0 + x2 + N(0,
    0.1^2); f = x0 + x2. CFI (the closed forms of tests/test_conditional.py): x0 2 (1 - 0.81) =
    0.38, x1 0, x2 2, x3 0."""
    rng = np.random.default_rng(0)
    C = np.eye(4)
    C[0, 1] = C[1, 0] = 0.9
    X = rng.multivariate_normal(np.zeros(4), C, size=4000)
    df = pd.DataFrame(X, columns=["x0", "x1", "x2", "x3"])
    df["y"] = df["x0"] + df["x2"] + rng.normal(0, 0.1, len(df))
    return df


def f_sum(X):
    return X["x0"].to_numpy() + X["x2"].to_numpy()


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_conditional_pfi_equals_single_machine(correlated_frame, npartitions):
    """At most sampler_size rows: the sampler is fitted on all of them, row t's draws are keyed
    by (seed, t) as in ixplain.permutation_importance, its own values excluded: equal."""
    from ixplain import permutation_importance
    from ixplain.dask import permutation_importance as dask_pfi

    df = correlated_frame
    feats = ["x0", "x1", "x2", "x3"]
    ref = permutation_importance(f_sum, df[feats], df["y"], loss="squared_error", n_repeats=2,
                                 random_state=3, removal="conditional")
    got = dask_pfi(f_sum, dd.from_pandas(df, npartitions=npartitions), "y",
                   loss="squared_error", n_repeats=2, random_state=3, removal="conditional")
    np.testing.assert_allclose(got.importances, ref.importances, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.settings["standard_error"], ref.settings["standard_error"],
                               rtol=1e-8)
    assert got.settings["removal"] == "conditional" and got.settings["sampler_size"] == 4000
    assert abs(got.importances_mean[0] / 0.38 - 1) < 0.15
    assert abs(got.importances_mean[2] / 2 - 1) < 0.1 and abs(got.importances_mean[1]) < 0.01


def test_conditional_pfi_on_a_sample_does_not_depend_on_partitions(correlated_frame):
    """sampler_size < n_rows: the sampler is fitted on a seeded sample (global row ids), the
    same for any partitioning; the result still meets the closed forms (a sampler from 1,500
    rows; 15 % on x0, whose conditional variance the trees estimate)."""
    from ixplain.dask import permutation_importance as dask_pfi

    df = correlated_frame
    kw = dict(loss="squared_error", n_repeats=1, random_state=0, removal="conditional",
              sampler_size=1500)
    a = dask_pfi(f_sum, dd.from_pandas(df, npartitions=1), "y", **kw)
    b = dask_pfi(f_sum, dd.from_pandas(df, npartitions=5), "y", **kw)
    np.testing.assert_allclose(a.importances, b.importances, rtol=1e-12)
    assert a.settings["sampler_size"] == 1500
    assert abs(a.importances_mean[0] / 0.38 - 1) < 0.15 and abs(a.importances_mean[2] / 2 - 1) < 0.1
    with pytest.raises(ValueError, match="'removal' parameter of ixplain.dask.permutation_"):
        dask_pfi(f_sum, dd.from_pandas(df, npartitions=2), "y", loss="squared_error",
                 removal="cond")
    with pytest.raises(ValueError, match="'sampler_size' parameter"):
        dask_pfi(f_sum, dd.from_pandas(df, npartitions=2), "y", loss="squared_error",
                 removal="conditional", sampler_size=1)


@pytest.mark.parametrize("npartitions", [1, 4])
def test_conditional_sage_equals_one_pass_of_static_sage(correlated_frame, npartitions):
    from ixplain import sage
    from ixplain.dask import sage as dask_sage

    df = correlated_frame.iloc[:1500]
    feats = ["x0", "x1", "x2", "x3"]
    ref = sage(f_sum, df[feats], df["y"], loss="squared_error", random_state=1,
               removal="conditional", n_permutations=len(df), convergence_threshold=None)
    got = dask_sage(f_sum, dd.from_pandas(df, npartitions=npartitions), "y",
                    loss="squared_error", random_state=1, removal="conditional")
    np.testing.assert_allclose(got.importances_mean, ref.importances_mean, rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(got.importances_std, ref.importances_std, rtol=1e-8)
    assert got.settings["removal"] == "conditional"
    # conditional SAGE credits x1 (unused by f) through x0, which it predicts
    assert got.importances_mean[1] > 0.1
