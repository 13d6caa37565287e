"""Incremental ALE: static-mode equality, batch invariance, drift of the feature's range."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain import IncrementalALE, accumulated_local_effects
from ixplain.methods.ale import accumulation_matrix
from ixplain.methods.iale import rebin_matrix, rebin_moments, stream_edges


def f(A):
    return 3 * A[:, 0] + A[:, 1] ** 2 * A[:, 0] + np.sin(A[:, 1])


def _data(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(size=n)
    return np.c_[x0, x0 + 0.3 * rng.normal(size=n)]


def test_fixed_edges_running_mean_equals_static_ale():
    X = _data()
    edges = np.linspace(0, 1, 9)
    iale = IncrementalALE(f, "x0", edges=edges, aggregation="mean")
    rng = np.random.default_rng(1)
    s = 0
    while s < len(X):  # uneven mini-batches and single rows
        e = s + int(rng.integers(1, 60))
        if e - s == 1:
            iale.explain_one(X[s])
        else:
            iale.explain_many(X[s:e])
        s = e
    static = accumulated_local_effects(f, X, "x0", custom_edges={"x0": edges})
    res = iale.ale_
    np.testing.assert_allclose(res.average, static.average, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.std, static.std, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.bin_counts, static.bin_counts, atol=1e-9)


def test_state_does_not_depend_on_batching():
    X = _data(700, seed=2)
    runs = []
    for sizes in ([700], [37] * 19, [1] * 700):
        iale = IncrementalALE(f, "x0", grid_resolution=6, regrid_every=50, alpha=0.02,
                              history_every=100, random_state=0)
        s = 0
        for size in sizes:
            chunk = X[s:s + size]
            if len(chunk) == 1:
                iale.explain_one(chunk[0])
            elif len(chunk):
                iale.explain_many(chunk)
            s += size
        runs.append(iale)
    for other in runs[1:]:
        np.testing.assert_allclose(other.edges_, runs[0].edges_, rtol=0, atol=1e-12)
        np.testing.assert_allclose(other.ale_.average, runs[0].ale_.average, rtol=0, atol=1e-12)
        assert other.n_regrids_ == runs[0].n_regrids_ and len(other.history_) == 7
    assert runs[0].n_regrids_ >= 1 and runs[0].n_warmup_ == 50
    assert len(runs[0].edges_history_) == len(runs[0].history_)


def test_growing_range_is_covered_and_matches_recent_batch_ale():
    """Salary-like lognormal feature multiplied by U(1, 1.33) (and by 1.5) from row 3000.

    After the drift the bins cover the new range (re-formed, not restarted), and the curve
    matches the static ALE of the last 1/alpha rows on the same edges within its band, once
    both are centred with the same bin shares (the smoothed ones).
    """
    rng = np.random.default_rng(3)
    n = 6000
    salary = rng.lognormal(10, 0.4, n)
    salary[3000:] *= 1.5 * rng.uniform(1, 1.33, n - 3000)
    other = rng.normal(size=n)
    X = np.c_[salary, other]

    def g(A):
        return np.sqrt(A[:, 0]) / 100 * (1 + 0.5 * A[:, 1])

    iale = IncrementalALE(g, "x0", alpha=0.01, grid_resolution=10, random_state=0)
    iale.explain_many(X[:3000])
    before, regrids = iale.edges_.copy(), iale.n_regrids_
    iale.explain_many(X[3000:])
    assert iale.n_regrids_ > regrids
    assert iale.edges_[-1] >= np.quantile(salary[-500:], 0.99)
    assert iale.edges_[0] > before[0] and iale.edges_[5] > 1.5 * before[5]
    res = iale.ale_
    static = accumulated_local_effects(g, X[-100:], "x0", custom_edges={"x0": iale.edges_})
    A = accumulation_matrix("numeric", res.bin_counts)
    ref = A @ (np.diff(static.average[0]))  # the static increments, centred like the stream
    se = np.sqrt(res.std[0] ** 2 + static.std[0] ** 2)
    inside = np.abs(res.average[0] - ref) <= 3 * np.nan_to_num(se, nan=np.inf)
    assert inside.mean() >= 0.9


def test_rebinning_keeps_slopes():
    old = np.array([0.0, 1.0, 2.0])
    new = np.array([0.0, 0.5, 2.0, 3.0])
    R = rebin_matrix(old, new)
    # moments of one bin with slope 2 (difference 2 per unit): w = 1, w d = 2
    moments = np.zeros((6, 1, 2))
    moments[0, 0] = 1.0
    moments[1, 0] = 2.0
    m = np.einsum("mbk,mok->mob", R, moments)
    np.testing.assert_allclose(m[0, 0], [0.5, 1.5, 0.0])  # row shares by overlap, none beyond
    np.testing.assert_allclose(m[1, 0][:2] / m[0, 0][:2], [1.0, 3.0])  # slope 2 x width
    np.testing.assert_allclose(stream_edges(np.arange(4.0), 3), [0, 1, 2, 3])
    assert stream_edges(np.ones(3), 3) is None


def test_stream_on_pandas_and_errors():
    X = pd.DataFrame(_data(200), columns=["a", "b"])
    iale = IncrementalALE(lambda d: d["a"].to_numpy() * 2, 0, grid_resolution=4)
    iale.explain_many(X)
    assert iale.ale_.features == ("a",) and iale.importances_.shape == (1, 5)
    with pytest.raises(TypeError, match="'feature' parameter of IncrementalALE"):
        IncrementalALE(f, 1.5)
    with pytest.raises(ValueError, match="'edges' parameter of IncrementalALE"):
        IncrementalALE(f, "x0", edges=[1.0, 0.0])
    with pytest.raises(ValueError, match="'regrid_every' parameter of IncrementalALE"):
        IncrementalALE(f, "x0", regrid_every=0)
    with pytest.raises(ValueError, match="has not explained"):
        _ = IncrementalALE(f, "x0").ale_
    cat = pd.DataFrame({"c": ["u", "v"] * 5, "x": np.arange(10.0)})
    with pytest.raises(ValueError, match="'c' is not numeric"):
        IncrementalALE(lambda d: d["x"].to_numpy(), "c").explain_many(cat)


def test_empty_bin_is_interpolated_but_claims_no_certainty():
    """Fixed edges [0, .25, .5, .75, 1] and no row in (0.25, 0.5]: f = x0^2.

    The empty bin's effect is the nearest bin's slope times its width (the curve is drawn),
    but its variance is unknown, so the band is NaN (was about 1e-10: certainty claimed about a
    bin that never saw a row), ``bin_counts`` is 0 there and ``empty_bins`` flags it. Once a
    row lands in every bin (two rows each at least) the band is finite again.
    """
    rng = np.random.default_rng(0)
    x0 = rng.uniform(size=400)
    x0 = np.where((x0 > 0.25) & (x0 <= 0.5), x0 - 0.25, x0)
    X = np.c_[x0, rng.uniform(size=400)]
    iale = IncrementalALE(lambda A: A[:, 0] ** 2, "x0", edges=[0, 0.25, 0.5, 0.75, 1.0],
                          aggregation="mean")
    iale.explain_many(X)
    res = iale.ale_
    np.testing.assert_array_equal(res.empty_bins, [False, True, False, False])
    assert res.bin_counts[1] == 0 and np.isnan(res.std).all()
    # the interpolation: bin 1 has the slope of its nearest bin (the tie goes left: bin 0, x^2
    # over [0, .25] rises .0625), bins 0, 2, 3 their own x^2 rises
    steps = np.diff(res.average[0])
    np.testing.assert_allclose(steps, [0.0625, 0.0625, 0.3125, 0.4375], atol=1e-12)
    lo, hi = res.band()
    assert np.isnan(lo).all() and np.isnan(hi).all()  # no band rather than a false one
    iale.explain_many(np.c_[[0.3, 0.4, 0.45], [0.0, 0.0, 0.0]])
    res = iale.ale_
    assert not res.empty_bins.any() and np.isfinite(res.std).all()


def test_nan_warning_counts_what_n_skipped_counts():
    """A model returning NaN for x0 > 0.8 on 300 rows split at the re-grid points (50): the
    warning used to name the first sub-batch's 19 rows while n_skipped_ held 71."""
    X = np.random.default_rng(0).uniform(size=(300, 2))
    X[5::13, 1] = np.nan  # and NaN observations: both reasons are counted
    iale = IncrementalALE(lambda A: np.where(A[:, 0] > 0.8, np.nan, A[:, 0]), "x0",
                          grid_resolution=4, regrid_every=50)
    with pytest.warns(RuntimeWarning) as record:
        iale.explain_many(X)
    assert len(record) == 1
    msg = str(record[0].message)
    assert f"{iale.n_skipped_} of 300 observation(s)" in msg and "n_skipped_" in msg
    assert iale.n_skipped_ == iale.n_seen_ - iale.n_explained_ - iale.n_warmup_
    assert iale.n_skipped_ > 23


