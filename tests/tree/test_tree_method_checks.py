"""The tree method (path-based PD) refuses what it cannot read correctly, with one error type:
columns in another order than the model's names, XGBoost categorical splits; LightGBM's
sanitised feature names do not push it off the tree method."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeRegressor

from ixplain import h_statistic, partial_dependence, tree_partial_dependence


def test_tree_pd_with_reordered_columns_is_not_silently_wrong():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    tree = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, X["a"])
    reordered = X[["c", "b", "a"]]
    # method="auto" falls back to brute force, where scikit-learn itself refuses
    with pytest.raises((ValueError, RuntimeError), match=r"feature names"):
        partial_dependence(tree, reordered, "a", grid_resolution=3)
    with pytest.raises(ValueError, match=r"feature names"):
        tree_partial_dependence(tree, reordered, ["a"], "thresholds")
    # numpy input (no names) still works
    tree_partial_dependence(tree, X.to_numpy(), [0], "thresholds")


def test_tree_pd_lightgbm_with_sanitised_names_still_uses_the_tree_method():
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["my a", "b"])
    model = lgb.LGBMRegressor(n_estimators=5, verbose=-1).fit(X, 2 * X["my a"])
    result = partial_dependence(model, X, "my a", grid_resolution=4)
    assert result.method == "tree"
    brute = partial_dependence(model, X, "my a", grid_resolution=4, method="brute")
    np.testing.assert_allclose(result.average, brute.average, rtol=1e-6)


def test_tree_method_refusals_share_the_type_and_end_in_one_period():
    """XGBoost categorical splits: partial_dependence said '... not supported..' (a doubled
    period), h_statistic raised TypeError for the same cause; both are ValueError now."""
    xgb = pytest.importorskip("xgboost")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"a": rng.normal(size=60),
                       "c": pd.Categorical(rng.choice(["x", "y", "z"], 60)),
                       "b": rng.normal(size=60)})
    y = df["a"] + (df["c"] == "y") * 2.0
    model = xgb.XGBRegressor(n_estimators=3, enable_categorical=True, n_jobs=1).fit(df, y)
    with pytest.raises(ValueError) as pd_info:
        partial_dependence(model, df, "c", method="tree")
    assert str(pd_info.value).endswith("XGBoost categorical splits are not supported.")
    with pytest.raises(ValueError, match="XGBoost categorical splits are not supported"):
        h_statistic(model, df, method="tree")
