"""Table: construction from every input type, dtype-safe column writes, native round trips."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain.tabular import Table, as_table


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "s": pd.array(["a", "b", None], dtype="str"),
            "i": np.array([1, 2, 3], dtype=np.int64),
            "f": [0.5, np.nan, 1.0],
            "c": pd.Categorical(["x", "y", "x"]),
            "b": [True, False, True],
            "n": pd.array([1, None, 3], dtype="Int64"),
            "fl": pd.array([1.5, None, 3.0], dtype="Float64"),
            "o": np.array(["u", 1, None], dtype=object),
        }
    )


def test_pandas_kinds_and_round_trip(frame):
    t = as_table(frame)
    assert t.names == tuple(frame.columns) and t.n_rows == 3 and len(t) == 3
    assert t.schema.kinds == (
        "categorical", "numeric", "numeric", "categorical", "categorical", "numeric", "numeric",
        "categorical",
    )
    assert t.schema.source == "pandas"
    back = t.to_native()
    pd.testing.assert_frame_equal(back, frame)


def test_integer_column_labels_round_trip():
    df = pd.DataFrame(np.arange(6.0).reshape(3, 2), columns=[10, 20])
    t = as_table(df)
    assert t.names == ("10", "20") and t.schema.labels == (10, 20)
    pd.testing.assert_frame_equal(t.to_frame(), df)


def test_numpy_names_kinds_and_round_trip():
    X = np.arange(6).reshape(3, 2)
    t = as_table(X, feature_names=["a", "b"], categorical_features=["b"])
    assert t.schema.kinds == ("numeric", "categorical") and t.schema.source == "numpy"
    np.testing.assert_array_equal(t.to_native(), X)
    assert t.to_native().dtype == X.dtype
    assert as_table(np.ones((2, 3))).names == ("x0", "x1", "x2")
    mixed = as_table(np.array([["a", 1], ["b", 2.5]], dtype=object))
    assert mixed.schema.kinds == ("categorical", "numeric")


def test_one_row_inputs():
    assert as_table(np.array([1.0, 2.0])).n_rows == 1
    t = as_table(pd.Series({"a": 1.0, "b": "x"}))
    assert t.n_rows == 1 and t.schema.kinds == ("numeric", "categorical")
    assert as_table({"a": 1.0, "b": 2}).to_native() == [{"a": 1.0, "b": 2.0}]


def test_records_missing_numbers_and_missing_keys():
    t = as_table([{"a": 1, "b": None, "c": "x"}, {"a": 2.5, "b": 3.0, "c": "y"}])
    assert t.schema.kinds == ("numeric", "numeric", "categorical")
    assert np.isnan(t.columns["b"][0])
    assert t.to_native()[1] == {"a": 2.5, "b": 3.0, "c": "y"}
    with pytest.raises(ValueError, match=r"record 1 has no key 'b'"):
        as_table([{"a": 1, "b": 2}, {"a": 3}])


def test_bad_inputs():
    with pytest.raises(TypeError, match="expected a 2-D numpy array"):
        as_table(42)
    with pytest.raises(ValueError, match="2-D"):
        as_table(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="feature_names"):
        as_table(np.ones((2, 2)), feature_names=["a"])
    with pytest.raises(ValueError, match="duplicate"):
        as_table(pd.DataFrame([[1, 2]], columns=["a", "a"]))
    with pytest.raises(KeyError, match=r"Unknown feature 'zz'.*\['x0', 'x1'\]"):
        as_table(np.ones((2, 2))).column("zz")


def test_take_tile_repeat_select_concat(frame):
    t = as_table(frame)
    assert t.take([2, 0]).to_frame()["i"].tolist() == [3, 1]
    assert t.tile(2).to_frame()["i"].tolist() == [1, 2, 3, 1, 2, 3]
    assert t.repeat(2).to_frame()["i"].tolist() == [1, 1, 2, 2, 3, 3]
    sel = t.select(["n", "s"])
    assert sel.names == ("n", "s") and list(sel.to_frame().columns) == ["n", "s"]
    both = Table.concat([t, t.take([0])])
    assert both.n_rows == 4
    pd.testing.assert_frame_equal(both.to_frame().iloc[:3], frame)
    assert both.to_frame().dtypes.to_dict() == frame.dtypes.to_dict()


def test_set_column_keeps_other_dtypes_and_never_touches_input(frame):
    original = frame.copy()
    t = as_table(frame)
    new = t.set_column("f", np.array([9.0, 9.0, 9.0]))
    assert new.to_frame().dtypes.to_dict() == frame.dtypes.to_dict()
    pd.testing.assert_frame_equal(frame, original)
    assert t.to_frame()["f"].iloc[0] == 0.5


def test_integer_columns_upcast_only_when_needed(frame):
    t = as_table(frame)
    same = t.set_column("i", np.array([0.0, 1.0, 1.0]))
    assert same.columns["i"].dtype == np.int64 and same.upcast == frozenset()
    up = t.set_column("i", np.array([0.5, 1.0, 1.0]))
    assert up.columns["i"].dtype == np.float64 and up.upcast == {"i"}
    assert up.to_frame()["i"].tolist() == [0.5, 1.0, 1.0]  # never truncated
    nullable = t.set_column("n", np.array([2.0, 2.0, np.nan]))
    assert nullable.to_frame()["n"].dtype == pd.Int64Dtype() and nullable.upcast == frozenset()
    nup = t.set_column("n", np.array([2.5, 2.0, 1.0]))
    assert nup.upcast == {"n"} and nup.columns["n"].dtype == np.float64
    X = np.array([[0, 1], [1, 0]])
    assert as_table(X).set_column("x0", np.array([0.5, 0.5])).to_native().tolist() == [
        [0.5, 1.0], [0.5, 0.0]
    ]


def test_categorical_and_string_columns(frame):
    t = as_table(frame)
    c = t.set_column("c", np.array(["y", "y", "x"], dtype=object)).to_frame()["c"]
    assert c.dtype == frame["c"].dtype and c.tolist() == ["y", "y", "x"]
    with pytest.raises(ValueError, match=r"Feature 'c' is categorical .* unseen value\(s\) 'q'"):
        t.set_column("c", np.array(["q", "x", "x"], dtype=object))
    s = t.set_column("s", np.array(["z", None, "z"], dtype=object)).to_frame()["s"]
    assert s.dtype == frame["s"].dtype and s.iloc[0] == "z" and pd.isna(s.iloc[1])
    with pytest.raises(ValueError, match="needs 3 values"):
        t.set_column("s", ["a"])


def test_numeric_column(frame):
    t = as_table(frame)
    np.testing.assert_array_equal(t.numeric_column("n"), [1.0, np.nan, 3.0])
    np.testing.assert_array_equal(t.numeric_column("b"), [1.0, 0.0, 1.0])
    assert t.numeric_column("i").dtype == np.float64


def test_polars_round_trip_keeps_polars_dtypes():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame(
        {"n": [1, None, 3], "s": ["a", "b", None], "f": [0.5, 1.5, None], "b": [True, False, None]}
    )
    t = as_table(df)
    assert t.schema.source == "polars" and t.schema.kinds == (
        "numeric", "categorical", "numeric", "categorical"
    )
    back = t.to_native()
    assert isinstance(back, pl.DataFrame) and back.schema == df.schema
    assert back.equals(df)
    up = t.set_column("n", np.array([0.5, 1.0, 2.0])).to_native()
    assert up.schema["n"] == pl.Float64 and up["n"].to_list() == [0.5, 1.0, 2.0]


def test_conversion_between_kinds():
    t = as_table(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}))
    assert t.to_native("records") == [{"a": 1.0, "b": "x"}, {"a": 2.0, "b": "y"}]
    arr = t.to_native("numpy")
    assert arr.dtype == object and arr.shape == (2, 2)
    with pytest.raises(ValueError, match="Unknown native input kind"):
        t.to_native("arrow")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_to_frame_single_dtype_block_equals_the_per_column_frame(dtype):
    """The one-block fast path gives the same frame (labels, dtypes, values, index) as building
    it column by column, including integer column labels."""
    rng = np.random.default_rng(0)
    values = (rng.normal(size=(7, 3)) * 10).astype(dtype)
    df = pd.DataFrame(values, columns=[3, "b", 0])
    table = as_table(df)
    expected = pd.DataFrame({c: pd.Series(values[:, i], name=c) for i, c in enumerate(df.columns)})
    pd.testing.assert_frame_equal(table.to_frame(), expected)
    pd.testing.assert_frame_equal(table.tile(2).to_frame().iloc[7:].reset_index(drop=True), expected)


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_records_keep_dates_and_durations_as_pandas_scalars(unit):
    """``to_native("records")`` made a ``datetime64[ns]`` column integer nanoseconds (numpy's
    ``tolist``) and other units ``datetime``/``timedelta`` objects (dropping nanoseconds):
    records now hold pandas Timestamp / Timedelta of every unit, equal to the frame's values
    (``DataFrame.to_dict('records')`` is the independent reference), NaT for missing."""
    t = np.array(["2024-01-01T00:00:01", "NaT", "1999-12-31T23:59:59"], dtype=f"M8[{unit}]")
    t[0] += np.timedelta64(1, unit)  # (a last digit in the column's own unit)
    df = pd.DataFrame({"t": t, "d": (t - t[2]), "z": pd.Series(t).dt.tz_localize("UTC"),
                       "x": [1.0, 2.0, 3.0]})
    assert df["t"].dtype == np.dtype(f"M8[{unit}]") and df["d"].dtype == np.dtype(f"m8[{unit}]")
    records = as_table(df).to_native("records")
    expected = df.to_dict("records")
    for got, want in zip(records, expected):
        assert list(got) == ["t", "d", "z", "x"]
        for k in ("t", "d", "z"):
            if pd.isna(want[k]):
                assert got[k] is pd.NaT
            else:
                assert type(got[k]) is type(want[k]) and got[k] == want[k]
        assert type(got["x"]) is float
    assert records[0]["t"] == pd.Timestamp(t[0]) and records[0]["t"].unit == unit


def test_records_of_an_array_of_dates_and_numpy_only_units():
    """A numpy array of days gives Timestamps too; a duration in years (no fixed length)
    and a date out of pandas' range stay numpy scalars, unchanged."""
    days = np.array([["2024-01-01"], ["2024-03-01"]], dtype="M8[D]")
    assert as_table(days).to_native("records") == [
        {"x0": pd.Timestamp("2024-01-01")}, {"x0": pd.Timestamp("2024-03-01")}]
    years = np.array([[1], [2]], dtype="m8[Y]")
    got = as_table(years).to_native("records")
    assert [type(r["x0"]) for r in got] == [np.timedelta64] * 2
    assert [r["x0"] for r in got] == [np.timedelta64(1, "Y"), np.timedelta64(2, "Y")]
    far = np.array([[10**18]], dtype="m8[D]")
    assert as_table(far).to_native("records") == [{"x0": np.timedelta64(10**18, "D")}]
