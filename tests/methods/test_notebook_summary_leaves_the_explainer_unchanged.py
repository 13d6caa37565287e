"""Showing an explainer in a notebook (``_repr_html_``) changes nothing of its state: the pickle
is the same byte for byte, and the stream goes on as if it had not been shown."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from ixplain import (
    IncrementalALE,
    IncrementalPDP,
    IncrementalPFI,
    IncrementalSAGE,
    IncrementalShapleyInteractions,
)


def _model(A):
    A = np.asarray(A)
    return 2 * A[:, 0] + A[:, 1]


@pytest.mark.parametrize("make", [
    lambda: IncrementalPFI(_model, "squared_error", alpha=0.05, random_state=0),
    lambda: IncrementalSAGE(_model, loss="squared_error", alpha=0.05, random_state=0),
    lambda: IncrementalPDP(_model, "x0", random_state=0),
    lambda: IncrementalALE(_model, "x0", random_state=0),
    lambda: IncrementalShapleyInteractions(_model, loss="squared_error", random_state=0),
], ids=["ipfi", "isage", "ipdp", "iale", "interactions"])
def test_showing_an_explainer_changes_nothing(make):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 3))
    y = _model(X)
    shown, hidden = make(), make()
    for e in (shown, hidden):
        e.explain_many(X[:120], y[:120])
    before = pickle.dumps(shown)
    page = shown._repr_html_()
    assert "no summary" not in page and pickle.dumps(shown) == before
    for e in (shown, hidden):
        e.explain_many(X[120:], y[120:])
    assert np.array_equal(shown.importances_, hidden.importances_)
