"""Shared data for the change tests: the relationship-moved scenario and its derived truths.

Inputs are independent standard normals ``x0..x4``; before the change ``y = 2 x0 + x1 + e``,
after it ``y = 2 x0 + x2 + e`` (``e ~ N(0, 0.3^2)``); ``x3``, ``x4`` are noise features.
"""

from __future__ import annotations

import numpy as np

NOISE = 0.3
BEFORE = np.array([2.0, 1.0, 0.0, 0.0, 0.0])
AFTER = np.array([2.0, 0.0, 1.0, 0.0, 0.0])


def draw(n: int, coef: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows of the scenario with true coefficients ``coef``."""
    X = rng.normal(size=(n, 5))
    return X, X @ coef + NOISE * rng.normal(size=n)


def ridge_pair(n_train: int, rng: np.random.Generator):
    """Ridge fitted before and after the change."""
    from sklearn.linear_model import Ridge

    return (Ridge(alpha=1.0).fit(*draw(n_train, BEFORE, rng)),
            Ridge(alpha=1.0).fit(*draw(n_train, AFTER, rng)))


def linear_pfi(fitted: np.ndarray, true: np.ndarray | None) -> np.ndarray:
    """Population PFI of a linear model ``f(x) = c + fitted . x`` with independent
    unit-variance inputs and a marginal (independent-copy) replacement.

    Squared error on ``y = true . x + e``: with ``r = y - f(x)`` and ``x'_j`` an independent
    copy, ``(r + b_j (x_j - x'_j))^2 - r^2`` has expectation
    ``b_j^2 E(x_j - x'_j)^2 + 2 b_j E[r (x_j - x'_j)] = 2 b_j^2 Var(x_j) + 2 b_j Cov(r, x_j)``
    and ``Cov(r, x_j) = (true_j - b_j) Var(x_j)``, so ``PFI_j = 2 Var(x_j) b_j true_j`` -- not
    ``2 b_j^2 Var(x_j)`` unless the model is right (``b_j = true_j``).
    Label-free (``true=None``; loss ``(f(x~) - f(x))^2``): ``PFI_j = 2 b_j^2 Var(x_j)``.
    """
    if true is None:
        return 2.0 * fitted**2
    return 2.0 * fitted * true
