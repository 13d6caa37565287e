"""A Display given the wrong object (a result of another kind, an explainer before any row, an
``ax`` that is not an Axes) names the argument and the fix."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.linear_model import LinearRegression

from ixplain import (
    FeatureImportanceDisplay,
    ImportanceTraceDisplay,
    IncrementalPFI,
    PartialDependenceTraceDisplay,
    partial_dependence,
    permutation_importance,
)

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
YC = X[:, 0] + rng.normal(size=200)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, X @ np.array([1.0, 2.0, 0.0])


def f_lin(A):
    return np.asarray(A, dtype=float) @ np.array([1.0, 2.0, 0.0])


def test_display_ax_that_is_not_axes_names_the_argument(data):
    """plot(ax='x') used to raise "AttributeError: 'str' object has no attribute 'figure'"."""
    pytest.importorskip("matplotlib")
    from ixplain import FeatureImportanceDisplay, PartialDependenceDisplay

    X, y = data
    r = permutation_importance(f_lin, X, y, loss="squared_error", random_state=0)
    with pytest.raises(TypeError, match=r"The 'ax' parameter must be a matplotlib Axes.*'x' \(str\)"):
        FeatureImportanceDisplay.from_result(r).plot(ax="x")
    with pytest.raises(TypeError, match="The 'ax' parameter must be a matplotlib Axes"):
        PartialDependenceDisplay.from_estimator(f_lin, X, [0, 1], ax=["x", "y"])


def test_pd_trace_display_before_any_row_says_so():
    """It used to say "must be an IncrementalPDP. Got IncrementalPDP instead"."""
    pytest.importorskip("matplotlib")
    from ixplain import IncrementalPDP, PartialDependenceTraceDisplay

    with pytest.raises(AttributeError, match="has not explained any observation yet"):
        PartialDependenceTraceDisplay.from_explainer(IncrementalPDP(f_lin, 0))
    with pytest.raises(TypeError, match="must be an IncrementalPDP. Got LinearRegression"):
        PartialDependenceTraceDisplay.from_explainer(LinearRegression())


@pytest.fixture(scope="module")
def results():
    pytest.importorskip("matplotlib")
    m = LinearRegression().fit(X, YC)
    ip = IncrementalPFI(m, "squared_error", random_state=0)
    ip.explain_many(X, YC)
    return ip, partial_dependence(m, X, 0), permutation_importance(m, X, YC, random_state=0)


@pytest.mark.parametrize("display, pick, fix", [
    (FeatureImportanceDisplay.from_result, 0, "FeatureImportanceDisplay.from_explainer"),
    (FeatureImportanceDisplay.from_result, 1, "PartialDependenceDisplay.from_result"),
    (FeatureImportanceDisplay.from_explainer, 2, "FeatureImportanceDisplay.from_result"),
    (ImportanceTraceDisplay.from_result, 0, "ImportanceTraceDisplay.from_explainer"),
    (ImportanceTraceDisplay.from_explainer, 2, "ImportanceTraceDisplay.from_result"),
    (PartialDependenceTraceDisplay.from_explainer, 1, "PartialDependenceDisplay.from_result"),
])
def test_display_misuse_names_the_argument_and_the_fix(results, display, pick, fix):
    with pytest.raises(TypeError, match=rf"The first argument of .* must be .* Got .*{fix}"):
        display(results[pick])
    with pytest.raises(TypeError, match="Got NoneType instead"):
        display(None)
