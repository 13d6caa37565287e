"""Data, models and anchor glue shared by several benchmark scripts and by ``guard.py``.

Import :mod:`_common` before this module (it pins BLAS/OpenMP to one thread before numpy loads).
Nothing here installs packages: the scripts that need an anchor ask :func:`_common.ensure_installed`
for it first, and ``guard.py`` expects the anchors of the ``dev`` extra.
"""

from __future__ import annotations

import numpy as np


def ale_model(A: np.ndarray) -> np.ndarray:
    """The numpy function explained by the ALE benchmarks: ``sin(3 x0) + x1^2 + x0 x2 +
    log(1 + |x3|)`` on an array of shape (n, 4); returns shape (n,)."""
    return np.sin(3 * A[:, 0]) + A[:, 1] ** 2 + A[:, 0] * A[:, 2] + np.log1p(np.abs(A[:, 3]))


def ale_data(n: int, seed: int = 0) -> np.ndarray:
    """``n`` rows of 4 standard normal features, ``x1`` correlated with ``x0`` (rho = 0.8)."""
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    return np.c_[x0, 0.8 * x0 + 0.6 * rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)]


def wide_linear(n: int, d: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A wide regression table: ``X`` (n, d) standard normal, ``y = X @ w + noise``."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X @ rng.normal(size=d) + rng.normal(size=n)


def mlp_regressor():
    """The MLP of the partial-dependence benchmarks (100 hidden units, 300 iterations, seed 0);
    its convergence warning is silenced (a fit good enough to time)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor

    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    return MLPRegressor(hidden_layer_sizes=(100,), max_iter=300, random_state=0)


def agrawal_table(n: int, seed: int) -> tuple[list[str], list[dict], np.ndarray, np.ndarray]:
    """``n`` rows of River's Agrawal stream (classification_function=1): the feature names, the
    dict records, the same rows as a float array (n, 9) and the labels (n,)."""
    from river.datasets.synth import Agrawal

    data = list(Agrawal(classification_function=1, seed=seed).take(n))
    names = list(data[0][0])
    records = [x for x, _ in data]
    X = np.array([[x[k] for k in names] for x in records], dtype=float)
    return names, records, X, np.array([t for _, t in data])


def zero_one_ixai(y_true, y_pred) -> float:
    """The 0-1 loss in ixai's convention: its wrappers give ``{"output": label}`` (River) or
    ``{0: label}`` (scikit-learn ``predict``)."""
    label = y_pred["output"] if "output" in y_pred else y_pred[0]
    return float(label != y_true)


def make_ixai_pfi(model_function, names: list[str], alpha: float, size: int, n_samples: int,
                  seed: int):
    """ixai's ``IncrementalPFI`` with a geometric reservoir of ``size`` rows, p = 1 (ixai's own
    default is 1/size, so it is set explicitly), the 0-1 loss and Python's ``random`` seeded
    (ixai draws from it)."""
    import random
    import warnings

    from ixai.explainer import IncrementalPFI
    from ixai.storage import GeometricReservoirStorage

    random.seed(seed)
    # ixai warns that it cannot recognise a wrapped model function; the function is ixai's own
    warnings.filterwarnings("ignore", message="The provided model function cannot")
    storage = GeometricReservoirStorage(size=size, constant_probability=1.0)
    return IncrementalPFI(model_function, zero_one_ixai, names, storage=storage,
                          smoothing_alpha=alpha, n_inner_samples=n_samples)
