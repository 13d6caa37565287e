"""``compare``: explain the change between two models, two datasets, or both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._random import keyed_generator, root_seed
from .._validation import ModelEvaluationError, check_float, check_int, param_error
from ..losses import Loss, get_loss
from ..methods._sage_core import resolve_players
from ..models import Model, as_model
from ..tabular import Table, as_table
from ._curves import curve_changes
from ._discrepancy import squared_discrepancy
from ._importance import Side, label_free_loss, label_free_side, pfi_rows, sage_rows
from ._interactions import pair_rows
from ._result import ChangeExplanation, ImportanceChange, RankingChange
from ._shift import explanation_shift_test
from ._stats import (
    Draws,
    bootstrap_weights,
    holm,
    independent_change,
    kendall_tau,
    ndcg_at_k,
    paired_change,
    percentile_interval,
)

__all__ = ["compare"]

_OWNER = "compare"
IMPORTANCE_METHODS = ("pfi", "sage")
CURVE_METHODS = ("pd", "ale")
METHODS = IMPORTANCE_METHODS + CURVE_METHODS + ("shift", "interactions")


def compare(
    model_a: Any,
    X_a: Any,
    y_a: Any = None,
    *,
    model_b: Any = None,
    X_b: Any = None,
    y_b: Any = None,
    methods: Sequence[str] = ("pfi",),
    features: Sequence[Any] | None = None,
    loss: Any = None,
    n_repeats: int = 5,
    confidence: float = 0.95,
    family_level: float = 0.05,
    min_change: float = 0.0,
    top_k: int = 5,
    label_free: bool = False,
    n_samples: Any = "auto",
    n_bootstrap: int = 200,
    random_state: Any = None,
) -> ChangeExplanation:
    """Explain what changed between two models, two datasets, or both: per-feature importance
    deltas ``b - a`` with paired intervals and a family-wise test.

    Side a is ``(model_a, X_a, y_a)``; side b replaces the model (``model_b``), the data
    (``X_b``, ``y_b``) or both. With one dataset (``X_b`` not given) both models are explained
    on the same rows with the same random numbers (**common random numbers**: the same PFI
    replacement rows, SAGE orders and background draws for row ``i`` on both sides), so the
    per-row differences are paired and the interval is a Student t interval on them (``n - 1``
    degrees of freedom). With two datasets the sides are independent samples (Welch's t).
    PFI's replacement rows are rows of the same side, so each row's value counts both its roles
    (explained row and replacement of others: ``ixplain.change._importance.pfi_rows``); SAGE's
    values treat its background (at most 512 rows of the side) as fixed.
    Significance: the null ``|delta| <= min_change`` per feature, p-values adjusted with
    **Holm's** step-down procedure across the features of each method, so the probability of
    any false finding among them is at most ``family_level``. The intervals are pointwise at
    ``confidence``.

    Parameters
    ----------
    model_a : estimator, River model, Booster, callable or Model
        The reference model (anything :func:`ixplain.as_model` accepts).
    X_a : array-like of shape (n_a, n_features), DataFrame or records
        The reference rows.
    y_a : array-like of shape (n_a,), optional
        Their labels (not needed with ``label_free=True``). A pandas ``y_a`` whose index
        holds the same labels as a DataFrame ``X_a``'s in another order is aligned to it by
        index; different labels are refused (pass ``y_a.to_numpy()`` to pair by position).
    model_b : optional
        The other model (default: ``model_a``, i.e. two datasets, one model).
    X_b : array-like of shape (n_b, n_features), optional
        The other rows (default: ``X_a``, i.e. two models on the same rows). Same columns as
        ``X_a`` (any order).
    y_b : array-like of shape (n_b,), optional
        Labels of ``X_b``, aligned as ``y_a``. Required whenever ``X_b`` is given (also when
        it is ``X_a`` itself, which keeps the paired design with side b's loss on ``y_b``),
        unless ``label_free``.

        Dask collections are accepted for ``X_a``, ``y_a``, ``X_b`` and ``y_b`` and are gathered
        into memory first (a Dask DataFrame keeps its column names, and a Dask side may meet a
        pandas side); for data that does not fit, use
        :func:`ixplain.change.compare_dask`.
    methods : sequence of str, default=("pfi",)
        ``"pfi"`` and ``"sage"`` (importance deltas), ``"pd"``/``"ale"`` (curve deltas,
        ``ixplain.change._curves``), ``"shift"`` (explanation-shift test,
        ``ixplain.change._shift``; needs ``X_b``), ``"interactions"`` (the change of the
        pairwise Shapley interaction index of the loss game per pair ``"a x b"`` among the
        5 features of largest main effect, keyed ``"interactions"`` in ``importance``:
        ``ixplain.change._interactions``).
    features : sequence of str or of lists of str, optional
        Features (or groups, given as lists; named by joining with ``"+"``) to explain.
        Default: every column.
    loss : str, Loss or callable, optional
        Per-row loss (:func:`ixplain.get_loss`), applied to both models. Default:
        ``"log_loss"`` for classifiers, ``"squared_error"`` otherwise. Not allowed with
        ``label_free``. A classifier and a regressor (the model adapters' ``is_classifier``)
        have no common default: comparing them needs an explicit loss that fits both
        models' outputs (e.g. ``"squared_error"`` on 0/1 labels with probabilities on one
        side), so they cannot be compared with ``label_free``.
    n_repeats : int, default=5
        PFI replacement draws per row and feature.
    confidence : float in (0, 1), default=0.95
        Coverage of the pointwise intervals.
    family_level : float in (0, 1), default=0.05
        Family-wise error rate of the significance flags (Holm, per method).
    min_change : float >= 0, default=0.0
        Changes of at most this size (loss units) count as no change in the test.
    top_k : int >= 1, default=5
        Ranks counted by NDCG@k.
    label_free : bool, default=False
        Prediction-sensitivity importance: the loss is the squared change of each model's own
        prediction, ``(f(x with x_S replaced) - f(x))^2``; no labels needed.
    n_samples : int, None or "auto", default="auto"
        SAGE's background draws per coalition (as :func:`ixplain.sage`).
    n_bootstrap : int >= 10, default=200
        Bootstrap resamples of the rows for the ranking intervals.
    random_state : None, int or numpy.random.Generator
        One seed for every draw; the two sides share it (that is what pairs them).

    Returns
    -------
    ChangeExplanation

    Raises
    ------
    ValueError
        If a model fails on rows holding missing or infinite values (naming the column, the
        count and the first row), if one model is a classifier and the other a regressor while ``loss`` is None (naming
        both), if neither ``model_b`` nor ``X_b`` is given, the sides' columns differ (naming them),
        labels are missing without ``label_free``, lengths mismatch, or a parameter is out of
        range (the message names it).
    NotImplementedError
        For ``"pd"``, ``"ale"`` or ``"shift"`` when their modules are missing from the build.

    References
    ----------
    M. Muschalik, F. Fumagalli, B. Hammer, E. Huellermeier, "Agnostic Explanation of Model
    Change based on Feature Importance", KI - Kuenstliche Intelligenz 36, 2022.
    S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6,
    1979.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import compare
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3))
    >>> old = lambda A: 2 * A[:, 0] + A[:, 1]
    >>> new = lambda A: 2 * A[:, 0] + A[:, 2]
    >>> res = compare(old, X, model_b=new, label_free=True, random_state=0)
    >>> res.to_frame()[["feature", "significant"]].values.tolist()
    [['x0', False], ['x1', True], ['x2', True]]
    """
    opts = _check_options(methods, confidence, family_level, min_change, top_k, n_repeats,
                          n_bootstrap, label_free, loss)
    seed = root_seed(random_state, _OWNER)
    opts["two_models"] = model_b is not None and model_b is not model_a
    side_a, side_b, paired, loss_obj = _sides(model_a, X_a, y_a, model_b, X_b, y_b, loss,
                                              bool(label_free))
    try:
        return _explain(opts, side_a, side_b, paired, loss_obj, features, n_repeats,
                        n_samples, seed)
    except ModelEvaluationError as exc:
        bad = bad_cells(side_a.table, "X_a") or (None if paired else
                                                 bad_cells(side_b.table, "X_b"))
        if bad is None:
            raise
        raise ValueError(f"compare: {bad}, and the model failed on the rows "
                         f"({str(exc).splitlines()[0]}); drop or fill them.") from exc


def _explain(opts: dict[str, Any], side_a: Side, side_b: Side, paired: bool, loss_obj: Loss,
             features: Any, n_repeats: int, n_samples: Any, seed: int) -> ChangeExplanation:
    """:func:`compare`'s work on validated sides."""
    names, groups = _features(side_a.table, features)
    result = ChangeExplanation(settings=_settings(opts, names, loss_obj, seed, paired,
                                                  side_a, side_b, n_samples))
    values: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for m in opts["methods"]:
        if m in IMPORTANCE_METHODS:
            va, vb, draws = _method_rows(m, side_a, side_b, loss_obj, names, groups,
                                         n_repeats, n_samples, seed)
            values[m] = (va, vb)
            result.importance[m] = _importance_change(m, names, va, vb, paired, opts, draws)
            result.ranking[m] = _ranking(m, names, va, vb, paired, opts,
                                         keyed_generator(seed, "compare-bootstrap", m))
        elif m == "interactions":  # per pair (ixplain.change._interactions)
            pairs, va, vb, notes = pair_rows(side_a, side_b, loss_obj, names, groups,
                                             n_samples, seed)
            result.importance[m] = _importance_change(m, pairs, va, vb, paired, opts)
            result.notes += notes
    if result.settings["two_models"]:
        result.discrepancy = squared_discrepancy(side_a.model, side_b.model, side_b.table,
                                                 confidence=opts["confidence"])
    _front_parts(result, opts, side_a, side_b, paired, names, groups, values, seed)
    return result