def test_fixed_edges_leave_outside_and_infinite_rows_out_as_static():
    """Fixed edges [-1, 0, 1]: rows outside them used to be clipped into the outer bins
    forever (static ALE with the same custom_edges leaves them out), an infinite value of
    the feature was counted in the last bin (static: missing). Now both agree to 1e-12; the
    infinite rows are skipped by iALE's NaN policy (as NaN rows: ``n_skipped_``), which static
    ALE counts as missing."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(800, 2))
    X[::37, 0] = np.inf
    g = lambda A: np.sin(np.where(np.isfinite(A[:, 0]), A[:, 0], 0)) * (1 + A[:, 1])  # noqa: E731
    iale = IncrementalALE(g, "x0", edges=[-1, 0, 1], aggregation="mean")
    with pytest.warns(RuntimeWarning, match="NaN or infinite values"):
        for s in range(0, 800, 64):
            iale.explain_many(X[s:s + 64])
    static = accumulated_local_effects(g, X, "x0", custom_edges={"x0": [-1, 0, 1]})
    res = iale.ale_
    np.testing.assert_allclose(res.average, static.average, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.bin_counts, static.bin_counts, atol=1e-9)
    assert res.n_outside == static.n_outside and res.n_missing == (0,)
    assert (iale.n_skipped_,) == static.n_missing == (len(X[::37]),)
    assert res.n_rows == static.n_rows  # the rows in the bins


def test_warm_up_message_and_huge_grid_resolution():
    """A constant feature (or too few rows) leaves iALE warming up: the error says so instead
    of "has not explained any observation"; grid_resolution=10**6 was a 7 TiB MemoryError,
    it is capped at one bin per stored value."""
    X = np.c_[np.ones(300), np.arange(300.0)]
    iale = IncrementalALE(lambda A: A[:, 0], "x0")
    iale.explain_many(X)
    with pytest.raises(ValueError, match="still warming up.*two distinct finite values.*300 rows"):
        _ = iale.ale_
    big = IncrementalALE(lambda A: A[:, 1], "x1", grid_resolution=10**6)
    big.explain_many(X)
    assert len(big.edges_) == 100 and big.ale_.average.shape == (1, 100)


def test_non_numeric_output_names_the_stream_explainer():
    with pytest.raises(ValueError, match="^IncrementalALE: .* returned non-numeric values"):
        IncrementalALE(lambda A: np.array(["a"] * len(A)), 0).explain_many(_data(200))


def test_fixed_edges_with_every_row_outside():
    """A batch with no row inside fixed edges crashed in a reshape; it is counted outside."""
    iale = IncrementalALE(lambda A: A[:, 0], "x0", edges=[10, 11, 12], aggregation="mean")
    iale.explain_many(_data(100))
    assert iale.n_outside_ == 100 and iale.ale_.n_rows == 0
    iale.explain_many(np.c_[[10.2, 10.4, 11.5, 11.7], np.zeros(4)])
    np.testing.assert_allclose(np.diff(iale.ale_.average[0]), [1.0, 1.0], atol=1e-12)


def test_ema_band_is_calibrated_early_in_the_stream():
    """alpha=0.001 after 350 rows: the exponential weights are almost uniform (0.70..1), so
    the band should be close to the static ALE's on the same rows and edges. The moments of a
    smoothed mean that starts at zero sum to 1 - (1 - alpha)^n = 0.30, and were read as 350
    rows: the counts were 3.4x too small and the band 1.8x too wide (NaN in thin bins)."""
    X = _data(350, seed=5)
    edges = np.linspace(0, 1, 6)
    iale = IncrementalALE(f, "x0", edges=edges, alpha=0.001)
    iale.explain_many(X)
    static = accumulated_local_effects(f, X, "x0", custom_edges={"x0": edges})
    res = iale.ale_
    a, n = 0.001, 350
    q = (1 - a) ** n
    n_eff = (1 - q) ** 2 * (2 - a) / (a * (1 - q * q))  # (sum w)^2 / sum w^2
    assert res.bin_counts.sum() == pytest.approx(n_eff, rel=1e-9)
    assert n_eff == pytest.approx(346.5, abs=0.1)
    ratio = res.std[0] / static.std[0]
    assert np.all((0.9 < ratio) & (ratio < 1.12))
    np.testing.assert_allclose(res.average, static.average, atol=0.02)


def test_merging_bins_integrates_slopes_not_rows():
    """A new bin merging old bins gets the integral of their slopes, whatever their rows.

    Old bins [0, 1] (9 rows, difference 1: slope 1) and [1, 2] (1 row, slope 3): over [0, 2]
    the difference is 1 * 1 + 3 * 1 = 4 (a row-weighted merge gave (9 * 2 + 1 * 6) / 10 = 2.4),
    its variance the sum of the parts' (bins independent), its rows 9 + 1.
    """
    old, new = np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0])
    rng = np.random.default_rng(0)
    d0, d1 = 1 + 0.1 * rng.normal(size=9), 3 + 0.1 * rng.normal(size=1)
    d1 = np.r_[d1, 3 - (d1 - 3)]  # two rows in the second bin, mean exactly 3
    d0 = d0 - d0.mean() + 1
    m = np.zeros((6, 1, 2))
    for k, d in enumerate((d0, d1)):
        m[:, 0, k] = [len(d), d.sum(), (d * d).sum(), d.sum(), len(d), len(d)]
    out = rebin_moments(m, old, new)
    np.testing.assert_allclose(out[1, 0, 0] / out[0, 0, 0], 4.0)
    np.testing.assert_allclose(out[0, 0, 0], 11.0)
    var = (out[2] - 2 * (out[1] / out[0]) * out[3] + (out[1] / out[0]) ** 2 * out[4]) / out[0] ** 2
    v_parts = [d0.var() / len(d0), d1.var() / len(d1)]  # (2 * 2 / 1)^2 weights: ratio 2, share 1/2
    np.testing.assert_allclose(var[0, 0], sum(v_parts))


def test_shrinking_range_keeps_the_outer_bins_differences():
    """f = x0^2 + 3 x1 (additive: every row's difference over bin k is z_k^2 - z_{k-1}^2).

    x0 ~ N(0, 1) for 1500 rows, then 0.1 N(0, 1): the re-grid merges the old outer bins (a few
    decayed rows) with the inner ones (many recent rows). The carried differences must stay
    near the true ones; a row-weighted merge gave the outer bins a third of their slope
    (total relative error 0.71).
    """
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    X[:, 1] = 0.8 * X[:, 0] + 0.6 * X[:, 1]
    X[1500:, 0] *= 0.1
    iale = IncrementalALE(lambda A: A[:, 0] ** 2 + 3 * A[:, 1], "x0", alpha=0.01,
                          grid_resolution=10, random_state=0)
    for s in range(0, 3000, 50):
        iale.explain_many(X[s:s + 50])
    assert iale.n_regrids_ >= 3 and iale.edges_[-1] - iale.edges_[0] < 6
    z = iale.edges_
    got, true = np.diff(iale.ale_.average[0]), np.diff(z ** 2)
    assert np.abs(got - true).sum() / np.abs(true).sum() < 0.35


def test_pickle_from_before_the_outside_counts_loads_with_zero_counts():
    """An explainer pickled before ``n_missing_``/``n_outside_`` existed (their attributes
    absent from its state) loads with both counts 0 and goes on explaining; a current pickle
    keeps its counts."""
    import pickle

    X = _data(300)
    iale = IncrementalALE(f, "x0", edges=np.linspace(0.2, 0.8, 5), random_state=0)
    iale.explain_many(X[:200])
    assert iale.n_outside_ > 0
    assert pickle.loads(pickle.dumps(iale)).n_outside_ == iale.n_outside_
    old = iale.__dict__.copy()
    del old["n_missing_"], old["n_outside_"]
    restored = IncrementalALE.__new__(IncrementalALE)
    restored.__setstate__(old)
    assert (restored.n_missing_, restored.n_outside_) == (0, 0)
    restored.explain_many(X[200:])
    assert restored.n_outside_ > 0 and restored.ale_.average.shape == iale.ale_.average.shape


@pytest.mark.parametrize("power", [997, 1010, -997, -1040])
def test_effects_near_the_float_limits_scale_exactly(power):
    """A model times ``2**power`` (1e300, 1e304; 1e-300, 1e-313 subnormal) against the model
    itself, with re-grids (the edges come from the feature, not the model, so they are the
    same): the differences are scaled back to order 1 by a power of two before their
    moments are formed, and multiplying by a power of two is exact, so the curve, its
    standard error and the history are ``2**power`` times those at order 1 (exactly for
    normal floats; within the round-off of the subnormal model outputs otherwise), finite
    and without an overflow. Before: at 1e300 the squared differences overflowed and
    every row was skipped as not finite; at 1e-300 they underflowed to a standard error
    of 0."""
    X = _data(1500)

    def g(A):
        return 3 * A[:, 0] + np.sin(4 * A[:, 0]) * A[:, 1]

    factor = 2.0 ** power
    one = IncrementalALE(g, "x0", grid_resolution=8, history_every=250, random_state=0)
    big = IncrementalALE(lambda A: g(A) * factor, "x0", grid_resolution=8,
                         history_every=250, random_state=0)
    with np.errstate(over="raise", invalid="raise"):
        for s in range(0, len(X), 250):
            one.explain_many(X[s:s + 250])
            big.explain_many(X[s:s + 250])
    a, b = one.ale_, big.ale_
    assert big.n_skipped_ == 0 and big.n_regrids_ == one.n_regrids_ > 0
    assert np.isfinite(b.average).all() and np.isfinite(b.std).all() and (b.std > 0).any()
    np.testing.assert_array_equal(b.grid_values[0], a.grid_values[0])
    exact = power > -1000
    if exact:
        np.testing.assert_array_equal(b.average, np.ldexp(a.average, power))
        np.testing.assert_array_equal(b.std, np.ldexp(a.std, power))
        for (n1, c1, _), (n2, c2, _) in zip(one.history_, big.history_):
            assert n1 == n2
            np.testing.assert_array_equal(c2, np.ldexp(c1, power))
    else:
        np.testing.assert_allclose(b.average / factor, a.average, rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(b.std / factor, a.std, rtol=1e-2, atol=1e-3)


def test_not_started_is_the_same_error_as_ipdp():
    """QA9 #10: before any row (and while warming up) ale_ raises NotStartedError -- the class
    IncrementalPDP.pd_ raises, a ValueError and an AttributeError -- so ``hasattr`` is False
    and one ``except`` serves both curves; it was a plain ValueError."""
    from ixplain import IncrementalPDP
    from ixplain.methods.ipdp import NotStartedError

    fresh = IncrementalALE(f, "x0")
    for explainer, attr in [(fresh, "ale_"), (IncrementalPDP(f, "x0"), "pd_")]:
        with pytest.raises(NotStartedError, match="has not explained any observation yet"):
            getattr(explainer, attr)
        assert not hasattr(explainer, attr)
    assert issubclass(NotStartedError, ValueError) and issubclass(NotStartedError, AttributeError)
    warming = IncrementalALE(f, "x0", regrid_every=100)
    warming.explain_many(_data(50))  # fewer rows than regrid_every: no edges yet
    with pytest.raises(NotStartedError, match="still warming up.*50 rows seen"):
        _ = warming.ale_
    assert fresh.importances_.shape == (0,)  # importances_ stays an empty array (documented)


def test_ipfi_isage_importances_before_the_first_row_are_documented():
    """QA9 #10 (kept, River/ixai style): iPFI and iSAGE report no error before the first
    explained row -- an empty array before any observation, zeros of shape (n_features,) after
    a row that only filled the empty storage -- and their docstrings say so."""
    from ixplain import IncrementalPFI, IncrementalSAGE

    x, y = np.array([[1.0, 2.0]]), np.array([1.0])
    for klass, kwargs in [(IncrementalPFI, {}), (IncrementalSAGE, {"n_samples": 2})]:
        e = klass(lambda A: A[:, 0], loss="squared_error", random_state=0, **kwargs)
        assert e.importances_.shape == (0,)
        e.explain_many(x, y)
        assert e.n_explained_ == 0 and e.importances_.tolist() == [0.0, 0.0]
        assert "empty array" in klass.__doc__ and "NotStartedError" in klass.__doc__
