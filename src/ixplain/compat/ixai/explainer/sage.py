"""ixai's SAGE explainers (``ixai.explainer.sage``): ``IncrementalSage`` on
:class:`ixplain.IncrementalSAGE`; ``BatchSage`` and ``IntervalSage`` on :func:`ixplain.sage`.

``n_inner_samples`` is forwarded as ixplain's ``n_samples`` (the draws per coalition and
observation) by :class:`IncrementalSage` and, per explanation, by :class:`BatchSage` /
:class:`IntervalSage`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ...._random import root_seed
from ...._validation import check_int
from ....methods.isage import IncrementalSAGE as _IncrementalSAGE
from ....methods.sage import sage
from ....storage import DatasetStorage
from ..storage import BatchStorage, IntervalStorage
from ._base import IxaiExplainer, loss_offset, resolve_model, resolve_storage

__all__ = ["BatchSage", "IncrementalSage", "IntervalSage"]


class IncrementalSage(IxaiExplainer, _IncrementalSAGE):  # type: ignore[misc]
    """ixai's ``IncrementalSage(model_function, loss_function, feature_names, ...)`` on
    :class:`ixplain.IncrementalSAGE` (ixplain's iSAGE, without the reference's bias from the
    loss of an averaged prediction).

    Parameters as :class:`~ixplain.compat.ixai.explainer.IncrementalPFI` (keyword-only after
    ``feature_names``, as in ixai; ``smoothing_alpha=None`` is 0.001), plus
    ``loss_bigger_is_better`` (bool, default False), which, as in ixai, only shifts
    :attr:`marginal_loss` and :attr:`model_loss` (see :func:`._base.loss_offset`).

    Attributes
    ----------
    marginal_loss, model_loss, explained_loss : float
        ixai's names: the smoothed loss of the mean prediction, of the model, and their
        difference (the sum of the importances).
    """

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
        storage = resolve_storage("IncrementalSage", storage, imputer)
        super().__init__(
            resolve_model(model_function, feature_names), loss=loss_function,
            feature_names=feature_names, storage=storage, n_samples=n_inner_samples,
            alpha=0.001 if smoothing_alpha is None else smoothing_alpha,
            aggregation="ema" if dynamic_setting else "mean", random_state=random_state,
        )
        self._loss_offset = loss_offset(loss_function, bool(loss_bigger_is_better))
        self._ixai_names(feature_names, self.storage)

    @property
    def marginal_loss(self) -> float:
        """Smoothed loss of the mean prediction (ixai's ``marginal_loss``)."""
        return float(self.marginal_loss_) + self._loss_offset

    @property
    def model_loss(self) -> float:
        """Smoothed loss of the model (ixai's ``model_loss``)."""
        return float(self.model_loss_) + self._loss_offset

    @property
    def explained_loss(self) -> float:
        """``marginal_loss - model_loss`` (ixai's ``explained_loss``)."""
        return self.marginal_loss - self.model_loss


class BatchSage:
    """ixai's ``BatchSage(model_function, feature_names, loss_function, ...)``: SAGE values of
    every observation held in a storage, with the held rows as background.

    Each explanation takes ``n_permutations`` orders (default one per held row, ixai's cost).
    With ``n_inner_samples`` an int ``s``, ixplain's iSAGE averages over the held rows (a
    running mean; a :class:`ixplain.DatasetStorage` of the held rows as background, ``s``
    draws per coalition), which takes any model output, labels included, as ixai does; with
    ``None``, :func:`ixplain.sage` uses the exact mean over every held row (numeric outputs:
    probabilities or regression values).

    Parameters
    ----------
    model_function : callable, wrapper or model
    feature_names : sequence
        The features explained (names kept as given).
    loss_function : River metric, str or callable
    n_inner_samples : int or None, default=1
        ixplain's ``n_samples``.
    storage : storage with ``get_data()``, optional
        Default :class:`~ixplain.compat.ixai.storage.BatchStorage` (labels kept).
    imputer : MarginalImputer, optional
    n_permutations : int, optional
        Orders per explanation (default: one per held row). Keyword only (not in ixai).
    random_state : None, int or numpy.random.Generator, default=None
        Keyword only (not in ixai): seeds every explanation.

    Attributes
    ----------
    importance_values : dict
        ``{feature: SAGE value}`` of the last explanation (zeros before).
    std_ : ndarray of shape (n_features,)
        Standard errors of the last explanation's values.
    result_ : FeatureImportance, IncrementalSAGE or None
        What computed the last explanation.
    """

    _owner = "BatchSage"

    def __init__(
        self,
        model_function: Any,
        feature_names: Any,
        loss_function: Any,
        n_inner_samples: int | None = 1,
        storage: Any = None,
        imputer: Any = None,
        *,
        n_permutations: int | None = None,
        random_state: Any = None,
    ) -> None:
        storage = resolve_storage(self._owner, storage, imputer)
        if (feature_names is None or isinstance(feature_names, (str, bytes))
                or not isinstance(feature_names, Iterable)):
            raise TypeError(
                f"The 'feature_names' parameter of {self._owner} must be a sequence of feature "
                f"names. Got {feature_names!r} instead."
            )
        self.feature_names = list(feature_names)
        self.n_inner_samples = n_inner_samples
        self.n_permutations = n_permutations
        if n_permutations is not None:
            check_int(n_permutations, "n_permutations", self._owner, min_value=1)
        self._model = resolve_model(model_function, self.feature_names)
        self._loss_function = loss_function
        self._storage = self._default_storage() if storage is None else storage
        if not callable(getattr(self._storage, "get_data", None)):
            raise TypeError(
                f"The 'storage' parameter of {self._owner} must be a storage of "
                f"ixplain.compat.ixai.storage (with get_data()). Got "
                f"{type(self._storage).__name__} instead."
            )
        self._rng = np.random.default_rng(root_seed(random_state, self._owner))
        self.importance_values = {name: 0.0 for name in self.feature_names}
        self.result_: Any = None
        self.std_ = np.zeros(len(self.feature_names))

    def _default_storage(self) -> Any:
        return BatchStorage(store_targets=True)

    @property
    def storage(self) -> Any:
        """The storage whose rows are explained."""
        return self._storage

    def update_storage(self, x_i: Any, y_i: Any = None) -> None:
        """Offer one observation to the storage (ixai's method)."""
        self._storage.update(x_i, y_i)

    def explain_one(self, x_i: Any, y_i: Any, n_inner_samples: int | None = None,
                    original_sage: bool = False, verbose: bool = True) -> dict:
        """Store ``(x_i, y_i)``, then explain every held row (ixai's ``explain_one``).

        ``original_sage`` is accepted (ixplain's estimator is the original SAGE estimator
        with shared background draws); ``verbose`` shows ixplain's progress bar.
        """
        self._storage.update(x_i, y_i)
        x_data, y_data = self._storage.get_data()
        return self.explain_many(x_data, y_data, n_inner_samples, verbose)

    def explain_many(self, x_data: Any, y_data: Any, n_inner_samples: int | None = None,
                     verbose: bool = True) -> dict:
        """SAGE values of the rows ``x_data`` (list of dict) with labels ``y_data``.

        Raises
        ------
        ValueError
            If there are no labels (a storage built with ``store_targets=False``) or their
            number differs from the rows'.
        """
        x_data, y_data = list(x_data), list(y_data)
        if len(y_data) != len(x_data):
            raise ValueError(
                f"{self._owner}: SAGE needs a label per row; got {len(x_data)} rows and "
                f"{len(y_data)} labels (was the storage built with store_targets=False?)."
            )
        s = self.n_inner_samples if n_inner_samples is None else n_inner_samples
        records = [{k: row[k] for k in self.feature_names} for row in x_data]
        seed = int(self._rng.integers(0, 2**63 - 1))
        n_perm = self.n_permutations or len(records)
        if s is None:
            values, std = self._exact_inner(records, y_data, n_perm, seed, bool(verbose))
        else:
            values, std = self._drawn_inner(records, y_data, int(s), n_perm, seed)
        self.std_ = std
        self.importance_values = dict(zip(self.feature_names, values.tolist()))
        return self.importance_values

    def _exact_inner(self, records: list, y: list, n_perm: int, seed: int,
                     verbose: bool) -> tuple[np.ndarray, np.ndarray]:
        """:func:`ixplain.sage` with every held row as background (the exact inner mean)."""
        result = sage(
            self._model, records, np.asarray(y), loss=self._loss_function, background=records,
            n_samples=None, n_permutations=n_perm, convergence_threshold=None,
            random_state=seed, progress=verbose,
        )
        self.result_ = result
        return (np.asarray(result.importances_mean, dtype=float),
                np.asarray(result.importances_std, dtype=float))

    def _drawn_inner(self, records: list, y: list, s: int, n_perm: int,
                     seed: int) -> tuple[np.ndarray, np.ndarray]:
        """ixplain's iSAGE with a running mean over the held rows (cycled to ``n_perm``
        orders), drawing ``s`` background rows per coalition from the held rows: the SAGE
        estimator of ixai's BatchSage, for any model output (labels included) and loss."""
        explainer = _IncrementalSAGE(
            self._model, loss=self._loss_function, feature_names=self.feature_names,
            storage=DatasetStorage(records), n_samples=s, aggregation="mean",
            random_state=seed,
        )
        order = np.arange(n_perm) % len(records)
        explainer.explain_many([records[i] for i in order], [y[i] for i in order])
        self.result_ = explainer
        n = max(int(explainer.n_explained_), 1)
        return (np.asarray(explainer.importances_, dtype=float),
                np.sqrt(np.asarray(explainer.variances_, dtype=float) / n))


class IntervalSage(BatchSage):
    """ixai's ``IntervalSage``: every ``interval_length`` observations, the SAGE values of the
    last ``storage_length`` ones (a sliding window, also the background), computed as in
    :class:`BatchSage`.

    Parameters
    ----------
    model_function : callable, wrapper or model
    feature_names : sequence
    loss_function : River metric, str or callable
    n_inner_samples : int or None, default=1
    interval_length : int, default=1000
        Observations between two explanations.
    storage_length : int, default=1000
        Window length (the default storage's size).
    storage : IntervalStorage, optional
        Default ``IntervalStorage(size=storage_length, store_targets=True)``.
    imputer : MarginalImputer, optional
    n_permutations, random_state
        As :class:`BatchSage` (keyword only).

    Raises
    ------
    ValueError
        If ``interval_length`` or ``storage_length`` is not an int >= 1.
    TypeError
        If ``storage`` is not an :class:`~ixplain.compat.ixai.storage.IntervalStorage`.
    """

    _owner = "IntervalSage"

    def __init__(
        self,
        model_function: Any,
        feature_names: Any,
        loss_function: Any,
        n_inner_samples: int | None = 1,
        interval_length: int = 1000,
        storage_length: int = 1000,
        storage: Any = None,
        imputer: Any = None,
        *,
        n_permutations: int | None = None,
        random_state: Any = None,
    ) -> None:
        self.interval_length = int(check_int(interval_length, "interval_length", self._owner,
                                             min_value=1))  # type: ignore[arg-type]
        self.storage_length = int(check_int(storage_length, "storage_length", self._owner,
                                            min_value=1))  # type: ignore[arg-type]
        super().__init__(model_function, feature_names, loss_function, n_inner_samples,
                         storage, imputer, n_permutations=n_permutations,
                         random_state=random_state)
        if not isinstance(self._storage, IntervalStorage):
            raise TypeError(
                "The 'storage' parameter of IntervalSage must be an IntervalStorage. Got "
                f"{type(self._storage).__name__} instead."
            )
        self.seen_samples = 0

    def _default_storage(self) -> Any:
        return IntervalStorage(size=self.storage_length, store_targets=True)

    def explain_one(self, x_i: Any, y_i: Any, n_inner_samples: int | None = None,  # type: ignore[override]
                    update_storage: bool = True, force_explain: bool = False,
                    verbose: bool = True) -> dict:
        """Store the observation (unless ``update_storage`` is False) and, every
        ``interval_length`` observations (or with ``force_explain``), explain the window.

        Returns
        -------
        dict
            The current ``importance_values``.
        """
        if update_storage:
            self._storage.update(x_i, y_i)
        self.seen_samples += 1
        if force_explain or self.seen_samples % self.interval_length == 0:
            x_data, y_data = self._storage.get_data()
            self.explain_many(x_data, y_data, n_inner_samples, verbose)
        return self.importance_values
