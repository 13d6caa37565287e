"""shapley_interactions of order 3 (closed form, plain enumeration, shapiq) and the
Shapley-kernel regression estimator (exact when every coalition is enumerated, close to the
exact values with sampled coalitions, efficient, batch-invariant; on a stream too)."""

import itertools
from math import factorial

import numpy as np
import pytest
from test_interactions import nonlinear, plain_game, plain_indices

from ixplain import IncrementalShapleyInteractions, shapley_interactions

# --------------------------------------------------------------------------- order 3


def triple_plus(Z):
    return Z[:, 0] * Z[:, 1] * Z[:, 2] + Z[:, 3]


BALANCED4 = np.array(list(itertools.product([-1.0, 1.0], repeat=4)) * 4)


@pytest.mark.parametrize("index", ["k-SII", "SII", "FSII"])
def test_order3_closed_form_triple_plus(index):
    """y = x0 x1 x2 + x3, x uniform on {-1, 1}^4 (a balanced design, also the background),
    f = the truth, squared loss. The mean prediction with S known is x0 x1 x2 1[{0,1,2} ⊆ S]
    + x3 1[3 ∈ S], so v(S) = 1[{0,1,2} ⊆ S] + 1[3 ∈ S]: Moebius terms m_012 = m_3 = 1.
    SII_S = sum_{T ⊇ S} m_T / (|T| - |S| + 1): Shapley values 1/3, 1/3, 1/3, 1; pairs
    (0,1), (0,2), (1,2) = 1/2, the others 0; triple (0,1,2) = 1, the others 0.
    k-SII of order 3: triple 1; pairs 1/2 - 1/2 * 1 = 0; mains 1/3 - 1/2 (1/2 + 1/2) + 1/6 * 1
    = 0 for 0, 1, 2 and 1 for 3: the Moebius terms, as for FSII (the game is 3-additive).
    k-SII and FSII sum to v(D) = 2."""
    y = triple_plus(BALANCED4)
    res = shapley_interactions(triple_plus, BALANCED4, y, loss="squared_error", index=index,
                               order=3, n_samples=None)
    sii = index == "SII"
    np.testing.assert_allclose(res.main_values, [1 / 3] * 3 + [1.0] if sii else [0, 0, 0, 1],
                               atol=1e-12)
    pairs = np.zeros((4, 4))
    if sii:
        for i, j in ((0, 1), (0, 2), (1, 2)):
            pairs[i, j] = pairs[j, i] = 0.5
    np.testing.assert_allclose(res.pair_values, pairs, atol=1e-12)
    cube = np.zeros((4, 4, 4))
    for p in itertools.permutations((0, 1, 2)):
        cube[p] = 1.0
    np.testing.assert_allclose(res.triple_values, cube, atol=1e-12)
    assert res.order == 3 and res.top_triples(1) == [("x0", "x1", "x2", pytest.approx(1.0))]
    if not sii:
        assert res.total == pytest.approx(2.0, abs=1e-12)


def test_order2_of_the_triple_game_spreads_the_triple_over_its_pairs():
    """The same game at order 2: k-SII pairs are the SII pairs (1/2 each) and the mains
    phi - 1/2 sum_j I_ij = 1/3 - 1/2 = -1/6 for 0, 1, 2; still efficient (sum 2)."""
    res = shapley_interactions(triple_plus, BALANCED4, triple_plus(BALANCED4),
                               loss="squared_error", n_samples=None)
    np.testing.assert_allclose(res.main_values, [-1 / 6] * 3 + [1.0], atol=1e-12)
    assert res.pair_values[0, 1] == pytest.approx(0.5) and res.triple_values is None
    assert res.total == pytest.approx(2.0, abs=1e-12)


