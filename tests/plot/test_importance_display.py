"""Displays for importances and PD over stream time: artists exist and plot the result's values."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ixplain import (
    FeatureImportanceDisplay,
    ImportanceTraceDisplay,
    IncrementalPDP,
    PartialDependenceTraceDisplay,
)
from ixplain.methods._incremental import IncrementalExplainer
from ixplain.results.importance import FeatureImportance, ImportanceTimeSeries


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


class _Echo(IncrementalExplainer):
    """A minimal incremental explainer: the explanation of x is x itself (its smoothed mean)."""

    _owner = "_Echo"
    requires_labels = False
    requires_storage = False

    def _explain_batch(self, X, y, sampler):
        return np.column_stack([X.numeric_column(n) for n in X.names])


# --------------------------------------------------------------------------- bars


def test_feature_importance_bars_are_sorted_with_error_bars():
    result = FeatureImportance.from_importances(
        np.array([[0.1, 0.3], [0.9, 1.1], [0.4, 0.4]]), ["a", "b", "c"]
    )
    disp = FeatureImportanceDisplay.from_result(result)
    assert len(disp.bars_.patches) == 3
    widths = [p.get_width() for p in disp.bars_.patches]
    np.testing.assert_allclose(widths, [1.0, 0.4, 0.2])  # sorted, largest first (top)
    ys = [p.get_y() + p.get_height() / 2 for p in disp.bars_.patches]
    assert ys == sorted(ys, reverse=True)
    labels = {t.get_text(): t.get_position()[1] for t in disp.ax_.get_yticklabels()}
    assert sorted(labels, key=labels.get, reverse=True) == ["b", "c", "a"]  # top to bottom
    # error bar half-widths are the stds, in the bars' order
    segments = disp.errorbars_.lines[2][0].get_segments()
    half = [(s[1][0] - s[0][0]) / 2 for s in segments]
    np.testing.assert_allclose(half, result.importances_std[disp.order_])
    assert disp.order_.tolist() == [1, 2, 0]
    assert disp.figure_ is disp.ax_.figure


def test_feature_importance_max_features_and_given_axes():
    fig, ax = plt.subplots()
    disp = FeatureImportanceDisplay(np.arange(5.0), None, list("abcde")).plot(ax=ax, max_features=2)
    assert disp.ax_ is ax and len(disp.bars_.patches) == 2
    assert disp.errorbars_ is None
    np.testing.assert_allclose([p.get_width() for p in disp.bars_.patches], [4.0, 3.0])


def test_feature_importance_from_explainer_uses_the_confidence_bound():
    rng = np.random.default_rng(0)
    exp = _Echo(lambda X: X[:, 0], aggregation="ema", alpha=0.05)
    exp.explain_many(rng.normal(loc=[1.0, 3.0, 2.0], size=(200, 3)))
    disp = FeatureImportanceDisplay.from_explainer(exp, delta=0.1)
    np.testing.assert_allclose(
        [p.get_width() for p in disp.bars_.patches], exp.importances_[disp.order_]
    )
    segments = disp.errorbars_.lines[2][0].get_segments()
    half = [(s[1][0] - s[0][0]) / 2 for s in segments]
    np.testing.assert_allclose(half, exp.confidence_bound(0.1)[disp.order_])
    assert "90% bound" in disp.ax_.get_xlabel()


def test_feature_importance_bad_input():
    with pytest.raises(ValueError, match="one importance"):
        FeatureImportanceDisplay(np.ones(3), np.ones(2), ["a", "b", "c"])
    with pytest.raises(ValueError, match="'max_features'"):
        FeatureImportanceDisplay(np.ones(2), None, ["a", "b"]).plot(max_features=0)
    with pytest.raises(ValueError, match="not explained any observation"):
        FeatureImportanceDisplay.from_explainer(_Echo(lambda X: X[:, 0]))


# --------------------------------------------------------------------------- over time


def _series():
    times = np.array([100, 200, 300, 400])
    imp = np.array([[0.1, 0.5], [0.2, 0.4], [0.3, 0.3], [0.4, 0.2]])
    var = np.full((4, 2), 0.04)
    return ImportanceTimeSeries(times, imp, var, ["a", "b"], {"aggregation": "ema", "alpha": 0.02})


def test_importance_trace_lines_bands_and_drift_markers():
    ts = _series()
    disp = ImportanceTraceDisplay.from_result(ts, delta=0.05, drift_points=[150, 350])
    assert len(disp.lines_) == 2 and len(disp.bands_) == 2 and len(disp.drift_lines_) == 2
    for j, line in enumerate(disp.lines_):
        np.testing.assert_allclose(line.get_xdata(), ts.times)
        np.testing.assert_allclose(line.get_ydata(), ts.importances[:, j])
    half = np.sqrt(0.04 * 0.02 / (2 - 0.02) / 0.05)
    verts = disp.bands_[0].get_paths()[0].vertices
    assert verts[:, 1].max() == pytest.approx(ts.importances[:, 0].max() + half)
    assert verts[:, 1].min() == pytest.approx(ts.importances[:, 0].min() - half)
    assert [ln.get_xdata()[0] for ln in disp.drift_lines_] == [150, 350]
    assert [t.get_text() for t in disp.ax_.get_legend().get_texts()] == ["a", "b"]


def test_importance_trace_without_settings_has_no_bands_and_selects_features():
    ts = _series()
    ts.settings = {}
    disp = ImportanceTraceDisplay.from_result(ts, features=["b"])
    assert disp.bands_ == [] and len(disp.lines_) == 1
    np.testing.assert_allclose(disp.lines_[0].get_ydata(), ts.importances[:, 1])
    mean = ImportanceTraceDisplay.from_result(ts, aggregation="mean")
    verts = mean.bands_[0].get_paths()[0].vertices
    widths = np.sqrt(0.04 / ts.times / 0.05)
    assert verts[:, 1].max() == pytest.approx((ts.importances[:, 0] + widths).max())
    with pytest.raises(ValueError, match="'features'"):
        ImportanceTraceDisplay.from_result(ts, features=["zzz"])


def test_importance_trace_from_explainer_history():
    rng = np.random.default_rng(1)
    exp = _Echo(lambda X: X[:, 0], alpha=0.05, history_every=50)
    for chunk in np.split(rng.normal(loc=[1.0, 2.0], size=(300, 2)), 6):
        exp.explain_many(chunk)
    disp = ImportanceTraceDisplay.from_explainer(exp)
    assert len(disp.lines_) == 2 and len(disp.bands_) == 2
    np.testing.assert_allclose(disp.lines_[1].get_xdata(), [50, 100, 150, 200, 250, 300])
    np.testing.assert_allclose(disp.lines_[1].get_ydata(), [h[1][1] for h in exp.history_])
    with pytest.raises(ValueError, match="no history_"):
        ImportanceTraceDisplay.from_explainer(_Echo(lambda X: X[:, 0]))


def test_importance_trace_of_an_ipfi_time_series_has_bands():
    from ixplain import IncrementalPFI

    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 2))
    y = 2 * X[:, 0]
    ipfi = IncrementalPFI(lambda A: 2 * A[:, 0], "squared_error", alpha=0.05, random_state=0,
                          history_every=50)
    ipfi.explain_many(X, y)
    ts = ipfi.importance_history()
    disp = ImportanceTraceDisplay.from_result(ts)
    assert len(disp.lines_) == 2 and len(disp.bands_) == 2
    np.testing.assert_allclose(disp.lines_[0].get_ydata(), ts.importances[:, 0])


# --------------------------------------------------------------------------- PD over time


def test_pd_trace_overlays_snapshots_newest_darkest():
    rng = np.random.default_rng(2)
    x0 = np.concatenate([rng.uniform(0, 1, 300), rng.uniform(0, 3, 300)])
    X = np.column_stack([x0, rng.normal(size=600)])
    exp = IncrementalPDP(lambda X: X[:, 0] ** 2, "x0", alpha=0.05, range_window=100,
                         history_every=100)
    exp.explain_many(X)
    disp = PartialDependenceTraceDisplay.from_explainer(exp)
    history = list(exp.history_)
    assert len(disp.lines_) == len(history) == 6  # the current PD is the last snapshot
    for line, snap in zip(disp.lines_, history):
        np.testing.assert_allclose(line.get_xdata(), snap.grid_values)
        np.testing.assert_allclose(line.get_ydata(), snap.average[0])
    np.testing.assert_allclose(disp.lines_[-1].get_ydata(), exp.pd_.average[0])
    # newest darkest: the colours' brightness decreases over time
    brightness = [np.sum(matplotlib.colors.to_rgb(ln.get_color())) for ln in disp.lines_]
    assert brightness == sorted(brightness, reverse=True)
    assert disp.colorbar_ is not None
    assert disp.lines_[0].get_xdata().max() <= 1.0 < disp.lines_[-1].get_xdata().max()
    rug = disp.deciles_vlines_.get_segments()
    np.testing.assert_allclose([seg[0][0] for seg in rug], exp.pd_.deciles[0])
    two = PartialDependenceTraceDisplay.from_explainer(exp, max_snapshots=2, colorbar=False)
    assert len(two.lines_) == 2 and two.colorbar_ is None


def test_pd_trace_categorical_levels_and_current_state():
    effect = {"a": 1.0, "b": 2.0, "c": 3.0}

    def model(records):
        return np.array([effect[r["color"]] for r in records])

    rows = [{"color": c, "x": 0.0} for c in ["a", "b"] * 50 + ["c", "a"] * 30]
    exp = IncrementalPDP(model, "color", history_every=100)
    exp.explain_many(rows)
    disp = PartialDependenceTraceDisplay.from_explainer(exp)
    assert len(disp.lines_) == 2  # the snapshot at 100 and the current PD at 160
    assert [t.get_text() for t in disp.ax_.get_xticklabels()] == ["a", "b", "c"]
    np.testing.assert_allclose(disp.lines_[0].get_xdata(), [0, 1])
    np.testing.assert_allclose(disp.lines_[1].get_xdata(), [0, 1, 2])
    np.testing.assert_allclose(disp.lines_[1].get_ydata(), [1.0, 2.0, 3.0])


def test_ipdp_result_draws_with_the_pd_display():
    from ixplain import PartialDependenceDisplay

    exp = IncrementalPDP(lambda X: X[:, 0] ** 2, "x0", kind="both", ice_history=5)
    exp.explain_many(np.random.default_rng(3).uniform(0, 2, size=(200, 2)))
    res = exp.pd_
    disp = PartialDependenceDisplay.from_result(res)
    np.testing.assert_allclose(disp.lines_[0, 0, -1].get_ydata(), res.average[0])
    assert len(disp.ice_lines_[0, 0]) == 5


def test_pd_trace_bad_snapshot():
    with pytest.raises(ValueError, match="2 grid values but 3 PD values"):
        PartialDependenceTraceDisplay([(1, np.zeros(2), np.zeros(3))], "x")


def test_trace_colors_are_one_per_shown_feature():
    from matplotlib.colors import to_hex

    from ixplain import ImportanceTraceDisplay

    disp = ImportanceTraceDisplay([1, 2, 3], np.arange(9.0).reshape(3, 3), None, ["a", "b", "c"])
    disp.plot(features=["c", "a"], colors=["#112233", "#445566"])
    assert [to_hex(line.get_color()) for line in disp.lines_] == ["#112233", "#445566"]
    assert [line.get_label() for line in disp.lines_] == ["c", "a"]
    with pytest.raises(ValueError, match="'colors' parameter .*one colour per shown feature"):
        disp.plot(features=["c", "a"], colors=["red"])
    plt.close("all")
