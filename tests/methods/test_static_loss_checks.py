"""Losses and scores of the static methods that are not finite are errors, not NaN importances
(an overflowing loss, an R^2 undefined on one row, a NaN scorer, an H statistic of NaN outputs),
``response_method`` with ``scoring`` is not ignored, and finite results are left alone (issue 15)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from ixplain import h_statistic, permutation_importance, sage
from ixplain._validation import ModelEvaluationError


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, X @ np.array([1.0, 2.0, 0.0])


def f_lin(A):
    return np.asarray(A, dtype=float) @ np.array([1.0, 2.0, 0.0])


def test_pfi_overflowing_loss_is_an_error_not_nan(data):
    """Outputs ~1e200 are finite but their squares overflow: the importance used to be NaN."""
    X, y = data
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"not finite.*overflowed"):
        permutation_importance(f_lin, X * 1e200, y, loss="squared_error", random_state=0)


def test_sage_overflowing_loss_is_refused_before_the_permutation_loop(data):
    X, y = data
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"sage: .*not finite"):
        sage(f_lin, X * 1e200, y, loss="squared_error", random_state=0)


def test_pfi_score_undefined_on_one_row(data):
    """R^2 of one row is NaN (scikit-learn warns); the importance must not be NaN."""
    X, y = data
    model = LinearRegression().fit(X, y)
    with pytest.warns(Warning), pytest.raises(ValueError, match=r"estimator.score.*R\^2 needs"):
        permutation_importance(model, X[:1], y[:1], random_state=0)


def test_pfi_nan_scorer_is_an_error(data):
    X, y = data
    model = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="not finite"):
        permutation_importance(model, X, y, scoring=lambda est, A, t: float("nan"),
                               random_state=0)


def test_pfi_response_method_with_scoring_is_not_ignored(data):
    """response_method='predict_proba' on a regressor used to be dropped without a word."""
    X, y = data
    model = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="response_method='predict_proba' applies with loss"):
        permutation_importance(model, X, y, response_method="predict_proba")
    # with a loss it is used (and this regressor has no predict_proba: a clear error)
    with pytest.raises(ValueError, match="no method 'predict_proba'"):
        permutation_importance(model, X, y, loss="squared_error",
                               response_method="predict_proba")


def test_h_statistic_nan_output_is_an_error(data):
    """A model returning NaN used to give H^2 = 0 with NaN numerators."""
    X, _ = data
    with pytest.raises(ModelEvaluationError, match="h_statistic: .*returned NaN"):
        h_statistic(lambda A: np.full(len(A), np.nan), X, n_max=20)


def test_finite_results_unchanged(data):
    """The checks leave correct results alone: PFI of a linear model, 2 beta^2 Var(x)."""
    X, y = data
    r = permutation_importance(f_lin, X, y, loss="squared_error", n_repeats=30, random_state=0)
    assert r.importances_mean[2] == 0
    np.testing.assert_allclose(r.importances_mean[:2], 2 * np.array([1, 4]) * X[:, :2].var(0),
                               rtol=0.25)
    h = h_statistic(f_lin, pd.DataFrame(X), n_max=None)
    assert np.all(np.isfinite(h.to_frame()["h2"]))
