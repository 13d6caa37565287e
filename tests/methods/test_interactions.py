"""shapley_interactions: closed form, a plain-loop enumeration, the sampling estimator against
it, shapiq on the same game, confidence on the Friedman function, randomness and validation."""

import itertools
from math import factorial

import numpy as np
import pytest

from ixplain import ShapleyInteractions, shapley_interactions

# --------------------------------------------------------------------------- closed form


def product_plus(Z):
    return Z[:, 0] * Z[:, 1] + Z[:, 2]


BALANCED = np.array(list(itertools.product([-1.0, 1.0], repeat=3)) * 40)


@pytest.mark.parametrize("index", ["k-SII", "SII", "FSII"])
def test_closed_form_product_plus(index):
    """y = x0 x1 + x2, x uniform on {-1, 1}^3 (a balanced design: the sample moments are the
    population ones), f = the truth, squared loss, marginal removal with the whole design as
    background. The mean prediction with S known is x0 x1 1[{0,1} ⊆ S] + x2 1[2 ∈ S] (the
    removed parts average to 0), so l(S) = Var(x0 x1) 1[{0,1} ⊄ S] + Var(x2) 1[2 ∉ S] and
    v(S) = l(empty) - l(S) = 1[{0,1} ⊆ S] + 1[2 ∈ S]. Shapley values 1/2, 1/2, 1; the only
    non-zero discrete derivative is Δ_01 = 1 at every T, so SII_01 = 1 and the other pairs 0.
    k-SII mains: 1/2 - 1/2 * 1 = 0, 0 and 1 - 0 = 1. The game is 2-additive, so Faith-SII is
    its Moebius transform: the same as k-SII. k-SII and FSII sum to v(D) = 2."""
    res = shapley_interactions(product_plus, BALANCED, product_plus(BALANCED),
                               loss="squared_error", index=index, n_samples=None)
    mains = [0.5, 0.5, 1.0] if index == "SII" else [0.0, 0.0, 1.0]
    np.testing.assert_allclose(res.main_values, mains, atol=1e-12)
    pairs = np.zeros((3, 3))
    pairs[0, 1] = pairs[1, 0] = 1.0
    np.testing.assert_allclose(res.pair_values, pairs, atol=1e-12)
    if index != "SII":
        assert res.total == pytest.approx(2.0, abs=1e-12)
    assert res.settings["explained_loss"] == pytest.approx(2.0)
    assert res.settings["method"] == "exact"


def test_closed_form_unbiased_with_few_draws_and_permutations():
    """The same game estimated with 2 draws per observation (variance-corrected squared error)
    and random orders: unbiased, so the error is within a few reported standard errors; and
    k-SII is efficient for every observation, so the values sum to the explained loss."""
    res = shapley_interactions(product_plus, BALANCED, product_plus(BALANCED),
                               loss="squared_error", n_samples=2, method="permutation",
                               n_permutations=6000, convergence_threshold=None, random_state=3)
    truth = ShapleyInteractions.from_vector(
        np.array([0.0, 0.0, 1.0, 1.0, 0.0, 0.0]), np.zeros(6), ["x0", "x1", "x2"], "k-SII"
    )
    z = np.abs(res.to_frame()["value"] - truth.to_frame()["value"]) / res.to_frame()["std"]
    assert z.max() < 4.0
    assert res.total == pytest.approx(res.settings["explained_loss"], abs=1e-10)


# --------------------------------------------------------------------------- plain loop, d = 5


def nonlinear(Z):
    return np.sin(Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2 * Z[:, 3] + np.exp(0.5 * Z[:, 4]) * Z[:, 0]


@pytest.fixture(scope="module")
def problem5():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 5))
    y = nonlinear(X) + rng.normal(scale=0.3, size=60)
    bg = rng.normal(size=(25, 5))
    return X, y, bg


def plain_game(X, y, bg):
    """v(S) = mean_x (mean_b f(x_S, b_-S) - y)^2 at S = empty minus the same at S, by loops."""
    d = X.shape[1]
    loss = {}
    for r in range(d + 1):
        for S in itertools.combinations(range(d), r):
            total = 0.0
            for x, t in zip(X, y):
                Z = bg.copy()
                Z[:, list(S)] = x[list(S)]
                total += (nonlinear(Z).mean() - t) ** 2
            loss[frozenset(S)] = total / len(X)
    return {S: loss[frozenset()] - v for S, v in loss.items()}


