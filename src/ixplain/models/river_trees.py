"""Batch evaluation of River's Hoeffding trees, equal float for float to their ``*_one`` methods.

River's :class:`~river.tree.HoeffdingTreeClassifier` and :class:`~river.tree.HoeffdingTreeRegressor`
have no ``predict_proba_many``/``predict_many``; :class:`~ixplain.models.RiverModel` would call
``predict_proba_one``/``predict_one`` once per row. :func:`predict_river_tree` instead groups the
rows of a batch by the leaf they reach (a flat loop over River's branch tests instead of River's
recursive generators), evaluates a leaf whose prediction does not depend on ``x`` (majority
class, mean, adaptive leaves currently using those) once per batch, and evaluates naive Bayes
leaves with each feature's class-conditional log-probability computed by River's own splitter
once per distinct value in the batch, added in River's order, followed by River's log-sum-exp
with :mod:`math` (so the floats are identical). Linear-model leaves of the regressor call the
leaf's own ``prediction`` per row (the traversal is still shared). The explainers' batches
(an observation and copies of it with one feature replaced) repeat values heavily, which is what
the per-value evaluation exploits. The loops are plain Python on purpose: the batches of the
incremental explainers are small (tens of rows), where numpy's per-call overhead dominates.

Only River versions listed in ``VERIFIED_RIVER_VERSIONS`` (whose source this module follows) take
the batch path. Nothing is cached across calls: the tree is read afresh on every call, so learning between calls
is always reflected. Anything not recognised (other tree classes, subclasses, unknown node or leaf
types, non-numeric values at a numeric split, ...) makes :func:`predict_river_tree` return
``None`` and the caller falls back to the per-row path, which then raises River's own error if
there is one.

References
----------
.. [1] Domingos, P. and Hulten, G. (2000). Mining high-speed data streams. In *Proceedings of the
   6th ACM SIGKDD International Conference on Knowledge Discovery and Data Mining*, 71-80.
.. [2] Montiel, J. et al. (2021). River: machine learning for streaming data in Python. *Journal of
   Machine Learning Research*, 22(110), 1-8.
"""

from __future__ import annotations

import math
import sys
from operator import add as _add
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = ["predict_river_tree"]

#: River versions whose tree code this module reproduces (read from River 0.26.1's source:
#: ``tree/base.py`` walk, ``nodes/branch.py``, ``nodes/htc_nodes.py``, ``nodes/htr_nodes.py``,
#: ``tree/utils.py`` naive Bayes, ``proba/gaussian.py`` log-pdf). Other versions: per-row path.
VERIFIED_RIVER_VERSIONS = ("0.26.1",)

_MISSING = object()
_RIVER: SimpleNamespace | None = None


def _river() -> SimpleNamespace:
    """River's classes used here, imported once (River is an optional dependency)."""
    global _RIVER
    if _RIVER is None:
        import river
        from river import stats, tree
        from river.base import Classifier
        from river.proba import Gaussian
        from river.proba.gaussian import _HALF_LOG_TAU
        from river.tree.nodes import branch, htc_nodes, htr_nodes
        from river.tree.nodes.leaf import HTLeaf
        from river.tree.splitter import GaussianSplitter

        _RIVER = SimpleNamespace(
            version=river.__version__,
            HoeffdingTreeClassifier=tree.HoeffdingTreeClassifier,
            HoeffdingTreeRegressor=tree.HoeffdingTreeRegressor,
            Classifier=Classifier,
            Gaussian=Gaussian,
            GaussianSplitter=GaussianSplitter,
            Var=stats.Var,
            Mean=stats.Mean,
            half_log_tau=_HALF_LOG_TAU,
            DTBranch=branch.DTBranch,
            NumericBinaryBranch=branch.NumericBinaryBranch,
            NominalBinaryBranch=branch.NominalBinaryBranch,
            NumericMultiwayBranch=branch.NumericMultiwayBranch,
            NominalMultiwayBranch=branch.NominalMultiwayBranch,
            HTLeaf=HTLeaf,
            LeafMajorityClass=htc_nodes.LeafMajorityClass,
            LeafNaiveBayes=htc_nodes.LeafNaiveBayes,
            LeafNaiveBayesAdaptive=htc_nodes.LeafNaiveBayesAdaptive,
            LeafMean=htr_nodes.LeafMean,
            LeafModel=htr_nodes.LeafModel,
            LeafAdaptive=htr_nodes.LeafAdaptive,
        )
    return _RIVER


