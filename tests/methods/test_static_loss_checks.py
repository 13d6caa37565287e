"""Regressions from the #15 new-user campaign (qa15): each input once gave a silently wrong
result, a hang or a misleading error; each test asserts the right behaviour."""

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


def test_shapley_interactions_exact_on_20_features_is_refused_up_front():
    """method='exact' on 20 features ran for hours (2^20 coalitions per row): now an error
    naming the model rows it would need; 'auto' still runs."""
    from ixplain import shapley_interactions
    from ixplain.methods.interactions import MAX_EXACT_MODEL_ROWS

    X = np.random.default_rng(0).normal(size=(50, 20))
    with pytest.raises(ValueError, match=r"16,777,201 model rows per observation") as info:
        shapley_interactions(lambda A: np.asarray(A).sum(1), X, X.sum(1),
                             loss="squared_error", method="exact")
    assert f"{MAX_EXACT_MODEL_ROWS:,}" in str(info.value)


def test_display_ax_that_is_not_axes_names_the_argument(data):
    """plot(ax='x') used to raise "AttributeError: 'str' object has no attribute 'figure'"."""
    pytest.importorskip("matplotlib")
    from ixplain import FeatureImportanceDisplay, PartialDependenceDisplay

    X, y = data
    r = permutation_importance(f_lin, X, y, loss="squared_error", random_state=0)
    with pytest.raises(TypeError, match=r"The 'ax' parameter must be a matplotlib Axes.*'x' \(str\)"):
        FeatureImportanceDisplay.from_result(r).plot(ax="x")
    with pytest.raises(TypeError, match="The 'ax' parameter must be a matplotlib Axes"):
        PartialDependenceDisplay.from_estimator(f_lin, X, [0, 1], ax=["x", "y"])


def test_pd_trace_display_before_any_row_says_so():
    """It used to say "must be an IncrementalPDP. Got IncrementalPDP instead"."""
    pytest.importorskip("matplotlib")
    from ixplain import IncrementalPDP, PartialDependenceTraceDisplay

    with pytest.raises(AttributeError, match="has not explained any observation yet"):
        PartialDependenceTraceDisplay.from_explainer(IncrementalPDP(f_lin, 0))
    with pytest.raises(TypeError, match="must be an IncrementalPDP. Got LinearRegression"):
        PartialDependenceTraceDisplay.from_explainer(LinearRegression())


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
