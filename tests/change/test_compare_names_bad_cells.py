"""compare() with missing or infinite values in a feature that the model cannot take: the error
names the side, the column, the count and the first row (not only the model's own text)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge

from ixplain import compare

rng = np.random.default_rng(0)
df = pd.DataFrame(rng.normal(size=(100, 3)), columns=["a", "b", "c"])
y = df["a"].to_numpy()
m1, m2 = Ridge().fit(df, y), Ridge().fit(df, df["b"])


@pytest.mark.parametrize("value, shown", [(np.nan, "nan"), (np.inf, "inf")])
def test_nonfinite_feature_in_x_a_is_named(value, shown):
    bad = df.copy()
    bad.loc[60, "b"] = value
    with pytest.raises(ValueError, match=rf"X_a column 'b' has 1 missing or infinite value\(s\), "
                       rf"the first \({shown}\) in row 60, and the model failed"):
        compare(m1, bad, y, model_b=m2, random_state=0)


def test_nonfinite_feature_in_x_b_is_named():
    bad = df.copy()
    bad.loc[[5, 7], "c"] = np.nan
    with pytest.raises(ValueError, match=r"X_b column 'c' has 2 missing or infinite value\(s\), "
                       r"the first \(nan\) in row 5"):
        compare(m1, df, y, X_b=bad, y_b=y, random_state=0)


def test_a_model_that_takes_missing_values_still_runs():
    from sklearn.ensemble import HistGradientBoostingRegressor

    bad = df.copy()
    bad.loc[60, "b"] = np.nan
    hgb = HistGradientBoostingRegressor(max_iter=20).fit(df, y)
    hgb2 = HistGradientBoostingRegressor(max_iter=20).fit(df, df["b"])
    res = compare(hgb, bad, y, model_b=hgb2, random_state=0)
    assert np.isfinite(res.importance["pfi"].delta).all()
    assert res.importance["pfi"].features == ["a", "b", "c"]
