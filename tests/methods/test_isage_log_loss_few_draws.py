"""iSAGE with the log loss and few inner draws on a model whose probabilities reach 0 and 1
(a Hoeffding tree's pure leaves). The log loss of a mean of ``s`` draws weighs a draw at 0 with
-log(1e-15) = 34.5 nats, and the jackknife ``s l(pbar) - (s - 1) mean l(pbar_-j)`` turns it
into large negative numbers: on a River Hoeffding tree the values summed to half the
explained loss with ``n_samples=5``, the marginal loss was negative with 2, and 18 times the
value with 1, without a word. (The static ``sage`` with the same draws stays right in sum: its
control variate pins the mean total to the exactly known explained loss.) An ``n_samples``
below 32 is now raised to 32 with a warning saying why; the values then match exact
enumeration and sum to the explained loss."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ixplain import DatasetStorage, IncrementalSAGE
from ixplain.losses import get_loss

_LOG = get_loss("log_loss", "test")
# every cell of {0, 1}^3 once: the background of the exact reference
BG = np.array(list(itertools.product([0.0, 1.0], repeat=3)))


def _proba(A):
    """P(y = 1): 0 where x0 = 0, 1 where x0 = x1 = 1, 0.5 else; x2 is ignored."""
    p1 = np.where(A[:, 0] == 0, 0.0, np.where(A[:, 1] == 1, 1.0, 0.5))
    return np.column_stack([1 - p1, p1])


def _data():
    rng = np.random.default_rng(0)
    X = BG[rng.integers(0, len(BG), 4000)]
    y = (rng.uniform(size=len(X)) < _proba(X)[:, 1]).astype(int)
    return X, y


def _value(X, y, S):
    """v(S): mean log loss of the prediction averaged over the background outside S."""
    Z = np.repeat(X, len(BG), axis=0)
    B = np.tile(BG, (len(X), 1))
    Z[:, [j for j in range(3) if j not in S]] = B[:, [j for j in range(3) if j not in S]]
    mean = _proba(Z).reshape(len(X), len(BG), 2).mean(axis=1)
    return float(np.mean(_LOG(y, mean[:, 1], np.array([0, 1]))))


def _exact_sage(X, y):
    v = {S: _value(X, y, S) for r in range(4) for S in itertools.combinations(range(3), r)}
    phi = np.zeros(3)
    for j in range(3):
        for S in v:
            if j not in S:
                w = math.factorial(len(S)) * math.factorial(2 - len(S)) / math.factorial(3)
                phi[j] += w * (v[S] - v[tuple(sorted(S + (j,)))])
    return phi, v[()] - v[(0, 1, 2)]


@pytest.mark.parametrize("n_samples", [1, 2, 5])
def test_few_draws_with_the_log_loss_are_raised_and_the_values_sum_to_the_explained_loss(
        n_samples):
    X, y = _data()
    exact, explained = _exact_sage(X, y)
    with pytest.warns(UserWarning, match=rf"n_samples={n_samples} raised to 32 for the log loss"
                                         r": .*probabilities reach 0 or 1"):
        e = IncrementalSAGE(_proba, loss="log_loss", n_samples=n_samples, aggregation="mean",
                            storage=DatasetStorage(BG), random_state=0)
    assert e.n_samples == n_samples and e.n_samples_ == 32
    e.explain_many(X, y)
    se = np.sqrt(e.variances_ / e.n_explained_)
    assert e.marginal_loss_ > e.model_loss_
    assert abs(e.importances_.sum() - explained) <= 0.05 * explained
    assert np.all(np.abs(e.importances_ - exact) <= 4.5 * se + 0.01)
    assert e.importances_[2] == 0.0


def test_the_default_and_many_draws_take_no_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert IncrementalSAGE(_proba, loss="log_loss").n_samples_ == 32
        assert IncrementalSAGE(_proba, loss="log_loss", n_samples=40).n_samples_ == 40
        assert IncrementalSAGE(_proba, loss="brier", n_samples=2).n_samples_ == 2
