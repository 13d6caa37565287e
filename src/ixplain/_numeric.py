"""Small numeric helpers shared across the package (private)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any

import numpy as np

__all__ = ["moment_shift", "model_errstate", "overflow_reported", "power_scaled", "unit_shift"]

#: numpy's error settings of the caller of the outermost :func:`overflow_reported` (None
#: outside it), for the model calls inside it (:func:`model_errstate`).
_CALLER_ERRSTATE: ContextVar[dict[str, Any] | None] = ContextVar("ixplain_caller_errstate",
                                                                 default=None)
_NULL = nullcontext()


@contextmanager
def overflow_reported() -> Iterator[None]:
    """numpy's overflow and invalid-value warnings off, around a computation whose
    non-finite results ixplain reports itself (a stream explainer's warning of the rows it
    skips, :func:`~ixplain._validation.refuse_nonfinite`): numpy's ``RuntimeWarning:
    overflow encountered in square`` / ``invalid value encountered in subtract`` came next
    to it, several times, pointing at ixplain's lines. The user's model, called inside,
    runs with the caller's own settings (:func:`model_errstate`), so its warnings still
    show. Nested uses keep the outermost caller's settings. A worker thread enters it on its
    own (a new thread starts with numpy's defaults).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error")
    ...     with overflow_reported():
    ...         big = np.array([1e200]) ** 2
    >>> big
    array([inf])
    """
    if _CALLER_ERRSTATE.get() is not None:
        yield
        return
    token = _CALLER_ERRSTATE.set(dict(np.geterr()))
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            yield
    finally:
        _CALLER_ERRSTATE.reset(token)


def model_errstate() -> AbstractContextManager[Any]:
    """Around a call of the user's model: inside :func:`overflow_reported`, the numpy
    error settings of its caller (the model's own overflow warnings show as without
    ixplain); elsewhere nothing (a shared no-op context)."""
    state = _CALLER_ERRSTATE.get()
    return _NULL if state is None else np.errstate(**state)


def unit_shift(top: float) -> int:
    """The power of two that brings ``top`` (finite, non-zero) into [0.5, 1) in magnitude.

    ``abs(top) * 2.0**unit_shift(top)`` lies in [0.5, 1), and scaling by a power of two is
    exact (outside the subnormal range): values measured in units of ``2**-shift`` keep their
    squares and sums inside the float range whatever their own scale (1e300 or 1e-300). Used
    by the stream moments (:func:`moment_shift`) and the drift channels
    (:class:`ixplain.drift._channel.ValueChannel`).

    Examples
    --------
    >>> unit_shift(1e300), unit_shift(0.75), unit_shift(-3.0)
    (-997, 0, -2)
    >>> 1e300 * 2.0 ** unit_shift(1e300)
    0.7...
    """
    return -math.frexp(top)[1]


def moment_shift(values: np.ndarray) -> int | None:
    """The power of two that values are scaled by before their sums and sums of squares are
    kept (the ALE moments, ``ALEFunction.shift``; iPDP's per-value sums): ``None`` while no
    value is non-zero and finite; 0 when the largest magnitude lies in ``2**-128 ..
    2**128`` (squares, and an aggregator's fourth powers, fit float64 with room for the
    weights); else :func:`unit_shift` of the largest, which brings it into [0.5, 1) (values
    near 1e300 overflowed those sums to inf, values near 1e-300 underflowed them to 0).

    Examples
    --------
    >>> moment_shift(np.array([0.0, np.nan])), moment_shift(np.array([3.0, -1e30]))
    (None, 0)
    >>> moment_shift(np.array([1e300, np.inf]))
    -997
    """
    finite = np.abs(values[np.isfinite(values)])
    top = float(finite.max()) if finite.size else 0.0
    if top == 0.0:
        return None
    if 2.0 ** -128 <= top <= 2.0 ** 128:
        return 0
    return unit_shift(top)


def power_scaled(values: np.ndarray, shift: int | None) -> np.ndarray:
    """``values * 2**shift``: exact (outside the subnormal range), and a value beyond the
    float range becomes +-inf without numpy's overflow warning; ``values`` themselves when
    ``shift`` is 0 or None. The one scaling of the moments kept in units of ``2**-shift``
    (:func:`moment_shift`, :func:`unit_shift`: ALE, iALE, iPDP, the drift channels).

    Examples
    --------
    >>> float(power_scaled(np.array([1e300]), -997)[0])  # 1e300 in units of 2**997
    0.7466...
    >>> power_scaled(np.array([1e300]), 100)
    array([inf])
    """
    if not shift:
        return values
    with np.errstate(over="ignore"):
        return np.ldexp(values, shift)
