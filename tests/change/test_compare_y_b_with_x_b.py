"""y_b is required whenever X_b is given (unless label_free), whether X_b is X_a itself or a
copy; with X_b = X_a the design stays paired and side b's loss uses y_b (never silently y_a)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge

from ixplain import compare

rng = np.random.default_rng(0)
df = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
y = (2 * df["a"] + df["b"]).to_numpy()
m1 = Ridge().fit(df, y)


@pytest.mark.parametrize("x_b", [lambda d: d, lambda d: d.copy()], ids=["same", "copy"])
def test_x_b_without_y_b_is_refused_alike(x_b):
    with pytest.raises(ValueError, match="y_b is None; give the labels of X_b"):
        compare(m1, df, y, X_b=x_b(df))


def test_x_b_is_x_a_stays_paired_and_uses_y_b():
    y_b = (2 * df["a"] + df["c"]).to_numpy()
    res = compare(m1, df, y, X_b=df, y_b=y_b, random_state=0)
    assert res.settings["design"] == "paired"
    same = compare(m1, df, y, X_b=df, y_b=y, random_state=0)
    np.testing.assert_allclose(same.importance["pfi"].delta, 0.0, atol=1e-12)
    assert not np.allclose(res.importance["pfi"].delta, 0.0)
