"""compare() with a classifier on one side and a regressor on the other: refused (naming both)
unless an explicit loss is given, which then applies to both sides, so swapping the sides flips
the sign of every delta."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression, Ridge

from ixplain import compare

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
df = pd.DataFrame(X, columns=["a", "b", "c"])
yc = (X @ np.array([2.0, 1.0, 0.0]) > 0).astype(int)
clf = LogisticRegression().fit(df, yc)
reg = Ridge().fit(df, yc)


@pytest.mark.parametrize("first, second", [(clf, reg), (reg, clf)])
def test_classifier_and_regressor_are_refused_naming_both(first, second):
    with pytest.raises(ValueError, match=r"model_a \((LogisticRegression|Ridge)\.predict.*is a "
                       r"(classifier|regressor) but model_b \((Ridge|LogisticRegression).*is a "
                       r"(regressor|classifier).*loss="):
        compare(first, df, yc, model_b=second, random_state=0)


def test_label_free_classifier_and_regressor_are_refused():
    with pytest.raises(ValueError, match="is a classifier but model_b"):
        compare(clf, df, model_b=reg, label_free=True, random_state=0)


def test_explicit_loss_applies_to_both_and_swapping_flips_the_sign():
    ab = compare(clf, df, yc, model_b=reg, loss="squared_error", random_state=0)
    ba = compare(reg, df, yc, model_b=clf, loss="squared_error", random_state=0)
    assert ab.settings["loss"] == ba.settings["loss"] == "squared_error"
    np.testing.assert_allclose(ab.importance["pfi"].delta, -ba.importance["pfi"].delta)
