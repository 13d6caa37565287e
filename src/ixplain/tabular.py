"""Tabular schema and conversions: one column-oriented table for every input type.

Every explanation method perturbs rows (repeat them, overwrite the columns of a feature subset S
with values from perturbation data) and then hands them to the model *in the model's native input
type*: a pandas DataFrame with the user's dtypes for a scikit-learn pipeline, a 2-D array for an
estimator fitted on arrays, a list of dict records for a River model. :class:`Table` is the one
internal representation that makes this cheap and dtype-safe:

* columns are stored separately (``dict`` of 1-D arrays), so overwriting a column never touches the
  dtypes of the others and repeating rows is ``numpy.take`` per column;
* the :class:`Schema` remembers where the data came from (``"numpy"``, ``"pandas"``, ``"polars"``,
  ``"records"``), the original column labels and dtypes, and each feature's kind
  (``"numeric"`` or ``"categorical"``), so :meth:`Table.to_native` rebuilds the same type.

Integer columns asked to hold non-integer values are upcast to float64 (and :attr:`Table.upcast`
names them) instead of being silently truncated; integral values keep the integer dtype, so a 0/1
column takes the grid ``[0, 1]`` unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ._lazy import is_instance, loaded
from ._validation import check_feature_names, missing_value

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Schema", "Table", "as_table"]

Source = Literal["numpy", "pandas", "polars", "records"]
Kind = Literal["numeric", "categorical"]


class UnsupportedInputError(TypeError):
    """X is of a type no method reads (not an array, DataFrame or dict records); a public
    function may re-word it in its own terms. Other TypeErrors of the conversion (complex
    numbers, feature_names) name their problem and pass through."""


@dataclass(frozen=True)
class Schema:
    """Names, order, kinds and original dtypes of a table's features.

    Attributes
    ----------
    names : tuple of str
        Feature names, in the model's column order.
    labels : tuple
        The original column labels (a DataFrame's labels may be ints); ``names[i] == str(labels[i])``.
    kinds : tuple of {"numeric", "categorical"}
        Numeric columns have a real dtype (bool excluded); everything else is categorical.
    dtypes : tuple
        The original dtype of each column (numpy dtype or pandas extension dtype).
    source : {"numpy", "pandas", "polars", "records"}
        The input type the data came in, which :meth:`Table.to_native` restores by default.
    array_dtype : numpy dtype or None
        For ``source="numpy"``: the dtype of the original 2-D array.
    native_dtypes : dict or None
        For ``source="polars"``: the original polars dtype of each column, restored by
        :meth:`Table.to_native` (pandas has no lossless equivalent for e.g. nullable ints).
    """

    names: tuple[str, ...]
    labels: tuple[Any, ...]
    kinds: tuple[str, ...]
    dtypes: tuple[Any, ...]
    source: str
    array_dtype: Any = None
    native_dtypes: Any = None

    def index(self, name: str) -> int:
        """Position of feature ``name``; ``KeyError`` listing the available names if unknown."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(
                f"Unknown feature {name!r}. Available features: {list(self.names)}."
            ) from None

    def kind(self, name: str) -> str:
        """``"numeric"`` or ``"categorical"`` for feature ``name``."""
        return self.kinds[self.index(name)]


def _kind_of(dtype: Any) -> str:
    """Kind of a pandas column's dtype."""
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        # pandas extension dtypes: nullable ints/floats are numeric, string/boolean categorical
        if pd.api.types.is_bool_dtype(dtype):
            return "categorical"
        return "numeric" if pd.api.types.is_numeric_dtype(dtype) else "categorical"
    if np_dtype.kind in "iuf":
        return "numeric"
    return "categorical"


def _is_na(v: Any) -> bool:
    """``None`` or pandas' ``NA`` (a missing value of any type)."""
    return v is None or type(v).__name__ == "NAType"


def _all_numbers(values: Any) -> bool:
    """True if every value is a real number or missing (None, NaN, pandas NA), and at least one
    is a number (a float NaN counts: it is a missing *number*, e.g. the first record of a
    stream)."""
    seen = False
    for v in values:
        if _is_na(v):
            continue
        if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, float, np.integer, np.floating)
        ):
            return False
        seen = True
    return seen


_COMPLEX = (complex, np.complexfloating)


