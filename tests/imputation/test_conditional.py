"""Conditional (observational) removal: closed forms, exact enumeration, no leak, streams.

Gaussian DGP (the issue's): x ~ N(0, Sigma), corr(x1, x2) = 0.9, x3, x4 independent,
y = x1 + x3 + N(0, 0.1^2), model f(x) = x1 + x3 (what a linear fit converges to), squared loss.
CFI of a block J given the rest: E[(f(x~) - y)^2] - E[(f(x) - y)^2] = 2 E[Var(beta_J' x_J | x_S)]
(the drawn and the true block are independent given x_S), so CFI(x1) = 2 (1 - 0.81) = 0.38,
CFI(x2) = 0 (f does not read x2), CFI(x3) = 2, CFI(x4) = 0, CFI({x1, x2} | x3, x4) = 2 Var(x1)
= 2.

Cubic DGP: x1 ~ U(-1, 1), x2 = x1^3 + N(0, 0.05^2), x3 ~ N(0, 1), f = x1 + x3:
CFI(x1) = 2 E[Var(x1 | x2, x3)] = 0.0553 (the issue's value, by numerical integration).
"""

import pickle

import numpy as np
import pandas as pd
import pytest

from ixplain import IncrementalPFI, IncrementalSAGE, permutation_importance, sage
from ixplain.imputation import (
    ConditionalSampler,
    ConditionalStorage,
    MarginalRemoval,
)

FEATS = {"x0": ["x0"], "x1": ["x1"], "x2": ["x2"], "x3": ["x3"], "pair": ["x0", "x1"]}
TRUTH = np.array([0.38, 0.0, 2.0, 0.0, 2.0])


def f_lin(A):
    return A[:, 0] + A[:, 2]


def gaussian(n, rho=0.9, seed=0):
    rng = np.random.default_rng(seed)
    C = np.eye(4)
    C[0, 1] = C[1, 0] = rho
    X = rng.multivariate_normal(np.zeros(4), C, size=n)
    return X, X[:, 0] + X[:, 2] + rng.normal(0, 0.1, n)


def cubic(n, seed=0):
    rng = np.random.default_rng(seed)
    x1 = rng.uniform(-1, 1, n)
    X = np.column_stack([x1, x1**3 + rng.normal(0, 0.05, n), rng.normal(size=n)])
    return X, x1 + X[:, 2] + rng.normal(0, 0.1, n)


def f_cubic(A):
    return A[:, 0] + A[:, 2]


def check_cfi(values):
    """x1, x3 and the pair within 10 %; x2 and x4 below 0.01."""
    rel = np.abs(values[[0, 2, 4]] / TRUTH[[0, 2, 4]] - 1)
    assert (rel < 0.10).all(), values
    assert (np.abs(values[[1, 3]]) < 0.01).all(), values


# ---------------------------------------------------------------------------- static
@pytest.fixture(scope="module")
def gauss():
    return gaussian(20_000)


def test_static_cfi_gaussian_and_pair(gauss):
    from sklearn.linear_model import LinearRegression

    X, y = gauss
    model = LinearRegression().fit(X, y)
    r = permutation_importance(model, X, y, loss="squared_error", n_repeats=1, random_state=0,
                               features=FEATS, removal="conditional")
    check_cfi(r.importances_mean)
    assert r.settings["removal"] == "conditional"


def test_static_cfi_cubic():
    X, y = cubic(20_000)
    r = permutation_importance(f_cubic, X, y, loss="squared_error", n_repeats=1,
                               random_state=0, removal="conditional")
    assert abs(r.importances_mean[0] / 0.0553 - 1) < 0.15


def test_marginal_removal_is_unchanged(gauss):
    X, y = gauss[0][:2000], gauss[1][:2000]
    a = permutation_importance(f_lin, X, y, loss="squared_error", random_state=3)
    b = permutation_importance(f_lin, X, y, loss="squared_error", random_state=3,
                               removal="marginal")
    np.testing.assert_array_equal(a.importances, b.importances)
    s1 = sage(f_lin, X[:300], y[:300], loss="squared_error", random_state=0, n_permutations=64,
              convergence_threshold=None)
    s2 = sage(f_lin, X[:300], y[:300], loss="squared_error", random_state=0, n_permutations=64,
              convergence_threshold=None, removal="marginal")
    np.testing.assert_array_equal(s1.importances_mean, s2.importances_mean)
    e1 = IncrementalPFI(f_lin, "squared_error", random_state=0)
    e2 = IncrementalPFI(f_lin, "squared_error", random_state=0, removal="marginal")
    np.testing.assert_array_equal(e1.explain_many(X, y), e2.explain_many(X, y))