def plain_triples(v, d):
    """SII of every triple from its definition: weights |T|! (d - |T| - 3)! / (d - 2)! of the
    third discrete derivative sum_{L ⊆ ijk} (-1)^(3 - |L|) v(T + L)."""
    out = {}
    for t in itertools.combinations(range(d), 3):
        others = [k for k in range(d) if k not in t]
        total = 0.0
        for r in range(d - 2):
            for T in itertools.combinations(others, r):
                w = factorial(r) * factorial(d - r - 3) / factorial(d - 2)
                delta = sum((-1) ** (3 - len(L)) * v[frozenset(T) | frozenset(L)]
                            for q in range(4) for L in itertools.combinations(t, q))
                total += w * delta
        out[t] = total
    return out


@pytest.fixture(scope="module")
def small5():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(30, 5))
    y = nonlinear(X) + rng.normal(scale=0.3, size=30)
    bg = rng.normal(size=(12, 5))
    return X, y, bg, plain_game(X, y, bg)


def test_order3_exact_equals_plain_enumeration(small5):
    """d = 5, a nonlinear model: SII triples from the definition; k-SII of order 3 from the
    plain SII by its Bernoulli formula (triples I_ijk, pairs I_ij - 1/2 sum_k I_ijk, mains
    phi_i - 1/2 sum_j I_ij + 1/6 sum_jk I_ijk), efficient."""
    X, y, bg, v = small5
    sv, sii, _ = plain_indices(v, 5)
    tri = plain_triples(v, 5)
    k_pairs, k_mains = sii.copy(), sv - 0.5 * sii.sum(axis=1)
    for (i, j, k), t in tri.items():
        for a, b in ((i, j), (i, k), (j, k)):
            k_pairs[a, b] -= 0.5 * t
            k_pairs[b, a] -= 0.5 * t
        for a in (i, j, k):
            k_mains[a] += t / 6
    for index, mains, pairs in (("SII", sv, sii), ("k-SII", k_mains, k_pairs)):
        res = shapley_interactions(nonlinear, X, y, loss="squared_error", index=index,
                                   order=3, background=bg, n_samples=None, method="exact")
        np.testing.assert_allclose(res.main_values, mains, rtol=0, atol=1e-10)
        np.testing.assert_allclose(res.pair_values, pairs, rtol=0, atol=1e-10)
        for t, val in tri.items():
            assert res.triple_values[t] == pytest.approx(val, abs=1e-10)
    assert res.total == pytest.approx(v[frozenset(range(5))], abs=1e-10)
    df = res.to_frame()
    assert list(df.columns) == ["feature_i", "feature_j", "feature_k", "value", "std"]
    assert len(df) == 5 + 10 + 10
    row = df[(df.feature_i == "x1") & (df.feature_j == "x2") & (df.feature_k == "x4")]
    assert row.value.iloc[0] == res.triple_values[1, 2, 4]


def test_order3_agrees_with_shapiq(small5):
    """shapiq's ExactComputer on the plain-loop game: SII and k-SII of order 3 to 1e-10,
    Faith-SII of order 3 to 1e-8."""
    shapiq = pytest.importorskip("shapiq")
    X, y, bg, v = small5

    def game(coalitions):
        return np.array([v[frozenset(np.flatnonzero(c).tolist())] for c in coalitions])

    computer = shapiq.ExactComputer(game, n_players=5)
    for index, tol in (("SII", 1e-10), ("k-SII", 1e-10), ("FSII", 1e-8)):
        iv = computer(index=index, order=3)
        res = shapley_interactions(nonlinear, X, y, loss="squared_error", index=index,
                                   order=3, background=bg, n_samples=None)
        for t in itertools.combinations(range(5), 3):
            assert res.triple_values[t] == pytest.approx(iv[t], abs=tol), (index, t)
        for i, j in itertools.combinations(range(5), 2):
            assert res.pair_values[i, j] == pytest.approx(iv[(i, j)], abs=tol), (index, i, j)
        for i in range(5):
            assert res.main_values[i] == pytest.approx(iv[(i,)], abs=tol), (index, i)


# --------------------------------------------------------------------------- regression


def _regression(X, y, bg, **kw):
    kw = {"loss": "squared_error", "background": bg, "n_samples": None,
          "method": "regression", "convergence_threshold": None, **kw}
    kw.setdefault("n_permutations", len(X))
    return shapley_interactions(nonlinear, X, y, **kw)


