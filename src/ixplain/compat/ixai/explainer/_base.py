"""What ixai's incremental explainers share, on ixplain's explainers: ixai's constructor pieces
(model wrappers, imputer, shared storage, loss direction), ``explain_one(...,
update_storage=False)`` and ixai's result attributes keyed by the feature names as given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ....methods._sampler import child_seed
from ..imputer import MarginalImputer
from ..storage import GeometricReservoirStorage, UniformReservoirStorage, _IxaiStorage
from ..utils.wrappers import Wrapper

__all__ = ["IxaiExplainer", "loss_offset", "resolve_model", "resolve_storage"]


def resolve_model(model_function: Any, feature_names: Any) -> Any:
    """The model ixplain is given: a wrapper's own prediction function (ixplain calls the
    model's batch path), anything else as it is."""
    if isinstance(model_function, Wrapper):
        return model_function._as_ixplain(None if feature_names is None else list(feature_names))
    return model_function


def resolve_storage(owner: str, storage: Any, imputer: Any) -> Any:
    """The explainer's storage: ``storage``, or the storage of a :class:`MarginalImputer`.

    Raises
    ------
    ValueError
        If ``imputer`` is neither None nor a :class:`MarginalImputer`, or names a storage
        other than ``storage``.
    """
    if imputer is None:
        return storage
    if not isinstance(imputer, MarginalImputer):
        raise ValueError(
            f"{owner} (ixplain.compat.ixai): the 'imputer' parameter must be None or a "
            "MarginalImputer (marginal removal, ixplain's behaviour here; for conditional "
            "removal use ixplain's explainers with removal='conditional'). "
            f"Got {type(imputer).__name__}."
        )
    if storage is not None and storage is not imputer.storage_object:
        raise ValueError(
            f"{owner} (ixplain.compat.ixai): the 'imputer' draws from another storage than the "
            "'storage' parameter; give both the same storage (or only one of them)."
        )
    return imputer.storage_object


def loss_offset(loss_function: Any, loss_bigger_is_better: bool) -> float:
    """What ixai adds to ixplain's ``marginal_loss_`` / ``model_loss_`` to report its
    ``marginal_loss`` / ``model_loss``.

    ixai scores a River metric where bigger is better (``Accuracy``) as minus the metric, and
    adds 1 when ``loss_bigger_is_better``; ixplain scores ``Accuracy`` as the 0-1 loss
    (``1 - accuracy``). For a callable loss ixai adds 1 when ``loss_bigger_is_better``."""
    if getattr(loss_function, "bigger_is_better", False) and not isinstance(loss_function, str):
        return 0.0 if loss_bigger_is_better else -1.0
    return 1.0 if loss_bigger_is_better else 0.0


