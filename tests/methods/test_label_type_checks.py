"""Labels of the wrong type for the model: a classifier against a continuous target is refused,
float class labels are labels, and the label-type warning says what each loss does."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.linear_model import LogisticRegression

from ixplain import (
    IncrementalPFI,
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


def test_label_type_warning_does_not_blame_the_wrong_loss():
    """sage with log_loss warned that "a 0-1 loss counts every prediction wrong"."""
    from sklearn.linear_model import LogisticRegression

    X = np.random.default_rng(0).normal(size=(60, 2))
    model = LogisticRegression().fit(X, np.where(X[:, 0] > 0, "yes", "no"))
    with pytest.warns(RuntimeWarning, match="log_loss and brier refuse") as rec, \
            pytest.raises(ValueError, match="The true label [01] is not one of the model's classes"):
        sage(model, X, (X[:, 0] > 0).astype(int), loss="log_loss", random_state=0)
    assert "Give y with the model's class labels" in str(rec[0].message)


def test_river_label_type_warning_is_true_for_brier():
    """The warning said "every importance is 0", but brier gives noise: say what each loss does."""
    pytest.importorskip("river")
    from river import naive_bayes

    from ixplain import IncrementalPFI

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    rows = [dict(zip("ab", map(float, r))) for r in X]
    model = naive_bayes.GaussianNB()
    for x, t in zip(rows, X[:, 0] > 0):
        model.learn_one(x, "yes" if t else "no")
    e = IncrementalPFI(model, "brier", random_state=0)
    # GaussianNB's classes are known from its first predictions (it has no ``classes``
    # attribute): the first labels warn, the next one is refused before its model call
    with pytest.warns(RuntimeWarning, match=r"never match.*noise with brier"):
        with pytest.raises(ValueError, match=r"stream row 2\) is [01] \(int\), which cannot"):
            for x, t in zip(rows, X[:, 0] > 0):
                e.explain_one(x, int(t))
    assert e.n_seen_ == 2