def _check_options(methods: Any, confidence: Any, family_level: Any, min_change: Any,
                   top_k: Any, n_repeats: Any, n_bootstrap: Any, label_free: Any,
                   loss: Any) -> dict[str, Any]:
    """Validated options (the error names the parameter and the value)."""
    if isinstance(methods, str):
        methods = (methods,)
    try:
        ms = [str(m) for m in methods]
    except TypeError:
        raise param_error(_OWNER, "methods", f"a sequence of names from {list(METHODS)}",
                          methods, exc=TypeError) from None
    if not ms or any(m not in METHODS for m in ms) or len(set(ms)) != len(ms):
        raise param_error(_OWNER, "methods", f"a non-empty sequence of distinct names from "
                          f"{list(METHODS)}", methods)
    if not isinstance(label_free, (bool, np.bool_)):
        raise param_error(_OWNER, "label_free", "a bool", label_free, exc=TypeError)
    if label_free and loss is not None:
        raise param_error(_OWNER, "loss", "None with label_free=True (the loss is the squared "
                          "change of the model's own prediction)", loss)
    return {
        "methods": ms,
        "confidence": check_float(confidence, "confidence", _OWNER, low=0.0, high=1.0,
                                  low_inclusive=False, high_inclusive=False),
        "family_level": check_float(family_level, "family_level", _OWNER, low=0.0, high=1.0,
                                    low_inclusive=False, high_inclusive=False),
        "min_change": check_float(min_change, "min_change", _OWNER, low=0.0),
        "top_k": check_int(top_k, "top_k", _OWNER, min_value=1),
        "n_repeats": check_int(n_repeats, "n_repeats", _OWNER, min_value=1),
        "n_bootstrap": check_int(n_bootstrap, "n_bootstrap", _OWNER, min_value=10),
        "label_free": bool(label_free),
    }


