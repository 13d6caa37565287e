"""ixai's ``IncrementalPFI`` (``ixai.explainer.pfi``) on :class:`ixplain.IncrementalPFI`."""

from __future__ import annotations

from typing import Any

from ....methods.pfi import IncrementalPFI as _IncrementalPFI
from ._base import IxaiExplainer, resolve_model, resolve_storage

__all__ = ["IncrementalPFI"]


class IncrementalPFI(IxaiExplainer, _IncrementalPFI):  # type: ignore[misc]
    """ixai's ``IncrementalPFI(model_function, loss_function, feature_names, ...)`` on ixplain.

    ``explain_one(x, y, update_storage=True)`` returns ``importance_values``
    (``{feature: importance}``, names as given: ints stay ints); ``variances``,
    ``seen_samples``, ``get_confidence_bound(delta)``,
    ``get_normalized_importance_values(mode)`` and ``update_storage(x, y)`` are ixai's.

    Parameters
    ----------
    model_function : callable, wrapper or model
        ``model.predict_one``, ``model.predict_proba_one``, a wrapper of
        :mod:`ixplain.compat.ixai.utils.wrappers`, a per-row ``f(x: dict)``, or any model
        :func:`ixplain.as_model` accepts.
    loss_function : River metric, str or callable
        ``metrics.MAE()``, ``metrics.CrossEntropy()``, ``metrics.Accuracy()`` (read as the 0-1
        loss), ... (see :func:`ixplain.get_loss`).
    feature_names : sequence, optional
        The features explained (str or int names, kept as given).
    storage : storage, optional
        From :mod:`ixplain.compat.ixai.storage` (may be shared with another explainer) or
        :mod:`ixplain.storage`.
    imputer : MarginalImputer, optional
        ixai's marginal imputer (its storage is the explainer's); None: the same removal.
    n_inner_samples : int, default=1
        Storage rows drawn per feature and observation (ixplain's ``n_samples``).
    smoothing_alpha : float, default=0.001
        ixplain's ``alpha``.
    dynamic_setting : bool, default=True
        True: exponential smoothing (``aggregation="ema"``); False: a running mean.
    random_state : None, int or numpy.random.Generator, default=None
        A keyword ixai does not have: the same seed gives the same explanation.

    Raises
    ------
    ValueError
        If ``imputer`` is not a :class:`~ixplain.compat.ixai.imputer.MarginalImputer` (or names
        another storage than ``storage``), and for the parameters ixplain refuses.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> pfi = IncrementalPFI(lambda x: 3 * x[0], "squared_error", [0, 1],
    ...                      dynamic_setting=False, random_state=0)
    >>> for _ in range(2000):
    ...     x = {0: rng.normal(), 1: rng.normal()}
    ...     values = pfi.explain_one(x, 3 * x[0])
    >>> {k: round(v) for k, v in values.items()}                 # 2 * 3**2 * Var(x0) = 18
    {0: 18, 1: 0}
    """

    def __init__(
        self,
        model_function: Any,
        loss_function: Any,
        feature_names: Any,
        storage: Any = None,
        imputer: Any = None,
        n_inner_samples: int = 1,
        smoothing_alpha: float = 0.001,
        dynamic_setting: bool = True,
        *,
        random_state: Any = None,
    ) -> None:
        storage = resolve_storage("IncrementalPFI", storage, imputer)
        super().__init__(
            resolve_model(model_function, feature_names), loss_function,
            feature_names=feature_names, storage=storage, n_samples=n_inner_samples,
            alpha=smoothing_alpha, aggregation="ema" if dynamic_setting else "mean",
            random_state=random_state,
        )
        self._ixai_names(feature_names, self.storage)
