"""The static ALE of outputs beyond about 1e154: its band (``std``) was NaN, because the squares
of the local differences overflowed float64 (iALE already scaled them by a power of two). ALE is
linear in the output, so the reference is the ALE of the same outputs divided by ``2**k``:
scaling by a power of two is exact, so curve and band must be that reference times ``2**k``
bit for bit, with no numpy overflow warning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ixplain import accumulated_local_effects
from ixplain.methods._ale_effects import ScaledSums, rescale_moments, row_moments
from ixplain.methods._engine import explain_rows
from ixplain.methods.ale import ALEFunction
from ixplain.models import as_model
from ixplain.tabular import as_table


def _data(n=400, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, 2))
    X[:, 1] = np.sort(X[:, 1])  # (rows in order of x1: later chunks hold the larger effects)
    return X


def _g(A):
    return A[:, 0] ** 2 + A[:, 0] * A[:, 1]  # the local differences vary within a bin


def _quiet_ale(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow RuntimeWarning would fail here
        return accumulated_local_effects(*args, **kwargs)


@pytest.mark.parametrize("k", [540, 700, 1000])  # 2**540 ~ 3.6e162, 2**1000 ~ 1.1e301
def test_numeric_ale_and_band_of_scaled_outputs_are_the_scaled_reference(k):
    X = _data()
    ref = accumulated_local_effects(_g, X, "x0", grid_resolution=8)
    big = _quiet_ale(lambda A: 2.0 ** k * _g(A), X, "x0", grid_resolution=8)
    assert np.isfinite(ref.std).all() and (ref.std > 0).all()
    np.testing.assert_array_equal(big.average, ref.average * 2.0 ** k)
    np.testing.assert_array_equal(big.std, ref.std * 2.0 ** k)
    lo, hi = big.band()
    np.testing.assert_array_equal(hi - lo, (lambda b: b[1] - b[0])(ref.band()) * 2.0 ** k)


def test_discrete_feature_ale_of_scaled_outputs_is_exact_one_step_per_level():
    """``x0`` in {0, 1, 2}, ``f = 2**700 * (x0**2 + noise-free x1)``: one step per level, so
    the curve is ``2**700 * (level**2 - mean)`` exactly and the band is finite (0)."""
    rng = np.random.default_rng(1)
    X = np.c_[rng.integers(0, 3, size=300).astype(float), rng.normal(size=300)]
    big = _quiet_ale(lambda A: 2.0 ** 700 * (A[:, 0] ** 2 + A[:, 1]), X, "x0")
    assert big.feature_kinds == ("discrete",)
    levels = np.array([0.0, 1.0, 4.0])
    share = np.bincount(X[:, 0].astype(int), minlength=3) / len(X)
    np.testing.assert_allclose(big.average[0] / 2.0 ** 700, levels - share @ levels,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(big.std, np.zeros_like(big.std))


@pytest.mark.parametrize("feature", ["x0", "c"])
def test_weighted_and_categorical_ale_of_scaled_outputs_are_the_scaled_reference(feature):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"x0": rng.normal(size=300), "c": rng.choice(list("abcd"), 300)})
    w = rng.uniform(0.2, 3.0, size=300)

    def g(D):
        x0, c = D["x0"].to_numpy(), D["c"].to_numpy()
        return x0 ** 2 + x0 * (c == "a") + 3.0 * (c == "b")

    ref = accumulated_local_effects(g, X, feature, sample_weight=w)
    big = _quiet_ale(lambda D: 2.0 ** 800 * g(D), X, feature, sample_weight=w)
    assert np.isfinite(ref.std).all() and ref.std.max() > 0
    np.testing.assert_array_equal(big.average, ref.average * 2.0 ** 800)
    np.testing.assert_array_equal(big.std, ref.std * 2.0 ** 800)


def test_second_order_ale_of_scaled_outputs_is_the_scaled_reference():
    X = _data()
    ref = accumulated_local_effects(_g, X, ["x0", "x1"], grid_resolution=4)
    big = _quiet_ale(lambda A: 2.0 ** 1000 * _g(A), X, ["x0", "x1"], grid_resolution=4)
    np.testing.assert_array_equal(big.average, ref.average * 2.0 ** 1000)


def test_effects_that_grow_from_chunk_to_chunk_give_the_one_chunk_result():
    """With the smallest memory budget the rows come in chunks of about 128; the first chunks
    have effects near 1, the last near 2**700, so the sums kept so far are rescaled when a
    larger effect arrives: same curve and band as one chunk with one scale."""
    X = _data()

    def f(A):
        return _g(A) * np.where(A[:, 1] > 0.5, 2.0 ** 700, 1.0)

    one = _quiet_ale(f, X, "x0", grid_resolution=8)
    chunks = _quiet_ale(f, X, "x0", grid_resolution=8, memory_budget=4096)
    assert np.isfinite(chunks.std).all() and (chunks.std > 0).all()
    np.testing.assert_allclose(chunks.average, one.average, rtol=1e-12)
    np.testing.assert_allclose(chunks.std, one.std, rtol=1e-12)


def test_ale_function_with_a_chosen_shift_reports_in_the_models_units():
    """``ALEFunction(shift=None)`` picks the power of two at its first batch; its ``result``
    divides it back (it returned the effects times ``2**shift`` before)."""
    X = _data(300)
    edges = np.linspace(-2.0, 2.0, 5)
    out = []
    for k in (0, 700):
        method = ALEFunction(as_model(lambda A, s=2.0 ** k: s * _g(A)), "x0", edges, shift=None)
        out.append(method.result(explain_rows(method, as_table(X))))
    assert method.shift is not None and method.shift < -700
    np.testing.assert_array_equal(out[1].average, out[0].average * 2.0 ** 700)
    np.testing.assert_array_equal(out[1].std, out[0].std * 2.0 ** 700)


def test_rescaled_moments_are_the_moments_of_the_rescaled_differences():
    d = np.random.default_rng(2).normal(size=(50, 2))
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=50)
    sums = row_moments(d, w).sum(axis=0)
    np.testing.assert_array_equal(rescale_moments(sums, -40),
                                  row_moments(d * 2.0 ** -40, w).sum(axis=0))


def test_scaled_sums_keep_the_smaller_shift_and_unscale_exactly():
    acc = ScaledSums()
    to_sums = lambda d: row_moments(d).sum(axis=0)[..., None]  # noqa: E731
    acc.add(np.array([[0.0]]), to_sums)  # no non-zero difference: no scale yet
    assert acc.shift is None
    acc.add(np.array([[3.0], [-1.0]]), to_sums)
    assert acc.shift == 0
    acc.add(np.array([[2.0 ** 900]]), to_sums)
    assert acc.shift == -901
    np.testing.assert_array_equal(acc.unscaled(acc.total[1, :, 0]), [2.0 + 2.0 ** 900])
