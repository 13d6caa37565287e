"""The expected squared discrepancy of two models, with an interval."""

from __future__ import annotations

import numpy as np

from ..models import Model
from ..tabular import Table
from ._result import Discrepancy
from ._stats import paired_change

__all__ = ["squared_discrepancy"]


def squared_discrepancy(model_a: Model, model_b: Model, table: Table, *,
                        confidence: float = 0.95) -> Discrepancy:
    """``E[(f_b(x) - f_a(x))^2]`` over the rows of ``table``, with a t interval.

    The per-row squared differences (mean over outputs for multi-output models) are averaged;
    the interval is Student's t on them (n - 1 degrees of freedom), clipped at 0 below. The
    authors' model-change explainer compares this quantity with a threshold to decide whether
    to explain the change; here it is an estimate with its uncertainty.

    Parameters
    ----------
    model_a, model_b : Model
        Adapters with outputs of the same shape.
    table : Table
        ``n`` rows (``n >= 2``).
    confidence : float, default=0.95

    Returns
    -------
    Discrepancy

    Raises
    ------
    ValueError
        If the two models' outputs differ in shape.

    References
    ----------
    M. Muschalik, F. Fumagalli, B. Hammer, E. Huellermeier, "Agnostic Explanation of Model
    Change based on Feature Importance", KI - Kuenstliche Intelligenz 36, 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import as_model, as_table
    >>> t = as_table(np.arange(8.0).reshape(4, 2))
    >>> d = squared_discrepancy(as_model(lambda A: A[:, 0]), as_model(lambda A: A[:, 0] + 1), t)
    >>> d.value, d.std_error
    (1.0, 0.0)
    """
    pa = np.asarray(model_a.predict(table), dtype=np.float64)
    pb = np.asarray(model_b.predict(table), dtype=np.float64)
    if pa.shape != pb.shape:
        raise ValueError(f"compare: model_a returns predictions of shape {pa.shape} and model_b "
                         f"of shape {pb.shape}; the models must have the same outputs.")
    n = pa.shape[0]
    sq = (pb - pa) ** 2
    sq = sq.reshape(n, -1).mean(axis=1)
    ch = paired_change(np.zeros((n, 1)), sq[:, None], confidence=confidence)
    var_a = float(pa.reshape(n, -1).var(axis=0).mean())
    relative = float(ch.delta[0]) / var_a if var_a > 0 else float("nan")
    return Discrepancy(value=float(ch.delta[0]), lower=max(float(ch.lower[0]), 0.0),
                       upper=float(ch.upper[0]), std_error=float(ch.std_error[0]),
                       relative=relative, n=int(n), confidence=float(confidence))