def test_static_cfi_seeded_and_chunk_invariant(gauss):
    X, y = gauss[0][:3000], gauss[1][:3000]
    kw = dict(loss="squared_error", n_repeats=2, random_state=5, removal="conditional")
    a = permutation_importance(f_lin, X, y, **kw)
    b = permutation_importance(f_lin, X, y, memory_budget=40_000, **kw)  # many small chunks
    np.testing.assert_allclose(a.importances, b.importances, rtol=1e-12)  # same draws
    c = permutation_importance(f_lin, X, y, **dict(kw, random_state=6))
    assert not np.array_equal(a.importances, c.importances)


def exact_conditional_sage(beta, Sigma, noise_var):
    """Shapley values of v(S) = Var(f) - E Var(f | x_S) by enumeration of all subsets.

    For f = beta' x with x ~ N(0, Sigma) and squared loss, the loss of the best prediction
    given x_S is E[Var(beta' x | x_S)] + noise = beta_R' Sigma_{R|S} beta_R + noise, with
    R the complement and Sigma_{R|S} = Sigma_RR - Sigma_RS Sigma_SS^-1 Sigma_SR.
    """
    from itertools import combinations
    from math import factorial

    d = len(beta)

    def cond_var(S):
        R = [j for j in range(d) if j not in S]
        if not R:
            return 0.0
        if not S:
            return float(beta @ Sigma @ beta)
        S = list(S)
        SRR = Sigma[np.ix_(R, R)] - Sigma[np.ix_(R, S)] @ np.linalg.solve(
            Sigma[np.ix_(S, S)], Sigma[np.ix_(S, R)])
        return float(beta[R] @ SRR @ beta[R])

    v = {}
    for k in range(d + 1):
        for S in combinations(range(d), k):
            v[S] = cond_var(()) - cond_var(S)
    phi = np.zeros(d)
    for j in range(d):
        rest = [i for i in range(d) if i != j]
        for k in range(d):
            for S in combinations(rest, k):
                w = factorial(k) * factorial(d - k - 1) / factorial(d)
                phi[j] += w * (v[tuple(sorted(S + (j,)))] - v[S])
    return phi


def sage_dgp(n, seed=0):
    """Pairs (x0, x1) corr 0.8 and (x2, x3) corr 0.5, x4 independent; f = x0 + 0.5 x2 + x4."""
    Sigma = np.eye(5)
    Sigma[0, 1] = Sigma[1, 0] = 0.8
    Sigma[2, 3] = Sigma[3, 2] = 0.5
    beta = np.array([1.0, 0.0, 0.5, 0.0, 1.0])
    rng = np.random.default_rng(seed)
    X = rng.multivariate_normal(np.zeros(5), Sigma, size=n)
    return X, X @ beta, beta, Sigma


def test_conditional_sage_matches_exact_enumeration():
    X, y, beta, Sigma = sage_dgp(6000)
    exact = exact_conditional_sage(beta, Sigma, 0.0)
    r = sage(lambda A: A @ beta, X, y, loss="squared_error", random_state=0,
             removal="conditional", convergence_threshold=0.02)
    err = np.abs(r.importances_mean - exact)
    # within 3 standard errors, plus the sampler's bias from finite leaves (small here)
    assert (err <= 3 * r.importances_std + 0.02).all(), (r.importances_mean, exact)
    # the correlated, unused x1 gets credit, the marginal reading gives it 0
    assert exact[1] > 0.2 and r.importances_mean[1] > 0.2


