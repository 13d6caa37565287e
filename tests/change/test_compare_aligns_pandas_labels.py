"""compare() with pandas X and y whose indexes hold the same labels in another order: y is
aligned to X by index (the result equals the aligned call); different labels are refused, naming
both arguments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge

from ixplain import compare

rng = np.random.default_rng(0)
df = pd.DataFrame(rng.normal(size=(150, 3)), columns=["a", "b", "c"])
y = pd.Series(df["a"] * 2 + df["b"])
m1, m2 = Ridge().fit(df, y), Ridge().fit(df, df["a"] * 2 + df["c"])
perm = rng.permutation(150)


def _deltas(res):
    return res.to_frame()[["a", "b", "delta"]].to_numpy()


def test_shuffled_rows_are_paired_with_their_labels_by_index():
    shuffled = df.iloc[perm]
    ref = compare(m1, shuffled, y.iloc[perm].to_numpy(), model_b=m2, random_state=0)
    got = compare(m1, shuffled, y, model_b=m2, random_state=0)
    np.testing.assert_allclose(_deltas(got), _deltas(ref))


def test_x_b_and_y_b_are_aligned_too():
    half, yh = df.iloc[:80], y.iloc[:80]
    ref = compare(m1, df, y, X_b=half.iloc[perm[perm < 80]], y_b=yh.iloc[perm[perm < 80]],
                  random_state=0)
    got = compare(m1, df, y, X_b=half.iloc[perm[perm < 80]], y_b=yh, random_state=0)
    np.testing.assert_allclose(_deltas(got), _deltas(ref))


def test_indexes_with_different_labels_are_refused():
    shifted = y.set_axis(np.arange(150) + 1000)
    with pytest.raises(ValueError, match=r"X_a and y_a are pandas objects whose indexes differ "
                       r".*y_a\.to_numpy\(\)"):
        compare(m1, df, shifted, model_b=m2, random_state=0)
    # by position on request
    compare(m1, df, shifted.to_numpy(), model_b=m2, random_state=0)
