"""Date and duration columns that are not the explained feature reach the model of a stream
explainer with the dtype and values the user gave (as in the static methods).

The stream explainers keep a categorical column as objects (in their batches and storage
buffers); a ``datetime64[ns]`` column went to the model as integer nanoseconds in an object
column, and ``datetime64[s]``/``[ms]`` came back as ``datetime64[us]``, so a model reading
``X["t"].dt`` failed or, for one that reads ``astype("int64")``, got values off by a factor of
1,000 per unit.
"""

from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import ixplain as ix
from ixplain import ConditionalStorage
from ixplain.storage import UniformReservoir

N = 60
START = pd.Timestamp("2024-01-01")
_rng = np.random.default_rng(0)
HOURS = _rng.integers(0, 500, N).astype(float)
X_NUM = _rng.normal(size=N)
Y = 2 * HOURS / 100 + X_NUM + 0.1 * _rng.normal(size=N)
_T = START + pd.to_timedelta(HOURS, unit="h")
COLUMNS = {
    "datetime64[s]": pd.Series(_T).astype("datetime64[s]"),
    # 7 ns past the hour: only a datetime64[ns] column holds them
    "datetime64[ns]": pd.Series(_T + pd.to_timedelta(7, unit="ns")).astype("datetime64[ns]"),
    "datetime64[s, Europe/Paris]": pd.Series(_T).dt.tz_localize("UTC").dt.tz_convert(
        "Europe/Paris").astype("datetime64[s, Europe/Paris]"),
    "timedelta64[s]": pd.Series(pd.to_timedelta(HOURS, unit="h")).astype("timedelta64[s]"),
}


class DateModel:
    """``2 * floor(hours) / 100 + x``, the hours read from the date column ``t`` by ``.dt``
    (since START, or of the duration); fails unless ``t`` has exactly ``dtype``."""

    def __init__(self, dtype) -> None:
        self.dtype = dtype

    def __call__(self, D: pd.DataFrame) -> np.ndarray:
        assert isinstance(D, pd.DataFrame), type(D)
        assert D["t"].dtype == self.dtype, (D["t"].dtype, self.dtype)
        if self.dtype.kind == "m":
            seconds = D["t"].dt.total_seconds()
        else:
            start = START.tz_localize("UTC") if getattr(self.dtype, "tz", None) else START
            seconds = (D["t"] - start).dt.total_seconds()
        return 2 * np.floor(seconds.to_numpy() / 3600) / 100 + D["x"].to_numpy()


def number_model(D: pd.DataFrame) -> np.ndarray:
    """The same model on the hours the user converted to numbers itself."""
    return 2 * np.floor(D["t"].to_numpy(dtype=float)) / 100 + D["x"].to_numpy()


def _stream(make, X, labels: bool = True) -> np.ndarray:
    """Half the rows in one explain_many, a pickle round trip, the rest by explain_one."""
    e = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the conditional trees on 60 rows
        e.explain_many(X.iloc[:30], Y[:30] if labels else None)
        e = pickle.loads(pickle.dumps(e))
        for i in range(30, N):
            e.explain_one(X.iloc[[i]], Y[i] if labels else None)
    return e.pd_.average if isinstance(e, ix.IncrementalPDP) else e.importances_


def _explainers(model):
    return {
        "IncrementalPFI": lambda: ix.IncrementalPFI(model, "squared_error", random_state=0),
        "IncrementalSAGE": lambda: ix.IncrementalSAGE(model, loss="squared_error",
                                                      random_state=0),
        "IncrementalPDP": lambda: ix.IncrementalPDP(model, "x", grid=[-1.0, 0.0, 1.0]),
    }


@pytest.mark.parametrize("dtype_name", list(COLUMNS))
@pytest.mark.parametrize("method", ["IncrementalPFI", "IncrementalSAGE", "IncrementalPDP"])
def test_stream_explainers_pass_date_columns_unchanged(dtype_name, method):
    """The model sees ``t`` in its own dtype (storage draws, pickling and one-row DataFrames
    included), and the explanation equals the one of the user's own conversion of ``t`` to
    numbers (the hours): the draws and the model's values are the same row by row."""
    t = COLUMNS[dtype_name]
    X = pd.DataFrame({"t": t, "x": X_NUM})
    labels = method != "IncrementalPDP"
    got = _stream(_explainers(DateModel(t.dtype))[method], X, labels)
    want = _stream(_explainers(number_model)[method], pd.DataFrame({"t": HOURS, "x": X_NUM}),
                   labels)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype_name", list(COLUMNS))
