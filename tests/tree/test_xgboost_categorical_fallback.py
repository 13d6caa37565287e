"""XGBoost categorical splits: method='auto' falls back to brute (the same quantity) and
method='tree' refuses, naming the reason."""

import numpy as np
import pytest

pytest.importorskip("sklearn")
from ixplain import partial_dependence

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
YC = X[:, 0] + rng.normal(size=200)


def test_xgboost_categorical_splits_auto_is_brute_tree_says_why():
    """Issue 15: XGBoost categorical splits are not read by the tree method; 'auto' says which
    method ran (brute, the same quantity), 'tree' refuses naming the reason."""
    xgb = pytest.importorskip("xgboost")
    import pandas as pd

    df = pd.DataFrame({"a": X[:, 0], "c": pd.Categorical(np.where(X[:, 1] > 0, "p", "n"))})
    model = xgb.XGBRegressor(n_estimators=5, enable_categorical=True, tree_method="hist")
    model.fit(df, YC)
    auto = partial_dependence(model, df, "a", grid_resolution=5)
    brute = partial_dependence(model, df, "a", grid_resolution=5, method="brute")
    assert auto.method == "brute"
    np.testing.assert_array_equal(auto.average, brute.average)
    with pytest.raises(ValueError, match="XGBoost categorical splits are not supported"):
        partial_dependence(model, df, "a", method="tree")
