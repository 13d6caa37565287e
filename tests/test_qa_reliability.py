"""Issue 15: inputs that used to give silently wrong results or raw errors."""

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.linear_model import LinearRegression, LogisticRegression

from ixplain import (
    FeatureImportanceDisplay,
    ImportanceTraceDisplay,
    IncrementalPFI,
    PartialDependenceTraceDisplay,
    partial_dependence,
    permutation_importance,
    sage,
)

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
Y01 = (X[:, 0] > 0).astype(int)
YC = X[:, 0] + rng.normal(size=200)
CLF = LogisticRegression().fit(X, Y01)


@pytest.mark.parametrize("call", [
    lambda: permutation_importance(CLF, X, YC, loss="squared_error", random_state=0),
    lambda: sage(CLF, X, YC, loss="squared_error", random_state=0),
    lambda: IncrementalPFI(CLF, "squared_error").explain_many(X, YC),
])
def test_a_classifier_against_a_continuous_target_is_refused(call):
    with pytest.raises(ValueError, match=r"labels y look continuous \(e.g. .*classes \[0, 1\]"):
        call()


def test_float_class_labels_are_still_labels():
    """0.0/1.0 labels are the classes 0/1: no error, the same result as int labels."""
    a = permutation_importance(CLF, X, Y01.astype(float), loss="log_loss", random_state=0)
    b = permutation_importance(CLF, X, Y01, loss="log_loss", random_state=0)
    np.testing.assert_array_equal(a.importances, b.importances)


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


def test_pd_refuses_grids_that_would_not_end():
    """An identifier column (n levels on n rows: n^2 model rows) and a datetime column (every
    timestamp a level) are refused before any model call, naming the feature and the fix; a
    categorical column within the limit keeps its levels."""
    import pandas as pd

    from ixplain.grids import MAX_LEVELS

    n = MAX_LEVELS + 1
    df = pd.DataFrame({"id": [f"u{i}" for i in range(n)],
                       "t": pd.date_range("2020-01-01", periods=n, freq="min"),
                       "c": [f"c{i % 7}" for i in range(n)], "x": np.arange(n, dtype=float)})
    calls = []

    def f(d):
        calls.append(len(d))
        return d["x"].to_numpy()

    with pytest.raises(ValueError, match=r"feature 'id' has 1,001 distinct levels .*custom_values"):
        partial_dependence(f, df, "id")
    with pytest.raises(ValueError, match=r"feature 't' holds dates or durations"):
        partial_dependence(f, df, "t")
    assert calls == []
    assert len(partial_dependence(f, df, "c").grid_values[0]) == 7
    few = partial_dependence(f, df, "id", custom_values={"id": ["u1", "u2"]})
    assert list(few.grid_values[0]) == ["u1", "u2"]