def _refuse_complex(values: Any, name: str, owner: str) -> None:
    """Raise if column ``name`` holds complex numbers (a complex dtype, or complex objects).

    A model reads features as real numbers: a complex column reached the model (and failed
    there) or was silently cast to its real part.

    Raises
    ------
    TypeError
        ``"<owner>: feature 'a' holds complex numbers (e.g. (1+1j)); ..."``.
    """
    dtype = getattr(values, "dtype", None)
    if dtype is not None and dtype.kind == "c":
        arr = np.asarray(values)
        odd = np.flatnonzero(arr.imag != 0)
        example = arr[odd[0] if len(odd) else 0]
    elif dtype is None or dtype.kind == "O":
        example = next((v for v in values if isinstance(v, _COMPLEX)), None)
        if example is None:
            return
    else:
        return
    raise TypeError(
        f"{owner}: feature {name!r} holds complex numbers (e.g. {complex(example)!r}); features "
        "must be real. Pass the real part (X.real) if the imaginary parts are 0, or the real "
        "and imaginary parts as two features."
    )


def _object_kind(values: Any, categorical: bool) -> str:
    """Kind of an object column: ``"numeric"`` if it holds real numbers and missing values
    only (None, NaN, pandas NA; for every input type: arrays, DataFrames, records), else
    ``"categorical"`` (a column that mixes numbers and strings is a categorical one)."""
    return "numeric" if not categorical and _all_numbers(values) else "categorical"


def mixed_column_hint(table: Table) -> str | None:
    """A hint naming the first column that mixes numbers and strings (a numeric feature with a
    stray string is a categorical column here, and the model fails on it), or None.

    Examples
    --------
    >>> mixed_column_hint(as_table(np.array([[1.0, 2.0], ["abc", 3.0]], dtype=object)))[:43]
    "Feature 'x0' mixes numbers and strings (e.g"
    """
    for name, kind in zip(table.names, table.schema.kinds):
        col = table.columns[name]
        if kind != "categorical" or not isinstance(col, np.ndarray) or col.dtype != object:
            continue
        text = next((v for v in col if isinstance(v, str)), None)
        if text is not None and any(
                isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
                    v, (bool, np.bool_)) for v in col):
            return (f"Feature {name!r} mixes numbers and strings (e.g. {text!r}): if it is "
                    "numeric, convert it (pandas.to_numeric(errors='coerce') makes the bad "
                    "entries NaN).")
    return None


def is_date_dtype(dtype: Any) -> bool:
    """True for a datetime64 or timedelta64 dtype of any unit, tz-aware pandas ones included
    (numpy's ``M``/``m`` kinds; a pandas ``DatetimeTZDtype`` has kind ``M`` too)."""
    return getattr(dtype, "kind", None) in ("M", "m")


def date_objects(col: Any) -> np.ndarray:
    """A datetime64/timedelta64 column (any unit, tz-aware too) as an object array of pandas
    ``Timestamp``/``Timedelta`` values, without loss: ``np.asarray(col, dtype=object)`` makes
    a ``datetime64[ns]`` column integer nanoseconds and drops the unit of the others."""
    import pandas as pd

    return np.asarray(pd.array(col), dtype=object)


def restore_dates(col: Any, dtype: Any) -> Any:
    """An object column of dates or durations (:func:`date_objects`, or values drawn from it)
    back in the column's own ``dtype`` (a numpy array for a numpy dtype, a pandas
    ``DatetimeArray`` for a tz-aware one); ``col`` itself if it is already of that dtype, or
    if a value does not convert (then the model sees the values as they are)."""
    if not isinstance(col, np.ndarray) or col.dtype != object:
        return col
    import pandas as pd

    try:
        out = pd.array(col, dtype=dtype)
    except (TypeError, ValueError):  # a numpy unit pandas lacks (D, M, Y, ...): numpy converts
        try:
            return np.array([v.to_numpy() if hasattr(v, "to_numpy") else v for v in col],
                            dtype=dtype)
        except (TypeError, ValueError):
            return col
    return out.to_numpy() if isinstance(dtype, np.dtype) else out