class _Unsupported(Exception):
    """A node or leaf type this module does not know: use the per-row path."""


def _tree_kind(model: Any) -> str | None:
    """'classifier' / 'regressor' for exactly-supported River tree classes, else None."""
    if not type(model).__module__.startswith("river."):
        return None
    # the version first: another River may lack the internals _river() imports, and a failed
    # import is retried (about 5 us) on every call
    river = sys.modules.get("river")
    if getattr(river, "__version__", None) not in VERIFIED_RIVER_VERSIONS:
        return None
    try:
        r = _river()
    except ImportError:  # pragma: no cover - a River without the internals used here
        return None
    if type(model) is r.HoeffdingTreeClassifier:
        return "classifier"
    if type(model) is r.HoeffdingTreeRegressor:
        return "regressor"
    return None


def _group_by_leaf(root: Any, records: list[dict]) -> list[tuple[Any, list[int]]]:
    """Row indices grouped by the leaf River's ``Branch.traverse(x, until_leaf=True)`` reaches.

    River's ``walk`` answers a ``KeyError`` at a branch (feature absent from ``x``, or a multiway
    value/slot without a child) by following ``most_common_path()``; that path is read once per
    call (it changes as the tree learns, so it is never kept across calls).
    """
    r = _river()
    DTBranch = r.DTBranch
    NumericBinaryBranch, NominalBinaryBranch = r.NumericBinaryBranch, r.NominalBinaryBranch
    NumericMultiwayBranch, NominalMultiwayBranch = r.NumericMultiwayBranch, r.NominalMultiwayBranch

    if not isinstance(root, DTBranch):
        return [(root, list(range(len(records))))]
    floor = math.floor
    branch_types = {
        NumericBinaryBranch, NominalBinaryBranch, NumericMultiwayBranch, NominalMultiwayBranch
    }
    common: dict[int, int] = {}

    def most_common(node: Any) -> int:
        pos = common.get(id(node))
        if pos is None:
            pos = common[id(node)] = node.most_common_path()[0]
        return pos

    groups: dict[int, tuple[Any, list[int]]] = {}
    for i, x in enumerate(records):
        node: Any = root
        # exact types only: anything else (a leaf, or an unknown branch) ends the walk and is
        # checked by the caller against the leaf types it knows
        while (kind := type(node)) in branch_types:
            v = x.get(node.feature, _MISSING)
            if v is _MISSING:
                child = most_common(node)
            elif kind is NumericBinaryBranch:
                child = 0 if v <= node.threshold else 1
            elif kind is NominalBinaryBranch:
                child = 0 if v == node.value else 1
            elif kind is NumericMultiwayBranch:
                child = node._mapping.get(floor(v / node.radius), -1)
                if child < 0:
                    child = most_common(node)
            else:  # NominalMultiwayBranch
                child = node._mapping.get(v, -1)
                if child < 0:
                    child = most_common(node)
            node = node.children[child]
        hit = groups.get(id(node))
        if hit is None:
            groups[id(node)] = (node, [i])
        else:
            hit[1].append(i)
    return list(groups.values())


