"""Incremental SAGE (iSAGE): SAGE values on a data stream, with the reference's bias removed.

Each observation ``(x_t, y_t)`` gets one random order of the players and the marginal
contributions along it (the per-observation SAGE function of :mod:`._sage_core`), with the
removed features imputed from ``n_samples`` rows of the storage; the contributions are smoothed
(``aggregation='ema'``) or averaged (``'mean'``). All ``G * n_samples + 1`` model rows of an
observation (``G`` players: ``G`` coalitions from the empty one to all but one player, times the
draws, plus ``f(x_t)``) go through the model in one call; :meth:`explain_many` puts a whole
mini-batch in one call.

What the estimate converges to
------------------------------
Let ``P`` be the distribution of the storage rows and, for a coalition ``S``,
``m_S(x) = E_{X' ~ P}[f(x_S, X'_{-S})]``. SAGE (Covert et al. 2020) is the Shapley value of
``v(S) = E[l(m_empty(x), y)] - E[l(m_S(x), y)]``. With a static model, a stationary stream and
``aggregation='mean'`` (``'ema'``: the exponentially weighted version over the recent stream):

* ``loss='squared_error'`` or ``'brier'`` with ``n_samples >= 2`` (default 8): SAGE exactly. The
  loss of the averaged prediction is estimated without bias:
  ``l(pbar, y) - var(p_1..p_s) / s`` (``E[(pbar - y)^2] = (m_S - y)^2 + Var(p) / s``).
* ``loss='log_loss'`` (default ``n_samples=32``): SAGE up to an ``O(1/s^2)`` bias left by the
  jackknife correction ``s l(pbar) - (s - 1) mean_j l(pbar_{-j})`` (the plain plug-in has an
  ``O(1/s)`` bias). For models whose probabilities reach 0 or 1 the log loss of a mean of few
  draws is unstable (a draw at 0 weighs 34.5 nats: with 5 draws a Hoeffding tree's values
  summed to half the explained loss, with 2 the marginal loss came out negative), so an
  ``n_samples`` below 32 is raised to 32 with a warning; prefer Brier for fewer draws. (The
  static :func:`~ixplain.sage` with the same few draws stays right in sum: its control variate
  pins the mean total to the exactly known explained loss, which a stream does not have.)
* ``n_samples=1`` with squared error / Brier, and every other loss (absolute error, 0-1,
  callables; default ``n_samples=32``): no unbiased estimator exists; the estimate converges to
  the Shapley values of ``v_s(S) = E[l(empty) - l(mean of s draws of f(x_S, X'_{-S}), y)]``, which
  tend to SAGE as ``s`` grows. (With ``s = 1`` and squared error this is the "expected loss"
  game, about twice SAGE for pure interactions.)

In every setting, all coalitions of one observation use the same ``s`` storage rows (common
random numbers) and the empty coalition is estimated from those rows too, so a player the model
ignores contributes exactly 0 in every sample, and the contributions of one observation sum to
``l(empty) - l(f(x), y)``: the values satisfy efficiency at every step,
``importances_.sum() == marginal_loss_ - model_loss_`` (float precision).

The reference implementation (ixai's ``IncrementalSage``) scores the empty coalition with the
smoothed mean prediction but every other coalition with the loss of a mean of (by default) one
draw; by Jensen's inequality the ignored features come out negative and the relevant ones
inflated (for ``y = x0 * x1`` on ``{-1, 1}^3``: about -1/3 for the dummy instead of 0).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._validation import check_int, param_error
from ..imputation import check_removal
from ..losses import get_loss
from ..tabular import Table
from ._conditional import conditional_storage
from ._engine import RowBatch
from ._incremental import IncrementalExplainer, Sampler
from ._sage_core import correction_for, resolve_players
from .sage import ConditionalSAGEFunction, SAGEFunction

__all__ = ["IncrementalSAGE"]

#: Default draws per coalition, by the bias correction the loss allows.
DEFAULT_SAMPLES = {"variance": 8, "jackknife": 32, "plugin": 32}


def check_game_options(n_samples: Any, groups: Any, correction: str, owner: str) -> int:
    """The inner draws per coalition for ``n_samples`` (``"auto"``: :data:`DEFAULT_SAMPLES` of
    the loss's ``correction``), after checking ``groups`` is None or a dict (iSAGE and the
    incremental Shapley interactions take both).

    With the log loss (jackknife correction) an ``n_samples`` below 32 is raised to 32 with a
    ``UserWarning``: the log loss of a mean of fewer draws is unstable where probabilities
    reach 0 or 1 (the static :func:`~ixplain.sage` stays right there, through its control
    variate on the exactly known explained loss; a stream has no such anchor).

    Raises
    ------
    ValueError, TypeError
        For an ``n_samples`` that is neither ``"auto"`` nor an int >= 1, or ``groups`` that is
        not a dict (the message names the parameter and the value).
    """
    if isinstance(n_samples, str):
        if n_samples != "auto":
            raise param_error(owner, "n_samples", "'auto' or an int >= 1", n_samples)
        s = DEFAULT_SAMPLES[correction]
    else:
        s = int(check_int(n_samples, "n_samples", owner, min_value=1))  # type: ignore[arg-type]
        least = DEFAULT_SAMPLES["jackknife"]
        if correction == "jackknife" and s < least:
            warnings.warn(
                f"{owner}: n_samples={s} raised to {least} for the log loss: the log loss of a "
                "mean of few draws is unstable where the model's probabilities reach 0 or 1 (a "
                "draw at 0 weighs -log(1e-15) = 34.5; with 5 draws a Hoeffding tree's values "
                "summed to half the explained loss, with 2 the marginal loss was negative). "
                "Fewer draws: loss='brier' (unbiased from 2 draws).",
                UserWarning, stacklevel=3,
            )
            s = least
    if groups is not None and not isinstance(groups, dict):
        raise param_error(
            owner, "groups", "None or a non-empty dict of group name -> list of features",
            groups, exc=TypeError,
        )
    return s


class LossGameValues:
    """Results of an incremental explainer of SAGE's loss game whose per-observation values end
    with two slots: the loss of the averaged prediction (the empty coalition) and the model's
    loss. ``importances_`` and ``variances_`` leave them out; ``marginal_loss_`` and
    ``model_loss_`` read them (iSAGE, incremental Shapley interactions)."""

    feature_names_: list[str] | None
    _aggregator: Any

    def _all(self) -> np.ndarray:
        return IncrementalExplainer.importances_.fget(self)  # type: ignore[attr-defined]

    @property
    def importances_(self) -> np.ndarray:
        """The current values without the two loss slots; zeros before the first row."""
        return self._all()[:-2] if self.feature_names_ else np.zeros(0)

    @property
    def variances_(self) -> np.ndarray:
        """Variance of the per-observation values (without the two loss slots)."""
        if self._aggregator.n == 0:
            return np.zeros_like(self.importances_)
        return np.asarray(self._aggregator.variance)[:-2]

    @property
    def marginal_loss_(self) -> float:
        """Smoothed loss of the averaged prediction (the empty coalition)."""
        return float(self._all()[-2]) if self.feature_names_ else 0.0

    @property
    def model_loss_(self) -> float:
        """Smoothed loss of the model."""
        return float(self._all()[-1]) if self.feature_names_ else 0.0


class IncrementalSAGE(LossGameValues, IncrementalExplainer):
    """SAGE values of a model on a data stream (iSAGE), bias-free for squared error and Brier.

    Parameters
    ----------
    model : estimator, River model, Booster or callable
        Anything :func:`ixplain.as_model` accepts; called at explain time, so a model that
        learns online is explained as it is at that moment.
    loss : str, Loss or callable
        ``"squared_error"``, ``"brier"``, ``"log_loss"``, ``"absolute_error"``, ``"zero_one"``
        or a callable (see :func:`ixplain.get_loss`).
    n_samples : int or "auto", default="auto"
        Storage rows drawn per observation (shared by all its coalitions). ``"auto"``: 8 for
        squared error and Brier, 32 otherwise. See the module docstring for what each setting
        converges to.
    groups : dict of str to list of str, optional
        Players made of several features; features in no group are players of their own,
        after the groups.
    feature_names, storage, aggregation, alpha, bias_corrected, history_every, history_size,
    response_method, nan_policy, random_state, max_batch
        As in :class:`~ixplain.methods._incremental.IncrementalExplainer`: default storage
        ``GeometricReservoir(1000)`` for ``'ema'``, ``UniformReservoir(1000)`` for ``'mean'``;
        ``alpha=0.001``.
    drift_detector : ExplanationDriftDetector, optional
        Tests every observation's explanation values for changes (:mod:`ixplain.drift`);
        events in ``drift_detector.events_``.
    removal : {"marginal", "conditional"}, default="marginal"
        ``"conditional"``: the features outside a coalition drawn from their conditional
        distribution given it, by the sampler of a
        :class:`~ixplain.imputation.ConditionalStorage` (the default storage then; a storage
        given must be one). See :mod:`ixplain.imputation`.

    Attributes
    ----------
    importances_ : ndarray of shape (n_players,)
        Current SAGE values (smoothed or averaged marginal contributions).
        Before the first explained row it is not an error (River's and ixai's habit, where an
        explainer that has seen nothing reports nothing): an empty array (shape (0,)) before
        the first observation, zeros of this shape once the features are known but no row was
        explained yet (the first row only fills an empty storage, or every row was skipped).
        ``IncrementalPDP.pd_`` and ``IncrementalALE.ale_`` raise ``NotStartedError`` instead:
        a curve has no grid before its first row.
    variances_ : ndarray of shape (n_players,)
        Variance of the per-observation contributions (for :meth:`confidence_bound`).
    marginal_loss_, model_loss_ : float
        Smoothed loss of the empty coalition (the averaged prediction) and of the model; their
        difference equals ``importances_.sum()``.
    players_ : list of str
        The players (features or groups), in the order of ``importances_``.
    history_ : deque of (n_seen, importances, variances)

    References
    ----------
    Muschalik, M., Fumagalli, F., Hammer, B., Hüllermeier, E. "iSAGE: An Incremental Version of
    SAGE for Online Explanation on Data Streams." ECML PKDD 2023.
    Covert, I., Lundberg, S., Lee, S.-I. "Understanding Global Feature Contributions With
    Additive Importance Measures." NeurIPS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.choice([-1.0, 1.0], size=(3000, 3))
    >>> y = X[:, 0] * X[:, 1]
    >>> explainer = IncrementalSAGE(lambda Z: Z[:, 0] * Z[:, 1], loss="squared_error",
    ...                             aggregation="mean", random_state=0)
    >>> explainer.explain_many(X, y).round(1)  # theory: 0.5, 0.5, 0
    array([0.5, 0.5, 0. ])
    >>> bool(np.isclose(explainer.importances_.sum(),
    ...                 explainer.marginal_loss_ - explainer.model_loss_))
    True
    """

    _owner = "IncrementalSAGE"
    requires_labels = True
    requires_storage = True

    def __init__(
        self,
        model: Any,
        *,
        loss: Any,
        n_samples: int | str = "auto",
        groups: dict[str, list[str]] | None = None,
        feature_names: Any = None,
        storage: Any = None,
        aggregation: str = "ema",
        alpha: float = 0.001,
        bias_corrected: bool = False,
        history_every: int = 100,
        history_size: int = 1000,
        response_method: str = "auto",
        nan_policy: str = "skip",
        random_state: Any = None,
        removal: str = "marginal",
        max_batch: int | None = None,
        drift_detector: Any = None,
    ) -> None:
        owner = self._owner
        self.removal = check_removal(removal, owner)
        storage = conditional_storage(self, storage, random_state)
        self.loss = loss
        self._loss = get_loss(loss, owner)
        self._correction = correction_for(self._loss)
        self.n_samples = n_samples
        self.n_samples_ = check_game_options(n_samples, groups, self._correction, owner)
        self.groups = groups
        self.players_: list[str] | None = None
        self._col_player: np.ndarray | None = None
        self._method: SAGEFunction | None = None  # the explanation function, at the first row
        super().__init__(
            model,
            feature_names=feature_names,
            storage=storage,
            aggregation=aggregation,
            alpha=alpha,
            bias_corrected=bias_corrected,
            history_every=history_every,
            history_size=history_size,
            response_method=response_method,
            nan_policy=nan_policy,
            random_state=random_state,
            max_batch=max_batch,
        )
        if feature_names is not None:
            self._set_players(list(self.feature_names or []))
        self.drift_detector = drift_detector

    # ------------------------------------------------------------------ the explanation function
    def _set_players(self, names: list[str]) -> None:
        self.players_, self._col_player = resolve_players(names, self.groups, self._owner)
        self._method = None  # rebuilt for the new players

    def _explain_batch(self, X: Table, y: np.ndarray | None, sampler: Sampler) -> np.ndarray:
        if self._col_player is None or len(self._col_player) != len(X.names):
            self._set_players(list(X.names))
        assert self.players_ is not None and self._col_player is not None and y is not None
        if self._method is None:  # the registered method, its P the storage
            if self.removal == "conditional":  # drawn by the storage's conditional sampler
                self._method = ConditionalSAGEFunction(
                    self._model, self._loss, None, self._col_player, self.players_,
                    self.n_samples_, self._seed, 0, None)
            else:
                self._method = SAGEFunction(self._model, self._loss, None, self._col_player,
                                            self.players_, self.n_samples_, False, self._seed, 0)
        return self._method.explain_sampled(RowBatch(X, y, int(sampler.rows[0])), sampler)

    def _value_shape(self) -> tuple[int, ...]:
        if self.players_ is None:
            assert self.feature_names_ is not None
            self._set_players(list(self.feature_names_))
        assert self.players_ is not None
        return (len(self.players_) + 2,)

