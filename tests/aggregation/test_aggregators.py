"""Aggregators checked against batch computations after every update (River's stats tests)."""

import pickle

import numpy as np
import pytest

from ixplain.aggregation import EWMean, Mean


def test_mean_equals_batch_mean_after_each_update():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3)) * [1, 10, 100]
    m = Mean()
    for t in range(len(X)):
        m.update(X[t])
        np.testing.assert_allclose(m.get(), X[: t + 1].mean(axis=0), rtol=1e-12)
        if t >= 1:
            np.testing.assert_allclose(m.variance, X[: t + 1].var(axis=0, ddof=1), rtol=1e-10)
    assert m.n == 50


def test_mean_update_many_and_merge_equal_sequential():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    a, b, seq = Mean(), Mean(), Mean()
    a.update_many(X[:13])
    b.update_many(X[13:])
    for x in X:
        seq.update(x)
    merged = a.merge(b)
    np.testing.assert_allclose(merged.get(), seq.get(), rtol=1e-12)
    np.testing.assert_allclose(merged.variance, seq.variance, rtol=1e-10)
    assert merged.n == 40


def test_weighted_mean_matches_numpy():
    rng = np.random.default_rng(2)
    X, w = rng.normal(size=20), rng.uniform(0.1, 2, size=20)
    m = Mean()
    for x, wi in zip(X, w):
        m.update(np.array(x), weight=wi)
    np.testing.assert_allclose(m.get(), np.average(X, weights=w), rtol=1e-12)


def test_ewmean_equals_definition_after_each_update():
    """m_t = (1-a) m_{t-1} + a v_t from m_0 = 0, written out as a weighted sum."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    a = 0.2
    m = EWMean(a)
    for t in range(len(X)):
        m.update(X[t])
        w = a * (1 - a) ** np.arange(t, -1, -1)
        np.testing.assert_allclose(m.get(), w @ X[: t + 1], rtol=1e-12)
        ex2 = w @ X[: t + 1] ** 2
        np.testing.assert_allclose(m.variance, np.maximum(ex2 - (w @ X[: t + 1]) ** 2, 0), rtol=1e-9)
        np.testing.assert_allclose(m.value_debiased, w @ X[: t + 1] / w.sum(), rtol=1e-12)


def test_ewmean_update_many_equals_sequential():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 4))
    seq, bat = EWMean(0.05), EWMean(0.05)
    for x in X:
        seq.update(x)
    bat.update_many(X[:10])
    bat.update_many(X[10:])
    np.testing.assert_allclose(bat.get(), seq.get(), rtol=1e-12)
    np.testing.assert_allclose(bat.variance, seq.variance, rtol=1e-9, atol=1e-15)
    assert bat.n == seq.n == 25


def test_shape_mismatch_and_bad_alpha():
    m = Mean()
    m.update(np.zeros(2))
    with pytest.raises(ValueError, match="shape"):
        m.update(np.zeros(3))
    with pytest.raises(ValueError, match="'alpha' parameter of EWMean"):
        EWMean(0.0)


def test_pickle_round_trip():
    m = EWMean(0.3)
    m.update(np.array([1.0, 2.0]))
    m2 = pickle.loads(pickle.dumps(m))
    m.update(np.array([3.0, 0.0]))
    m2.update(np.array([3.0, 0.0]))
    np.testing.assert_array_equal(m.get(), m2.get())


@pytest.mark.parametrize("B", [1, 5, 31, 32, 100, 600])
def test_ewmean_update_sequence_is_the_update_loop_bit_for_bit(B):
    """Short batches step the state with array coefficients, longer ones (once scipy.signal is
    loaded) run scipy's IIR filter: both are the loop of ``update`` to the last bit."""
    pytest.importorskip("scipy.signal")  # loaded: the filter serves batches from 32 rows
    rng = np.random.default_rng(B)
    X = rng.normal(size=(B + 7, 3, 2)) * 10.0
    loop, seq = EWMean(0.01), EWMean(0.01)
    for x in X:
        loop.update(x)
    seq.update_sequence(X[:7])
    seq.update_sequence(X[7:])
    assert np.array_equal(seq.get(), loop.get()) and np.array_equal(seq.variance, loop.variance)
    assert seq.n == loop.n == B + 7


def test_ewmean_update_sequence_with_an_infinite_value_equals_the_loop():
    """The filter would turn an infinite value into NaN (it computes 0 * x): such a batch
    takes the loop, as ``update`` does."""
    pytest.importorskip("scipy.signal")
    X = np.random.default_rng(0).normal(size=(64, 2))
    X[40, 1] = np.inf
    loop, seq = EWMean(0.1), EWMean(0.1)
    for x in X:
        loop.update(x)
    seq.update_sequence(X)
    np.testing.assert_array_equal(seq.get(), loop.get())
    assert np.isinf(seq.get()[1]) and np.isfinite(seq.get()[0])


def test_ewmean_update_after_a_change_of_shape():
    """The cached coefficient arrays follow a change of the state's shape (iALE rebins it):
    the update is ``(1 - a) m + a x`` on the new state."""
    m = EWMean(0.25)
    m.update(np.array([1.0, 2.0]))
    m._mean, m._sq = np.array([1.0, 2.0, 3.0]), np.array([1.0, 4.0, 9.0])
    m.update(np.array([5.0, 6.0, 7.0]))
    np.testing.assert_array_equal(m.get(), 0.75 * np.array([1.0, 2.0, 3.0]) + 0.25 * np.array([5.0, 6.0, 7.0]))
    p = pickle.loads(pickle.dumps(m))
    p.update(np.ones(3)), m.update(np.ones(3))
    np.testing.assert_array_equal(p.get(), m.get())
