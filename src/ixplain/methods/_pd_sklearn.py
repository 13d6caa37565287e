"""scikit-learn's refusals for partial dependence, raised before any model call.

:func:`ixplain.partial_dependence` is a drop-in for :func:`sklearn.inspection.partial_dependence`,
so where scikit-learn refuses an input ixplain refuses it too, with the same exception class
and a message that is ixplain's (naming the parameter and the value) and carries scikit-learn's
sentence, so code that catches or matches scikit-learn's error keeps working:

* an unfitted estimator or pipeline: :class:`sklearn.exceptions.NotFittedError`;
* an estimator that is neither a regressor nor a classifier (a clusterer such as ``KMeans``,
  a transformer, an outlier detector): ``ValueError``;
* a multiclass-multioutput classifier: ``ValueError``;
* ``response_method`` other than ``"auto"``/``"predict"`` for a regressor: ``ValueError``;
* ``sample_weight`` of the wrong length: ``ValueError`` with scikit-learn's shape sentence.

Where ixplain deliberately differs (``method="auto"`` never switches to recursion, missing
values as a level, integer columns accepted, ...) the user guide's migration page
(docs/user_guide/migrating.rst) lists it with the reason.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np

from .._validation import check_sample_weight, param_error
from ..models.adapters import is_sklearn_estimator, refuse_unfitted

__all__ = [
    "check_weights", "ignored_custom_key", "plain_if_equal", "refuse_like_sklearn",
    "refuse_unfitted",  # (from ixplain.models.adapters, where every model goes through it)
]


def refuse_like_sklearn(estimator: Any, response_method: str, owner: str) -> None:
    """Refuse, before any model call, the estimators scikit-learn's partial dependence refuses.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        For an unfitted scikit-learn estimator or pipeline.
    ValueError
        For a scikit-learn estimator that is neither a regressor nor a classifier, a
        multiclass-multioutput classifier, or a regressor with a classifier's
        ``response_method``.
    """
    if not is_sklearn_estimator(estimator):
        return
    from sklearn.base import is_classifier, is_regressor

    refuse_unfitted(estimator, owner)
    name = type(estimator).__name__
    if not (is_classifier(estimator) or is_regressor(estimator)):
        raise param_error(
            owner, "estimator",
            f"a fitted regressor or classifier; {name} is neither (a clusterer, transformer or "
            "detector: its predict is not a response whose dependence on the features is "
            "defined) ('estimator' must be a fitted regressor or classifier.)", estimator,
        )
    classes = getattr(estimator, "classes_", None)
    if is_classifier(estimator) and classes is not None and len(classes) and isinstance(
        classes[0], np.ndarray
    ):
        raise param_error(
            owner, "estimator",
            f"a single-output classifier or a regressor; {name} predicts several class "
            "outputs at once (Multiclass-multioutput estimators are not supported)", estimator,
        )
    if is_regressor(estimator) and response_method not in ("auto", "predict"):
        raise param_error(
            owner, "response_method",
            f"'auto' or 'predict' for the regressor {name} (The response_method parameter is "
            "ignored for regressors and must be 'auto'.)", response_method,
        )


def check_weights(sample_weight: Any, n_rows: int, owner: str) -> np.ndarray | None:
    """:func:`~ixplain._validation.check_sample_weight`, with scikit-learn's sentence on a
    length mismatch."""
    try:
        weights = check_sample_weight(sample_weight, n_rows, owner)
    except ValueError as exc:
        shape = np.shape(sample_weight) if sample_weight is not None else None
        if shape is not None and len(shape) == 1 and shape[0] != n_rows:
            raise ValueError(
                f"{exc} (sample_weight.shape == {shape}, expected ({n_rows},)!)"
            ) from None
        raise
    return weights


def plain_if_equal(weights: np.ndarray | None) -> np.ndarray | None:
    """``None`` for equal positive weights: their weighted mean is the plain mean, computed as
    such (to the last bit, as scikit-learn's brute method gives with equal weights)."""
    if weights is not None and len(weights) and weights[0] != 0 and np.all(weights == weights[0]):
        return None
    return weights


def ignored_custom_key(key: Any, features: Any, owner: str) -> bool:
    """Whether a ``custom_values`` key is ignored, as scikit-learn ignores it.

    scikit-learn matches the keys against ``features`` *as given*: with features given by name
    an int key matches nothing, and its grid is silently
    ignored. ixplain ignores an int key with features given by name too -- with a warning
    naming the key (a name key with features given by index is used: a name is unambiguous).
    """
    given = [features] if isinstance(features, (str, numbers.Integral)) else features
    try:
        given = list(given)
    except TypeError:
        return False
    by_name = bool(given) and all(isinstance(f, str) for f in given)
    int_key = isinstance(key, numbers.Integral) and not isinstance(key, (bool, np.bool_))
    if by_name and int_key:
        warnings.warn(
            f"{owner}: the custom_values key {key!r} is ignored: features are given by name "
            f"({given}), and, as in scikit-learn, custom_values keys must then be names too.",
            UserWarning,
            stacklevel=4,
        )
        return True
    return False
