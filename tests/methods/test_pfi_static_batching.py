"""Static permutation_importance's batching: scikit-learn's model rows and no more, each
permutation drawn once, and the same bits however the rows are chunked (issue 27, item 4).

The case that regressed: when the permutations of all (group, repeat) pairs do not fit a
quarter of ``memory_budget``, every chunk of rows drew every permutation of all rows again.
"""

import numpy as np
import pandas as pd
import pytest

import ixplain.methods._dataset_pfi as dataset_pfi
from ixplain import permutation_importance
from ixplain._random import keyed_generator
from ixplain.models import MIN_MEMORY_BUDGET, rows_for_budget

#: budgets: everything in one call; a few chunks (permutations kept one at a time); chunks of
#: 85 rows (4096 bytes of 6 features)
BUDGETS = (2**28, 2**16, MIN_MEMORY_BUDGET)


def _case(n=3000, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    coef = np.arange(1.0, d + 1) * (-1.0) ** np.arange(d)
    y = X @ coef + X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y, coef


class _Counting:
    """A model that records the rows of every call (the rows scikit-learn's function would
    evaluate are the bound)."""

    def __init__(self, coef):
        self.coef, self.sizes = coef, []

    def __call__(self, A):
        A = np.asarray(A, dtype=np.float64)
        self.sizes.append(len(A))
        return A @ self.coef + A[:, 0] * A[:, 1]


def test_permutations_not_fitting_the_budget_give_the_same_bits_for_any_budget_and_n_jobs():
    """3,000 rows x 6 features x 4 repeats: 24 permutations of 24 kB each, more than a quarter
    of the two small budgets (16 kB, 1 kB), so the driver keeps one at a time and evaluates the
    rows in 3 or 36 chunks; importances and standard errors are the same bits as in one call,
    with groups, weights and row subsampling."""
    X, y, coef = _case()
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    assert 4 * len(y) * 8 > 2**16 // 4 and rows_for_budget(6, MIN_MEMORY_BUDGET) == 85
    for kwargs in ({}, {"features": {"a": [0, 3], "b": [1], "c": [5, 2]}},
                   {"sample_weight": w, "max_samples": 0.7}):
        runs = [permutation_importance(_Counting(coef), X, y, loss="squared_error",
                                       n_repeats=4, random_state=7, memory_budget=budget,
                                       n_jobs=jobs, **kwargs)
                for budget in BUDGETS for jobs in (1, 2)]
        for r in runs[1:]:
            np.testing.assert_array_equal(r.importances, runs[0].importances)
            np.testing.assert_array_equal(r.settings["standard_error"],
                                          runs[0].settings["standard_error"])


@pytest.mark.parametrize("budget", BUDGETS)
def test_each_permutation_is_drawn_once_however_the_rows_are_chunked(budget, monkeypatch):
    """keyed_generator(seed, "pfi", r, *columns) is asked once per (group, repeat): 6 x 4 = 24
    permutations, for one chunk of rows as for 36."""
    drawn = []

    def counting(seed, *key):
        drawn.append(key)
        return keyed_generator(seed, *key)

    monkeypatch.setattr(dataset_pfi, "keyed_generator", counting)
    X, y, coef = _case()
    permutation_importance(_Counting(coef), X, y, loss="squared_error", n_repeats=4,
                           random_state=3, memory_budget=budget)
    pfi_keys = [k for k in drawn if k[0] == "pfi"]
    assert sorted(pfi_keys) == sorted(("pfi", r, j) for j in range(6) for r in range(4))


@pytest.mark.parametrize(("n", "d", "budget"), [(3000, 6, 2**28), (3000, 6, 2**16),
                                                (3000, 6, MIN_MEMORY_BUDGET), (40, 3, 2**28),
                                                (20_000, 10, 2**28), (20_000, 4, 2**28)])
def test_the_model_evaluates_at_most_the_rows_scikit_learn_does(n, d, budget):
    """scikit-learn scores the n rows once and each of the n_features * n_repeats permuted
    copies once: n * (1 + d * R) model rows. ixplain evaluates exactly these (small tables
    stacked into fewer, larger calls), no call larger than the budget allows."""
    X, y, coef = _case(n, d)
    R = 3
    model = _Counting(coef)
    permutation_importance(model, X, y, loss="squared_error", n_repeats=R, random_state=0,
                           memory_budget=budget)
    assert sum(model.sizes) <= d * R * n + n
    assert sum(model.sizes) == n * (1 + d * R)
    assert max(model.sizes) <= rows_for_budget(d, budget)
    if n * (1 + d * R) <= 8192:  # a small table: its copies share one call
        assert len(model.sizes) == 1


def test_the_scoring_path_evaluates_at_most_the_rows_scikit_learn_does():
    """The default scoring of a regressor (R^2) takes the same driver: n * (1 + d * R) rows."""
    from sklearn.linear_model import LinearRegression

    X, y, _ = _case(2000, 5)
    rows = []

    class Counted(LinearRegression):
        def predict(self, X):
            rows.append(len(X))
            return super().predict(X)

    permutation_importance(Counted().fit(X, y), X, y, n_repeats=3, random_state=0,
                           memory_budget=2**16)
    assert sum(rows) == 2000 * (1 + 5 * 3)


@pytest.mark.parametrize("budget", [2**28, MIN_MEMORY_BUDGET])
@pytest.mark.parametrize("as_frame", [False, True])
def test_chunked_copies_equal_the_definition_written_plainly(budget, as_frame):
    """Group {x0, x2} and x1, 3 repeats, budgets of one call and of many chunks: importance
    (g, r) = mean over rows of loss(y, f(X with group g's columns taken from rows
    perm_{g,r})) - loss(y, f(X)), perm_{g,r} = keyed_generator(seed, "pfi", r, *columns)
    .permutation(n). As a DataFrame with a string column the perturbed copies are gathered
    column by column; as an array they are written into one buffer."""
    rng = np.random.default_rng(4)
    n = 600
    X = rng.normal(size=(n, 3))
    labels = rng.choice(["u", "v"], size=n)
    y = 2 * X[:, 0] - X[:, 1] * X[:, 2] + (labels == "u") + 0.1 * rng.normal(size=n)

    def f_array(A):
        A = np.asarray(A, dtype=np.float64)
        return 2 * A[:, 0] - A[:, 1] * A[:, 2] + A[:, 3]

    def f_frame(D):
        return (2 * D["x0"] - D["x1"] * D["x2"] + (D["s"] == "u")).to_numpy(dtype=float)

    if as_frame:
        data = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "s": labels})
        plain, model = data, f_frame
    else:
        plain = np.column_stack([X, labels == "u"]).astype(float)
        data, model = plain, f_array
    groups = {"a": [0, 2], "b": [1]}
    r = permutation_importance(model, data, y, loss="squared_error", n_repeats=3,
                               random_state=11, features=groups, memory_budget=budget)
    base = (model(plain) - y) ** 2
    expected = np.zeros((2, 3))
    for g, cols in enumerate(groups.values()):
        for k in range(3):
            perm = keyed_generator(11, "pfi", k, *cols).permutation(n)
            if as_frame:
                Xp = data.copy()
                for c in cols:
                    Xp.iloc[:, c] = data.iloc[perm, c].to_numpy()
            else:
                Xp = plain.copy()
                Xp[:, cols] = plain[perm][:, cols]
            expected[g, k] = np.mean((model(Xp) - y) ** 2 - base)
    np.testing.assert_allclose(r.importances, expected, rtol=1e-12, atol=1e-12)
