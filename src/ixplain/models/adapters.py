"""Adapters for scikit-learn-API estimators, River models, LightGBM/XGBoost boosters and callables."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._lazy import is_instance
from .._validation import ModelEvaluationError, check_options, param_error
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


def is_sklearn_estimator(estimator: Any) -> bool:
    """Whether ``estimator`` is a scikit-learn estimator (``BaseEstimator``), pipelines included."""
    try:
        from sklearn.base import BaseEstimator
    except ImportError:  # pragma: no cover - scikit-learn is a dependency
        return False
    return isinstance(estimator, BaseEstimator)


def refuse_unfitted(estimator: Any, owner: str) -> None:
    """Raise scikit-learn's ``NotFittedError`` for an unfitted scikit-learn estimator/pipeline.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        Also a ``ValueError`` and an ``AttributeError``, as in scikit-learn.
    """
    if not is_sklearn_estimator(estimator):
        return
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(estimator)
    except NotFittedError as exc:
        raise NotFittedError(
            f"{owner}: the estimator {type(estimator).__name__} is not fitted (it has no "
            f"classes_ or other fitted attribute; fit it first). {exc}"
        ) from None
    except TypeError:  # not an estimator after all (no fit): the adapter decides
        return


#: Packages whose estimators check, at predict time, that the input's feature names match
#: those seen in fit (so their ``feature_names_in_`` says reliably what they were fitted on).
_NAME_CHECKING = frozenset({"sklearn", "lightgbm", "xgboost"})


def _validates_feature_names(model: Any) -> bool:
    """Whether ``model`` predicts with a method of a package that records ``feature_names_in_``
    when fitted on named columns (scikit-learn, LightGBM, XGBoost; a subclass of one of their
    estimators counts): for those, ``n_features_in_`` without ``feature_names_in_`` means
    fitted on an array. A user's own estimator (even one built on ``BaseEstimator`` and the
    mixins, which define no prediction method) may set ``n_features_in_`` by hand and still
    read columns by name, so it keeps its DataFrame."""
    return any(c.__module__.partition(".")[0] in _NAME_CHECKING
               and any(m in vars(c) for m in ("predict", "predict_proba", "decision_function"))
               for c in type(model).__mro__)


class SklearnModel(Model):
    """A scikit-learn-API estimator: scikit-learn models and pipelines, LGBM*/XGB* estimators.

    The estimator receives the data's own type (a DataFrame stays a DataFrame, with its dtypes),
    except that list-of-dict records become a DataFrame for an estimator fitted on one (it has
    ``feature_names_in_``) and an array otherwise, and a DataFrame (pandas or polars) becomes
    an array for a scikit-learn, LightGBM or XGBoost estimator fitted on an array
    (``n_features_in_`` without ``feature_names_in_``; scikit-learn would warn that X has
    feature names on every call). A user's own estimator keeps the DataFrame: it may set
    ``n_features_in_`` by hand and read columns by name.

    ``response_method="auto"`` follows scikit-learn: ``predict_proba``, then
    ``decision_function`` for classifiers; ``predict`` for regressors.

    LightGBM's ``LGBMClassifier`` and ``LGBMRegressor`` (LightGBM 4.x) given a 2-D numeric numpy
    array skip their wrapper: the predict-stage parameters the wrapper recomputes on every call
    are computed once (again after ``fit`` or ``set_params``), the fitted booster is called with
    them and the wrapper's post-processing is repeated, so ``predict``/``predict_proba`` return
    the same array, bit for bit (10 rows, 100 trees: about 160 us instead of 750 us per call;
    most of the rest is ``Booster.predict`` copying and serialising the parameters). The first
    such call per parameter set, input dtype and memory layout is checked against the public
    method, and any difference switches the shortcut off for this adapter. Models fitted on
    named features (they get DataFrames; one fitted on an array gets a DataFrame's array),
    callable objectives, ``RandomState``/``Generator`` seeds and malformed inputs (wrong width,
    no rows, non-numeric) use the public method. Details:
    :mod:`ixplain.models._lightgbm`.
    """

    @property
    def classes_fixed(self) -> bool:
        return True

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
        refuse_unfitted(model, owner)
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

    def _label_state(self) -> dict[str, Any] | None:
        # only the first labels are checked: nothing to keep after that
        return None if self._labels_checked else {"_labels_checked": False}

    def observe_labels(self, y: Any) -> None:
        """Warn once if none of the first labels seen is one of the classifier's classes (a
        label type that differs from the classes', say 1 for "1", would make every accuracy
        0 and every importance 0 without an error; the losses by name refuse such labels)."""
        if self._labels_checked:
            return
        self._labels_checked = True
        classes = list(self.classes_)  # type: ignore[arg-type]
        if classes and np.ndim(classes[0]) > 0:
            return  # a multi-output classifier: one array of classes per output (the
            # loss checks the labels' shape; scikit-learn's losses take one output)
        labels = np.asarray(y, dtype=object).reshape(-1)
        _refuse_continuous_labels(np.asarray(y), classes, type(self.model).__name__)
        if len(labels) and not any(label in classes for label in labels[:100].tolist()):
            warnings.warn(
                f"None of the labels y ({labels[0]!r}, ...) is one of the model's classes "
                f"{classes} (compare their types): the 0-1 loss, log_loss and brier refuse "
                "labels of another type than the classes, and accuracy counts every prediction "
                "wrong (every importance 0). Give y with the model's class labels.",
                RuntimeWarning,
                stacklevel=3,
            )

    def native_kind(self, table):
        """The input type the estimator gets: what it was fitted on when that is known.

        Named columns (a DataFrame; records as a DataFrame) for an estimator fitted on
        them (``feature_names_in_``); an array for a scikit-learn, LightGBM or XGBoost
        estimator fitted on an array (``n_features_in_`` without ``feature_names_in_``: a
        DataFrame would make scikit-learn warn "X has feature names, but ... was fitted
        without feature names" on every call, and it converts the frame to the same
        array); otherwise the data's own type (records as an array).
        """
        if self.input_kind != "auto":
            return self.input_kind
        source = table.schema.source
        if source == "numpy":
            return source
        if hasattr(self.model, "feature_names_in_"):
            return "pandas" if source == "records" else source
        if source == "records" or (hasattr(self.model, "n_features_in_")
                                   and _validates_feature_names(self.model)):
            return "numpy"
        return source

    def _predict_native(self, X: Any) -> Any:
        if self._lightgbm is not None:
            return self._lightgbm(X)
        return self._method(X)

    def _postprocess(self, out: np.ndarray) -> np.ndarray:
        if self.response_method == "predict":
            return out[:, 0] if (out.ndim == 2 and out.shape[1] == 1) else out
        return super()._postprocess(out)


def _refuse_continuous_labels(y: np.ndarray, classes: list, model_name: str) -> None:
    """A classifier explained against a continuous target (a regression loss on a
    classifier's probabilities, say) measures nothing: refuse it, naming a value."""
    if y.dtype.kind != "f" or any(isinstance(c, (float, np.floating)) for c in classes):
        return
    values = y[np.isfinite(y)].reshape(-1)
    fractional = values[values != np.round(values)]
    if fractional.size:
        raise ValueError(
            f"The labels y look continuous (e.g. {float(fractional[0])!r}) but the model "
            f"{model_name} is a classifier with classes {np.asarray(classes).tolist()[:5]}: explain "
            "a regressor, or "
            "give y as class labels."
        )


class BoosterModel(Model):
    """A native ``lightgbm.Booster`` or ``xgboost.Booster`` (not the scikit-learn wrappers).

    Output is the booster's ``predict`` (probabilities for binary/multiclass objectives, values
    for regression); the booster receives a float64 array (an ``xgboost.DMatrix`` for XGBoost).
    """

    response_method = "predict"

    @property
    def classes_fixed(self) -> bool:
        return True

    def __init__(self, model: Any, *, target: Any = None, input_kind: str = "numpy") -> None:
        super().__init__(model, input_kind=input_kind, target=target)
        self._xgb = type(model).__module__.startswith("xgboost")

    def _predict_native(self, X: Any) -> Any:
        if self._xgb:
            import xgboost

            return self.model.predict(xgboost.DMatrix(X))
        return self.model.predict(X)


#: Distinct labels a batch function's adapter keeps before it is known whether the function
#: is a per-row classifier (whose classes they are): a regression stream's labels, all
#: distinct, stop there (they were all kept, each looked up in a list: quadratic time).
_MAX_PENDING_LABELS = 1024


class CallableModel(Model):
    """A plain function: a batch function ``f(X) -> array of shape (n,) or (n, k)``, or a
    per-row function ``f(x: dict) -> value | dict`` (ixai's ``model_function``).

    ``input_kind="auto"`` (default) gives the function the same type as the data you pass to the
    explainer (an array for an array, a DataFrame for a DataFrame, a list of dicts for records);
    set ``input_kind`` to force one.

    Per-row functions are recognised once, on the first call with dict records: the function is
    called on the first record alone; if that returns a number, a string, a bool, None or a
    mapping (class -> probability, as River's ``predict_proba_one``), the function is evaluated
    one record at a time from then on, and mappings are read like a River classifier's
    probabilities (classes in sorted order, the last one positive for a binary problem).
    Anything else (an exception, an array) keeps the batch convention.
    """

    response_method = "__call__"

    def __init__(self, model: Any, *, input_kind: str = "auto", target: Any = None) -> None:
        super().__init__(model, input_kind=input_kind, target=target)
        self._per_row: bool | None = None  # decided on the first call with records
        self._rows: RiverModel | None = None  # per-row mapping outputs: read as River's
        # the distinct labels seen before a per-row classifier is recognised (they become its
        # classes then); a dict for O(1) lookups, at most _MAX_PENDING_LABELS of them
        self._labels: dict[Any, None] = {}
        # what the function raised on one record when it was tried as a per-row function: if
        # the batch call fails too, this (the user's own error, e.g. a KeyError) is reported
        self._row_error: Exception | None = None

    def _predict_native(self, X: Any) -> Any:
        if self._per_row is None and isinstance(X, list) and X and isinstance(X[0], dict):
            self._detect(X[0])
        if self._rows is not None:
            return self._rows._predict_native(X)
        if self._per_row:
            values = [self.model(r) for r in X]
            if all(v is None or isinstance(v, (int, float, np.number)) for v in values):
                return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
            return np.asarray(values, dtype=object)  # labels
        out = self._call_batch(X)
        if is_instance(out, "pandas", "DataFrame", "Series"):
            out = out.to_numpy()
        return out

    def _call_batch(self, X: Any) -> Any:
        """The function on the whole batch; when both conventions failed, the one-record error.

        A function that failed on one record and fails on the list of records too is most
        likely a per-row function with a bug of its own (the list's error, e.g. "list indices
        must be integers", only says it is not a batch function): the one-record error is the
        one reported, the batch error is mentioned, and the convention is tried again next call.
        """
        row_error, self._row_error = self._row_error, None
        try:
            return self.model(X)
        except Exception as exc:
            if row_error is None:
                raise
            self._per_row = None  # (undecided: the next call with records detects again)
            raise ModelEvaluationError(
                f"{self.describe()} raised {type(row_error).__name__} when called on one record "
                f"(a per-row function, f(x: dict)): {row_error}. (Called on the list of "
                f"{len(X)} records as a batch function, it raised {type(exc).__name__}: {exc}.)"
            ) from row_error

    def _detect(self, record: dict) -> None:
        """Call the function on one record: a scalar or a mapping means a per-row function."""
        try:
            out = self.model(dict(record))
        except Exception as exc:  # a batch function given one dict usually fails: batch call
            self._per_row = False
            self._row_error = exc
            return
        self._per_row = out is None or isinstance(out, (str, bool, int, float, np.generic, Mapping))
        if isinstance(out, Mapping):
            shim = _RowProbabilities(self.model)
            self._rows = RiverModel(shim, target=self.target)
            self._rows.observe_labels(list(self._labels))
            self.is_classifier = True

    @property
    def classes_(self):  # type: ignore[override]
        return None if self._rows is None else self._rows.classes_

    @classes_.setter
    def classes_(self, value):  # the base class assigns None
        pass

    def _label_state(self) -> dict[str, Any] | None:
        # _labels only grows: its length is enough to put it back
        rows = self._rows
        return {"n_labels": len(self._labels), "_per_row": self._per_row, "_rows": rows,
                "is_classifier": self.is_classifier,
                "rows": None if rows is None else rows._label_state()}

    def _restore_labels(self, state: dict[str, Any] | None) -> None:
        if not state:
            return
        labels = self._pending_labels()
        for label in list(labels)[state["n_labels"]:]:
            del labels[label]
        self._per_row, self._rows = state["_per_row"], state["_rows"]
        self.is_classifier = state["is_classifier"]
        if self._rows is not None:
            self._rows._restore_labels(state["rows"])

    def observe_labels(self, y: Any) -> None:
        if self._rows is not None:
            self._rows.observe_labels(y)
        elif self._per_row is None:
            labels = self._pending_labels()
            if len(labels) >= _MAX_PENDING_LABELS or np.ndim(y) > 1:
                return  # a regression or multi-output target, not a classifier's classes
            values = y.tolist() if isinstance(y, np.ndarray) else list(np.atleast_1d(y))
            for v in values[: _MAX_PENDING_LABELS - len(labels)]:
                labels.setdefault(v, None)

    def label_classes(self) -> Any:
        return None if self._rows is None else self._rows.label_classes()

    def _pending_labels(self) -> dict[Any, None]:
        labels = self._labels
        if isinstance(labels, list):  # (pickled before the labels were a dict)
            labels = self._labels = dict.fromkeys(labels)
        return labels

    def _select_class(self, out: np.ndarray) -> np.ndarray:
        if self._rows is not None:
            return self._rows._select_class(out)
        return super()._select_class(out)

    def describe(self) -> str:
        return getattr(self.model, "__name__", type(self.model).__name__)


class _RowProbabilities:
    """A per-row function returning ``{class: probability}``, seen as a River classifier."""

    def __init__(self, f: Any) -> None:
        self.predict_proba_one = f

    def predict_one(self, x: dict) -> Any:
        proba = self.predict_proba_one(x)
        return max(proba, key=proba.get) if proba else None


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

    @property
    def classes_fixed(self) -> bool:
        return self._fixed_classes

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
        self._predicted: set[Any] = set()  # classes the model's outputs named
        self._labelled: set[Any] = set()  # labels seen in y
        self._labels_checked = False
        if self._fixed_classes:
            self.classes_ = np.asarray(self._classes, dtype=object)

    @property
    def classes_(self):  # type: ignore[override]
        # the array is rebuilt only when the list is replaced (_add_classes makes a new one):
        # the losses read it once per model call
        cached = self.__dict__.get("_classes_array")
        if cached is None or cached[0] is not self._classes:
            array = np.asarray(self._classes, dtype=object) if self._classes else None
            if array is not None:
                array.setflags(write=False)
            cached = self._classes_array = (self._classes, array)
        return cached[1]

    @classes_.setter
    def classes_(self, value):
        self._classes = list(value) if value is not None else []

    _label_attrs = ("_classes", "_labelled", "_predicted", "_labels_checked")

    def _label_state(self) -> dict[str, Any] | None:
        if not self.is_classifier or self._fixed_classes:
            return None
        return super()._label_state()

    def observe_labels(self, y: Any) -> None:
        if not self.is_classifier or self._fixed_classes:
            return
        if isinstance(y, np.ndarray) or is_instance(y, "pandas", "Series"):
            values = y.tolist()  # Python labels: compared with the known ones without numpy
        else:
            values = y if isinstance(y, (list, tuple)) else [y]
        if not self._labels_checked:
            self._labelled.update(
                v.item() if isinstance(v, np.generic) else v for v in values[:100] if v is not None
            )
            self._check_labels()
        self._add_classes(values)

    def label_classes(self) -> Any:
        """The ``classes`` given; else the classes the model's outputs named so far, or
        those its ``classes`` attribute holds (River's Hoeffding trees keep one);
        None before either is known, and for a regressor."""
        if self._fixed_classes:
            return self.classes_
        if not self.is_classifier:
            return None
        known = self._predicted or getattr(self._final, "classes", None)
        return list(known) if isinstance(known, (set, frozenset, list, tuple)) and known else None

    def _check_labels(self) -> None:
        """Warn once when the labels y and the classes the model predicts share no value
        (1 for "1", 0/1 for "no"/"yes"): every loss would compare values that never match."""
        if self._labels_checked or not (self._predicted and self._labelled):
            return
        self._labels_checked = True
        types = {type(c) for c in self._predicted}
        if not self._predicted & self._labelled and not any(
            type(v) in types for v in self._labelled
        ):  # a new class arriving later is normal; labels of another type never match
            labels = ", ".join(sorted(map(repr, self._labelled))[:4])
            predicted = ", ".join(sorted(map(repr, self._predicted))[:4])
            warnings.warn(
                f"None of the labels y ({labels}) is of the type of the classes the River model "
                f"predicts ({predicted}): every loss compares values that never match, so the "
                "importances mean nothing (0 with the 0-1 and log losses, noise with brier); "
                "the next calls refuse such labels. Give y with the model's class labels.",
                RuntimeWarning,
                stacklevel=4,
            )

    def _saw_predicted(self, classes: Any) -> None:
        if not self._labels_checked:
            self._predicted.update(
                c.item() if isinstance(c, np.generic) else c for c in classes if c is not None
            )
            self._check_labels()

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
            self._saw_predicted(keys)
            if not self._fixed_classes:
                self._add_classes(keys)
            col = {k: j for j, k in enumerate(keys)}
            out = np.zeros((len(records), len(self._classes)))
            for j, c in enumerate(self._classes):
                if c in col:
                    out[:, j] = proba[:, col[c]]
            return out
        if fast is not None:
            if self.is_classifier:
                self._saw_predicted(np.asarray(fast, dtype=object)[:100].tolist())
            return fast
        if self.response_method == "predict_proba_one":
            many = self._many("predict_proba_many")
            frame = None if many is None else self._try_many(many, records)
            if frame is not None:
                dicts = frame.to_dict(orient="records")
            else:
                dicts = [m.predict_proba_one(r) for r in records]
            self._saw_predicted({k for d in dicts[:100] for k in d})
            if not self._fixed_classes:
                for d in dicts:
                    if any(k not in self._classes for k in d):
                        self._add_classes(list(d))
            classes = self._classes
            out = np.array([[d.get(c, 0.0) for c in classes] for d in dicts], dtype=np.float64)
            return out.reshape(len(records), len(classes))
        values: Any = None
        many = self._many("predict_many")
        if many is not None:
            values = self._try_many(many, records)
        if values is None:
            values = [m.predict_one(r) for r in records]
        else:
            values = values.to_numpy()
        if self.is_classifier:
            values = np.asarray(values, dtype=object)
            self._saw_predicted(values[:100].tolist())
            return values
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)

    def _many(self, name: str) -> Any:
        """The model's mini-batch method ``name``, or None to use the ``*_one`` method per row:
        when its last step has none, or when a pipeline step lacks ``transform_many``, at any
        depth (River's ``compose.Discard``, ``compose.Select`` ... have only
        ``transform_one``; inside a ``TransformerUnion`` or a nested pipeline the union's own
        ``transform_many`` calls theirs)."""
        if not hasattr(self._final, name) or getattr(self, "_many_failed", False):
            return None
        steps = getattr(self.model, "steps", None)
        if steps is not None and not all(
            _transforms_batches(step) for step in list(steps.values())[:-1]
        ):
            return None
        return getattr(self.model, name)

    def _try_many(self, many: Any, records: list[dict]) -> Any:
        """``many`` on the records as a DataFrame, or None (and the ``*_one`` path from then
        on) when it raises and the ``*_one`` method answers the first record: River's batch
        path of a pipeline can fail where its per-row path works (a ``TransformerUnion``
        whose members output the same name: ``predict_many`` raises on duplicate columns,
        ``predict_one`` merges the dicts). A model whose ``*_one`` method fails too raises the
        batch error."""
        import pandas as pd

        try:
            return many(pd.DataFrame.from_records(records))
        except Exception:
            try:
                getattr(self.model, self.response_method)(records[0])
            except Exception:
                pass
            else:
                self._many_failed = True
                return None
            raise

    def _select_class(self, out: np.ndarray) -> np.ndarray:
        if self.response_method != "predict_proba_one":
            return out
        if out.ndim == 2 and out.shape[1] <= 2 and self.target is None:
            if out.shape[1] == 0:
                return np.zeros(out.shape[0])
            return out[:, -1]
        return super()._select_class(out)


