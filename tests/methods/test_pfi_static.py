"""Static permutation_importance: closed forms, exact agreement with scikit-learn, groups,
pandas indices, weights with subsampling, validation."""

import numpy as np
import pandas as pd
import pytest
from sklearn.inspection import permutation_importance as sk_permutation_importance
from sklearn.linear_model import LinearRegression, LogisticRegression

from ixplain import FeatureImportance, permutation_importance
from ixplain._random import keyed_generator
from ixplain.losses import get_loss
from ixplain.methods.pfi import _importances_loss, _importances_scoring
from ixplain.models import as_model
from ixplain.tabular import as_table


def _sklearn_permutations(random_state, n, n_repeats, n_features):
    """The row orders scikit-learn 1.9 uses, re-derived from its source.

    sklearn draws ``seed = RandomState(random_state).randint(2**31)``; every column then gets a
    fresh ``RandomState(seed)`` and, for each repeat, shuffles an index array *in place* and
    sets ``col = col[idx]`` -- so repeat r sees the composition of the r shuffles. Returns the
    effective source rows, shape (n_features, n_repeats, n).
    """
    seed = np.random.RandomState(random_state).randint(np.iinfo(np.int32).max + 1)
    out = np.empty((n_features, n_repeats, n), dtype=np.intp)
    for j in range(n_features):
        rs = np.random.RandomState(seed)
        idx, eff = np.arange(n), np.arange(n)
        for r in range(n_repeats):
            rs.shuffle(idx)
            eff = eff[idx]
            out[j, r] = eff
    return out


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)) * [1.0, 2.0, 0.5, 1.0]
    y = X @ [1.5, -1.0, 2.0, 0.0] + 0.3 * rng.normal(size=300)
    return X, y, LinearRegression().fit(X, y)


def test_linear_model_closed_form(regression):
    """PFI of a linear model with squared error is 2 * beta_j**2 * Var(x_j).

    Derivation: with f(x) = b'x and y = f(x) + e, replacing x_j by an independent copy x'_j
    changes the residual by b_j (x'_j - x_j), so the expected loss increase is
    E[(b_j (x'_j - x_j) - e)^2] - E[e^2] = b_j^2 E[(x'_j - x_j)^2] = 2 b_j^2 Var(x_j).
    Tolerance: the per-row increase has variance about 8 b^4 Var^2 + 8 b^2 Var s_e^2 (from
    x'-x ~ N(0, 2 Var)); the estimate averages n rows (repeats reuse the rows, so n, not
    n * R, is the conservative count): 5 standard errors.
    """
    rng = np.random.default_rng(1)
    n = 4000
    X = rng.normal(size=(n, 3)) * [1.0, 2.0, 0.5]
    beta = np.array([1.5, -1.0, 2.0])
    y = X @ beta + 0.3 * rng.normal(size=n)
    model = LinearRegression().fit(X, y)
    r = permutation_importance(model, X, y, loss="squared_error", n_repeats=5, random_state=0)
    b, v = model.coef_, X.var(axis=0)
    expected = 2 * b**2 * v
    se = np.sqrt(8 * b**4 * v**2 + 8 * b**2 * v * 0.09) / np.sqrt(n)
    assert np.all(np.abs(r.importances_mean - expected) < 5 * se)
    assert r.importances.shape == (3, 5)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("as_frame", [False, True])
