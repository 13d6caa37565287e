"""ixai's imputers (``ixai.imputer``): how the features an explainer removes are replaced.

:class:`MarginalImputer` with ``sampling_strategy="joint"`` is what ixplain's marginal removal
does: the removed features take the values of one row drawn from the storage. Given to an
explainer of :mod:`ixplain.compat.ixai`, it names the explainer's removal and its storage
(the explainer draws through ixplain's batched engine, not through :meth:`MarginalImputer.impute`,
which serves code that calls the imputer itself). ixai's ``"product"`` strategy (each removed
feature from its own row) and its ``DefaultImputer`` / ``TreeImputer`` are refused with what to
use instead: ixplain's conditional removal is ``removal="conditional"`` on
:class:`ixplain.IncrementalPFI` / :class:`ixplain.IncrementalSAGE`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..._random import root_seed
from .utils.wrappers import RiverWrapper, SklearnWrapper, Wrapper

__all__ = ["DefaultImputer", "MarginalImputer", "TreeImputer", "as_wrapper"]


def as_wrapper(model_function: Any) -> Any:
    """ixai's rule for a model function: a wrapper stays; a scikit-learn method gets a
    :class:`SklearnWrapper`; anything else (a River method, a per-row function) a
    :class:`RiverWrapper`."""
    if isinstance(model_function, Wrapper):
        return model_function
    owner = type(getattr(model_function, "__self__", None)).__module__
    if owner.partition(".")[0] == "sklearn":
        return SklearnWrapper(model_function)
    return RiverWrapper(model_function)


class MarginalImputer:
    """ixai's ``MarginalImputer(model_function, sampling_strategy, storage_object)``: removed
    features take the values of rows drawn from a storage (ixplain's marginal removal).

    Parameters
    ----------
    model_function : callable or wrapper
        The model function (wrapped as ixai does, see :func:`as_wrapper`).
    sampling_strategy : {"joint"}
        ``"joint"``: all removed features from the same drawn row.
    storage_object : storage
        A storage of :mod:`ixplain.compat.ixai.storage` (anything with ``get_data()``).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the draws of :meth:`impute` (not used by the explainers, which draw with their
        own ``random_state``).

    Raises
    ------
    ValueError
        If ``sampling_strategy`` is not ``"joint"``.
    TypeError
        If ``storage_object`` has no ``get_data``.
    """

    def __init__(self, model_function: Any, sampling_strategy: str, storage_object: Any,
                 *, random_state: Any = None) -> None:
        if sampling_strategy != "joint":
            raise ValueError(
                "The 'sampling_strategy' parameter of MarginalImputer must be 'joint' (ixplain "
                "draws the removed features from one stored row; ixai's product of marginals "
                f"is not offered). Got {sampling_strategy!r} instead."
            )
        if not callable(getattr(storage_object, "get_data", None)):
            raise TypeError(
                "The 'storage_object' parameter of MarginalImputer must be a storage of "
                "ixplain.compat.ixai.storage (with get_data()). Got "
                f"{type(storage_object).__name__} instead."
            )
        self.model_function = as_wrapper(model_function)
        self.sampling_strategy = sampling_strategy
        self.storage_object = storage_object
        self._rng = np.random.default_rng(root_seed(random_state, "MarginalImputer"))

    def impute(self, feature_subset: Iterable[Any], x_i: Mapping, n_samples: int = 1) -> list:
        """The model's outputs on ``x_i`` with ``feature_subset`` replaced, ``n_samples`` times.

        Parameters
        ----------
        feature_subset : iterable
            The features to replace.
        x_i : dict
            The observation.
        n_samples : int, default=1
            Rows drawn (with replacement) from the storage.

        Returns
        -------
        list of dict
            ixai's output dicts, one per draw.

        Raises
        ------
        ValueError
            If the storage is empty.
        """
        rows, _ = self.storage_object.get_data()
        if not len(rows):
            raise ValueError("MarginalImputer.impute: the storage is empty; nothing to draw.")
        subset = list(feature_subset)
        picks = self._rng.integers(0, len(rows), size=int(n_samples))
        return [self.model_function({**x_i, **{f: rows[k][f] for f in subset}})
                for k in picks.tolist()]


def _refused(name: str, instead: str) -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"ixplain.compat.ixai: ixai's {name} is not offered; {instead}.")

    doc = f"ixai's ``{name}``: refused at construction ({instead})."
    return type(name, (), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


DefaultImputer = _refused(
    "DefaultImputer", "fixed replacement values are not a removal ixplain offers; use "
    "MarginalImputer (rows drawn from the storage)")
TreeImputer = _refused(
    "TreeImputer", "for conditional removal use ixplain.IncrementalPFI / IncrementalSAGE with "
    "removal='conditional'")