def _transforms_batches(step: Any) -> bool:
    """Whether a River transformer and every transformer inside it (the members of a
    ``TransformerUnion``, the steps of a nested ``Pipeline``) have ``transform_many``."""
    if not hasattr(step, "transform_many"):
        return False
    inner = getattr(step, "transformers", None)
    if inner is None:
        inner = getattr(step, "steps", None)
    if not isinstance(inner, Mapping):
        return True
    return all(_transforms_batches(t) for t in inner.values())


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
    model, response_method = _unbind(model, response_method, owner)
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


def _unbind(model: Any, response_method: str, owner: str) -> tuple[Any, str]:
    """A bound prediction method (``river_model.predict_one``, ``estimator.predict_proba``) ->
    (its model, that response), so it gets the model's batch path; anything else unchanged."""
    parent = getattr(model, "__self__", None)
    name = getattr(model, "__name__", "")
    if parent is None or isinstance(parent, type):
        return model, response_method
    if name in ("predict_one", "predict_proba_one") and _is_river(parent):
        response = name[: -len("_one")]
    elif name in _SKLEARN_RESPONSES[1:] and hasattr(parent, "fit"):
        response = name
    else:
        return model, response_method
    if response_method not in ("auto", response):
        raise ValueError(
            f"{owner}: the model is {type(parent).__name__}.{name} but response_method="
            f"{response_method!r}; pass the model itself to choose another response."
        )
    return parent, response
