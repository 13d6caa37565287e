"""Grids: scikit-learn's rule exactly, and the cases where ixplain deliberately differs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats.mstats import mquantiles
from sklearn.inspection._partial_dependence import _grid_from_X

from ixplain.grids import DECILES, feature_deciles, feature_grid
from ixplain.tabular import as_table


def _sk_grid(column, is_cat=False, percentiles=(0.05, 0.95), grid_resolution=100):
    _, values = _grid_from_X(
        np.asarray(column).reshape(-1, 1), percentiles, [is_cat], grid_resolution, {}
    )
    return values[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("percentiles", [(0.05, 0.95), (0.0, 1.0), (0.2, 0.6)])
@pytest.mark.parametrize("grid_resolution", [2, 7, 100])
def test_numeric_grid_equals_sklearn(seed, percentiles, grid_resolution):
    rng = np.random.default_rng(seed)
    x = rng.lognormal(size=150)
    t = as_table(x.reshape(-1, 1))
    g = feature_grid(t, "x0", percentiles=percentiles, grid_resolution=grid_resolution)
    np.testing.assert_array_equal(g.values, _sk_grid(x, False, percentiles, grid_resolution))
    assert g.rule == "percentile"


def test_independent_definition_of_the_percentile_grid():
    # mquantiles with scipy's default plotting positions (alphap = betap = 0.4), written out:
    x = np.arange(1.0, 21.0)
    n, (p_lo, p_hi) = len(x), (0.05, 0.95)

    def quantile(p):
        m = 0.4 + p * (1 - 0.4 - 0.4)
        aleph = n * p + m
        k = int(np.floor(np.clip(aleph, 1, n - 1)))
        gamma = np.clip(aleph - k, 0, 1)
        return (1 - gamma) * x[k - 1] + gamma * x[k]

    g = feature_grid(as_table(x.reshape(-1, 1)), "x0", grid_resolution=5)
    np.testing.assert_allclose(g.values, np.linspace(quantile(p_lo), quantile(p_hi), 5))


def test_few_unique_values_and_categorical_grids_equal_sklearn():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=40).astype(float)
    g = feature_grid(as_table(x.reshape(-1, 1)), "x0")
    np.testing.assert_array_equal(g.values, _sk_grid(x))
    assert g.rule == "unique"
    s = rng.choice(["b", "a", "c"], size=30).astype(object)
    gc = feature_grid(as_table(s.reshape(-1, 1)), "x0")
    assert list(gc.values) == list(_sk_grid(s, True)) == ["a", "b", "c"]
    assert gc.kind == "categorical" and gc.deciles is None


def test_float32_column_matches_sklearn():
    x = np.random.default_rng(0).normal(size=200).astype(np.float32)
    g = feature_grid(as_table(x.reshape(-1, 1)), "x0", grid_resolution=20)
    np.testing.assert_array_equal(g.values, _sk_grid(x, grid_resolution=20))


def test_quantile_grid_follows_density():
    x = np.r_[np.linspace(0, 1, 900), np.linspace(1, 100, 100)]
    g = feature_grid(as_table(x.reshape(-1, 1)), "x0", grid="quantile", grid_resolution=11,
                     percentiles=(0.0, 1.0))
    expected = mquantiles(x, prob=np.linspace(0, 1, 11))
    np.testing.assert_allclose(g.values, expected)
    assert g.rule == "quantile" and np.sum(g.values <= 1.0) >= 9


def test_custom_values_and_bad_custom_values():
    t = as_table(np.arange(10.0).reshape(-1, 2))
    g = feature_grid(t, "x0", custom_values=[3, 1, 2])
    assert g.values.tolist() == [3, 1, 2] and g.rule == "custom"
    assert feature_grid(t, "x0", custom_values=pd.Series(["a", "b"])).values.dtype == object
    for bad in ([], [[1, 2]]):
        with pytest.raises(ValueError, match="'custom_values' parameter .*feature 'x0'"):
            feature_grid(t, "x0", custom_values=bad)


def test_scale_relative_tolerance():
    x = np.random.default_rng(0).normal(size=300) * 1e-10
    with pytest.raises(ValueError, match="percentiles are too close"):
        _sk_grid(x)  # scikit-learn's absolute tolerance refuses a feature in units of 1e-10
    g = feature_grid(as_table(x.reshape(-1, 1)), "x0")
    assert len(np.unique(g.values)) == 100 and np.ptp(g.values) > 1e-10
    big = 1e12 + np.random.default_rng(1).normal(size=300) * 1e3
    assert len(np.unique(feature_grid(as_table(big.reshape(-1, 1)), "x0").values)) == 100


def test_collapsed_percentiles():
    few = np.r_[np.zeros(3000), np.arange(1.0, 121.0)]  # 121 distinct values, 96% zeros
    g = feature_grid(as_table(few.reshape(-1, 1)), "x0", grid_resolution=100)
    assert g.rule == "unique-fallback" and len(g.values) == 121
    many = np.r_[np.zeros(6000), np.arange(1.0, 251.0)]
    with pytest.raises(ValueError, match=r"feature 'x0' are both 0.0 \(9\d% of its values\)"):
        feature_grid(as_table(many.reshape(-1, 1)), "x0", grid_resolution=100)
    g = feature_grid(as_table(many.reshape(-1, 1)), "x0", grid_resolution=100, percentiles=(0, 1))
    assert g.rule == "percentile" and g.values[-1] == 250.0


@pytest.mark.parametrize("offset, width", [(1e15, 1e3), (1e6, 1e-6)])
def test_near_equal_percentiles_are_printed_in_full(offset, width):
    """QA9 #8: percentiles closer than 1e-9 of their magnitude count as equal, but the message
    printed one value and called both equal. The independent reference is scipy's mquantiles at
    scikit-learn's plotting positions: both values must appear as repr (round-trip exact), with
    their difference and the reason, and no 'are both' claim."""
    x = offset + width * np.random.default_rng(0).uniform(size=1000)
    lo, hi = (float(v) for v in mquantiles(x, [0.05, 0.95], alphap=0.4, betap=0.4))
    assert lo < hi and hi - lo < 1e-9 * hi  # the refused case, not an equal pair
    with pytest.raises(ValueError) as info:
        feature_grid(as_table(x.reshape(-1, 1)), "x0")
    msg = str(info.value)
    assert f"are {lo!r} and {hi!r}, which differ by {hi - lo!r}" in msg
    assert float(repr(lo)) == lo and "are both" not in msg
    assert "float32" in msg and "custom_values" in msg and "offset" in msg
    g = feature_grid(as_table(x.reshape(-1, 1) - offset), "x0")  # the advised offset works
    assert g.rule == "percentile" and len(g.values) == 100


def test_missing_numeric_values_never_in_grid_unless_asked():
    x = np.r_[np.arange(10.0), [np.nan, np.nan]]
    t = as_table(x.reshape(-1, 1))
    g = feature_grid(t, "x0")
    assert g.values.tolist() == list(np.arange(10.0)) and not g.has_missing
    g = feature_grid(t, "x0", include_missing=True)
    assert np.isnan(g.values[-1]) and g.values[:-1].tolist() == list(np.arange(10.0))
    assert g.has_missing
    np.testing.assert_allclose(g.deciles, feature_deciles(np.arange(10.0)))
    dense = np.r_[np.linspace(0, 1, 200), [np.nan] * 20]
    gd = feature_grid(as_table(dense.reshape(-1, 1)), "x0", grid_resolution=10)
    np.testing.assert_array_equal(gd.values, _sk_grid(np.linspace(0, 1, 200), grid_resolution=10))
    with pytest.raises(ValueError, match="feature 'x0' has no non-missing value"):
        feature_grid(as_table(np.full((3, 1), np.nan)), "x0")


def test_categorical_missing_level_ordered_and_bool():
    df = pd.DataFrame(
        {
            "s": ["b", None, "a", np.nan, "b"],
            "o": pd.Categorical(["hi", "lo", None, "lo", "hi"], categories=["lo", "mid", "hi"], ordered=True),
            "flag": [True, False, True, True, False],
            "mixed": ["x", 1, "x", 2, 1],
        }
    )
    t = as_table(df)
    s = feature_grid(t, "s")
    assert list(s.values[:2]) == ["a", "b"] and pd.isna(s.values[2]) and s.has_missing
    o = feature_grid(t, "o")
    assert list(o.values[:2]) == ["lo", "hi"] and pd.isna(o.values[2])
    assert feature_grid(t, "flag").values.tolist() == [False, True]
    assert sorted(map(str, feature_grid(t, "mixed").values)) == ["1", "2", "x"]


def test_integer_columns():
    rng = np.random.default_rng(0)
    small = rng.integers(0, 2, size=50)
    g = feature_grid(as_table(small.reshape(-1, 1)), "x0")
    assert g.values.tolist() == [0, 1] and g.values.dtype.kind == "i"
    nullable = as_table(pd.DataFrame({"n": pd.array([3, None, 1, 3], dtype="Int64")}))
    gn = feature_grid(nullable, "n")
    assert gn.values.tolist() == [1, 3] and gn.values.dtype.kind == "i"
    wide = rng.integers(0, 1000, size=400)
    gw = feature_grid(as_table(wide.reshape(-1, 1)), "x0", grid_resolution=10)
    assert gw.rule == "percentile" and gw.values.dtype == np.float64
    np.testing.assert_array_equal(gw.values, _sk_grid(wide.astype(float), grid_resolution=10))


@pytest.mark.parametrize("n", [1, 2, 3, 10, 11, 257])
def test_deciles_and_quantile_grid_equal_scipy_mquantiles_bit_for_bit(n):
    """grids computes mquantiles itself (no scipy.stats at import): the same floats as scipy."""
    rng = np.random.default_rng(n)
    for x in (rng.normal(size=n) * 1e3, np.round(rng.normal(size=n) * 3), rng.lognormal(size=n)):
        expected = np.asarray(mquantiles(x, prob=DECILES), dtype=np.float64)
        np.testing.assert_array_equal(feature_deciles(x), expected)
        if len(np.unique(x)) > 4:
            g = feature_grid(as_table(x.reshape(-1, 1)), "x0", grid="quantile", grid_resolution=4)
            probs = np.linspace(0.05, 0.95, 4)
            np.testing.assert_array_equal(g.values, np.unique(mquantiles(x, prob=probs)))
