"""Date, datetime, duration and period columns as numbers for the conditional trees.

Such a column is an *ordered quantity*, not a set of levels: the trees of
:class:`~ixplain.imputation.ConditionalSampler` split on it as on a number and, for it as a
target, use a regression tree. Its code is a float64:

* datetimes (numpy/pandas of any unit, tz-aware too, Python ``datetime``/``date``): seconds
  from the column's *reference*, an instant counted in UTC for a tz-aware column, at midnight
  for a Python ``date``;
* durations (``timedelta64`` of any unit, ``Timedelta``, Python ``timedelta``): seconds from
  the reference duration;
* periods (pandas ``Period`` of one frequency): periods from the reference period.

The reference is the fitted column's lower median value (codes near 0 keep their precision in
the float32 that scikit-learn's trees read). A value's code depends on the value and the
reference only -- not on its unit, the time zone it is shown in, or the other values of its
batch -- so a date never seen at the fit is coded like any other (no table of levels). Missing
values are NaN, and so is a value the column cannot order with its reference (a naive datetime
in a tz-aware column, a period of another frequency, a value that is no date): the trees treat
it as unavailable, as a missing number. The draws are not codes: they are the observed values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import _date_family, date_sort, missing_value

__all__ = ["DateCoder"]

#: The family of each sort of :func:`~ixplain._validation.date_sort` (``"mixed"``: none).
_FAMILY = {"datetime64": "datetime", "datetime": "datetime", "date": "datetime",
           "timedelta64": "timedelta", "timedelta": "timedelta",
           "period": "period", "Period": "period"}
_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


class DateCoder:
    """The float64 codes of one column of dates, durations or periods (module docstring).

    Build one with :meth:`fit`; calling it codes any values of the column.

    Attributes
    ----------
    family : {"datetime", "timedelta", "period"}
    unit : {"s", "period"}
        The unit of a code.
    aware : bool
        Whether the datetimes are tz-aware (datetimes only).
    freq : pandas offset or None
        The periods' frequency (periods only).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.Series(pd.to_datetime(["2024-01-01", "2024-01-03", "2024-01-02"]))
    >>> coder = DateCoder.fit(t.to_numpy())
    >>> coder(t.to_numpy()).tolist()  # seconds from the median date, 2024-01-02
    [-86400.0, 86400.0, 0.0]
    >>> coder(pd.Series([pd.Timestamp("2030-01-01")], dtype="datetime64[s]").array).tolist()
    [189302400.0]
    >>> coder([pd.Timestamp("2024-01-02", tz="UTC"), None]).tolist()  # no order with naive
    [nan, nan]
    >>> DateCoder.fit(["a", "b"]) is None  # no dates: levels
    True
    """

    def __init__(self, family: str, aware: bool, freq: Any) -> None:
        self.family, self.aware, self.freq = family, aware, freq
        self.unit = "period" if family == "period" else "s"
        self._whole, self._frac = 0, 0.0

    @classmethod
    def fit(cls, values: Any) -> DateCoder | None:
        """The coder of a column, or None if it is no column of dates, durations or periods,
        or if two of its values have no common order (naive with tz-aware datetimes, periods
        of two frequencies, dates with durations): such a column is a set of levels.

        ``values``: a 1-D array (numpy, pandas extension, object) or sequence.
        """
        dtype = getattr(values, "dtype", None)
        typed = getattr(dtype, "kind", None) in ("M", "m")  # datetime64 / timedelta64
        if not typed:
            values = _objects(values)
        sort = date_sort(values, values.dtype)
        family = _FAMILY.get(sort[0]) if sort is not None else None
        if family is None:
            return None
        # (date_sort found a non-missing value in an object column)
        first = None if typed else next(v for v in values if not missing_value(v))
        if typed:
            aware = getattr(dtype, "tz", None) is not None
        else:
            aware = family == "datetime" and getattr(
                _pandas_scalar(first, family), "tz", None) is not None
        coder = cls(family, aware, getattr(first, "freq", None))
        whole, frac, ok, missing = coder._parts(values)
        if not ok.any() or not (ok | missing).all():
            return None
        k = np.flatnonzero(ok)[np.lexsort((frac[ok], whole[ok]))]
        median = k[(len(k) - 1) // 2]
        coder._whole, coder._frac = int(whole[median]), float(frac[median])
        return coder

    def __call__(self, values: Any) -> np.ndarray:
        """The codes of ``values`` (1-D), float64; NaN for missing or unorderable values."""
        whole, frac, ok, _ = self._parts(values)
        codes = (whole.astype(np.float64) - float(self._whole)) + (frac - self._frac)
        return np.where(ok, codes, np.nan)

    def _parts(self, values: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Whole seconds (periods: ordinals) as int64, the fraction of a second as float64,
        which values are coded and which are missing: from a pandas array of the family if the values make
        one, else value by value (Python dates, mixed time zones or units, stray values)."""
        import pandas as pd  # date columns only (import ixplain stays light)

        try:
            arr = pd.array(values if getattr(values, "dtype", None) is not None
                           else _objects(values))
        except (TypeError, ValueError):  # (e.g. a numpy unit pandas lacks: value by value)
            arr = None
        if arr is not None and self._typed(arr):
            i, missing = np.asarray(arr.asi8), np.asarray(arr.isna())
            whole, frac = (i, np.zeros(len(i))) if self.family == "period" else _split(i, arr.unit)
            return whole, frac, ~missing, missing
        return self._parts_one_by_one(_objects(values))

    def _typed(self, arr: Any) -> bool:
        """Whether ``arr`` (a pandas array) holds values of this column's family, alike."""
        kind = getattr(arr.dtype, "kind", None)
        if self.family == "period":
            return type(arr.dtype).__name__ == "PeriodDtype" and arr.freq == self.freq
        if self.family == "timedelta":
            return kind == "m"
        return kind == "M" and (getattr(arr.dtype, "tz", None) is not None) == self.aware

    def _parts_one_by_one(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                               np.ndarray, np.ndarray]:
        """:meth:`_parts` of an object array, value by value (the same arithmetic)."""
        n = len(values)
        whole, frac, ok = np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n, dtype=bool)
        missing = np.array([missing_value(v) for v in values], dtype=bool)
        for i, v in enumerate(values):
            if missing[i] or _FAMILY.get(str(_date_family(v))) != self.family:
                continue
            try:
                s = _pandas_scalar(v, self.family)
            except (TypeError, ValueError, OverflowError):  # (out of pandas' range)
                continue
            if self.family == "period":
                if s.freq == self.freq:
                    whole[i], ok[i] = s.ordinal, True
                continue
            if (getattr(s, "tz", None) is not None) != self.aware:
                continue
            m8 = s.asm8  # (a tz-aware Timestamp: its UTC instant)
            w, f = _split(np.array([m8.astype(np.int64)]), np.datetime_data(m8.dtype)[0])
            whole[i], frac[i], ok[i] = w[0], f[0], True
        return whole, frac, ok, missing

    def __repr__(self) -> str:
        return f"DateCoder({self.family!r}, unit={self.unit!r})"


def _split(counts: np.ndarray, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """int64 counts of ``unit`` as whole seconds (int64) and the fraction of a second (float64,
    the same for one instant in any unit); NaT's count is masked by the caller."""
    per = _PER_SECOND[unit]
    whole, rest = np.divmod(counts, per)
    return whole, rest / per


def _pandas_scalar(value: Any, family: str) -> Any:
    """``value`` as a pandas ``Timestamp``, ``Timedelta`` or ``Period``."""
    import pandas as pd

    if family == "period":
        return value
    return pd.Timestamp(value) if family == "datetime" else pd.Timedelta(value)


def _objects(values: Any) -> np.ndarray:
    """``values`` as an object array (pandas dates as ``Timestamp``/``Timedelta``/``Period``)."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    if getattr(getattr(values, "dtype", None), "kind", None) in ("M", "m"):
        import pandas as pd

        return np.asarray(pd.array(values), dtype=object)
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out