def _labels(y: Any, table: Table, what: str, x_name: str) -> np.ndarray:
    """``y`` as an array of ``table.n_rows`` finite targets (errors name both arguments)."""
    arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if arr.ndim == 0 or arr.shape[0] != table.n_rows:
        raise ValueError(f"compare: {x_name} has {table.n_rows} rows but {what} has shape "
                         f"{arr.shape}; they must have the same number of rows.")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"compare: {what} contains NaN or infinite values; drop or fill them.")
    return arr


def _second_table(X_b: Any, table_a: Table) -> Table:
    """``X_b`` as a Table in ``table_a``'s column order; mismatched columns are named."""
    width = np.shape(X_b)[-1] if isinstance(X_b, np.ndarray) and np.ndim(X_b) == 2 else None
    if width is not None and width != len(table_a.names):
        raise ValueError(f"compare: X_a has {len(table_a.names)} columns {list(table_a.names)} "
                         f"but X_b has {width}.")
    names = list(table_a.names) if width is not None else None
    table_b = as_table(X_b, feature_names=names, owner=_OWNER)
    only_a = [n for n in table_a.names if n not in table_b.names]
    only_b = [n for n in table_b.names if n not in table_a.names]
    if only_a or only_b:
        raise ValueError(f"compare: X_a and X_b have different columns: only in X_a: {only_a}; "
                         f"only in X_b: {only_b}.")
    return table_b.select(table_a.names)