def _gaussian_params(obs: Any, classes: list) -> list | None:
    """Per class, ``(mu, -2 * variance, 0.5 * log(variance))`` of a ``GaussianSplitter``'s
    estimate (``None`` where ``cond_log_proba`` is ``-inf`` whatever the value); ``None`` if
    ``obs`` or its estimators are not exactly River's ``GaussianSplitter``/``Gaussian``/``Var``.

    Read at call time, never kept: the estimates move with every ``learn_one``.
    """
    r = _river()
    if type(obs) is not r.GaussianSplitter:
        return None
    params: list = []
    for c in classes:
        dist = obs._att_dist_per_class.get(c)
        if dist is None:
            params.append(None)
            continue
        var = dist._var
        if type(dist) is not r.Gaussian or type(var) is not r.Var:
            return None
        if type(var.mean) is not r.Mean:
            return None
        n = var.mean.n
        variance = var._S / (n - var.ddof) if n > var.ddof else 0.0
        if not variance > 0.0:
            params.append(None)
            continue
        params.append((var.mean._mean, -2.0 * variance, 0.5 * math.log(variance)))
    return params


def _naive_bayes(stats: dict, splitters: dict | None, xs: list[dict]) -> tuple[list, list[list]]:
    """River's ``do_naive_bayes_prediction`` over many records: (class keys, rows of probas).

    The same operations in the same order per class (prior log, then each observed feature's
    ``cond_log_proba`` added in ``splitters`` order, then the log-sum-exp with :mod:`math`), so
    the floats are identical; each feature's log-probabilities are computed once per distinct
    value (the perturbed batches of the explainers repeat values heavily).
    """
    total_weight = sum(stats.values())
    if not stats or total_weight == 0:
        return [], [[] for _ in xs]
    keys = list(stats)
    # classes without weight keep River's vote 0.0: they get 0.0 added (exact, as x + 0.0 == x)
    prior = [math.log(w / total_weight) if w > 0 else 0.0 for w in stats.values()]
    is_active = [w > 0 for w in stats.values()]
    half_log_tau = _river().half_log_tau
    observers: list[tuple[Any, dict, Any]] = [
        (att, {}, _contributions(obs, keys, is_active, half_log_tau))
        for att, obs in (splitters or {}).items()
    ]
    return keys, [_normalise_log_votes(v) for v in _log_votes(prior, observers, xs)]


def _contributions(obs: Any, keys: list, is_active: list[bool], half_log_tau: float) -> Any:
    """value -> per-class summand (0.0 where River adds nothing), as River computes it."""
    inf = math.inf
    gauss = _gaussian_params(obs, keys)
    if gauss is not None:  # GaussianSplitter: Gaussian.log_pdf's formula, inlined
        # None for a class River adds nothing for (no density, or no weight)
        params = [g if act else None for g, act in zip(gauss, is_active)]

        def f_gauss(v: Any) -> list:
            out = [0.0 if g is None else (v - g[0]) ** 2 / g[1] - half_log_tau - g[2]
                   for g in params]
            if not sum(out) > -inf:  # a -inf or NaN term: River adds nothing for it
                out = [lp if lp > -inf else 0.0 for lp in out]
            return out

        return f_gauss
    log_proba = getattr(obs, "cond_log_proba", None)
    if log_proba is not None:
        def f_log(v: Any) -> list:
            out = []
            for c, act in zip(keys, is_active):
                lp = log_proba(v, c) if act else 0.0
                out.append(lp if lp > -inf else 0.0)
            return out

        return f_log

    def f_proba(v: Any) -> list:
        out = []
        for c, act in zip(keys, is_active):
            p = obs.cond_proba(v, c) if act else 0.0
            out.append(math.log(p) if p > 0 else 0.0)
        return out

    return f_proba


def _log_votes(prior: list, observers: list[tuple[Any, dict, Any]], xs: list[dict]) -> list[list]:
    """Per record: the prior plus each observer's contribution, in observer order.

    The votes after the first k observers depend only on the first k values: a record that
    shares them with the anchor record starts from the anchor's partial sums (the same
    additions in the same order, so the same floats). The explainers' batches are an
    observation and copies of it with one value replaced, so about half the sums are shared.
    """
    atts = [att for att, _, _ in observers]
    n_obs = len(observers)
    anchor: list = []
    partial: list[list] = []
    out = []
    for x in xs:
        values = [x.get(att, _MISSING) for att in atts]
        k = 0
        if anchor:
            while k < n_obs and (values[k] is anchor[k] or (values[k] == anchor[k]) is True):
                k += 1
        new_anchor = k == 0
        if new_anchor:
            anchor, partial = values, [prior]
        votes = partial[k]
        for j in range(k, n_obs):
            v = values[j]
            if v is not _MISSING:
                _, memo, compute = observers[j]
                contrib = memo.get(v)
                if contrib is None:
                    contrib = memo[v] = compute(v)
                votes = list(map(_add, votes, contrib))
            if new_anchor:
                partial.append(votes)
        out.append(votes)
    return out


