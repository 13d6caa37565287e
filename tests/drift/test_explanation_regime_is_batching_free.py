"""A drift event's explanation does not depend on how the stream was batched: the regime it
closes (``before_rows``) is the same whether the detector's warm-up and the event fall in one
``explain_many`` call or not (issue: ``(-1, ...)`` fed all at once, ``(1, ...)`` row by row)."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain import ExplanationDriftDetector, IncrementalPFI, checks


def _stream(n: int = 1000, seed: int = 3) -> tuple[list[dict], np.ndarray]:
    """a, b, c ~ N(0, 1), ``y = 2 a + b + noise``; from row 400 ``a`` triples in scale."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[400:, 0] *= 3.0
    y = 2 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=n)
    return [{"a": r[0], "b": r[1], "c": r[2]} for r in X], y


def _explanations(mode: str) -> list[tuple]:
    X, y = _stream()
    e = IncrementalPFI(checks.reference_model, loss="squared_error", random_state=5)
    e.drift_detector = d = ExplanationDriftDetector(static_model=True, random_state=6)
    if mode == "one":
        for x, t in zip(X, y):
            e.explain_one(x, t)
    else:
        step = 7 if mode == "chunks7" else len(X)
        for s in range(0, len(X), step):
            e.explain_many(X[s:s + step], y[s:s + step])
    return [(ev.row, ev.feature, d.explain_change(i).before_rows,
             d.explain_change(i).after_rows) for i, ev in enumerate(d.events_)]


def test_before_rows_do_not_depend_on_batching():
    one = _explanations("one")
    assert one, "the stream's data drift is found"
    # the first regime begins at the detector's first row (its warm-up), never at -1
    assert all(before[0] >= 0 for _, _, before, _ in one)
    for mode in ("chunks7", "all"):
        assert _explanations(mode) == one, mode


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