def bad_cells(table: Table, what: str) -> str | None:
    """A sentence naming the first numeric column of ``table`` with missing or infinite
    values (their count and the first one's row, counted from 0), or None when all are finite.

    Used to explain a model's failure on such rows (``compare`` and ``ixplain compare``)."""
    for name in table.names:
        if table.schema.kind(name) != "numeric":
            continue
        x = np.asarray(table.numeric_column(name), dtype=float)
        bad = ~np.isfinite(x)
        if bad.any():
            i = int(np.argmax(bad))
            return (f"{what} column {name!r} has {int(bad.sum())} missing or infinite "
                    f"value(s), the first ({float(x[i])}) in row {i}")
    return None


def _aligned(y: Any, X: Any, y_name: str, x_name: str) -> Any:
    """``y`` in ``X``'s row order when both are pandas objects with different indexes of the
    same labels; a ValueError naming both when their labels differ; else ``y`` unchanged."""
    ix, iy = getattr(X, "index", None), getattr(y, "index", None)
    if y is None or not hasattr(X, "columns") or ix is None or iy is None or ix.equals(iy):
        return y
    if ix.is_unique and iy.is_unique and len(ix) == len(iy) and ix.isin(iy).all():
        return y.loc[ix]
    only = [v for v in ix[~ix.isin(iy)][:3]] or [v for v in iy[~iy.isin(ix)][:3]]
    raise ValueError(f"compare: {x_name} and {y_name} are pandas objects whose indexes differ "
                     f"(e.g. {only!r} is in one only, or labels repeat), so their rows cannot "
                     f"be paired by index; align them, or pass {y_name}.to_numpy() to pair "
                     "them by position.")


def _gathered(data: Any) -> Any:
    """A Dask collection computed into memory (a DataFrame keeps its column names, so the
    model is fed by name, and pandas and Dask sides mix); anything else unchanged."""
    if type(data).__module__.split(".")[0] == "dask" and hasattr(data, "compute"):
        return data.compute()
    return data


def _refuse_mixed_tasks(ma: Model, mb: Model, loss: Any) -> None:
    """A classifier and a regressor have no common default loss (log-loss on a regressor's
    values, squared error on probabilities): refused unless ``loss`` is given explicitly."""
    if mb is ma or loss is not None or bool(ma.is_classifier) == bool(mb.is_classifier):
        return
    kind = {True: "a classifier", False: "a regressor"}
    raise ValueError(
        f"compare: model_a ({ma.describe()}) is {kind[bool(ma.is_classifier)]} but model_b "
        f"({mb.describe()}) is {kind[bool(mb.is_classifier)]}; their default losses differ, so "
        "the importances would not be comparable. Pass loss= explicitly (one loss applied to "
        "both models' outputs, e.g. loss='squared_error' on 0/1 labels), or compare models of "
        "the same task.")


def _default_loss(model: Model) -> Loss:
    classes = getattr(model, "classes_", None)
    return get_loss("squared_error" if classes is None else "log_loss", _OWNER)


