"""IncrementalSAGE: ground truth on synthetic streams, efficiency at every step, the static
invariant, bias of each setting, pickling and the one-model-call-per-observation contract."""

import pickle

import numpy as np
import pytest
from test_sage import BG, EXACT_REG, X, Y, exact_sage, f_clf, f_reg, logl

from ixplain import DatasetStorage, IncrementalSAGE
from ixplain.losses import Loss

# --------------------------------------------------------------------------- y = x0 * x1


def product_stream(n, seed):
    rng = np.random.default_rng(seed)
    Xp = rng.choice([-1.0, 1.0], size=(n, 3))
    return Xp, Xp[:, 0] * Xp[:, 1]


def product(Z):
    return Z[:, 0] * Z[:, 1]


def test_product_game_theory_values():
    """y = x0 x1 on {-1, 1}^3, squared error: v({}) = v({0}) = v({1}) = 0, v({0, 1}) = 1
    (loss of the mean prediction 0 is E[y^2] = 1; knowing one factor leaves the mean at 0), so
    phi = (0.5, 0.5, 0) -- ixai's estimator gives the dummy about -1/3."""
    Xp, yp = product_stream(4000, 0)
    for n_samples in (2, "auto"):
        e = IncrementalSAGE(product, loss="squared_error", aggregation="mean",
                            n_samples=n_samples, random_state=1)
        e.explain_many(Xp, yp)
        se = np.sqrt(e.variances_ / e.n_explained_)
        assert np.all(np.abs(e.importances_ - [0.5, 0.5, 0.0]) <= 4.5 * se + 1e-12)
        assert e.importances_[2] == 0.0


def test_one_draw_converges_to_the_expected_loss_game():
    """Documented: n_samples=1 cannot be bias-corrected; it estimates the game of expected
    one-draw losses, which for this pure interaction doubles the values (1, 1, 0)."""
    Xp, yp = product_stream(4000, 2)
    e = IncrementalSAGE(product, loss="squared_error", aggregation="mean", n_samples=1,
                        random_state=3)
    e.explain_many(Xp, yp)
    se = np.sqrt(e.variances_ / e.n_explained_)
    assert np.all(np.abs(e.importances_ - [1.0, 1.0, 0.0]) <= 4.5 * se + 1e-12)


# --------------------------------------------------------------------------- Agrawal


AGE_EXACT = 4150 / 48373  # see test_agrawal_ground_truth
SALARY_EXACT = 40 / 169 - AGE_EXACT


@pytest.fixture(scope="module")
def agrawal():
    """6,000 rows of River's Agrawal stream, classification_function=1 (generated once)."""
    synth = pytest.importorskip("river.datasets.synth")
    rows = list(synth.Agrawal(classification_function=1, seed=7).take(6_000))
    names = list(rows[0][0])
    Xa = np.array([[x[k] for k in names] for x, _ in rows], dtype=float)
    ya = np.array([int(v) for _, v in rows])
    return Xa, ya, names


def agrawal_rule(names):
    ia, isal = names.index("age"), names.index("salary")

    def rule(Z):
        age, sal = Z[:, ia], Z[:, isal]
        return (
            ((age < 40) & (50_000 <= sal) & (sal <= 100_000))
            | ((age >= 40) & (age < 60) & (75_000 <= sal) & (sal <= 125_000))
            | ((age >= 60) & (25_000 <= sal) & (sal <= 75_000))
        ).astype(float)

    return rule