def test_exact_agreement_with_sklearn_same_permutations(regression, weighted, as_frame):
    """Given scikit-learn's permutations, both the scorer path and the batched loss path equal
    sklearn.inspection.permutation_importance to rounding.

    The loss path is the mean per-row loss increase; with scoring='neg_mean_squared_error' the
    score decrease is the same number (MSE(permuted) - MSE(baseline)), weighted or not.
    """
    X, y, model = regression
    Xd = pd.DataFrame(X, columns=list("abcd")) if as_frame else X
    if as_frame:
        model = LinearRegression().fit(Xd, y)
    w = np.random.default_rng(2).uniform(0.5, 2, size=len(y)) if weighted else None
    sk = sk_permutation_importance(model, Xd, y, scoring="neg_mean_squared_error",
                                   n_repeats=3, random_state=7, sample_weight=w)
    perms = _sklearn_permutations(7, len(y), 3, 4)
    table = as_table(Xd)
    groups = [[n] for n in table.names]
    rows = [np.arange(len(y))] * 3
    ours = _importances_scoring(model, "neg_mean_squared_error", table, y, w, rows, perms,
                                groups, list(table.names), {})
    np.testing.assert_allclose(ours.importances, sk.importances, rtol=1e-10, atol=1e-12)
    loss_imp = _importances_loss(as_model(model), get_loss("squared_error"), table, y, w, rows,
                                 perms, groups, 2**20)
    np.testing.assert_allclose(loss_imp, sk.importances, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("scoring", [None, "r2", "neg_mean_absolute_error", "explained_variance"])
@pytest.mark.parametrize("weighted", [False, True])
def test_batched_scorers_equal_sklearn(regression, scoring, weighted):
    """Scores that are means of per-row losses go through the batched loss path; with sklearn's
    permutations they equal sklearn exactly (r2: the MSE increase over the weighted variance of
    y). 'explained_variance' is not such a score and takes the per-repeat scorer path."""
    X, y, model = regression
    w = np.random.default_rng(3).uniform(0.5, 2, size=len(y)) if weighted else None
    sk = sk_permutation_importance(model, X, y, scoring=scoring, n_repeats=2, random_state=1,
                                   sample_weight=w)
    table = as_table(X)
    perms = _sklearn_permutations(1, len(y), 2, 4)
    ours = _importances_scoring(model, scoring, table, y, w, [np.arange(len(y))] * 2, perms,
                                [[n] for n in table.names], list(table.names), {})
    np.testing.assert_allclose(ours.importances, sk.importances, rtol=1e-8, atol=1e-12)


def test_batched_accuracy_equals_sklearn():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    clf = LogisticRegression().fit(X, y)
    sk = sk_permutation_importance(clf, X, y, n_repeats=2, random_state=2)  # accuracy
    table = as_table(X)
    ours = _importances_scoring(clf, None, table, y, None, [np.arange(300)] * 2,
                                _sklearn_permutations(2, 300, 2, 3), [[n] for n in table.names],
                                list(table.names), {})
    np.testing.assert_allclose(ours.importances, sk.importances, rtol=1e-12, atol=1e-12)
    assert ours.settings["scoring"] == "accuracy"


def test_default_scoring_is_estimator_score_and_multimetric(regression):
    X, y, model = regression
    r = permutation_importance(model, X, y, n_repeats=2, random_state=0)
    assert isinstance(r, FeatureImportance) and r["importances"].shape == (4, 2)
    assert r.importances_mean[3] == pytest.approx(0.0, abs=1e-3)  # beta_3 = 0
    multi = permutation_importance(model, X, y, scoring=["r2", "neg_mean_absolute_error"],
                                   n_repeats=2, random_state=0)
    assert set(multi) == {"r2", "neg_mean_absolute_error"}
    np.testing.assert_allclose(multi["r2"].importances, r.importances)


def test_groups_permuted_jointly():
    """Group importance of two identical columns is not the sum of their single importances.

    With x2 = x1 ~ N(0, 1) and f = x1 + x2 = 2 x1, y = f, squared error: permuting x1 alone
    changes f by x1' - x1 (E[.^2] = 2); permuting the group changes f by 2 (x1' - x1)
    (E[.^2] = 8). Per-row variances 8 and 128 give 5-standard-error tolerances.
    """
    rng = np.random.default_rng(3)
    n = 3000
    x = rng.normal(size=n)
    X = pd.DataFrame({"x1": x, "x2": x, "z": rng.normal(size=n)})
    y = 2 * x

    def f(D):
        return D["x1"].to_numpy() + D["x2"].to_numpy()

    r = permutation_importance(f, X, y, loss="squared_error", random_state=0, n_repeats=3,
                               features={"x1": ["x1"], "both": ["x1", "x2"], "z": "z"})
    assert r.feature_names == ["x1", "both", "z"]
    se = np.sqrt(np.array([8.0, 128.0])) / np.sqrt(n)
    assert abs(r.importances_mean[0] - 2) < 5 * se[0]
    assert abs(r.importances_mean[1] - 8) < 5 * se[1]
    assert np.all(r.importances[2] == 0)  # f ignores z: exactly zero


def test_pandas_scrambled_index_and_read_only_input(regression):
    X, y, _ = regression
    df = pd.DataFrame(X, columns=list("abcd"))
    model = LinearRegression().fit(df, y)
    scrambled = df.set_axis(np.random.default_rng(0).permutation(len(df)) + 1000)
    before = scrambled.copy()
    a = permutation_importance(model, scrambled, pd.Series(y, index=scrambled.index),
                               loss="squared_error", n_repeats=2, random_state=4)
    b = permutation_importance(model, df, y, loss="squared_error", n_repeats=2, random_state=4)
    np.testing.assert_array_equal(a.importances, b.importances)
    pd.testing.assert_frame_equal(scrambled, before)
    sk = sk_permutation_importance(model, scrambled, y, n_repeats=20, random_state=4)
    ours = permutation_importance(model, scrambled, y, n_repeats=20, random_state=4)
    # statistically the same quantity as sklearn (the permutation streams differ)
    assert np.allclose(ours.importances_mean, sk.importances_mean, rtol=0.3, atol=0.02)
    ro = X.copy()
    ro.setflags(write=False)
    c = permutation_importance(LinearRegression().fit(X, y), ro, y, loss="absolute_error",
                               random_state=0)
    assert np.isfinite(c.importances).all()


def test_weights_with_subsampling_equal_plain_brute_force():
    """max_samples < 1 with sample_weight equals the definition written plainly.

    For each repeat r: the row subset from keyed_generator(seed, "pfi-rows", r) and the
    permutation of the feature in column j from keyed_generator(seed, "pfi", r, j) (the
    documented keys: the column's position, not its name),
    then the weighted mean squared-error increase when the
    feature's column is permuted within the subset -- baseline on the *same* rows.
    """
    rng = np.random.default_rng(5)
    n, R = 200, 3
    X = rng.normal(size=(n, 3))
    y = X[:, 0] ** 2 + X[:, 1]
    w = rng.uniform(0, 3, size=n)

    def f(A):
        return A[:, 0] ** 2 + A[:, 1]

    r = permutation_importance(f, X, y, loss="squared_error", n_repeats=R, random_state=9,
                               sample_weight=w, max_samples=0.4)
    m = int(0.4 * n)
    subsets = [np.sort(keyed_generator(9, "pfi-rows", k).choice(n, m, replace=False))
               for k in range(R)]
    perms = [[keyed_generator(9, "pfi", k, j).permutation(m) for k in range(R)]
             for j in range(3)]
    expected = np.zeros((3, R))
    for j in range(3):
        for k in range(R):
            rows = subsets[k]
            Xp = X[rows].copy()
            Xp[:, j] = X[rows[perms[j][k]], j]
            inc = (f(Xp) - y[rows]) ** 2 - (f(X[rows]) - y[rows]) ** 2
            expected[j, k] = np.sum(w[rows] * inc) / np.sum(w[rows])
    np.testing.assert_allclose(r.importances, expected, rtol=1e-12, atol=1e-12)
    assert np.all(r.importances[2] == 0.0)  # ignored feature: exactly 0 with subsampling


def test_classifier_log_loss_and_river_model():
    from river import linear_model

    rng = np.random.default_rng(6)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = LogisticRegression().fit(X, y)
    r = permutation_importance(clf, X, y, loss="log_loss", random_state=0)
    assert r.importances_mean[0] > 0.5 and abs(r.importances_mean[1]) < 0.05
    river_model = linear_model.LogisticRegression()
    records = [{"a": a, "b": b} for a, b in X]
    for x, t in zip(records, y):
        river_model.learn_one(x, bool(t))
    rr = permutation_importance(river_model, records, y.astype(bool), loss="zero_one",
                                random_state=0)
    assert rr.importances_mean[0] > 0.2 and abs(rr.importances_mean[1]) < 0.05


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_repeats": 0}, ValueError, "'n_repeats' parameter of permutation_importance"),
        ({"max_samples": 0.0}, ValueError, "'max_samples' parameter"),
        ({"max_samples": 10**6}, ValueError, "'max_samples' parameter"),
        ({"random_state": 1.5}, TypeError, "'random_state' parameter"),
        ({"loss": "nope"}, ValueError, "'loss' parameter"),
        ({"features": ["zz"]}, ValueError, "unknown feature 'zz'"),
        ({"sample_weight": np.ones(3)}, ValueError, r"'sample_weight' parameter.*shape \(3,\)"),
    ],
)
def test_bad_parameters(regression, kwargs, exc, match):
    X, y, model = regression
    with pytest.raises(exc, match=match):
        permutation_importance(model, X, y, **kwargs)


