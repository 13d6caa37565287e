"""Static methods: the same seed gives the same bits for any n_jobs and memory budget (issue 10).

permutation_importance and sage have their own tests next to their other tests; this file holds
partial_dependence's subsample, whose draw is keyed by the seed and what it is for alone.
"""

import numpy as np

from ixplain import partial_dependence
from ixplain._random import keyed_generator


def test_partial_dependence_subsample_is_keyed_and_batch_invariant():
    """subsample=k picks rows keyed_generator(seed, "partial_dependence", "subsample")
    .choice(n, k, replace=False) (sorted): the ICE curves are those of exactly these rows, for
    n_jobs in {1, 2} with three memory budgets (one chunk, a few, many)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))

    def f(A):
        return A[:, 0] ** 2 + A[:, 1] * A[:, 2]

    runs = [
        partial_dependence(f, X, [0], kind="individual", subsample=37, random_state=5,
                           grid_resolution=7, method="brute", n_jobs=jobs, memory_budget=budget)
        for jobs, budget in ((1, 2**28), (2, 2**16), (1, 2**13), (2, 2**28))
    ]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.individual, runs[0].individual)
    rows = np.sort(keyed_generator(5, "partial_dependence", "subsample").choice(400, 37,
                                                                                replace=False))
    grid = runs[0].grid_values[0]
    expected = np.array([[f(np.column_stack([np.full(1, v), X[i:i + 1, 1:]]))[0] for v in grid]
                         for i in rows])
    np.testing.assert_allclose(runs[0].individual[0], expected, rtol=1e-12, atol=1e-12)