def _normalise_log_votes(votes: list) -> list:
    """Probabilities from log votes: River's log-sum-exp with :mod:`math`."""
    exp, log = math.exp, math.log
    max_ll = max(votes)
    lse = max_ll + log(sum(exp(v - max_ll) for v in votes))
    return [exp(v - lse) for v in votes]


def _majority_class(stats: dict) -> dict:
    """``LeafMajorityClass.prediction``: River's ``normalize_values_in_dict(stats, inplace=False)``."""
    factor = sum(stats.values())
    if factor == 0 or math.isnan(factor):
        return dict(stats)
    multiplier = 1 / factor
    return {k: v * multiplier for k, v in stats.items()}


def _leaf_parts(model: Any, records: list[dict]) -> list[tuple[list[int], list, list[list]]]:
    """Per reached leaf: (row indices, class keys, one list of probabilities per row).

    Rows of a leaf whose prediction does not depend on ``x`` share one list object.
    """
    r = _river()
    LeafMajorityClass, LeafNaiveBayes = r.LeafMajorityClass, r.LeafNaiveBayes
    LeafNaiveBayesAdaptive = r.LeafNaiveBayesAdaptive

    parts = []
    for leaf, rows in _group_by_leaf(model._root, records):
        kind = type(leaf)
        if kind is LeafNaiveBayes:
            uses_nb = leaf.is_active() and leaf.total_weight >= model.nb_threshold
        elif kind is LeafNaiveBayesAdaptive:
            uses_nb = leaf.is_active() and leaf._nb_correct_weight >= leaf._mc_correct_weight
        elif kind is LeafMajorityClass:
            uses_nb = False
        else:
            raise _Unsupported(kind.__name__)
        if uses_nb:
            ks, values = _naive_bayes(leaf.stats, leaf.splitters, [records[i] for i in rows])
        else:  # majority class: does not depend on x
            d = _majority_class(leaf.stats)
            ks = list(d)
            values = [[d[k] for k in ks]] * len(rows)
        parts.append((rows, ks, values))
    return parts


def _classifier(model: Any, records: list[dict]) -> tuple[list, np.ndarray]:
    n = len(records)
    keys: list = sorted(model.classes)
    if model._root is None:
        return keys, np.zeros((n, len(keys)))
    parts = _leaf_parts(model, records)
    for _, ks, _ in parts:
        keys.extend(k for k in ks if k not in keys)
    position = {k: j for j, k in enumerate(keys)}
    zero = [0.0] * len(keys)
    table: list[list[float]] = [zero] * n
    for rows, ks, values in parts:
        if ks == keys:
            for i, v in zip(rows, values):
                table[i] = v
            continue
        cols = [position[k] for k in ks]
        shared = None
        for i, v in zip(rows, values):
            if shared is not None and v is shared[0]:
                table[i] = shared[1]
                continue
            full = zero.copy()
            for j, p in zip(cols, v):
                full[j] = p
            table[i] = full
            shared = (v, full)
    return keys, np.array(table, dtype=np.float64).reshape(n, len(keys))


def _first_argmax(proba: dict) -> Any:
    return max(proba, key=proba.__getitem__) if proba else None


