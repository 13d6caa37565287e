"""The one batch interface every model evaluation in ixplain goes through.

A :class:`Model` wraps a user's model (scikit-learn estimator or pipeline, LightGBM/XGBoost model,
River model, plain callable) and exposes ``predict(table) -> ndarray of shape (n,) or (n, k)``.
The response (which method, which class) is chosen once, when the adapter is built; the model
receives its native input type (see :meth:`ixplain.tabular.Table.to_native`); large inputs are
split into chunks of at most ``batch_rows`` rows (the drivers choose it with :func:`call_rows`:
cache-sized calls within the memory budget); errors raised by the user's model are re-raised
as :class:`~ixplain._validation.ModelEvaluationError` with the failing batch described.

Output convention (the same as :func:`sklearn.inspection.partial_dependence`):

* regressors: ``(n,)``, or ``(n, n_outputs)`` for multi-output models;
* binary classifiers: ``(n,)`` -- the positive class ``classes_[1]`` for probabilities, the
  decision function otherwise;
* multiclass classifiers: ``(n, n_classes)`` in ``classes_`` order, or ``(n,)`` for one class
  selected with ``target``;
* ``response_method="predict"`` on a classifier: ``(n,)`` labels as the model returns them.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np

from .._numeric import model_errstate
from .._validation import MIN_MEMORY_BUDGET, ModelEvaluationError
from ..tabular import Table, mixed_column_hint

__all__ = [
    "CALL_ROWS",
    "DEFAULT_MEMORY_BUDGET",
    "MIN_MEMORY_BUDGET",
    "Model",
    "call_rows",
    "rows_for_budget",
]

#: Default bound on the size of one model input, in bytes (about 256 MB, 8 bytes per cell).
DEFAULT_MEMORY_BUDGET = 256 * 2**20

#: Rows per model call that the drivers aim at when they stack perturbed copies of the data:
#: large enough that per-call overhead (input validation, one pass per tree) is small, small
#: enough that a model's intermediate arrays stay in cache (an MLP with 100 hidden units holds
#: 8,192 x 100 float64 = 6.6 MB of activations per call; 100,000-row calls were 1.5x slower
#: per row than 8,000-row calls on the PD benchmark's MLP pipeline).
CALL_ROWS = 8192


def rows_for_budget(n_features: int, memory_budget: int = DEFAULT_MEMORY_BUDGET) -> int:
    """Rows of ``n_features`` float64 cells that fit in ``memory_budget`` bytes (at least 1).

    Examples
    --------
    >>> rows_for_budget(10, 8_000)
    100
    """
    return max(1, int(memory_budget) // (8 * max(1, n_features)))


def call_rows(
    n_features: int, memory_budget: int = DEFAULT_MEMORY_BUDGET, *, n_rows: int = 0
) -> int:
    """Rows per model call for a driver that evaluates stacked perturbed copies of ``n_rows`` rows.

    ``max(n_rows, CALL_ROWS)`` rows, capped by the memory budget: small copies are stacked up
    to a cache-sized call; a copy larger than that is still one call, as scikit-learn's
    ``partial_dependence`` and ``permutation_importance`` make it (one call per grid point or
    permutation), so no model -- tree ensembles gain from larger calls, neural networks from
    cache-sized ones -- is called in smaller pieces than there.

    Parameters
    ----------
    n_features : int
        Columns of the model input (8 bytes per cell for the budget).
    memory_budget : int, default=DEFAULT_MEMORY_BUDGET
        Bound on one model input, in bytes.
    n_rows : int, default=0
        Rows of one perturbed copy of the data (the driver's natural unit).

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> call_rows(10), call_rows(10, n_rows=20_000), call_rows(10, 8_000, n_rows=20_000)
    (8192, 20000, 100)
    """
    return min(rows_for_budget(n_features, memory_budget), max(int(n_rows), CALL_ROWS))


class Model:
    """Base class of the model adapters: a batch callable with a fixed response.

    Subclasses implement :meth:`_predict_native`, which receives the model's native input and
    returns the raw output; :meth:`predict` handles conversion, chunking, error context, output
    shape checks and call accounting.

    Attributes
    ----------
    model : object
        The wrapped user model.
    response_method : str
        The resolved response: ``"predict"``, ``"predict_proba"``, ``"decision_function"``,
        ``"predict_one"``, ``"predict_proba_one"`` or ``"__call__"``.
    is_classifier : bool
    classes_ : ndarray or None
        Class labels in output order for classifiers (may grow for River classifiers).
    target : object or None
        The class label selected for multiclass output, if any.
    input_kind : str
        ``"auto"`` (the data's own type) or one of ``"numpy"``, ``"pandas"``, ``"polars"``,
        ``"records"``.
    n_calls, n_rows : int
        How many native model calls were made and how many rows they held (for benchmarks).
    time_in_model : float
        Seconds spent inside the wrapped model's calls.
    output_shape : tuple of int or None
        The shape of one row of the last call's output: ``()`` for one value per row,
        ``(k,)`` for ``k`` outputs; None before the first call.
    """

    response_method: str = "__call__"
    is_classifier: bool = False
    classes_: np.ndarray | None = None
    target: Any = None
    output_shape: tuple[int, ...] | None = None

    @property
    def classes_fixed(self) -> bool:
        """Whether the classes are known before the stream (a fitted classifier's), so that a
        loss can refuse labels outside them from the first row; False for a model that learns
        its classes from the stream (River without ``classes``) and for plain functions."""
        return False

    def __init__(self, model: Any, *, input_kind: str = "auto", target: Any = None) -> None:
        self.model = model
        self.input_kind = input_kind
        self.target = target
        self.n_calls = 0
        self.n_rows = 0
        self.time_in_model = 0.0
        self._nan_owner: str | None = None

    def refuse_nonfinite_outputs(self, owner: str) -> Model:
        """From now on, a prediction that is not finite (NaN, inf or -inf) raises
        :class:`ModelEvaluationError` naming ``owner``, the rows and the value (the static
        methods: such a prediction would make the whole result NaN or inf, silently). The
        incremental explainers instead skip and count such rows. Returns ``self``."""
        self._nan_owner = owner
        return self

    # ------------------------------------------------------------------ public
    def predict(self, table: Table, *, batch_rows: int | None = None) -> np.ndarray:
        """Evaluate the model on every row of ``table``.

        Parameters
        ----------
        table : Table
            Rows to evaluate, ``n`` of them.
        batch_rows : int, optional
            Largest number of rows per native call; default from
            :data:`DEFAULT_MEMORY_BUDGET`.

        Returns
        -------
        ndarray of shape (n,) or (n, k)

        Raises
        ------
        ModelEvaluationError
            If the wrapped model raises or returns an output with the wrong number of rows.
        """
        n = table.n_rows
        if batch_rows is None:
            batch_rows = rows_for_budget(len(table.names))
        if n <= batch_rows:
            return self._predict_chunk(table)
        parts = [
            self._predict_chunk(table.take(np.arange(s, min(s + batch_rows, n))))
            for s in range(0, n, batch_rows)
        ]
        return np.concatenate(parts, axis=0)

    @property
    def n_outputs(self) -> int | None:
        """Number of output columns (None when the output is 1-D or not known yet)."""
        return None

    @property
    def output_names(self) -> list[str] | None:
        """Names of the output columns for 2-D output (class labels as str), else None."""
        if self.classes_ is not None and self.target is None and len(self.classes_) > 2:
            return [str(c) for c in self.classes_]
        return None

    def observe_labels(self, y: Any) -> None:
        """Tell the adapter which labels exist (used by River classifiers; no-op elsewhere)."""

    def label_classes(self) -> Any:
        """The classes a label must be able to equal (of their type: see
        :func:`ixplain.losses.foreign_label`), as far as they are known before a model call:
        a fitted classifier's ``classes_``; None for a regressor or a plain function."""
        return self.classes_ if self.classes_fixed else None

    #: The attributes :meth:`observe_labels` (and the class bookkeeping of the predictions)
    #: may change: an explainer keeps them to put them back when a part of its stream fails.
    _label_attrs: tuple[str, ...] = ()

    def _label_state(self) -> dict[str, Any] | None:
        """Copies of the label bookkeeping (:attr:`_label_attrs`), for
        :meth:`_restore_labels`; None when there is none to keep (the cheap case)."""
        if not self._label_attrs:
            return None
        d = self.__dict__
        return {a: copy.copy(d[a]) for a in self._label_attrs if a in d}

    def _restore_labels(self, state: dict[str, Any] | None) -> None:
        """Put back the label bookkeeping kept by :meth:`_label_state`."""
        if state:
            self.__dict__.update(state)

    def describe(self) -> str:
        """A short description, e.g. ``'RandomForestRegressor.predict'``."""
        return f"{type(self.model).__name__}.{self.response_method}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()})"

    # ------------------------------------------------------------------ internals
    def native_kind(self, table: Table) -> str:
        """The input type this model receives for ``table``."""
        return table.schema.source if self.input_kind == "auto" else self.input_kind

    def predict_array(self, X: np.ndarray, *, batch_rows: int | None = None) -> np.ndarray:
        """Evaluate the model on a 2-D array given as is (no :class:`Table` round trip).

        The fast path of the brute-force methods for models that receive numpy input
        (``native_kind(table) == "numpy"``); same chunking, error context and output convention
        as :meth:`predict`.

        Parameters
        ----------
        X : ndarray of shape (n, n_features)
        batch_rows : int, optional
            Largest number of rows per native call.

        Returns
        -------
        ndarray of shape (n,) or (n, k)
        """
        n = X.shape[0]
        if batch_rows is None:
            batch_rows = rows_for_budget(X.shape[1])
        names = [f"x{j}" for j in range(X.shape[1])]
        if n <= batch_rows:
            return self._call_native(X, n, "numpy", names)
        parts = [
            self._call_native(X[s : s + batch_rows], min(batch_rows, n - s), "numpy", names)
            for s in range(0, n, batch_rows)
        ]
        return np.concatenate(parts, axis=0)

    def _predict_chunk(self, table: Table) -> np.ndarray:
        kind = self.native_kind(table)
        try:
            return self._call_native(table.to_native(kind), table.n_rows, kind, list(table.names))
        except ModelEvaluationError as exc:
            hint = mixed_column_hint(table)  # (only when the model failed: no cost otherwise)
            if hint is None:
                raise
            raise ModelEvaluationError(f"{exc} {hint}") from exc.__cause__

    def _call_native(self, native: Any, n_rows: int, kind: str, names: list[str]) -> np.ndarray:
        start = time.perf_counter()
        try:
            with model_errstate():  # (the caller's numpy settings, not ixplain's)
                out = self._predict_native(native)
        except ModelEvaluationError:
            raise
        except Exception as exc:  # the user's model failed: add context, keep the cause
            raise ModelEvaluationError(
                f"{self.describe()} raised {type(exc).__name__} on a batch of {n_rows} "
                f"rows (input type {kind}, columns {names}): {exc}"
            ) from exc
        finally:
            self.time_in_model += time.perf_counter() - start
            self.n_calls += 1
            self.n_rows += n_rows
        out = self._postprocess(np.asarray(out))
        if out.shape[0] != n_rows:
            raise ModelEvaluationError(
                f"{self.describe()} returned {out.shape[0]} predictions for {n_rows} rows "
                f"(output shape {out.shape})."
            )
        self.output_shape = out.shape[1:]
        if self._nan_owner is not None and out.dtype.kind == "f" and not np.isfinite(out).all():
            self._raise_nonfinite(out, n_rows, names)
        return out

    def _raise_nonfinite(self, out: np.ndarray, n_rows: int, names: list[str]) -> None:
        flat = out.reshape(n_rows, -1)
        bad_values = flat[~np.isfinite(flat)]
        kinds = " or ".join(k for k, hit in (("NaN", np.isnan(bad_values).any()),
                                            ("inf", (bad_values == np.inf).any()),
                                            ("-inf", (bad_values == -np.inf).any())) if hit)
        bad = ~np.isfinite(flat).all(axis=1)
        first = int(np.argmax(bad))
        value = flat[first][~np.isfinite(flat[first])][0]
        raise ModelEvaluationError(
            f"{self._nan_owner}: {self.describe()} returned {kinds} for {int(bad.sum())} of "
            f"{n_rows} rows (first: row {first} of the batch, value {value}; columns {names}), "
            "so the explanation would be NaN or infinite. Does the model accept the values it "
            "was given (missing values, values outside the training range)? Impute them, clip "
            "the model's output, or use a model that handles them."
        )

    def _predict_native(self, X: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _postprocess(self, out: np.ndarray) -> np.ndarray:
        if out.ndim == 0:
            out = out.reshape(1)
        if out.ndim == 2 and out.shape[1] == 1:
            out = out[:, 0]
        return self._select_class(out)

    def _select_class(self, out: np.ndarray) -> np.ndarray:
        """Binary: keep the positive column; multiclass: keep all or the ``target`` column."""
        if out.ndim != 2 or self.classes_ is None:
            return out
        if self.target is not None:
            idx = _class_index(self.classes_, self.target)
            if out.shape[1] == len(self.classes_):
                return out[:, idx]
        if out.shape[1] == 2 and len(self.classes_) == 2:
            return out[:, 1]
        return out


def _class_index(classes: np.ndarray, target: Any) -> int:
    matches = np.flatnonzero(np.asarray(classes, dtype=object) == target)
    if len(matches) == 0:
        raise ValueError(
            f"The target class {target!r} is not one of the model's classes {list(classes)}."
        )
    return int(matches[0])
