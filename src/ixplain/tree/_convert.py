"""Converters from scikit-learn, LightGBM and XGBoost models to :class:`TreeEnsemble`.

Each converter documents the library's split rule; :mod:`ixplain.tree._ensemble` explains how it
is mapped onto the canonical rule. Models that cannot be represented exactly (custom init
estimators, LightGBM zero-as-missing or linear trees, XGBoost categorical or DART boosters,
pipelines) raise :class:`UnsupportedModelError`; :func:`supports_tree_method` returns False for
them.
"""

from __future__ import annotations

import json
import weakref
from typing import Any

import numpy as np

from ._ensemble import TreeEnsemble, build

__all__ = ["UnsupportedModelError", "as_tree_ensemble", "supports_tree_method"]


class UnsupportedModelError(TypeError):
    """The model is not a tree ensemble ixplain can convert exactly."""


_SK_TREES = (
    "DecisionTreeRegressor",
    "DecisionTreeClassifier",
    "ExtraTreeRegressor",
    "ExtraTreeClassifier",
)
_SK_FORESTS = (
    "RandomForestRegressor",
    "RandomForestClassifier",
    "ExtraTreesRegressor",
    "ExtraTreesClassifier",
)
_SK_GB = ("GradientBoostingRegressor", "GradientBoostingClassifier")
_SK_HGB = ("HistGradientBoostingRegressor", "HistGradientBoostingClassifier")


def _kind(model: Any) -> str | None:
    name = type(model).__name__
    module = type(model).__module__
    if module.startswith("sklearn."):
        for kind, names in (("tree", _SK_TREES), ("forest", _SK_FORESTS), ("gb", _SK_GB)):
            if name in names:
                return kind
        if name in _SK_HGB:
            return "hgb"
        return None
    if module.startswith("lightgbm"):
        if name == "Booster" or hasattr(model, "booster_"):
            return "lightgbm"
    if module.startswith("xgboost"):
        if name == "Booster" or hasattr(model, "get_booster"):
            return "xgboost"
    return None


def supports_tree_method(estimator: Any, response_method: str = "auto") -> bool:
    """Whether :func:`ixplain.tree_partial_dependence` can explain ``estimator`` exactly.

    Parameters
    ----------
    estimator : object
        A fitted model (or an :class:`ixplain.models.Model` wrapping one).
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"

    Returns
    -------
    bool
        True for fitted scikit-learn DecisionTree/ExtraTree, RandomForest/ExtraTrees,
        GradientBoosting (constant init), HistGradientBoosting, LightGBM and XGBoost (gbtree)
        models that the tree method represents exactly; False otherwise (the caller then uses
        the brute-force method).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> X = np.arange(8.0).reshape(4, 2)
    >>> supports_tree_method(DecisionTreeRegressor().fit(X, [0, 1, 0, 1]))
    True
    >>> supports_tree_method(lambda X: X.sum(axis=1))
    False
    """
    try:
        model, response_method = _unwrap(estimator, response_method)
        if _kind(model) is None:
            return False
        as_tree_ensemble(model, response_method=response_method)
    except Exception:
        return False
    return True


def _unwrap(model: Any, response_method: str) -> tuple[Any, str]:
    from ..models import Model

    if isinstance(model, Model):
        return model.model, model.response_method
    return model, response_method


def as_tree_ensemble(model: Any, *, response_method: str = "auto") -> TreeEnsemble:
    """Convert a fitted tree model into a :class:`TreeEnsemble`.

    ``response_method`` selects the explained output: ``"predict"`` for regressors,
    ``"predict_proba"`` (link applied) or ``"decision_function"`` (raw scores) for classifiers;
    ``"auto"`` follows scikit-learn (probabilities for classifiers when available).

    Raises
    ------
    UnsupportedModelError
        If the model is not a supported, fitted tree ensemble.
    """
    model, response_method = _unwrap(model, response_method)
    kind = _kind(model)
    if kind is None:
        raise UnsupportedModelError(
            f"The tree method supports scikit-learn trees, forests, (Hist)GradientBoosting, "
            f"LightGBM and XGBoost models; got {type(model).__name__}."
        )
    converter = {
        "tree": _from_sklearn_trees,
        "forest": _from_sklearn_trees,
        "gb": _from_sklearn_gb,
        "hgb": _from_sklearn_hgb,
        "lightgbm": _from_lightgbm,
        "xgboost": _from_xgboost,
    }[kind]
    key = _fingerprint(model, kind)
    cached = _cache_get(model, key, response_method)
    if cached is not None:
        return cached
    try:
        ens = converter(model, response_method)
    except UnsupportedModelError:
        raise
    except (AttributeError, KeyError, IndexError, ValueError) as exc:
        raise UnsupportedModelError(
            f"Cannot read the trees of {type(model).__name__} ({type(exc).__name__}: {exc}); "
            "is it fitted?"
        ) from exc
    _cache_put(model, key, response_method, ens)
    return ens


