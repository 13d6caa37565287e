"""Parameter validation shared by every public function and class.

One error format everywhere (scikit-learn's ``_param_validation`` wording)::

    The 'n_repeats' parameter of permutation_importance must be an int >= 1. Got 0 instead.

Validation happens once, at the public boundary; internal code trusts its inputs.
"""

from __future__ import annotations

import numbers
import os
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "ModelEvaluationError",
    "check_bool",
    "check_feature_names",
    "check_float",
    "check_int",
    "check_n_jobs",
    "check_options",
    "check_random_state",
    "RANDOM_STATE_RULE",
    "validate_random_state",
    "check_sample_weight",
    "check_target",
    "param_error",
    "refuse_complex_target",
    "date_sort",
    "missing_value",
    "refuse_datetime",
    "refuse_nonfinite",
    "user_stacklevel",
]


class ModelEvaluationError(RuntimeError):
    """The user's model raised while ixplain evaluated it.

    The original exception is chained as ``__cause__``; the message says which model call
    (rows, columns, input type) failed so the user can reproduce it.
    """


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def param_error(
    owner: str, name: str, rule: str, value: Any, *, exc: type[Exception] = ValueError
) -> Exception:
    """Build the standard error for a parameter that breaks its rule.

    Parameters
    ----------
    owner : str
        The public function or class the parameter belongs to.
    name : str
        The parameter's name.
    rule : str
        What the value must be, e.g. ``"an int >= 1"``.
    value : object
        The value received (shown with ``repr``, shortened to 200 characters).
    exc : type, default=ValueError
        The exception class to build (``TypeError`` for a wrong type).

    Examples
    --------
    >>> str(param_error("permutation_importance", "n_repeats", "an int >= 1", 0))
    "The 'n_repeats' parameter of permutation_importance must be an int >= 1. Got 0 instead."
    """
    return exc(f"The {name!r} parameter of {owner} must be {rule}. Got {_show(value)} instead.")


def check_int(
    value: Any,
    name: str,
    owner: str,
    *,
    min_value: int | None = None,
    max_value: int | None = None,
    allow_none: bool = False,
) -> int | None:
    """Return ``value`` as an ``int`` or raise the standard error.

    Booleans are refused (``True`` is not a count). Raises ``TypeError`` for a non-integer and
    ``ValueError`` for an integer out of ``[min_value, max_value]``.
    """
    if value is None and allow_none:
        return None
    rule = _range_rule("an int", min_value, max_value, allow_none)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise param_error(owner, name, rule, value, exc=TypeError)
    iv = int(value)
    if (min_value is not None and iv < min_value) or (max_value is not None and iv > max_value):
        raise param_error(owner, name, rule, value)
    return iv


def check_float(
    value: Any,
    name: str,
    owner: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    allow_none: bool = False,
) -> float | None:
    """Return ``value`` as a finite ``float`` in the given interval or raise the standard error.

    Raises ``TypeError`` for a non-number and ``ValueError`` for NaN, infinity or a value outside
    the interval.
    """
    if value is None and allow_none:
        return None
    lo = "" if low is None else ("[" if low_inclusive else "(") + f"{low}"
    hi = "" if high is None else f"{high}" + ("]" if high_inclusive else ")")
    if low is not None and high is not None:
        rule = f"a float in {lo}, {hi}"
    elif low is not None:
        rule = f"a float {'>=' if low_inclusive else '>'} {low}"
    elif high is not None:
        rule = f"a float {'<=' if high_inclusive else '<'} {high}"
    else:
        rule = "a finite float"
    if allow_none:
        rule += " or None"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise param_error(owner, name, rule, value, exc=TypeError)
    v = float(value)
    if not np.isfinite(v):
        raise param_error(owner, name, rule, value)
    if low is not None and (v < low or (v == low and not low_inclusive)):
        raise param_error(owner, name, rule, value)
    if high is not None and (v > high or (v == high and not high_inclusive)):
        raise param_error(owner, name, rule, value)
    return v


