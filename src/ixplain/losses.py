"""Per-row losses by name, shared by permutation importance, SAGE and their incremental forms.

A loss is called as ``loss(y_true, y_pred, classes=None)`` and returns an ndarray of shape
``(n,)``: one loss per row, never a mean, so explainers can average, weight or smooth them.

Conventions for ``y_pred`` (the output of :class:`ixplain.models.Model`):

* regression: ``(n,)`` values (or ``(n, k)`` for k outputs with ``y_true`` of shape ``(n, k)``;
  the per-row loss is the mean over outputs, as scikit-learn's ``uniform_average``);
* binary classification with probabilities: ``(n,)`` probability of the positive class
  ``classes[1]`` (``y_true`` holds labels; without ``classes`` the labels must be 0/1 or bool);
* multiclass probabilities: ``(n, n_classes)`` in ``classes`` order;
* ``zero_one`` also takes predicted labels directly (``(n,)`` of any dtype).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validation import param_error

__all__ = ["LOSSES", "Loss", "get_loss"]

_EPS = 1e-15


@dataclass(frozen=True)
class Loss:
    """A named per-row loss.

    Attributes
    ----------
    name : str
    function : callable
        ``function(y_true, y_pred, classes) -> ndarray of shape (n,)``.
    response_method : str
        The model output the loss needs: ``"predict_proba"`` (log loss, Brier), ``"predict"``
        (squared/absolute error, 0-1 loss on labels) or ``"auto"`` for user callables.
    """

    name: str
    function: Callable[..., np.ndarray]
    response_method: str = "auto"

    def __call__(self, y_true: Any, y_pred: Any, classes: Any = None) -> np.ndarray:
        out = np.asarray(self.function(y_true, y_pred, classes), dtype=np.float64)
        n = len(y_pred)
        if out.ndim != 1 or out.shape[0] != n:
            raise ValueError(
                f"The loss {self.name!r} must return one value per row, shape ({n},); "
                f"got shape {out.shape}."
            )
        return out


def _as_index(y_true: Any, classes: Any) -> np.ndarray:
    """Positions of the labels ``y_true`` in ``classes`` (ValueError for an unknown label)."""
    y = np.asarray(y_true)
    if classes is None:
        if y.dtype.kind == "b":
            return y.astype(np.intp)
        yf = y.astype(np.float64)
        if not np.all((yf == 0) | (yf == 1)):
            bad = sorted({repr(v) for v in y[(yf != 0) & (yf != 1)].tolist()})[:5]
            raise ValueError(
                "Without class labels the true labels must be 0/1 or bool for a probability "
                f"loss; got {', '.join(bad)}."
            )
        return yf.astype(np.intp)
    cls = np.asarray(classes, dtype=object)
    lookup = {c: i for i, c in enumerate(cls.tolist())}
    try:
        return np.fromiter((lookup[v] for v in y.tolist()), dtype=np.intp, count=len(y))
    except KeyError as exc:
        raise ValueError(
            f"The true label {exc.args[0]!r} is not one of the model's classes {cls.tolist()}."
        ) from None


def _as_float(values: Any, what: str, name: str) -> np.ndarray:
    """``values`` as float64 for a regression loss; strings are refused, ``"2.5"`` as much as
    ``"a"`` (numpy would read ``"2.5"`` as 2.5, as the stream explainers refuse it in a
    numeric feature)."""
    arr = np.asarray(values)
    text = arr.dtype.kind in "US" or (arr.dtype.kind == "O" and any(
        isinstance(v, (str, bytes)) for v in arr.reshape(-1).tolist()))
    if not text:
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError):
            pass
    example = list(dict.fromkeys(arr.reshape(-1).tolist()))[:3]  # (distinct: rows repeat)
    hint = ("strings are not read as numbers, even ones that look like them: convert them "
            "first (pandas.to_numeric); " if text else "")
    raise ValueError(
        f"The regression loss {name!r} got non-numeric {what} (e.g. {example}); {hint}for "
        "class labels use 'zero_one', or 'log_loss'/'brier' on class probabilities."
    )


def _regression_residual(y_true: Any, y_pred: Any, name: str) -> np.ndarray:
    y = _as_float(y_true, "targets (labels y)", name)
    p = _as_float(y_pred, "predictions", name)
    if p.ndim == 2 and y.ndim == 1:
        raise ValueError(
            f"A regression loss got predictions of shape {p.shape} for 1-D targets; use "
            "'log_loss' or 'brier' for class probabilities."
        )
    if p.shape != y.shape:
        raise ValueError(
            f"The regression loss {name!r} got predictions of shape {p.shape} and targets of "
            f"shape {y.shape}; a model with {p.shape[1] if p.ndim == 2 else 1} output(s) needs "
            "targets of the same shape."
        )
    return p - y


def _reduce_outputs(r: np.ndarray) -> np.ndarray:
    return r.mean(axis=1) if r.ndim == 2 else r


def squared_error(y_true: Any, y_pred: Any, classes: Any = None) -> np.ndarray:
    """``(y_pred - y_true) ** 2`` per row (mean over outputs for 2-D targets).

    >>> squared_error([1.0, 2.0], [0.0, 4.0]).tolist()
    [1.0, 4.0]
    """
    return _reduce_outputs(_regression_residual(y_true, y_pred, "squared_error") ** 2)


def absolute_error(y_true: Any, y_pred: Any, classes: Any = None) -> np.ndarray:
    """``|y_pred - y_true|`` per row (mean over outputs for 2-D targets).

    >>> absolute_error([1.0, 2.0], [0.0, 4.0]).tolist()
    [1.0, 2.0]
    """
    return _reduce_outputs(np.abs(_regression_residual(y_true, y_pred, "absolute_error")))


def log_loss(y_true: Any, y_pred: Any, classes: Any = None) -> np.ndarray:
    """Cross-entropy per row on probabilities clipped to ``[1e-15, 1 - 1e-15]``.

    Binary: ``y_pred`` is P(``classes[1]``); multiclass: ``(n, n_classes)`` probabilities.

    >>> log_loss([0, 1], [0.5, 0.5]).round(4).tolist()
    [0.6931, 0.6931]
    """
    idx = _as_index(y_true, classes)
    p = np.asarray(y_pred, dtype=np.float64)
    if p.ndim == 1:
        p = np.clip(p, _EPS, 1 - _EPS)
        return -np.where(idx == 1, np.log(p), np.log1p(-p))
    p = np.clip(p, _EPS, 1 - _EPS)
    return -np.log(p[np.arange(len(idx)), idx])


def brier(y_true: Any, y_pred: Any, classes: Any = None) -> np.ndarray:
    """Brier loss per row: ``(1[y = classes[1]] - p) ** 2`` for binary (scikit-learn's
    ``brier_score_loss``), ``sum_k (1[y = k] - p_k) ** 2`` for multiclass.

    >>> brier([0, 1], [0.25, 0.5]).tolist()
    [0.0625, 0.25]
    """
    idx = _as_index(y_true, classes)
    p = np.asarray(y_pred, dtype=np.float64)
    if p.ndim == 1:
        return (idx - p) ** 2
    onehot = np.zeros_like(p)
    onehot[np.arange(len(idx)), idx] = 1.0
    return ((onehot - p) ** 2).sum(axis=1)


def zero_one(y_true: Any, y_pred: Any, classes: Any = None) -> np.ndarray:
    """``1[prediction != y_true]`` per row.

    ``y_pred`` may be labels; ``(n, k)`` probabilities (argmax over ``classes``); or, with two
    ``classes`` given and float predictions, P(``classes[1]``) thresholded at 0.5. A label
    of the classes' type that is not among them (a class new in a stream) counts wrong.

    Raises
    ------
    ValueError
        With ``classes``: for a label that is not among them and of another type than all of
        them (``"1"`` for the classes ``[0, 1]``), which no prediction can ever equal.

    >>> zero_one(["a", "b"], ["a", "a"]).tolist()
    [0.0, 1.0]
    """
    p = np.asarray(y_pred)
    y = np.asarray(y_true)
    out = _zero_one(y, p, classes)
    if classes is not None and y.shape == out.shape:
        # a label of a foreign type is never predicted: only the wrong rows need a look
        _refuse_foreign_labels(y, classes, out)
    return out


def _zero_one(y: np.ndarray, p: np.ndarray, classes: Any) -> np.ndarray:
    """:func:`zero_one` without the check of the labels' type."""
    if p.ndim == 2:
        if classes is None:
            raise ValueError("zero_one on (n, k) probabilities needs the class labels.")
        p = np.asarray(classes, dtype=object)[np.argmax(p, axis=1)]
    elif classes is not None and len(classes) == 2 and p.dtype.kind == "f":
        p = np.where(p >= 0.5, classes[1], classes[0])
    if p.dtype.kind in "iufb" and y.dtype.kind in "iufb":
        if p.dtype == y.dtype:  # one numeric dtype: compared as is (no float64 copies)
            return (p != y).astype(np.float64)
        return (p.astype(np.float64) != y.astype(np.float64)).astype(np.float64)
    if p.ndim == 1 and y.shape == p.shape:
        try:  # Python's != on every pair, in numpy's loop
            ne = np.not_equal(p.astype(object), y.astype(object))
            if ne.dtype == np.bool_:
                return ne.astype(np.float64)
        except (TypeError, ValueError):  # labels numpy cannot compare one by one
            pass
    return np.fromiter(
        (a != b for a, b in zip(p.tolist(), y.tolist())), dtype=np.float64, count=len(p)
    )


