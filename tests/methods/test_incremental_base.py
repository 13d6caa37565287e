"""The IncrementalExplainer base: conversion, storage order, batching, pickling, NaN policy."""

import pickle

import numpy as np
import pandas as pd
import pytest

from ixplain.methods._incremental import IncrementalExplainer
from ixplain.storage import SlidingWindow


class EchoSample(IncrementalExplainer):
    """lambda(x, P) = a row drawn from P (minus nothing): phi is the smoothed mean of P's rows."""

    _owner = "EchoSample"
    requires_labels = False

    def _explain_batch(self, X, y, sampler):
        cols = sampler.draw_columns(1)
        return np.stack([cols[n] for n in self.feature_names_], axis=1)


def row_sum(X):
    return np.array([sum(r.values()) for r in X]) if isinstance(X, list) else X.sum(axis=1)


def test_first_row_only_stored_then_window_semantics():
    """With a 1-row window, row t draws exactly row t-1: phi_t is the EMA of x_{t-1}."""
    e = EchoSample(row_sum, storage=SlidingWindow(1), alpha=0.5, random_state=0)
    e.explain_one({"a": 1.0})
    assert e.n_explained_ == 0 and e.n_seen_ == 1
    e.explain_one({"a": 2.0})  # draws row 1 -> phi = 0.5 * 1
    e.explain_one({"a": 3.0})  # draws row 2 -> phi = 0.25 + 0.5 * 2
    np.testing.assert_allclose(e.importances_, [1.25])


def test_explain_many_sees_earlier_rows_of_the_same_batch():
    """explain_many with a 1-row window draws row t-1 even inside the batch (= explain_one loop)."""
    X = np.arange(1.0, 8.0).reshape(-1, 1)
    a = EchoSample(row_sum, storage=SlidingWindow(1), alpha=0.3, random_state=0)
    b = EchoSample(row_sum, storage=SlidingWindow(1), alpha=0.3, random_state=0)
    for x in X:
        a.explain_one(x)
    b.explain_many(X)
    np.testing.assert_allclose(a.importances_, b.importances_, rtol=1e-12)
    assert a.n_explained_ == b.n_explained_ == 6


def test_feature_order_and_extra_keys_do_not_matter():
    e1 = EchoSample(row_sum, feature_names=["a", "b"], random_state=3, alpha=0.2)
    e2 = EchoSample(row_sum, random_state=3, alpha=0.2)
    rng = np.random.default_rng(0)
    for t, v in enumerate(rng.normal(size=(30, 2))):
        e1.explain_one({"a": v[0], "b": v[1]})
        e2.explain_one({"b": v[1], "a": v[0]} if t == 0 else {"extra": "x", "a": v[0], "b": v[1]})
    assert e2.feature_names_ == ["b", "a"]
    np.testing.assert_array_equal(e1.importances_, e2.importances_[::-1])


def test_pandas_rows_and_frames():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4, 5, 6]}, index=[10, 3, 7])
    e = EchoSample(row_sum, random_state=0, alpha=1.0)
    e.explain_one(df.iloc[0])
    e.explain_many(df.iloc[1:])
    assert e.feature_names_ == ["a", "b"] and e.n_seen_ == 3


def test_missing_key_error_names_it():
    e = EchoSample(row_sum, random_state=0)
    e.explain_one({"a": 1.0, "b": 2.0})
    with pytest.raises(ValueError, match="no feature 'b'"):
        e.explain_one({"a": 1.0})
    with pytest.raises(ValueError, match="no feature 'b'"):
        e.explain_many([{"a": 1.0, "b": 1.0}, {"a": 1.0}])


def test_nan_policy_skip_and_raise():
    e = EchoSample(row_sum, random_state=0, alpha=0.5)
    e.explain_one({"a": 1.0})
    with pytest.warns(RuntimeWarning, match="NaN"):
        e.explain_one({"a": float("nan")})
    e.explain_one({"a": 3.0})
    assert np.isfinite(e.importances_).all() and e.n_skipped_ == 1
    r = EchoSample(row_sum, random_state=0, nan_policy="raise")
    with pytest.raises(ValueError, match="'a' is NaN"):
        r.explain_one({"a": float("nan")})


def test_pickle_resume_equals_uninterrupted_and_history_bounded():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 3))
    full = EchoSample(row_sum, random_state=11, alpha=0.05, history_every=10, history_size=7)
    part = EchoSample(row_sum, random_state=11, alpha=0.05, history_every=10, history_size=7)
    for s in range(0, 400, 50):
        full.explain_many(X[s : s + 50])
    for s in range(0, 150, 50):
        part.explain_many(X[s : s + 50])
    resumed = pickle.loads(pickle.dumps(part))
    for s in range(150, 400, 50):
        resumed.explain_many(X[s : s + 50])
    np.testing.assert_array_equal(full.importances_, resumed.importances_)
    assert len(full.history_) == 7 and full.history_[-1][0] == 400
    np.testing.assert_array_equal(full.history_[-1][1], resumed.history_[-1][1])


def test_bad_parameters():
    with pytest.raises(ValueError, match="'aggregation' parameter of EchoSample"):
        EchoSample(row_sum, aggregation="median")
    with pytest.raises(ValueError, match="'alpha' parameter of EchoSample"):
        EchoSample(row_sum, alpha=2.0)
    with pytest.raises(TypeError, match="'storage' parameter"):
        EchoSample(row_sum, storage=[1, 2])


def test_skipped_nan_rows_keep_the_stream_index_of_every_row():
    """Rows skipped for NaN still count in the stream index t that keys the draws: a batch with
    NaN rows in the middle (non-consecutive t among the kept rows) gives the explain_one loop's
    state bit for bit, history_ included, for iPFI and iSAGE."""
    import warnings

    from ixplain import IncrementalPFI, IncrementalSAGE, UniformReservoir

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = X[:, 0] + X[:, 1] * X[:, 2]
    X[rng.random(300) < 0.1, 1] = np.nan

    def f(A):
        return A[:, 0] + A[:, 1] * A[:, 2]

    makers = [
        lambda: IncrementalPFI(f, "squared_error", alpha=0.05, random_state=1, history_every=7,
                               storage=UniformReservoir(30)),
        lambda: IncrementalSAGE(f, loss="squared_error", n_samples=2, alpha=0.05,
                                random_state=1, history_every=7),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for make in makers:
            a, b = make(), make()
            for x, t in zip(X, y):
                a.explain_one(x, t)
            for s in range(0, 300, 37):
                b.explain_many(X[s : s + 37], y[s : s + 37])
            assert a.n_skipped_ == b.n_skipped_ > 0
            np.testing.assert_array_equal(a.importances_, b.importances_)
            assert [h[0] for h in a.history_] == [h[0] for h in b.history_]
            for p, q in zip(a.history_, b.history_):
                np.testing.assert_array_equal(p[1], q[1])