def _labels(model: Any, records: list[dict]) -> np.ndarray:
    """River's ``Classifier.predict_one``: ``max(proba, key=proba.get)``, None if empty."""
    if type(model).predict_one is not _river().Classifier.predict_one:
        raise _Unsupported("predict_one is overridden")
    out = np.empty(len(records), dtype=object)
    template = dict.fromkeys(sorted(model.classes), 0.0)
    if model._root is None:
        out[:] = _first_argmax(template)
        return out
    labels: list[Any] = [None] * len(records)
    for rows, ks, values in _leaf_parts(model, records):
        last: Any = None
        label: Any = None
        for i, v in zip(rows, values):
            if v is not last:  # rows of a majority-class leaf share one list: one max per leaf
                proba = template.copy()
                proba.update(zip(ks, v))
                label = _first_argmax(proba)
                last = v
            labels[i] = label
    for i, label in enumerate(labels):  # element-wise: a label may be a tuple
        out[i] = label
    return out


def _regressor(model: Any, records: list[dict]) -> np.ndarray:
    r = _river()
    LeafAdaptive, LeafMean, LeafModel = r.LeafAdaptive, r.LeafMean, r.LeafModel

    n = len(records)
    out = np.zeros(n)
    if model._root is None:
        return out
    for leaf, rows in _group_by_leaf(model._root, records):
        kind = type(leaf)
        if kind is LeafMean or (kind is LeafAdaptive and leaf._fmse_mean < leaf._fmse_model):
            out[rows] = leaf.prediction(records[rows[0]], tree=model)  # the leaf's mean
        elif kind is LeafModel or kind is LeafAdaptive:  # a model of x: the leaf's own, per row
            out[rows] = [leaf.prediction(records[i], tree=model) for i in rows]
        else:
            raise _Unsupported(kind.__name__)
    return out


def predict_river_tree(model: Any, records: list[dict], method: str) -> Any:
    """Evaluate a River Hoeffding tree on many records at once, exactly as its ``*_one`` method.

    Parameters
    ----------
    model : river.tree.HoeffdingTreeClassifier or river.tree.HoeffdingTreeRegressor
        Any other object (including subclasses such as the adaptive trees) is not handled.
    records : list of dict
        Feature records, as ``predict_proba_one``/``predict_one`` take them; keys may be missing
        (River then follows the most common path at that branch).
    method : {"predict_proba_one", "predict_one"}
        The River method to reproduce (``predict_one`` of the classifier gives labels).

    Returns
    -------
    result : tuple (classes, ndarray of shape (n, k)), ndarray of shape (n,) or None
        For the classifier, the class keys (River's sorted ``classes``, then any other key a leaf
        answers with) and the probabilities in that column order; absent keys are 0.0, as in
        ``predict_proba_one``. For ``predict_one``, the labels (object array) of the classifier or
        the predictions (float array) of the regressor. ``None`` when the model, a node, a leaf or
        a value is not recognised: evaluate per row instead.

    References
    ----------
    .. [1] Domingos, P. and Hulten, G. (2000). Mining high-speed data streams. *KDD 2000*, 71-80.
    .. [2] Montiel, J. et al. (2021). River: machine learning for streaming data in Python. *JMLR*,
       22(110), 1-8.

    Examples
    --------
    >>> from river import tree
    >>> from ixplain.models import as_model
    >>> from ixplain.tabular import as_table
    >>> m = tree.HoeffdingTreeClassifier(grace_period=5)
    >>> for i in range(40):
    ...     m.learn_one({"a": float(i)}, i >= 20)
    >>> X = [{"a": 3.0}, {"a": 33.0}, {"a": 20.5}]
    >>> p = as_model(m).predict(as_table(X))  # RiverModel uses predict_river_tree
    >>> bool((p == [m.predict_proba_one(x)[True] for x in X]).all())
    True
    >>> predict_river_tree(object(), X, "predict_one") is None
    True
    """
    kind = _tree_kind(model)
    if not records:
        return None
    try:
        if kind == "classifier" and method == "predict_proba_one":
            return _classifier(model, records)
        if kind == "classifier" and method == "predict_one":
            return _labels(model, records)
        if kind == "regressor" and method == "predict_one":
            return _regressor(model, records)
    except Exception:  # anything unexpected: the per-row path decides (and raises River's error)
        return None
    return None