def date_unit_misfit(values: Any, dtype: Any) -> tuple[int, Any, np.dtype, str] | None:
    """The first of ``values`` (dates or durations: pandas, Python or numpy scalars) that a
    column of ``dtype`` (a datetime64/timedelta64 dtype, tz-aware too) cannot hold exactly:
    one of a finer unit that is not a whole number of ``dtype``'s unit, or one out of its
    range (numpy's cast would truncate the first and wrap the second around, silently).

    Returns
    -------
    (i, value, its_dtype, why) or None
        Its position, the value, its own numpy dtype (e.g. ``datetime64[ns]``) and why it
        does not fit (``"not a whole number of s"`` or ``"out of the range of
        datetime64[ns]"``); None if every value fits (missing values always do).

    Examples
    --------
    >>> import pandas as pd
    >>> date_unit_misfit([pd.Timestamp("2024-01-01 00:00:02")], np.dtype("M8[s]")) is None
    True
    >>> date_unit_misfit([pd.Timestamp("2024-01-01 00:00:01.5")], np.dtype("M8[s]"))[3]
    'not a whole number of s'
    """
    target = np.dtype(getattr(dtype, "base", dtype))  # (a tz-aware dtype: its numpy base)
    unit = np.datetime_data(target)[0]
    for i, v in enumerate(values):
        if getattr(v, "unit", None) == unit or missing_value(v):
            continue
        own = _numpy_date(v)
        if own.dtype == target or own.dtype.kind != target.kind:  # (another sort of value:
            continue  # not a matter of units)
        try:
            if own.astype(target).astype(own.dtype) == own:
                continue
        except (TypeError, ValueError, OverflowError):  # (years, months: no common divisor)
            pass
        coarser = np.can_cast(own.dtype, target, "safe")  # (target's unit the finer one)
        why = f"out of the range of {target}" if coarser else f"not a whole number of {unit}"
        return i, v, own.dtype, why
    return None


def _numpy_date(value: Any) -> np.ndarray:
    """A date or duration as a 0-d numpy datetime64/timedelta64 array of its own unit (a
    tz-aware Timestamp in UTC; Python datetimes and timedeltas in microseconds, dates in
    days)."""
    import datetime

    if hasattr(value, "to_numpy"):  # pandas Timestamp / Timedelta
        return np.asarray(value.to_numpy())
    if isinstance(value, datetime.timedelta):
        return np.asarray(np.timedelta64(value))
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if isinstance(value, datetime.date):
        return np.asarray(np.datetime64(value))
    return np.asarray(value)


def _is_integer_dtype(dtype: Any) -> bool:
    if isinstance(dtype, np.dtype):  # pandas' is_integer_dtype on a numpy dtype, without pandas
        return dtype.kind in "iu"
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype):
        return False
    return bool(pd.api.types.is_integer_dtype(dtype)) and not pd.api.types.is_bool_dtype(dtype)


def _take(values: Any, idx: np.ndarray) -> Any:
    if isinstance(values, np.ndarray):
        return values[idx]
    return values.take(idx)


