"""Static SAGE against exact enumeration, efficiency, dummies, symmetry, groups and sage-importance."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from ixplain import ModelEvaluationError, sage

RNG = np.random.default_rng(42)
D = 4
X = RNG.normal(size=(60, D))
BG = RNG.normal(size=(20, D))


def f_reg(Z):
    return Z[:, 0] * Z[:, 1] + np.sin(2 * Z[:, 2]) + 0.5 * Z[:, 0]  # x3 ignored


Y = f_reg(X) + 0.3 * RNG.normal(size=len(X))


def exact_sage(f, X, y, bg, loss, players):
    """Shapley values of v(S) = -mean_i loss(mean_b f(x_i on S, b elsewhere), y_i) by
    enumerating every coalition; ``players`` lists the columns of each player."""
    n_players = len(players)

    def value(S):
        cols = [c for p in S for c in players[p]]
        Z = np.tile(bg, (len(X), 1))  # block i: the background with x_i on the columns of S
        Z[:, cols] = np.repeat(X[:, cols], len(bg), axis=0)
        mean_pred = f(Z).reshape(len(X), len(bg)).mean(axis=1)
        return -np.mean(loss(mean_pred, y))

    cache = {}
    for r in range(n_players + 1):
        for S in itertools.combinations(range(n_players), r):
            cache[S] = value(S)
    phi = np.zeros(n_players)
    for j in range(n_players):
        others = [k for k in range(n_players) if k != j]
        for r in range(n_players):
            w = math.factorial(r) * math.factorial(n_players - r - 1) / math.factorial(n_players)
            for S in itertools.combinations(others, r):
                phi[j] += w * (cache[tuple(sorted(S + (j,)))] - cache[S])
    return phi


def sq(p, y):
    return (p - y) ** 2


def logl(p, y):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return np.where(y == 1, -np.log(p), -np.log1p(-p))


EXACT_REG = exact_sage(f_reg, X, Y, BG, sq, [[0], [1], [2], [3]])


def within(est, ref, se, k=4.5, atol=1e-9):
    assert np.all(np.abs(est - ref) <= k * se + atol), (est, ref, se)


@pytest.mark.parametrize("n_samples", [None, "auto", 3])
def test_squared_error_equals_exact_enumeration(n_samples):
    res = sage(f_reg, X, Y, loss="squared_error", background=BG, n_permutations=4000,
               convergence_threshold=None, n_samples=n_samples, random_state=0)
    within(res.importances_mean, EXACT_REG, res.importances_std)
    assert res.importances_std[:3].max() < 0.05  # the comparison is sharp
    assert res.settings["n_permutations"] == 4000 and not res.settings["converged"]


def test_no_control_variate_is_also_unbiased():
    res = sage(f_reg, X, Y, loss="squared_error", background=BG, n_permutations=4000,
               convergence_threshold=None, n_samples=None, random_state=1,
               control_variate=False)
    within(res.importances_mean, EXACT_REG, res.importances_std)


def f_clf(Z):
    return 1 / (1 + np.exp(-(1.5 * Z[:, 0] + Z[:, 1] * Z[:, 2])))  # P(y=1); x3 ignored


YC = (RNG.uniform(size=len(X)) < f_clf(X)).astype(int)


@pytest.mark.parametrize("loss,ref_loss", [("log_loss", logl), ("brier", sq)])
def test_probability_losses_equal_exact_enumeration(loss, ref_loss):
    exact = exact_sage(f_clf, X, YC, BG, ref_loss, [[0], [1], [2], [3]])
    res = sage(f_clf, X, YC, loss=loss, background=BG, n_permutations=4000,
               convergence_threshold=None, random_state=2)
    # log loss: jackknife with 32 draws leaves an O(1/s^2) bias far below the noise
    within(res.importances_mean, exact, res.importances_std)
    exact_res = sage(f_clf, X, YC, loss=loss, background=BG, n_permutations=2000,
                     convergence_threshold=None, n_samples=None, random_state=3)
    within(exact_res.importances_mean, exact, exact_res.importances_std)


def test_two_column_probabilities_give_the_same_values():
    two = sage(lambda Z: np.column_stack([1 - f_clf(Z), f_clf(Z)]), X, YC, loss="log_loss",
               background=BG, n_permutations=300, convergence_threshold=None, random_state=5)
    one = sage(f_clf, X, YC, loss="log_loss", background=BG, n_permutations=300,
               convergence_threshold=None, random_state=5)
    np.testing.assert_allclose(two.importances_mean, one.importances_mean, atol=1e-10)


def test_sklearn_classifier_and_plain_loss_on_exact_inner():
    lr = pytest.importorskip("sklearn.linear_model").LogisticRegression().fit(X, YC)
    res = sage(lr, X, YC, loss="zero_one", background=BG, n_permutations=200,
               convergence_threshold=None, random_state=0)
    assert res.settings["n_samples"] == len(BG)  # no unbiased estimator: every background row
    exact = exact_sage(lambda Z: lr.predict_proba(Z)[:, 1], X, YC, BG,
                       lambda p, y: ((p >= 0.5) != y).astype(float), [[0], [1], [2], [3]])
    within(res.importances_mean, exact, res.importances_std)


def test_efficiency_and_dummy():
    res = sage(f_reg, X, Y, loss="squared_error", background=BG, random_state=0)
    marginal = np.mean((f_reg(BG).mean() - Y) ** 2)
    model = np.mean((f_reg(X) - Y) ** 2)
    # with the control variate the sum is exact; the dummy is exactly 0 (common draws)
    assert res.importances_mean.sum() == pytest.approx(marginal - model, rel=1e-10)
    assert res.settings["explained_loss"] == pytest.approx(marginal - model, rel=1e-12)
    assert res.importances_mean[3] == 0.0
    assert res.settings["converged"]
    # without the control variate: efficiency within error
    plain = sage(f_reg, X, Y, loss="squared_error", background=BG, random_state=0,
                 control_variate=False, n_permutations=3000, convergence_threshold=None)
    total_se = plain.importances_std.sum()
    assert abs(plain.importances_mean.sum() - (marginal - model)) < 4 * total_se


def test_symmetric_features_get_equal_values():
    rng = np.random.default_rng(7)
    Xs = rng.normal(size=(80, 3))

    def f(Z):
        return Z[:, 0] * Z[:, 1] + Z[:, 0] + Z[:, 1] + 0.3 * Z[:, 2]

    ys = f(Xs) + 0.1 * rng.normal(size=80)
    res = sage(f, Xs, ys, loss="squared_error", background=Xs, n_permutations=3000,
               convergence_threshold=None, random_state=0)
    v, s = res.importances_mean, res.importances_std
    assert abs(v[0] - v[1]) < 4.5 * np.hypot(s[0], s[1])
    assert v[0] > 5 * v[2] > 0


def test_groups_are_players_not_sums():
    groups = {"g01": ["x0", "x1"]}
    exact_g = exact_sage(f_reg, X, Y, BG, sq, [[0, 1], [2], [3]])
    res = sage(f_reg, X, Y, loss="squared_error", background=BG, groups=groups,
               n_permutations=3000, convergence_threshold=None, random_state=0)
    assert res.feature_names == ["g01", "x2", "x3"]
    within(res.importances_mean, exact_g, res.importances_std)
    # x0 * x1 interacts: the group's value differs from the members' sum in the 4-player game
    assert abs(exact_g[0] - EXACT_REG[:2].sum()) > 0.05
    assert abs(res.importances_mean[0] - EXACT_REG[:2].sum()) > 3 * res.importances_std[0]
    assert res.importances_mean[2] == 0.0


def test_convergence_detection_and_zero_gap():
    res = sage(f_reg, X, Y, loss="squared_error", background=BG, random_state=0,
               convergence_threshold=0.05)
    v, s = res.importances_mean, res.importances_std
    assert res.settings["converged"]
    assert s.max() / (v.max() - v.min()) < 0.05
    assert res.settings["n_permutations"] % 512 == 0
    # a constant model: every value 0, zero gap, no variance -- stops at the first test, after
    # CHECK_EVERY orders whatever the batch size
    const = sage(lambda Z: np.ones(len(Z)), X, Y, loss="squared_error", background=BG,
                 random_state=0, batch_size=64)
    assert const.settings["converged"] and const.settings["n_permutations"] == 512
    np.testing.assert_array_equal(const.importances_mean, 0.0)


def test_same_seed_same_result_and_threads_do_not_matter():
    """Permutation p's observation, order and draws depend on (seed, p) alone, and the
    accumulator takes fixed blocks of 512 orders: n_jobs in {1, 2} and batch sizes below,
    between and above the block give the same bits, for a fixed count that ends inside a block
    (1100) and for a run stopped by the convergence test."""
    kw = dict(loss="squared_error", background=BG, n_permutations=1100,
              convergence_threshold=None, random_state=11)
    runs = [sage(f_reg, X, Y, n_jobs=jobs, batch_size=bs, **kw)
            for jobs in (1, 2) for bs in (100, 512, 2048)]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.importances_mean, runs[0].importances_mean)
        np.testing.assert_array_equal(r.importances_std, runs[0].importances_std)
        assert r.settings["n_permutations"] == 1100
    stopped = [sage(f_reg, X, Y, loss="squared_error", background=BG, random_state=3,
                    convergence_threshold=0.05, batch_size=bs, n_jobs=jobs)
               for bs, jobs in ((64, 1), (700, 2), (512, 1))]
    for r in stopped[1:]:
        np.testing.assert_array_equal(r.importances_mean, stopped[0].importances_mean)
        assert r.settings["n_permutations"] == stopped[0].settings["n_permutations"]
    c = sage(f_reg, X, Y, **{**kw, "random_state": 12})
    assert not np.array_equal(runs[0].importances_mean, c.importances_mean)


def test_dataframe_with_categorical_column_and_default_background():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({
        "num": rng.normal(size=120),
        "cat": pd.Categorical(rng.choice(["a", "b", "c"], size=120)),
        "noise": rng.normal(size=120),
    })
    effect = {"a": 0.0, "b": 1.0, "c": -1.0}

    def f(frame):
        return frame["num"].to_numpy() + frame["cat"].map(effect).astype(float).to_numpy()

    y = f(df)
    res = sage(f, df, y, loss="squared_error", random_state=0)
    v = res.importances_mean
    assert v[0] > 0.5 and v[1] > 0.3 and v[2] == 0.0
    assert res.to_frame().index.tolist() == ["num", "cat", "noise"]


def test_agreement_with_sage_importance():
    sage_lib = pytest.importorskip("sage")
    imputer = sage_lib.MarginalImputer(f_reg, BG)
    estimator = sage_lib.PermutationEstimator(imputer, "mse", random_state=0)
    ref = estimator(X, Y, batch_size=256, n_permutations=4096, detect_convergence=False,
                    bar=False)
    ours = sage(f_reg, X, Y, loss="squared_error", background=BG, n_permutations=4096,
                convergence_threshold=None, random_state=0)
    se = np.hypot(ref.std, ours.importances_std)
    within(ours.importances_mean, ref.values, se)
    within(ref.values, EXACT_REG, ref.std)  # and both agree with enumeration


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"n_permutations": 0}, ValueError, "'n_permutations' parameter of sage"),
        ({"convergence_threshold": 1.5}, ValueError, "'convergence_threshold'"),
        ({"convergence_threshold": None}, ValueError, "'n_permutations'"),
        ({"n_samples": 0}, ValueError, "'n_samples'"),
        ({"n_samples": "many"}, ValueError, "'n_samples'"),
        ({"batch_size": 0}, ValueError, "'batch_size'"),
        ({"n_jobs": 0}, ValueError, "'n_jobs'"),
        ({"random_state": 1.5}, TypeError, "'random_state'"),
        ({"groups": ["x0"]}, TypeError, "'groups'"),
        ({"groups": {"g": ["nope"]}}, ValueError, "unknown feature 'nope'"),
        ({"loss": "hinge"}, ValueError, "'loss' parameter of sage"),
        ({"background": np.zeros((0, D))}, ValueError, "background has no rows"),
        ({"control_variate": 1}, TypeError, "'control_variate'"),
    ],
)
def test_invalid_arguments(kwargs, exc, match):
    kw = {"loss": "squared_error", "background": BG, **kwargs}
    with pytest.raises(exc, match=match):
        sage(f_reg, X, Y, **kw)


def test_bad_data():
    Xn = X.copy()
    Xn[3, 2] = np.nan  # f_reg propagates NaN: an error naming the rows, not a NaN result
    with pytest.raises(ModelEvaluationError, match="sage: .* returned NaN for .* rows"):
        sage(f_reg, Xn, Y, loss="squared_error")
    with pytest.raises(ValueError, match="y has shape"):
        sage(f_reg, X, Y[:-1], loss="squared_error")
    with pytest.raises(ValueError, match="X has no rows"):
        sage(f_reg, X[:0], Y[:0], loss="squared_error")


def test_control_variate_reduces_the_standard_error():
    kw = dict(loss="squared_error", background=BG, n_permutations=2000,
              convergence_threshold=None, n_samples=None, random_state=0)
    with_cv = sage(f_reg, X, Y, **kw)
    without = sage(f_reg, X, Y, control_variate=False, **kw)
    assert np.all(with_cv.importances_std[:3] < without.importances_std[:3])


@pytest.mark.parametrize("loss", ["log_loss", "brier"])
def test_multiclass_probabilities(loss):
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    Xi, yi = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[yi]
    clf = LogisticRegression(max_iter=500).fit(Xi, labels)
    res = sage(clf, Xi, labels, loss=loss, n_permutations=600, convergence_threshold=None,
               random_state=0)
    exact_inner = sage(clf, Xi, labels, loss=loss, n_permutations=300,
                       convergence_threshold=None, n_samples=None, random_state=1)
    proba = clf.predict_proba(Xi)
    onehot = (labels[:, None] == clf.classes_[None, :]).astype(float)
    mean = proba.mean(axis=0)  # background = all 150 rows
    if loss == "brier":
        marginal = ((onehot - mean) ** 2).sum(axis=1).mean()
        model = ((onehot - proba) ** 2).sum(axis=1).mean()
    else:
        marginal = -(onehot * np.log(mean)).sum(axis=1).mean()
        model = -(onehot * np.log(proba)).sum(axis=1).mean()
    assert res.importances_mean.sum() == pytest.approx(marginal - model, rel=1e-9)
    se = np.hypot(res.importances_std, exact_inner.importances_std)
    within(res.importances_mean, exact_inner.importances_mean, se)
