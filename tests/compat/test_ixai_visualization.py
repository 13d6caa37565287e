"""ixai's FeatureImportancePlotter on ixplain.compat.ixai draws what it recorded."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from ixplain.compat.ixai.visualization import FeatureImportancePlotter  # noqa: E402


def recorded():
    plotter = FeatureImportancePlotter(feature_names=["a", "b", "c"])
    for t in range(6):
        plotter.update({"a": 0.1 * t, "b": -0.05 * t, "c": 0.0}, facet_name="iPFI")
        plotter.update({"a": 0.2 * t, "b": 0.0, "c": 0.01}, facet_name="iSAGE")
        plotter.update_performance(0.5 + 0.05 * t, facet_name="accuracy")
    return plotter


def test_each_facet_and_the_performance_are_drawn_with_their_values():
    plotter = recorded()
    plotter.plot(performance_kw={"y_min": 0, "y_max": 1}, title="stream")
    ipfi, isage, perf = plotter.displays_
    np.testing.assert_allclose(ipfi.lines_[0].get_ydata(), 0.1 * np.arange(6))
    np.testing.assert_allclose(isage.lines_[1].get_ydata(), np.zeros(6))
    np.testing.assert_allclose(perf.lines_[0].get_ydata(), 0.5 + 0.05 * np.arange(6))
    assert perf.ax_.get_ylim() == (0.0, 1.0) and perf.ax_.get_title() == "stream"
    assert ipfi.lines_[0].get_color() == isage.lines_[0].get_color()  # one colour per feature


def test_names_to_highlight_chooses_the_lines():
    plotter = recorded()
    plotter.plot(names_to_highlight=["b"], legend_style={"fontsize": "small"})
    assert [len(d.lines_) for d in plotter.displays_] == [1, 1, 1]
    np.testing.assert_allclose(plotter.displays_[0].lines_[0].get_ydata(), -0.05 * np.arange(6))


def test_a_keyword_ixais_plotter_lacks_is_refused():
    with pytest.raises(TypeError, match="unexpected keyword 'colour'"):
        recorded().plot(colour="red")


def test_update_takes_a_dict():
    with pytest.raises(TypeError, match="'importance_values' parameter"):
        FeatureImportancePlotter().update([0.1, 0.2])
