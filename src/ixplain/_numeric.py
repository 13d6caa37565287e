"""Small numeric helpers shared across the package (private)."""

from __future__ import annotations

import math

__all__ = ["unit_shift"]


def unit_shift(top: float) -> int:
    """The power of two that brings ``top`` (finite, non-zero) into [0.5, 1) in magnitude.

    ``abs(top) * 2.0**unit_shift(top)`` lies in [0.5, 1), and scaling by a power of two is
    exact (outside the subnormal range): values measured in units of ``2**-shift`` keep their
    squares and sums inside the float range whatever their own scale (1e300 or 1e-300). Used
    by the ALE moments (:func:`ixplain.methods.ale._effect_shift`) and the drift channels
    (:class:`ixplain.drift._channel.ValueChannel`).

    Examples
    --------
    >>> unit_shift(1e300), unit_shift(0.75), unit_shift(-3.0)
    (-997, 0, -2)
    >>> 1e300 * 2.0 ** unit_shift(1e300)
    0.7...
    """
    return -math.frexp(top)[1]