def plain_indices(v, d):
    """Shapley values, SII pairs and k-SII mains from their definitions (loops over T)."""
    sv = np.zeros(d)
    for i in range(d):
        others = [k for k in range(d) if k != i]
        for r in range(d):
            for T in itertools.combinations(others, r):
                w = factorial(r) * factorial(d - r - 1) / factorial(d)
                sv[i] += w * (v[frozenset(T) | {i}] - v[frozenset(T)])
    sii = np.zeros((d, d))
    for i, j in itertools.combinations(range(d), 2):
        others = [k for k in range(d) if k not in (i, j)]
        for r in range(d - 1):
            for T in itertools.combinations(others, r):
                T = frozenset(T)
                w = factorial(r) * factorial(d - r - 2) / factorial(d - 1)
                sii[i, j] += w * (v[T | {i, j}] - v[T | {i}] - v[T | {j}] + v[T])
        sii[j, i] = sii[i, j]
    return sv, sii, sv - 0.5 * sii.sum(axis=1)


@pytest.fixture(scope="module")
def game5(problem5):
    X, y, bg = problem5
    return plain_game(X, y, bg)


def test_exact_mode_equals_plain_enumeration(problem5, game5):
    X, y, bg = problem5
    sv, sii, ksii = plain_indices(game5, 5)
    for index, mains in (("SII", sv), ("k-SII", ksii)):
        res = shapley_interactions(nonlinear, X, y, loss="squared_error", index=index,
                                   background=bg, n_samples=None, method="exact")
        np.testing.assert_allclose(res.main_values, mains, rtol=0, atol=1e-10)
        np.testing.assert_allclose(res.pair_values, sii, rtol=0, atol=1e-10)
    assert res.total == pytest.approx(game5[frozenset(range(5))], abs=1e-10)


def test_permutation_estimator_converges_to_exact(problem5, game5):
    """Random orders and 4 variance-corrected draws per observation: unbiased for the exact
    game, so the errors against the enumeration are of the size of the reported standard
    errors (|z| < 4 for all 15 values and the mean z^2 not far from 1)."""
    X, y, bg = problem5
    _, sii, ksii = plain_indices(game5, 5)
    res = shapley_interactions(nonlinear, X, y, loss="squared_error", background=bg,
                               n_samples=4, method="permutation", n_permutations=8192,
                               convergence_threshold=None, random_state=0)
    ii, jj = np.triu_indices(5, 1)
    err = np.concatenate([res.main_values - ksii, res.pair_values[ii, jj] - sii[ii, jj]])
    se = np.concatenate([res.main_std, res.pair_std[ii, jj]])
    z = err / se
    assert np.abs(z).max() < 4.0
    assert 0.2 < np.mean(z**2) < 3.0
    assert res.settings["n_observations"] == 8192


def test_convergence_rule_stops_the_sampler(problem5):
    X, y, bg = problem5
    res = shapley_interactions(nonlinear, X, y, loss="squared_error", background=bg,
                               n_samples=4, method="permutation", convergence_threshold=0.05,
                               batch_size=256, random_state=0)
    assert res.settings["converged"] and res.settings["convergence_ratio"] < 0.05
    assert res.settings["n_observations"] % 256 == 0


def test_agrees_with_shapiq_on_the_same_game(problem5, game5):
    """shapiq's ExactComputer on the plain-loop game equals the exact mode to 1e-10."""
    shapiq = pytest.importorskip("shapiq")
    X, y, bg = problem5

    def game(coalitions):
        return np.array([game5[frozenset(np.flatnonzero(c).tolist())] for c in coalitions])

    computer = shapiq.ExactComputer(game, n_players=5)
    for index, tol in (("SII", 1e-10), ("k-SII", 1e-10), ("FSII", 1e-8)):
        iv = computer(index=index, order=2)
        res = shapley_interactions(nonlinear, X, y, loss="squared_error", index=index,
                                   background=bg, n_samples=None)
        for i in range(5):
            assert res.main_values[i] == pytest.approx(iv[(i,)], abs=tol), (index, i)
        for i, j in itertools.combinations(range(5), 2):
            assert res.pair_values[i, j] == pytest.approx(iv[(i, j)], abs=tol), (index, i, j)


# --------------------------------------------------------------------------- Friedman


def friedman(Z):
    return (10 * np.sin(np.pi * Z[:, 0] * Z[:, 1]) + 20 * (Z[:, 2] - 0.5) ** 2 + 10 * Z[:, 3]
            + 5 * Z[:, 4])


@pytest.fixture(scope="module")
def friedman_data():
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(4096, 10))
    return X, friedman(X) + rng.normal(size=4096)


