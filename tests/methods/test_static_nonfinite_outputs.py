"""The static methods refuse a model output of +-inf (or a loss that overflows) as they refuse
NaN, naming the kind of value, never returning a NaN or zero result; finite outputs are left
alone."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain import (
    ModelEvaluationError,
    h_statistic,
    partial_dependence,
    permutation_importance,
    sage,
    shapley_interactions,
)


def _interaction_data():
    X = np.random.default_rng(0).normal(size=(50, 3))
    X[0, 0] = 2.5  # the one row where the model below is inf
    return X, X @ [1.0, 2.0, 0.0]


def _inf_at_x0(A):
    return np.where(A[:, 0] > 2, np.inf, A @ [1.0, 2.0, 0.0])


@pytest.mark.parametrize("method", ["exact", "permutation"])
def test_shapley_interactions_refuses_an_infinite_output(method):
    """Main values were [nan nan nan], silently (sage and PFI raised on the same input)."""
    X, y = _interaction_data()
    with pytest.raises(ModelEvaluationError,
                       match=r"shapley_interactions: .* returned inf for \d+ of \d+ rows "
                             r"\(first: row \d+ of the batch, value inf"):
        shapley_interactions(_inf_at_x0, X, y, loss="squared_error", random_state=0,
                             method=method, n_permutations=60, convergence_threshold=None)


def test_shapley_interactions_refuses_an_overflowing_loss_as_sage_does():
    """Finite outputs of 1e200: the squared error overflows to inf, the values were NaN. Now
    the error of :func:`ixplain._validation.refuse_nonfinite`, sage's too."""
    X, y = _interaction_data()

    def huge(A):
        return 1e200 * (A @ [1.0, 2.0, 0.0])

    with pytest.raises(ValueError, match="shapley_interactions: .* is not finite"):
        shapley_interactions(huge, X, y, loss="squared_error", random_state=0)
    with pytest.raises(ValueError, match="sage: .* is not finite"):
        sage(huge, X, y, loss="squared_error", random_state=0, n_permutations=20)


def _pd_data():
    X = np.random.default_rng(0).normal(size=(200, 2))
    X[0, 1] = 5.0  # the one row where the model below is inf
    return X


def _inf_at_x1(A):
    return np.where(A[:, 1] > 4, np.inf, A[:, 0] + A[:, 1])


def test_partial_dependence_refuses_an_infinite_output():
    """The average was [[nan ...]] with no error; a NaN output raised."""
    with pytest.raises(ModelEvaluationError,
                       match=r"partial_dependence: .* returned inf for 5 of 1000 rows"):
        partial_dependence(_inf_at_x1, _pd_data(), 0, grid_resolution=5)


@pytest.mark.parametrize("value, shown", [(-np.inf, "-inf"), (np.nan, "NaN")])
def test_the_error_names_the_kind_of_value(value, shown):
    """-inf and NaN are named as what they are (a NaN output keeps its old message)."""
    def model(A):
        return np.where(A[:, 1] > 4, value, A[:, 0])

    with pytest.raises(ModelEvaluationError, match=f"returned {shown} for 5 of 1000 rows"):
        partial_dependence(model, _pd_data(), 0, grid_resolution=5)


def test_h_statistic_refuses_an_infinite_output():
    """H^2 was 0 for every feature on this model."""
    with pytest.raises(ModelEvaluationError, match="h_statistic: .* returned inf"):
        h_statistic(_inf_at_x1, _pd_data())


def test_permutation_importance_refuses_an_infinite_output():
    """PFI said 'not finite' after the loss; the output itself is refused now, naming it."""
    X = _pd_data()
    with pytest.raises(ModelEvaluationError, match="permutation_importance: .* returned inf"):
        permutation_importance(_inf_at_x1, X, X.sum(1), loss="squared_error", random_state=0)


def test_finite_outputs_are_unchanged():
    """The check leaves finite results alone: the PD of x0 + x1 in x0 is x0 + mean(x1)."""
    X = _pd_data()
    r = partial_dependence(lambda A: A[:, 0] + A[:, 1], X, 0, grid_resolution=5)
    grid = np.asarray(r.grid_values[0], float)
    np.testing.assert_allclose(r.average[0], grid + X[:, 1].mean(), atol=1e-12)
