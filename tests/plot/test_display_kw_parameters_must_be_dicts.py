"""A Display's ``*_kw`` parameter that is not a dict raises TypeError naming the parameter.

``PartialDependenceDisplay(..., line_kw=[1])`` used to fail deep inside with "cannot convert
dictionary update sequence element #0 to a sequence".
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ixplain import (
    FeatureImportanceDisplay,
    PartialDependenceDisplay,
    PartialDependenceTraceDisplay,
    accumulated_local_effects,
    permutation_importance,
)
from ixplain.plot.ale import AccumulatedLocalEffectsDisplay

rng = np.random.default_rng(0)
X = rng.normal(size=(80, 2))


def f(A):
    return np.asarray(A, dtype=float) @ np.array([1.0, -2.0])


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.mark.parametrize("param", ["line_kw", "ice_lines_kw", "pd_line_kw", "contour_kw",
                                   "bar_kw", "heatmap_kw"])
def test_partial_dependence_display_names_a_kw_that_is_not_a_dict(param):
    with pytest.raises(TypeError, match=rf"'{param}' parameter of PartialDependenceDisplay.*"
                                        r"Got \[1\]"):
        PartialDependenceDisplay.from_estimator(f, X, [0], **{param: [1]})


def test_partial_dependence_display_accepts_dict_kw():
    disp = PartialDependenceDisplay.from_estimator(f, X, [0], line_kw={"color": "red"})
    assert disp.lines_ is not None


@pytest.mark.parametrize("param", ["line_kw", "band_kw", "contour_kw"])
def test_ale_display_names_a_kw_that_is_not_a_dict(param):
    disp = AccumulatedLocalEffectsDisplay([accumulated_local_effects(f, X, [0])])
    with pytest.raises(TypeError, match=rf"'{param}' parameter of AccumulatedLocalEffectsDisplay"):
        disp.plot(**{param: "red"})


def test_importance_display_names_bar_kw():
    result = permutation_importance(f, X, f(X), loss="squared_error", random_state=0)
    with pytest.raises(TypeError, match="'bar_kw' parameter of FeatureImportanceDisplay.plot"):
        FeatureImportanceDisplay.from_result(result, bar_kw=[("color", "r"), 1])


def test_pd_trace_display_names_line_kw():
    grid = np.linspace(0.0, 1.0, 5)
    disp = PartialDependenceTraceDisplay([(10, grid, grid), (20, grid, 2 * grid)], "x0")
    with pytest.raises(TypeError, match="'line_kw' parameter of PartialDependenceTraceDisplay"):
        disp.plot(line_kw=3)
    assert len(disp.plot(line_kw={"lw": 2}).lines_) == 2
