"""The attributes the parts of the drift detector share (declarations only).

:class:`~ixplain.drift.ExplanationDriftDetector` is assembled from its model channel
(:mod:`ixplain.drift._model_channel`), its data channels (:mod:`ixplain.drift._data_channels`)
and its public face (:mod:`ixplain.drift.detector`), which sets every attribute below in its
``__init__`` or as the stream goes; this base only tells the type checker they exist.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OWNER", "DetectorState"]

#: The detector's name in its messages.
OWNER = "ExplanationDriftDetector"


class DetectorState:
    """Declarations of the detector's attributes, for its parts (no behaviour)."""

    _blank_storage: Any
    _changes: Any
    _channels: Any
    _emit: Any
    _feeding: Any
    _k: Any
    _labels_mode: Any
    _n_checks: Any
    _n_recent: Any
    _n_snapshots: Any
    _quiet: Any
    _recent: Any
    _ref_cols: Any
    _ref_curve: Any
    _ref_fixed: Any
    _ref_model: Any
    _ref_n: Any
    _ref_pred: Any
    _ref_row: Any
    _ref_values: Any
    _ref_y: Any
    _rows: Any
    _seed: Any
    _shadows: Any
    _stale_reference: Any
    _stale_start: Any
    attribution_level: Any
    callback: Any
    check_every: Any
    data_samples: Any
    delta: Any
    events_: Any
    explainer: Any
    feature_names_: Any
    label_free: Any
    loss_changes_: Any
    memory: Any
    min_change: Any
    n_reference: Any
    n_rows_: Any
    screen_every: Any
    static_model: Any
    test: Any
    warmup: Any
