"""``ixplain.dask.permutation_importance``: PFI (marginal from a background, or conditional)
over partitions, independent of the partitioning.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._random import root_seed
from .._validation import check_int, check_memory_budget, param_error
from ..imputation import check_removal
from ..losses import get_loss
from ..methods._conditional import ConditionalPFI
from ..methods._dataset_pfi import _check_accuracy_targets
from ..methods._engine import Method, explain_partitions, make_progress
from ..methods.pfi import _SCORER_LOSSES, BackgroundPFI, _batched_scoring, _response_for
from ..methods.pfi import _check_sizes as _check_pfi_sizes
from ..models import as_model
from ..models.base import DEFAULT_MEMORY_BUDGET
from ..results.importance import FeatureImportance
from ..tabular import as_table
from ._partitions import (
    _background,
    _conditional_sampler,
    _label_column,
    _plain_columns,
    _require_dask_frame,
)

__all__ = ["permutation_importance"]


_PFI_OWNER = "ixplain.dask.permutation_importance"


def permutation_importance(
    estimator: Any,
    ddf: Any,
    y: str,
    *,
    loss: Any = None,
    scoring: Any = None,
    n_repeats: int = 5,
    background_size: int = 1000,
    features: Any = None,
    response_method: str = "auto",
    random_state: Any = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Any = False,
    removal: str = "marginal",
    sampler_size: int = 20_000,
) -> FeatureImportance:
    """Permutation importance over a Dask DataFrame (marginal replacement from a background).

    With ``removal="conditional"``: conditional feature importance (CFI), each feature drawn
    from its conditional distribution given the others by a sampler fitted once on the client
    (see the module docstring), equal to :func:`ixplain.permutation_importance` with
    ``removal="conditional"`` on ``ddf.compute()`` when it has at most ``sampler_size`` rows.

    For every row ``x`` (global index ``t``), every feature ``j`` and every repeat ``r``, the
    feature takes the value of a row drawn from a background sample of the whole data, with
    the draws of row ``t`` (keyed by the seed and ``t``), and the loss increase
    ``loss(y, f(x with x_j := x'_j)) - loss(y, f(x))`` is recorded (PFI's per-observation
    explanation function, [1]_). Importances are the means over rows, one per repeat, merged
    across partitions. For a given ``random_state`` the result does not depend on the number
    of partitions (nor on the scheduler).

    It is not the same number as :func:`ixplain.permutation_importance` for the same seed: that
    function replaces a feature by a *global* permutation of its column, which a partition
    cannot form without shuffling the whole data. Both estimate the expected loss increase
    under marginal replacement, and agree within their standard errors
    (``settings["standard_error"]`` of each).

    Parameters
    ----------
    estimator : estimator, Booster or callable
        The fitted model (shipped to the workers; it must pickle).
    ddf : dask.dataframe.DataFrame
        Features and the target column, ``n_rows`` rows in all.
    y : str
        Name of the target column (not passed to the model).
    loss : str or callable, optional
        ``"squared_error"``, ``"absolute_error"``, ``"log_loss"``, ``"brier"``, ``"zero_one"``
        or ``loss(y_true, y_pred) -> per-row losses`` (see :func:`ixplain.get_loss`);
        importance = loss increase. Takes precedence over ``scoring``.
    scoring : str or None, default=None
        With ``loss=None``: importance = score decrease, for the scores that are a mean of
        per-row losses (so they decompose over partitions): ``None`` (a scikit-learn
        estimator's default accuracy or R^2), ``"accuracy"``, ``"r2"``,
        ``"neg_mean_squared_error"``, ``"neg_mean_absolute_error"``. R^2's scale, the
        variance of ``y``, is taken over the whole data.
    n_repeats : int, default=5
        Draws per row and feature; ``importances`` has one column per repeat.
    background_size : int, default=1000
        Rows drawn (without replacement, by global row index) from the whole data as the
        replacement values.
    features : list of str, optional
        Features to explain (default: all but ``y``).
    response_method : str, default="auto"
        Model output used with the loss (default: what the loss needs).
    random_state : int, Generator or None, default=None
        Seeds the background sample and the draws.
    memory_budget : int, default=256 MB
        Bound on one model input per worker, in bytes (at least ``MIN_MEMORY_BUDGET``, 4096).
    progress : bool or callable, default=False
        ``True``: a tqdm bar (or lines on stderr); a callable receives a
        :class:`~ixplain.ProgressInfo` (rows done, total) as partitions finish.
    removal : {"marginal", "conditional"}, default="marginal"
        How a feature is replaced: from the background (marginal), or drawn given the other
        features (conditional; ``background_size`` is then unused).
    sampler_size : int, default=20000
        ``removal="conditional"``: rows (drawn by global row index with the seed; all rows
        when there are at most that many) the sampler is fitted on, on the client.

    Returns
    -------
    FeatureImportance
        ``importances_mean`` (n_features,), ``importances_std`` (n_features,; over repeats),
        ``importances`` (n_features, n_repeats): mean loss increases (score decreases);
        ``settings["standard_error"]`` (n_features,): standard error of ``importances_mean``
        from the spread of the rows' values.

    Raises
    ------
    TypeError
        If ``ddf`` is not a Dask DataFrame, ``y`` not a column name, or ``scoring`` is used
        with a model that is not a scikit-learn estimator.
    ValueError
        For an unknown target or feature column, an empty DataFrame, a bad parameter value,
        a scorer that is not a mean of per-row losses, NaN or infinite targets.
    ModelEvaluationError
        If the model raises on a partition.

    References
    ----------
    .. [1] F. Fumagalli, M. Muschalik, E. Hüllermeier, B. Hammer, "Incremental permutation
       feature importance (iPFI): towards online explanations on data streams", Machine
       Learning 112, 2023.
    .. [2] L. Breiman, "Random Forests", Machine Learning 45, 2001.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(2000, 2)), columns=["a", "b"]).assign(y=0.0)
    >>> df["y"] = 2 * df["a"]
    >>> r = permutation_importance(lambda X: 2 * X["a"].to_numpy(), dd.from_pandas(df, npartitions=4),
    ...                            "y", loss="squared_error", random_state=0)
    >>> r.importances_mean.round(0)  # 2 * beta**2 * Var(a) = 8; b is ignored
    array([8., 0.])
    """
    _require_dask_frame(ddf, _PFI_OWNER)
    n_repeats = int(check_int(n_repeats, "n_repeats", _PFI_OWNER, min_value=1))  # type: ignore[arg-type]
    background_size = int(
        check_int(background_size, "background_size", _PFI_OWNER, min_value=1)  # type: ignore[arg-type]
    )
    memory_budget = check_memory_budget(memory_budget, _PFI_OWNER)
    seed = root_seed(random_state, _PFI_OWNER)
    report = make_progress(progress, _PFI_OWNER)
    y = _label_column(y, ddf, _PFI_OWNER)
    columns = _plain_columns(ddf, None, (y, None), _PFI_OWNER)
    names = [str(c) for c in columns]
    feats = names if features is None else [str(f) for f in features]
    unknown = [f for f in feats if f not in names]
    if unknown or not feats:
        raise ValueError(
            f"{_PFI_OWNER}: unknown feature(s) {unknown or feats!r}. Available features: {names}."
        )
    loss_obj, model, scale, what = _pfi_loss(estimator, loss, scoring, response_method, ddf, y)
    if what.get("scoring") == "accuracy":
        _check_accuracy_on_head(estimator, model, ddf, columns, y)
    for budget in (None, memory_budget):  # the importances; one observation's model call
        _check_pfi_sizes(_PFI_OWNER, 1, 1, len(columns), len(feats), n_repeats, budget)
    fn, method, rows = _pfi_method(ddf, columns, feats, model, loss_obj, n_repeats, seed,
                                   removal, background_size, sampler_size)
    explained = explain_partitions(fn, ddf, columns=columns, y=y, memory_budget=memory_budget,
                                   progress=report, owner=_PFI_OWNER,
                                   label="permutation_importance")
    settings = {
        "method": method, **what, "n_repeats": n_repeats, **rows,
        "n_rows": explained.mean.n, "npartitions": ddf.npartitions,
        "random_state": random_state if isinstance(random_state, (int, type(None))) else "Generator",
        "standard_error": (explained.standard_error[:, 0] / scale).tolist(),
    }
    return FeatureImportance.from_importances(explained.mean.get()[:, 1:] / scale, feats,
                                              settings)


def _pfi_method(ddf: Any, columns: list[Any], feats: list[str], model: Any, loss: Any,
                n_repeats: int, seed: int, removal: Any, background_size: int,
                sampler_size: Any) -> tuple[Method, str, dict[str, Any]]:
    """The engine method of ``removal`` (validated), its description and row counts."""
    groups = [[f] for f in feats]
    if check_removal(removal, _PFI_OWNER) == "conditional":
        n = int(check_int(sampler_size, "sampler_size", _PFI_OWNER, min_value=2))  # type: ignore[arg-type]
        sampler, fitted = _conditional_sampler(ddf, columns, n, seed, _PFI_OWNER)
        return (ConditionalPFI(model, loss, groups, sampler, seed, range(n_repeats),
                               fitted=fitted),
                "dask permutation_importance (conditional draws, removal='conditional')",
                {"removal": "conditional", "sampler_size": sampler.n_rows_})
    bg = _background(ddf, columns, background_size, seed, _PFI_OWNER)
    return (BackgroundPFI(model, loss, groups, bg, n_repeats, seed),
            "dask permutation_importance (marginal replacement from a background)",
            {"background_size": bg.n_rows})


def _check_accuracy_on_head(estimator: Any, model: Any, ddf: Any, columns: list[Any],
                            y: Any) -> None:
    """scikit-learn's error for scoring='accuracy' on continuous targets or a regressor's
    continuous predictions, checked on up to 1,000 rows of the first partition."""
    import warnings

    with warnings.catch_warnings():  # (dask warns when the first partition is shorter)
        warnings.simplefilter("ignore")
        head = ddf.head(1000, npartitions=1, compute=True)
    if len(head):
        _check_accuracy_targets(estimator, model, as_table(head[columns]),
                                head[y].to_numpy(), np.arange(len(head)))


def _pfi_loss(estimator: Any, loss: Any, scoring: Any, response_method: str, ddf: Any,
              y: Any) -> tuple[Any, Any, float, dict[str, Any]]:
    """``(loss, model adapter, scale, settings)``: the loss whose mean increase (divided by
    ``scale``) is the importance, for ``loss`` or a batched ``scoring``."""
    if loss is not None:
        loss_obj = get_loss(loss, _PFI_OWNER)
        model = as_model(estimator, response_method=_response_for(estimator, loss_obj,
                                                                  response_method),
                         owner=_PFI_OWNER).refuse_nonfinite_outputs(_PFI_OWNER)
        return loss_obj, model, 1.0, {"loss": loss_obj.name}
    if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
        raise TypeError(
            f"{_PFI_OWNER}: 'scoring' needs a scikit-learn-API estimator; got "
            f"{type(estimator).__name__}. Pass loss=... (e.g. loss='squared_error') instead."
        )
    batched = _batched_scoring(estimator, scoring, np.zeros(1))
    if batched is None:
        raise param_error(
            _PFI_OWNER, "scoring",
            f"None (the estimator's accuracy or R^2) or one of {sorted(_SCORER_LOSSES)} (a mean "
            "of per-row losses, which decomposes over partitions)", scoring,
        )
    scale = float(ddf[y].astype("float64").var(ddof=0).compute()) if batched == "r2" else 1.0
    if not scale > 0:
        raise ValueError(f"{_PFI_OWNER}: scoring='r2' needs a target with positive variance.")
    model = as_model(estimator, response_method="predict", owner=_PFI_OWNER)
    model.refuse_nonfinite_outputs(_PFI_OWNER)
    return get_loss(_SCORER_LOSSES[batched]), model, scale, {"scoring": batched}