def test_agrawal_ground_truth(agrawal):
    """Agrawal function 1 with its own rule as the model, Brier loss on P(y = 1), marginal
    imputation. Age is uniform on the 61 integers 20..80, salary uniform on [20k, 150k].

    Y = 1 with probability 5/13 whatever the age (each age band accepts a 50k salary range out of
    130k), so Var(Y) = 5/13 * 8/13 = 40/169 = L(empty) and L(all) = 0. Knowing the age alone
    leaves the mean prediction at 5/13: v({age}) = 0. Knowing the salary s gives
    g(s) = P(Y = 1 | s) = 0, 21/61, 41/61, 40/61, 20/61, 0 on [20, 25), [25, 50), [50, 75),
    [75, 100], (100, 125], (125, 150]k, so L({salary}) = E[g (1 - g)]
    = (25/130) (21*40 + 41*20 + 40*21 + 20*41) / 61^2 = 8300/48373 and
    v({salary}) = 40/169 - 8300/48373. Two players:
    phi_age = (v(both) - v(salary)) / 2 = 4150/48373 = 0.0858,
    phi_salary = 40/169 - phi_age = 0.1509; every other feature 0; the sum is 40/169."""
    Xa, ya, names = agrawal
    truth = np.zeros(len(names))
    truth[names.index("age")] = AGE_EXACT
    truth[names.index("salary")] = SALARY_EXACT
    # default settings: exponential smoothing (alpha=0.001), geometric reservoir, n_samples=8
    e = IncrementalSAGE(agrawal_rule(names), loss="brier", feature_names=names, random_state=0)
    e.explain_many(Xa, ya)
    assert np.all(np.abs(e.importances_ - truth) <= e.confidence_bound(0.05))
    others = [i for i, n in enumerate(names) if n not in ("age", "salary")]
    np.testing.assert_array_equal(e.importances_[others], 0.0)
    # running mean over the stream: tighter
    m = IncrementalSAGE(agrawal_rule(names), loss="brier", feature_names=names,
                        aggregation="mean", random_state=1)
    m.explain_many(Xa, ya)
    assert np.all(np.abs(m.importances_ - truth) <= m.confidence_bound(0.01))
    assert abs(m.marginal_loss_ - 40 / 169) < 0.02 and m.model_loss_ == 0.0


# --------------------------------------------------------------------------- efficiency


@pytest.mark.parametrize("aggregation", ["ema", "mean"])
def test_efficiency_at_every_step(aggregation):
    e = IncrementalSAGE(f_reg, loss="squared_error", aggregation=aggregation, alpha=0.05,
                        storage=DatasetStorage(BG), random_state=0)
    for x, yy in zip(X, Y):
        e.explain_one(x, yy)
        total = e.marginal_loss_ - e.model_loss_
        assert e.importances_.sum() == pytest.approx(total, rel=1e-12, abs=1e-12)
    e.explain_many(X, Y)
    assert e.importances_.sum() == pytest.approx(e.marginal_loss_ - e.model_loss_, rel=1e-12)


# --------------------------------------------------------------------------- static invariant


def test_mean_over_a_dataset_equals_static_sage():
    """Running mean + DatasetStorage(background), fed the explained rows: the estimator's limit
    is the static SAGE value (exact enumeration in test_sage)."""
    stream_X, stream_y = np.tile(X, (60, 1)), np.tile(Y, 60)
    e = IncrementalSAGE(f_reg, loss="squared_error", aggregation="mean",
                        storage=DatasetStorage(BG), random_state=4)
    e.explain_many(stream_X, stream_y)
    se = np.sqrt(e.variances_ / e.n_explained_)
    assert np.all(np.abs(e.importances_ - EXACT_REG) <= 4.5 * se + 1e-12)
    assert e.importances_[3] == 0.0


def test_log_loss_jackknife_bias_is_below_the_noise():
    yc = (np.random.default_rng(0).uniform(size=len(X)) < f_clf(X)).astype(int)
    exact = exact_sage(f_clf, X, yc, BG, logl, [[0], [1], [2], [3]])
    stream_X, stream_y = np.tile(X, (60, 1)), np.tile(yc, 60)
    e = IncrementalSAGE(f_clf, loss="log_loss", aggregation="mean", storage=DatasetStorage(BG),
                        random_state=5)
    e.explain_many(stream_X, stream_y)
    se = np.sqrt(e.variances_ / e.n_explained_)
    assert e.n_samples_ == 32
    assert np.all(np.abs(e.importances_ - exact) <= 4.5 * se + 1e-12)
    # the plain plug-in with one draw (what a custom callable loss gets) is visibly biased
    plain = Loss("plain_log_loss", lambda yt, yp, c=None: logl(np.asarray(yp), np.asarray(yt)))
    p = IncrementalSAGE(f_clf, loss=plain, aggregation="mean", storage=DatasetStorage(BG),
                        n_samples=1, random_state=5)
    p.explain_many(stream_X, stream_y)
    se_p = np.sqrt(p.variances_ / p.n_explained_)
    assert np.any(np.abs(p.importances_ - exact) > 6 * se_p)