def check_n_jobs(n_jobs: Any, owner: str) -> int:
    """Number of threads for ``n_jobs`` with joblib's meaning.

    ``None`` is 1, a positive int is itself, ``-1`` is every core, ``-2`` all but one, and so on.

    Raises
    ------
    TypeError
        For a non-integer (bools included).
    ValueError
        For 0.

    Examples
    --------
    >>> check_n_jobs(None, "sage"), check_n_jobs(3, "sage")
    (1, 3)
    """
    if n_jobs is None:
        return 1
    rule = "None or a non-zero int (-1 = all cores)"
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise param_error(owner, "n_jobs", rule, n_jobs, exc=TypeError)
    jobs = int(n_jobs)
    if jobs == 0:
        raise param_error(owner, "n_jobs", rule, n_jobs)
    cpus = os.cpu_count() or 1
    return jobs if jobs > 0 else max(1, cpus + 1 + jobs)


def check_bool(value: Any, name: str, owner: str) -> bool:
    """Return ``value`` if it is a bool (numpy bools accepted), else raise ``TypeError``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise param_error(owner, name, "a bool", value, exc=TypeError)


def check_options(value: Any, name: str, owner: str, options: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``options``, else raise ``ValueError`` listing them."""
    opts = list(options)
    try:
        ok = value in opts
    except TypeError:  # unhashable / un-comparable values
        ok = False
    if not ok or isinstance(value, np.ndarray):
        shown = ", ".join(repr(o) for o in opts)
        raise param_error(owner, name, f"one of {{{shown}}}", value)
    return value


def check_feature_names(names: Any, owner: str) -> list[str] | None:
    """``feature_names`` as a list of distinct str (``None`` stays ``None``).

    The one check of every public ``feature_names`` (:func:`ixplain.as_table` and so every
    method, the incremental explainers at construction). One string is refused: iterated, it
    would silently name one feature per character (``"ab"`` -> ``['a', 'b']``). Unordered
    collections (sets, dicts) are refused too: the names give the columns' order.

    Raises
    ------
    TypeError
        ``"The 'feature_names' parameter of <owner> must be a list of names. Got the string
        'ab' instead ..."`` for a string (or bytes), a set, a dict or a non-iterable.
    ValueError
        For repeated names (two columns would share one name, one of them lost).

    Examples
    --------
    >>> check_feature_names(("a", 1), "f")
    ['a', '1']
    >>> check_feature_names("ab", "IncrementalPFI")
    Traceback (most recent call last):
    ...
    TypeError: The 'feature_names' parameter of IncrementalPFI must be a list of names. Got the string 'ab' instead (one string would name one feature per character; use ['ab'] for one feature).
    """
    if names is None:
        return None
    rule = "a list of names"
    if isinstance(names, (str, bytes)):
        raise TypeError(
            f"The 'feature_names' parameter of {owner} must be {rule}. Got the string "
            f"{_show(names)} instead (one string would name one feature per character; use "
            f"[{_show(names)}] for one feature)."
        )
    if (isinstance(names, (set, frozenset, dict)) or not isinstance(names, Iterable)
            or getattr(names, "ndim", 1) != 1):
        raise param_error(owner, "feature_names", f"{rule} (a list, tuple or 1-D array)",
                          names, exc=TypeError)
    out = [str(n) for n in names]
    if len(set(out)) != len(out):
        repeated = sorted({n for n in out if out.count(n) > 1})
        raise ValueError(
            f"The 'feature_names' parameter of {owner} must be {rule}, each once. Got "
            f"{_show(names)} instead ({repeated} repeated)."
        )
    return out


#: The rule every ``random_state`` parameter states (:func:`validate_random_state`).
RANDOM_STATE_RULE = ("None, an int >= 0, a numpy.random.Generator or a legacy "
                     "numpy.random.RandomState")


def validate_random_state(
    random_state: Any, owner: str = "ixplain"
) -> int | np.random.Generator | None:
    """The one check of a ``random_state`` (:data:`RANDOM_STATE_RULE`), for
    :func:`check_random_state` and :func:`ixplain._random.root_seed`.

    Parameters
    ----------
    random_state : object
        The value given.
    owner : str, default="ixplain"
        The public function or class named in the error.

    Returns
    -------
    None, int or numpy.random.Generator
        ``None`` and a Generator as given; an integer (numpy's too) as an int; a legacy
        ``RandomState`` as the int of one draw from it (so scikit-learn style code keeps
        working).

    Raises
    ------
    ValueError
        For a negative int.
    TypeError
        For any other type (bools, floats and strings included); both messages show the
        value (:func:`param_error`).

    Examples
    --------
    >>> validate_random_state(np.int64(3))
    3
    """
    if random_state is None or isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state,
                                                                     (bool, np.bool_)):
        if int(random_state) < 0:
            raise param_error(owner, "random_state", RANDOM_STATE_RULE, random_state)
        return int(random_state)
    raise param_error(owner, "random_state", RANDOM_STATE_RULE, random_state, exc=TypeError)


