"""Conditional removal refuses, before any tree is fitted, a categorical feature of more levels
than partial dependence accepts: its classification tree's fit grows with levels x rows (a
column of identifiers, one level per row, with the square of the rows; it never returned)."""

import time

import numpy as np
import pandas as pd
import pytest

from ixplain import ConditionalSampler, sage
from ixplain.grids import MAX_LEVELS
from ixplain.imputation import conditional


def _frame(n, n_levels, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                         "id": [f"r{i % n_levels}" for i in range(n)]})


def test_an_identifier_column_is_refused_at_once_with_its_size():
    n = 20_000  # before: two classification trees over 10,000 levels, minutes
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"'id' has 20,000 distinct levels \(more than "
                                         r"1,000\).*400,000,000 class counts"):
        ConditionalSampler().fit(_frame(n, n))
    assert time.perf_counter() - t0 < 5


def test_the_limit_is_partial_dependences(monkeypatch):
    assert conditional.MAX_LEVELS == MAX_LEVELS == 1000
    monkeypatch.setattr(conditional, "MAX_LEVELS", 10)
    ConditionalSampler().fit(_frame(200, 10))
    with pytest.raises(ValueError, match="'id' has 11 distinct levels"):
        ConditionalSampler().fit(_frame(200, 11))


def test_sage_refuses_before_calling_the_model():
    X = _frame(3000, 3000)
    calls = []

    def model(frame):
        calls.append(len(frame))
        return np.asarray(frame["a"], dtype=float)

    with pytest.raises(ValueError, match="'id' has 3,000 distinct levels.*removal='marginal'"):
        sage(model, X, X["a"].to_numpy(), loss="squared_error", removal="conditional",
             random_state=0)
    assert calls == []
