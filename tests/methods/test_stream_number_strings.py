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
from test_atomic_parts import assert_same, explainer_state

from ixplain import IncrementalALE, IncrementalPDP, IncrementalPFI, IncrementalSAGE


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
    # a batch is refused whole, and the message says so (as a failing model call's does)
    taken = "Nothing of this call was taken (n_seen_ is still 30)."
    assert text.endswith(taken) == (row != "the observation") and text.count(taken) <= 1
    assert e._schema is schema and e.n_seen_ == 30
    assert_same(explainer_state(e), before)
    X2, y2 = _rows(20, 1)
    for target in (e, ref):
        target.explain_many(_as(FIRST[kind], X2), y2)
    assert_same(explainer_state(e), explainer_state(ref))


def _text(X2: np.ndarray) -> np.ndarray:
    """``X2`` with column ``a`` as the strings of its numbers (repr: read back exactly)."""
    text = X2.astype(object)
    text[:, 0] = [repr(float(v)) for v in X2[:, 0]]
    return text


#: Per input sort: the refused call's input made from the floats ``X2``, the name the pasted
#: code uses for it, the code the error must show, and the call.
PASTE = {
    "records": (lambda X2: _as("records", _text(X2)), "records",
                "for x in records: x['a'] = pandas.to_numeric(x['a'])", "many"),
    "pandas": (lambda X2: _as("pandas", _text(X2)), "df",
               "df['a'] = pandas.to_numeric(df['a'])", "many"),
    "object array": (_text, "X", "X[:, 0] = pandas.to_numeric(X[:, 0])", "many"),
    "str array": (lambda X2: np.array([[repr(v) for v in r] for r in X2.tolist()]), "X",
                  "X = X.astype(float)", "many"),
    "bytes array": (lambda X2: np.array([[repr(v) for v in r] for r in X2.tolist()], dtype="S"),
                    "X", "X = X.astype(float)", "many"),
    "record": (lambda X2: dict(zip(NAMES, _text(X2)[0])), "x",
               "x['a'] = pandas.to_numeric(x['a'])", "one"),
    "series": (lambda X2: pd.Series(_text(X2)[0], index=NAMES), "x",
               "x['a'] = pandas.to_numeric(x['a'])", "one"),
    "object row": (lambda X2: _text(X2)[0], "x", "x[0] = pandas.to_numeric(x[0])", "one"),
    "str row": (lambda X2: np.array([repr(v) for v in X2[0].tolist()]), "x",
                "x = x.astype(float)", "one"),
}


@pytest.mark.parametrize("kind", list(PASTE))
def test_the_conversion_the_error_shows_makes_the_call_go_through_when_pasted(kind):
    """The code the error shows for this sort of input, run as it stands on the refused
    input, makes the call go through with the state of the numbers given as floats. For a
    numpy array of strings (dtype <U, S) that is ``X = X.astype(float)``: the
    ``X[:, 0] = pandas.to_numeric(X[:, 0])`` shown before wrote the numbers back as text."""
    make_input, var, code, how = PASTE[kind]
    X, y = _rows(30, 0)
    X2, y2 = _rows(10, 1)
    e, ref = MAKERS["pfi"](), MAKERS["pfi"]()
    for target in (e, ref):
        target.explain_many(X, y)
    if how == "one":
        X2, y2 = X2[:1], y2[:1]
    bad = make_input(X2)

    def call(target, data):
        return (target.explain_one(data, y2[0]) if how == "one"
                else target.explain_many(data, y2))

    with pytest.raises(ValueError, match="pandas.to_numeric|astype") as info:
        call(e, bad)
    assert code in str(info.value), str(info.value)
    namespace = {var: bad, "pandas": pd}
    exec(code, namespace)  # (as pasted)
    call(e, namespace[var])
    call(ref, X2[0] if how == "one" else X2)
    assert_same(explainer_state(e), explainer_state(ref))


def test_a_str_array_with_a_categorical_feature_converts_the_numeric_columns():
    """A numpy array of strings whose stream has a categorical feature too: ``astype(float)``
    would fail on its levels, so the error converts the numeric columns alone (the array
    becomes an object one); pasted, it works."""
    def f(A):
        A = np.asarray(A, dtype=object)
        return A[:, 0].astype(float) + (A[:, 1] == "u")

    rng = np.random.default_rng(0)
    X = np.empty((30, 2), dtype=object)
    X[:, 0], X[:, 1] = rng.normal(size=30), rng.choice(["u", "v"], 30)
    e = IncrementalPDP(f, "a", feature_names=NAMES, grid_resolution=5)
    e.explain_many(X)
    bad = X.astype(str)
    with pytest.raises(ValueError) as info:
        e.explain_many(bad)
    code = "X = X.astype(object); X[:, [0]] = X[:, [0]].astype(float)"
    assert code in str(info.value), str(info.value)
    namespace = {"X": bad}
    exec(code, namespace)
    e.explain_many(namespace["X"])
    assert e.n_seen_ == 60 and e.n_skipped_ == 0


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
    assert e._input.unsure == ["c"]
    before, schema, buffers = explainer_state(e), e._schema, e.storage._schema
    with pytest.raises(ValueError, match=r"feature 'a' is numeric but an observation holds "
                                         r"'2.5' \(batch row 0, stream row 5\)"):
        e.explain_many([{"a": "2.5", "c": "x"}], [1.0])
    assert e._input.unsure == ["c"] and e._schema is schema and e.storage._schema is buffers
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