def refuse_unusable_labels(loss: Loss, y_true: Any, classes: Any) -> None:
    """Refuse the labels ``y_true`` as ``loss`` would on the rows' predictions, without them:
    for the stream explainers' first rows, which no model call evaluates (nothing is stored
    yet), so that the first row is refused as the later ones are (it was taken, with a
    warning, and the second row raised).

    Parameters
    ----------
    loss : Loss
        Only the built-in ``zero_one``, ``log_loss`` and ``brier`` check labels; other losses
        pass.
    y_true : array-like of shape (n,)
        The labels.
    classes : array-like of shape (n_classes,) or None
        The model's fixed classes (None: nothing to check).

    Raises
    ------
    ValueError
        ``zero_one``: for a label of another type than all of the classes (a label of their
        type that the model lacks counts wrong, as in :func:`zero_one`); ``log_loss`` and
        ``brier``: for any label that is not one of the classes. A missing label (None,
        NaN) passes.
    """
    y = np.asarray(y_true)
    if classes is None or y.ndim != 1:
        return
    if y.dtype.kind in "fO":  # a missing label is the nan_policy's, not the loss's
        y = y[[not (v is None or (isinstance(v, float) and v != v)) for v in y.tolist()]]
    if len(y) == 0:
        return
    if loss.function is zero_one:
        _refuse_foreign_labels(y, classes, np.ones(len(y)))
    elif loss.function is log_loss or loss.function is brier:
        _as_index(y, classes)


