"""ixai's explainer and storage signatures on ixplain's engine: change the import, keep the loop.

ixai (Muschalik, Fumagalli et al., the iPFI and iSAGE authors' library) writes::

    from ixai.explainer import IncrementalPFI
    from ixai.storage import GeometricReservoirStorage

    explainer = IncrementalPFI(model_function=model.predict_one, loss_function=metrics.MAE(),
                               feature_names=names, smoothing_alpha=0.001, n_inner_samples=5,
                               storage=GeometricReservoirStorage(size=500, store_targets=False))
    for x, y in stream:
        explainer.explain_one(x, y)          # returns {feature: importance}
        model.learn_one(x, y)
    explainer.importance_values

With ``from ixplain.compat.ixai import IncrementalPFI, GeometricReservoirStorage`` the same code
runs on ixplain: the classes here are :class:`ixplain.IncrementalPFI` and
:class:`ixplain.IncrementalSAGE` with ixai's parameter names, ``explain_one`` returning the
importance dict, and ixai's ``importance_values``, ``variances`` and ``seen_samples``. What
differs from ixai (on purpose; see the README's migration section):

* iSAGE is ixplain's unbiased estimator (ixai's is biased by the loss of an averaged
  prediction); ``n_inner_samples`` for it is ixplain's ``n_samples``;
* ``GeometricReservoirStorage(size, constant_probability=None)`` keeps every new row
  (``p = 1``), as ixplain's default; a given probability is ixplain's ``p``;
* randomness comes from ``random_state`` (a keyword ixai does not have; default None);
* ``imputer`` must be None (ixai's marginal imputer is ixplain's only behaviour here), and
  ``explain_one(..., update_storage=False)`` is refused: ixplain stores every explained row.

References
----------
M. Muschalik, F. Fumagalli, B. Hammer, E. Hüllermeier, "iSAGE: An Incremental Version of SAGE
for Online Explanation on Data Streams", ECML PKDD 2023; the ``ixai`` package, version 0.1.3.

Examples
--------
>>> import numpy as np
>>> from ixplain.compat.ixai import IncrementalPFI
>>> rng = np.random.default_rng(0)
>>> f = lambda x: 3 * x["a"]                                 # ixai's per-row model function
>>> pfi = IncrementalPFI(f, "squared_error", ["a", "b"], dynamic_setting=False, random_state=0)
>>> for _ in range(2000):
...     x = {"a": rng.normal(), "b": rng.normal()}
...     values = pfi.explain_one(x, 3 * x["a"])
>>> {k: round(v) for k, v in values.items()}                 # 2 * 3**2 * Var(a) = 18
{'a': 18, 'b': 0}
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..methods.isage import IncrementalSAGE as _IncrementalSAGE
from ..methods.pfi import IncrementalPFI as _IncrementalPFI
from ..storage import GeometricReservoir, UniformReservoir

__all__ = [
    "GeometricReservoirStorage",
    "IncrementalPFI",
    "IncrementalSage",
    "UniformReservoirStorage",
]


def GeometricReservoirStorage(
    size: int, constant_probability: float | None = None, store_targets: bool = False
) -> GeometricReservoir:
    """ixai's geometric reservoir: :class:`ixplain.GeometricReservoir` (``p = 1`` for None).

    ``store_targets`` is accepted and ignored (ixplain storages keep labels when given them).
    """
    p = 1.0 if constant_probability is None else float(constant_probability)
    return GeometricReservoir(size, p=p)


def UniformReservoirStorage(size: int = 1000, store_targets: bool = False) -> UniformReservoir:
    """ixai's uniform reservoir: :class:`ixplain.UniformReservoir` (``store_targets`` ignored)."""
    return UniformReservoir(size)


def _options(owner: str, imputer: Any, loss_bigger_is_better: bool, loss: Any) -> Any:
    if imputer is not None:
        raise ValueError(
            f"{owner} (ixplain.compat.ixai): the 'imputer' parameter must be None; ixai's marginal "
            f"imputer is what ixplain does. Got {type(imputer).__name__}."
        )
    if loss_bigger_is_better and callable(loss) and not isinstance(loss, str):
        return lambda y_true, y_pred: -np.asarray(loss(y_true, y_pred), dtype=np.float64)
    return loss