def _all_text(X2: np.ndarray) -> np.ndarray:
    """``X2`` with both columns as the strings of their numbers (repr: read back exactly)."""
    return np.array([[repr(float(v)) for v in row] for row in X2], dtype=object)


#: Per input sort with both features as text: the refused call's input, the name the
#: pasted code uses, the code the error must show (one statement per feature) and the call.
PASTE_BOTH = {
    "records": (lambda X2: _as("records", _all_text(X2)), "records",
                "for x in records: x['a'] = pandas.to_numeric(x['a']); "
                "x['b'] = pandas.to_numeric(x['b'])", "many"),
    "pandas": (lambda X2: _as("pandas", _all_text(X2)), "df",
               "df['a'] = pandas.to_numeric(df['a']); df['b'] = pandas.to_numeric(df['b'])",
               "many"),
    "object array": (_all_text, "X", "X[:, 0] = pandas.to_numeric(X[:, 0]); "
                     "X[:, 1] = pandas.to_numeric(X[:, 1])", "many"),
    "str array": (lambda X2: _all_text(X2).astype(str), "X", "X = X.astype(float)", "many"),
    "record": (lambda X2: dict(zip(NAMES, _all_text(X2)[0])), "x",
               "x['a'] = pandas.to_numeric(x['a']); x['b'] = pandas.to_numeric(x['b'])",
               "one"),
    "series": (lambda X2: pd.Series(_all_text(X2)[0], index=NAMES), "x",  # (dtype str)
               "x = x.astype(object); x['a'] = pandas.to_numeric(x['a']); "
               "x['b'] = pandas.to_numeric(x['b'])", "one"),
    "object row": (lambda X2: _all_text(X2)[0], "x",
                   "x[0] = pandas.to_numeric(x[0]); x[1] = pandas.to_numeric(x[1])", "one"),
}


@pytest.mark.parametrize("kind", list(PASTE_BOTH))
def test_strings_in_two_numeric_features_are_refused_naming_both(kind):
    """Both features hold strings: the one refusal names each feature with its first value
    and row (it named ``'a'`` alone, and the pasted fix then failed on ``'b'``), the call
    takes nothing, and the code shown, pasted, converts both so the call goes through with
    the state of the numbers given as floats."""
    make_input, var, code, how = PASTE_BOTH[kind]
    X, y = _rows(30, 0)
    X2, y2 = _rows(10, 1)
    if how == "one":
        X2, y2 = X2[:1], y2[:1]
    e, ref = MAKERS["pfi"](), MAKERS["pfi"]()
    for target in (e, ref):
        target.explain_many(X, y)
    before = explainer_state(e)
    bad = make_input(X2)

    def call(target, data):
        return (target.explain_one(data, y2[0]) if how == "one"
                else target.explain_many(data, y2))

    with pytest.raises(ValueError) as info:
        call(e, bad)
    text = str(info.value)
    row = "the observation" if how == "one" else "batch row 0"
    first = [repr(float(v)) for v in X2[0]]
    assert text.startswith(
        f"IncrementalPFI: features 'a' and 'b' are numeric but observations hold values that "
        f"are not numbers: 'a' holds {first[0]!r} ({row}, stream row 30), 'b' holds "
        f"{first[1]!r} ({row}, stream row 30); a string is not read as a number"), text
    assert code in text, text
    assert_same(explainer_state(e), before)
    namespace = {var: bad, "pandas": pd}
    exec(code, namespace)  # (as pasted)
    call(e, namespace[var])
    call(ref, X2[0] if how == "one" else X2)
    assert_same(explainer_state(e), explainer_state(ref))


def test_a_string_and_another_non_number_in_two_features_are_both_named():
    """``a`` holds a string in row 2, ``b`` a dict in row 1: both are named with their row,
    with the string's conversion for ``a`` alone and the rule for the other value."""
    e = MAKERS["pfi"]()
    X, y = _rows(5, 0)
    e.explain_many(X, y)
    obj = X.astype(object)
    obj[2, 0], obj[1, 1] = "x", {}
    with pytest.raises(ValueError) as info:
        e.explain_many(obj, y)
    assert str(info.value) == (
        "IncrementalPFI: features 'a' and 'b' are numeric but observations hold values that "
        "are not numbers: 'a' holds 'x' (batch row 2, stream row 7), 'b' holds {} (batch row "
        "1, stream row 6); a string is not read as a number, even one that looks like it. "
        "Convert the values first: X[:, 0] = pandas.to_numeric(X[:, 0]) (with errors='coerce' "
        "the strings that are not numbers become NaN, which nan_policy handles); a numeric "
        "feature takes real numbers and missing values (None, NaN) only. Nothing of this call "
        "was taken (n_seen_ is still 5).")
    assert e.n_seen_ == 5