# ---------------------------------------------------------------------------- conversion cache
# Converting a large ensemble (LightGBM's and XGBoost's JSON dumps above all) can cost as much as
# a prediction pass, so the result is cached per model object (weakly: the cache never keeps a
# model alive) under a fingerprint of its fitted state. The fingerprint holds strong references
# to the fitted objects it identifies, so their ids cannot be reused by a refit, plus the
# parameters that act at prediction time.
_CACHE: weakref.WeakKeyDictionary[Any, dict[str, tuple[Any, TreeEnsemble]]] = (
    weakref.WeakKeyDictionary()
)


def _fingerprint(model: Any, kind: str) -> Any:
    try:
        if kind in ("tree", "forest", "gb"):
            ests = getattr(model, "estimators_", None)
            objs = [model.tree_] if ests is None else list(np.asarray(ests, dtype=object).ravel())
            trees = tuple(e if kind == "tree" else e.tree_ for e in objs)
            return (trees, getattr(model, "learning_rate", None), getattr(model, "init_", None))
        if kind == "hgb":
            return (model._predictors, len(model._predictors), model._baseline_prediction)
        if kind == "lightgbm":
            booster = model.booster_ if hasattr(model, "booster_") else model
            # a Booster passed directly is the cache key itself: keep no strong reference to it
            ref = None if booster is model else booster
            return (ref, booster.current_iteration(), getattr(model, "best_iteration_", None))
        if kind == "xgboost":
            booster = model.get_booster() if hasattr(model, "get_booster") else model
            best = getattr(model, "best_iteration", None) if hasattr(model, "get_booster") else None
            ref = None if booster is model else booster
            return (ref, booster.num_boosted_rounds(), best)
    except Exception:  # unfitted or unusual: no caching, the converter reports the problem
        return None
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float, str, type(None))) and isinstance(b, (int, float, str, type(None))):
        return a == b
    return a is b


def _cache_get(model: Any, key: Any, response_method: str) -> TreeEnsemble | None:
    if key is None:
        return None
    try:
        entry = _CACHE.get(model, {}).get(response_method)
    except TypeError:  # not weak-referenceable
        return None
    if entry is not None and _same(entry[0], key):
        return entry[1]
    return None


def _cache_put(model: Any, key: Any, response_method: str, ens: TreeEnsemble) -> None:
    if key is None:
        return
    try:
        _CACHE.setdefault(model, {})[response_method] = (key, ens)
    except TypeError:
        pass


def _classifier_response(model: Any, response_method: str, has_decision: bool) -> str:
    if response_method == "auto":
        return "predict_proba"
    if response_method == "decision_function" and has_decision:
        return response_method
    if response_method == "predict_proba":
        return response_method
    raise UnsupportedModelError(
        f"The tree method explains predict_proba{' or decision_function' if has_decision else ''}"
        f" of {type(model).__name__}; got response_method={response_method!r}."
    )


def _check_regressor_response(model: Any, response_method: str) -> None:
    if response_method not in ("auto", "predict"):
        raise UnsupportedModelError(
            f"{type(model).__name__} is a regressor: response_method must be 'predict'; got "
            f"{response_method!r}."
        )


# ---------------------------------------------------------------------------- scikit-learn trees
def _sk_tree_arrays(tree: Any, value: np.ndarray, *, nan_follows_tree: bool = True) -> dict:
    """Local arrays of one ``sklearn.tree._tree.Tree`` (rule: ``float32(x) <= threshold``)."""
    feature = np.where(tree.children_left < 0, -1, tree.feature)
    missing = getattr(tree, "missing_go_to_left", None)
    if missing is None or not nan_follows_tree:
        missing_left = np.zeros(tree.node_count, dtype=bool)
    else:
        missing_left = np.asarray(missing, dtype=bool)
    return {
        "feature": feature,
        "threshold": tree.threshold,
        "missing_left": missing_left,
        "left": tree.children_left,
        "right": tree.children_right,
        "value": value,
    }