def _label_family(v: Any) -> str:
    """``"number"`` (bool included: ``True == 1``), ``"text"`` or the type's name."""
    if isinstance(v, (bool, int, float, np.number, np.bool_)):
        return "number"
    if isinstance(v, (str, bytes)):
        return "text"
    return type(v).__name__


def foreign_label(y: np.ndarray, classes: Any) -> int | None:
    """The position of the first label in ``y`` that no class of ``classes`` can equal: None,
    or a label of another type than every class (``"yes"`` or ``"1"`` for the classes
    ``[0, 1]``, ``0`` for ``["no", "yes"]``; bool counts as a number, ``True == 1``). A label
    of the classes' type that is not among them (a class new in a stream) is not foreign, nor
    is a NaN (a missing value, the explainers' ``nan_policy``).

    Parameters
    ----------
    y : ndarray of shape (n,)
        The labels.
    classes : array-like of shape (n_classes,)
        The classes the model predicts (not empty).

    Returns
    -------
    int or None
        The row of the first foreign label; None when every label can be a class.

    Examples
    --------
    >>> foreign_label(np.array([0, 1, "yes"], dtype=object), [0, 1])
    2
    >>> foreign_label(np.array([0, 2, 1.0, True]), [0, 1]) is None
    True
    """
    cls = np.asarray(classes)
    numeric = "iufb"
    if y.dtype.kind in numeric and cls.dtype.kind in numeric:
        return None  # numbers against numbers: the hot path of a numeric stream
    families = {_label_family(c) for c in cls.tolist()}
    if y.dtype.kind in numeric:
        return None if "number" in families else 0
    if y.dtype.kind in "US":
        return None if "text" in families else 0
    for i, v in enumerate(y.tolist()):
        if v is None or (_label_family(v) not in families
                         and not (isinstance(v, float) and v != v)):
            return i
    return None