@pytest.mark.parametrize("loss", ["squared_error", "brier", "log_loss", "absolute_error",
                                  "zero_one"])
@pytest.mark.parametrize("n_samples", [1, 3, "auto"])
@pytest.mark.filterwarnings("ignore:IncrementalSAGE. n_samples=. raised to 32:UserWarning")
def test_ignored_feature_is_exactly_zero_for_every_setting(loss, n_samples):
    yc = (f_clf(X) > 0.5).astype(int)
    e = IncrementalSAGE(f_clf, loss=loss, n_samples=n_samples, random_state=0)
    e.explain_many(X, yc)
    assert abs(e.importances_[3]) < 1e-12 and np.all(np.isfinite(e.importances_))


# --------------------------------------------------------------------------- interface


def test_groups_history_and_bound():
    e = IncrementalSAGE(f_reg, loss="squared_error", groups={"g": ["x0", "x1"]},
                        history_every=20, random_state=0)
    for x, yy in zip(X, Y):
        e.explain_one(x, yy)
    assert e.players_ == ["g", "x2", "x3"]
    assert e.importances_.shape == e.variances_.shape == (3,)
    assert len(e.history_) == 3 and e.history_[-1][1].shape == (3,)
    assert e.confidence_bound(0.1).shape == (3,)


def test_one_model_call_per_observation_and_pickle_resume():
    calls = []

    def model(Z):
        calls.append(len(Z))
        return f_reg(Z)

    e = IncrementalSAGE(model, loss="squared_error", n_samples=4, random_state=9)
    for x, yy in zip(X[:10], Y[:10]):
        e.explain_one(x, yy)
    # the first row is only stored; each later row: 4 coalitions x 4 draws + f(x), one call
    assert calls == [4 * 4 + 1] * 9
    e.explain_many(X[10:30], Y[10:30])
    assert len(calls) == 10 and calls[-1] == 20 * 17

    f = IncrementalSAGE(f_reg, loss="squared_error", random_state=3)
    f.explain_many(X[:30], Y[:30])
    g = pickle.loads(pickle.dumps(f))
    f.explain_many(X[30:], Y[30:])
    g.explain_many(X[30:], Y[30:])
    np.testing.assert_array_equal(f.importances_, g.importances_)
    assert f.n_seen_ == g.n_seen_ == len(X)


def test_river_hoeffding_tree_on_records(agrawal):
    river = pytest.importorskip("river")
    from river.tree import HoeffdingTreeClassifier

    Xa, ya, names = agrawal[0][:200], agrawal[1][:200], agrawal[2]
    model = HoeffdingTreeClassifier(grace_period=50)
    e = IncrementalSAGE(model, loss="brier", n_samples=2, alpha=0.05, random_state=0)
    for row, label in zip(Xa, ya):
        x = dict(zip(names, row))
        e.explain_one(x, label)
        model.learn_one(x, label)
    assert river is not None and np.all(np.isfinite(e.importances_))
    assert e.importances_.sum() == pytest.approx(e.marginal_loss_ - e.model_loss_, abs=1e-12)
    assert e.players_ == names


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"loss": "hinge"}, ValueError, "'loss' parameter of IncrementalSAGE"),
        ({"n_samples": 0}, ValueError, "'n_samples' parameter of IncrementalSAGE"),
        ({"n_samples": "lots"}, ValueError, "'n_samples'"),
        ({"groups": ["x0"]}, TypeError, "'groups'"),
        ({"alpha": 0.0}, ValueError, "'alpha'"),
    ],
)
def test_invalid_arguments(kwargs, exc, match):
    kw = {"loss": "squared_error", **kwargs}
    with pytest.raises(exc, match=match):
        IncrementalSAGE(f_reg, **kw)


def test_unknown_group_member_and_missing_label():
    e = IncrementalSAGE(f_reg, loss="squared_error", groups={"g": ["nope"]})
    with pytest.raises(ValueError, match="unknown feature 'nope'"):
        e.explain_many(X[:5], Y[:5])
    with pytest.raises(ValueError, match="needs the label"):
        IncrementalSAGE(f_reg, loss="squared_error").explain_one(X[0])