@pytest.mark.parametrize("order", [2, 3])
def test_regression_with_every_coalition_is_exact_faith_sii(small5, order):
    """With n_coalitions = 2^G - 1 the border design enumerates every coalition with its
    kernel weight, so the fit of each observation is its Faith-SII; one pass over the rows
    gives the mean of exact FSII (and, through the Moebius map, exact SII of the fitted
    game)."""
    X, y, bg, _ = small5
    exact = shapley_interactions(nonlinear, X, y, loss="squared_error", index="FSII",
                                 order=order, background=bg, n_samples=None, method="exact")
    res = _regression(X, y, bg, index="FSII", order=order, n_coalitions=31)
    np.testing.assert_allclose(res.main_values, exact.main_values, atol=1e-8)
    np.testing.assert_allclose(res.pair_values, exact.pair_values, atol=1e-8)
    if order == 3:
        np.testing.assert_allclose(res.triple_values, exact.triple_values, atol=1e-8)
    assert res.settings["method"] == "regression" and res.settings["n_coalitions"] == 31


def test_regression_estimate_is_close_to_exact_and_efficient(small5):
    """20 of the 31 coalitions per observation (sizes 1 and 4 enumerated, 2 and 3 sampled
    in complementary pairs), 3,000 sampled observations: the estimate is within a few
    standard errors (plus the documented O(1/K) least-squares bias, bounded here by 5% of
    the largest value) of exact Faith-SII, and every observation is efficient."""
    X, y, bg, _ = small5
    exact = shapley_interactions(nonlinear, X, y, loss="squared_error", index="FSII",
                                 background=bg, n_samples=None, method="exact")
    res = _regression(X, y, bg, index="FSII", n_coalitions=20, n_permutations=3000,
                      random_state=0)
    ref, est = exact.to_frame(), res.to_frame()
    err = np.abs(est["value"] - ref["value"])
    assert (err < 4 * est["std"] + 0.05 * np.abs(ref["value"]).max()).all()
    assert err.max() > 0  # the coalitions were sampled
    assert res.total == pytest.approx(res.settings["explained_loss"], abs=1e-10)


def test_regression_same_seed_same_result_for_any_batching(small5):
    X, y, bg, _ = small5
    a = _regression(X, y, bg, n_coalitions=20, n_permutations=70, batch_size=64,
                    random_state=4)
    b = _regression(X, y, bg, n_coalitions=20, n_permutations=70, batch_size=7,
                    random_state=4, n_jobs=2)
    # equal up to the rounding of merging the means of other blocks (as for "permutation")
    np.testing.assert_allclose(a.to_frame()["value"], b.to_frame()["value"], rtol=0, atol=1e-12)
    c = _regression(X, y, bg, n_coalitions=20, n_permutations=70, random_state=5)
    assert not np.array_equal(a.to_frame()["value"], c.to_frame()["value"])


def test_auto_uses_regression_above_the_exact_threshold():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 11))
    res = shapley_interactions(lambda Z: Z[:, 0] * Z[:, 1], X, X[:, 0] * X[:, 1],
                               loss="squared_error", n_samples=4, n_permutations=40,
                               convergence_threshold=None, random_state=0)
    assert res.settings["method"] == "regression"
    assert abs(res.settings["n_coalitions"] - 3 * (11 + 55)) <= 1  # pairs: even
    assert res.top_pairs(1)[0][:2] == ("x0", "x1")


