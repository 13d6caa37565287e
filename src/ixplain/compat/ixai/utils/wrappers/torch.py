"""ixai's ``TorchWrapper``, without a hard PyTorch dependency (imported when a wrapper is made)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .base import Wrapper, reordered

__all__ = ["TorchWrapper"]


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise ImportError(
            "TorchWrapper needs PyTorch, which is not installed. Install it with "
            "`pip install torch` (see https://pytorch.org for your platform)."
        ) from exc
    return torch


class TorchWrapper(Wrapper):
    """A PyTorch module or link function with ixai's per-row contract: a record (dict) in, a
    ``float32`` tensor of shape (1, n_features) to the function, ``{"output": value}`` or
    ``{0: p_0, ...}`` out; a list of records gives a list.

    Given to an explainer of :mod:`ixplain.compat.ixai`, the function is called on whole
    batches (one tensor of shape (n, n_features)).

    Parameters
    ----------
    link_function : torch.nn.Module or callable
        Maps a tensor of inputs to a tensor of outputs (e.g. a softmax over a module's logits).
    feature_names : sequence, optional
        Which record keys, in which order, make the tensor's columns.
    device : str, default="cpu"
        The torch device the inputs are put on.

    Raises
    ------
    ImportError
        If PyTorch is not installed (the message says how to install it).
    """

    def __init__(self, link_function: Any, feature_names: Sequence[Any] | None = None,
                 device: str = "cpu") -> None:
        _import_torch()
        super().__init__(link_function, feature_names)
        self._device = device

    def _run(self, arr: np.ndarray) -> np.ndarray:
        torch = _import_torch()
        tensor = torch.tensor(np.asarray(arr, dtype=np.float32), device=self._device)
        out = self._prediction_function(tensor)
        return np.asarray(out.detach().cpu().numpy())

    def __call__(self, x: Any) -> Any:
        """ixai's output dict for a record, or a list of them for a list of records."""
        if isinstance(x, Mapping):
            return self.convert_arr_output_to_dict(self._run(self.convert_1d_input_to_arr(x)))
        out = self._run(self.convert_2d_input_to_arr(x))
        return [self.convert_arr_output_to_dict(row) for row in out]

    def _as_ixplain(self, feature_names: Sequence[Any] | None) -> Any:
        mine = self._feature_names
        names = mine if feature_names is None else list(feature_names)
        if names is None:
            raise ValueError(
                "TorchWrapper: give the explainer its feature_names (or the wrapper its "
                "feature_names) so the tensor's column order is known."
            )
        return reordered(self._run, mine or names, names, type(self).__name__, squeeze=True)