# ---------------------------------------------------------------------------- no leak
@pytest.mark.slow
def test_no_leak_partial_correlation_and_two_sample_auc(gauss):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score

    X = gauss[0][:10_000]
    n = len(X)
    s = ConditionalSampler().fit(X)
    removed = np.zeros((n, 4), dtype=bool)
    removed[:, [0, 1]] = True  # J = {x1, x2}, S = {x3, x4}
    u = np.random.default_rng(1).random((n, s.width(4)))
    don = s.donors(s.encode(s.data_), np.arange(n), removed, u, exclude=np.arange(n))
    drawn = X.copy()
    drawn[:, :2] = X[don[:, :2], [0, 1]]
    def partial_corr(a, b, S):
        """Correlation of the residuals of a and b after a linear fit on x_S (Gaussian)."""
        S = np.column_stack([np.ones(n), S])
        ra = a - S @ np.linalg.lstsq(S, a, rcond=None)[0]
        rb = b - S @ np.linalg.lstsq(S, b, rcond=None)[0]
        return np.corrcoef(ra, rb)[0, 1]

    for j in (0, 1):
        assert abs(partial_corr(drawn[:, j], X[:, j], X[:, 2:])) < 0.05
    # single feature J = {x1} given S = {x2, x3, x4}: no leak either
    removed1 = np.zeros((n, 4), dtype=bool)
    removed1[:, 0] = True
    don1 = s.donors(s.encode(s.data_), np.arange(n), removed1, u, exclude=np.arange(n))
    assert abs(partial_corr(X[don1[:, 0], 0], X[:, 0], X[:, 1:])) < 0.05
    # two-sample test: (x_S, x~_J) vs (x_S, x_J), held-out AUC
    half = n // 2
    Z = np.vstack([X[:half], drawn[half:]])
    lab = np.r_[np.zeros(half), np.ones(n - half)]
    perm = np.random.default_rng(2).permutation(n)
    tr, te = perm[: n // 2], perm[n // 2 :]
    clf = HistGradientBoostingClassifier(max_iter=50, random_state=0).fit(Z[tr], lab[tr])
    assert roc_auc_score(lab[te], clf.predict_proba(Z[te])[:, 1]) <= 0.55


def test_draws_stay_in_support_and_categories():
    rng = np.random.default_rng(0)
    n = 3000
    age = rng.integers(20, 81, n).astype(float)
    color = np.where(age > 50, "red", "blue").astype(object)
    import pandas as pd

    df = pd.DataFrame({"age": age, "color": pd.Categorical(color), "z": rng.normal(size=n)})
    s = ConditionalSampler().fit(df)
    out = s.sample(df, ["age", "color"], random_state=0).to_frame()
    assert out["age"].between(20, 80).all() and set(out["age"]) <= set(age)
    assert set(out["color"].astype(str)) <= {"red", "blue"}
    one = s.sample(df, ["age"], random_state=0).to_frame()  # age given color: same side of 50
    assert ((one["age"] > 50) == (df["color"] == "red")).mean() > 0.99
    # an unseen level in a kept feature: treated as unavailable (drawn by weight), no error
    bad = df.head(50).copy()
    bad["color"] = pd.Categorical(["green"] * 50)
    drawn = s.sample(bad, ["age"], random_state=0).to_frame()
    assert drawn["age"].between(20, 80).all() and (drawn["age"] > 50).mean() > 0.2


def test_marginal_removal_object():
    m = MarginalRemoval().fit(np.arange(12.0).reshape(6, 2))
    removed = np.ones((6, 2), dtype=bool)
    u = np.linspace(0, 0.999, 6)[:, None]
    don = m.donors(m.encode(m.data_), np.arange(6), removed, u, exclude=np.arange(6))
    assert (don[:, 0] == don[:, 1]).all() and (don[:, 0] != np.arange(6)).all()


# ---------------------------------------------------------------------------- stream
def stream_pfi(X, y, f, **kw):
    e = IncrementalPFI(f, "squared_error", random_state=0, removal="conditional",
                       **{"aggregation": "mean", **kw})
    return e, e.explain_many(X, y)


def test_stream_cfi_gaussian_and_pair(gauss):
    X, y = gauss
    e = IncrementalPFI(f_lin, "squared_error", aggregation="mean", random_state=0,
                       removal="conditional", storage=ConditionalStorage(2000, 2000))
    values = e.explain_many(X, y)
    assert abs(values[0] / 0.38 - 1) < 0.10 and abs(values[2] / 2 - 1) < 0.10
    assert (np.abs(values[[1, 3]]) < 0.01).all()
    # the pair {x1, x2} given {x3, x4}, drawn jointly (as iSAGE's coalitions draw it) by the
    # storage's sampler after the stream, on fresh rows of the same DGP
    s = e.storage.sampler_
    n = 5000
    removed = np.zeros((n, 4), dtype=bool)
    removed[:, :2] = True
    u = np.random.default_rng(0).random((n, s.width(4)))
    Xn, yn = gaussian(n, seed=9)
    don = s.donors(s.encode(_table(Xn)), np.arange(n), removed, u)
    drawn = Xn.copy()
    data = np.column_stack([s.data_.numeric_column(c) for c in s.data_.names])
    drawn[:, :2] = data[don[:, :2], [0, 1]]
    pair = np.mean((f_lin(drawn) - yn) ** 2 - (f_lin(Xn) - yn) ** 2)
    assert abs(pair / 2 - 1) < 0.10


def _table(X):
    from ixplain import as_table

    return as_table(X)


def test_stream_cfi_cubic():
    X, y = cubic(20_000)
    e = IncrementalPFI(f_cubic, "squared_error", aggregation="mean", random_state=0,
                       removal="conditional", storage=ConditionalStorage(4000, 4000))
    assert abs(e.explain_many(X, y)[0] / 0.0553 - 1) < 0.15


def test_stream_batch_invariant_and_pickle(gauss):
    X, y = gauss[0][:1200], gauss[1][:1200]

    def make():
        return IncrementalPFI(f_lin, "squared_error", random_state=4, removal="conditional",
                              storage=ConditionalStorage(300, 100))

    a = make()
    for i in range(300):
        a.explain_one(X[i], y[i])
    b = make()
    for s in range(0, 300, 37):
        e = min(s + 37, 300)
        b.explain_many(X[s:e], y[s:e])
    # the same draws for every row, the same leaf pools: bit for bit
    np.testing.assert_array_equal(a.importances_, b.importances_)
    for p, q in zip(a.storage._conformance_state(), b.storage._conformance_state()):
        np.testing.assert_array_equal(p, q)
    c = pickle.loads(pickle.dumps(a))
    a.explain_many(X[300:], y[300:])
    c.explain_many(X[300:], y[300:])
    np.testing.assert_array_equal(a.importances_, c.importances_)
    d = IncrementalPFI(f_lin, "squared_error", random_state=5, removal="conditional",
                       storage=ConditionalStorage(300, 100))
    assert not np.array_equal(d.explain_many(X, y), a.importances_)


@pytest.mark.parametrize("reservoir", ["uniform", "geometric"])
def test_stream_leaf_pools_take_every_row(reservoir):
    """Between two refits the leaf pools take the new rows. x1 ~ N(0, 1); x0 = x1 + e for rows
    0..1023, x0 = x1 + 5 + e after (e ~ N(0, 0.1^2)); refits at rows 1, 2, 4, ..., 1024 only,
    so rows 1024..2046 reach the sampler through the pools alone. A draw of x0 given x1 comes
    from x1's leaf of tree x0 (x1 is the only split feature), which holds old values (x0 - x1
    ~ 0) and new ones (~ 5) (the stream stops at row 2046, before the refit of row 2048). For the uniform reservoir each leaf's pool is a uniform sample of
    the values it was offered since the refit, so E[x0~ - x1] = 5 f with f = N_new / N_offered
    (every leaf gets the same share of new rows: the x1 distribution does not change), read
    from the tree's counters. The geometric reservoir forgets the old values faster: f is at
    least that. A sampler rebuilt only at refits would give 0."""
    rng = np.random.default_rng(0)
    n = 2047
    x1 = rng.normal(size=n)
    x0 = x1 + 0.1 * rng.normal(size=n) + np.where(np.arange(n) >= 1024, 5.0, 0.0)
    s = ConditionalStorage(size=1024, refit_every=10**6, reservoir=reservoir, random_state=0)
    s.update_many(np.column_stack([x0, x1])[:1024])
    offered0 = int(s.sampler_.trees_[0][0].seen.sum())
    s.update_many(np.column_stack([x0, x1])[1024:])
    assert s.fitted_at_ == 1024
    offered = int(s.sampler_.trees_[0][0].seen.sum())
    f = (offered - offered0) / offered
    q = rng.normal(size=4000)
    drawn = s.sampler_.sample(np.column_stack([q + 5, q]), ["x0"], random_state=1).to_frame()
    shift = float(np.mean(drawn["x0"].to_numpy() - q))
    if reservoir == "uniform":
        assert abs(shift - 5 * f) < 0.2, (shift, 5 * f)
    else:
        assert shift > 5 * f - 0.2, (shift, 5 * f)
    assert shift > 2.5


def test_stream_isage_conditional_efficiency(gauss):
    X, y = gauss[0][:1500], gauss[1][:1500]
    e = IncrementalSAGE(f_lin, loss="squared_error", aggregation="mean", random_state=0,
                        removal="conditional", storage=ConditionalStorage(500, 250))
    values = e.explain_many(X, y)
    assert np.isclose(values.sum(), e.marginal_loss_ - e.model_loss_)
    # x2 is read through x1's information only: about 0.81 / 2 of Var(x1) shared
    assert values[1] > 0.2 and values[0] > values[1]


def switching_stream(n_before, n_after, rho_before, rho_after, seed=1):
    """The Gaussian DGP with corr(x1, x2) = rho_before for rows < n_before, rho_after after;
    y = x1 + x3 (f reproduces it: the model does not drift, the data's dependence does)."""
    X = np.vstack([gaussian(n_before, rho=rho_before, seed=seed)[0],
                   gaussian(n_after, rho=rho_after, seed=seed + 1)[0]])
    return X, X[:, 0] + X[:, 2]


def streaming_block_cfi(X, y, storage, block, alpha, warm=1000, batch=250, seed=0):
    """iPFI's recursion for a block removed jointly, written out: for every row t >= warm,
    lambda_t = (f(x~) - y)^2 - (f(x) - y)^2 with x~_block drawn jointly given the other features
    by the storage's sampler *as it is when row t arrives* (then row t is stored), and phi_t =
    (1 - alpha) phi_{t-1} + alpha lambda_t from phi = 0. (IncrementalPFI explains single
    features; this is its explanation function for the block, with the ConditionalStorage it
    uses.) Returns phi after every row (NaN before ``warm``)."""
    n, d = X.shape
    names = [f"x{j}" for j in range(d)]
    mask = np.zeros(d, dtype=bool)
    mask[block] = True
    rng = np.random.default_rng(seed)
    storage.update_many(X[:warm])
    phi, out = 0.0, np.full(n, np.nan)
    for s in range(warm, n, batch):
        part, B = X[s : s + batch], len(X[s : s + batch])
        cols = {name: part[:, j] for j, name in enumerate(names)}
        lam = np.empty(B)
        for start, stop, b in storage.segments(B):
            cond = storage.sampler_at(b, cols, start, stop)
            rows = np.arange(start, stop)
            don = cond.donors(part, rows, np.tile(mask, (len(rows), 1)),
                              rng.random((len(rows), cond.width(d))))
            values = np.column_stack([cond.data_.numeric_column(c) for c in names])
            drawn = part[rows].copy()
            drawn[:, block] = values[don[:, block], block]
            lam[rows] = (f_lin(drawn) - y[s + rows]) ** 2 - (f_lin(part[rows]) - y[s + rows]) ** 2
        storage.update_many(part)
        for i, value in enumerate(lam):
            phi = (1 - alpha) * phi + alpha * value
            out[s + i] = phi
    return out


@pytest.mark.slow
def test_drift_pair_cfi_after_a_covariance_switch():
    """The issue's drift test, as stated: corr(x1, x2) switches from 0.9 to 0 at row 10,000;
    after 2 / alpha rows the streaming pair CFI is within 10 % of the new truth.

    The pair's truth, before and after: CFI({x1, x2} | x3, x4) = E[(x1~ - x1)^2] (f = x1 + x3,
    y = f) with x1~ drawn from P(x1 | x3, x4) = P(x1) (the pair is independent of x3, x4 in
    both regimes), so = Var(x1~) + Var(x1) = 2 before the switch and 2 after it: the switch does
    not move the pair's truth. The EMA of an exact sampler stays at 2 (its start-up bias
    (1 - alpha)^9000 = 1e-4 is gone by row 10,000), so the test checks the joint draw of the
    block across the switch (a sampler drawing x1 given the *original* x2, ixai's error, gives
    0.38 before the switch). Note what it cannot check: a sampler that never learnt the new
    independence gives 2 as well (x1~ ~ N(0.9 x2, 0.19) has variance 1 and is independent of
    x1 after the switch); the tests below check that the sampler follows."""
    alpha = 0.001
    k = int(2 / alpha)
    X, y = switching_stream(10_000, k, 0.9, 0.0)
    phi = streaming_block_cfi(X, y, ConditionalStorage(500, 100, random_state=0), [0, 1],
                              alpha)
    assert abs(phi[9_999] / 2 - 1) < 0.10, phi[9_999]  # before the switch: truth 2
    assert abs(phi[10_000 + k - 1] / 2 - 1) < 0.10, phi[10_000 + k - 1]


@pytest.mark.slow
def test_drift_single_feature_cfi_follows_the_switch():
    """CFI(x1) 0.38 -> 2 when corr(x1, x2) switches from 0.9 to 0 at row T = 10,000.

    Truth: 2 E[Var(x1 | x2, x3, x4)] = 2 (1 - rho^2): 0.38 before, 2 after. The EMA with an
    exact sampler after k rows of the new regime is (1 - alpha)^k phi_T + (1 - (1 - alpha)^k) 2
    = 2 - 1.62 (1 - alpha)^k (phi_T = 0.38; the start-up bias (1 - alpha)^T = 5e-5 is
    negligible). At k = 2 / alpha = 2000: (0.999)^2000 = 0.1352, so 2 - 0.219 = 1.781, 11 % below
    the new truth: "within 10 % of the new truth after 2 / alpha rows" is unreachable for a
    single feature even with an exact sampler, so the estimate is checked against the smoothed
    truth there (10 %), and against the new truth at k = 4 / alpha (smoothed truth 1.970, lag
    1.5 %). The sampler's own lag (a window of 500 rows refitted every 100) is short next to
    1 / alpha. In this direction a stale sampler also gives 2 (previous test's docstring); the
    next test reverses the switch."""
    alpha = 0.001
    X, y = switching_stream(10_000, 4000, 0.9, 0.0)
    e = IncrementalPFI(f_lin, "squared_error", alpha=alpha, random_state=0,
                       removal="conditional", storage=ConditionalStorage(500, 100))
    e.explain_many(X[:10_000], y[:10_000])
    assert abs(e.importances_[0] / 0.38 - 1) < 0.20
    k = int(2 / alpha)
    e.explain_many(X[10_000 : 10_000 + k], y[10_000 : 10_000 + k])
    smoothed = 2 - 1.62 * (1 - alpha) ** k
    assert abs(smoothed - 1.781) < 1e-3
    assert abs(e.importances_[0] / smoothed - 1) < 0.10
    assert abs(e.importances_[2] / 2 - 1) < 0.10
    e.explain_many(X[10_000 + k :], y[10_000 + k :])
    assert abs(e.importances_[0] / 2 - 1) < 0.10


@pytest.mark.slow
def test_drift_single_feature_cfi_follows_a_switch_to_dependence():
    """The reverse switch, where following matters: corr(x1, x2) 0 -> 0.9 at row T = 10,000,
    CFI(x1) 2 -> 0.38. A sampler that kept the old independence would draw x1~ ~ N(0, 1)
    independently of x1 and give 2 after the switch.

    Smoothed truth with an exact sampler: 0.38 + 1.62 (1 - alpha)^k, 0.599 at k = 2 / alpha.
    The sampler's lag adds at most alpha L 1.62 (1 - alpha)^(k - L) for L = 600 rows (the
    window of 500 holds only new rows after 500 rows, refitted within 100): 0.001 * 600 * 1.62
    * 0.999^1400 = 0.24 (loose: the draws improve through the lag, and the pools take the new
    rows within the old leaves at once). So the estimate must lie in [0.599, 0.84] (checked
    with 10 % slack), far from the stale sampler's 2. At k = 6 / alpha the lag is gone
    (smoothed truth 0.384, lag bound 0.004): the estimate equals, within 3 %, that of the same
    explainer on a stream correlated throughout (the same last 6000 rows, the same seed: once
    both windows hold only those rows their samplers and draws are the same, and what is left
    is the decayed memory of the lag, at most 1.62 * 0.999^5400 = 0.007), and the truth
    0.38 within 15 % -- a 500-row window's trees (250 rows per tree, leaves of 5) overstate the
    conditional variance by about 10 % (the module's documented bias; 2000-row windows: 8 %,
    the whole 20,000 rows: 2 %)."""
    alpha = 0.001
    X, y = switching_stream(10_000, 6000, 0.0, 0.9)
    Xs, ys = switching_stream(10_000, 6000, 0.9, 0.9)
    assert np.array_equal(X[10_000:], Xs[10_000:])

    def make():
        return IncrementalPFI(f_lin, "squared_error", alpha=alpha, random_state=0,
                              removal="conditional", storage=ConditionalStorage(500, 100))

    e, ref = make(), make()
    e.explain_many(X[:10_000], y[:10_000])
    assert abs(e.importances_[0] / 2 - 1) < 0.10
    k = int(2 / alpha)
    e.explain_many(X[10_000 : 10_000 + k], y[10_000 : 10_000 + k])
    smoothed = 0.38 + 1.62 * (1 - alpha) ** k
    assert 0.9 * smoothed < e.importances_[0] < 1.1 * (smoothed + 0.24), e.importances_[0]
    e.explain_many(X[10_000 + k :], y[10_000 + k :])
    ref.explain_many(Xs, ys)
    assert abs(e.importances_[0] / ref.importances_[0] - 1) < 0.03
    assert abs(e.importances_[0] / 0.38 - 1) < 0.15, e.importances_[0]


# ---------------------------------------------------------------------------- bad input
def test_bad_input():
    X, y = gaussian(200)
    with pytest.raises(ValueError, match="'removal' parameter of permutation_importance"):
        permutation_importance(f_lin, X, y, loss="squared_error", removal="cond")
    with pytest.raises(ValueError, match="needs loss"):
        permutation_importance(f_lin, X, y, removal="conditional")
    with pytest.raises(ValueError, match="'removal' parameter of sage"):
        sage(f_lin, X, y, loss="squared_error", removal="x")
    with pytest.raises(ValueError, match="'removal' parameter of IncrementalPFI"):
        IncrementalPFI(f_lin, "squared_error", removal=None)
    with pytest.raises(TypeError, match="must be a ConditionalStorage"):
        from ixplain import GeometricReservoir

        IncrementalSAGE(f_lin, loss="squared_error", removal="conditional",
                        storage=GeometricReservoir(10))
    Xn = X.copy()
    Xn[5, 2] = np.nan
    with pytest.raises(ValueError, match="column 'x2' contains NaN"):
        permutation_importance(f_lin, Xn, y, loss="squared_error", removal="conditional")
    with pytest.raises(ValueError, match="'refit_every' parameter of ConditionalStorage"):
        ConditionalStorage(refit_every=0)
    with pytest.raises(ValueError, match="'min_samples_leaf' parameter"):
        ConditionalSampler(min_samples_leaf=0)


@pytest.mark.parametrize("policy", ["skip", "raise", "pass"])
def test_nan_policies_stream(policy):
    X, y = gaussian(600)
    X[100, 1] = np.nan
    e = IncrementalPFI(lambda A: np.nan_to_num(A[:, 0] + A[:, 2]), "squared_error",
                       random_state=0, removal="conditional", nan_policy=policy,
                       storage=ConditionalStorage(200, 50))
    if policy == "raise":
        with pytest.raises(ValueError, match="feature 'x1' is NaN"):
            e.explain_many(X, y)
        return
    if policy == "skip":
        with pytest.warns(RuntimeWarning, match="NaN"):
            values = e.explain_many(X, y)
    else:
        values = e.explain_many(X, y)
    assert np.isfinite(values).all()
    assert e.n_skipped_ == (1 if policy == "skip" else 0)


def test_stream_categorical_feature_with_a_new_level():
    """c = "hi" iff a > 0, with a level "new" the window has never seen from row 1000 on: c
    given a adds almost nothing (its conditional draw agrees with it), a given c a lot."""
    rng = np.random.default_rng(0)
    n = 1500
    a = rng.normal(size=n)
    col = np.where(a > 0, "hi", "lo").astype(object)
    col[1000:1050] = "new"
    recs = [{"a": float(a[i]), "c": col[i], "z": float(rng.normal())} for i in range(n)]

    def f(R):
        return np.array([r["a"] + (r["c"] == "hi") + r["z"] for r in R])

    e = IncrementalPFI(f, "squared_error", aggregation="mean", random_state=0,
                       removal="conditional", storage=ConditionalStorage(400, 100))
    values = e.explain_many(recs, f(recs))
    assert np.isfinite(values).all() and e.n_explained_ == n - 1
    assert values[1] < 0.15 and values[0] > 0.4 and abs(values[2] / 2 - 1) < 0.2


def test_stream_isage_conditional_batch_invariant_and_pickle(gauss):
    X, y = gauss[0][:600], gauss[1][:600]

    def make():
        return IncrementalSAGE(f_lin, loss="squared_error", random_state=0,
                               removal="conditional", storage=ConditionalStorage(200, 100))

    a = make()
    for i in range(300):
        a.explain_one(X[i], y[i])
    b = make()
    b.explain_many(X[:300], y[:300])
    np.testing.assert_allclose(a.importances_, b.importances_, rtol=1e-12)
    c = pickle.loads(pickle.dumps(b))
    np.testing.assert_array_equal(b.explain_many(X[300:], y[300:]),
                                  c.explain_many(X[300:], y[300:]))


@pytest.mark.parametrize("label", ["IncrementalSAGE[conditional]",
                                   "IncrementalShapleyInteractions[conditional]"])
def test_ignored_independent_feature_is_zero_exactly_when_the_sampler_ignores_it(label,
                                                                                 monkeypatch):
    """Why these two opt out of the conformance suite's ``ignored_feature`` case, and what holds.

    In the reference stream ``a, b, c`` are independent and ``f = 2 a + b`` ignores ``c``, so
    the exact conditional value of ``c`` is 0. A coalition ``S`` and ``S + {c}`` draw their
    removed ``a``/``b`` with the same uniforms (common random numbers), but given the drawn
    ``c`` in one and the real ``c`` in the other: the draws, hence the losses, are equal --
    and ``c``'s contribution is exactly 0 on every row -- only if the trees of ``a`` and ``b``
    never split on ``c``. Trees grown on the check's 60-row windows do split on it
    (spuriously), so the value after the stream is sampling noise, not 0 to 1e-9. With trees
    that cannot split on ``c`` (its column hidden from the trees of the other features) the
    check passes; it fails if the coalitions of a row stop sharing their uniforms.
    """
    from ixplain import checks
    from ixplain.imputation import conditional

    case = checks.removal_cases()[label]
    with pytest.raises(AssertionError, match="ignored feature got"):  # the learned trees
        checks.EXPLAINER_CHECKS["ignored_feature"](case)
    real = conditional._fit_tree

    def blind_to_c(Z, j, *args, **kwargs):
        if j != 2:  # the trees of a and b see a constant c: no split on it
            Z = Z.copy()
            Z[:, 2] = 0.0
        return real(Z, j, *args, **kwargs)

    monkeypatch.setattr(conditional, "_fit_tree", blind_to_c)
    checks.EXPLAINER_CHECKS["ignored_feature"](case)


def test_durations_are_coded_as_seconds_in_time_order():
    """The levels of a categorical feature of durations were coded by ``repr``
    (``Timedelta('10 days')`` before ``Timedelta('9 days')``), so a tree's split on the codes
    was no split in time. Durations are now numbers, seconds from the median duration (10
    days: the 500th of 1000 values, 50 per day): x = the number of days of d, and one split of
    the tree for x given d (max_depth=1) puts the draws for the short durations (1-10 days)
    among the short ones' x exactly; with the repr order the split mixed 2-9 days with
    11-19."""
    days = np.tile(np.arange(1, 21), 50)
    rng = np.random.default_rng(0)
    rng.shuffle(days)
    df = pd.DataFrame({"d": pd.to_timedelta(days, unit="D"), "x": days.astype(float)})
    s = ConditionalSampler(max_depth=1, min_samples_leaf=5).fit(df)
    codes = s.encode(s.data_)[:, 0]
    np.testing.assert_array_equal(codes, (days - 10) * 86400.0)
    drawn = s.sample(df, ["x"], random_state=0).to_native()["x"].to_numpy()
    short = days <= 10
    assert drawn[short].max() <= 10 and drawn[~short].min() >= 11


def test_conditional_sage_of_an_ignored_independent_feature_is_near_zero():
    """Independent features: conditional SAGE is marginal SAGE, the ignored x2 gets 0.

    The leaves' pool means are noisy; a kept feature the trees split on fixes the leaf (a
    small pool) where a removed one mixes the leaves, so with leaves of 5 (the sampler's
    default at 800 rows) x2 got -8.8 and x0 111.4 over 4 seeds (marginal: 100.6, 0). SAGE fits
    its sampler with ``averaged_leaf`` leaves (20 here); the residual bias falls like 1 / leaf.
    """
    from ixplain.imputation.conditional import averaged_leaf

    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 3))

    def f(A):
        return 10 * A[:, 0] + A[:, 1]

    y = f(X)
    runs = [sage(f, X, y, loss="squared_error", removal="conditional", random_state=s)
            for s in range(3)]
    mean = np.mean([r.importances_mean for r in runs], axis=0)
    se = np.sqrt(np.mean([r.importances_std ** 2 for r in runs], axis=0) / len(runs))
    marginal = sage(f, X, y, loss="squared_error", random_state=0).importances_mean
    assert abs(mean[2]) < 3 * se[2], (mean, se)
    assert abs(mean[0] - marginal[0]) < 3 * np.hypot(se[0], 1.0), (mean, marginal, se)
    assert averaged_leaf(800) == 20 and averaged_leaf(10**6) == 50 and averaged_leaf(10) == 5
