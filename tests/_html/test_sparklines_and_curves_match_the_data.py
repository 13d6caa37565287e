"""The inline charts are the data: a sparkline's points are the trace's (scaled into the box,
thinned with its extremes kept), a curve's points are the PD / ALE values."""

from __future__ import annotations

import numpy as np
import pytest
from _parse import parse

from ixplain import IncrementalPFI, accumulated_local_effects, partial_dependence
from ixplain._html._blocks import CURVE_H, CURVE_W, MAX_POINTS, SPARK_H, SPARK_W, thin
from ixplain.results import ImportanceTimeSeries


def _unscale(points, x, y, width, height, margin):
    """The data values behind polyline points drawn in a ``width`` x ``height`` box with
    ``margin`` px on each side, scaled on the data's own range (x and y)."""
    px, py = np.array(points).T
    xs = x.min() + (px - margin) / (width - 2 * margin) * (x.max() - x.min())
    ys = y.min() + (1 - (py - margin) / (height - 2 * margin)) * (y.max() - y.min())
    return xs, ys


def test_sparkline_points_are_the_trace():
    times = np.array([100, 200, 300, 400, 500, 600])
    values = np.array([[0.0, 1.0], [0.5, 1.0], [0.2, 1.5], [-0.4, 2.0], [0.3, 2.5], [0.1, 3.0]])
    ts = ImportanceTimeSeries(times, values, np.zeros_like(values), ["a", "b"])
    doc = parse(ts._repr_html_())
    assert doc.column(0) == ["b", "a"]
    (b_line, a_line) = doc.polylines()
    for line, j in ((a_line, 0), (b_line, 1)):
        x, y = _unscale(line, times.astype(float), values[:, j], SPARK_W, SPARK_H, 1)
        assert x == pytest.approx(times, abs=0.05 / SPARK_W * 500 * 2)
        span = np.ptp(values[:, j])
        assert y == pytest.approx(values[:, j], abs=0.05 / (SPARK_H - 2) * span * 2)


def test_a_long_trace_is_thinned_keeping_its_ends_and_extremes():
    rng = np.random.default_rng(0)
    y = rng.normal(size=1000).cumsum()
    y[537] = y.max() + 50  # a one-snapshot spike
    y[12] = y.min() - 50  # and a dip
    idx = thin(y)
    assert len(idx) <= MAX_POINTS and list(idx) == sorted(set(idx))
    assert {0, 999, 12, 537} <= set(idx.tolist())
    ts = ImportanceTimeSeries(np.arange(1000), y[:, None], np.zeros((1000, 1)), ["a"])
    (line,) = parse(ts._repr_html_()).polylines()
    x, v = _unscale(line, np.arange(1000.0), y, SPARK_W, SPARK_H, 1)
    assert len(line) == len(idx)
    assert np.round(x) == pytest.approx(idx, abs=6)  # 1000 rows over 88 px
    assert v == pytest.approx(y[idx], abs=np.ptp(y) * 0.01)


def test_explainer_traces_are_its_history():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    e = IncrementalPFI(lambda A: 2 * A[:, 0], "squared_error", alpha=0.1, random_state=0,
                       history_every=25)
    e.explain_many(X, 2 * X[:, 0])
    times = np.array([h[0] for h in e.history_], dtype=float)
    hist = np.array([h[1] for h in e.history_])
    doc = parse(e._repr_html_())
    for name, line in zip(doc.column(0), doc.polylines()):
        j = e.feature_names_.index(name)
        x, y = _unscale(line, times, hist[:, j], SPARK_W, SPARK_H, 1)
        assert x == pytest.approx(times, abs=2) and y == pytest.approx(
            hist[:, j], abs=np.ptp(hist[:, j]) * 0.01 + 1e-12)


def test_pd_curve_points_are_the_average():
    X = np.c_[np.linspace(0, 1, 50), np.zeros(50)]
    r = partial_dependence(lambda A: A[:, 0] ** 2, X, "x0", grid_resolution=11)
    doc = parse(r._repr_html_())
    (line,) = doc.polylines()
    grid, avg = r.grid_values[0], r.average[0]
    x, y = _unscale(line, grid, avg, CURVE_W, CURVE_H, 2)
    assert x == pytest.approx(grid, abs=0.01) and y == pytest.approx(avg, abs=0.01)
    assert f"x {grid[0]:.4g} .. {grid[-1]:.4g} (11 points)" in "".join(doc.text)


def test_ale_curve_has_its_band_and_every_output_is_drawn():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 2))
    r = accumulated_local_effects(lambda A: np.c_[A[:, 0], -A[:, 0] ** 2], X, "x0",
                                  grid_resolution=8)
    doc = parse(r._repr_html_())
    assert len(doc.polylines()) == 2
    bands = [a for t, a in doc.tags if t == "polygon"]
    assert len(bands) == 2 and "95 % band" in "".join(doc.text)


def test_categorical_pd_lists_its_levels_in_grid_order():
    import pandas as pd

    df = pd.DataFrame({"c": ["b", "a", "<c>", "a"] * 10, "v": np.arange(40.0)})
    r = partial_dependence(lambda D: (D["c"] == "a").to_numpy() * 2.0, df, "c")
    doc = parse(r._repr_html_())
    assert doc.column(0) == [str(v) for v in r.grid_values[0]]
    assert doc.column(0, 2) == [f"{v:.4g}" for v in r.average[0]]
    assert "&lt;c&gt;" in r._repr_html_()


def test_two_way_pd_is_one_sentence_with_its_range():
    X = np.c_[np.linspace(0, 1, 30), np.linspace(-1, 1, 30)]
    r = partial_dependence(lambda A: A[:, 0] * A[:, 1], X, ["x0", "x1"], grid_resolution=5)
    text = "".join(parse(r._repr_html_()).text)
    assert "2-way surface on a 5 x 5 grid" in text
    assert f"from {r.average.min():.4g} to {r.average.max():.4g}" in text
