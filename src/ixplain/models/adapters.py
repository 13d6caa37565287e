"""Adapters for scikit-learn-API estimators, River models, LightGBM/XGBoost boosters and callables."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._lazy import is_instance
from .._validation import check_options, param_error
from ._lightgbm import lightgbm_fast_path
from .base import Model, _class_index
from .river_trees import predict_river_tree

__all__ = ["BoosterModel", "CallableModel", "RiverModel", "SklearnModel", "as_model"]

_SKLEARN_RESPONSES = ("auto", "predict", "predict_proba", "decision_function")


def _is_sklearn_classifier(model: Any) -> bool:
    try:
        from sklearn.base import is_classifier

        if is_classifier(model):
            return True
    except Exception:  # sklearn missing or an exotic object
        pass
    return getattr(model, "_estimator_type", None) == "classifier"


class SklearnModel(Model):
    """A scikit-learn-API estimator: scikit-learn models and pipelines, LGBM*/XGB* estimators.

    The estimator receives the data's own type (a DataFrame stays a DataFrame, with its dtypes);
    list-of-dict records become a DataFrame for an estimator fitted on one (it has
    ``feature_names_in_``) and an array otherwise.

    ``response_method="auto"`` follows scikit-learn: ``predict_proba``, then
    ``decision_function`` for classifiers; ``predict`` for regressors.

    LightGBM's ``LGBMClassifier`` and ``LGBMRegressor`` (LightGBM 4.x) given a 2-D numeric numpy
    array skip their wrapper: the predict-stage parameters the wrapper recomputes on every call
    are computed once (again after ``fit`` or ``set_params``), the fitted booster is called with
    them and the wrapper's post-processing is repeated, so ``predict``/``predict_proba`` return
    the same array, bit for bit (10 rows, 100 trees: about 160 us instead of 750 us per call;
    most of the rest is ``Booster.predict`` copying and serialising the parameters). The first
    such call per parameter set, input dtype and memory layout is checked against the public
    method, and any difference switches the shortcut off for this adapter. DataFrames, callable
    objectives, ``RandomState``/``Generator`` seeds, models fitted on named features and
    malformed inputs (wrong width, no rows, non-numeric) use the public method. Details:
    :mod:`ixplain.models._lightgbm`.
    """

    def __init__(
        self,
        model: Any,
        *,
        response_method: str = "auto",
        target: Any = None,
        input_kind: str = "auto",
        owner: str = "ixplain",
    ) -> None:
        super().__init__(model, input_kind=input_kind, target=target)
        check_options(response_method, "response_method", owner, _SKLEARN_RESPONSES)
        self.is_classifier = _is_sklearn_classifier(model)
        if response_method == "auto":
            if self.is_classifier:
                candidates = ["predict_proba", "decision_function"]
            else:
                candidates = ["predict"]
            found = [m for m in candidates if hasattr(model, m)]
            if not found:
                raise ValueError(
                    f"{owner}: the estimator {type(model).__name__} has none of the methods "
                    f"{candidates} (response_method='auto')."
                )
            response_method = found[0]
        elif not hasattr(model, response_method):
            raise ValueError(
                f"{owner}: the estimator {type(model).__name__} has no method "
                f"{response_method!r} (response_method={response_method!r})."
            )
        if not self.is_classifier and response_method != "predict":
            raise ValueError(
                f"{owner}: response_method={response_method!r} needs a classifier; "
                f"{type(model).__name__} is a regressor. Use response_method='predict'."
            )
        self.response_method = response_method
        if self.is_classifier:
            classes = getattr(model, "classes_", None)
            if classes is None:
                raise ValueError(
                    f"{owner}: the classifier {type(model).__name__} has no classes_; is it "
                    "fitted?"
                )
            self.classes_ = np.asarray(classes)
            if target is not None:
                _class_index(self.classes_, target)
        self._method = getattr(model, response_method)
        self._lightgbm = lightgbm_fast_path(model, response_method)
        self._labels_checked = not self.is_classifier

    def observe_labels(self, y: Any) -> None:
        """Warn once if none of the first labels seen is one of the classifier's classes (a
        label type that differs from the classes', say 1 for "1", would make every 0-1 loss 1
        and every importance 0 without an error)."""
        if self._labels_checked:
            return
        self._labels_checked = True
        labels = np.asarray(y, dtype=object).reshape(-1)
        classes = list(self.classes_)  # type: ignore[arg-type]
        if len(labels) and not any(label in classes for label in labels[:100].tolist()):
            warnings.warn(
                f"None of the labels y ({labels[0]!r}, ...) is one of the model's classes "
                f"{classes} (compare their types); a 0-1 loss counts every prediction wrong.",
                RuntimeWarning,
                stacklevel=3,
            )

    def native_kind(self, table):
        if self.input_kind != "auto":
            return self.input_kind
        source = table.schema.source
        if source == "records":
            return "pandas" if hasattr(self.model, "feature_names_in_") else "numpy"
        return source

    def _predict_native(self, X: Any) -> Any:
        if self._lightgbm is not None:
            return self._lightgbm(X)
        return self._method(X)

    def _postprocess(self, out: np.ndarray) -> np.ndarray:
        if self.response_method == "predict":
            return out[:, 0] if (out.ndim == 2 and out.shape[1] == 1) else out
        return super()._postprocess(out)


class BoosterModel(Model):
    """A native ``lightgbm.Booster`` or ``xgboost.Booster`` (not the scikit-learn wrappers).

    Output is the booster's ``predict`` (probabilities for binary/multiclass objectives, values
    for regression); the booster receives a float64 array (an ``xgboost.DMatrix`` for XGBoost).
    """

    response_method = "predict"

    def __init__(self, model: Any, *, target: Any = None, input_kind: str = "numpy") -> None:
        super().__init__(model, input_kind=input_kind, target=target)
        self._xgb = type(model).__module__.startswith("xgboost")

    def _predict_native(self, X: Any) -> Any:
        if self._xgb:
            import xgboost

            return self.model.predict(xgboost.DMatrix(X))
        return self.model.predict(X)


class CallableModel(Model):
    """A plain function ``f(X) -> array of shape (n,) or (n, k)``.

    ``input_kind="auto"`` (default) gives the function the same type as the data you pass to the
    explainer (an array for an array, a DataFrame for a DataFrame, a list of dicts for records);
    set ``input_kind`` to force one.
    """

    response_method = "__call__"

    def _predict_native(self, X: Any) -> Any:
        out = self.model(X)
        if is_instance(out, "pandas", "DataFrame", "Series"):
            out = out.to_numpy()
        return out

    def describe(self) -> str:
        return getattr(self.model, "__name__", type(self.model).__name__)


class RiverModel(Model):
    """A River model: ``predict_proba_one``/``predict_one``, or their ``*_many`` forms.

    Mini-batch models (``predict_proba_many``/``predict_many``) get one pandas DataFrame per
    chunk; other River models are evaluated with one ``*_one`` call per row (River offers no batch
    path for them), on plain ``dict`` records. Exception: River's ``HoeffdingTreeClassifier`` and
    ``HoeffdingTreeRegressor`` are evaluated a whole batch at a time by
    :func:`ixplain.models.river_trees.predict_river_tree`, with the same floats as their ``*_one``
    methods (other trees, e.g. the adaptive ones, keep the per-row path).

    Classifiers answer with probabilities (``response_method="auto"``). River learns its classes
    online, so the class order is ``classes`` when given, else the sorted labels seen so far (in
    ``predict_proba_one`` outputs or told through :meth:`observe_labels`); the positive class of a
    binary problem is the last one (``True``, ``1``, or the larger label).
    """

    def __init__(
        self,
        model: Any,
        *,
        response_method: str = "auto",
        target: Any = None,
        classes: Any = None,
        owner: str = "ixplain",
    ) -> None:
        super().__init__(model, input_kind="records", target=target)
        check_options(response_method, "response_method", owner, ("auto", "predict", "predict_proba"))
        # A River Pipeline has every prediction method; what it can do is its last step's.
        self._final = getattr(model, "_last_step", model)
        self.is_classifier = hasattr(self._final, "predict_proba_one")
        if response_method == "auto":
            response_method = "predict_proba" if self.is_classifier else "predict"
        if response_method == "predict_proba" and not self.is_classifier:
            raise ValueError(
                f"{owner}: response_method='predict_proba' needs a River classifier; "
                f"{type(model).__name__} has no predict_proba_one."
            )
        self.response_method = response_method + "_one"
        self._fixed_classes = classes is not None
        self._classes: list[Any] = list(classes) if classes is not None else []
        if self._fixed_classes:
            self.classes_ = np.asarray(self._classes, dtype=object)

    @property
    def classes_(self):  # type: ignore[override]
        return np.asarray(self._classes, dtype=object) if self._classes else None

    @classes_.setter
    def classes_(self, value):
        self._classes = list(value) if value is not None else []

    def observe_labels(self, y: Any) -> None:
        if not self.is_classifier or self._fixed_classes:
            return
        if isinstance(y, np.ndarray) or is_instance(y, "pandas", "Series"):
            values = y.tolist()  # Python labels: compared with the known ones without numpy
        else:
            values = y if isinstance(y, (list, tuple)) else [y]
        self._add_classes(values)

    def _add_classes(self, labels: Any) -> None:
        new = [c for c in labels if c is not None and c not in self._classes]
        if new:
            merged = self._classes + list(dict.fromkeys(new))
            try:
                merged = sorted(merged)
            except TypeError:
                pass
            self._classes = merged

    def _predict_native(self, records: list[dict]) -> Any:
        m = self.model
        fast = predict_river_tree(m, records, self.response_method)
        if fast is not None and self.response_method == "predict_proba_one":
            keys, proba = fast
            if not self._fixed_classes:
                self._add_classes(keys)
            col = {k: j for j, k in enumerate(keys)}
            out = np.zeros((len(records), len(self._classes)))
            for j, c in enumerate(self._classes):
                if c in col:
                    out[:, j] = proba[:, col[c]]
            return out
        if fast is not None:
            return fast
        if self.response_method == "predict_proba_one":
            if hasattr(self._final, "predict_proba_many"):
                import pandas as pd

                frame = m.predict_proba_many(pd.DataFrame.from_records(records))
                dicts = frame.to_dict(orient="records")
            else:
                dicts = [m.predict_proba_one(r) for r in records]
            if not self._fixed_classes:
                for d in dicts:
                    if any(k not in self._classes for k in d):
                        self._add_classes(list(d))
            classes = self._classes
            out = np.array([[d.get(c, 0.0) for c in classes] for d in dicts], dtype=np.float64)
            return out.reshape(len(records), len(classes))
        values: Any
        if hasattr(self._final, "predict_many"):
            import pandas as pd

            values = m.predict_many(pd.DataFrame.from_records(records)).to_numpy()
        else:
            values = [m.predict_one(r) for r in records]
        if self.is_classifier:
            return np.asarray(values, dtype=object)
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)

    def _select_class(self, out: np.ndarray) -> np.ndarray:
        if self.response_method != "predict_proba_one":
            return out
        if out.ndim == 2 and out.shape[1] <= 2 and self.target is None:
            if out.shape[1] == 0:
                return np.zeros(out.shape[0])
            return out[:, -1]
        return super()._select_class(out)


def _is_river(model: Any) -> bool:
    return type(model).__module__.startswith("river") or (
        hasattr(model, "learn_one") and (hasattr(model, "predict_one"))
    )


def as_model(
    model: Any,
    *,
    response_method: str = "auto",
    target: Any = None,
    input_kind: str = "auto",
    classes: Any = None,
    owner: str = "ixplain",
) -> Model:
    """Wrap any supported model in the batch :class:`~ixplain.models.Model` interface.

    Parameters
    ----------
    model : estimator, River model, Booster, callable or Model
        * scikit-learn-API estimators and pipelines (anything with ``predict``), including
          LightGBM's ``LGBM*`` and XGBoost's ``XGB*`` classes;
        * River models (``learn_one`` and ``predict_one``/``predict_proba_one``);
        * ``lightgbm.Booster`` and ``xgboost.Booster``;
        * a callable ``f(X)`` returning an array of shape (n,) or (n, k);
        * an existing :class:`Model`, returned unchanged.
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
        Which output to explain. ``"auto"``: probabilities (else decision function) for
        classifiers, ``predict`` for regressors -- scikit-learn's rule.
    target : object, optional
        For multiclass output, the class label to keep (output becomes (n,)).
    input_kind : {"auto", "numpy", "pandas", "polars", "records"}, default="auto"
        The input type the model receives; ``"auto"`` is the type of the data being explained
        (records become a DataFrame or array for scikit-learn estimators).
    classes : sequence, optional
        River classifiers only: the class labels in output order (default: learnt from the
        stream).
    owner : str
        Name of the public function, for error messages.

    Returns
    -------
    Model

    Raises
    ------
    TypeError
        If ``model`` is none of the above.
    ValueError
        If ``response_method`` or ``target`` do not fit the model.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain.tabular import as_table
    >>> m = as_model(lambda X: X.sum(axis=1))
    >>> m.predict(as_table(np.ones((3, 2))))
    array([2., 2., 2.])
    """
    check_options(input_kind, "input_kind", owner, ("auto", "numpy", "pandas", "polars", "records"))
    if isinstance(model, Model):
        return model
    module = type(model).__module__
    if module.startswith(("lightgbm.basic", "xgboost.core")) and type(model).__name__ == "Booster":
        return BoosterModel(model, target=target)
    if _is_river(model) and not hasattr(model, "fit"):
        return RiverModel(
            model, response_method=response_method, target=target, classes=classes, owner=owner
        )
    if hasattr(model, "predict") and hasattr(model, "fit"):
        return SklearnModel(
            model,
            response_method=response_method,
            target=target,
            input_kind=input_kind,
            owner=owner,
        )
    if callable(model):
        if response_method not in ("auto", "predict"):
            raise param_error(
                owner, "response_method", "'auto' or 'predict' for a callable model", response_method
            )
        return CallableModel(model, input_kind=input_kind, target=target)
    raise TypeError(
        f"{owner} cannot evaluate a {type(model).__name__}: expected a scikit-learn-API estimator, "
        "a River model, a LightGBM/XGBoost Booster or a callable f(X) -> predictions."
    )
