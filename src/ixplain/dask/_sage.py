"""``ixplain.dask.sage``: SAGE over partitions, equal to one pass of :func:`ixplain.sage`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._random import root_seed
from .._validation import check_bool, check_int, check_memory_budget
from ..imputation import check_removal
from ..imputation.conditional import averaged_sampler
from ..losses import get_loss
from ..methods._engine import explain_partitions, make_progress
from ..methods._sage_core import correction_for, resolve_players
from ..methods.sage import (
    ConditionalSAGEFunction,
    SAGEFunction,
    _background_table,
    _to_result,
    resolve_n_samples,
)
from ..models import as_model
from ..models.base import DEFAULT_MEMORY_BUDGET
from ..results.importance import FeatureImportance
from ..tabular import Table
from ._partitions import (
    _background,
    _conditional_sampler,
    _head,
    _label_column,
    _n_rows,
    _plain_columns,
    _require_dask_frame,
)

__all__ = ["sage"]


_SAGE_OWNER = "ixplain.dask.sage"


def sage(
    model: Any,
    ddf: Any,
    y: str,
    *,
    loss: Any,
    background: Any = None,
    background_size: int = 512,
    groups: dict[str, list[str]] | None = None,
    n_samples: int | str | None = "auto",
    random_state: Any = None,
    control_variate: bool = True,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Any = False,
    removal: str = "marginal",
    sampler_size: int = 20_000,
) -> FeatureImportance:
    """SAGE values over a Dask DataFrame, equal to one pass of :func:`ixplain.sage`.

    With ``removal="conditional"`` the features outside a coalition are drawn from their
    conditional distribution given it, by a sampler fitted once on the client on
    ``sampler_size`` rows (on ``background`` if one is given); equal to one pass of
    :func:`ixplain.sage` with ``removal="conditional"`` when the data has at most
    ``sampler_size`` rows (module docstring).

    Every row ``(x, y)`` of every partition walks one uniform random order of the players
    (features or groups) and contributes its marginal contributions ``l(S_{k-1}) - l(S_k)``
    (SAGE's per-observation explanation function, [1]_; features outside ``S`` imputed from
    ``background``). The values are their control-variate mean over all rows, merged across
    partitions (``n_permutations == n_rows``).

    The order and background draws of row ``t`` are those :func:`ixplain.sage` gives it in its
    first pass over the rows for the same ``random_state`` (keyed by the seed and the row's
    place in that pass, never by the partition), and the default background is the rows it
    would pick: the result equals ``ixplain.sage(model, X, y, loss=..., random_state=seed,
    n_permutations=n_rows, convergence_threshold=None)`` on ``ddf.compute()`` to float
    rounding, for any number of partitions. (``ixplain.sage``'s default stops earlier, at
    convergence, which a partitioned pass cannot test.)

    Parameters
    ----------
    model : estimator, Booster or callable
        The fitted model (shipped to the workers; it must pickle).
    ddf : dask.dataframe.DataFrame
        Features and the target column.
    y : str
        Name of the target column.
    loss : str or callable
        As in :func:`ixplain.sage`.
    background : array-like or DataFrame, optional
        Rows used to impute removed features (on every worker). Default: ``background_size``
        rows drawn from the whole data by global row index, as :func:`ixplain.sage` draws its
        512 (all rows when there are at most that many).
    background_size : int, default=512
        Size of the default background (512: the same rows as :func:`ixplain.sage`).
    groups, n_samples, control_variate
        As in :func:`ixplain.sage`.
    random_state : int, Generator or None, default=None
        Seeds the background sample, the orders and the draws.
    memory_budget : int, default=256 MB
        Bound on one model input per worker, in bytes (at least ``MIN_MEMORY_BUDGET``, 4096).
    progress : bool or callable, default=False
        ``True``: a tqdm bar (or lines on stderr); a callable receives a
        :class:`~ixplain.ProgressInfo` (rows done, total) as partitions finish.
    removal : {"marginal", "conditional"}, default="marginal"
        How the features outside a coalition are removed (:func:`ixplain.sage`).
    sampler_size : int, default=20000
        ``removal="conditional"`` without ``background``: rows the sampler is fitted on
        (drawn by global row index with the seed; all rows when there are at most that many).

    Returns
    -------
    FeatureImportance
        ``importances_mean`` (the SAGE values, shape (n_players,)), ``importances_std``
        (their standard errors), the players as ``feature_names``, and ``settings`` with
        ``n_permutations`` (= rows), ``explained_loss``, ``convergence_ratio``.

    Raises
    ------
    TypeError
        If ``ddf`` is not a Dask DataFrame or ``y`` not a column name.
    ValueError
        For an unknown target or group feature, an empty DataFrame, a bad parameter value,
        NaN in the features or the target.

    References
    ----------
    .. [1] I. Covert, S. Lundberg, S.-I. Lee, "Understanding global feature contributions with
       additive importance measures", NeurIPS 2020.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(3000, 3)), columns=["a", "b", "c"])
    >>> df["y"] = 2 * df["a"] + df["b"]
    >>> res = sage(lambda X: 2 * X["a"].to_numpy() + X["b"].to_numpy(),
    ...            dd.from_pandas(df, npartitions=3), "y", loss="squared_error", random_state=0)
    >>> res.importances_mean.round(0)  # Var(2 a) = 4, Var(b) = 1, c unused
    array([4., 1., 0.])
    """
    _require_dask_frame(ddf, _SAGE_OWNER)
    seed = root_seed(random_state, _SAGE_OWNER)
    report = make_progress(progress, _SAGE_OWNER)
    size = int(check_int(background_size, "background_size", _SAGE_OWNER, min_value=1))  # type: ignore[arg-type]
    memory_budget = check_memory_budget(memory_budget, _SAGE_OWNER)
    control_variate = check_bool(control_variate, "control_variate", _SAGE_OWNER)
    loss_obj = get_loss(loss, _SAGE_OWNER)
    y = _label_column(y, ddf, _SAGE_OWNER)
    columns = _plain_columns(ddf, None, (y, None), _SAGE_OWNER)
    if background is None:  # the rows ixplain.sage would take from ddf.compute()
        bg = _background(ddf, columns, size, seed, _SAGE_OWNER, key="sage-background")
    else:
        bg = _background_table(background, _head(ddf, columns, _SAGE_OWNER), seed, _SAGE_OWNER)
    players, col_player = resolve_players(bg.names, groups, _SAGE_OWNER)
    correction = correction_for(loss_obj)
    s = resolve_n_samples(n_samples, correction, bg.n_rows, _SAGE_OWNER)
    exact = n_samples is None or (n_samples == "auto" and correction == "plugin")
    mdl = as_model(model, owner=_SAGE_OWNER).refuse_nonfinite_outputs(_SAGE_OWNER)
    n_rows = _n_rows(ddf, _SAGE_OWNER)[1]
    if check_removal(removal, _SAGE_OWNER) == "conditional":
        fn: SAGEFunction = _conditional_sage(
            ddf, columns, mdl, loss_obj, bg, background is None, col_player, players,
            s if not exact else None, seed, n_rows, control_variate, sampler_size)
    else:
        fn = SAGEFunction(mdl, loss_obj, bg, col_player, players, s, exact, seed, n_rows,
                          control_variate)
    explained = explain_partitions(fn, ddf, columns=columns, y=y, memory_budget=memory_budget,
                                   progress=report, owner=_SAGE_OWNER, label="sage")
    settings = {
        "method": "dask sage (one order per row)", "loss": loss_obj.name,
        "groups": None if groups is None else {str(k): list(v) for k, v in groups.items()},
        "random_state": random_state if isinstance(random_state, (int, type(None))) else "Generator",
        "control_variate": control_variate, "npartitions": ddf.npartitions,
    }
    if isinstance(fn, ConditionalSAGEFunction):
        assert fn.sampler is not None  # fitted on the client
        settings.update(removal="conditional", sampler_size=fn.sampler.n_rows_)
    result = _to_result(fn.result(explained), settings)
    result.settings.pop("converged", None)
    return result


def _conditional_sage(ddf: Any, columns: list[Any], model: Any, loss: Any, bg: Table,
                      default_bg: bool, col_player: np.ndarray, players: list[str],
                      n_samples: int | None, seed: int, n_rows: int, control_variate: bool,
                      sampler_size: Any) -> ConditionalSAGEFunction:
    """SAGE's conditional engine method: the sampler fitted on ``sampler_size`` rows of the
    data (a given ``background``: on it, as :func:`ixplain.sage` does); ``n_samples`` None
    (the exact inner average of the marginal form): 32 draws, as :func:`ixplain.sage`."""
    if default_bg:
        n = int(check_int(sampler_size, "sampler_size", _SAGE_OWNER, min_value=2))  # type: ignore[arg-type]
        sampler, fitted = _conditional_sampler(ddf, columns, n, seed, _SAGE_OWNER, True)
    else:
        sampler, fitted = averaged_sampler(bg), np.empty(0, dtype=np.intp)
    s = min(32, sampler.n_rows_) if n_samples is None else n_samples
    return ConditionalSAGEFunction(model, loss, bg, col_player, players, s, seed, n_rows,
                                   sampler, fitted, control_variate)
