"""The labels at the stream explainers' input boundary: converted once, refused before any
model call when the loss cannot use them.

``as_labels`` turns ``y`` (a number, a str, a numpy row of a multi-output label; an array,
list or pandas Series / DataFrame of the batch's labels) into one array of one label per
row; the ``refuse_*`` functions raise, naming the row and the value, for a label the loss and
the model's classes cannot take (a shape other than the model's outputs, None or a str among
numeric classes); :func:`label_shape_failure` words a shape the stream's first model call
revealed. Every function takes the explainer (``explainer._owner``, its ``_loss`` and
``_model``, ``n_seen_``, ``requires_labels`` and the ``label_free`` flag of an attached
observer).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._lazy import is_instance
from .._validation import refuse_complex_target
from ..losses import foreign_label, label_row_shape, label_shape_error, refuse_unusable_labels
from ._checks import COMPLEX

__all__ = ["as_labels", "label_shape_failure", "refuse_first_labels", "refuse_labels"]



def as_labels(explainer: Any, y: Any, B: int, single: bool) -> np.ndarray | None:
    if y is None:
        if explainer.requires_labels:
            refuse_missing_labels(explainer, single)
        return None
    if single:
        if isinstance(y, (bool, int, float, np.number)) and not isinstance(y, COMPLEX):
            return np.array([y])
        if isinstance(y, COMPLEX):
            refuse_complex_target(np.array([y]), explainer._owner)
        if isinstance(y, np.ndarray) and y.ndim >= 1:  # a multi-output label: one row of it
            return as_labels(explainer, y.reshape(1, *y.shape), 1, single=False)
        arr = np.empty(1, dtype=object)  # any label (str, tuple, ...) as one object
        arr[0] = y
        return arr
    pandas = is_instance(y, "pandas", "Series", "DataFrame")
    arr = np.asarray(y.to_numpy() if pandas else y)
    if arr.dtype.kind in "US" and arr.ndim == 1 and not all(isinstance(v, str) for v in y):
        arr = np.array(list(y), dtype=object)  # numpy made [0, 1, "yes"] all str
    if arr.ndim == 0:
        raise ValueError(
            f"{explainer._owner}.explain_many needs one label per observation ({B} of them); "
            f"got the single value {y!r}."
        )
    if arr.shape[0] != B:
        raise ValueError(f"{explainer._owner} got {B} observations but {arr.shape[0]} labels.")
    if arr.ndim == 2 and arr.shape[1:] == (1,):  # one target column, as scikit-learn ravels it
        arr = arr[:, 0]  # (the model adapter ravels a one-output model's predictions)
    refuse_complex_target(arr, explainer._owner)
    return arr


def refuse_missing_labels(explainer: Any, single: bool) -> None:
    """Raise for ``y=None`` (an explainer that needs labels): for one observation of a
    classifier, the message of a None among the labels (:func:`refuse_labels`); with an
    attached ``label_free`` detector, the pointer to its :meth:`update`, which labels the
    rows with the model's predictions."""
    loss = getattr(explainer, "_loss", None)
    if single and loss is not None and label_row_shape(loss, None) == ():
        classes = explainer._model.label_classes()
        if classes is not None and len(classes):
            refuse_foreign(explainer, None, None, classes, "explain_one")
    msg = f"{explainer._owner} needs the label y of each observation."
    detector = explainer.__dict__.get("drift_detector")
    if detector is not None and getattr(detector, "label_free", False):
        x = "x" if single else "X"
        msg += (f" For label-free drift detection call detector.update{'' if single else '_many'}"
                f"({x}) on the attached detector (label_free=True): it gives the explainer "
                "the model's predictions as labels.")
    raise ValueError(msg)


def refuse_labels(explainer: Any, y_given: Any, y: np.ndarray, method: str) -> None:
    """Refuse, before any model call and for the whole call, labels the loss cannot use:
    a shape other than the loss and the model's output need (:func:`label_shape_msg`),
    and for the class losses a label no class can equal (None, a str among numbers:
    :func:`~ixplain.losses.foreign_label`), naming its row and the classes. A label of
    the classes' type that the model lacks passes (River learners meet new classes)."""
    msg = label_shape_msg(explainer, y_given, y, method)
    if msg is not None:
        raise ValueError(msg)
    loss = getattr(explainer, "_loss", None)
    if loss is None or y.ndim != 1 or label_row_shape(loss, None) != ():
        return
    classes = explainer._model.label_classes()
    if classes is None or not len(classes):
        return
    i = foreign_label(y, classes)
    if i is not None:
        refuse_foreign(explainer, y[i], None if method == "explain_one" else i, classes, method)


def refuse_foreign(explainer: Any, v: Any, i: int | None, classes: Any, method: str) -> None:
    """The error of :func:`refuse_labels` for the label ``v`` of batch row ``i`` (None:
    the one observation of ``explain_one``)."""
    row = explainer.n_seen_ + (i or 0)
    where = (f"the observation (stream row {row})" if i is None
             else f"batch row {i} (stream row {row})")
    v = v.item() if isinstance(v, np.generic) else v
    class_list = [c.item() if isinstance(c, np.generic) else c for c in classes]
    try:
        class_list.sort()
    except TypeError:  # classes that do not compare (mixed types): as they are
        pass
    types = ", ".join(sorted({type(c).__name__ for c in class_list}))
    what = "None" if v is None else f"{v!r} ({type(v).__name__})"
    need = ("every observation needs its label" if v is None
            else "give y with the model's class labels")
    raise ValueError(
        f"{explainer._owner}.{method}: the label y of {where} is {what}, which cannot be one of "
        f"the model's classes {class_list} ({types}): {need}. Nothing of this call was "
        "taken.")


def label_shape_msg(explainer: Any, y_given: Any, y: np.ndarray, method: str) -> str | None:
    """The error for labels whose shape is not the one the built-in loss needs (one
    class label per observation; for a regression loss the model's output shape, known
    from its last call): :func:`~ixplain.losses.label_shape_error`; else None."""
    loss = getattr(explainer, "_loss", None)
    if loss is None:
        return None
    return label_shape_error(loss, f"{explainer._owner}.{method}", y_given, y,
                             explainer._model.output_shape, method == "explain_one")


def label_shape_failure(explainer: Any, exc: BaseException, y_given: Any, y: np.ndarray | None,
                         method: str) -> BaseException:
    """For a part that raised a ValueError: the label shape error of
    :func:`label_shape_msg` (chained to ``exc``) if the model call told an output shape
    the labels do not fit (the stream's first model call: not known before); else
    ``exc``."""
    if not isinstance(exc, ValueError) or y is None:
        return exc
    msg = label_shape_msg(explainer, y_given, y, method)
    if msg is None:
        return exc
    new = ValueError(msg)
    new.__cause__ = exc
    return new


def refuse_first_labels(explainer: Any, y: np.ndarray) -> None:
    """Refuse labels the loss refuses before any row is stored (the first rows, which no
    model call evaluates, were taken with only a warning; the second row raised), for a
    model whose classes are fixed (scikit-learn, a booster, a River model given
    ``classes``; a River model learns its classes from the stream: it warns instead).
    The adapter's warning comes first, as for later rows."""
    loss, model = getattr(explainer, "_loss", None), explainer._model
    if loss is not None and model.classes_fixed:
        model.observe_labels(y)  # its warning first, as for the later rows
        refuse_unusable_labels(loss, y, model.classes_)
