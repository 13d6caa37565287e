"""Copies of one quantity (exact, or a strictly monotone transform) under several names are
treated alike by conditional removal: a removed copy is drawn given the kept copy, whichever
copy the sampler's trees split on; so symmetric copies get equal SAGE values."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from ixplain import ConditionalSampler, ConditionalStorage, sage, shapley_interactions
from ixplain.imputation._aliases import alias_groups


def _copies(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=n)
    return np.column_stack([a, a, a, b]), 3 * a + b + 0.1 * rng.normal(size=n)


def _drawn(table):
    return np.column_stack([np.asarray(v, dtype=float) for v in table.columns.values()])


REMOVALS = [["x1", "x2"], ["x0", "x2"], ["x0", "x1"]]


@pytest.mark.parametrize("removed", REMOVALS)
def test_removed_copies_follow_the_kept_copy(removed):
    # before: with x0 kept, the draws of x1 and x2 correlated 0.43 with it (the trees split
    # on the removed copy and went down by weight)
    X, _ = _copies()
    s = ConditionalSampler(min_samples_leaf=20).fit(X)
    d = s.sample(X, removed, random_state=0).to_native()
    kept = next(c for c in range(3) if f"x{c}" not in removed)
    for c in range(3):
        assert np.corrcoef(d[:, c], X[:, kept])[0, 1] > 0.98


def test_all_copies_removed_are_drawn_together():
    # before: x2 drawn with correlation 0.82 to x0 and x1
    X, _ = _copies()
    s = ConditionalSampler(min_samples_leaf=20).fit(X)
    d = s.sample(X, ["x0", "x1", "x2"], random_state=0).to_native()
    c = np.corrcoef(d[:, :3].T)
    assert c.min() > 0.98
    assert abs(np.corrcoef(d[:, 0], X[:, 0])[0, 1]) < 0.1  # nothing kept: no leak of a


def test_a_change_of_unit_is_an_alias():
    X, _ = _copies()
    a = X[:, 0]
    Z = np.column_stack([a, 1.8 * a + 32, -2 * a, X[:, 3], X[:, 3] + 1e-3 * a])
    groups = alias_groups(Z)
    assert [g.cols.tolist() for g in groups] == [[0, 1, 2]]
    assert groups[0].increasing.tolist() == [True, True, False]
    np.testing.assert_allclose(groups[0].mapped(a[:5], 0, 1), 1.8 * a[:5] + 32)
    np.testing.assert_allclose(groups[0].mapped(-2 * a[:5], 2, 0), a[:5])
    s = ConditionalSampler(min_samples_leaf=20).fit(Z)
    d = s.sample(Z, ["x0", "x2"], random_state=0).to_native()
    assert np.corrcoef(d[:, 0], a)[0, 1] > 0.98
    assert np.corrcoef(d[:, 2], a)[0, 1] < -0.98


def test_noisy_near_copies_are_distinct_features():
    rng = np.random.default_rng(1)
    a = rng.normal(size=500)
    Z = np.column_stack([a, a + 0.01 * rng.normal(size=500), np.round(a, 1)])
    assert alias_groups(Z) == []  # neither noise nor rounding is a one-to-one relation


def test_stream_storage_draws_removed_copies_given_the_kept_one():
    # before: the storage's sampler drew x1, x2 with correlation 0.21 to the kept x0
    X, _ = _copies(2100)
    st = ConditionalStorage(size=2000, refit_every=500, random_state=0)
    st.update_many(X[:2050])
    for removed in REMOVALS:
        d = _drawn(st.sampler_.sample(X[2050:], removed, random_state=0))
        kept = next(c for c in range(3) if f"x{c}" not in removed)
        for c in range(3):
            assert np.corrcoef(d[:, c], X[2050:, kept])[0, 1] > 0.98


def test_conditional_sage_gives_identical_copies_equal_values():
    # before (40,000 orders): 2.30 / 3.42 / 3.18 with standard errors 0.03-0.04; after
    # 3.03 / 2.94 / 2.93 (0.04); symmetry: 3 each, their sum the 9 of a
    X, y = _copies()
    model = LinearRegression().fit(X, y)
    r = sage(model, X, y, loss="squared_error", removal="conditional", random_state=0,
             n_permutations=6000, convergence_threshold=None)
    v, se = r.importances_mean[:3], r.importances_std[:3]
    for i in range(3):
        for k in range(i):
            assert abs(v[i] - v[k]) < 4 * np.hypot(se[i], se[k])
    assert abs(v.sum() - 9) < 6 * np.sqrt((se ** 2).sum()) + 0.3


def test_conditional_shapley_interactions_treat_identical_copies_alike():
    # before: main terms 2.27 / 3.42 / 3.20 (se 0.09-0.13), pairs -3.37 / -2.94 / -5.24;
    # after 2.968 / 2.964 / 2.966 (se 0.11), every pair -4.40
    X, y = _copies()
    model = LinearRegression().fit(X, y)
    r = shapley_interactions(model, X, y, loss="squared_error", removal="conditional",
                             index="SII", random_state=0)
    v, se = r.main_values[:3], r.main_std[:3]
    for i in range(3):
        for k in range(i):
            assert abs(v[i] - v[k]) < 4 * np.hypot(se[i], se[k])
    pairs = [r.pair_values[0, 1], r.pair_values[0, 2], r.pair_values[1, 2]]
    assert np.ptp(pairs) < 0.1 * abs(np.mean(pairs))