@dataclass
class Table:
    """A column-oriented table with a :class:`Schema`; the input every ixplain method works on.

    Build one with :func:`as_table` (or :meth:`Table.from_any`); the model adapters turn it back
    into the model's native type with :meth:`to_native`. All operations return new tables that
    share unchanged column arrays: nothing here writes into the caller's data.

    Attributes
    ----------
    columns : dict of str to array
        One 1-D array of length ``n_rows`` per feature: a numpy array, or a pandas extension array
        (categorical, nullable, string) for pandas input.
    schema : Schema
    upcast : frozenset of str
        Integer features that now hold non-integer values and were upcast to float64.

    Examples
    --------
    >>> import numpy as np
    >>> t = as_table(np.array([[1, 10], [2, 20]]), feature_names=["a", "b"])
    >>> t.tile(2).set_column("a", np.array([0, 0, 5, 5])).to_native()
    array([[ 0, 10],
           [ 0, 20],
           [ 5, 10],
           [ 5, 20]])
    """

    columns: dict[str, Any]
    schema: Schema
    upcast: frozenset[str] = field(default_factory=frozenset)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_any(
        cls,
        X: Any,
        feature_names: Sequence[str] | None = None,
        *,
        categorical_features: Iterable[str] | None = None,
        owner: str = "ixplain",
    ) -> Table:
        """Build a table from an array, a DataFrame, a dict record or a list of records.

        Parameters
        ----------
        X : ndarray of shape (n_rows, n_features), pandas/polars DataFrame, dict or list of dict
            The data. A 1-D array or a single dict/Series is one row.
        feature_names : sequence of str, optional
            Names for array columns (default ``x0, x1, ...``), or the keys (and their order) to
            take from records (default: the first record's keys). Ignored for DataFrames except to
            check they match.
        categorical_features : iterable of str, optional
            Features to treat as categorical even if numeric.
        owner : str
            Name of the public function, used in error messages.

        Raises
        ------
        TypeError
            For an unsupported input type, or ``feature_names`` that is not a list of names
            (one string, a set; :func:`~ixplain._validation.check_feature_names`).
        ValueError
            For a 3-D array, a missing key in a record, or mismatched or repeated feature
            names.
        """
        if isinstance(X, Table):
            return X
        feature_names = check_feature_names(feature_names, owner)
        if is_instance(X, "pandas", "Series"):
            X = X.to_frame().T.infer_objects()
        if is_instance(X, "pandas", "DataFrame"):
            return cls._from_pandas(X, "pandas", categorical_features, owner)
        if type(X).__module__.startswith("polars"):
            table = cls._from_pandas(X.to_pandas(), "polars", categorical_features, owner)
            schema = replace(table.schema, native_dtypes=dict(X.schema))
            return cls(table.columns, schema)
        if isinstance(X, Mapping):
            return cls._from_records([X], feature_names, categorical_features, owner)
        if isinstance(X, (list, tuple)) and len(X) > 0 and isinstance(X[0], Mapping):
            return cls._from_records(X, feature_names, categorical_features, owner)
        if isinstance(X, (np.ndarray, list, tuple)) or hasattr(X, "__array__"):  # array protocol
            return cls._from_numpy(np.asarray(X), feature_names, categorical_features, owner)
        raise UnsupportedInputError(
            f"{owner} got X of type {type(X).__name__}; expected a 2-D numpy array, a pandas or "
            "polars DataFrame, a dict record or a list of dict records."
        )

    @classmethod
    def _from_numpy(cls, X, feature_names, categorical_features, owner) -> Table:
        if X.ndim == 1:
            X = X.reshape(1, -1)
        if X.ndim != 2:
            raise ValueError(f"{owner} expects 2-D data; got an array of shape {X.shape}.")
        n_features = X.shape[1]
        if n_features == 0:  # (a table of no columns has no rows either: "0 rows" misled)
            raise ValueError(f"{owner} got X without features: an array of shape {X.shape}.")
        if feature_names is None:
            names = tuple(f"x{i}" for i in range(n_features))
        else:
            names = tuple(str(n) for n in feature_names)
            if len(names) != n_features:
                raise ValueError(
                    f"{owner} got {len(names)} feature_names for data with {n_features} columns."
                )
        cat = set(categorical_features or ())
        columns = {n: X[:, i] for i, n in enumerate(names)}
        if X.dtype.kind == "c" and names:  # name a column whose imaginary parts are not all 0
            n = next((n for n in names if np.any(columns[n].imag != 0)), names[0])
            _refuse_complex(columns[n], n, owner)
        if X.dtype.kind == "O":
            for n in names:
                _refuse_complex(columns[n], n, owner)
        if X.dtype.kind == "O":
            kinds = tuple(_object_kind(columns[n], n in cat) for n in names)
        else:
            kinds = tuple("numeric" if X.dtype.kind in "iuf" and n not in cat else "categorical"
                          for n in names)
        schema = Schema(names, names, kinds, (X.dtype,) * n_features, "numpy", X.dtype)
        return cls(columns, schema)

    @classmethod
    def _from_pandas(cls, df: pd.DataFrame, source, categorical_features, owner) -> Table:
        import pandas as pd

        labels = tuple(df.columns)
        if not labels:
            raise ValueError(f"{owner} got X without features: a DataFrame of shape {df.shape}.")
        names = tuple(str(c) for c in labels)
        if len(set(names)) != len(names):
            raise ValueError(f"{owner} got a DataFrame with duplicate column names: {list(names)}.")
        cat = set(categorical_features or ())
        columns: dict[str, Any] = {}
        kinds, dtypes = [], []
        for label, name in zip(labels, names):
            s = df[label]
            arr = s.array if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) else s.to_numpy()
            if getattr(arr, "dtype", None) is not None and arr.dtype.kind in "cO":
                _refuse_complex(arr, name, owner)
            columns[name] = arr
            if s.dtype == object:
                kinds.append(_object_kind(arr, name in cat))
            else:
                kinds.append("categorical" if name in cat else _kind_of(s.dtype))
            dtypes.append(s.dtype)
        return cls(columns, Schema(names, labels, tuple(kinds), tuple(dtypes), source))

    @classmethod
    def _from_records(cls, records, feature_names, categorical_features, owner) -> Table:
        labels = _record_labels(records[0], feature_names)
        names = tuple(str(k) for k in labels)
        values: dict[str, list[Any]] = {n: [] for n in names}
        for i, rec in enumerate(records):
            for n, label in zip(names, labels):
                try:
                    values[n].append(rec[label])
                except KeyError:
                    raise ValueError(
                        f"{owner}: record {i} has no key {label!r} (expected keys "
                        f"{list(labels)}; got {list(rec.keys())})."
                    ) from None
        cat = set(categorical_features or ())
        columns, kinds, dtypes = {}, [], []
        for n in names:
            col = values[n]
            _refuse_complex(col, n, owner)
            numeric = _object_kind(col, n in cat) == "numeric"
            if numeric:
                arr = np.asarray([np.nan if _is_na(v) else v for v in col], dtype=np.float64)
            else:
                arr = np.asarray(col, dtype=object)
            columns[n] = arr
            kinds.append("numeric" if numeric else "categorical")
            dtypes.append(arr.dtype)
        return cls(columns, Schema(names, labels, tuple(kinds), tuple(dtypes), "records"))

    # ------------------------------------------------------------------ basic properties
    @property
    def n_rows(self) -> int:
        """Number of rows."""
        return len(next(iter(self.columns.values()))) if self.columns else 0

    @property
    def names(self) -> tuple[str, ...]:
        """Feature names in model order."""
        return self.schema.names

    def __len__(self) -> int:
        return self.n_rows

    def column(self, name: str) -> Any:
        """The 1-D array of feature ``name`` (``KeyError`` listing the names if unknown)."""
        self.schema.index(name)
        return self.columns[name]

    def numeric_column(self, name: str) -> np.ndarray:
        """Feature ``name`` as a float64 array (pandas NA becomes NaN)."""
        col = self.column(name)
        if isinstance(col, np.ndarray) and col.dtype.kind in "iufb":
            return col.astype(np.float64, copy=False)
        import pandas as pd

        return pd.array(col).to_numpy(dtype=np.float64, na_value=np.nan)

    # ------------------------------------------------------------------ row operations
    def take(self, idx: Any) -> Table:
        """Rows at integer positions ``idx`` (any 1-D integer array, repeats allowed)."""
        idx = np.asarray(idx, dtype=np.intp)
        return Table({n: _take(c, idx) for n, c in self.columns.items()}, self.schema, self.upcast)

    def tile(self, reps: int) -> Table:
        """The whole table stacked ``reps`` times (block ``k`` holds rows ``0..n-1``)."""
        return self.take(np.tile(np.arange(self.n_rows), reps))

    def repeat(self, reps: int) -> Table:
        """Each row repeated ``reps`` times in a row (row ``i`` at ``i*reps .. i*reps+reps-1``)."""
        return self.take(np.repeat(np.arange(self.n_rows), reps))

    def select(self, names: Sequence[str]) -> Table:
        """A table with only ``names`` (in that order)."""
        idx = [self.schema.index(n) for n in names]
        s = self.schema
        schema = Schema(
            tuple(s.names[i] for i in idx),
            tuple(s.labels[i] for i in idx),
            tuple(s.kinds[i] for i in idx),
            tuple(s.dtypes[i] for i in idx),
            s.source,
            s.array_dtype,
            None if s.native_dtypes is None else {s.names[i]: s.native_dtypes[s.names[i]] for i in idx},
        )
        return Table({n: self.columns[n] for n in schema.names}, schema, self.upcast)

    @staticmethod
    def concat(tables: Sequence[Table]) -> Table:
        """Stack tables with the same schema vertically."""
        first = tables[0]
        cols = {}
        for n in first.names:
            parts = [t.columns[n] for t in tables]
            if all(isinstance(p, np.ndarray) for p in parts):
                cols[n] = np.concatenate(parts)
            else:
                cols[n] = type(parts[0])._concat_same_type(parts)
        upcast = frozenset().union(*(t.upcast for t in tables))
        return Table(cols, first.schema, upcast)

    def set_column(self, name: str, values: Any) -> Table:
        """A new table where feature ``name`` holds ``values`` (length ``n_rows``).

        The values are converted to the column's dtype without loss: an integer column receiving
        non-integer values becomes float64 (recorded in :attr:`upcast`); a pandas categorical
        column keeps its categories; a value that is not among those categories raises.

        Raises
        ------
        ValueError
            If ``values`` has the wrong length or holds a category the column does not have.
        """
        i = self.schema.index(name)
        values_arr = values if not isinstance(values, list) else np.asarray(values, dtype=object)
        if len(values_arr) != self.n_rows:
            raise ValueError(
                f"Column {name!r} needs {self.n_rows} values; got {len(values_arr)}."
            )
        new, upcast = _coerce(values_arr, self.columns[name], self.schema.dtypes[i], name)
        cols = dict(self.columns)
        cols[name] = new
        return Table(cols, self.schema, self.upcast | ({name} if upcast else set()))

    # ------------------------------------------------------------------ conversion
    def to_native(self, kind: str | None = None) -> Any:
        """The table in a model's input type.

        Parameters
        ----------
        kind : {"numpy", "pandas", "polars", "records"}, optional
            Default: the type the data came in (``schema.source``).

        Returns
        -------
        ndarray of shape (n_rows, n_features), DataFrame, or list of dict
            Records hold Python scalars (``float``, ``int``, ``str``, ...), and dates and
            durations as pandas ``Timestamp`` / ``Timedelta`` (missing ones ``NaT``), any
            unit and time zone: what ``DataFrame.to_dict("records")`` and River's
            ``stream.iter_pandas`` (for a frame of mixed dtypes) give, never integers (numpy's
            ``tolist`` makes a ``datetime64[ns]`` column integer nanoseconds). A value
            pandas cannot hold (out of its range, or a duration in months or years, which
            have no fixed length) is a numpy ``datetime64`` / ``timedelta64`` scalar.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"t": pd.to_datetime(["2024-01-01 00:00:00.000000001"]),
        ...                    "x": [1.0]})
        >>> as_table(df).to_native("records")
        [{'t': Timestamp('2024-01-01 00:00:00.000000001'), 'x': 1.0}]
        """
        kind = kind or self.schema.source
        if kind == "numpy":
            return self._to_numpy()
        if kind in ("pandas", "polars"):
            df = self.to_frame()
            if kind == "polars":
                return self._to_polars(df)
            return df
        if kind == "records":
            lists = [_record_values(c) for c in self.columns.values()]
            labels = self.schema.labels  # the user's keys (River's iter_array yields int keys)
            return [dict(zip(labels, row)) for row in zip(*lists)]
        raise ValueError(f"Unknown native input kind {kind!r}.")

    def _to_polars(self, df: pd.DataFrame) -> Any:
        import polars as pl

        out = pl.from_pandas(df)
        native = self.schema.native_dtypes
        if native:
            casts = {
                n: d
                for n, d in native.items()
                if n in out.columns
                and n not in self.upcast
                and out.schema[n] != d
                and _lossless_polars_cast(out[n], d)
            }
            if casts:
                out = out.cast(casts)
        return out

    def _to_numpy(self) -> np.ndarray:
        cols = list(self.columns.values())
        if not cols:
            return np.empty((0, 0))
        dtype = self.schema.array_dtype
        if dtype is None or self.upcast:
            dtype = np.result_type(*[np.asarray(c).dtype for c in cols])
        out = np.empty((self.n_rows, len(cols)), dtype=dtype)
        for j, c in enumerate(cols):
            out[:, j] = np.asarray(restore_dates(c, dtype) if is_date_dtype(dtype) else c)
        return out

    def to_frame(self) -> pd.DataFrame:
        """A pandas DataFrame with the original labels and dtypes (RangeIndex)."""
        import pandas as pd

        cols = list(self.columns.values())
        if cols and all(isinstance(c, np.ndarray) for c in cols):
            dtypes = {c.dtype for c in cols}
            if len(dtypes) == 1 and next(iter(dtypes)).kind in "iufb":
                # one numeric dtype: one 2-D block (about 5x faster than a Series per column;
                # a stream explainer builds one frame per observation)
                return pd.DataFrame(np.column_stack(cols), columns=pd.Index(list(self.schema.labels)))
        data = {}
        for label, c, dtype in zip(self.schema.labels, self.columns.values(), self.schema.dtypes):
            if is_date_dtype(dtype):  # canonical columns hold dates as Timestamp objects
                c = restore_dates(c, dtype)
            data[label] = pd.Series(c, name=label, copy=False)
        df = pd.DataFrame(data, copy=False)
        df.columns = pd.Index(list(self.schema.labels))
        return df