def label_row_shape(loss: Loss, output_shape: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The shape of one observation's label that the built-in ``loss`` needs: ``()`` (one
    class label) for ``zero_one``, ``log_loss`` and ``brier``; for ``squared_error`` and
    ``absolute_error`` the model's output shape per row (``()`` for one output, ``(k,)`` for
    ``k``), None while no model call told it; None for any other loss (it decides).

    Examples
    --------
    >>> label_row_shape(LOSSES["squared_error"], (2,)), label_row_shape(LOSSES["brier"], None)
    ((2,), ())
    """
    if loss.function in (zero_one, log_loss, brier):
        return ()
    if loss.function in (squared_error, absolute_error):
        return output_shape
    return None


def label_shape_error(loss: Loss, where: str, y_given: Any, y: np.ndarray,
                      output_shape: tuple[int, ...] | None, single: bool = False) -> str | None:
    """The error message for labels whose shape is not the one the built-in ``loss`` needs
    (:func:`label_row_shape`), naming y's shape as given and the expected one; None when
    it fits, or is not known yet (a regression loss before the model's first call).

    Parameters
    ----------
    loss : Loss
    where : str
        The public call, e.g. ``"IncrementalPFI.explain_many"``.
    y_given : object
        The labels as the caller gave them (their shape is named).
    y : ndarray of shape (n,) or (n, k)
        The labels as converted (a ``(n, 1)`` column raveled to ``(n,)``).
    output_shape : tuple of int or None
        :attr:`ixplain.models.Model.output_shape`.
    single : bool, default=False
        ``y`` is the label of one observation (``explain_one``).

    Examples
    --------
    >>> y = np.zeros((10, 2))
    >>> label_shape_error(LOSSES["squared_error"], "f", y, y, ())
    "f: y has shape (10, 2), but the loss 'squared_error' takes the model's 1 output per \
observation, so y needs shape (10,)."
    """
    expected = label_row_shape(loss, output_shape)
    if expected is None or y.shape[1:] == expected:
        return None
    if single:
        want = "a single value" if expected == () else f"shape {expected}"
    else:
        want = f"shape {(y.shape[0], *expected)}"
    k = int(np.prod(expected)) if expected else 1
    why = ("one class label per observation" if label_row_shape(loss, None) == ()
           else f"the model's {k} output{'s' if k > 1 else ''} per observation")
    return (f"{where}: y has shape {np.shape(y_given)}, but the loss {loss.name!r} takes {why}, "
            f"so y needs {want}.")


@contextmanager
def label_shape_guard(loss: Loss, where: str, y_given: Any, y: np.ndarray,
                      model: Any) -> Iterator[None]:
    """Around a static method's computation: refuse labels of the wrong shape
    (:func:`label_shape_error`) before any model call when the loss tells the shape (the
    class losses), and turn a ``ValueError`` raised inside into that error once the model's
    first call told its output shape (a regression loss), chained to the original."""
    msg = label_shape_error(loss, where, y_given, y, model.output_shape)
    if msg is not None:
        raise ValueError(msg)
    try:
        yield
    except ValueError as exc:
        msg = label_shape_error(loss, where, y_given, y, model.output_shape)
        if msg is None:
            raise
        raise ValueError(msg) from exc


def _refuse_foreign_labels(y: np.ndarray, classes: Any, wrong: np.ndarray) -> None:
    """Raise if a label is not one of ``classes`` and of another type than all of them
    (``"1"`` for the classes ``[0, 1]``, ``0`` for ``["no", "yes"]``): such a label never
    equals a prediction, so the 0-1 loss would count every row wrong (every importance 0).
    A label of the classes' type that the model lacks (a class that is new in a stream) is
    counted wrong, as scikit-learn's zero_one_loss does. ``wrong``: the rows' 0-1 losses
    (the rows with a 0 hold a predicted class).

    Raises
    ------
    ValueError
        ``"The true label '1' is not one of the model's classes [0, 1] (str, the classes
        are int): ..."``.
    """
    cls = np.asarray(classes)
    kind = {"i": "n", "u": "n", "f": "n", "b": "n", "U": "t", "S": "t"}
    if cls.dtype.kind != "O" and kind.get(y.dtype.kind, "?") == kind.get(cls.dtype.kind, "!"):
        return  # one kind of labels (numbers or text): no label is of a foreign type
    class_list = cls.tolist()
    families = {_label_family(c) for c in class_list}
    try:
        labels = dict.fromkeys(y[wrong != 0].tolist())  # distinct labels, in row order
    except TypeError:  # unhashable labels: compared as they are
        return
    for v in labels:
        if v is None or (isinstance(v, float) and v != v):
            continue
        if v not in class_list and _label_family(v) not in families:
            types = ", ".join(sorted({type(c).__name__ for c in class_list}))
            raise ValueError(
                f"The true label {v!r} is not one of the model's classes {class_list} "
                f"({type(v).__name__}, the classes are {types}): it never equals a prediction, "
                "so the 0-1 loss would count every row wrong. Give y with the model's class "
                "labels (e.g. y.astype(type of the classes))."
            )


#: The losses available by name.
LOSSES: dict[str, Loss] = {
    "squared_error": Loss("squared_error", squared_error, "predict"),
    "absolute_error": Loss("absolute_error", absolute_error, "predict"),
    "log_loss": Loss("log_loss", log_loss, "predict_proba"),
    "brier": Loss("brier", brier, "predict_proba"),
    "zero_one": Loss("zero_one", zero_one, "predict"),
}


def get_loss(loss: Any, owner: str = "ixplain") -> Loss:
    """Resolve ``loss`` to a :class:`Loss`.

    Parameters
    ----------
    loss : str, Loss, River metric or callable
        A name from :data:`LOSSES`, a :class:`Loss`, a River metric that is the mean of a
        per-observation loss (see :data:`RIVER_METRICS`: ``metrics.MSE()``, ``MAE()``,
        ``LogLoss()``, ``CrossEntropy()``, ``Accuracy()`` -- read as the 0-1 loss, so an
        importance is the drop in accuracy), or a callable
        ``loss(y_true, y_pred) -> ndarray of shape (n,)`` (a ``classes`` keyword is passed if
        the callable accepts one).
    owner : str
        Name of the public function, for error messages.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the names), or a River metric that is not the
        mean of a per-observation loss (RMSE, R2, F1, ...: the message names the one to use).
    TypeError
        For anything else.

    Examples
    --------
    >>> get_loss("brier").response_method
    'predict_proba'
    """
    if isinstance(loss, Loss):
        return loss
    if type(loss).__module__.startswith("river.metrics"):
        return LOSSES[_river_loss_name(loss, owner)]
    if isinstance(loss, str):
        if loss not in LOSSES:
            raise param_error(owner, "loss", f"one of {sorted(LOSSES)} or a callable", loss)
        return LOSSES[loss]
    if callable(loss):
        import inspect

        try:
            takes_classes = "classes" in inspect.signature(loss).parameters
        except (TypeError, ValueError):
            takes_classes = False

        def call(y_true, y_pred, classes=None, _f=loss, _c=takes_classes):
            return _f(y_true, y_pred, classes=classes) if _c else _f(y_true, y_pred)

        return Loss(getattr(loss, "__name__", "custom"), call, "auto")
    raise param_error(
        owner, "loss", f"one of {sorted(LOSSES)} or a callable", loss, exc=TypeError
    )


#: River metrics that are running means of a per-observation loss, and that loss's name here.
RIVER_METRICS = {
    "MSE": "squared_error",
    "MAE": "absolute_error",
    "LogLoss": "log_loss",
    "CrossEntropy": "log_loss",
    "Accuracy": "zero_one",
}
_RIVER_HINTS = {"RMSE": "MSE", "RMSLE": "MSE", "R2": "MSE", "SMAPE": "MAE"}


def _river_loss_name(metric: Any, owner: str) -> str:
    """The per-observation loss behind a River metric (``metrics.MAE()`` -> ``"absolute_error"``)."""
    name = type(metric).__name__
    if name in RIVER_METRICS:
        return RIVER_METRICS[name]
    hint = _RIVER_HINTS.get(name, "MSE, MAE, LogLoss, CrossEntropy or Accuracy")
    raise ValueError(
        f"The 'loss' parameter of {owner} got River's metrics.{name}(), which is not the mean of "
        f"a per-observation loss, so it has no per-row value to explain. Use metrics.{hint}() "
        f"or a loss name from {sorted(LOSSES)}."
    )
