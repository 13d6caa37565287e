"""Pickles of stream explainers made before the input boundary had its own object load and go
on as an uninterrupted run (the schema, its getter and caches were explainer attributes)."""

import pickle

import numpy as np
import pandas as pd
import pytest

from ixplain import IncrementalPDP, IncrementalPFI


def _model(A):
    return np.asarray(A["a"], dtype=float) * 2.0


def _old_state(explainer):
    """The explainer's state as a pickle of the version before ``_input`` stored it."""
    state = dict(pickle.loads(pickle.dumps(explainer)).__dict__)
    boundary = state.pop("_input")
    state["_schema"], state["_unsure"] = boundary.schema, boundary.unsure
    for key in ("_get", "_levels", "_dates"):
        if key in boundary.__dict__:
            state[key] = boundary.__dict__[key]
    return state


@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalPDP])
def test_a_pickle_from_before_the_input_boundary_goes_on_as_an_uninterrupted_run(cls):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.normal(size=120),
                          "b": pd.Categorical(rng.choice(["u", "v"], size=120))})
    y = 2.0 * frame["a"].to_numpy() + rng.normal(size=120)
    kwargs = {"random_state": 0} | ({"loss": "squared_error"} if cls is IncrementalPFI
                                     else {"feature": "a"})
    whole, first = cls(_model, **kwargs), cls(_model, **kwargs)
    whole.explain_many(frame, y)
    first.explain_many(frame[:60], y[:60])
    old = cls.__new__(cls)
    old.__setstate__(_old_state(first))
    assert old._schema is not None and old._schema.names == ("a", "b")
    for i in range(60, 120):  # records: the getter and the level cache come from the pickle
        old.explain_one(frame.iloc[i].to_dict(), y[i])
    np.testing.assert_array_equal(old.importances_, whole.importances_)
    assert old.n_seen_ == whole.n_seen_ == 120
