"""Friedman's H-statistic of outputs beyond about 1e154: the squares overflowed to inf and every
``H^2`` came out 0 (a ratio over inf), with no error. ``H^2`` is scale-invariant, so the
reference is the statistic of the same outputs divided by ``2**k``: the outputs are scaled by a
power of two before squaring (exact), so the ratios must equal the reference bit for bit, and
the unnormalised statistics be the reference times ``2**k`` (roots) or ``2**(2k)`` (squares)."""

from __future__ import annotations

import copy
import itertools
import warnings

import numpy as np
import pytest

from ixplain import h_statistic

pytest.importorskip("sklearn")
from sklearn.tree import DecisionTreeRegressor


def _g(A):
    return A[:, 0] * A[:, 1] + A[:, 2] + 0.3 * A[:, 0]


def _quiet_h(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow RuntimeWarning would fail here
        # (ixplain's own warning that the squared unnormalised statistic is inf is expected)
        warnings.filterwarnings("ignore", message="h_statistic: the outputs are so large")
        return h_statistic(*args, **kwargs)


def test_closed_form_of_x0_x1_plus_x2_holds_for_outputs_times_2_to_the_600():
    """Module docstring's closed form: ``H^2_0 = H^2_1 = 1/2``, ``H^2_2 = 0``, ``H^2_01 = 1``
    (the outputs reach 2**601 ~ 8e180; every H^2 was 0 before)."""
    X = np.array(list(itertools.product([-1.0, 1.0], repeat=3)))
    h = _quiet_h(lambda A: 2.0 ** 600 * (A[:, 0] * A[:, 1] + A[:, 2]), X, method="brute")
    np.testing.assert_allclose(h.overall_h2, [[0.5, 0.5, 0.0]], atol=1e-12)
    assert h.pairwise_h2[0, 0, 1] == pytest.approx(1.0, abs=1e-12)
    # the unnormalised pair statistic on the prediction's scale: sqrt(E[(x0 x1)^2]) = 1
    assert h.with_statistic(normalize=False, squared=False).pairwise[0, 0, 1] == 2.0 ** 600


@pytest.mark.parametrize("k", [540, 700, 1000])
def test_brute_statistics_of_scaled_outputs_are_the_scaled_reference(k):
    X = np.random.default_rng(0).normal(size=(60, 3))
    pairs = [(0, 1), (0, 2), (1, 2)]
    ref = h_statistic(_g, X, method="brute", pairs=pairs)
    big = _quiet_h(lambda A: 2.0 ** k * _g(A), X, method="brute", pairs=pairs)
    assert (ref.overall_h2[0, :2] > 0.1).all() and ref.pairwise_h2[0, 0, 1] > 0.1
    np.testing.assert_array_equal(big.overall_h2, ref.overall_h2)
    np.testing.assert_array_equal(big.pairwise_h2, ref.pairwise_h2)
    assert big.pairs == ref.pairs
    roots, ref_roots = (r.with_statistic(normalize=False, squared=False) for r in (big, ref))
    np.testing.assert_array_equal(roots.overall, ref_roots.overall * 2.0 ** k)
    np.testing.assert_array_equal(roots.pairwise, ref_roots.pairwise * 2.0 ** k)
    with np.errstate(over="ignore"):  # the squares: beyond the float range they are inf
        np.testing.assert_array_equal(big.overall_unnormalized,
                                      ref.overall_unnormalized * 2.0 ** k * 2.0 ** k)
        np.testing.assert_array_equal(big.prediction_variance,
                                      ref.prediction_variance * 2.0 ** k * 2.0 ** k)


def test_tree_statistics_of_a_tree_with_scaled_leaves_are_the_reference():
    X = np.random.default_rng(1).normal(size=(200, 3))
    tree = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, _g(X))
    big = copy.deepcopy(tree)
    big.tree_.value[:] *= 2.0 ** 700  # leaves near 1e211: the same tree, outputs times 2**700
    ref, h = h_statistic(tree, X), _quiet_h(big, X)
    assert h.settings["method"] == ref.settings["method"] == "tree"
    assert (ref.overall_h2 > 0.01).all()
    np.testing.assert_array_equal(h.overall_h2, ref.overall_h2)
    np.testing.assert_array_equal(h.pairwise_h2, ref.pairwise_h2)


def test_ordinary_outputs_keep_no_roots_and_report_the_square_root_of_the_numerators():
    X = np.random.default_rng(0).normal(size=(40, 3))
    h = h_statistic(_g, X, method="brute")
    assert h.roots is None
    np.testing.assert_array_equal(h.with_statistic(normalize=False, squared=False).overall,
                                  np.sqrt(h.overall_unnormalized))