def _from_sklearn_trees(model: Any, response_method: str) -> TreeEnsemble:
    """DecisionTree/ExtraTree and RandomForest/ExtraTrees (regressors and classifiers).

    scikit-learn casts inputs to float32 and sends a row left iff ``x <= threshold`` (float64
    threshold); NaN follows ``missing_go_to_left``. A forest averages the trees' predictions
    (class probabilities for classifiers, normalised per leaf), so each leaf value is divided by
    the number of trees; the average of probabilities is linear, so the link is the identity.
    """
    estimators = list(getattr(model, "estimators_", [model]))
    n_trees = len(estimators)
    is_clf = hasattr(model, "classes_")
    if is_clf:
        _classifier_response(model, response_method, has_decision=False)
        if getattr(model, "n_outputs_", 1) != 1:
            raise UnsupportedModelError("Multi-output classifiers are not supported.")
        n_classes = len(model.classes_)
    else:
        _check_regressor_response(model, response_method)
    trees = []
    for est in estimators:
        tree = est.tree_
        if is_clf:
            v = np.asarray(tree.value[:, 0, :n_classes], dtype=np.float64)
            norm = v.sum(axis=1, keepdims=True)
            norm[norm == 0.0] = 1.0
            v = v / norm
            v = v[:, 1:] if n_classes == 2 else v
        else:
            v = np.asarray(tree.value[:, :, 0], dtype=np.float64)
        trees.append(_sk_tree_arrays(tree, v / n_trees))
    n_outputs = trees[0]["value"].shape[1]
    return build(
        trees,
        n_outputs=n_outputs,
        base=np.zeros(n_outputs),
        link="identity",
        encoders=("float32",) * int(model.n_features_in_),
        library="scikit-learn",
    )


def _sk_link(loss: Any) -> tuple[str, float]:
    """Link of a ``sklearn._loss`` loss as (name, scale of the raw score)."""
    name = type(loss.link).__name__
    if name == "IdentityLink":
        return "identity", 1.0
    if name == "LogLink":
        return "exp", 1.0
    if name == "LogitLink":
        return "sigmoid", 1.0
    if name == "HalfLogitLink":  # exponential loss: p = expit(2 * raw)
        return "sigmoid", 2.0
    if name in ("MultinomialLogit", "SymmetricMultinomialLogit"):
        return "softmax", 1.0
    raise UnsupportedModelError(f"Unsupported link {name} of the loss {type(loss).__name__}.")


def _from_sklearn_gb(model: Any, response_method: str) -> TreeEnsemble:
    """GradientBoostingRegressor/Classifier: ``raw = init + learning_rate * sum of trees``.

    The trees compare float32 inputs with ``<=``; the stage-wise prediction kernel has no
    missing-value branch, so NaN (``NaN <= t`` is false) always goes right. Only constant init
    estimators (the default ``DummyEstimator`` or ``init="zero"``) are supported.
    """
    init = model.init_
    if not (isinstance(init, str) and init == "zero"):
        if not type(init).__name__.startswith("Dummy"):
            raise UnsupportedModelError(
                f"GradientBoosting with a non-constant init estimator ({type(init).__name__}) "
                "is not supported by the tree method."
            )
    n_features = int(model.n_features_in_)
    base = np.asarray(model._raw_predict_init(np.zeros((1, n_features))), dtype=np.float64)[0]
    is_clf = hasattr(model, "classes_")
    link, scale = "identity", 1.0
    if is_clf:
        response = _classifier_response(model, response_method, has_decision=True)
        if response == "predict_proba":
            link, scale = _sk_link(model._loss)
    else:
        _check_regressor_response(model, response_method)
    estimators = model.estimators_
    n_outputs = estimators.shape[1]
    trees = []
    for stage in estimators:
        for k, est in enumerate(stage):
            v = np.zeros((est.tree_.node_count, n_outputs))
            v[:, k] = est.tree_.value[:, 0, 0] * model.learning_rate * scale
            trees.append(_sk_tree_arrays(est.tree_, v, nan_follows_tree=False))
    return build(
        trees,
        n_outputs=n_outputs,
        base=base * scale,
        link=link,
        encoders=("float32",) * n_features,
        library="scikit-learn",
    )


