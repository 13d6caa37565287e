"""The boundary's value checks and the wording of its refusals.

What a value of a feature may be (a number for a numeric feature: :data:`FLOAT_TYPES` in one C
call, else one by one, refusing strings -- ``"2.5"`` as much as ``"a"``; a date in the unit
and time zone the stream's first observations fixed) and the errors that say so, with the
conversion that fixes the input for its sort (:func:`input_kind`).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._lazy import is_instance
from .._validation import missing_value
from ..tabular import Schema, Table, _is_na, date_unit_misfit

__all__ = ["FLOAT_TYPES", "Getter", "NotANumber", "check_date_unit", "input_kind", "is_array",
           "is_missing", "missing_only", "not_a_number", "number_fix", "records_matrix"]


def not_a_number(owner: str, schema: Schema, bad: list[tuple[str, Any, int]], single: bool,
                 where: Callable[[int], str], n_seen: int,
                 source: str | None = None) -> ValueError:
    """The refusal of a call whose numeric features hold values that are not numbers,
    ``bad``: (feature, its first such value, the value's row in the call) for every such
    feature. Names each feature with its value and row (of the batch and of the stream),
    how to convert the strings for that sort of input (``source``, :func:`number_fix`)
    and, for a batch, that none of its rows was taken."""
    held = [f"{value!r} ({where(i)})" for _, value, i in bad]
    if len(bad) == 1:
        what = f"feature {bad[0][0]!r} is numeric but an observation holds {held[0]}"
    else:
        names = ", ".join(repr(name) for name, _, _ in bad[:-1]) + f" and {bad[-1][0]!r}"
        what = (f"features {names} are numeric but observations hold values that are "
                "not numbers: " + ", ".join(f"{name!r} holds {h}"
                                            for (name, _, _), h in zip(bad, held)))
    text = [name for name, value, _ in bad if isinstance(value, TEXT)]
    why = []
    if text:
        why.append("a string is not read as a number, even one that looks like it. "
                   + number_fix(schema, text, source))
    if len(text) < len(bad):
        why.append("a numeric feature takes real numbers and missing values (None, NaN) "
                   "only")
    taken = "" if single else (f" Nothing of this call was taken (n_seen_ is still "
                               f"{n_seen}).")
    return ValueError(f"{owner}: {what}; {'; '.join(why)}.{taken}")

def number_fix(schema: Schema, names: list[str], source: str | None) -> str:
    """The conversion of numbers given as text in the features ``names``, as code for the
    input's sort ``source`` (:func:`input_kind`, or ``"record"``, ``"records"``,
    ``"series"`` for dict records and a pandas Series row; None: every sort), one
    statement per feature. A numpy array of strings (dtype ``<U``, ``S``) is converted whole: an
    assignment into it writes the numbers back as text."""
    numeric = [k for k, kind in enumerate(schema.kinds) if kind == "numeric"]
    coerce = ("with errors='coerce' the strings that are not numbers become NaN, which "
              "nan_policy handles")
    if source in ("text", "text row"):
        v, at = ("X", f"[:, {numeric}]") if source == "text" else ("x", f"[{numeric}]")
        if len(numeric) < len(schema.kinds):  # categorical strings too: keep them
            return (f"Convert the numeric columns first: {v} = {v}.astype(object); "
                    f"{v}{at} = {v}{at}.astype(float)")
        return (f"Convert the array first: {v} = {v}.astype(float) ({v} = "
                f"pandas.to_numeric({v}.ravel(), errors='coerce').reshape({v}.shape) "
                "makes the strings that are not numbers NaN, which nan_policy handles)")
    keys = [(repr(n), schema.index(n)) for n in names]
    fixes = {
        "frame": [f"df[{n}] = pandas.to_numeric(df[{n}])" for n, _ in keys],
        "record": [f"x[{n}] = pandas.to_numeric(x[{n}])" for n, _ in keys],
        "array": [f"X[:, {j}] = pandas.to_numeric(X[:, {j}])" for _, j in keys],
        "row": [f"x[{j}] = pandas.to_numeric(x[{j}])" for _, j in keys],
    }
    code = {sort: "; ".join(lines) for sort, lines in fixes.items()}
    code["records"] = "for x in records: " + code["record"]  # (one loop body)
    # (a Series of strings only has pandas' str dtype, which refuses a number)
    code["series"] = "x = x.astype(object); " + code["record"]
    if source in code:
        return f"Convert the values first: {code[source]} ({coerce})"
    return (f"Convert the values first with pandas.to_numeric: {code['frame']} for a "
            f"DataFrame, {code['record']} for a record, {code['array']} for an "
            "object array (X = X.astype(float) for a numpy array of strings, dtype '<U' "
            f"or 'S'); {coerce}")

def check_date_unit(owner: str, name: str, values: np.ndarray, dtype: Any,
                    where: Callable[[int], str]) -> None:
    """Refuse a date or duration of feature ``name`` that its ``dtype`` cannot hold
    exactly (:func:`~ixplain.tabular.date_unit_misfit`): the rows reach the model, and the
    storage's draws, in ``dtype``, and the cast would truncate a finer unit's fraction or
    wrap a value out of the unit's range around, silently. A lossless cast (whole
    seconds in ``datetime64[ns]`` into a ``datetime64[s]`` stream) goes through.

    Raises
    ------
    ValueError
        Naming the feature, the value, its row, both units and what to do.
    """
    check_time_zone(owner, name, values, dtype, where)
    misfit = date_unit_misfit(values, dtype)
    if misfit is None:
        return
    i, value, own, why = misfit
    unit, n = np.datetime_data(np.dtype(getattr(dtype, "base", dtype)))[0], repr(name)
    if why.startswith("not a whole"):
        fix = (f"round the values yourself if the loss is acceptable (df[{n}] = "
               f"df[{n}].dt.floor({unit!r})), or start the stream with the finer unit")
    else:
        fix = ("start the stream with a unit whose range holds the values (e.g. "
               f"df[{n}].astype('{own}') for the first observations too)")
    raise ValueError(
        f"{owner}: feature {name!r} holds {value!r} ({where(i)}), a "
        f"{own} value, but the stream's first observations fixed it as {dtype}, which "
        f"cannot hold it exactly ({why}); casting it would change it. Give every call the "
        f"same unit: {fix}.")

def check_time_zone(owner: str, name: str, values: np.ndarray, dtype: Any,
                    where: Callable[[int], str]) -> None:
    """Refuse a naive datetime of feature ``name`` in a stream whose first observations
    made it tz-aware, or an aware one in a naive stream: pandas reads the first as wall
    time in the stream's zone and turns the second into naive UTC, silently (QA).

    Raises
    ------
    ValueError
        Naming the feature, the value, its row, both kinds and the conversion.
    """
    if np.dtype(getattr(dtype, "base", dtype)).kind != "M":
        return
    zone = getattr(dtype, "tz", None)
    for i, v in enumerate(values):
        if missing_value(v) or not (hasattr(v, "tzinfo") or isinstance(v, np.datetime64)):
            continue  # (numbers, strings: not a matter of zones)
        if (getattr(v, "tzinfo", None) is not None) == (zone is not None):
            continue
        n = repr(name)
        if zone is not None:
            what = "a naive datetime"
            fix = (f"df[{n}] = df[{n}].dt.tz_localize({str(zone)!r}) reads naive values as "
                   "wall time there")
        else:
            what = "a tz-aware datetime"
            fix = (f"df[{n}] = df[{n}].dt.tz_convert(None) gives the UTC instant, "
                   ".dt.tz_localize(None) the wall time")
        raise ValueError(
            f"{owner}: feature {name!r} holds {v!r} ({where(i)}), "
            f"{what}, but the stream's first observations fixed it as {dtype}; give every "
            f"call the same kind of datetimes ({fix}).")




class Getter:
    """``operator.itemgetter`` over the feature labels that always returns a tuple."""

    def __init__(self, labels: Any) -> None:
        self.single = len(labels) == 1
        self.get = operator.itemgetter(*labels)

    def __call__(self, record: Any) -> tuple:
        values = self.get(record)
        return (values,) if self.single else values


def records_matrix(X: Any, getter: Getter, d: int) -> np.ndarray | None:
    """All-numeric records as a (len(X), d) float64 matrix, every value converted in C
    (itemgetter per record, one fromiter); None if a value is not of a number type
    (:data:`FLOAT_TYPES`: a string, a missing value, ...; numpy would read ``"2.5"`` as
    2.5), for the general path. Raises KeyError for a missing feature."""
    get = getter.get  # the C itemgetter (one value for one feature)
    values = list(map(get, X) if getter.single else itertools.chain.from_iterable(map(get, X)))
    if not FLOAT_TYPES.issuperset(map(type, values)):
        return None
    return np.fromiter(values, dtype=np.float64, count=len(X) * d).reshape(len(X), d)


COMPLEX = (complex, np.complexfloating)
TEXT = (str, bytes)  # (numpy's str_ and bytes_ subclass them)
#: The value types a numeric feature's values are converted from in one C call (the record
#: fast paths, an object column); a value of any other type (a string, None, pandas NA, a
#: Decimal) takes the general path of ``_as_column``, which refuses strings.
FLOAT_TYPES = frozenset({
    float, int, bool, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16,
    np.int8, np.uint64, np.uint32, np.uint16, np.uint8, np.bool_,
})


def is_missing(v: Any) -> bool:
    """None, pandas NA or a float NaN."""
    return _is_na(v) or (isinstance(v, float) and v != v)


def missing_only(table: Table, row: bool = False) -> list[str]:
    """The features of ``table`` read from objects (records, object arrays or columns, or any
    pandas Series row if ``row``) whose values are all missing: their kind (numeric or
    categorical) is not known yet."""
    schema = table.schema
    return [
        name for name, dtype in zip(schema.names, schema.dtypes)
        if (row or schema.source == "records" or getattr(dtype, "kind", None) == "O")
        and all(is_missing(v) for v in table.columns[name])
    ]


class NotANumber(ValueError):
    """A numeric feature's ``value``, row ``row`` of the call, is not a number (raised by
    :meth:`~ixplain.boundary.StreamInput._as_column`, worded by its caller for every such feature)."""

    def __init__(self, value: Any, row: int) -> None:
        super().__init__(value, row)
        self.value, self.row = value, row


def is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def input_kind(X: Any) -> str | None:
    """The sort of observations ``X`` for the fix of a refused string
    (:func:`number_fix`): ``"frame"`` (a DataFrame), ``"text"`` /
    ``"text row"`` (a 2-D / 1-D numpy array of strings, dtype ``<U`` or ``S``), ``"array"`` /
    ``"row"`` (any other 2-D / 1-D numpy array); None for anything else (lists, tables).

    Examples
    --------
    >>> input_kind(np.array([["1.5"]])), input_kind(np.array([1.0, "a"], dtype=object))
    ('text', 'row')
    """
    if is_instance(X, "pandas", "DataFrame"):
        return "frame"
    if not isinstance(X, np.ndarray) or X.ndim not in (1, 2):
        return None
    text = X.dtype.kind in "US"
    if X.ndim == 1:
        return "text row" if text else "row"
    return "text" if text else "array"


def is_array(X: Any) -> bool:
    return isinstance(X, np.ndarray) or (
        isinstance(X, (list, tuple)) and not (X and isinstance(X[0], Mapping))
    )
