"""Batch-invariant randomness: row ``t``'s random numbers depend on the seed and ``t`` alone.

Every random choice ixplain makes for an observation -- whether a storage keeps row ``t`` and in
which slot, which stored rows perturb it, the feature permutation SAGE walks for it -- is read
from a *row stream*: a counter-based generator (numpy's :class:`~numpy.random.Philox`) whose
counter is the row index. Row ``t`` owns a fixed block of ``width`` uniforms, so the numbers a
row gets do not depend on how the rows were grouped into ``explain_one`` / ``explain_many``
calls, on chunking, on ``n_jobs``, or on a pickle round trip in between::

    >>> from ixplain._random import RowStream, root_seed
    >>> s = RowStream(root_seed(0), "storage", width=4)
    >>> a = s.uniforms(0, 10)                    # rows 0..9 in one call
    >>> b = s.uniforms(3, 2)                     # rows 3 and 4 again, later, alone
    >>> bool((a[3:5] == b).all()), a.shape
    (True, (10, 4))

Static methods key generators the same way by what they explain, not by when it is computed
(:func:`keyed_generator`): permutation ``r`` of feature ``j`` in ``permutation_importance`` is
``keyed_generator(seed, "pfi", r, j)``, whichever worker or chunk computes it.

Seeds
-----
:func:`root_seed` turns a ``random_state`` (None, int, or :class:`numpy.random.Generator`) into
one non-negative integer, once per object or call: an int is used as is; a Generator gives one
draw (so objects seeded from a shared Generator differ, but reproducibly); None takes fresh
entropy. Sub-streams are told apart by a *name* (``"storage"``, ``"explainer"``, ...) hashed
into the Philox key, so a storage seeded from its explainer's seed never shares numbers with it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ._validation import validate_random_state

__all__ = ["RowStream", "keyed_generator", "root_seed", "uniform_index"]

_MASK64 = (1 << 64) - 1


def root_seed(random_state: Any, owner: str = "ixplain") -> int:
    """One non-negative integer seed from a ``random_state``.

    Parameters
    ----------
    random_state : None, int >= 0, numpy.random.Generator or numpy.random.RandomState
        None: fresh OS entropy; an int: itself; a Generator: one 63-bit draw from it; a
        legacy RandomState: one draw of ``randint(2**31 - 1)`` from it.
    owner : str
        Named in the error message.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``random_state`` is a negative int.
    TypeError
        If it is of another type (a bool, a float); the rule and both errors are
        :func:`ixplain._validation.validate_random_state`'s.
    """
    seed = validate_random_state(random_state, owner)
    if seed is None:
        return int(np.random.SeedSequence().entropy) & ((1 << 127) - 1)  # type: ignore[arg-type]
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    return seed


def _key(seed: int, names: tuple[Any, ...]) -> np.ndarray:
    """A 128-bit Philox key from a seed and a tuple of names/ints (stable across runs)."""
    text = repr((int(seed), tuple(str(n) if not isinstance(n, int) else n for n in names)))
    digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    return np.frombuffer(digest, dtype=np.uint64).copy()


def keyed_generator(seed: int, *key: Any) -> np.random.Generator:
    """A Generator determined by ``seed`` and ``key`` alone (e.g. ``(seed, "pfi", r, j)``).

    Parameters
    ----------
    seed : int
        From :func:`root_seed`.
    *key : str or int
        What the numbers are for; different keys give independent streams.

    Returns
    -------
    numpy.random.Generator
        A fresh Philox generator at counter 0.

    Examples
    --------
    >>> from ixplain._random import keyed_generator
    >>> a = keyed_generator(7, "pfi", 0, 2).permutation(5)
    >>> b = keyed_generator(7, "pfi", 0, 2).permutation(5)
    >>> bool((a == b).all())
    True
    """
    return np.random.Generator(np.random.Philox(key=_key(seed, key)))


class RowStream:
    """Counter-based uniforms indexed by row: row ``t`` owns ``width`` numbers in [0, 1).

    Parameters
    ----------
    seed : int
        From :func:`root_seed`.
    name : str
        Names the sub-stream (its Philox key is derived from ``(seed, name)``).
    width : int >= 1
        Uniforms per row; rounded up to a multiple of 4 internally (one Philox counter step
        gives four 64-bit words), so ``uniforms(t, B)[:, :width]`` is what a row uses.

    Notes
    -----
    Consecutive calls (``t0`` equal to the end of the previous call) continue one generator,
    which costs about 0.5 us per call; a jump rebuilds it at counter ``t0 * width / 4`` (about
    7 us). Pickles (the state is the seed, name, width and position).
    """

    def __init__(self, seed: int, name: str, width: int) -> None:
        if int(width) < 1:
            raise ValueError(f"RowStream width must be >= 1. Got {width!r} instead.")
        self.seed = int(seed)
        self.name = str(name)
        self.width = int(width)
        self._w4 = -(-self.width // 4) * 4
        self._key = _key(self.seed, (self.name,))
        self._gen: np.random.Generator | None = None
        self._next = -1

    def uniforms(self, t0: int, n_rows: int) -> np.ndarray:
        """Uniforms of rows ``t0 .. t0 + n_rows - 1``.

        Returns
        -------
        ndarray of shape (n_rows, width) float64
            Row ``i`` holds row ``t0 + i``'s numbers, the same in any call that covers it.
        """
        t0, n_rows = int(t0), int(n_rows)
        if self._gen is None or t0 != self._next:
            step = self._w4 // 4
            counter = np.array([(t0 * step) & _MASK64, (t0 * step) >> 64, 0, 0], dtype=np.uint64)
            self._gen = np.random.Generator(np.random.Philox(key=self._key, counter=counter))
        out = self._gen.random((n_rows, self._w4))
        self._next = t0 + n_rows
        return out if self._w4 == self.width else out[:, : self.width]

    def uniforms_at(self, rows: np.ndarray) -> np.ndarray:
        """Uniforms of the (distinct, any order) row indices ``rows``, shape (len(rows), width).

        One :meth:`uniforms` call over their span when it is at most four times their number
        (dense rows, e.g. a sorted subsample), else one call per run of consecutive indices.
        """
        rows = np.asarray(rows, dtype=np.intp)
        if not len(rows):
            return np.empty((0, self.width))
        lo, hi = int(rows.min()), int(rows.max())
        if hi - lo + 1 <= 4 * len(rows):
            return self.uniforms(lo, hi - lo + 1)[rows - lo]
        order = np.argsort(rows, kind="stable")
        sorted_rows = rows[order]
        cuts = np.concatenate([[0], np.flatnonzero(np.diff(sorted_rows) != 1) + 1, [len(rows)]])
        out = np.empty((len(rows), self.width))
        for a, b in zip(cuts[:-1], cuts[1:]):
            out[order[a:b]] = self.uniforms(int(sorted_rows[a]), int(b - a))
        return out

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_gen"] = None  # rebuilt from the counter on the next call
        state["_next"] = -1
        return state

    def __repr__(self) -> str:
        return f"RowStream(name={self.name!r}, width={self.width})"


def uniform_index(u: np.ndarray, n: Any) -> np.ndarray:
    """Integers in ``[0, n)`` from uniforms ``u`` (``floor(u * n)``; ``n`` scalar or broadcast).

    The bias is below ``n / 2**53``: nothing for storage sizes and dataset rows.
    """
    idx = (u * np.asarray(n, dtype=np.float64)).astype(np.intp)
    return np.minimum(idx, np.asarray(n, dtype=np.intp) - 1)