def _sides(model_a: Any, X_a: Any, y_a: Any, model_b: Any, X_b: Any, y_b: Any, loss: Any,
           label_free: bool) -> tuple[Side, Side, bool, Loss]:
    """The two validated sides, whether they are paired (same rows), and the loss."""
    if model_b is None and X_b is None:
        raise ValueError("compare: give model_b (two models), X_b (two datasets) or both; "
                         "got neither, so there is nothing to compare.")
    if X_b is None and y_b is not None:
        raise ValueError("compare: y_b was given without X_b; the labels of the shared rows "
                         "are y_a.")
    paired = X_b is None or X_b is X_a
    X_a, y_a, X_b, y_b = (_gathered(v) for v in (X_a, y_a, X_b, y_b))
    y_a, y_b = _aligned(y_a, X_a, "y_a", "X_a"), _aligned(y_b, X_b, "y_b", "X_b")
    table_a = as_table(X_a, owner=_OWNER)
    if table_a.n_rows < 2:
        raise ValueError(f"compare: X_a needs at least 2 rows; got {table_a.n_rows}.")
    table_b = table_a if paired else _second_table(X_b, table_a)
    if table_b.n_rows < 2:
        raise ValueError(f"compare: X_b needs at least 2 rows; got {table_b.n_rows}.")
    ma = as_model(model_a, owner=_OWNER).refuse_nonfinite_outputs(_OWNER)
    mb = ma if model_b is None or model_b is model_a else as_model(model_b, owner=_OWNER).refuse_nonfinite_outputs(
        _OWNER)
    _refuse_mixed_tasks(ma, mb, loss)
    if label_free:
        return (label_free_side(ma, table_a), label_free_side(mb, table_b), paired,
                label_free_loss())
    if y_a is None:
        raise ValueError("compare: y_a is None; give the labels of X_a, or label_free=True "
                         "for prediction-sensitivity importance without labels.")
    ya = _labels(y_a, table_a, "y_a", "X_a")
    if X_b is None:
        yb = ya
    elif y_b is None:
        raise ValueError("compare: y_b is None; give the labels of X_b, or label_free=True "
                         "for prediction-sensitivity importance without labels.")
    else:
        yb = _labels(y_b, table_b, "y_b", "X_b")
    loss_obj = _default_loss(ma) if loss is None else get_loss(loss, _OWNER)
    return Side(ma, table_a, ya), Side(mb, table_b, yb), paired, loss_obj


def _features(table: Table, features: Any) -> tuple[list[str], list[list[str]]]:
    """Names and member lists of the explained features or groups."""
    cols = list(table.names)
    if features is None:
        return cols, [[c] for c in cols]
    if isinstance(features, str) or not isinstance(features, Sequence) or len(features) == 0:
        raise param_error(_OWNER, "features", "None or a non-empty list of feature names or "
                          "lists of them (groups)", features, exc=TypeError)
    names, groups = [], []
    for f in features:
        members = [str(f)] if isinstance(f, str) else [str(m) for m in f]
        unknown = [m for m in members if m not in cols]
        if unknown or not members:
            raise ValueError(f"compare: features names {unknown or f!r}, not columns of X_a; "
                             f"available: {cols}.")
        names.append("+".join(members))
        groups.append(members)
    if len(set(names)) != len(names):
        raise param_error(_OWNER, "features", "distinct features or groups", features)
    return names, groups


def _method_rows(method: str, side_a: Side, side_b: Side, loss: Loss, names: list[str],
                 groups: list[list[str]], n_repeats: int, n_samples: Any,
                 seed: int) -> tuple[np.ndarray, np.ndarray, tuple[Draws | None, Draws | None]]:
    """Per-row values of both sides (same seed: common random numbers) and their draws
    (PFI's; None for SAGE)."""
    if method == "pfi":
        va, da = pfi_rows(side_a, loss, groups, n_repeats, seed)
        vb, db = pfi_rows(side_b, loss, groups, n_repeats, seed)
        return va, vb, (da, db)
    grouped = {n: g for n, g in zip(names, groups)}
    players, col_player = resolve_players(side_a.table.names, grouped, _OWNER)
    keep = [players.index(n) for n in names]
    va = sage_rows(side_a, loss, players, col_player, n_samples, seed)
    vb = sage_rows(side_b, loss, players, col_player, n_samples, seed)
    return va[:, keep], vb[:, keep], (None, None)