def test_stream_regression_and_order3_match_the_static_game():
    """A running mean with the dataset as storage and every background row a draw is the
    static game: exact order 3 on the stream equals the static exact order-3 values, and the
    regression estimator with every coalition enumerated equals exact FSII."""
    from ixplain.storage import DatasetStorage

    X = BALANCED4
    y = triple_plus(X)
    for kw in ({"order": 3, "method": "exact"},
               {"index": "FSII", "method": "regression", "n_coalitions": 15}):
        e = IncrementalShapleyInteractions(
            triple_plus, loss="squared_error", aggregation="mean", n_samples=2,
            storage=DatasetStorage(X), random_state=0, **kw)
        e.explain_many(X, y)
        res = e.to_result()
        assert res.total == pytest.approx(e.marginal_loss_ - e.model_loss_, abs=1e-10)
        assert res.main_values[3] == pytest.approx(1.0, abs=0.2)
        if kw.get("order") == 3:
            assert res.triple_values is not None and res.top_triples(1)[0][:3] == (
                "x0", "x1", "x2")


# --------------------------------------------------------------------------- conditional removal


def copy_plus(Z):
    return Z[:, 0] + Z[:, 2]


@pytest.fixture(scope="module")
def copy_data():
    rng = np.random.default_rng(2)
    a = rng.choice([-1.0, 1.0], size=2000)
    X = np.column_stack([a, a, rng.choice([-1.0, 1.0], size=2000)])  # x1 is a copy of x0
    return X, copy_plus(X)


@pytest.mark.parametrize("method", ["exact", "regression"])
def test_conditional_removal_closed_form_on_a_copied_feature(copy_data, method):
    """x0 Rademacher, x1 = x0 (a copy the model ignores), x2 Rademacher independent,
    f = y = x0 + x2, squared loss. Marginal removal: v(S) = 1[0 ∈ S] + 1[2 ∈ S], so k-SII
    mains (1, 0, 1) and no pair. Conditional removal: a kept x1 reveals x0, so
    v(S) = 1[S ∩ {0, 1} ≠ ∅] + 1[2 ∈ S], whose Moebius terms are m_0 = m_1 = m_2 = 1 and
    m_01 = -1: k-SII (the Moebius terms of this 2-additive game) mains (1, 1, 1), pair
    (0, 1) = -1, the others 0; SII mains are the Shapley values 1/2, 1/2, 1. The sampler's
    trees on binary features have two leaves of ~1,000 rows, so the conditional draws are
    the conditional law up to O(1/sqrt(1000))."""
    X, y = copy_data
    kw = dict(loss="squared_error", method=method, random_state=0)
    if method == "regression":
        kw.update(n_coalitions=7, n_permutations=2000, convergence_threshold=None)
    marginal = shapley_interactions(copy_plus, X, y, **kw)
    close_to(marginal, [1, 0, 1], [0, 0, 0])
    assert marginal.main_values[1] == 0.0 or method == "regression"
    res = shapley_interactions(copy_plus, X, y, removal="conditional", **kw)
    close_to(res, [1, 1, 1], [-1, 0, 0])
    assert res.total == pytest.approx(res.settings["explained_loss"], abs=1e-10)
    assert res.settings["removal"] == "conditional"
    sii = shapley_interactions(copy_plus, X, y, removal="conditional", index="SII", **kw)
    close_to(sii, [0.5, 0.5, 1], [-1, 0, 0])


def close_to(res, mains, pairs):
    """Within 4 standard errors plus 0.03 (the sampler's and the background's own error)."""
    got, std = res.to_frame()["value"], res.to_frame()["std"]
    err = np.abs(got - np.array(mains + pairs, dtype=float))
    assert (err < 4 * std + 0.03).all(), (got.tolist(), std.tolist())


def test_conditional_removal_on_a_stream(copy_data):
    """The same game on a stream with the default ConditionalStorage: the running mean of
    the explanation gives the conditional values (pair (0, 1) = -1, x1's main term 1)."""
    X, y = copy_data
    e = IncrementalShapleyInteractions(copy_plus, loss="squared_error", removal="conditional",
                                       aggregation="mean", random_state=0)
    e.explain_many(X[:800], y[:800])
    close_to(e.to_result(), [1, 1, 1], [-1, 0, 0])
    with pytest.raises(TypeError, match="ConditionalStorage"):
        from ixplain.storage import UniformReservoir

        IncrementalShapleyInteractions(copy_plus, loss="squared_error", removal="conditional",
                                       storage=UniformReservoir(10))
