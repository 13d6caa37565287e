"""The explanation-shift test: a classifier two-sample test on per-row explanation values.

Mougan et al. [1]_ detect a shift that matters to the model without labels: explain every row
of both sides, then ask whether a classifier can tell the two sides' *explanations* apart. Here
the per-row explanation is label-free: the interventional attribution of feature ``j`` to row
``x``,

    ``phi_j(x) = f(x) - mean over background rows z of f(x with x_j := z_j)``,

the row's prediction minus the mean of its ICE curve over ``m`` background values of the
feature (:class:`~ixplain.methods.pdp.ICEFunction`, the PD/ICE code of :mod:`ixplain.methods`,
with the background values as the grid). For an additive model it is the interventional SHAP
value of ``j``. The background rows are drawn once from both sides' pooled rows with
``random_state`` and used for both sides (common random numbers), so identical rows get
identical attributions.

The test: label side a ``0`` and side b ``1``; a scikit-learn classifier (default: a shallow,
regularised ``HistGradientBoostingClassifier``) is cross-fitted (``cv`` stratified folds, shuffled with the
seed; for two models on the same rows a row's two attribution vectors share a fold, so the
classifier cannot recognise the row); the AUC of the held-out probabilities is the statistic.
Its p-value (one-sided, ``AUC > 0.5``):

* ``p_value="mann-whitney"`` (default): the Mann-Whitney normal approximation, ``AUC ~ N(1/2,
  (n_a + n_b + 1) / (12 n_a n_b))`` when the held-out scores carry no information about the
  side (each score is computed by a classifier that never saw its row);
* ``p_value="permutation"``: the side labels are permuted ``n_permutations`` times and the whole
  cross-fitting repeated; ``p = (1 + #{AUC_perm >= AUC}) / (1 + n_permutations)`` (exact
  level, ``n_permutations + 1`` fits of ``cv`` folds).

``feature_auc`` is the AUC of each feature's attribution alone (no classifier; the
Mann-Whitney statistic of the two sides' values, 0.5 = no difference): which attribution moved.

References
----------
.. [1] C. Mougan, K. Broelemann, D. Masip, G. Kasneci, T. Thiropanis, S. Staab, "Explanation
   shift: how did the distribution shift impact the model?", arXiv:2303.08081, 2023.
.. [2] D. Lopez-Paz, M. Oquab, "Revisiting classifier two-sample tests", ICLR 2017.
.. [3] H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
   stochastically larger than the other", Ann. Math. Statist. 18(1), 1947.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from .._random import keyed_generator, root_seed
from .._validation import check_int, check_options, param_error
from ..methods._engine import explain_rows
from ..methods._pd_brute import ICEFunction
from ..models import Model
from ..tabular import Table
from ._curves import _is_side, check_models, pandas_sides, pooled_table, resolve_features

__all__ = ["ShiftTest", "explanation_shift_test", "row_attributions"]

_OWNER = "explanation_shift_test"


@dataclass(frozen=True)
class ShiftTest:
    """Result of the explanation-shift test (classifier two-sample test on attributions).

    Attributes
    ----------
    auc : float
        Held-out AUC of the classifier telling side b's attributions from side a's (0.5: no
        difference).
    p_value : float
        One-sided p-value of ``AUC > 0.5`` (see ``method``).
    n_a, n_b : int
        Rows of each side.
    method : str
        How the p-value was computed, in words.
    features : tuple of str
        The attributed features (the classifier's inputs).
    feature_auc : ndarray of shape (n_features,)
        AUC of each feature's attribution alone (Mann-Whitney).
    settings : dict
        Classifier, folds, background size, seed.
    """

    auc: float
    p_value: float
    n_a: int
    n_b: int
    method: str
    features: tuple[str, ...] = ()
    feature_auc: np.ndarray = field(default_factory=lambda: np.zeros(0))
    settings: dict[str, Any] = field(default_factory=dict)

    def significant(self, level: float = 0.05) -> bool:
        """Whether ``p_value < level``."""
        return bool(self.p_value < level)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {"auc": float(self.auc), "p_value": float(self.p_value), "n_a": int(self.n_a),
                "n_b": int(self.n_b), "method": self.method, "features": list(self.features),
                "feature_auc": [float(v) for v in self.feature_auc],
                "settings": dict(self.settings)}


def row_attributions(model: Model, table: Table, features: list[str], background: Table,
                     memory_budget: int | None = None) -> np.ndarray:
    """Per-row interventional attributions ``phi_j(x)`` (module docstring), shape
    (n_rows, n_features).

    Parameters
    ----------
    model : Model
        One output.
    table : Table
        The rows to attribute.
    features : list of str
    background : Table
        ``m`` rows whose feature values form each feature's ICE grid.
    memory_budget : int, optional
        Bytes of model input per call.
    """
    from ..models import DEFAULT_MEMORY_BUDGET

    budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else memory_budget
    f = np.asarray(model.predict(table), dtype=np.float64)
    if f.ndim != 1:
        raise ValueError(f"{_OWNER}: the model has {f.shape[1]} outputs; attributions are "
                         "computed for one. Pass target= (a class of a multiclass classifier).")
    out = np.empty((table.n_rows, len(features)))
    for j, name in enumerate(features):
        fn = ICEFunction(model, [name], [np.asarray(background.column(name))],
                         memory_budget=budget)
        ice = explain_rows(fn, table, memory_budget=budget, keep_values=True).values
        assert ice is not None
        out[:, j] = f - ice[:, 0, :].mean(axis=1)
    return out


def mann_whitney_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """AUC of ``scores`` for ``labels == 1`` against ``labels == 0`` (ties count 1/2).

    Examples
    --------
    >>> mann_whitney_auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    0.75
    """
    from scipy.stats import rankdata

    ranks = rankdata(scores)
    n1 = int(labels.sum())
    n0 = len(labels) - n1
    return float((ranks[labels == 1].sum() - n1 * (n1 + 1) / 2) / (n0 * n1))


def _duplicates(Z: np.ndarray) -> np.ndarray | None:
    """Group ids of identical attribution rows, or None when all rows differ.

    Identical rows must share a fold: a row of side a held out while its copy from side b is
    in the training fold is scored as "side b", so a shared row would pull the held-out AUC
    below 0.5 (two identical tables gave AUC 0.14 before)."""
    _, inverse = np.unique(Z, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    return inverse if inverse.max(initial=-1) + 1 < len(Z) else None


def _shared_rows(Z: np.ndarray, labels: np.ndarray) -> int:
    """How many distinct attribution rows occur on both sides."""
    ids = _duplicates(Z)
    if ids is None:
        return 0
    return len(np.intersect1d(ids[labels == 0], ids[labels == 1]))


def _held_out_auc(Z: np.ndarray, labels: np.ndarray, groups: np.ndarray | None,
                  classifier: Any, cv: int, seed: int, n_jobs: int = 1) -> float:
    """AUC of cross-fitted probabilities (each row scored by a fit without its fold)."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    if groups is None and _duplicates(Z) is not None:
        groups = _duplicates(Z)  # (identical rows share a fold: see _duplicates)
    if groups is None:
        splits = StratifiedKFold(cv, shuffle=True, random_state=seed % 2**32).split(Z, labels)
    else:
        splits = StratifiedGroupKFold(cv, shuffle=True, random_state=seed % 2**32).split(
            Z, labels, groups)
    from threadpoolctl import threadpool_limits

    scores = np.empty(len(labels))
    with threadpool_limits(limits=n_jobs):  # (OpenMP on a busy machine: 30x slower unbounded)
        for train, test in splits:
            clf = clone(classifier).fit(Z[train], labels[train])
            scores[test] = clf.predict_proba(Z[test])[:, 1]
    return mann_whitney_auc(scores, labels)


def _default_classifier(seed: int) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    # shallow, slow and regularised: the held-out AUC of a few hundred rows per fold is not
    # spent on fitting noise in the unchanged features (measured: more power at the same level
    # than the library defaults on 300 + 300 rows)
    return HistGradientBoostingClassifier(max_iter=100, learning_rate=0.05, max_depth=3,
                                          min_samples_leaf=40, l2_regularization=1.0,
                                          random_state=seed % 2**32)


def _background(pooled: Table, size: int, seed: int) -> Table:
    rng = keyed_generator(seed, _OWNER, "background")
    n = pooled.n_rows
    return pooled.take(np.sort(rng.choice(n, size=min(size, n), replace=False)))


def explanation_shift_test(
    model_a: Any,
    X_a: Any,
    model_b: Any = None,
    X_b: Any = None,
    *,
    features: Any = None,
    classifier: Any = None,
    cv: int = 5,
    p_value: str = "mann-whitney",
    n_permutations: int = 99,
    background_size: int = 50,
    response_method: str = "auto",
    target: Any = None,
    n_jobs: int = 1,
    random_state: Any = None,
    values: dict[str, Any] | None = None,
) -> ShiftTest:
    """Do the two sides' per-row explanations differ? A classifier two-sample test (label-free).

    Parameters
    ----------
    model_a : estimator, Booster or callable
        The model explaining side a (see :func:`ixplain.as_model`).
    X_a : ndarray of shape (n_a, n_features), DataFrame or records
        Side a's rows (the reference period).
    model_b : estimator, Booster or callable, default=None
        The model explaining side b (default ``model_a``: one model, two datasets).
    X_b : like X_a, default=None
        Side b's rows (the current period); None: ``model_b`` on ``X_a``'s rows (a row's two
        attribution vectors then share a cross-validation fold).
    features : str or list of str, default=None
        The attributed features (default: all).
    classifier : scikit-learn classifier, default=None
        Any estimator with ``predict_proba`` (cloned per fold); default
        ``HistGradientBoostingClassifier(max_iter=100, learning_rate=0.05, max_depth=3,
        min_samples_leaf=40, l2_regularization=1.0)`` seeded (a linear classifier such as
        ``LogisticRegression()`` has more power for a shift of location and none for a change
        of spread).
    cv : int, default=5
        Folds of the cross-fitting (at least 2).
    p_value : {"mann-whitney", "permutation"}, default="mann-whitney"
        How the p-value of the held-out AUC is computed (module docstring).
    n_permutations : int, default=99
        Permutations with ``p_value="permutation"``.
    background_size : int, default=50
        Background rows (from both sides) whose values form each feature's ICE grid.
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, default="auto"
    target : object, default=None
        A class of a multiclass classifier.
    n_jobs : int, default=1
        Threads (OpenMP/BLAS) the classifier may use while fitted (``threadpoolctl``).
    random_state : int, Generator or None, default=None
        Seeds the background, the folds, the default classifier and the permutations.
    values : dict, optional
        Accepted for :func:`ixplain.compare`'s call ``explanation_shift_test(side_a, side_b,
        values={method: (rows_a, rows_b)}, features=names)`` and not used: compare's per-row
        values are influence values (each row's own loss increase plus its role as a
        replacement row of its own side, centred within the side), whose side-specific offsets
        a classifier detects without any shift (measured: held-out AUC 0.99 between the bike
        years' hours, 0.83 from ``holiday`` alone, against 0.55 with the attributions). The
        test always uses the attributions of the sides' models, with one background for both.

    Returns
    -------
    ShiftTest

    Raises
    ------
    ValueError
        For a bad parameter (named in the message), different columns on the two sides, fewer
        than ``cv`` rows on a side, a model with several outputs and no ``target``.
    ModelEvaluationError
        If a model fails on the rows.

    References
    ----------
    .. [1] C. Mougan et al., "Explanation shift: how did the distribution shift impact the
       model?", arXiv:2303.08081, 2023.
    .. [2] D. Lopez-Paz, M. Oquab, "Revisiting classifier two-sample tests", ICLR 2017.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> f = lambda A: A[:, 0] ** 2 + A[:, 1]
    >>> Xa, Xb = rng.normal(size=(300, 2)), rng.normal(size=(300, 2)) + [1.5, 0.0]
    >>> explanation_shift_test(f, Xa, X_b=Xb, random_state=0).p_value < 0.001
    True
    """
    if _is_side(model_a):  # compare()'s call: (side_a, side_b, values=..., features=...)
        return _from_sides(model_a, X_a, values=values, features=features,
                           classifier=classifier, cv=cv, p_value=p_value,
                           n_permutations=n_permutations, background_size=background_size,
                           n_jobs=n_jobs, random_state=random_state)
    cv, n_jobs, n_permutations, background_size = _check_common(
        cv, n_jobs, n_permutations, background_size, classifier, p_value)
    models = check_models(model_a, model_b, X_b, response_method, target, _OWNER)
    sides = pandas_sides(X_a, X_b, 2**28, _OWNER)
    seed = root_seed(random_state, _OWNER)
    feats = resolve_features(features, sides.head.names, sides.pooled, "pd", _OWNER)
    Z, labels, groups = _attributions(models, sides, X_b, feats, background_size, seed)
    return _run_test(Z, labels, groups, feats, classifier, cv, p_value, n_permutations, n_jobs,
                     seed, {"background_size": min(background_size, sides.pooled.n_rows),
                            "explanation": "interventional attribution f(x) - mean ICE(x)"})


def _check_common(cv: Any, n_jobs: Any, n_permutations: Any, background_size: Any,
                  classifier: Any, p_value: Any) -> tuple[int, int, int, int]:
    check_options(p_value, "p_value", _OWNER, ("mann-whitney", "permutation"))
    if classifier is not None and not hasattr(classifier, "predict_proba"):
        raise param_error(_OWNER, "classifier", "None or a scikit-learn classifier with "
                          "predict_proba", classifier, exc=TypeError)
    return (int(check_int(cv, "cv", _OWNER, min_value=2) or 2),
            int(check_int(n_jobs, "n_jobs", _OWNER, min_value=1) or 1),
            int(check_int(n_permutations, "n_permutations", _OWNER, min_value=1) or 1),
            int(check_int(background_size, "background_size", _OWNER, min_value=1) or 1))


def _from_sides(side_a: Any, side_b: Any, *, values: dict[str, Any] | None, features: Any,
                classifier: Any, cv: Any, p_value: str, n_permutations: Any,
                background_size: Any, n_jobs: Any, random_state: Any) -> ShiftTest:
    """The test on :func:`ixplain.compare`'s two sides (two datasets)."""
    cv, n_jobs, n_permutations, background_size = _check_common(
        cv, n_jobs, n_permutations, background_size, classifier, p_value)
    seed = root_seed(random_state, _OWNER)
    ta, tb = side_a.table, side_b.table
    feats = list(features) if features is not None else list(ta.names)
    del values  # (see the docstring: influence values are not comparable across sides)
    bg = _background(pooled_table(ta, tb), background_size, seed)
    Za = row_attributions(side_a.model, ta, feats, bg)
    Zb = row_attributions(side_b.model, tb, feats, bg)
    explanation = "interventional attribution f(x) - mean ICE(x)"
    Z = np.vstack([Za, Zb])
    labels = np.r_[np.zeros(len(Za), dtype=int), np.ones(len(Zb), dtype=int)]
    return _run_test(Z, labels, None, feats, classifier, cv, p_value, n_permutations, n_jobs,
                     seed, {"explanation": explanation})


def _run_test(Z: np.ndarray, labels: np.ndarray, groups: np.ndarray | None, feats: list[str],
              classifier: Any, cv: int, p_value: str, n_permutations: int, n_jobs: int,
              seed: int, settings: dict[str, Any]) -> ShiftTest:
    """Cross-fit the classifier on ``Z`` (rows, side labels) and test its held-out AUC."""
    for side, n in (("a", int((labels == 0).sum())), ("b", int(labels.sum()))):
        if n < cv:
            raise ValueError(f"{_OWNER}: side {side} has {n} rows; cv={cv} folds need at least "
                             f"{cv} rows on each side.")
    clf = _default_classifier(seed) if classifier is None else classifier
    auc = _held_out_auc(Z, labels, groups, clf, cv, seed, n_jobs)
    p, text = _p_value(auc, Z, labels, groups, clf, cv, seed, p_value, n_permutations, n_jobs)
    return ShiftTest(
        auc=auc, p_value=p, n_a=int((labels == 0).sum()), n_b=int(labels.sum()), method=text,
        features=tuple(feats),
        feature_auc=np.array([mann_whitney_auc(Z[:, j], labels) for j in range(len(feats))]),
        settings={"classifier": type(clf).__name__, "cv": cv,
                  "design": "paired" if groups is not None else "independent",
                  "rows_on_both_sides": 0 if groups is not None else _shared_rows(Z, labels),
                  **settings},
    )


def _attributions(models: tuple[Model, Model], sides: Any, X_b: Any,
                  feats: list[str], background_size: int,
                  seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    ta, tb = sides.tables["a"], sides.tables["b"]
    bg = _background(sides.pooled, background_size, seed)
    Za = row_attributions(models[0], ta, feats, bg)
    Zb = row_attributions(models[1], tb, feats, bg)
    labels = np.r_[np.zeros(len(Za), dtype=int), np.ones(len(Zb), dtype=int)]
    groups = None if X_b is not None else np.r_[np.arange(len(Za)), np.arange(len(Zb))]
    return np.vstack([Za, Zb]), labels, groups


def _p_value(auc: float, Z: np.ndarray, labels: np.ndarray, groups: np.ndarray | None,
             clf: Any, cv: int, seed: int, how: str, n_permutations: int,
             n_jobs: int) -> tuple[float, str]:
    n1 = int(labels.sum())
    n0 = len(labels) - n1
    if how == "mann-whitney":
        sd = np.sqrt((n0 + n1 + 1) / (12.0 * n0 * n1))
        p = 1.0 - NormalDist().cdf((auc - 0.5) / sd)
        return float(p), ("one-sided Mann-Whitney normal approximation of the held-out AUC "
                          f"({cv}-fold cross-fitted {type(clf).__name__})")
    rng = keyed_generator(seed, _OWNER, "permutations")
    exceed = 0
    for _ in range(n_permutations):
        perm = _permuted(labels, groups, rng)
        exceed += _held_out_auc(Z, perm, groups, clf, cv, seed, n_jobs) >= auc
    return ((1.0 + exceed) / (1.0 + n_permutations),
            f"permutation test of the held-out AUC ({n_permutations} label permutations, "
            f"{cv}-fold cross-fitted {type(clf).__name__})")


def _permuted(labels: np.ndarray, groups: np.ndarray | None,
              rng: np.random.Generator) -> np.ndarray:
    """Side labels permuted (paired rows: each row's two labels swapped with probability 1/2)."""
    if groups is None:
        return rng.permutation(labels)
    n = len(labels) // 2
    swap = rng.random(n) < 0.5
    first = np.where(swap, 1, 0)
    return np.r_[first, 1 - first]
