"""A feature with few numeric levels gets one step per level in ``IncrementalALE``, as in the
static ALE: for ``f = x0**2 + x1`` with ``x0`` in {0, 1, 2} the curve is exactly 0, 1, 4 (it read
1.10 and ~4 when the levels were binned as continuous, between quantile edges in empty bins,
and its band was all NaN)."""

from __future__ import annotations

import numpy as np

import ixplain


def _f(A):
    return A[:, 0] ** 2 + A[:, 1]


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.integers(0, 3, n).astype(float), rng.normal(size=n)])


def test_few_numeric_levels_take_one_step_per_level_as_the_static_ale():
    X = _data()
    stream = ixplain.IncrementalALE(_f, "x0", random_state=0)
    stream.explain_many(X)
    static = ixplain.accumulated_local_effects(_f, X, "x0")
    np.testing.assert_array_equal(stream.edges_, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(static.grid_values[0], dtype=float), stream.edges_)
    curve = stream.ale_.average[0]
    np.testing.assert_allclose(curve - curve[0], [0.0, 1.0, 4.0], atol=1e-12)  # closed form
    lo, hi = stream.ale_.band()
    assert np.isfinite(lo).all() and np.isfinite(hi).all()
    np.testing.assert_allclose(hi - lo, 0.0, atol=1e-12)  # an additive model: no spread


def test_a_level_seen_later_joins_the_edges_at_the_next_regrid():
    X = _data()
    X[:1000, 0] = np.minimum(X[:1000, 0], 1.0)  # level 2 only after the warm-up
    stream = ixplain.IncrementalALE(_f, "x0", regrid_every=500, random_state=0)
    stream.explain_many(X[:1000])
    np.testing.assert_array_equal(stream.edges_, [0.0, 1.0])
    stream.explain_many(X[1000:])
    np.testing.assert_array_equal(stream.edges_, [0.0, 1.0, 2.0])
    curve = stream.ale_.average[0]
    np.testing.assert_allclose(curve - curve[0], [0.0, 1.0, 4.0], atol=1e-9)


def test_many_levels_keep_quantile_edges():
    X = _data()
    X[:, 0] = np.round(X[:, 1] * 10)  # ~60 levels: more than grid_resolution + 1
    stream = ixplain.IncrementalALE(_f, "x0", random_state=0)
    stream.explain_many(X)
    assert len(stream.edges_) == stream.grid_resolution + 1