def _record_values(col: Any) -> list[Any]:
    """A column's values for records (:meth:`Table.to_native`): Python scalars, dates and
    durations as pandas ``Timestamp`` / ``Timedelta`` (numpy scalars where pandas has no
    equivalent)."""
    if not isinstance(col, np.ndarray):
        return list(col)  # (a pandas extension array: its own scalars, Timestamps included)
    if col.dtype.kind not in "Mm":
        return col.tolist()
    if col.dtype.kind == "m" and np.datetime_data(col.dtype)[0] in ("Y", "M"):
        return list(col)  # (months and years have no fixed length: pandas would guess one)
    try:
        return date_objects(col).tolist()
    except (OverflowError, ValueError):  # out of pandas' range: numpy's own scalars
        return list(col)


def _lossless_polars_cast(series: Any, dtype: Any) -> bool:
    """Whether ``series`` can take polars ``dtype`` without rounding (non-integers stay float)."""
    if dtype.is_integer() and series.dtype.is_float():
        values = series.drop_nulls().drop_nans()
        return bool((values == values.round()).all())
    return True


def _coerce(values: Any, current: Any, dtype: Any, name: str) -> tuple[Any, bool]:
    """Convert ``values`` to ``dtype`` losslessly; return (array, upcast_to_float)."""
    if not isinstance(dtype, np.dtype) and loaded("pandas") is not None:
        coerced = _coerce_pandas(values, dtype, name)
        if coerced is not None:
            return coerced
    np_dtype = current.dtype if isinstance(current, np.ndarray) else np.dtype(dtype)
    arr = np.asarray(values)
    if np_dtype.kind in "iu":
        if arr.dtype.kind in "iu":
            return arr.astype(np_dtype, copy=False), False
        f = arr.astype(np.float64)
        if np.any(np.isnan(f)) or not np.all(f == np.round(f)):
            return f, True
        return f.astype(np_dtype), False
    if np_dtype.kind == "b":
        if arr.dtype.kind == "b":
            return arr, False
        return arr.astype(object), False
    if np_dtype.kind == "f":
        return arr.astype(np_dtype, copy=False) if arr.dtype.kind in "iufb" else arr, False
    return arr.astype(np_dtype, copy=False) if arr.dtype != np_dtype else arr, False