def check_random_state(random_state: Any, owner: str = "ixplain") -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`, once.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``None`` gives fresh OS entropy (not reproducible); an int seeds a new generator;
        a ``Generator`` is used as is (shared, not copied); a legacy ``RandomState`` seeds a new
        generator from one draw of it, so scikit-learn style code keeps working.

    Raises
    ------
    ValueError
        For a negative int.
    TypeError
        For any other type (floats and bools included); see :func:`validate_random_state`.

    Examples
    --------
    >>> check_random_state(0).integers(10, size=3).tolist() == check_random_state(0).integers(10, size=3).tolist()
    True
    """
    seed = validate_random_state(random_state, owner)
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def check_sample_weight(sample_weight: Any, n_rows: int, owner: str) -> np.ndarray | None:
    """``None`` or ``n_rows`` finite, non-negative weights with a positive sum, as float64."""
    if sample_weight is None:
        return None
    rule = f"None or a 1-D array of {n_rows} finite, non-negative weights with a positive sum"
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error(owner, "sample_weight", rule, sample_weight, exc=TypeError) from None
    if w.ndim != 1 or w.shape[0] != n_rows:
        raise ValueError(
            f"The 'sample_weight' parameter of {owner} must be {rule}. Got an array of shape "
            f"{w.shape} instead."
        )
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad) or w.sum() <= 0:
        found = (f"{len(bad)} bad weight(s), the first sample_weight[{bad[0]}] = "
                 f"{float(w[bad[0]])}" if len(bad) else f"weights summing to {float(w.sum())}")
        raise ValueError(
            f"The 'sample_weight' parameter of {owner} must be {rule}. Got {found} instead."
        )
    return w


def refuse_nonfinite(values: Any, owner: str, what: str, labels: Any = None) -> None:
    """Raise a ValueError when explanation values are NaN or infinite.

    The model's outputs were finite (a NaN output is refused by the model adapter), so a
    non-finite loss, score or importance means the loss overflowed (outputs or targets too
    large to square) or the score is undefined on the rows (e.g. R^2 of fewer than two rows).
    An explanation of NaN is never returned as if it were a result.

    Parameters
    ----------
    values : array-like
        The values to check; with ``labels``, of shape (len(labels), ...).
    owner : str
        The public function that computed them.
    what : str
        What the values are, e.g. ``"loss increase"``.
    labels : sequence of str, optional
        Names of the leading axis (features or groups), named in the message.

    Raises
    ------
    ValueError
        If any value is NaN or infinite.

    Examples
    --------
    >>> refuse_nonfinite([1.0, 2.0], "f", "importance")
    >>> refuse_nonfinite([1.0, float("inf")], "f", "importance", ["a", "b"])
    Traceback (most recent call last):
    ...
    ValueError: f: the importance of ['b'] is not finite (inf or NaN): ...
    """
    arr = np.asarray(values, dtype=float)
    if np.isfinite(arr).all():
        return
    where = ""
    if labels is not None:
        bad = ~np.isfinite(arr.reshape(len(labels), -1)).all(axis=1)
        where = f" of {[labels[i] for i in np.flatnonzero(bad)]}"
    raise ValueError(
        f"{owner}: the {what}{where} is not finite (inf or NaN): the loss overflowed (outputs "
        "or targets too large to square: rescale y and the model, e.g. to units where "
        "|y| < 1e100) or the score is undefined on these rows (R^2 needs at least two rows "
        "with different targets)."
    )


def check_target(y: Any, n: int, owner: str) -> np.ndarray:
    """``y`` as an array of ``n`` targets; numeric targets must be finite.

    NaN or infinite targets would turn every loss, and so every importance, into NaN.
    """
    if y is None:
        raise param_error(owner, "y", "an array of n_rows targets", y, exc=TypeError)
    arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if arr.ndim == 0 or arr.shape[0] != n:
        raise ValueError(f"{owner}: X has {n} rows but y has shape {arr.shape}.")
    if arr.ndim == 2 and arr.shape[1] == 1:  # one target column, as scikit-learn ravels it
        arr = arr[:, 0]
    refuse_complex_target(arr, owner)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr.reshape(n, -1)).all(axis=1)
        if bad.any():
            row = int(bad.argmax())
            what = "NaN" if np.isnan(arr.reshape(n, -1)[row]).any() else "an infinite value"
            raise ValueError(
                f"{owner}: y contains {what} (first at row {row}); drop or fill those rows."
            )
    return arr


def refuse_complex_target(y: np.ndarray, owner: str) -> None:
    """Raise ``TypeError`` if the targets ``y`` are complex numbers (a complex dtype, or
    complex objects): no loss or class label takes them (they were cast to their real part,
    with numpy's ComplexWarning, or failed inside the loss)."""
    flat = y.reshape(-1)
    if y.dtype.kind == "c" and flat.size:
        odd = np.flatnonzero(flat.imag != 0)
        example = flat[odd[0] if len(odd) else 0]
    elif y.dtype.kind == "O":
        example = next((v for v in flat if isinstance(v, (complex, np.complexfloating))), None)
        if example is None:
            return
    else:
        return
    raise TypeError(
        f"{owner}: y holds complex numbers (e.g. {complex(example)!r}); targets must be real "
        "numbers or class labels. Pass y.real if the imaginary parts are 0."
    )


#: How each sort of date feature (:func:`date_sort`) is named and passed as a number: the
#: code runs as shown on a pandas column of that sort (``X`` the user's DataFrame, ``pd``
#: pandas, ``start`` a pandas Timestamp).
_DATE_TEXT = {
    "datetime64": ("dates or datetimes", (
        "seconds since one fixed start for all the data, (X[{n}] - start).dt.total_seconds() "
        "with start a pandas Timestamp (in the column's time zone, if any)")),
    "timedelta64": ("durations", "their length in seconds, X[{n}].dt.total_seconds()"),
    "period": ("pandas periods", (
        "seconds from one fixed start for all the data to each period's start, "
        "(X[{n}].dt.start_time - start).dt.total_seconds() with start a pandas Timestamp")),
    "datetime": ("dates or datetimes", (
        "seconds since one fixed start for all the data, "
        "(pd.to_datetime(X[{n}]) - start).dt.total_seconds() (pd.to_datetime first: "
        "the column holds Python objects, which have no .dt) with start a pandas Timestamp "
        "(in the values' time zone, if they have one)")),
    "date": ("dates", (
        "seconds since one fixed start for all the data, "
        "(pd.to_datetime(X[{n}]) - start).dt.total_seconds() (pd.to_datetime first: "
        "the column holds Python objects, which have no .dt) with start a pandas Timestamp")),
    "timedelta": ("durations", (
        "their length in seconds, pd.to_timedelta(X[{n}]).dt.total_seconds() "
        "(pd.to_timedelta first: the column holds Python objects, which have no .dt)")),
    "Period": ("pandas periods", (
        "seconds from one fixed start for all the data to each period's start, "
        "(X[{n}].map(lambda p: p.start_time, na_action='ignore') - start).dt.total_seconds() "
        "with start a pandas Timestamp")),
    "mixed": ("dates and durations", (
        "a date as seconds since one fixed start for all the data, a duration as its length "
        "in seconds (one column of each)")),
}
#: For each sort (but a mix of dates and durations): the values back from the seconds of
#: ``_DATE_TEXT``, as pandas code on the number column ``X[{n}]`` (``start`` the same
#: Timestamp), for a wrapper of a model that reads the dates themselves (``.dt``).
_DATE_BACK = {
    "datetime64": "start + pd.to_timedelta(X[{n}], unit='s')",
    "timedelta64": "pd.to_timedelta(X[{n}], unit='s')",
    "period": "(start + pd.to_timedelta(X[{n}], unit='s')).dt.to_period(freq)",
    "datetime": "start + pd.to_timedelta(X[{n}], unit='s')",
    "date": "start + pd.to_timedelta(X[{n}], unit='s')",
    "timedelta": "pd.to_timedelta(X[{n}], unit='s')",
    "Period": "(start + pd.to_timedelta(X[{n}], unit='s')).dt.to_period(freq)",
}
_BACK_NOTE = {"timedelta64": "", "timedelta": "",
              "period": " (the same start; freq the periods' frequency, e.g. 'M')",
              "Period": " (the same start; freq the periods' frequency, e.g. 'M')"}
#: The sorts the static accumulated_local_effects bins in time order (the others it reads as
#: categorical levels: Python dates, periods; a mix of dates and durations).
_ALE_TIME_SORTS = ("datetime64", "timedelta64", "datetime", "timedelta")


def _date_family(value: Any) -> str | None:
    """``"datetime"``, ``"date"``, ``"timedelta"`` or ``"Period"`` for a date-like value
    (pandas ``Timestamp``/``Timedelta`` subclass the Python types), None for any other."""
    import datetime

    if isinstance(value, (datetime.datetime, np.datetime64)):
        return "datetime"
    if isinstance(value, datetime.date):
        return "date"
    if isinstance(value, (datetime.timedelta, np.timedelta64)):
        return "timedelta"
    if type(value).__name__ == "Period" and type(value).__module__.startswith("pandas"):
        return "Period"
    return None


def missing_value(value: Any) -> bool:
    """None, pandas NA (whose ``!=`` is NA, not a bool), or a value unequal to itself (NaN,
    NaT)."""
    if value is None or type(value).__name__ == "NAType":
        return True
    try:
        return bool(value != value)
    except Exception:
        return False


def date_sort(values: Any, dtype: Any) -> tuple[str, str] | None:
    """Whether a feature holds dates, datetimes, durations or periods, and how it showed it.

    Parameters
    ----------
    values : iterable
        The column's values (read only for an object-like dtype, until the first value that
        is not date-like).
    dtype : numpy dtype or pandas extension dtype
        The column's dtype.

    Returns
    -------
    (sort, what) or None
        ``sort``: ``"datetime64"`` or ``"timedelta64"`` (those dtypes, any unit, tz-aware
        too), ``"period"`` (a pandas Period dtype), or, for a column of objects whose
        non-missing values are all date-like (at least one): ``"datetime"`` (datetimes,
        numpy datetime64), ``"date"`` (Python dates, possibly with datetimes),
        ``"timedelta"``, ``"Period"``, or ``"mixed"`` (dates and durations). ``what``: ``"dtype <dtype>"`` or ``"values of type <type>"``
        (the first value's). None for any other column.

    Examples
    --------
    >>> import datetime
    >>> date_sort([None, datetime.date(2024, 1, 1)], np.dtype(object))
    ('date', 'values of type date')
    >>> date_sort(["2024-01-01"], np.dtype(object)) is None
    True
    """
    kind = getattr(dtype, "kind", None)
    if kind in ("M", "m"):  # datetime64 (a pandas DatetimeTZDtype too), timedelta64
        return ("datetime64" if kind == "M" else "timedelta64"), f"dtype {dtype}"
    if type(dtype).__name__ == "PeriodDtype":
        return "period", f"dtype {dtype}"
    if kind != "O":
        return None
    families: set[str] = set()
    first: Any = None
    for v in values:
        if missing_value(v):  # (NaT subclasses datetime)
            continue
        family = _date_family(v)
        if family is None:
            return None
        if first is None:
            first = v
        families.add(family)
    if not families:
        return None
    if families == {"datetime", "date"}:
        sort = "date"
    elif len(families) == 1:
        sort = families.pop()
    else:
        sort = "mixed"
    return sort, f"values of type {type(first).__name__}"


def refuse_datetime(owner: str, name: str, what: str, hint: str,
                    sort: str = "datetime64") -> ValueError:
    """The refusal of a feature of dates, datetimes, durations or periods, one text for
    every method.

    Parameters
    ----------
    owner : str
        The public function or class that refuses the feature.
    name : str
        The feature (column) name.
    what : str
        How the feature showed it: ``"dtype <its dtype>"`` (e.g. ``"dtype datetime64[ns,
        UTC]"``), or ``"values of type <type>"`` for date objects in an object column
        (:func:`date_sort` gives both).
    hint : str
        Why this method refuses it and what else the user can call (one or more sentences,
        ending with a full stop). It must name only alternatives the method accepts for
        this sort (``partial_dependence`` refuses ``custom_values`` for them too); the text
        adds that the static ``accumulated_local_effects`` bins the feature in time order
        where it does (datetime64, timedelta64, datetime and timedelta objects).
    sort : str, default="datetime64"
        The feature's sort (:func:`date_sort`): it names the values (a duration is not
        called a date) and picks the conversion shown.

    Returns
    -------
    ValueError
        To be raised by the caller; the message names the owner, the feature, its dtype or
        value type, the hint and the conversion to a number the model reads, code that runs
        as shown on a pandas column of that sort (one that holds for any time unit: pandas 3
        makes microseconds the default, so ``astype('int64') / 1e9`` would not give seconds),
        and, for a model that reads the dates themselves (``X['t'].dt.hour``), the wrapper
        that turns the numbers back before calling it (not for a mix of dates and
        durations, which needs two columns).

    Examples
    --------
    >>> str(refuse_datetime("f", "t", "dtype timedelta64[s]", "f needs numbers.",
    ...                     "timedelta64"))
    "f: feature 't' holds durations (dtype timedelta64[s]); f needs numbers. The static accumulated_local_effects bins them in time order. Pass them as a number the model reads, e.g. their length in seconds, X['t'].dt.total_seconds(). A model that reads the durations themselves (.dt) is explained through a wrapper that turns the numbers back: lambda X: model.predict(X.assign(**{'t': pd.to_timedelta(X['t'], unit='s')}))."

    The wrapper at work: a model of the hour of day (it reads ``.dt``), explained on the
    seconds since ``start``, gives the PD of the hours.

    >>> import pandas as pd
    >>> from ixplain import partial_dependence
    >>> X = pd.DataFrame({"t": pd.date_range("2024-01-01", periods=48, freq="h"),
    ...                   "x": np.arange(48.0)})
    >>> def hour_model(D):
    ...     return D["t"].dt.hour.to_numpy() + D["x"].to_numpy()
    >>> start = pd.Timestamp("2024-01-01")
    >>> numbers = X.assign(t=(X["t"] - start).dt.total_seconds())
    >>> def wrapped(D):
    ...     return hour_model(D.assign(**{"t": start + pd.to_timedelta(D["t"], unit="s")}))
    >>> bool((wrapped(numbers) == hour_model(X)).all())
    True
    >>> partial_dependence(wrapped, numbers, "t", custom_values={"t": [0.0, 5 * 3600.0]}).average
    array([[23.5, 28.5]])
    """
    noun, code = _DATE_TEXT[sort]
    ale = (" The static accumulated_local_effects bins them in time order."
           if sort in _ALE_TIME_SORTS else "")
    n = repr(name)
    back = _DATE_BACK.get(sort)
    wrap = "" if back is None else (
        f" A model that reads the {noun} themselves (.dt) is explained through a wrapper "
        f"that turns the numbers back: lambda X: model.predict(X.assign(**{{{n}: "
        f"{back.format(n=n)}}})){_BACK_NOTE.get(sort, ' (the same start)')}.")
    return ValueError(
        f"{owner}: feature {name!r} holds {noun} ({what}); {hint}{ale} Pass them as a number "
        f"the model reads, e.g. {code.format(n=n)}.{wrap}"
    )


def _range_rule(base: str, lo: int | None, hi: int | None, allow_none: bool) -> str:
    if lo is not None and hi is not None:
        rule = f"{base} in [{lo}, {hi}]"
    elif lo is not None:
        rule = f"{base} >= {lo}"
    elif hi is not None:
        rule = f"{base} <= {hi}"
    else:
        rule = base
    return rule + (" or None" if allow_none else "")


def available_memory() -> int | None:
    """Bytes of physical memory available now (None where the platform does not say)."""
    import os

    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not on Linux/macOS
        return None


def check_allocation(
    n_bytes: int, what: str, owner: str, fix: str, *, memory_budget: int | None = None
) -> None:
    """Refuse, before allocating, a size that cannot fit in this machine's memory (or in the
    caller's ``memory_budget``).

    The one check of sizes known up front (storages, permutation indices and importances, the
    smallest model call of a method, PD grids and ICE outputs): called before the allocation,
    so an absurd size is refused at once, with the bytes it needs, instead of growing memory
    until the machine swaps.

    Parameters
    ----------
    n_bytes : int
        What the allocation needs.
    what : str
        What it is, naming the parameter that sets it, e.g. ``"UniformReservoir(size=
        1,000,000,000) for 3 features"``.
    owner : str
        The class or function, for the message.
    fix : str
        What to change.
    memory_budget : int, optional
        For the smallest unit of work of a function with a ``memory_budget``: ``n_bytes``
        must also fit in it (one model call cannot be split further).

    Raises
    ------
    ValueError
        ``"<owner>: <what> needs 1,280,000,032 bytes in one model call, more than
        memory_budget=268,435,456. <fix>"`` when ``n_bytes`` exceeds ``memory_budget``.
    MemoryError
        ``"<owner>: <what> would need 22.4 GiB (24,000,000,000 bytes), more than the 19.8 GiB
        of memory available. <fix>"`` when ``n_bytes`` exceeds the memory available now.

    Examples
    --------
    >>> check_allocation(10**6, "a small array", "f", "")  # fits: nothing happens
    >>> try:
    ...     check_allocation(2**80, "n_repeats=10**20", "permutation_importance", "Use fewer.")
    ... except MemoryError as e:
    ...     print(str(e)[:80])
    permutation_importance: n_repeats=10**20 would need 1,125,899,906,842,624.0 GiB
    """
    if memory_budget is not None and n_bytes > memory_budget:
        raise ValueError(
            f"{owner}: {what} needs {int(n_bytes):,} bytes in one model call, more than "
            f"memory_budget={int(memory_budget):,}. {fix}"
        )
    free = available_memory()
    if free is not None and n_bytes > free:
        raise MemoryError(
            f"{owner}: {what} would need {n_bytes / 2**30:,.1f} GiB ({int(n_bytes):,} bytes), "
            f"more than the {free / 2**30:,.1f} GiB of memory available. {fix}"
        )


#: The smallest ``memory_budget`` (bytes) of the static functions and the Dask driver: 4 KiB,
#: 512 float64 cells per model call. Below it model calls shrink to a few rows each (a budget
#: of 1 byte meant one-row calls: effectively a hang).
MIN_MEMORY_BUDGET = 4096


def check_memory_budget(value: Any, owner: str) -> int:
    """Return ``memory_budget`` as an int, refusing values below :data:`MIN_MEMORY_BUDGET`.

    Raises
    ------
    TypeError
        For a non-integer (or a bool).
    ValueError
        ``"The 'memory_budget' parameter of <owner> must be an int >= 4096 (bytes; the
        minimum memory budget, MIN_MEMORY_BUDGET). Got 1 instead."``

    Examples
    --------
    >>> check_memory_budget(2**20, "partial_dependence")
    1048576
    """
    rule = (f"an int >= {MIN_MEMORY_BUDGET} (bytes; the minimum memory budget, "
            "MIN_MEMORY_BUDGET)")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise param_error(owner, "memory_budget", rule, value, exc=TypeError)
    if int(value) < MIN_MEMORY_BUDGET:
        raise param_error(owner, "memory_budget", rule, value)
    return int(value)


def check_2d(X: Any, owner: str) -> None:
    """Refuse a 1-D array (or a dict record) where a table of rows is needed: read as one row
    it would give an explanation of a single observation without a word.

    Raises
    ------
    ValueError
        ``"The 'X' parameter of <owner> must be 2-D (n_rows, n_features). Got a 1-D array of
        shape (n,) instead; ..."`` with the reshape to use.
    """
    ndim = getattr(X, "ndim", None)
    if ndim == 1 and not hasattr(X, "columns"):  # a numpy or pandas 1-D array, not a frame
        raise ValueError(
            f"The 'X' parameter of {owner} must be 2-D (n_rows, n_features). Got a 1-D array "
            f"of shape {tuple(X.shape)} instead; use X.reshape(-1, 1) for one feature (or "
            "X.to_frame() for a Series), or X.reshape(1, -1) for one row."
        )
    if isinstance(X, dict):
        raise ValueError(
            f"The 'X' parameter of {owner} must be a table of rows; got one dict record. Pass "
            "a list of records ([x]) or a DataFrame."
        )


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning raised by the caller point at the first frame
    outside the ixplain package (the user's line), however deep the call came from.

    Returns
    -------
    int
        At least 1 (the caller itself, when called from outside the package).
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
