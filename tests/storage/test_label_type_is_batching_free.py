"""The labels a storage holds do not depend on how the stream was batched: the same values of
the same Python type whether a row went through the one-row path (``explain_one``, a one-row
part of ``explain_many``) or the many-row one (before: ``np.float64`` against ``float``)."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain import IncrementalPFI, checks
from ixplain.storage import UniformReservoir


def _targets(make, y, mode: str) -> list:
    X, _ = checks.reference_stream(len(y))
    pool, _ = checks.reference_stream(60, seed=9)
    e = IncrementalPFI(checks.reference_model, loss="squared_error", random_state=5)
    e._set_storage(make(None, data=pool))  # as ixplain.checks: unseeded, the explainer seeds it
    if mode == "one":
        for x, t in zip(X, y):
            e.explain_one(x, t)
    else:
        step = 7 if mode == "chunks7" else len(X)
        for s in range(0, len(X), step):
            e.explain_many(X[s:s + step], y[s:s + step])
    targets = e.storage.targets
    return [] if targets is None else [(type(v), v) for v in targets.tolist()]


@pytest.mark.parametrize("make", list(checks.storage_factories().values()),
                         ids=[c.__name__ for c in checks.storage_factories()])
@pytest.mark.parametrize("kind", ["float", "int"])
def test_stored_labels_do_not_depend_on_batching(make, kind):
    _, y = checks.reference_stream(50)
    y = np.asarray(y, dtype=float) if kind == "float" else np.round(y).astype(np.int64)
    one = _targets(make, y, "one")
    assert _targets(make, y, "chunks7") == one
    assert _targets(make, y, "all") == one


def test_stored_labels_are_python_scalars():
    # one type whatever the path: what numpy's object conversion of a label array gives
    _, y = checks.reference_stream(30)
    make = checks.storage_factories()[UniformReservoir]
    for mode in ("one", "chunks7", "all"):
        got = _targets(make, np.asarray(y, dtype=float), mode)
        assert got and all(t is float for t, _ in got), mode