def test_conditional_ipfi_passes_date_columns_unchanged(dtype_name):
    """Conditional iPFI codes a date or duration column as a number (seconds from the
    window's median value: the hours up to a scale and a shift, under which a tree's
    partitions do not change), so its reference is the user's own conversion of ``t`` to the
    hours: same draws, same trees, the same importances; the date model sees its own dtype.
    (The dates were levels, coded in time order: a classification tree for ``t``.)"""
    t = COLUMNS[dtype_name]
    X = pd.DataFrame({"t": t, "x": X_NUM})

    def make(model):
        return lambda: ix.IncrementalPFI(model, "squared_error", random_state=0,
                                         removal="conditional",
                                         storage=ConditionalStorage(100, 20))

    got = _stream(make(DateModel(t.dtype)), X)
    want = _stream(make(number_model), pd.DataFrame({"t": HOURS, "x": X_NUM}))
    np.testing.assert_array_equal(got, want)


def test_storage_holds_date_values_exactly():
    """A storage holds a datetime64[ns] column's values exactly (Timestamps to the
    nanosecond, not integer nanoseconds), and survives pickling."""
    t = COLUMNS["datetime64[ns]"]
    s = UniformReservoir(N, random_state=0)
    s.update_many(pd.DataFrame({"t": t, "x": X_NUM}))
    held = pickle.loads(pickle.dumps(s)).table.columns["t"]
    assert all(isinstance(v, pd.Timestamp) for v in held)
    assert list(held) == list(t)


# ------------------------------------------------- a later call in another date unit
class SeenModel:
    """``x`` (the date column ``t`` does not matter), keeping every ``t`` column it sees."""

    def __init__(self) -> None:
        self.seen: list = []

    def __call__(self, D: pd.DataFrame) -> np.ndarray:
        self.seen.append(D["t"].copy())
        return D["x"].to_numpy()


def _unit_stream(dtype: str, n: int = 20, seed: int = 0) -> pd.DataFrame:
    """``n`` rows whose ``t`` is whole seconds (durations, or dates from START) in ``dtype``."""
    rng = np.random.default_rng(seed)
    secs = pd.to_timedelta(rng.integers(0, 10**6, n), unit="s")
    t = pd.Series(secs if dtype.startswith("timedelta") else START + secs).astype(dtype)
    return pd.DataFrame({"t": t, "x": rng.normal(size=n)})


def _explainer(model):
    return ix.IncrementalPFI(model, "squared_error", random_state=0)


@pytest.mark.parametrize(("first", "later"), [
    ("datetime64[s]", "datetime64[ns]"), ("datetime64[s]", "datetime64[ms]"),
    ("timedelta64[s]", "timedelta64[ms]")])
def test_a_later_call_in_a_finer_unit_with_whole_values_goes_through(first, later):
    """Whole seconds in ``[ns]``/``[ms]`` fit a ``[s]`` stream exactly: the call is taken and
    the model sees them in ``[s]``, the state equal to a stream given them in ``[s]``."""
    X0, X1 = _unit_stream(first), _unit_stream(first, 10, seed=1)
    e, ref = _explainer(SeenModel()), _explainer(SeenModel())
    for target, batch in ((e, X1.astype({"t": later})), (ref, X1)):
        target.explain_many(X0, X0.x.to_numpy())
        target.explain_many(batch, batch.x.to_numpy())
    assert e.model.seen[-1].dtype == np.dtype(first)
    pd.testing.assert_series_equal(e.model.seen[-1], ref.model.seen[-1])
    assert list(e.storage._cat[: e.storage._len, 0]) == list(ref.storage._cat[: ref.storage._len, 0])
    np.testing.assert_array_equal(e.importances_, ref.importances_)


@pytest.mark.parametrize(("first", "later", "fraction"), [
    ("datetime64[s]", "datetime64[ns]", "500ms"), ("datetime64[s]", "datetime64[ms]", "1ms"),
    ("timedelta64[s]", "timedelta64[ms]", "1500ms")])
