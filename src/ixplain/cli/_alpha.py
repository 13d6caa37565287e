"""The ``--alpha`` of ``ixplain stream`` against the length of the stream.

The explainers' exponential means start at zero (:class:`~ixplain.aggregation.EWMean`): after
``n`` rows they hold ``1 - (1 - alpha) ** n`` of their values' weight. An ``alpha`` far below
``1 / n`` leaves the explanations a small fraction of their size at the end of the stream
(``alpha = 1e-6`` on 10,000 rows: 1%), silently; :func:`check_alpha` warns.
"""

from __future__ import annotations

import math
import warnings

#: Weight of the stream's rows below which the run warns (values under a quarter of their
#: size: ``alpha`` below about ``0.29 / rows``).
MIN_WEIGHT = 0.25


def stream_weight(alpha: float, n_rows: int) -> float:
    """``1 - (1 - alpha) ** n_rows``: the weight the rows of the stream carry at its end.

    Examples
    --------
    >>> round(stream_weight(1e-6, 10_000), 4), stream_weight(1.0, 3)
    (0.01, 1.0)
    """
    return -math.expm1(n_rows * math.log1p(-alpha)) if alpha < 1.0 else 1.0


def check_alpha(alpha: float | None, n_rows: int) -> None:
    """Warn when ``alpha`` is far too small for a stream of ``n_rows`` rows.

    Parameters
    ----------
    alpha : float in (0, 1] or None
        The user's ``--alpha`` (None: the default, ``10 / rows`` clipped, is not checked).
    n_rows : int
        Rows of the stream.

    Warns
    -----
    UserWarning
        When the stream's rows carry less than :data:`MIN_WEIGHT` of the explanations' weight
        by its end (``alpha`` below about ``0.29 / n_rows``), naming that fraction.

    Examples
    --------
    >>> check_alpha(0.01, 1000)  # 1 - 0.99 ** 1000 = 99.996%: silent
    """
    if alpha is None or n_rows < 1:
        return
    weight = stream_weight(alpha, n_rows)
    if weight >= MIN_WEIGHT:
        return
    warnings.warn(
        f"--alpha {alpha:g} is far below 1/rows ({1 / n_rows:.3g} for {n_rows:,} rows): the "
        f"explanations start at 0 and the stream's rows carry only {weight:.1%} of their "
        f"weight at its end, so the values written read about {weight:.1%} of their size. "
        f"Use an --alpha of at least 1/rows, or leave it out (the default, 10/rows clipped "
        "to [0.001, 0.05], remembers about a tenth of the stream).",
        UserWarning, stacklevel=2)
