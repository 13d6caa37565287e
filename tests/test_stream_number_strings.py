"""A number written as a string in a numeric stream feature is refused, as any string is.

Once a stream explainer has fixed a feature as numeric, a later ``"a"`` was refused while
``"2.5"`` went through silently as 2.5 (numpy's float conversion reads number strings): the same
column was read two ways depending on what the string spelled. Both are refused now, with the
feature, the value, the row and a conversion that works, and the failed call leaves the
explainer as it was (a run that never made the call is the reference).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain import IncrementalALE, IncrementalPDP, IncrementalPFI, IncrementalSAGE
from test_atomic_parts import assert_same, explainer_state


def _model(X):
    """``2 a - b`` of records, a DataFrame or an array (every value must be a real number)."""
    if isinstance(X, list):
        X = pd.DataFrame(X)
    A = np.asarray(X, dtype=np.float64)
    return 2.0 * A[:, 0] - A[:, 1]


NAMES = ["a", "b"]  # (the array columns' names too)
MAKERS = {
    "pfi": lambda: IncrementalPFI(_model, "squared_error", feature_names=NAMES,
                                  random_state=0),
    "sage": lambda: IncrementalSAGE(_model, loss="squared_error", feature_names=NAMES,
                                    random_state=0),
    "pdp": lambda: IncrementalPDP(_model, "a", feature_names=NAMES, grid_resolution=5,
                                  random_state=0),
    "ale": lambda: IncrementalALE(_model, "a", feature_names=NAMES, grid_resolution=4,
                                  regrid_every=20, random_state=0),
}


def _rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, 2.0 * X[:, 0] - X[:, 1]


def _as(kind: str, X: np.ndarray, names=("a", "b")):
    """``X`` (float or object array) as the input type ``kind``."""
    if kind == "records":
        return [dict(zip(names, row)) for row in X.tolist()]
    if kind == "pandas":
        return pd.DataFrame({n: X[:, j] for j, n in enumerate(names)})
    return X


def _bad_call(kind: str, value: object):
    """A call of input type ``kind`` whose second row's ``a`` is ``value`` (the first's for
    one observation), and the row the error must name."""
    X, y = _rows(3, 7)
    obj = X.astype(object)
    obj[1, 0] = value
    if kind == "record":
        return (lambda e: e.explain_one({"a": value, "b": 0.5}, 1.0)), "the observation"
    if kind == "series":
        return lambda e: e.explain_one(pd.Series({"a": value, "b": 0.5}), 1.0), "the observation"
    if kind == "numpy_row":
        return ((lambda e: e.explain_one(np.array([value, 0.5], dtype=object), 1.0)),
                "the observation")
    return (lambda e: e.explain_many(_as(kind, obj), y)), "batch row 1"


FIRST = {"record": "records", "series": "pandas", "records": "records", "pandas": "pandas",
         "numpy": "numpy", "numpy_row": "numpy"}


@pytest.mark.parametrize("method", list(MAKERS))
@pytest.mark.parametrize("kind", list(FIRST))
@pytest.mark.parametrize("value", ["2.5", "a", np.str_("2.5"), b"2.5"])
def test_a_string_in_a_numeric_feature_is_refused_and_nothing_changes(method, kind, value):
    """``"2.5"`` (a str, numpy str or bytes) is refused exactly as ``"a"`` is: the error names
    the feature, the value, the batch and stream row and ``pandas.to_numeric``; the explainer
    (counters, estimate, history, storage, schema) is as before the call, and going on
    gives the state of a run that never made it (bit for bit)."""
    X, y = _rows(30, 0)
    first = _as(FIRST[kind], X)
    e, ref = MAKERS[method](), MAKERS[method]()
    for target in (e, ref):
        target.explain_many(first, y)
    before, schema = explainer_state(e), e._schema
    call, row = _bad_call(kind, value)
    stream_row = 30 + (0 if row == "the observation" else 1)
    with pytest.raises(ValueError) as info:
        call(e)
    text = str(info.value)
    shown = {repr(value), repr(str(value) if isinstance(value, str) else value)}
    assert any(text.startswith(f"{type(e).__name__}: feature 'a' is numeric but an observation "
                               f"holds {v} ({row}, stream row {stream_row}); a string is not "
                               "read as a number") for v in shown), text  # (pandas: str_ -> str)
    assert "pandas.to_numeric" in text
    assert e._schema is schema and e.n_seen_ == 30
    assert_same(explainer_state(e), before)
    X2, y2 = _rows(20, 1)
    for target in (e, ref):
        target.explain_many(_as(FIRST[kind], X2), y2)
    assert_same(explainer_state(e), explainer_state(ref))


@pytest.mark.parametrize("kind", ["records", "pandas", "numpy"])
def test_the_conversion_the_error_shows_makes_the_batch_go_through(kind):
    """The error's ``pandas.to_numeric`` (for this input type) turns the strings into the
    numbers they spell: the converted batch gives the state of the batch given as floats."""
    X, y = _rows(30, 0)
    X2, y2 = _rows(10, 1)
    text = X2.astype(object)
    text[:, 0] = [repr(float(v)) for v in X2[:, 0]]  # (repr: the float read back exactly)
    e, ref = MAKERS["pfi"](), MAKERS["pfi"]()
    for target in (e, ref):
        target.explain_many(_as(kind, X), y)
    batch = _as(kind, text)
    with pytest.raises(ValueError, match="pandas.to_numeric") as info:
        e.explain_many(batch, y2)
    msg = str(info.value)
    if kind == "records":
        assert "x['a'] = pandas.to_numeric(x['a'])" in msg
        for x in batch:
            x["a"] = pd.to_numeric(x["a"])
    elif kind == "pandas":
        assert "df['a'] = pandas.to_numeric(df['a'])" in msg
        batch["a"] = pd.to_numeric(batch["a"])
    else:
        assert "X[:, 0] = pandas.to_numeric(X[:, 0])" in msg
        batch[:, 0] = pd.to_numeric(batch[:, 0])
    e.explain_many(batch, y2)
    ref.explain_many(_as(kind, X2), y2)
    assert_same(explainer_state(e), explainer_state(ref))


def test_a_call_that_would_settle_a_kind_takes_it_back_when_refused():
    """``c`` held only NaN so far (its kind unknown); a call whose ``c`` is a string would
    make it categorical, but its ``a`` is ``"2.5"``: the call is refused and ``c`` is still
    of unknown kind (a later call of numbers makes it numeric, as in a run without the
    failed call)."""
    def f(R):
        return np.array([2.0 * r["a"] + (r["c"] if isinstance(r["c"], float) else 0.0)
                         for r in R])

    def make():
        return IncrementalPFI(f, "squared_error", random_state=0)

    e, ref = make(), make()
    rows = [{"a": float(i), "c": float("nan")} for i in range(5)]
    for target in (e, ref):
        with pytest.warns(RuntimeWarning, match="skipped"):
            target.explain_many(rows, np.arange(5.0))
    assert e._unsure == ["c"]
    before, schema, buffers = explainer_state(e), e._schema, e.storage._schema
    with pytest.raises(ValueError, match=r"feature 'a' is numeric but an observation holds "
                                         r"'2.5' \(batch row 0, stream row 5\)"):
        e.explain_many([{"a": "2.5", "c": "x"}], [1.0])
    assert e._unsure == ["c"] and e._schema is schema and e.storage._schema is buffers
    assert_same(explainer_state(e), before)
    later = [{"a": float(i), "c": 0.5 * i} for i in range(10)]
    for target in (e, ref):
        target.explain_many(later, np.arange(10.0))
    assert e._schema.kinds == ("numeric", "numeric") == ref._schema.kinds
    assert_same(explainer_state(e), explainer_state(ref))


def test_a_non_number_object_still_names_the_feature_and_the_row():
    """Any other non-number (here a dict) is refused as before, now with its row."""
    e = MAKERS["pfi"]()
    X, y = _rows(5, 0)
    e.explain_many(X, y)
    with pytest.raises(ValueError, match=r"feature 'b' is numeric but an observation holds "
                                         r"\{\} \(the observation, stream row 5\); a numeric "
                                         r"feature takes real numbers"):
        e.explain_one(np.array([1.0, {}], dtype=object), 1.0)
