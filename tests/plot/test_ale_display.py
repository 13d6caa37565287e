"""ALE Display and PD + ALE on one axis."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from ixplain import (  # noqa: E402
    AccumulatedLocalEffectsDisplay,
    PartialDependenceDisplay,
    accumulated_local_effects,
)


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    return np.c_[x0, x0 + 0.1 * rng.normal(size=n), rng.integers(0, 4, n)]


def f(A):
    return A[:, 0] ** 2 + A[:, 1] + 0.5 * A[:, 2]


def test_display_panels_band_and_rug():
    X = _data()
    disp = AccumulatedLocalEffectsDisplay.from_estimator(f, X, [0, 2, (0, 1)], grid_resolution=8)
    res = disp.results[0]
    lo, hi = res.band(0.95)
    band = disp.bands_[0].get_paths()[0].vertices
    assert band[:, 1].min() == pytest.approx(lo[0].min()) and band[:, 1].max() == pytest.approx(
        hi[0].max())
    np.testing.assert_allclose(disp.lines_[0].get_ydata(), res.average[0])
    assert len(disp.deciles_vlines_[0].get_segments()) == 9
    # the discrete feature: points at its levels with error bars
    np.testing.assert_allclose(disp.lines_[1].get_xdata(), [0, 1, 2, 3])
    assert disp.errorbars_[1] is not None and disp.contours_[2] is not None
    assert disp.colorbars_[2] is not None and disp.lines_[2] is None


def test_display_categorical_missing_label_and_output_check():
    rng = np.random.default_rng(1)
    x = rng.normal(size=300)
    x[:15] = np.nan
    df = pd.DataFrame({"c": rng.choice(["a", "b", "c"], 300), "x": x})
    res = accumulated_local_effects(lambda d: np.nan_to_num(d["x"].to_numpy()) + (d["c"] == "b"),
                                    df, "x")
    disp = AccumulatedLocalEffectsDisplay.from_result(res)
    assert "15 rows missing" in disp.axes_[0, 0].get_xlabel()
    cat = accumulated_local_effects(lambda d: (d["c"] == "b").to_numpy() * 1.0, df, "c")
    disp = AccumulatedLocalEffectsDisplay.from_result(cat)
    labels = [t.get_text() for t in disp.axes_[0, 0].get_xticklabels()]
    assert labels == [str(v) for v in cat.grid_values[0]]
    with pytest.raises(ValueError, match="'output' parameter"):
        AccumulatedLocalEffectsDisplay.from_result(cat, output=1)
    with pytest.raises(TypeError, match="'results' parameter"):
        AccumulatedLocalEffectsDisplay([1])


def test_pd_and_ale_on_one_axis():
    X = _data()
    disp = PartialDependenceDisplay.from_estimator(f, X, [0, 1], ale=True, grid_resolution=20)
    assert all(line is not None for line in disp.ale_lines_.ravel())
    for panel, ale_line, pd_line in zip(disp.axes_.ravel(), disp.ale_lines_.ravel(),
                                        disp.lines_.ravel()):
        assert ale_line.axes is panel and pd_line.axes is panel
    # x0 enters additively (x0^2): the shifted ALE lies on the PD (up to the linear
    # interpolation of z^2 between edges), i.e. the shift puts both curves on one level
    line, pd_res = disp.ale_lines_[0, 0], disp.results[0]
    on_grid = np.interp(pd_res.grid_values[0], line.get_xdata(), line.get_ydata())
    np.testing.assert_allclose(on_grid, pd_res.average[0], atol=0.1)
    with pytest.raises(ValueError, match="cannot share the panel"):
        PartialDependenceDisplay(disp.results, ale=[None, accumulated_local_effects(f, X, 0)]).plot()
    with pytest.raises(TypeError, match="'ale' parameter"):
        PartialDependenceDisplay(disp.results, ale=[None])


def test_empty_bins_are_shaded_and_have_no_band():
    """Custom edges with an empty bin: the curve is drawn, the bin is shaded grey, no band."""
    x0 = np.r_[np.linspace(0, 1, 50), np.linspace(2.1, 3, 50)]
    X = np.c_[x0, np.zeros(100)]
    res = accumulated_local_effects(lambda A: A[:, 0], X, 0, custom_edges={0: [0, 1, 2, 3]})
    assert res.empty_bins.tolist() == [False, True, False] and np.isnan(res.std).all()
    disp = AccumulatedLocalEffectsDisplay.from_result(res)
    spans = disp.empty_bins_[0]
    assert len(spans) == 1
    box = spans[0].get_extents().transformed(disp.axes_[0, 0].transData.inverted())
    np.testing.assert_allclose([box.x0, box.x1], [1.0, 2.0])
    band = disp.bands_[0]
    assert band is None or len(band.get_paths()) == 0 or all(
        len(p.vertices) == 0 for p in band.get_paths())
    full = AccumulatedLocalEffectsDisplay.from_estimator(lambda A: A[:, 0], X, [0])
    assert full.empty_bins_ == [None]


def test_datetime_panels_draw_in_time():
    rng = np.random.default_rng(0)
    t = pd.Timestamp("2021-03-01", tz="US/Eastern") + pd.to_timedelta(
        np.sort(rng.uniform(0, 60, 300)), unit="D")
    df = pd.DataFrame({"t": t, "x": rng.normal(size=300)})

    def g(d):
        return (d["t"] - t[0]).dt.total_seconds().to_numpy() / 86400 + d["x"].to_numpy()

    disp = AccumulatedLocalEffectsDisplay.from_estimator(g, df, ["t", ("t", "x")],
                                                         grid_resolution=6)
    import matplotlib.dates as mdates

    res = disp.results[0]
    x = mdates.date2num(disp.lines_[0].get_xdata())
    np.testing.assert_allclose(x, mdates.date2num(res.grid_values[0].to_pydatetime()))
    assert np.all(np.diff(x) > 0) and disp.deciles_vlines_[0] is not None
    assert disp.contours_[1] is not None
