"""Classification scorers on a regressor's continuous output raise scikit-learn's ValueError.

scikit-learn's ``permutation_importance(LinearRegression(), X, y, scoring="accuracy")`` raises
"Classification metrics can't handle a mix of ... targets"; the batched accuracy path used to
score the continuous predictions as a 0-1 loss and return numbers.
"""

import numpy as np
import pytest
from sklearn.inspection import permutation_importance as sk_permutation_importance
from sklearn.linear_model import LinearRegression, LogisticRegression

from ixplain import permutation_importance

_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(200, 3))
_Y_INT = np.round(_X @ [1.0, 2.0, 3.0])
_Y_CONT = _X @ [1.0, 2.0, 3.0]


def _sklearn_message(model, y, scoring):
    with pytest.raises(ValueError) as info:
        sk_permutation_importance(model, _X, y, scoring=scoring, n_repeats=2, random_state=0)
    return str(info.value)


@pytest.mark.parametrize("scoring", ["accuracy", "balanced_accuracy", "f1", "precision_macro"])
@pytest.mark.parametrize("y", [_Y_INT, _Y_CONT], ids=["integer_y", "continuous_y"])
def test_classification_scorer_on_regressor_raises_sklearns_error(scoring, y):
    model = LinearRegression().fit(_X, y)
    expected = _sklearn_message(model, y, scoring)
    with pytest.raises(ValueError) as info:
        permutation_importance(model, _X, y, scoring=scoring, n_repeats=2, random_state=0)
    assert expected in str(info.value)


def test_accuracy_on_integer_valued_regressor_output_matches_sklearn():
    # a regressor that predicts integer labels is a valid accuracy input in scikit-learn too
    y = (_X[:, 0] > 0).astype(int)

    class Rounding(LinearRegression):
        def predict(self, X):
            return (super().predict(X) > 0.5).astype(int)

    model = Rounding().fit(_X, y)
    ours = permutation_importance(model, _X, y, scoring="accuracy", n_repeats=3, random_state=0)
    theirs = sk_permutation_importance(model, _X, y, scoring="accuracy", n_repeats=3,
                                       random_state=0)
    assert np.all(np.isfinite(ours.importances_mean))
    assert ours.importances_mean[0] > 0.2 and theirs.importances_mean[0] > 0.2
    np.testing.assert_allclose(ours.importances_mean[1:], 0.0, atol=0.05)


def test_accuracy_for_a_classifier_still_scores():
    y = (_X[:, 0] + 0.1 * _X[:, 1] > 0).astype(int)
    model = LogisticRegression().fit(_X, y)
    r = permutation_importance(model, _X, y, scoring="accuracy", n_repeats=3, random_state=0)
    assert r.importances_mean[0] > 0.2