def test_friedman_intervals_of_null_pairs_contain_zero(friedman_data):
    """Friedman #1 (10 independent uniform features, 5 unused), 4,096 rows, the true function,
    16 variance-corrected draws (unbiased for the averaged-prediction game). Only (0, 1)
    interacts in f. An additive pair has zero interaction in the population game (independent
    features: the cross term of the squared loss averages out) but not per observation: its
    estimate is noise whose size the standard errors must report. The 44 null pairs are tested
    with simultaneous 95% intervals (Bonferroni: |z| < 3.26); (0, 1) is far outside."""
    X, y = friedman_data
    res = shapley_interactions(friedman, X, y, loss="squared_error", method="permutation",
                               n_permutations=8192, convergence_threshold=None, random_state=1)
    ii, jj = np.triu_indices(10, 1)
    se = res.pair_std[ii, jj]
    z = res.pair_values[ii, jj] / np.where(se > 0, se, 1.0)
    null = (ii != 0) | (jj != 1)
    assert np.all(np.abs(z[null]) < 3.26), np.round(z, 2)
    assert z[~null][0] > 4.0
    assert res.top_pairs(1)[0][:2] == ("x0", "x1")


def test_friedman_dummy_pairs_are_zero_with_one_draw(friedman_data):
    """With one draw per observation no bias correction exists, but every coalition of an
    observation uses the same draw, so a pair with an unused feature has Δ = 0 exactly in every
    sample: |mean| = 0 < 2 standard errors (an estimator drawing per coalition would not)."""
    X, y = friedman_data
    res = shapley_interactions(friedman, X, y, loss="squared_error", n_samples=1,
                               method="permutation", n_permutations=4096,
                               convergence_threshold=None, random_state=2)
    ii, jj = np.triu_indices(10, 1)
    unused = (ii >= 5) | (jj >= 5)
    # 0 up to the last bit of the model's vectorised sin (see the exact-zero test below)
    assert np.all(np.abs(res.pair_values[ii[unused], jj[unused]]) <= 1e-12)
    assert np.all(np.abs(res.main_values[5:]) <= 1e-12)
    assert res.pair_values[0, 1] > 2 * res.pair_std[0, 1]


# --------------------------------------------------------------------------- engine rules


@pytest.mark.parametrize("method", ["permutation", "regression"])
def test_same_seed_same_result_for_any_batching(problem5, method):
    """Sampled observations are aggregated in 64-row blocks aligned to the sample index across
    batches, so the bits do not depend on batch_size or n_jobs (with no convergence rule)."""
    X, y, bg = problem5
    kw = dict(loss="squared_error", background=bg, n_samples=3, method=method,
              n_permutations=300, convergence_threshold=None, random_state=7)
    a = shapley_interactions(nonlinear, X, y, batch_size=512, **kw)
    for other in (dict(batch_size=7), dict(batch_size=64), dict(batch_size=100, n_jobs=2)):
        b = shapley_interactions(nonlinear, X, y, **other, **kw)
        np.testing.assert_array_equal(a.main_values, b.main_values)
        np.testing.assert_array_equal(a.pair_values, b.pair_values)
        np.testing.assert_array_equal(a.pair_std, b.pair_std)
    c = shapley_interactions(nonlinear, X, y, batch_size=7, **{**kw, "random_state": 8})
    assert not np.allclose(a.pair_values, c.pair_values)


def test_groups_are_players(problem5):
    X, y, bg = problem5
    res = shapley_interactions(nonlinear, X, y, loss="squared_error", background=bg,
                               groups={"g": ["x2", "x3"]}, n_samples=None)
    assert res.feature_names == ["g", "x0", "x1", "x4"]
    assert res.pair_values.shape == (4, 4)
    assert res.total == pytest.approx(res.settings["explained_loss"], abs=1e-10)


