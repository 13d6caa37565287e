"""``ixplain.dask.explain``: any engine method over a Dask DataFrame (the generic driver).
"""

from __future__ import annotations

from typing import Any

from .._validation import check_memory_budget, param_error
from ..methods._engine import Method, explain_partitions, make_progress
from ..models.base import DEFAULT_MEMORY_BUDGET
from ._partitions import (
    _plain_columns,
    _require_dask_frame,
)

__all__ = ["explain"]


_EXPLAIN_OWNER = "ixplain.dask.explain"


def explain(
    method: Method,
    ddf: Any,
    *,
    y: Any = None,
    sample_weight: Any = None,
    features: Any = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    progress: Any = False,
) -> Any:
    """Run any engine method over a Dask DataFrame: its explanation function per partition.

    The generic Dask driver (:func:`ixplain.methods._engine.explain_partitions`): every
    partition evaluates ``method.explain`` on its rows, with the rows' global indices (so keyed
    random draws are those of the single-machine run), and the partitions' mean states are
    merged. The result is ``method.result`` of the merged values: the single-machine result of
    :func:`~ixplain.methods._engine.explain_rows` on ``ddf.compute()``, up to float rounding
    (~1e-16 relative), whatever the number of partitions.

    Parameters
    ----------
    method : ixplain.methods._engine.Method
        The method object (built on the client; it must pickle).
    ddf : dask.dataframe.DataFrame
        ``n_rows`` rows in any number of partitions.
    y : str, optional
        The label column (not passed to the method as a feature).
    sample_weight : str, optional
        A column of row weights (not a feature).
    features : list of str, optional
        The feature columns in the model's order (default: every other column).
    memory_budget : int, default=256 MB
        Bytes of model input per call on a worker (at least ``MIN_MEMORY_BUDGET``, 4096).
    progress : bool or callable, default=False
        ``True``: a tqdm bar (or lines on stderr); a callable gets a
        :class:`~ixplain.ProgressInfo` (rows done, total) as partitions finish.

    Returns
    -------
    object
        What ``method.result`` returns.

    Raises
    ------
    TypeError
        If ``ddf`` is not a Dask DataFrame or ``method`` not an engine Method.
    ValueError
        For an unknown column or an empty DataFrame.

    References
    ----------
    .. [1] T. F. Chan, G. H. Golub, R. J. LeVeque, "Updating formulae and a pairwise algorithm
       for computing sample variances", 1979 (merging the partitions' means and variances).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> from ixplain.methods._engine import Method
    >>> class MeanOutput(Method):  # lambda(x) = f(x): the mean prediction
    ...     name = "doc_mean_output"
    ...     def __init__(self, f):
    ...         self.f = f
    ...     def explain(self, batch):
    ...         return self.f(batch.X.numeric_column("a"))[:, None]
    >>> df = pd.DataFrame({"a": np.arange(10.0)})
    >>> explain(MeanOutput(lambda a: 2 * a), dd.from_pandas(df, npartitions=3))
    array([9.])
    """
    _require_dask_frame(ddf, _EXPLAIN_OWNER)
    if not isinstance(method, Method):
        raise param_error(_EXPLAIN_OWNER, "method", "an ixplain engine Method", method,
                          exc=TypeError)
    columns = _plain_columns(ddf, features, (y, sample_weight), _EXPLAIN_OWNER)
    out = explain_partitions(
        method, ddf, columns=columns, y=y, sample_weight=sample_weight,
        memory_budget=check_memory_budget(memory_budget, _EXPLAIN_OWNER),
        progress=make_progress(progress, _EXPLAIN_OWNER), owner=_EXPLAIN_OWNER,
    )
    return method.result(out)
