"""scikit-learn's ``recursion`` partial dependence (training-cover weighted), with the boosting
baseline scikit-learn omits added back. Split from :mod:`ixplain.methods.pdp` (which
re-exports these names).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tabular import Table
from ._pd_brute import PDRequest, _grid_points

_OWNER = "partial_dependence"


# ---------------------------------------------------------------------------------------- recursion
def _recursion_classes() -> tuple[type, ...]:
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.ensemble._gb import BaseGradientBoosting
    from sklearn.ensemble._hist_gradient_boosting.gradient_boosting import (
        BaseHistGradientBoosting,
    )
    from sklearn.tree import DecisionTreeRegressor

    return (BaseGradientBoosting, BaseHistGradientBoosting, DecisionTreeRegressor, RandomForestRegressor)


def _recursion_unsupported(req: PDRequest) -> str | None:
    """Why ``method='recursion'`` cannot run on this request (None if it can)."""
    est = req.model.model
    try:
        classes = _recursion_classes()
    except ImportError:
        return "scikit-learn is not installed"
    if req.kind != "average":
        return (
            f"it only computes kind='average' (got kind={req.kind!r}); use method='brute' (The "
            "'recursion' method only applies when 'kind' is set to 'average')"
        )
    if req.sample_weight is not None:
        return (
            "it cannot use sample_weight (it averages over the training data); use "
            "method='brute' (The 'recursion' method can only be applied when sample_weight is "
            "None)"
        )
    if not isinstance(est, classes):
        return (
            f"{type(est).__name__} does not support it; supported: GradientBoostingClassifier, "
            "GradientBoostingRegressor, HistGradientBoostingClassifier, "
            "HistGradientBoostingRegressor, DecisionTreeRegressor, RandomForestRegressor. "
            "Use method='brute' (Only the following estimators support the 'recursion' method: "
            "those listed)"
        )
    if req.model.is_classifier and req.model.response_method != "decision_function":
        return (
            "it explains the decision function of a classifier; use "
            "response_method='decision_function' or 'auto' (With the 'recursion' method, the "
            f"response_method must be 'decision_function'. Got {req.model.response_method}.)"
        )
    for name, g in zip(req.features, req.grid_values):
        if np.asarray(g).dtype.kind not in "iufb" or np.isnan(np.asarray(g, dtype=float)).any():
            return f"feature {name!r} has a non-numeric or missing grid value; use method='brute'"
    init = getattr(est, "init", None)
    if hasattr(est, "init_") and not (init is None or init == "zero"):
        return "the gradient boosting model has a non-constant init estimator; use method='brute'"
    return None


def _recursion_method(req: PDRequest) -> tuple[np.ndarray | None, np.ndarray | None]:
    """scikit-learn's recursion (training-cover weighted) PD, with the boosting baseline added.

    scikit-learn's ``_compute_partial_dependence_recursion`` omits the constant initial
    prediction of (Hist)GradientBoosting models; it is added back here so the values are on the
    scale of ``decision_function`` (for regressors: of ``predict`` with the identity link).
    """
    est = req.model.model
    names = list(getattr(est, "feature_names_in_", req.table.names))
    idx = np.asarray([names.index(str(f)) for f in req.features], dtype=np.intp)
    grid = np.column_stack([np.asarray(p, dtype=np.float64) for p in _grid_points(req.grid_values)])
    try:
        avg = est._compute_partial_dependence_recursion(grid, idx)
    except NotImplementedError as exc:
        raise ValueError(f"{_OWNER}: method='recursion' is unavailable: {exc}") from exc
    avg = np.atleast_2d(np.asarray(avg, dtype=np.float64))
    avg = avg + _boosting_baseline(est, req.table).reshape(-1, 1)
    if req.model.target is not None and avg.shape[0] > 1:
        from ..models.base import _class_index

        avg = avg[[_class_index(np.asarray(req.model.classes_), req.model.target)]]
    return avg.reshape(avg.shape[0], *req.grid_shape), None


def _boosting_baseline(est: Any, table: Table) -> np.ndarray:
    """The constant raw prediction a boosting model starts from (0 for trees and forests)."""
    if hasattr(est, "_baseline_prediction"):  # HistGradientBoosting*
        return np.asarray(est._baseline_prediction, dtype=np.float64).ravel()
    if hasattr(est, "_raw_predict_init"):  # GradientBoosting* with a constant init
        X0 = np.zeros((1, est.n_features_in_))
        return np.asarray(est._raw_predict_init(X0), dtype=np.float64).ravel()
    return np.zeros(1)
