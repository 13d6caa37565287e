"""The cost of one stream row of Shapley interactions, stated before the stream runs.

:class:`~ixplain.methods.iinteractions.IncrementalShapleyInteractions` explains every row on
its own: ``rows_per_observation(n_samples)`` model rows (the coalitions times the inner draws,
plus the row itself) and, for ``method="regression"``, a constrained least-squares fit whose
normal equations cost about ``K q^2`` multiply-adds (``K`` coalitions, ``q`` terms plus one).
Both grow fast with the players: 10 features cost 1,321 model rows and 5e5 operations a row
(0.014 s with a linear model), 30 features 11,161 model rows and 3e8 operations (2.6 s a row,
most of it the fit). :func:`check_stream_cost` warns above :data:`WARN_MODEL_ROWS` or
:data:`WARN_FIT_OPS` and refuses a row that would take minutes or more (above
:data:`MAX_MODEL_ROWS` or :data:`MAX_FIT_OPS`).
"""

from __future__ import annotations

import warnings

from ._interaction_core import InteractionPlan

#: Model rows per stream row above which the explainer warns at construction.
WARN_MODEL_ROWS = 10_000
#: Least-squares operations per stream row above which it warns (about 0.3 s of numpy).
WARN_FIT_OPS = 3e7
#: Model rows per stream row above which it refuses (4 million: minutes a row).
MAX_MODEL_ROWS = 2**22
#: Least-squares operations per stream row above which it refuses (about two minutes a row).
MAX_FIT_OPS = 1e10


class InteractionCostWarning(UserWarning):
    """An incremental Shapley-interaction explainer will be slow on every row."""


def stream_cost(plan: InteractionPlan, n_samples: int) -> tuple[int, float]:
    """``(model rows, least-squares operations)`` of one stream row under ``plan``."""
    rows = plan.rows_per_observation(n_samples)
    fit = 0.0
    if plan.method == "regression":
        fit = float(plan.n_coalitions) * float(plan.n_values + 1) ** 2
    return rows, fit


def check_stream_cost(plan: InteractionPlan, n_samples: int, owner: str) -> None:
    """Warn when one stream row is costly; refuse it when it would take minutes or more.

    Parameters
    ----------
    plan : InteractionPlan
        The resolved plan (players, method, coalition budget).
    n_samples : int
        Inner draws per coalition.
    owner : str
        The class named in the messages.

    Warns
    -----
    InteractionCostWarning
        Above :data:`WARN_MODEL_ROWS` model rows or :data:`WARN_FIT_OPS` operations a row,
        naming both counts and the ways to lower them.

    Raises
    ------
    ValueError
        Above :data:`MAX_MODEL_ROWS` model rows or :data:`MAX_FIT_OPS` operations a row,
        naming both counts.

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain.methods.interactions import resolve_plan
    >>> plan = resolve_plan("x", [f"x{i}" for i in range(10)], np.arange(10), "k-SII", 2,
    ...                     "auto", "auto", 6)
    >>> stream_cost(plan, 8)
    (1321, 517440.0)
    >>> check_stream_cost(plan, 8, "x")  # cheap: silent
    """
    rows, fit = stream_cost(plan, n_samples)
    what = (f"{plan.n_players} players, method={plan.method!r}, order={plan.order}, "
            f"n_samples={n_samples}: about {rows:,} model rows")
    if plan.method == "regression":
        what += (f" and a least-squares fit of {plan.n_values:,} terms on {plan.n_coalitions:,} "
                 f"coalitions (about {fit:.1e} operations)")
    fixes = "Group features into fewer players (groups={...})" + (
        ", use order=2" if plan.order > 2 else "") + ", or a smaller n_samples" + (
        " or n_coalitions" if plan.method == "regression" else "")
    if rows > MAX_MODEL_ROWS or fit > MAX_FIT_OPS:
        raise ValueError(
            f"{owner}: {what} for every row of the stream (more than {MAX_MODEL_ROWS:,} model "
            f"rows or {MAX_FIT_OPS:.0e} operations: minutes a row). {fixes}.")
    if rows > WARN_MODEL_ROWS or fit > WARN_FIT_OPS:
        warnings.warn(
            f"{owner}: {what} for every row of the stream (30 features took 1.3-2.6 s a row). "
            f"{fixes}.", InteractionCostWarning, stacklevel=4)