def _importance_change(method: str, names: list[str], va: np.ndarray, vb: np.ndarray,
                       paired: bool, opts: dict[str, Any],
                       draws: tuple[Draws | None, Draws | None] = (None, None)
                       ) -> ImportanceChange:
    test = paired_change if paired else independent_change
    ch = test(va, vb, draws=draws, confidence=opts["confidence"],
              min_change=opts["min_change"])
    p_adj = holm(ch.p_value)
    return ImportanceChange(
        method=method, features=list(names), a=ch.a, b=ch.b, delta=ch.delta, lower=ch.lower,
        upper=ch.upper, std_error=ch.std_error, p_value=ch.p_value, p_adjusted=p_adj,
        significant=p_adj <= opts["family_level"], procedure="holm",
        level=opts["family_level"], confidence=opts["confidence"],
        design="paired" if paired else "independent", n_a=va.shape[0], n_b=vb.shape[0],
        min_change=opts["min_change"],
    )


def _ranking(method: str, names: list[str], va: np.ndarray, vb: np.ndarray, paired: bool,
             opts: dict[str, Any], rng: np.random.Generator) -> RankingChange:
    """NDCG@k and Kendall's tau of the two mean importance vectors, with percentile
    bootstrap intervals over the rows (the same resampled rows on both sides when paired)."""
    k = min(opts["top_k"], len(names))
    nb = opts["n_bootstrap"]
    wa = bootstrap_weights(va.shape[0], nb, rng)
    wb = wa if paired else bootstrap_weights(vb.shape[0], nb, rng)
    ma, mb = wa @ va, wb @ vb
    ndcgs = np.array([ndcg_at_k(ma[i], mb[i], k) for i in range(nb)])
    taus = np.array([kendall_tau(ma[i], mb[i]) for i in range(nb)])
    a, b = va.mean(axis=0), vb.mean(axis=0)
    conf = opts["confidence"]
    (n_lo, n_hi), (t_lo, t_hi) = percentile_interval(ndcgs, conf), percentile_interval(taus, conf)
    top = [names[i] for i in np.argsort(-a, kind="stable")[:k]]
    top_b = [names[i] for i in np.argsort(-b, kind="stable")[:k]]
    return RankingChange(method=method, k=k, ndcg=ndcg_at_k(a, b, k), ndcg_lower=n_lo,
                         ndcg_upper=n_hi, kendall_tau=kendall_tau(a, b), tau_lower=t_lo,
                         tau_upper=t_hi, top_a=top, top_b=top_b, n_bootstrap=nb,
                         confidence=conf)


def _settings(opts: dict[str, Any], names: list[str], loss: Loss, seed: int, paired: bool,
              side_a: Side, side_b: Side, n_samples: Any) -> dict[str, Any]:
    return {**opts, "features": list(names), "loss": loss.name, "random_state": seed,
            "design": "paired" if paired else "independent", "n_a": side_a.n_rows,
            "n_b": side_b.n_rows, "two_models": opts["two_models"],
            "two_datasets": not paired, "n_samples": n_samples}


def _front_parts(result: ChangeExplanation, opts: dict[str, Any], side_a: Side, side_b: Side,
                 paired: bool, names: list[str], groups: list[list[str]],
                 values: dict[str, tuple[np.ndarray, np.ndarray]], seed: int) -> None:
    """The curve changes and the explanation-shift test."""
    curve_methods = [m for m in opts["methods"] if m in CURVE_METHODS]
    if curve_methods:
        result.curves = dict(curve_changes(side_a, side_b, methods=curve_methods,
                                           features=names, groups=groups, paired=paired,
                                           confidence=opts["confidence"], random_state=seed))
        result.notes += [n for c in result.curves.values() for n in getattr(c, "skipped", [])]
    if "shift" in opts["methods"]:
        if paired:
            raise ValueError("compare: methods=['shift'] tests a shift between two datasets; "
                             "give X_b.")
        result.shift = explanation_shift_test(side_a, side_b, values=values, features=names,
                                              random_state=seed)
