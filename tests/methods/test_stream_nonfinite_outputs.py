"""iPDP and iALE with a model whose outputs are not finite, or beyond float64's range.

iPDP took a model's +-inf into its estimate (``n_skipped_`` 0, ``pd_.average`` holding -inf,
numpy's "invalid value encountered in subtract" at every read of ``pd_``) and raised a
``ValueError`` for NaN, though its docstring said such rows are left out; ICE values of 1e300
gave numpy's overflow warnings. iALE gave numpy's "overflow encountered in ldexp" next to its
own warning when its curve went beyond float64.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ixplain as ix
from ixplain.methods.ipdp import NotStartedError

N = 300
GRID = np.array([-1.0, 0.0, 0.5, 2.0])


def _X():
    return np.random.default_rng(0).normal(size=(N, 2))


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, caught


def _numpy_warnings(caught):
    return [str(w.message) for w in caught if "encountered in" in str(w.message)]


def _bad_where_x1_large(value):
    """``x0 + x1``, but ``value`` (NaN, inf or -inf) for the rows with ``x1 > 1``: at every
    grid value of x0, so exactly those rows have an ICE curve that is not finite."""
    def model(A):
        A = np.asarray(A, dtype=float)
        return np.where(A[:, 1] > 1.0, value, A[:, 0] + A[:, 1])
    return model


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_ipdp_skips_the_rows_whose_ice_curve_is_not_finite(value):
    """NaN, inf and -inf alike: the rows with x1 > 1 are skipped and counted, one warning (at
    the caller's line), no numpy warning, and the PD is the mean over the other rows."""
    X = _X()
    bad = X[:, 1] > 1.0
    e = ix.IncrementalPDP(_bad_where_x1_large(value), 0, grid=GRID, aggregation="mean")
    _, caught = _caught(lambda: e.explain_many(X))
    assert e.n_skipped_ == int(bad.sum()) > 0 and e.n_explained_ == N - bad.sum()
    assert _numpy_warnings(caught) == [] and len(caught) == 1
    first = int(np.flatnonzero(bad)[0])
    assert str(caught[0].message) == (
        f"IncrementalPDP: {bad.sum()} of {N} observation(s) of this call skipped (ICE curves "
        f"that were not finite, first at stream row {first}: the model returned NaN or inf "
        "at a value of feature 'x0'); n_skipped_ counts them.")
    assert caught[0].filename == __file__
    pd_, read = _caught(lambda: e.pd_)
    assert read == []
    np.testing.assert_allclose(pd_.average[0], GRID + X[~bad, 1].mean(), rtol=1e-12)
    assert np.isfinite(pd_.extra["standard_error"]).all()
    np.testing.assert_allclose(pd_.extra["standard_error"][0],
                               np.full(len(GRID), X[~bad, 1].std() / np.sqrt((~bad).sum())))


def test_ipdp_skipping_is_the_same_for_any_batching():
    """A range grid, snapshots every 50 rows, a drift detector: explain_many in chunks gives the
    state of the explain_one loop bit for bit, skipped rows included (the last row of a chunk
    may be a skipped one: the active grid stays that of the last row explained)."""
    X = _X()
    model = _bad_where_x1_large(np.inf)

    def run(step):
        det = ix.ExplanationDriftDetector(random_state=0)
        e = ix.IncrementalPDP(model, 0, history_every=50, range_window=100, drift_detector=det)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (no numpy warning either)
            warnings.filterwarnings("ignore", message="IncrementalPDP: .* skipped")
            for s in range(0, N, step):
                if step == 1:
                    e.explain_one(X[s])
                else:
                    e.explain_many(X[s:s + step])
        return e

    ref = run(1)
    assert ref.n_skipped_ == int((X[:, 1] > 1.0).sum())
    for step in (7, 64, N):
        e = run(step)
        assert e.n_skipped_ == ref.n_skipped_ and e.n_explained_ == ref.n_explained_
        np.testing.assert_array_equal(e.pd_.grid_values[0], ref.pd_.grid_values[0])
        np.testing.assert_array_equal(e.pd_.average, ref.pd_.average)
        assert [h.n_seen for h in e.history_] == [h.n_seen for h in ref.history_]
        for a, b in zip(e.history_, ref.history_):
            np.testing.assert_array_equal(a.average, b.average)
        assert np.isfinite(e.pd_.average).all()


def test_ipdp_that_skipped_every_row_says_so():
    e = ix.IncrementalPDP(lambda A: np.full(len(A), np.nan), 0)
    _, caught = _caught(lambda: e.explain_many(_X()[:20]))
    assert e.n_skipped_ == 20 and len(caught) == 1
    with pytest.raises(NotStartedError, match="all 20 seen were skipped"):
        _ = e.pd_


def _huge(A):
    """``1e300 (x0 + x1)``: ICE values near 1e300 at every grid value, spread ~1e300."""
    A = np.asarray(A)
    return 1e300 * (A[:, 0] + A[:, 1])


def test_ipdp_of_huge_outputs_has_a_finite_standard_error_and_no_numpy_warning():
    """ICE values of 1e300 (``1e300 (v + x1)``, the spread that of ``1e300 x1``): the PD is
    right (its average over the rows), the standard error finite and the variance, 1e600,
    inf; no numpy overflow / invalid-value warnings in the calls and reads. (The standard
    error was inf too: the squares overflowed the sums, which are now kept in units of
    ``2**-997``, see ``test_ipdp_store_of_outputs_near_1e300_stays_finite``.)"""
    X = _X()
    e = ix.IncrementalPDP(_huge, 0, grid=GRID, aggregation="mean", history_every=100)
    _, caught = _caught(lambda: [e.explain_one(x) for x in X[:5]] + [e.explain_many(X[5:])])
    pd_, read = _caught(lambda: (e.pd_, e.variances_, e.confidence_bound()))
    assert caught == [] and read == []
    assert e.n_skipped_ == 0
    np.testing.assert_allclose(pd_[0].average[0], 1e300 * (GRID + X[:, 1].mean()), rtol=1e-12)
    se = pd_[0].extra["standard_error"][0]
    np.testing.assert_allclose(se, 1e300 * X[:, 1].std() / np.sqrt(N), rtol=1e-9)
    assert np.isinf(pd_[1]).all() and np.isfinite(pd_[2]).all()


@pytest.mark.parametrize("aggregation, alpha", [("ema", 0.5), ("ema", 0.01), ("mean", 0.001)])
def test_ipdp_store_of_outputs_near_1e300_stays_finite(aggregation, alpha):
    """Outputs ``1e300 (1 + 0.5 sin x0) + 1e299 x1``: the smoothed sums overflowed to inf (the
    weights ``alpha / scale`` grow up to 1e60 between renormalisations: after ~200 rows at
    alpha 0.5, 19,000 at 0.001; the squares at once). iPDP now keeps them in units of a power
    of two as iALE does: the PD and its standard error equal 1e300 times those of the same
    stream divided by 1e300 (relative 1e-9), explained by another explainer."""
    rng = np.random.default_rng(1)
    X = np.c_[rng.uniform(-3, 3, 1200), rng.normal(size=1200)]

    def small(A):
        A = np.asarray(A)
        return (1.0 + 0.5 * np.sin(A[:, 0])) + 0.1 * A[:, 1]

    def make(f):
        return ix.IncrementalPDP(f, 0, grid_resolution=10, aggregation=aggregation,
                                 alpha=alpha, history_every=0)

    big, ref = make(lambda A: 1e300 * small(A)), make(small)
    _, caught = _caught(lambda: (big.explain_many(X[:700]),
                                 [big.explain_one(x) for x in X[700:720]],
                                 big.explain_many(X[720:])))
    assert _numpy_warnings(caught) == [] and big.n_skipped_ == 0
    ref.explain_many(X)
    got, want = big.pd_, ref.pd_
    np.testing.assert_array_equal(got.grid_values[0], want.grid_values[0])
    assert np.isfinite(got.average).all() and np.isfinite(big._store._S).all()
    np.testing.assert_allclose(got.average, 1e300 * want.average, rtol=1e-9)
    np.testing.assert_allclose(got.extra["standard_error"],
                               1e300 * want.extra["standard_error"], rtol=1e-9)
    np.testing.assert_allclose(big.importances_, 1e300 * ref.importances_, rtol=1e-9)


def _huge_ale_model(A):
    with np.errstate(all="ignore"):  # (the model's own overflow: inf beyond |x0| ~ 0.18)
        return np.asarray(A)[:, 0] * 1e308 * 10


def test_iale_beyond_the_float_range_warns_itself_not_numpy():
    """Effects near 1e308 per bin: the rows whose effect is inf are skipped (their warning);
    the curve of the others overflows when its moments are scaled back: ixplain says so
    (the edges where it is +-inf), numpy's "overflow encountered in ldexp" is gone."""
    X = np.random.default_rng(0).normal(size=(400, 3))
    e = ix.IncrementalALE(_huge_ale_model, 0, random_state=0)
    _, caught = _caught(lambda: e.explain_many(X))
    assert _numpy_warnings(caught) == [] and len(caught) == 1
    assert "observation(s) of this call skipped" in str(caught[0].message)
    assert e.n_skipped_ > 0
    ale, read = _caught(lambda: e.ale_)
    n_inf = int(np.isinf(ale.average).any(axis=0).sum())
    assert 0 < n_inf < len(e.edges_)
    assert [str(w.message) for w in read] == [
        f"IncrementalALE: the ALE of feature 'x0' is beyond the float range (|ALE| > 1.8e308) "
        f"at {n_inf} of {len(e.edges_)} edges, where it is +-inf: the model's effects are too "
        "large to add up in float64; rescale its outputs (e.g. thousands instead of units)."]
    assert read[0].filename == __file__
    # the same model on a thousandth of the scale: a finite curve, 1e-3 times as large
    small = ix.IncrementalALE(lambda A: _huge_ale_model(A) / 1e3, 0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small.explain_many(X)
    fine = np.isfinite(ale.average)
    np.testing.assert_allclose(ale.average[fine] / 1e3, small.ale_.average[fine], rtol=1e-9)


def test_iale_says_every_row_after_its_warm_up_was_skipped():
    """A model returning NaN everywhere: the 100 warm-up rows are stored, the 100 after them
    skipped. ``ale_`` said "has not explained any observation yet; call explain_one ... first"
    after 200 rows (QA, session 11); it now says where the rows went, as iPDP does."""
    X = np.random.default_rng(0).normal(size=(200, 2))
    e = ix.IncrementalALE(lambda A: np.full(len(A), np.nan), "x0", feature_names=["x0", "x1"])
    with pytest.warns(RuntimeWarning, match="100 of 200 observation"):
        e.explain_many(X)
    assert (e.n_seen_, e.n_warmup_, e.n_skipped_) == (200, 100, 100)
    with pytest.raises(NotStartedError, match="of the 200 rows seen, 100 were its warm-up and "
                                              "the other 100 were skipped"):
        _ = e.ale_