def test_to_frame_long_format(problem5):
    X, y, bg = problem5
    res = shapley_interactions(nonlinear, X, y, loss="squared_error", background=bg,
                               n_samples=None)
    df = res.to_frame()
    assert list(df.columns) == ["feature_i", "feature_j", "value", "std"]
    assert len(df) == 5 + 10
    row = df[(df.feature_i == "x0") & (df.feature_j == "x1")].iloc[0]
    assert row.value == res.pair_values[0, 1] and row["std"] == res.pair_std[0, 1]
    assert res.to_dict()["index"] == "k-SII"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"index": "STII"}, "'index' parameter of shapley_interactions must be one of"),
        ({"order": 4}, "'order' parameter of shapley_interactions must be an int in \\[2, 3\\]"),
        ({"order": 3, "method": "permutation"}, "'method' parameter .* order=3"),
        ({"method": "regression", "n_coalitions": 6}, "'n_coalitions' parameter .* >= 7"),
        ({"method": "kernel"}, "'method' parameter"),
        ({"index": "FSII", "method": "permutation"}, "'method' parameter .* index='FSII'"),
        ({"method": "permutation", "convergence_threshold": None}, "'n_permutations'"),
        ({"n_samples": 0}, "'n_samples' parameter"),
        ({"batch_size": 0}, "'batch_size' parameter"),
        ({"convergence_threshold": 1.5}, "'convergence_threshold' parameter"),
        ({"groups": {"g": ["x0", "x1", "x2"]}}, "at least 2 players"),
    ],
)
def test_bad_parameters(kwargs, match):
    X = np.zeros((4, 3))
    with pytest.raises(ValueError, match=match):
        shapley_interactions(product_plus, X, np.zeros(4), loss="squared_error", **kwargs)


def test_a_model_returning_nan_is_an_error_naming_the_rows():
    """NaN in X goes to the model (as in sage); product_plus propagates it, which must be an
    error, not a NaN result."""
    from ixplain import ModelEvaluationError

    X = np.zeros((4, 3))
    X[2, 1] = np.nan
    with pytest.raises(ModelEvaluationError, match="shapley_interactions: .* returned NaN"):
        shapley_interactions(product_plus, X, np.zeros(4), loss="squared_error")


def test_classifier_probabilities_brier_and_log_loss():
    """A binary classifier is explained through P(y = 1): k-SII stays efficient, the feature
    the model ignores gets 0 pairs (common draws), and the interacting pair leads."""
    sklearn = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=300) > 0).astype(int)
    Z = np.column_stack([X[:, 0], X[:, 1], X[:, 0] * X[:, 1]])
    clf = sklearn.LogisticRegression().fit(Z, y)

    def proba(A):
        return clf.predict_proba(np.column_stack([A[:, 0], A[:, 1], A[:, 0] * A[:, 1]]))

    for loss in ("brier", "log_loss"):
        res = shapley_interactions(proba, X, y, loss=loss, n_samples=8, random_state=0)
        assert res.total == pytest.approx(res.settings["explained_loss"], abs=1e-10)
        # 0 up to the last bits: BLAS may round the same row differently at another position
        # of a batched call
        assert abs(res.pair_values[0, 2]) < 1e-12 and abs(res.pair_values[1, 2]) < 1e-12
        assert res.top_pairs(1)[0][:2] == ("x0", "x1")


def polynomial(Z):
    return Z[:, 0] * Z[:, 1] + Z[:, 2] ** 2 * Z[:, 3] - 0.5 * Z[:, 4] * Z[:, 0]


def test_exact_mode_gives_an_ignored_feature_exactly_zero(problem5):
    """Every discrete derivative is a difference of two marginal contributions, each exactly 0
    for a feature the model ignores (the same draws in both coalitions), so its main term and
    all its pairs are 0.0, not just small, for SII and k-SII. (Exactly: for a model that gives
    bit-identical outputs for identical rows anywhere in a batch, as products and sums do;
    vectorised sin/exp or BLAS may differ in the last bit, leaving ~1e-17.)"""
    X, y, bg = problem5
    rng = np.random.default_rng(0)
    X6, bg6 = np.column_stack([X, rng.normal(size=60)]), np.column_stack([bg, rng.normal(size=25)])
    for index in ("SII", "k-SII"):
        res = shapley_interactions(polynomial, X6, y, loss="squared_error", index=index,
                                   background=bg6, n_samples=3, random_state=0)
        assert res.settings["method"] == "exact"
        assert res.main_values[5] == 0.0 and np.all(res.pair_values[5] == 0.0)


def test_n_jobs_and_progress_do_not_change_the_values(problem5):
    X, y, bg = problem5
    seen = []
    kw = dict(loss="squared_error", background=bg, n_samples=2, random_state=4)
    a = shapley_interactions(nonlinear, X, y, **kw)
    b = shapley_interactions(nonlinear, X, y, n_jobs=2, progress=seen.append, **kw)
    np.testing.assert_array_equal(a.pair_values, b.pair_values)
    assert seen and seen[-1].done == len(X)
    seen.clear()
    shapley_interactions(nonlinear, X, y, method="permutation", n_permutations=100,
                         convergence_threshold=None, batch_size=50, progress=seen.append, **kw)
    assert [p.done for p in seen] == [50, 100] and seen[-1].convergence_ratio > 0