@pytest.mark.parametrize("one", [False, True])
def test_a_later_value_the_first_unit_cannot_hold_is_refused(first, later, fraction, one):
    """A value of a finer unit that is not a whole second was truncated into the ``[s]``
    stream silently: it is refused, naming the feature, the value, its row and both units,
    and nothing of the call is taken; the error's ``.dt.floor('s')`` makes the call go
    through, as the floored values given in ``[s]`` do."""
    from test_atomic_parts import assert_same, explainer_state

    X0, X1 = _unit_stream(first), _unit_stream(first, 5, seed=1)
    bad = X1.astype({"t": later})
    bad.loc[3, "t"] += pd.Timedelta(fraction)
    e = _explainer(SeenModel())
    e.explain_many(X0, X0.x.to_numpy())
    before = explainer_state(e)
    call = ((lambda b: e.explain_one(b.iloc[3].to_dict(), float(b.x[3]))) if one
            else (lambda b: e.explain_many(b, b.x.to_numpy())))
    row = "the observation, stream row 20" if one else "batch row 3, stream row 23"
    with pytest.raises(ValueError) as info:
        call(bad)
    msg = str(info.value)
    assert msg.startswith(f"IncrementalPFI: feature 't' holds {bad.t[3]!r} ({row}), a ")
    assert f"fixed it as {first}, which cannot hold it exactly (not a whole number of s)" in msg
    own = re.search(r", a (\w+\[\w+\]) value", msg).group(1)  # (the value's own unit)
    assert own != first and own.startswith(first[:9])
    assert "df['t'] = df['t'].dt.floor('s')" in msg
    assert_same(explainer_state(e), before)
    bad["t"] = bad["t"].dt.floor("s")
    ref = _explainer(SeenModel())
    ref.explain_many(X0, X0.x.to_numpy())
    floored = bad.astype({"t": first})
    if one:
        e.explain_one(bad.iloc[3].to_dict(), float(bad.x[3]))
        ref.explain_one(floored.iloc[3].to_dict(), float(floored.x[3]))
    else:
        e.explain_many(bad, bad.x.to_numpy())
        ref.explain_many(floored, floored.x.to_numpy())
    assert_same(explainer_state(e), explainer_state(ref))


def test_a_later_value_out_of_the_first_units_range_is_refused():
    """A ``[s]`` date of the year 2300 into a ``[ns]`` stream (whose range ends in 2262)
    wrapped around to 1715 silently; it is refused, saying which unit holds it."""
    X0 = _unit_stream("datetime64[ns]")
    later = pd.DataFrame({"t": pd.Series([pd.Timestamp("2300-01-01")]).astype("datetime64[s]"),
                          "x": [0.5]})
    e = _explainer(SeenModel())
    e.explain_many(X0, X0.x.to_numpy())
    with pytest.raises(ValueError, match=re.escape(
            "feature 't' holds Timestamp('2300-01-01 00:00:00') (batch row 0, stream row 20), "
            "a datetime64[s] value, but the stream's first observations fixed it as "
            "datetime64[ns], which cannot hold it exactly (out of the range of "
            "datetime64[ns])")) as info:
        e.explain_many(later, [0.5])
    assert "df['t'].astype('datetime64[s]')" in str(info.value)
    assert e.n_seen_ == 20


class _ZoneModel:
    """Predicts ``z``; counts its calls."""

    calls = 0

    def __call__(self, D):
        D = pd.DataFrame(D) if isinstance(D, list) else D
        self.calls += 1
        return D["z"].to_numpy(dtype=float)


@pytest.mark.parametrize("first_zone, later_zone", [(None, "Asia/Tokyo"), ("Asia/Tokyo", None)])
@pytest.mark.parametrize("as_records", [False, True])
def test_a_naive_datetime_in_an_aware_stream_or_the_reverse_is_refused(first_zone, later_zone,
                                                                       as_records):
    """QA (session 11): a naive ``12:00`` into an Asia/Tokyo stream reached the model as
    ``12:00+09:00`` (wall time there), and ``12:00+09:00`` into a naive stream as ``03:00``
    (UTC, the zone dropped), silently and differently. Both are refused, before any model
    call, naming the feature, the value and the conversion; the explainer is unchanged; the
    same zone (another unit too) goes through."""
    model = _ZoneModel()
    first = pd.DataFrame({"t": pd.date_range("2024-01-01", periods=50, freq="h", tz=first_zone),
                          "z": np.arange(50.0)})
    e = ix.IncrementalPFI(model, "squared_error", random_state=0)
    e.explain_many(first, np.zeros(50))
    before, calls = pickle.dumps(e), model.calls
    later = pd.DataFrame({"t": [pd.Timestamp("2030-06-01 12:00", tz=later_zone)], "z": [1.0]})
    data = later.to_dict("records") if as_records else later
    kind = "a naive datetime" if later_zone is None else "a tz-aware datetime"
    with pytest.raises(ValueError, match=rf"feature 't' holds Timestamp\('2030-06-01 12:00:00.*"
                                         rf"{kind}, but the stream's first observations fixed"):
        e.explain_many(data, [0.0])
    assert model.calls == calls and e.n_seen_ == 50
    same = pd.DataFrame({"t": [pd.Timestamp("2030-06-01 12:00", tz=first_zone)], "z": [1.0]})
    e.explain_many(same, [0.0])
    plain = pickle.loads(before)  # (the run without the refused call)
    plain.explain_many(same, [0.0])
    assert e.n_seen_ == 51
    np.testing.assert_array_equal(e.importances_, plain.importances_)
