"""Stream explainers: conversion of observations and labels (QA session 9, items 1, 2, 7, 12)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain import IncrementalPFI, IncrementalSAGE


def _linear(X):
    A = np.asarray(X, dtype=float)
    return 3.0 * A[:, 0] + A[:, 1]


def _frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    return df, pd.Series(3.0 * df.a + df.b, name="y")


# ---------------------------------------------------------------- item 7: a one-column y
@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSAGE])
@pytest.mark.parametrize("shape", ["array", "frame"])
def test_a_one_column_y_is_the_same_as_its_1d_column(cls, shape):
    """y of shape (n, 1) (an array or a one-column DataFrame) is the column y[:, 0], as in
    scikit-learn: the state is bit for bit that of the run with the 1-D labels (the
    reference), and the importances are not all 0 (the labels were used)."""
    df, y = _frame()
    y2 = y.to_numpy()[:, None] if shape == "array" else y.to_frame()
    ref = cls(_linear, loss="squared_error", random_state=0).explain_many(df, y.to_numpy())
    got = cls(_linear, loss="squared_error", random_state=0).explain_many(df, y2)
    np.testing.assert_array_equal(got, ref)
    assert ref[0] > 1.0


def test_explain_one_takes_a_one_element_label_array():
    """explain_one(x, np.array([v])) is explain_one(x, v) (the loop's reference)."""
    df, y = _frame(30)
    a = IncrementalPFI(_linear, "squared_error", random_state=0)
    b = IncrementalPFI(_linear, "squared_error", random_state=0)
    for i in range(len(df)):
        a.explain_one(df.iloc[i].to_numpy(), float(y[i]))
        b.explain_one(df.iloc[i].to_numpy(), np.array([y[i]]))
    np.testing.assert_array_equal(b.importances_, a.importances_)
    assert a.importances_[0] > 0.1


def test_a_y_with_the_wrong_number_of_rows_still_raises():
    df, y = _frame(20)
    with pytest.raises(ValueError, match="20 observations but 19 labels"):
        IncrementalPFI(_linear, "squared_error").explain_many(df, y.to_numpy()[:19, None])