class _IxaiAttributes:
    """ixai's result attributes and ``explain_one`` signature on an ixplain explainer."""

    feature_names_: list[str] | None

    @property
    def importance_values(self) -> dict[str, float]:
        """``{feature: importance}``, ixai's attribute."""
        names = self.feature_names_ or []
        return dict(zip(names, np.asarray(self.importances_, dtype=np.float64).tolist()))  # type: ignore[attr-defined]

    @property
    def variances(self) -> dict[str, float]:
        """``{feature: variance}``, ixai's attribute."""
        names = self.feature_names_ or []
        return dict(zip(names, np.asarray(self.variances_, dtype=np.float64).tolist()))  # type: ignore[attr-defined]

    @property
    def seen_samples(self) -> int:
        """Observations received (ixai's name for ``n_seen_``)."""
        return int(self.n_seen_)  # type: ignore[attr-defined]

    def explain_one(self, x_i: Any, y_i: Any = None, update_storage: bool = True) -> dict:  # type: ignore[override]
        """Explain one observation; return ``importance_values`` (ixai's return value).

        Raises
        ------
        ValueError
            If ``update_storage`` is False (ixplain stores every explained row).
        """
        if not update_storage:
            raise ValueError(
                "ixplain.compat.ixai: update_storage=False is not supported; ixplain stores every "
                "explained row (give the explainer a storage sized for your stream instead)."
            )
        super().explain_one(x_i, y_i)  # type: ignore[misc]
        return self.importance_values


class IncrementalPFI(_IxaiAttributes, _IncrementalPFI):  # type: ignore[misc]
    """ixai's ``IncrementalPFI(model_function, loss_function, feature_names, ...)`` on ixplain.

    Parameters
    ----------
    model_function : callable or model
        ``model.predict_one``, ``model.predict_proba_one``, a per-row ``f(x: dict)``, or any
        model :func:`ixplain.as_model` accepts.
    loss_function : River metric, str or callable
        ``metrics.MAE()``, ``metrics.CrossEntropy()``, ... (see :func:`ixplain.get_loss`).
    feature_names : sequence of str
    storage : storage, optional
        From this module or :mod:`ixplain.storage`.
    imputer : None
    n_inner_samples : int, default=1
        ixplain's ``n_samples``.
    smoothing_alpha : float, default=0.001
        ixplain's ``alpha``.
    dynamic_setting : bool, default=True
        True: exponential smoothing (``aggregation="ema"``); False: a running mean.
    random_state : None, int or numpy.random.Generator, default=None
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
        loss = _options("IncrementalPFI", imputer, False, loss_function)
        super().__init__(
            model_function, loss, feature_names=feature_names, storage=storage,
            n_samples=n_inner_samples, alpha=smoothing_alpha,
            aggregation="ema" if dynamic_setting else "mean", random_state=random_state,
        )


class IncrementalSage(_IxaiAttributes, _IncrementalSAGE):  # type: ignore[misc]
    """ixai's ``IncrementalSage(model_function, loss_function, feature_names, ...)`` on ixplain
    (ixplain's unbiased iSAGE; parameters as :class:`IncrementalPFI` here, plus
    ``loss_bigger_is_better``, which negates a callable loss)."""

    def __init__(
        self,
        model_function: Any,
        loss_function: Any,
        feature_names: Any,
        *,
        smoothing_alpha: float | None = None,
        storage: Any = None,
        imputer: Any = None,
        n_inner_samples: int = 1,
        dynamic_setting: bool = True,
        loss_bigger_is_better: bool = False,
        random_state: Any = None,
    ) -> None:
        loss = _options("IncrementalSage", imputer, loss_bigger_is_better, loss_function)
        super().__init__(
            model_function, loss=loss, feature_names=feature_names, storage=storage,
            n_samples=n_inner_samples, alpha=0.001 if smoothing_alpha is None else smoothing_alpha,
            aggregation="ema" if dynamic_setting else "mean", random_state=random_state,
        )
