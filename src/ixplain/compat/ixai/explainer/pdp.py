"""ixai's ``IncrementalPDP`` (the signature of ixai's PDP branch, ``ixai.explainer.pdp``) on
:class:`ixplain.IncrementalPDP`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ....methods.ipdp import IncrementalPDP as _IncrementalPDP
from ._base import resolve_model

__all__ = ["IncrementalPDP"]


class IncrementalPDP(_IncrementalPDP):
    """ixai's ``IncrementalPDP(model_function, pdp_feature, gridsize, storage, ...)`` on
    :class:`ixplain.IncrementalPDP`.

    ``explain_one(x_i, update_storage=True)`` returns None, as ixai's does; :attr:`pdp` is
    ixai's ``({position: grid value}, {position: partial dependence})``.

    Parameters
    ----------
    model_function : callable, wrapper or model
    pdp_feature : str or int
        The feature whose partial dependence is tracked.
    gridsize : int
        At most this many grid values (ixplain's ``grid_resolution``: a lattice over the
        tracked range, so values recur across steps; ixai spaces exactly ``gridsize``).
    storage : storage, optional
        Where ixplain's grid range is read when ``range_source="storage"``; kept as given.
    smoothing_alpha : float, optional
        ixplain's ``alpha`` (None: 0.001).
    dynamic_setting : bool, default=True
        True: exponential smoothing; False: a running mean.
    storage_size : int, optional
        Rows of the window the grid range is read from (ixplain's ``range_window``;
        default 1000).
    is_classification : bool, default=True
        True: the probability of class ``output_key`` is explained.
    output_key : object, default=1
        The class whose probability is explained (ixplain's ``target``).
    pdp_history_size, pdp_history_interval : int, default=10, 1000
        ixplain's ``history_size`` and ``history_every``.
    min_max_grid : bool, default=False
        True: the grid spans the range's minimum to maximum (ixplain's
        ``percentiles=(0, 1)``); False: its 5th to 95th percentile.
    ylim : tuple, optional
        Kept for plotting.
    feature_names, random_state
        Keyword only (not in ixai), as :class:`ixplain.IncrementalPDP`.
    """

    def __init__(
        self,
        model_function: Any,
        pdp_feature: Any,
        gridsize: int,
        storage: Any = None,
        smoothing_alpha: float | None = None,
        dynamic_setting: bool = True,
        storage_size: int | None = None,
        is_classification: bool = True,
        output_key: Any = 1,
        pdp_history_size: int = 10,
        pdp_history_interval: int = 1000,
        min_max_grid: bool = False,
        ylim: Any = None,
        *,
        feature_names: Any = None,
        random_state: Any = None,
    ) -> None:
        super().__init__(
            resolve_model(model_function, feature_names), pdp_feature,
            grid_resolution=gridsize, storage=storage,
            alpha=0.001 if smoothing_alpha is None else smoothing_alpha,
            aggregation="ema" if dynamic_setting else "mean",
            range_window=1000 if storage_size is None else storage_size,
            percentiles=(0.0, 1.0) if min_max_grid else (0.05, 0.95),
            target=output_key if is_classification else None,
            history_size=pdp_history_size, history_every=pdp_history_interval,
            feature_names=feature_names, random_state=random_state,
        )
        self.pdp_feature = pdp_feature
        self.gridsize = gridsize
        self.is_classification = is_classification
        self.output_key = output_key
        self.ylim = (0, 1) if ylim is None else ylim
        self._skip_store = False

    def explain_one(self, x_i: Any, update_storage: bool = True) -> None:  # type: ignore[override]
        """Explain one observation (ixai's ``explain_one``: returns None).

        Parameters
        ----------
        x_i : dict
        update_storage : bool, default=True
            False: the row is not written to the storage.
        """
        self._skip_store = not update_storage
        try:
            super().explain_one(x_i)
        finally:
            self._skip_store = False

    def _store_rows(self, cols: Any, slots: Any, y: Any) -> None:
        if not self._skip_store:
            super()._store_rows(cols, slots, y)

    @property
    def seen_samples(self) -> int:
        """Observations received (ixai's name for ``n_seen_``)."""
        return int(self.n_seen_)

    @property
    def pdp(self) -> tuple[dict, dict]:
        """``({position: grid value}, {position: partial dependence})`` (empty before the
        first explained observation)."""
        try:
            result = self.pd_
        except (AttributeError, ValueError):
            return {}, {}
        grid = np.asarray(result.grid_values[0], dtype=float).reshape(-1).tolist()
        values = np.asarray(result.average, dtype=float).reshape(-1, len(grid))[0].tolist()
        return dict(enumerate(grid)), dict(enumerate(values))
