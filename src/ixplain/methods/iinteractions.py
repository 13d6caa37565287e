"""Shapley interactions on a data stream: the explanation function of
:mod:`._interaction_core`, smoothed (``aggregation='ema'``) or averaged (``'mean'``).

Each observation ``(x_t, y_t)`` is explained with ``n_samples`` rows of the storage (shared by
all its coalitions) and, for ``method='permutation'``, one random order: ``(2G - 1) n_samples
+ 1`` model rows in one call (``(2^G - 1) n_samples + 1`` for ``'exact'``); :meth:`explain_many`
puts a whole mini-batch in one call. With a static model, a stationary stream and
``aggregation='mean'`` the estimate converges to the index of the loss game of the storage
distribution, without bias for squared error and Brier with ``n_samples >= 2`` (see
:mod:`ixplain.methods.isage` for what each loss and ``n_samples`` converges to: the same game).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._validation import check_int, check_options, param_error
from ..imputation import check_removal
from ..losses import get_loss
from ..models import rows_for_budget
from ..results.interactions import InteractionTimeSeries, ShapleyInteractions, _square
from ..tabular import Table
from ._conditional import _stream_rows, conditional_storage, segment_rows, stream_segments
from ._incremental import IncrementalExplainer, Sampler
from ._interaction_core import (
    INDICES,
    InteractionPlan,
    conditional_evaluator,
    explain_interactions,
    marginal_evaluator,
)
from ._interaction_cost import check_stream_cost
from ._sage_core import correction_for, resolve_players
from .interactions import resolve_plan
from .ipdp import NotStartedError
from .isage import LossGameValues, check_game_options

if TYPE_CHECKING:
    from ..imputation.stream import ConditionalStorage

__all__ = ["IncrementalShapleyInteractions"]

#: ``method="auto"`` enumerates every coalition up to this many players on a stream.
MAX_EXACT_PLAYERS_STREAM = 6


class IncrementalShapleyInteractions(LossGameValues, IncrementalExplainer):
    """Shapley interactions of the loss game on a data stream, with confidence bounds.

    Parameters
    ----------
    model : estimator, River model, Booster or callable
        Anything :func:`ixplain.as_model` accepts; called at explain time, so a model that
        learns online is explained as it is at that moment.
    loss : str, Loss or callable
        As in :class:`ixplain.IncrementalSAGE`.
    index : {"k-SII", "SII", "FSII"}, default="k-SII"
        See :func:`ixplain.shapley_interactions` (``"FSII"`` needs ``method="exact"`` or
        ``"regression"``).
    order : {2, 3}, default=2
        Highest interaction order (3: ``method="exact"`` or ``"regression"``).
    method : {"auto", "exact", "regression", "permutation"}, default="auto"
        Coalitions per observation: all of them (``"exact"``), ``n_coalitions`` of them and
        the Shapley-kernel least-squares fit (``"regression"``, see
        :func:`ixplain.shapley_interactions` for its bias) or a random order with its
        adjacent pairs (``"permutation"``, unbiased). ``"auto"``: exact up to
        :data:`MAX_EXACT_PLAYERS_STREAM` players, regression above.
    n_coalitions : int or "auto", default="auto"
        ``"regression"`` only: coalitions per observation, as in
        :func:`ixplain.shapley_interactions`.
    n_samples : int or "auto", default="auto"
        Storage rows drawn per observation (8 for squared error and Brier, 32 otherwise).
    groups : dict of str to list of str, optional
        Players made of several features.
    removal : {"marginal", "conditional"}, default="marginal"
        As in :class:`ixplain.IncrementalSAGE`: ``"conditional"`` draws the features outside
        a coalition from their conditional distribution given the kept ones, from the
        :class:`~ixplain.imputation.ConditionalStorage` (the default storage then; a storage
        given must be one). See :mod:`ixplain.imputation`.
    feature_names, storage, aggregation, alpha, bias_corrected, history_every, history_size,
    response_method, nan_policy, random_state
        As in :class:`~ixplain.methods._incremental.IncrementalExplainer`.

    Attributes
    ----------
    importances_ : ndarray of shape (G + P [+ T],)
        Current main terms then pair terms (``P = G (G - 1) / 2`` pairs ``i < j``), then for
        order 3 the ``T = C(G, 3)`` triples ``i < j < k``.
    variances_ : ndarray of shape (G + P [+ T],)
        Variance of the per-observation values (for :meth:`confidence_bound`).
    main_values_ : ndarray of shape (G,)
    pair_values_ : ndarray of shape (G, G)
        Symmetric, zero diagonal.
    marginal_loss_, model_loss_ : float
        Smoothed loss of the averaged prediction and of the model (for k-SII and FSII their
        difference is ``importances_.sum()``).
    players_ : list of str
    history_ : deque of (n_seen, values, variances)

    References
    ----------
    Bordt, S., von Luxburg, U. "From Shapley Values to Generalized Additive Models and back."
    AISTATS 2023.
    Muschalik, M., Fumagalli, F., Hammer, B., Hüllermeier, E. "iSAGE: An Incremental Version of
    SAGE for Online Explanation on Data Streams." ECML PKDD 2023.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.choice([-1.0, 1.0], size=(2000, 3))
    >>> f = lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2]
    >>> e = IncrementalShapleyInteractions(f, loss="squared_error", aggregation="mean",
    ...                                    random_state=0)
    >>> e.explain_many(X, f(X)).round(1) + 0.0  # theory: mains 0, 0, 1; pairs (0,1)=1, 0, 0
    array([0., 0., 1., 1., 0., 0.])
    >>> e.to_result().top_pairs(1)[0][:2]
    ('x0', 'x1')
    """

    _owner = "IncrementalShapleyInteractions"
    requires_labels = True
    requires_storage = True

    def __init__(
        self,
        model: Any,
        *,
        loss: Any,
        index: str = "k-SII",
        order: int = 2,
        method: str = "auto",
        n_samples: int | str = "auto",
        n_coalitions: int | str = "auto",
        groups: dict[str, list[str]] | None = None,
        feature_names: Any = None,
        removal: str = "marginal",
        storage: Any = None,
        aggregation: str = "ema",
        alpha: float = 0.001,
        bias_corrected: bool = False,
        history_every: int = 100,
        history_size: int = 1000,
        response_method: str = "auto",
        nan_policy: str = "skip",
        random_state: Any = None,
    ) -> None:
        owner = self._owner
        self.removal = check_removal(removal, owner)
        storage = conditional_storage(self, storage, random_state)
        self.loss = loss
        self._loss = get_loss(loss, owner)
        self._correction = correction_for(self._loss)
        self.index = check_options(index, "index", owner, INDICES)
        self.order = int(check_int(order, "order", owner, min_value=2,  # type: ignore[arg-type]
                                   max_value=3))
        self.method = check_options(method, "method", owner,
                                    ("auto", "exact", "regression", "permutation"))
        if method == "permutation" and (index == "FSII" or self.order > 2):
            rule = "'exact', 'regression' or 'auto' with " + (
                "index='FSII'" if index == "FSII" else f"order={self.order}")
            raise param_error(owner, "method", rule, method)
        self.n_coalitions = n_coalitions
        self.n_samples = n_samples
        self.n_samples_ = check_game_options(n_samples, groups, self._correction, owner)
        self.groups = groups
        self.players_: list[str] | None = None
        self._plan: InteractionPlan | None = None
        super().__init__(
            model, feature_names=feature_names, storage=storage, aggregation=aggregation,
            alpha=alpha, bias_corrected=bias_corrected, history_every=history_every,
            history_size=history_size, response_method=response_method, nan_policy=nan_policy,
            random_state=random_state,
        )
        if feature_names is not None:
            self._set_players(list(self.feature_names or []))

    # ------------------------------------------------------------------ the explanation function
    def _set_players(self, names: list[str]) -> None:
        players, col_player = resolve_players(names, self.groups, self._owner)
        self._plan = resolve_plan(self._owner, players, col_player, self.index, self.order,
                                  self.method, self.n_coalitions, MAX_EXACT_PLAYERS_STREAM)
        check_stream_cost(self._plan, self.n_samples_, self._owner)  # a costly row: warn or refuse
        self.players_ = players

    def _explain_batch(self, X: Table, y: np.ndarray | None, sampler: Sampler) -> np.ndarray:
        if self._plan is None or len(self._plan.col_player) != len(X.names):
            self._set_players(list(X.names))
        plan = self._plan
        assert plan is not None and y is not None
        B, s = X.n_rows, self.n_samples_
        order_u = None
        if plan.method == "permutation":
            order_u = sampler.uniforms(plan.n_players, "order")
        elif plan.method == "regression":
            order_u = sampler.uniforms(plan.n_uniforms, "coalitions")
        per_obs = plan.rows_per_observation(s)
        batch_rows = max(per_obs, (rows_for_budget(len(X.names)) // per_obs) * per_obs)
        if self.removal == "conditional":  # the removal step handed to the storage's sampler
            return self._conditional_batch(X, np.asarray(y), sampler, order_u, batch_rows)
        draws = sampler.draw(s)
        draw_idx = np.arange(B * s).reshape(B, s)
        evaluate = marginal_evaluator(self._model, self._loss, self._correction, X,
                                      np.asarray(y), draws, draw_idx, batch_rows)
        values, losses = explain_interactions(plan, evaluate, B, order_u)
        return np.concatenate([values, losses], axis=1)

    def _conditional_batch(self, X: Table, y: np.ndarray, sampler: Sampler,
                           order_u: np.ndarray | None, batch_rows: int) -> np.ndarray:
        """The values of a batch under conditional removal: row ``t`` draws from the storage's
        sampler for ``t`` with its row-keyed uniforms (as iSAGE); rows met by an empty storage
        get zeros, which the engine discards."""
        plan, storage = self._plan, cast("ConditionalStorage", self.storage)
        assert plan is not None
        B, s, d = X.n_rows, self.n_samples_, len(X.names)
        u = sampler.uniforms(s * 2 * d, "conditional").reshape(B, s, 2 * d)
        xm, cols = _stream_rows(X)
        out = np.zeros((B, plan.n_values + 2))
        for start, stop, cond in stream_segments(storage, X, xm, cols, local=True):
            part = np.arange(start, stop)
            evaluate = conditional_evaluator(
                self._model, self._loss, self._correction, X.take(part), y[start:stop], cond,
                u[start:stop], explainer=self, rows=segment_rows(xm, cols, part),
                batch_rows=batch_rows)
            values, losses = explain_interactions(
                plan, evaluate, stop - start, None if order_u is None else order_u[start:stop])
            out[start:stop] = np.concatenate([values, losses], axis=1)
        return out

    def _value_shape(self) -> tuple[int, ...]:
        if self._plan is None:
            assert self.feature_names_ is not None
            self._set_players(list(self.feature_names_))
        assert self._plan is not None
        return (self._plan.n_values + 2,)

    # ------------------------------------------------------------------ results (main terms then pair terms: see LossGameValues)
    @property
    def main_values_(self) -> np.ndarray:
        """Current main terms, shape (G,)."""
        if not self.feature_names_:
            return np.zeros(0)
        return self.importances_[: self._n_players()]

    @property
    def pair_values_(self) -> np.ndarray:
        """Current pair terms as a symmetric (G, G) matrix with a zero diagonal."""
        if not self.feature_names_:
            return np.zeros((0, 0))
        G = self._n_players()
        return _square(self.importances_[G : G + G * (G - 1) // 2], G)

    def _n_players(self) -> int:
        if self._plan is None:
            self._value_shape()
        assert self._plan is not None
        return self._plan.n_players

    def standard_errors(self) -> np.ndarray:
        """Standard deviation of the current estimate, shape (G + P,).

        ``sqrt(var * alpha / (2 - alpha))`` for ``'ema'`` (the stationary spread of an
        exponentially weighted mean of independent values), ``sqrt(var / n)`` for ``'mean'``.
        """
        var = np.maximum(self.variances_, 0.0)
        if self.aggregation == "ema":
            return np.sqrt(var * self.alpha / (2 - self.alpha))
        return np.sqrt(var / max(self._aggregator.n, 1))

    def to_result(self) -> ShapleyInteractions:
        """The current estimate as a :class:`~ixplain.ShapleyInteractions` (standard errors
        from :meth:`standard_errors`).

        Raises
        ------
        NotStartedError
            Before the first explained observation (a ValueError and an AttributeError, as
            ``IncrementalPDP.pd_`` raises).
        """
        if self._aggregator.n == 0 or self.players_ is None:
            seen = self.n_seen_
            why = (f"; it has seen {seen} row(s), which only filled its storage (a row met by "
                   "an empty storage has no perturbation data and is not explained, nor are "
                   "skipped rows): explain more rows first") if seen else ""
            raise NotStartedError(f"{self._owner} has not explained any observation yet{why}.")
        assert self._plan is not None
        settings = self._settings()
        settings.update(n_observations=self.n_explained_,
                        explained_loss=self.marginal_loss_ - self.model_loss_)
        return ShapleyInteractions.from_vector(
            self.importances_, self.standard_errors(), self.players_, self.index, settings,
            order=self.order,
        )

    def to_time_series(self) -> InteractionTimeSeries:
        """``history_`` as an :class:`~ixplain.InteractionTimeSeries`.

        Raises
        ------
        ValueError
            Before the first snapshot.
        """
        if not self.history_ or self.players_ is None:
            raise ValueError(
                f"{self._owner} has no history_ snapshots yet (explain at least history_every "
                "observations)."
            )
        return InteractionTimeSeries.from_history(
            list(self.history_), self.players_, self.index, self._settings()
        )

    def _settings(self) -> dict[str, Any]:
        assert self._plan is not None
        return {
            "method": self._plan.method,
            "order": self.order,
            "loss": self.loss if isinstance(self.loss, str) else getattr(self.loss, "name", "callable"),
            "n_samples": self.n_samples_,
            "loss_estimator": self._correction,
            "aggregation": self.aggregation,
            "alpha": self.alpha,
        }
