"""The aggregator protocol: turn a stream of explanation values into an estimate.

An aggregator summarises values ``v_1, v_2, ...`` that are arrays of one fixed shape (one
importance per feature, one ICE curve per grid point, ...), element-wise:

``update(values, weight=1.0)``
    Add one array of values (any shape, fixed after the first update).
``update_many(values)``
    Add ``values[0], values[1], ...`` in order (vectorised; same result as repeated ``update``
    up to rounding).
``update_sequence(values)``
    The same, with the state of repeated ``update`` calls bit for bit (what the incremental
    explainers use, so that a mini-batch equals a loop of single rows exactly).
``get()`` / ``value``
    The current estimate (an array of the values' shape; zeros before the first update).
``variance``
    The spread of the values (not of the estimate), element-wise.
``n``
    Number of updates.

:class:`~ixplain.aggregation.Mean` also has ``merge`` (combine two partial aggregates exactly):
the hook for reducing partitions in parallel (Dask).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Aggregator"]


class Aggregator:
    """Base class of the aggregators (see the module docstring for the protocol)."""

    n: int

    def update(self, values: Any, weight: float = 1.0) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def update_many(self, values: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def update_sequence(self, values: Any) -> None:
        """Add ``values[0], values[1], ...`` as a loop of :meth:`update` does, bit for bit."""
        for v in np.asarray(values, dtype=np.float64):
            self.update(v)

    def get(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def value(self) -> np.ndarray:
        """The current estimate (same as :meth:`get`)."""
        return self.get()

    @property
    def variance(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _shape_check(self, values: np.ndarray, state: np.ndarray | None, owner: str) -> None:
        if state is not None and values.shape != state.shape:
            raise ValueError(
                f"{owner}.update got values of shape {values.shape}; earlier updates had shape "
                f"{state.shape}."
            )