def test_scoring_needs_sklearn_estimator(regression):
    X, y, _ = regression
    with pytest.raises(TypeError, match="loss="):
        permutation_importance(lambda A: A[:, 0], X, y)


def test_same_seed_same_result_for_any_n_jobs_and_memory_budget():
    """Permutation r of feature j comes from keyed_generator(seed, "pfi", r, j), drawn once,
    and each (feature, repeat)'s per-row losses are averaged over all rows at once: n_jobs in
    {1, 2} and memory budgets that give one chunk, a few, and many (with the permutations kept
    one at a time) all give the same bits, with and without row subsampling and weights."""
    rng = np.random.default_rng(12)
    n = 2500
    X = rng.normal(size=(n, 4))
    y = X @ [1.0, -2.0, 0.5, 0.0] + 0.2 * rng.normal(size=n)
    w = rng.uniform(0.5, 2.0, size=n)

    def f(A):
        return A @ np.array([1.0, -2.0, 0.5, 0.0])

    for kwargs in ({}, {"max_samples": 0.6, "sample_weight": w}):
        results = [
            permutation_importance(f, X, y, loss="squared_error", n_repeats=3, random_state=4,
                                   n_jobs=jobs, memory_budget=budget, **kwargs).importances
            for jobs in (1, 2) for budget in (2**28, 2**18, 2**13)
        ]
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])
    # a feature's permutations do not depend on which other features are computed (equal to
    # rounding: the block sums run over another layout)
    alone = permutation_importance(f, X, y, loss="squared_error", n_repeats=3, random_state=4,
                                   features=["x1"]).importances
    every = permutation_importance(f, X, y, loss="squared_error", n_repeats=3,
                                   random_state=4).importances
    np.testing.assert_allclose(alone[0], every[1], rtol=1e-13)


def test_the_draws_follow_column_positions_not_names():
    """QA9 item 13: the same matrix with the same seed gave different importances as a NumPy
    array (names x0, x1) and as a DataFrame with columns a, b; the permutations are keyed by
    column position, so the container and the names cannot matter, and a group is keyed by
    its sorted positions (the order its columns are listed in cannot matter either)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = 2 * X[:, 0] + X[:, 1] * X[:, 2]

    def f(A):
        A = np.asarray(A, dtype=float)
        return 2 * A[:, 0] + A[:, 1] * A[:, 2]

    def imp(data, **kw):
        return permutation_importance(f, data, y, loss="squared_error", n_repeats=3,
                                      random_state=3, **kw).importances

    ref = imp(X)
    for data in (X.tolist(), pd.DataFrame(X, columns=["a", "b", "c"]),
                 pd.DataFrame(X, columns=["c", "a", "b"])):
        np.testing.assert_array_equal(imp(data), ref)
    one = imp(pd.DataFrame(X, columns=["a", "b", "c"]), features={"g": ["c", "b"]})
    other = imp(X, features={"h": [1, 2]})
    np.testing.assert_array_equal(one, other)
    assert not np.array_equal(one[0], ref[1])  # a group is not its first column