def _coerce_pandas(values: Any, dtype: Any, name: str) -> tuple[Any, bool] | None:
    """:func:`_coerce` for a pandas categorical or extension dtype (``None`` for other dtypes)."""
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        vals = np.asarray(values, dtype=object)
        present = pd.isna(vals) | np.isin(vals, np.asarray(cats, dtype=object))
        if not present.all():
            bad = sorted({repr(v) for v in vals[~present]})[:5]
            raise ValueError(
                f"Feature {name!r} is categorical with categories {list(cats)}; "
                f"got unseen value(s) {', '.join(bad)}."
            )
        return pd.Categorical(vals, categories=cats, ordered=dtype.ordered), False
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):
        if _is_integer_dtype(dtype):
            f = pd.array(values).to_numpy(dtype=np.float64, na_value=np.nan)
            finite = f[~np.isnan(f)]
            if not np.all(finite == np.round(finite)):
                return f, True
        return pd.array(values, dtype=dtype), False
    return None


def as_table(
    X: Any,
    feature_names: Sequence[str] | None = None,
    *,
    categorical_features: Iterable[str] | None = None,
    owner: str = "ixplain",
) -> Table:
    """Build a :class:`Table` from user data (see :meth:`Table.from_any`).

    Examples
    --------
    >>> t = as_table([{"a": 1.0, "b": "x"}, {"a": 2.0, "b": "y"}])
    >>> t.schema.kinds, t.n_rows
    (('numeric', 'categorical'), 2)
    """
    return Table.from_any(
        X, feature_names, categorical_features=categorical_features, owner=owner
    )


def _record_labels(first: Mapping, feature_names: Any) -> tuple[Any, ...]:
    """The record keys of the features: the first record's keys, or ``feature_names`` matched
    to them by their text (``feature_names=["0", "1"]`` finds the int keys ``0, 1``)."""
    if not feature_names:
        return tuple(first.keys())
    by_text = {str(k): k for k in first.keys()}
    return tuple(n if n in first else by_text.get(str(n), n) for n in feature_names)