def _decode_bitsets(bitsets: np.ndarray) -> np.ndarray:
    """uint32 bitsets of shape (n, 8) -> bool array of shape (n, 256)."""
    b = np.asarray(bitsets, dtype=np.uint32).reshape(-1, 8)
    bits = (b[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1
    return bits.reshape(len(b), 256).astype(bool)


def _from_sklearn_hgb(model: Any, response_method: str) -> TreeEnsemble:
    """HistGradientBoostingRegressor/Classifier: ``raw = baseline + sum of trees``.

    Prediction uses the raw (not binned) thresholds: ``x <= num_threshold`` on float64 ``x``;
    NaN follows ``missing_go_to_left``. Categorical splits send the categories in
    ``raw_left_cat_bitsets`` left; negative values and categories unknown at fit time are treated
    as missing. Leaf values already include the learning rate.
    """
    link = _hgb_link(model, response_method)
    n_features = int(model.n_features_in_)
    preprocess, columns, is_cat = _hgb_preprocessor(model, n_features)
    encoders, known = _hgb_encoders(model, is_cat, n_features)
    n_outputs = int(model.n_trees_per_iteration_)
    trees = [
        _hgb_tree(predictor, k, n_outputs)
        for stage in model._predictors
        for k, predictor in enumerate(stage)
    ]
    return build(
        trees,
        n_outputs=n_outputs,
        base=np.asarray(model._baseline_prediction, dtype=np.float64).reshape(-1),
        link=link,
        encoders=tuple(encoders),
        known_categories=known,
        library="scikit-learn",
        preprocess=preprocess,
        columns=columns,
    )


def _hgb_link(model: Any, response_method: str) -> str:
    """Link of a HistGradientBoosting model's response (identity for ``decision_function``)."""
    if hasattr(model, "classes_"):
        response = _classifier_response(model, response_method, has_decision=True)
        return _sk_link(model._loss)[0] if response == "predict_proba" else "identity"
    _check_regressor_response(model, response_method)
    return _sk_link(model._loss)[0]


def _hgb_preprocessor(model: Any, n_features: int) -> tuple[Any, Any, Any]:
    """(preprocess, columns, is_categorical) of a HistGradientBoosting model.

    With ``categorical_features="from_dtype"`` the model ordinal-encodes its categorical
    columns and moves them first (ColumnTransformer order): ``preprocess`` applies that
    transform and ``columns[i]`` is the input column of transformed column ``i``.
    """
    is_cat = getattr(model, "is_categorical_", None)
    pre = model._preprocessor
    if pre is None:
        return None, None, is_cat
    columns = np.empty(n_features, dtype=np.int64)
    for name, _, cols in pre.transformers_:
        if name not in pre.output_indices_:
            continue
        positions = np.arange(n_features)[cols]
        out = pre.output_indices_[name]
        columns[out.start : out.start + len(positions)] = positions
    is_cat = np.zeros(n_features, dtype=bool)
    is_cat[pre.output_indices_["encoder"]] = True

    def preprocess(X: Any) -> np.ndarray:
        return np.asarray(pre.transform(X), dtype=np.float64)

    return preprocess, columns, is_cat


def _hgb_encoders(
    model: Any, is_cat: Any, n_features: int
) -> tuple[list[str], dict[int, np.ndarray]]:
    """(encoder per feature, categories known at fit time per categorical feature)."""
    encoders = ["float64"] * n_features
    known: dict[int, np.ndarray] = {}
    if is_cat is not None and np.any(is_cat):
        known_bitsets, f_idx_map = model._bin_mapper.make_known_categories_bitsets()
        known_bool = _decode_bitsets(known_bitsets)
        for j in np.flatnonzero(is_cat):
            encoders[j] = "hgb_categorical"
            known[int(j)] = np.flatnonzero(known_bool[f_idx_map[j]]).astype(np.float64)
    return encoders, known


def _hgb_tree(predictor: Any, k: int, n_outputs: int) -> dict:
    """The arrays of one HistGradientBoosting predictor (tree) of output ``k``."""
    nodes = predictor.nodes
    leaf = nodes["is_leaf"].astype(bool)
    v = np.zeros((len(nodes), n_outputs))
    v[:, k] = nodes["value"]
    cat = nodes["is_categorical"].astype(bool) & ~leaf
    cat_sets = _decode_bitsets(predictor.raw_left_cat_bitsets)
    return {
        "feature": np.where(leaf, -1, nodes["feature_idx"].astype(np.int64)),
        "threshold": nodes["num_threshold"],
        "missing_left": nodes["missing_go_to_left"].astype(bool),
        "left": nodes["left"].astype(np.int64),
        "right": nodes["right"].astype(np.int64),
        "value": v,
        "cat_index": np.where(cat, nodes["bitset_idx"].astype(np.int64), -1),
        "cat_sets": list(cat_sets),
    }


# ---------------------------------------------------------------------------- LightGBM
_LGB_IDENTITY = (
    "regression",
    "regression_l1",
    "huber",
    "fair",
    "quantile",
    "mape",
    "lambdarank",
    "rank_xendcg",
    "custom",
)


def _lgb_link(objective: str) -> tuple[str, float]:
    parts = objective.split()
    name = parts[0] if parts else "custom"
    params = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    if "sqrt" in parts:
        raise UnsupportedModelError("LightGBM regression with reg_sqrt is not supported.")
    if name in ("binary", "multiclassova"):
        return "sigmoid", float(params.get("sigmoid", 1.0))
    if name == "multiclass":
        return "softmax", 1.0
    if name in ("cross_entropy", "xentropy"):
        return "sigmoid", 1.0
    if name in ("poisson", "gamma", "tweedie"):
        return "exp", 1.0
    if name in _LGB_IDENTITY:
        return "identity", 1.0
    raise UnsupportedModelError(f"LightGBM objective {objective!r} is not supported.")


def _from_lightgbm(model: Any, response_method: str) -> TreeEnsemble:
    """LightGBM ``Booster`` or ``LGBM*`` estimator, read from ``Booster.dump_model()``.

    Numeric nodes (``decision_type "<="``): left iff ``x <= threshold`` on float64 ``x``.
    ``missing_type "NaN"``: NaN follows ``default_left``; ``"None"``: NaN is replaced by 0.0;
    ``"Zero"`` (zero as missing) is not supported. Categorical nodes (``"=="``): the categories
    listed in ``threshold`` (``"a||b||c"``) go left, any other (and negative) category right; NaN
    goes right with ``missing_type "NaN"`` and is category 0 otherwise. Leaf values include the
    shrinkage; ``average_output`` (random-forest mode) divides by the number of iterations.
    """
    booster = model.booster_ if hasattr(model, "booster_") else model
    dump = booster.dump_model()
    objective = str(dump.get("objective", "custom"))
    link, scale = _lgb_link(objective)
    is_clf = hasattr(model, "classes_")
    if is_clf:
        _classifier_response(model, response_method, has_decision=False)
    elif response_method not in ("auto", "predict"):
        raise UnsupportedModelError(
            f"response_method={response_method!r} is not supported for a LightGBM regressor or "
            "Booster."
        )
    n_outputs = int(dump["num_tree_per_iteration"])
    info = dump["tree_info"]
    if any(t.get("is_linear") for t in info):
        raise UnsupportedModelError("LightGBM linear trees are not supported.")
    n_iter = max(1, len(info) // n_outputs)
    tree_scale = scale / n_iter if dump.get("average_output") else scale
    n_features = int(dump["max_feature_idx"]) + 1
    cat_features: set[int] = set()
    trees = [
        _lgb_tree(t["tree_structure"], i % n_outputs, n_outputs, tree_scale, cat_features)
        for i, t in enumerate(info)
    ]
    encoders = tuple(
        "lgb_categorical" if j in cat_features else "lightgbm" for j in range(n_features)
    )
    pandas_categorical = getattr(booster, "pandas_categorical", None)
    return build(
        trees,
        n_outputs=n_outputs,
        base=np.zeros(n_outputs),
        link=link,
        encoders=encoders,
        library="lightgbm",
        preprocess=_lgb_pandas_codes(pandas_categorical) if pandas_categorical else None,
    )


def _lgb_pandas_codes(pandas_categorical: list) -> Any:
    """LightGBM's reading of a DataFrame: pandas categoricals become their codes in the
    categories seen at fit time (in column order; unseen values and NaN become NaN)."""
    import pandas as pd

    def preprocess(X: Any) -> np.ndarray:
        if not isinstance(X, pd.DataFrame):
            return np.asarray(X, dtype=np.float64)
        out = np.empty(X.shape, dtype=np.float64)
        k = 0
        for j, col in enumerate(X.columns):
            s = X[col]
            if isinstance(s.dtype, pd.CategoricalDtype):
                codes = s.cat.set_categories(pandas_categorical[k]).cat.codes.to_numpy()
                out[:, j] = np.where(codes < 0, np.nan, codes)
                k += 1
            else:
                out[:, j] = pd.to_numeric(s).to_numpy(dtype=np.float64, na_value=np.nan)
        return out

    return preprocess


def _lgb_tree(root: dict, k: int, n_outputs: int, scale: float, cat_features: set[int]) -> dict:
    """The arrays of one tree of ``dump_model()`` (output ``k``); adds its categorical features
    to ``cat_features``. Nodes are numbered depth first, left subtree first."""
    cols: dict[str, list] = {
        key: [] for key in ("feature", "threshold", "missing_left", "left", "right", "cat_index")
    }
    values: list[float] = []
    cat_sets: list[np.ndarray] = []
    stack: list[tuple[dict, int, bool]] = [(root, -1, False)]  # (node, parent, is_left)
    while stack:
        node, parent, is_left = stack.pop()
        i = len(values)
        if parent >= 0:
            cols["left" if is_left else "right"][parent] = i
        leaf = "split_feature" not in node
        values.append(float(node["leaf_value"]) * scale if leaf else 0.0)
        feature, threshold, missing_left, bits = (
            (-1, 0.0, False, None) if leaf else _lgb_split(node)
        )
        row = {
            "feature": feature,
            "threshold": threshold,
            "missing_left": missing_left,
            "left": -1,
            "right": -1,
            "cat_index": -1 if bits is None else len(cat_sets),
        }
        for key, value in row.items():
            cols[key].append(value)
        if leaf:
            continue
        if bits is not None:
            cat_sets.append(bits)
            cat_features.add(feature)
        # right pushed first so that the left subtree is numbered first (parents before children)
        stack.append((node["right_child"], i, False))
        stack.append((node["left_child"], i, True))
    v = np.zeros((len(values), n_outputs))
    v[:, k] = values
    return {**cols, "value": v, "cat_sets": cat_sets}


def _lgb_split(node: dict) -> tuple[int, float, bool, np.ndarray | None]:
    """(feature, threshold, NaN goes left, categories going left or None) of a split node."""
    f = int(node["split_feature"])
    missing_type = node.get("missing_type", "None")
    if missing_type == "Zero":
        raise UnsupportedModelError(
            "LightGBM models trained with zero_as_missing (missing_type 'Zero') are not "
            "supported by the tree method."
        )
    if node["decision_type"] == "==":
        cats = [int(c) for c in str(node["threshold"]).split("||")]
        bits = np.zeros(max(cats) + 1, dtype=bool)
        bits[cats] = True
        return f, 0.0, False if missing_type == "NaN" else bool(bits[0]), bits
    if node["decision_type"] == "<=":
        t = float(node["threshold"])
        missing_left = bool(node["default_left"]) if missing_type == "NaN" else 0.0 <= t
        return f, t, missing_left, None
    raise UnsupportedModelError(f"LightGBM decision_type {node['decision_type']!r}.")


# ---------------------------------------------------------------------------- XGBoost
_XGB_LOGIT = ("binary:logistic", "reg:logistic")
_XGB_LOG = ("count:poisson", "reg:gamma", "reg:tweedie")
_XGB_IDENTITY = (
    "reg:squarederror",
    "reg:squaredlogerror",
    "reg:pseudohubererror",
    "reg:absoluteerror",
    "reg:quantileerror",
    "reg:linear",
    "binary:logitraw",
    "rank:pairwise",
    "rank:ndcg",
    "rank:map",
)


def _from_xgboost(model: Any, response_method: str) -> TreeEnsemble:
    """XGBoost ``Booster`` or ``XGB*`` estimator, read from the JSON model (``save_raw``).

    XGBoost casts inputs to float32 and sends a row left iff ``x < split_condition`` (float32);
    the canonical threshold is the largest float32 below ``split_condition``. NaN follows
    ``default_left``. ``base_score`` is stored on the response scale and mapped to the margin
    (logit for logistic objectives, log for count/gamma/tweedie). XGBoost itself sums leaves in
    float32, so its predictions differ from the exact float64 sum by float32 rounding.
    """
    booster = model.get_booster() if hasattr(model, "get_booster") else model
    learner = json.loads(booster.save_raw(raw_format="json"))["learner"]
    gb = learner["gradient_booster"]
    if gb.get("name") != "gbtree":
        raise UnsupportedModelError(f"XGBoost booster {gb.get('name')!r} is not supported.")
    params = learner["learner_model_param"]
    base_resp = np.asarray(json.loads(params["base_score"].replace("E", "e")), dtype=np.float64)
    link, base = _xgb_link(learner["objective"]["name"], base_resp)
    if hasattr(model, "classes_"):
        _classifier_response(model, response_method, has_decision=False)
    elif response_method not in ("auto", "predict"):
        raise UnsupportedModelError(
            f"response_method={response_method!r} is not supported for an XGBoost regressor."
        )
    if int(params.get("num_target", "1")) > 1:
        raise UnsupportedModelError("Multi-target XGBoost models are not supported.")
    n_outputs = max(1, int(params.get("num_class", "0")))
    trees_json, tree_info = _xgb_kept_trees(model, gb["model"])
    trees = [_xgb_tree(t, k, n_outputs) for t, k in zip(trees_json, tree_info)]
    base = np.broadcast_to(np.asarray(base, dtype=np.float64).reshape(-1), (n_outputs,))
    return build(
        trees,
        n_outputs=n_outputs,
        base=base,
        link=link,
        encoders=("float32",) * int(params["num_feature"]),
        library="xgboost",
    )


def _xgb_link(objective: str, base_resp: np.ndarray) -> tuple[str, np.ndarray]:
    """(link, base margin) of an XGBoost objective; ``base_resp`` is on the response scale."""
    if objective in _XGB_LOGIT:
        return "sigmoid", np.log(base_resp / (1.0 - base_resp))
    if objective in _XGB_LOG:
        return "exp", np.log(base_resp)
    if objective in ("multi:softprob", "multi:softmax"):
        return "softmax", base_resp
    if objective in _XGB_IDENTITY:
        return "identity", base_resp
    raise UnsupportedModelError(f"XGBoost objective {objective!r} is not supported.")


def _xgb_kept_trees(model: Any, model_json: dict) -> tuple[list, list]:
    """(trees, output of each tree), cut at ``best_iteration`` for an early-stopped estimator."""
    trees_json = model_json["trees"]
    tree_info = model_json["tree_info"]
    best = getattr(model, "best_iteration", None) if hasattr(model, "get_booster") else None
    if best is not None:
        indptr = model_json.get("iteration_indptr")
        n_keep = int(indptr[best + 1]) if indptr else len(trees_json)
        trees_json, tree_info = trees_json[:n_keep], tree_info[:n_keep]
    return trees_json, tree_info


def _xgb_tree(t: dict, k: Any, n_outputs: int) -> dict:
    """The arrays of one JSON tree of output ``k``; threshold: the largest float32 below
    ``split_condition`` (XGBoost goes left iff ``x < split_condition``)."""
    if any(int(s) != 0 for s in t.get("split_type", [])):
        raise UnsupportedModelError("XGBoost categorical splits are not supported.")
    lc = np.asarray(t["left_children"], dtype=np.int64)
    rc = np.asarray(t["right_children"], dtype=np.int64)
    cond = np.asarray(t["split_conditions"], dtype=np.float32)
    leaf = lc < 0
    thr = np.nextafter(cond, np.float32(-np.inf)).astype(np.float64)
    v = np.zeros((len(lc), n_outputs))
    v[:, int(k) if n_outputs > 1 else 0] = np.where(leaf, cond.astype(np.float64), 0.0)
    return {
        "feature": np.where(leaf, -1, np.asarray(t["split_indices"], dtype=np.int64)),
        "threshold": thr,
        "missing_left": np.asarray(t["default_left"], dtype=bool),
        "left": lc,
        "right": rc,
        "value": v,
    }
