"""ChangeDisplay: paired bars sorted by |delta| with the intervals drawn as given, significant
features marked; curves of both sides with bands."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from sklearn.linear_model import Ridge

from ixplain.change import compare
from ixplain.change._display import ChangeDisplay


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    ya = 2 * X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=400)
    yb = 2 * X[:, 0] + X[:, 2] + 0.3 * rng.normal(size=400)
    a, b = Ridge().fit(X, ya), Ridge().fit(X, yb)
    return compare(a, X, yb, model_b=b, methods=("pfi", "pd"), random_state=0)


def test_bars_are_sorted_by_absolute_change_with_the_intervals(result):
    disp = ChangeDisplay.from_result(result).plot()
    imp = result.importance["pfi"]
    order = np.argsort(-np.abs(imp.delta), kind="stable")
    np.testing.assert_array_equal(disp.order_, order)
    widths_b = [bar.get_width() for bar in disp.bars_b_]
    np.testing.assert_allclose(widths_b, imp.b[order])
    line = disp.delta_.lines[0]
    np.testing.assert_allclose(line.get_xdata(), imp.delta[order])
    segs = disp.delta_.lines[2][0].get_segments()
    np.testing.assert_allclose([s[0][0] for s in segs], imp.lower[order])
    np.testing.assert_allclose([s[1][0] for s in segs], imp.upper[order])
    sig = [imp.features[i] + " *" for i in order if imp.significant[i]]
    assert disp.significant_labels_ == sig and len(sig) >= 1
    plt.close("all")


def test_curve_shows_both_sides_and_the_change_with_bands(result):
    fig, ax = plt.subplots()
    disp = ChangeDisplay.from_result(result).plot_curve("x2", ax=ax)
    c = result.curves["pd"]["x2"]
    assert disp.ax_ is ax
    np.testing.assert_allclose(disp.lines_["delta"].get_ydata(), c.delta)
    np.testing.assert_allclose(disp.lines_["b"].get_ydata() - disp.lines_["a"].get_ydata(),
                               c.delta, atol=1e-9)
    band = disp.bands_["delta"].get_paths()[0].vertices[:, 1]
    assert band.min() == pytest.approx(c.lower.min()) and band.max() == pytest.approx(c.upper.max())
    plt.close("all")


def test_errors_name_what_is_missing(result):
    with pytest.raises(ValueError, match="'method' parameter of ChangeDisplay"):
        ChangeDisplay.from_result(result, method="sage")
    with pytest.raises(ValueError, match="no curve change for feature='nope'"):
        ChangeDisplay.from_result(result).plot_curve("nope")
    with pytest.raises(ValueError, match="no importance change"):
        ChangeDisplay(None).plot()
    with pytest.raises(TypeError, match="'ax' parameter"):
        ChangeDisplay.from_result(result).plot(ax="axes")