class IxaiExplainer:
    """Mixin (before an ixplain incremental explainer): ixai's ``explain_one`` and attributes.

    The subclass's ``__init__`` calls :meth:`_ixai_names` with the names as given."""

    _keys: dict[str, Any]
    _loss_offset: float = 0.0
    _skip_store: bool = False

    def _ixai_names(self, feature_names: Any, storage: Any) -> None:
        names = [] if feature_names is None else list(feature_names)
        self._keys = {str(n): n for n in names}
        if isinstance(storage, _IxaiStorage) and names:
            storage._remember_keys(names)

    def _default_storage(self) -> Any:
        """ixplain's default storage (same kind, size and seed) as the ixai-style storage of
        :mod:`ixplain.compat.ixai.storage`, so that ``explainer.storage.get_data()`` works."""
        seed = child_seed(self._seed, "storage")  # type: ignore[attr-defined]
        if self.aggregation == "mean":  # type: ignore[attr-defined]
            return UniformReservoirStorage(1000, random_state=seed)
        return GeometricReservoirStorage(1000, random_state=seed)

    def _check_keys(self, x_i: Any) -> None:
        """ixai reads ``x_i[name]`` for each feature name as given: an int name needs an int
        key (a str key ``"0"`` is not feature ``0``), and the reverse.

        Raises
        ------
        ValueError
            If a dict ``x_i`` lacks one of the feature names (as given) among its keys.
        """
        if not isinstance(x_i, Mapping) or not self._keys:
            return
        names = list(self._keys.values())
        have = {(isinstance(k, str), k) for k in x_i}  # (a str key never stands for an int)
        missing = [n for n in names if (isinstance(n, str), n) not in have]
        if missing:
            raise ValueError(
                f"{type(self).__name__} (ixplain.compat.ixai): the observation has no feature "
                f"{missing[0]!r} (expected keys {names!r}, the feature_names as given; "
                f"got {list(x_i)!r})."
            )

    def _as_dict(self, values: Any) -> dict:
        names = self.feature_names_ or list(self._keys)  # type: ignore[attr-defined]
        arr = np.asarray(values, dtype=np.float64).reshape(-1)
        if arr.size != len(names):
            arr = np.zeros(len(names))
        return {self._keys.get(str(n), n): float(v) for n, v in zip(names, arr.tolist())}

    @property
    def importance_values(self) -> dict:
        """``{feature: importance}`` (ixai's attribute; feature names as given)."""
        return self._as_dict(self.importances_)  # type: ignore[attr-defined]

    @property
    def variances(self) -> dict:
        """``{feature: variance}`` (ixai's attribute)."""
        return self._as_dict(self.variances_)  # type: ignore[attr-defined]

    @property
    def seen_samples(self) -> int:
        """Observations received (ixai's name for ``n_seen_``)."""
        return int(self.n_seen_)  # type: ignore[attr-defined]

    @property
    def number_of_features(self) -> int:
        """How many features are explained (ixai's attribute)."""
        return len(self._keys or self.feature_names_ or [])  # type: ignore[attr-defined]

    def explain_one(self, x_i: Any, y_i: Any = None, n_inner_samples: int | None = None,  # type: ignore[override]
                    update_storage: bool = True) -> dict:
        """Explain one observation; return ``importance_values`` (ixai's return value).

        Parameters
        ----------
        x_i : dict
        y_i : object, optional
            Its label.
        n_inner_samples : int, optional
            ixai's per-call draw count: accepted when None or equal to the explainer's.
        update_storage : bool, default=True
            False: the row is explained but not written to the storage (ixai's meaning: the
            storage is written by another explainer that shares it).

        Returns
        -------
        dict

        Raises
        ------
        ValueError
            If ``n_inner_samples`` differs from the explainer's (set it at construction), or a
            dict ``x_i`` lacks a feature name as given (an int name needs an int key).
        TypeError
            If ``update_storage`` is not a bool.
        """
        if n_inner_samples is not None and n_inner_samples != self.n_samples:  # type: ignore[attr-defined]
            raise ValueError(
                f"{type(self).__name__}.explain_one (ixplain.compat.ixai): the "
                "'n_inner_samples' parameter must be None or the explainer's n_inner_samples "
                f"({self.n_samples}); set it at construction. Got {n_inner_samples!r}."  # type: ignore[attr-defined]
            )
        if not isinstance(update_storage, (bool, np.bool_)):
            raise TypeError(
                f"The 'update_storage' parameter of {type(self).__name__}.explain_one must be "
                f"a bool. Got {update_storage!r} instead."
            )
        self._check_keys(x_i)
        self._skip_store = not update_storage
        try:
            super().explain_one(x_i, y_i)  # type: ignore[misc]
        finally:
            self._skip_store = False
        return self.importance_values

    def _store_rows(self, cols: Any, slots: Any, y: Any) -> None:
        if self._skip_store:
            return
        super()._store_rows(cols, slots, y)  # type: ignore[misc]

    def update_storage(self, x_i: Any, y_i: Any = None) -> None:
        """Offer one observation to the storage without explaining it (ixai's method).

        Parameters
        ----------
        x_i : dict
        y_i : object, optional

        Raises
        ------
        ValueError
            If a dict ``x_i`` lacks a feature name as given (an int name needs an int key).
        """
        self._check_keys(x_i)
        self.storage.update(x_i, y_i)  # type: ignore[attr-defined]

    def get_confidence_bound(self, delta: float) -> dict:
        """ixplain's ``confidence_bound(delta)`` as ``{feature: half-width}``.

        Parameters
        ----------
        delta : float in (0, 1]
        """
        return self._as_dict(self.confidence_bound(delta))  # type: ignore[attr-defined]

    def get_normalized_importance_values(self, mode: str = "sum") -> dict:
        """The importances divided by their sum (``"sum"``) or by max - min (``"delta"``).

        Raises
        ------
        ValueError
            If ``mode`` is neither.
        """
        if mode not in ("sum", "delta"):
            raise ValueError(
                "The 'mode' parameter of get_normalized_importance_values must be 'sum' or "
                f"'delta'. Got {mode!r} instead."
            )
        values = self.importance_values
        v = list(values.values())
        factor = (sum(v) if mode == "sum" else max(v) - min(v)) if v else 0.0
        if factor == 0:
            return {k: 0.0 for k in values}
        return {k: x / factor for k, x in values.items()}
