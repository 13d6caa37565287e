"""Interaction Displays: heatmap cells, significance marks, top pairs over time with bands."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from ixplain import (  # noqa: E402
    IncrementalShapleyInteractions,
    InteractionHeatmapDisplay,
    InteractionTraceDisplay,
    ShapleyInteractions,
)


def product_plus(Z):
    return Z[:, 0] * Z[:, 1] + Z[:, 2]


@pytest.fixture
def result():
    return ShapleyInteractions.from_vector(
        np.array([0.1, -0.2, 1.0, 0.9, 0.01, -0.5]), np.array([0.2, 0.05, 0.1, 0.1, 0.1, 0.1]),
        ["a", "b", "c"], "k-SII",
    )


def test_heatmap_has_mains_on_the_diagonal_and_marks(result):
    import matplotlib.pyplot as plt

    disp = InteractionHeatmapDisplay.from_result(result)
    shown = disp.image_.get_array()
    np.testing.assert_allclose(np.diag(shown), [0.1, -0.2, 1.0])
    assert shown[0, 1] == shown[1, 0] == 0.9 and shown[1, 2] == -0.5
    assert disp.texts_[0, 1].get_text() == "0.9*"  # 0.9 > 2 * 0.1
    assert disp.texts_[0, 0].get_text() == "0.1"  # 0.1 < 2 * 0.2: no mark
    assert disp.texts_[0, 2].get_text() == "0.01"
    assert [t.get_text() for t in disp.ax_.get_yticklabels()] == ["a", "b", "c"]
    lo, hi = disp.image_.get_clim()
    assert lo == -hi == -1.0  # symmetric colours
    _, ax = plt.subplots()
    assert InteractionHeatmapDisplay.from_result(result, ax=ax, annotate=False).ax_ is ax
    plt.close("all")


def test_heatmap_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"needs \(2, 2\) matrices"):
        InteractionHeatmapDisplay(np.zeros((3, 3)), None, ["a", "b"])


def test_trace_from_explainer_shows_the_strongest_pairs():
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    X = rng.choice([-1.0, 1.0], size=(600, 3))
    e = IncrementalShapleyInteractions(product_plus, loss="squared_error", alpha=0.05,
                                       history_every=50, random_state=0)
    e.explain_many(X, product_plus(X))
    disp = InteractionTraceDisplay.from_explainer(e, top=1, drift_points=[300])
    assert [line.get_label() for line in disp.lines_] == ["x0 x x1"]
    assert len(disp.bands_) == 1 and len(disp.drift_lines_) == 1
    np.testing.assert_allclose(disp.lines_[0].get_xdata(), np.arange(50, 601, 50))
    assert disp.ax_.get_ylabel() == "interaction"
    disp = InteractionTraceDisplay.from_result(e.to_time_series(), pairs=["x1 x x2"])
    assert [line.get_label() for line in disp.lines_] == ["x1 x x2"]
    with pytest.raises(ValueError, match="'pairs' parameter"):
        InteractionTraceDisplay.from_result(e.to_time_series(), pairs=["x0 x x9"])
    heat = InteractionHeatmapDisplay.from_explainer(e)
    assert heat.image_.get_array().shape == (3, 3)
    plt.close("all")
