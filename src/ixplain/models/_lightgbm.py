"""Exact fast path for LightGBM's scikit-learn wrappers (``LGBMClassifier``, ``LGBMRegressor``).

``LGBMModel.predict`` spends most of a small call outside the trees: on every call it rebuilds the
predict-stage parameters (``get_params`` with a copy and ``inspect``, ``_process_params``, alias
handling) and validates the input (scikit-learn's ``validate_data``/``check_array``, narwhals
checks). On a 10-row array that is about 800 us against about 60 us for the booster itself, and
the incremental explainers call the model once per observation on batches of that size.

:class:`LightGBMFastPath` does the same work once and replays it:

* the parameters are computed exactly as ``LGBMModel.predict`` computes them with no extra
  keyword arguments -- ``_process_params(stage="predict")``, the pop of the aliases of ``data``,
  ``X``, ``raw_score``, ``start_iteration``, ``num_iteration``, ``pred_leaf`` and
  ``pred_contrib``, ``_choose_param_value("num_threads", ..., n_jobs)`` and ``_process_n_jobs``
  -- and cached;
* each call goes to ``model._Booster.predict(X, raw_score=False, start_iteration=0,
  num_iteration=None, pred_leaf=False, pred_contrib=False, validate_features=False, **params)``,
  the call the wrapper ends with, so the trees, ``best_iteration`` and the C++ side are read
  afresh every time;
* the wrapper's post-processing is repeated literally: ``predict_proba`` of a binary classifier
  is ``np.vstack((1.0 - result, result)).transpose()``, of a multiclass one ``result``;
  ``predict`` of a classifier takes ``classes_`` (the label encoder's, as
  ``LabelEncoder.inverse_transform`` does) at ``np.argmax(proba, axis=1)``; ``predict`` of a
  regressor is ``result``.

So the output is the same array, bit for bit, as the public method's. The cache is keyed by a
fingerprint of the estimator: the keys and identities of the values in ``model.__dict__`` and in
``model._other_params`` (about 3 us to check). ``fit`` replaces ``_Booster`` and ``set_params``
assigns new values, so either rebuilds the cache; values mutated in place (a list parameter
edited element by element) are not seen.

When it applies (anything else goes through the public method, which also raises its own errors):

* the estimator's class is exactly ``lightgbm.LGBMClassifier`` or ``lightgbm.LGBMRegressor``
  (not a subclass) from LightGBM 4.x, the response is ``predict`` or ``predict_proba``, and the
  model is fitted;
* the input is a 2-D ``numpy.ndarray`` (not a subclass, not a DataFrame: feature-name checks and
  pandas categoricals live on the public path) of a float, int, unsigned or bool dtype, with at
  least one row and ``n_features_in_`` columns; NaN and inf pass through, as they do publicly;
* the objective is a string (a callable objective changes the wrapper's output), the estimator
  was not fitted on named features (the public path warns about unnamed input then), no alias of
  ``objective`` is among the parameters (the public path logs a warning per call then), and
  ``random_state`` is not a ``RandomState``/``Generator`` (``_process_params`` draws from it on
  every call, which the fast path must not skip).

Self-check: the first fast call for each cached parameter set and each input dtype and memory
layout also calls the public method on the same input -- on a copy of its first 64 rows in the
same memory layout when it has more (each row's prediction is computed alone, so a larger call
adds nothing to the check; a second full prediction would add up to 8% to a brute-force partial
dependence) -- and returns the public result when it checked the whole input; if the two arrays
differ in dtype, shape or any byte, or the fast call raises, the fast path is switched off for
good for this adapter (:attr:`LightGBMFastPath.enabled`) and the call returns the public
method's result. This guards against LightGBM versions whose wrapper does something else than
the one this module follows.

The number of threads for ``n_jobs=None`` or a negative ``n_jobs`` is counted once per cached
parameter set (the wrapper asks joblib on every call; the count only changes if the process's CPU
affinity does).

References
----------
LightGBM 4.7.0, ``python-package/lightgbm/sklearn.py``: ``LGBMModel.predict``,
``LGBMModel._process_params``, ``LGBMModel._process_n_jobs``, ``LGBMClassifier.predict``,
``LGBMClassifier.predict_proba``; ``python-package/lightgbm/basic.py``: ``Booster.predict``,
``_choose_param_value``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LightGBMFastPath", "lightgbm_fast_path"]

_CLASSES = ("LGBMClassifier", "LGBMRegressor")
_METHODS = ("predict", "predict_proba")
_DTYPE_KINDS = "fiub"
#: Rows of the input the self-check compares (all of them when there are fewer).
_CHECK_ROWS = 64


def lightgbm_fast_path(model: Any, response_method: str) -> LightGBMFastPath | None:
    """A fast path for ``getattr(model, response_method)``, or None if it can never apply.

    None unless ``model`` is exactly an ``LGBMClassifier``/``LGBMRegressor`` of LightGBM 4.x and
    ``response_method`` is ``"predict"`` or ``"predict_proba"``. LightGBM is imported only when
    the model's class comes from it.
    """
    cls = type(model)
    if not cls.__module__.startswith("lightgbm") or cls.__name__ not in _CLASSES:
        return None
    if response_method not in _METHODS:
        return None
    import lightgbm

    if cls not in (lightgbm.LGBMClassifier, lightgbm.LGBMRegressor):
        return None
    if str(getattr(lightgbm, "__version__", "")).split(".")[0] != "4":
        return None
    return LightGBMFastPath(model, response_method)


class _Plan:
    """What the fast path needs for one fingerprint of the estimator (``params`` None: no)."""

    __slots__ = ("checked", "classifier", "ids", "keys", "multiclass", "n_features", "params", "values")

    def __init__(self, keys: tuple, ids: tuple, values: tuple) -> None:
        self.keys = keys
        self.ids = ids
        self.values = values  # held so that the identities in ``ids`` cannot be reused
        self.params: dict[str, Any] | None = None
        self.n_features = -1
        self.classifier = False
        self.multiclass = False
        self.checked: set[tuple[str, str]] = set()


class LightGBMFastPath:
    """Calls ``getattr(model, method)(X)`` or, where it is exact, its booster directly.

    See the module docstring for when the direct call applies and why it returns the same array.

    Parameters
    ----------
    model : lightgbm.LGBMClassifier or lightgbm.LGBMRegressor
    method : {"predict", "predict_proba"}

    Attributes
    ----------
    enabled : bool
        False once a self-check found a difference (or the fast call raised); every later call
        then goes through the public method.
    n_fast : int
        Calls answered by the booster directly (self-checked calls not included).
    """

    def __init__(self, model: Any, method: str) -> None:
        self.model = model
        self.method = method
        self.enabled = True
        self.n_fast = 0
        self._plan: _Plan | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_plan"] = None  # identities do not survive a pickle round trip
        return state

    def __call__(self, X: Any) -> Any:
        public = getattr(self.model, self.method)
        if not self.enabled or type(X) is not np.ndarray or X.ndim != 2:
            return public(X)
        plan = self._current_plan()
        if (
            plan.params is None
            or X.shape[0] == 0
            or X.shape[1] != plan.n_features
            or X.dtype.kind not in _DTYPE_KINDS
        ):
            return public(X)
        key = (X.dtype.str, "C" if X.flags.c_contiguous else "F" if X.flags.f_contiguous else "-")
        if key in plan.checked:
            self.n_fast += 1
            return self._predict(X, plan)
        probe = X
        if X.shape[0] > _CHECK_ROWS and key[1] != "-":  # the first rows, in X's layout
            probe = X[:_CHECK_ROWS].copy(order="F" if key[1] == "F" else "C")
        try:
            out = self._predict(probe, plan)
        except Exception:
            out = None
        expected = public(probe)
        if out is None or not _identical(out, expected):
            self.enabled = False
            self._plan = None
            return expected if probe is X else public(X)
        plan.checked.add(key)
        if probe is X:
            return expected
        self.n_fast += 1
        return self._predict(X, plan)

    # ------------------------------------------------------------------ internals
    def _current_plan(self) -> _Plan:
        model = self.model
        state = model.__dict__
        other = state.get("_other_params")
        values = tuple(state.values())
        if isinstance(other, dict):
            values += tuple(other.values())
        else:
            other = {}
        keys = (*state, *other)
        ids = tuple(map(id, values))
        plan = self._plan
        if plan is not None and plan.ids == ids and plan.keys == keys:
            return plan
        plan = _Plan(keys, ids, values)
        try:
            _fill_plan(plan, model)
        except Exception:  # a private name moved: this LightGBM is not the one followed here
            plan.params = None
        self._plan = plan
        return plan

    def _predict(self, X: np.ndarray, plan: _Plan) -> Any:
        model = self.model
        result = model._Booster.predict(
            X,
            raw_score=False,
            start_iteration=0,
            num_iteration=None,
            pred_leaf=False,
            pred_contrib=False,
            validate_features=False,
            **plan.params,  # type: ignore[arg-type]
        )
        if not plan.classifier:  # LGBMRegressor: LGBMModel.predict
            return result
        # LGBMClassifier.predict_proba
        proba = result if plan.multiclass else np.vstack((1.0 - result, result)).transpose()
        if self.method == "predict_proba":
            return proba
        # LGBMClassifier.predict: self._le.inverse_transform(argmax). The indices are in range
        # and there is at least one, so LabelEncoder.inverse_transform reduces to this take.
        return np.take(model._le.classes_, np.argmax(proba, axis=1), axis=0)


def _fill_plan(plan: _Plan, model: Any) -> None:
    """Set ``plan.params`` etc. as ``LGBMModel.predict`` would compute them, or leave None."""
    from lightgbm.basic import _MULTICLASS_OBJECTIVES, _choose_param_value, _ConfigAliases

    if not model.__sklearn_is_fitted__() or model._Booster is None:
        return
    objective = model._objective
    if not isinstance(objective, str) or model._fitted_with_feature_names:
        return
    raw = model.get_params()
    if isinstance(raw.get("random_state"), (np.random.RandomState, np.random.Generator)):
        return
    if any(alias in raw for alias in _ConfigAliases.get("objective") - {"objective"}):
        return
    # LGBMModel.predict with no **kwargs, line for line
    params = model._process_params(stage="predict")
    for alias in _ConfigAliases.get_by_alias(
        "data", "X", "raw_score", "start_iteration", "num_iteration", "pred_leaf", "pred_contrib"
    ):
        params.pop(alias, None)
    params = _choose_param_value("num_threads", params, model.n_jobs)
    params["num_threads"] = model._process_n_jobs(params["num_threads"])
    plan.n_features = int(model._n_features_in)
    plan.classifier = type(model).__name__ == "LGBMClassifier"
    # LGBMClassifier's private property __is_multiclass, literally
    plan.multiclass = model._n_classes > 2 or objective in _MULTICLASS_OBJECTIVES
    plan.params = params


def _identical(a: Any, b: Any) -> bool:
    """Same type, dtype, shape and bytes (NaN equal to the same NaN); labels by ``array_equal``."""
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return False
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return a.tobytes() == b.tobytes()
    return bool(np.array_equal(a, b))
