"""ixai's storages (``ixai.storage``) as ixplain storages with ixai's ``update`` / ``get_data``.

ixai's storage contract: ``update(x, y=None)`` offers one observation, ``len(storage)`` is the
number of observations held, and ``get_data()`` returns ``(features, targets)``: the held
observations as a list of ``{feature: value}`` dicts (keys as the stream gave them: ints stay
ints) and their labels as a list -- empty when the storage was built with
``store_targets=False``. A window (:class:`IntervalStorage`, :class:`SequenceStorage`) returns its
rows oldest first.

The reservoirs and windows here *are* ixplain storages (:class:`ixplain.UniformReservoir`,
:class:`ixplain.GeometricReservoir`, :class:`ixplain.SlidingWindow`), so the explainers of
:mod:`ixplain.compat.ixai` (and ixplain's own) draw from them; unlike ixplain's, one of them may
be shared by several explainers, as in ixai (the explainer that must not write it is called with
``explain_one(..., update_storage=False)``). Numeric values come back as floats (ixplain stores
numeric columns as ``float64``). :class:`BatchStorage` (every observation, unbounded) is a plain
list for :class:`~ixplain.compat.ixai.explainer.BatchSage`; the incremental explainers refuse it.

Differences from ixai (on purpose): ``GeometricReservoirStorage(size)`` without a
``constant_probability`` keeps every new row once full (``p = 1``, ixplain's default; ixai
uses ``1 / size``); a reservoir's randomness comes from ``random_state`` (a keyword ixai does
not have), not from Python's global ``random``. ixai's ``TreeStorage`` is refused at construction
(ixplain's conditional removal is :class:`ixplain.ConditionalStorage`).

Examples
--------
>>> from ixplain.compat.ixai.storage import IntervalStorage
>>> storage = IntervalStorage(size=3)
>>> for t in range(5):
...     storage.update({0: t}, t)
>>> x, y = storage.get_data()
>>> x, y
([{0: 2.0}, {0: 3.0}, {0: 4.0}], [2, 3, 4])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...storage import GeometricReservoir, SlidingWindow, UniformReservoir
from ...storage.base import SlotStorage
from ...tabular import Schema

__all__ = [
    "BatchStorage",
    "GeometricReservoirStorage",
    "IntervalStorage",
    "SequenceStorage",
    "TreeStorage",
    "UniformReservoirStorage",
]


def _check_store_targets(store_targets: Any, owner: str) -> bool:
    if not isinstance(store_targets, (bool, np.bool_)):
        raise TypeError(
            f"The 'store_targets' parameter of {owner} must be a bool. Got {store_targets!r} "
            "instead."
        )
    return bool(store_targets)


class _IxaiStorage(SlotStorage):
    """ixai's ``get_data`` and ``store_targets`` on an ixplain slot storage, which several
    explainers may share (ixai's semantics; see the module docstring)."""

    store_targets: bool
    #: ``{ixplain column name: the key the stream used}`` (ixplain names columns by str).
    _keys: dict[str, Any]

    def update(self, x: Any, y: Any = None) -> None:
        """Offer one observation (ixai's ``update(x, y=None)``).

        Parameters
        ----------
        x : dict, pandas Series or ndarray of shape (n_features,)
            The observation; dict keys are kept as given for :meth:`get_data`.
        y : object, optional
            Its label.
        """
        if isinstance(x, Mapping):
            self._remember_keys(x)
        super().update(x, y)

    def _remember_keys(self, keys: Any) -> None:
        if not self.__dict__.get("_keys"):
            self._keys = {str(k): k for k in keys}

    def _check_compatible(self, schema: Schema, owner: str) -> None:
        # ixai shares one storage between explainers: no claim by the first one, only the
        # column check of ixplain's storages.
        self.__dict__.pop("_owned_by", None)
        super()._check_compatible(schema, owner)
        self.__dict__.pop("_owned_by", None)

    def _order(self) -> np.ndarray:
        """Slots of the held rows in the order :meth:`get_data` lists them."""
        return np.arange(len(self), dtype=np.intp)

    def get_data(self) -> tuple[list[dict], list]:
        """The held observations and their labels (ixai's ``get_data``).

        Returns
        -------
        features : list of dict
            One ``{feature: value}`` dict per held row (keys as the stream gave them; numeric
            values as float).
        targets : list
            Their labels, in the same order; empty if ``store_targets`` is False or no label
            was given.
        """
        if len(self) == 0 or self._schema is None:
            return [], []
        order = self._order()
        cols = self._table_at(order).columns
        keys = self.__dict__.get("_keys") or {}
        names = [keys.get(n, n) for n in cols]
        values = [np.asarray(c).tolist() for c in cols.values()]
        features = [dict(zip(names, row)) for row in zip(*values)]
        labels = self.targets
        if not self.store_targets or labels is None:
            return features, []
        return features, labels[order].tolist()


class UniformReservoirStorage(_IxaiStorage, UniformReservoir):
    """ixai's ``UniformReservoirStorage(size=1000, store_targets=False)``: every observation of
    the stream is held with the same probability (:class:`ixplain.UniformReservoir`).

    Parameters
    ----------
    size : int, default=1000
        Capacity in rows (>= 1).
    store_targets : bool, default=False
        Whether :meth:`get_data` returns the labels.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the keep decisions (None: the explainer's).
    """

    _owner = "UniformReservoirStorage"

    def __init__(self, size: int = 1000, store_targets: bool = False, *,
                 random_state: Any = None) -> None:
        self.store_targets = _check_store_targets(store_targets, self._owner)
        super().__init__(size, random_state=random_state)


class GeometricReservoirStorage(_IxaiStorage, GeometricReservoir):
    """ixai's ``GeometricReservoirStorage(size, constant_probability=None, store_targets=False)``:
    recent observations are more likely to be held (:class:`ixplain.GeometricReservoir`).

    Parameters
    ----------
    size : int
        Capacity in rows (>= 1).
    constant_probability : float in (0, 1], optional
        Probability that a new row enters once the reservoir is full (ixplain's ``p``).
        None: 1 (every new row replaces a random one; ixai's default is ``1 / size``).
    store_targets : bool, default=False
        Whether :meth:`get_data` returns the labels.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the keep decisions (None: the explainer's).

    Raises
    ------
    ValueError
        If ``constant_probability`` is not in (0, 1].
    """

    _owner = "GeometricReservoirStorage"

    def __init__(self, size: int, constant_probability: float | None = None,
                 store_targets: bool = False, *, random_state: Any = None) -> None:
        self.store_targets = _check_store_targets(store_targets, self._owner)
        self.constant_probability = constant_probability
        p = 1.0 if constant_probability is None else constant_probability
        super().__init__(size, p=p, random_state=random_state)


class IntervalStorage(_IxaiStorage, SlidingWindow):
    """ixai's ``IntervalStorage(size, store_targets=True)``: the last ``size`` observations
    (:class:`ixplain.SlidingWindow`); :meth:`get_data` lists them oldest first.

    Parameters
    ----------
    size : int
        Window length in rows (>= 1).
    store_targets : bool, default=True
        Whether :meth:`get_data` returns the labels.
    """

    _owner = "IntervalStorage"

    def __init__(self, size: int, store_targets: bool = True) -> None:
        self.store_targets = _check_store_targets(store_targets, self._owner)
        super().__init__(size)

    def _order(self) -> np.ndarray:
        held = len(self)
        if self.n_seen <= self.size:
            return np.arange(held, dtype=np.intp)
        return np.roll(np.arange(self.size, dtype=np.intp), -(self.n_seen % self.size))


class SequenceStorage(IntervalStorage):
    """ixai's ``SequenceStorage(store_targets=True)``: the last observation only.

    Parameters
    ----------
    store_targets : bool, default=True
        Whether :meth:`get_data` returns the label.
    """

    _owner = "SequenceStorage"

    def __init__(self, store_targets: bool = True) -> None:
        super().__init__(1, store_targets=store_targets)


class BatchStorage:
    """ixai's ``BatchStorage(store_targets=True)``: every observation, in order (unbounded).

    A plain list of the observations (as given, not copied), for
    :class:`~ixplain.compat.ixai.explainer.BatchSage`; memory grows with the stream, so the
    incremental explainers take a bounded storage instead.

    Parameters
    ----------
    store_targets : bool, default=True
        Whether the labels are kept.

    Examples
    --------
    >>> s = BatchStorage(store_targets=False)
    >>> s.update({"a": 1}, 0); s.update({"a": 2}, 1)
    >>> len(s), s.get_data()
    (2, ([{'a': 1}, {'a': 2}], []))
    """

    def __init__(self, store_targets: bool = True) -> None:
        self.store_targets = _check_store_targets(store_targets, "BatchStorage")
        self._storage_x: list[Any] = []
        self._storage_y: list[Any] = []

    def update(self, x: Any, y: Any = None) -> None:
        """Append one observation (and its label if ``store_targets``).

        Parameters
        ----------
        x : dict
        y : object, optional
        """
        self._storage_x.append(x)
        if self.store_targets:
            self._storage_y.append(y)

    def __len__(self) -> int:
        return len(self._storage_x)

    def get_data(self) -> tuple[list, list]:
        """``(features, targets)``: the observations and labels held, in arrival order."""
        return self._storage_x, self._storage_y

    def __repr__(self) -> str:
        return f"BatchStorage(held={len(self)}, store_targets={self.store_targets})"


class TreeStorage:
    """ixai's ``TreeStorage``: refused at construction; ixplain's conditional removal is
    :class:`ixplain.ConditionalStorage` with ``removal="conditional"`` on
    :class:`ixplain.IncrementalPFI` / :class:`ixplain.IncrementalSAGE`.

    Raises
    ------
    NotImplementedError
        Always.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "ixplain.compat.ixai: ixai's TreeStorage is not offered; for conditional removal "
            "use ixplain.IncrementalPFI / IncrementalSAGE with removal='conditional' (their "
            "storage is an ixplain.ConditionalStorage)."
        )
