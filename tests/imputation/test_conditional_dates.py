"""Conditional removal of date, datetime, duration and period columns (QA P1).

A date column was a categorical feature to the conditional sampler: a classification tree on
its time-order codes, one class per row when the dates are distinct (every split then has the
same Gini gain, so the trees split anywhere), and on streams a date unseen at the last refit
was coded NaN and never entered a leaf pool. QA's setting: ``t`` a distinct timestamp per
row, ``s = seconds(t) / 1e5 ~ U(0, 100)``, ``x = s + N(0, 1)``, ``z ~ N(0, 1)``, model and
labels ``s + z``. Given ``x`` the drawn and the true ``s`` are independent with variance
``Var(s | x) ~ 1`` (the noise; ``s``'s spread of 100 is far wider), so the conditional
importance of ``t`` is ``2 Var(s | x) ~ 2`` (the marginal one ``2 Var(s) = 2 * 100^2 / 12 =
1667``); it was 446 as a date and 2.2 as seconds. Now a date column is a number to the trees
(seconds from the median date), and the importances equal those of the seconds.
"""

import datetime
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from ixplain import IncrementalPFI, permutation_importance
from ixplain.imputation import ConditionalSampler, ConditionalStorage

START = pd.Timestamp("2024-01-01")


def qa_data(n, seed=0, ordered=False):
    """QA's rows: the dates ``t``, their seconds since START, and ``x``, ``z``."""
    rng = np.random.default_rng(seed)
    secs = rng.integers(0, 10**7, n)
    if ordered:
        secs = np.sort(secs)
    z = rng.normal(size=n)
    x = secs / 1e5 + rng.normal(size=n)
    return START + pd.to_timedelta(secs, unit="s"), secs.astype(float), x, z


def seconds_of(col):
    """Seconds since START of a column of dates in any of the forms below (numbers: as is)."""
    s = pd.Series(col)
    if isinstance(s.dtype, pd.PeriodDtype):
        s = s.dt.to_timestamp()
    elif s.dtype == object:
        s = pd.to_datetime(s)
    if s.dtype.kind == "m":
        return s.dt.total_seconds().to_numpy()
    if s.dtype.kind == "M":
        start = START.tz_localize("UTC") if s.dt.tz is not None else START
        return (s - start).dt.total_seconds().to_numpy()
    return s.to_numpy(dtype=float)


def as_form(t, form):
    """QA's dates as a column of ``form`` (the same instants)."""
    if form == "datetime64[ns]":
        return pd.Series(t)
    if form == "datetime64[s, Europe/Paris]":
        return pd.Series(t).dt.tz_localize("UTC").dt.tz_convert("Europe/Paris").astype(
            "datetime64[s, Europe/Paris]")
    if form == "timedelta64[s]":
        return pd.Series(t - START).astype("timedelta64[s]")
    if form == "period[s]":
        return pd.Series(pd.PeriodIndex(t, freq="s"))
    assert form == "python datetime"
    return pd.Series([v.to_pydatetime() for v in t], dtype=object)


class Model:
    """``seconds(t) / 1e5 + z``; checks that ``t`` reaches it in the column's own dtype."""

    def __init__(self, dtype=None):
        self.dtype = dtype

    def __call__(self, D):
        if isinstance(D, list):
            D = pd.DataFrame(D)
        if self.dtype is not None:
            assert D["t"].dtype == self.dtype, (D["t"].dtype, self.dtype)
        return seconds_of(D["t"]) / 1e5 + D["z"].to_numpy(dtype=float)


FORMS = ["datetime64[ns]", "datetime64[s, Europe/Paris]", "timedelta64[s]", "period[s]",
         "python datetime"]


@pytest.mark.parametrize("form", FORMS)
def test_static_importance_of_a_date_is_that_of_its_seconds(form):
    t, secs, x, z = qa_data(1500)
    col = as_form(t, form)
    dates = pd.DataFrame({"t": col, "x": x, "z": z})
    numbers = pd.DataFrame({"t": secs, "x": x, "z": z})
    y = secs / 1e5 + z
    kw = dict(loss="squared_error", removal="conditional", n_repeats=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (scikit-learn's "unique classes" warning, per tree)
        # (an object column of Python datetimes reaches a model as datetime64[us], as with
        # marginal removal: pandas' inference in the DataFrame the model gets)
        dtype = None if form == "python datetime" else col.dtype
        got = permutation_importance(Model(dtype), dates, y, **kw).importances_mean
    want = permutation_importance(Model(), numbers, y, **kw).importances_mean
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    assert 1.7 < got[0] < 2.7  # 2 Var(s | x) ~ 2 (it was ~450: marginal-like)
    assert got[1] == 0.0 and 1.7 < got[2] < 2.3  # (z: 2 Var(z) = 2)


def test_draws_are_observed_dates_of_the_column_dtype():
    t, _, x, z = qa_data(400)
    col = as_form(t, "datetime64[s, Europe/Paris]")
    df = pd.DataFrame({"t": col, "x": x, "z": z})
    s = ConditionalSampler().fit(df)
    drawn = s.sample(df.iloc[:100], ["t"], random_state=0).to_native()["t"]
    assert drawn.dtype == col.dtype
    assert drawn.isin(col).all() and not drawn.equals(col.iloc[:100])
    again = pickle.loads(pickle.dumps(s)).sample(df.iloc[:100], ["t"], random_state=0)
    pd.testing.assert_series_equal(again.to_native()["t"], drawn)


def test_leaves_of_a_date_are_time_intervals():
    """Enumeration bound. ``x`` is the date's day count exactly and ``z`` noise, so the
    regression tree of ``t`` given ``(x, z)`` (min_samples_leaf m) splits on ``x`` only: an
    optimal two-group split of values by size is contiguous in their order, and a node of 2 m
    or more distinct values always gains from one. Its leaves are intervals of time holding m
    to 2 m - 1 of the rows it learnt on (fold 0), so a draw for a row lies in the row's
    interval: at most 2 m - 1 fold-0 dates lie between the row's date and the drawn one. With
    one class per date (the old classifier) every split gained the same and half went to
    ``z``."""
    rng = np.random.default_rng(1)
    n, m = 600, 5
    days = rng.permutation(n).astype(float)
    df = pd.DataFrame({"t": START + pd.to_timedelta(days, unit="D"), "x": days,
                       "z": rng.normal(size=n)})
    s = ConditionalSampler(min_samples_leaf=m).fit(df)
    drawn = s.sample(df, ["t"], random_state=0).to_native()["t"]
    drawn_days = ((drawn - START) / pd.Timedelta(days=1)).to_numpy()
    fitted = np.sort(days[s._fold == 0])
    lo, hi = np.minimum(days, drawn_days), np.maximum(days, drawn_days)
    between = np.searchsorted(fitted, hi, "right") - np.searchsorted(fitted, lo, "left")
    assert between.max() <= 2 * m - 1
    assert np.isin(drawn_days, days[s._fold == 1]).all()  # (copy 0 pools fold 1)


@pytest.mark.parametrize("ordered", [False, True], ids=["shuffled", "time order"])
@pytest.mark.parametrize("columns", [["t", "x", "z"], ["t", "z"]])
def test_stream_importance_of_a_date_is_that_of_its_seconds(ordered, columns):
    """QA's stream (1000 rows, the default window): iPFI (conditional) of ``t`` was 207
    (shuffled) and 661 (time order) with ``x``, and 1330 in time order without ``x`` (above
    the marginal 835), against 32, 9.5 and 664 for the seconds."""
    t, secs, x, z = qa_data(1000, ordered=ordered)
    y = secs / 1e5 + z
    dates = pd.DataFrame({"t": t, "x": x, "z": z})[columns]
    numbers = pd.DataFrame({"t": secs, "x": x, "z": z})[columns]
    a = IncrementalPFI(Model(dates["t"].dtype), "squared_error", removal="conditional",
                       random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.explain_many(dates, y)
    b = IncrementalPFI(Model(), "squared_error", removal="conditional", random_state=0)
    b.explain_many(numbers, y)
    np.testing.assert_allclose(a.importances_, b.importances_, rtol=1e-9)


def test_stream_pools_take_dates_later_than_the_refit():
    """In time order every new date is later than those of the refit window: such a date was
    coded NaN and never offered to the pools of ``t``'s tree, which kept old dates only. Now
    each of the 80 rows after the refit at row 200 is offered, and the pools hold some."""
    t, secs, x, z = qa_data(280, ordered=True)
    df = pd.DataFrame({"t": t, "x": x, "z": z})

    def storage(n):
        s = ConditionalStorage(size=200, refit_every=100, random_state=0)
        s.update_many(df.iloc[:n])
        assert s.fitted_at_ == 200
        return s.sampler_

    at_refit, after = storage(200), storage(280)
    assert after.trees_[0][0].seen.sum() == at_refit.trees_[0][0].seen.sum() + 80
    pooled = [v for v in after.data_.columns["t"] if v is not None]
    assert any(v > t[199] for v in pooled)
    assert not any(v > t[199] for v in at_refit.data_.columns["t"] if v is not None)


def test_stream_dates_same_result_for_any_chunking_and_pickle():
    t, secs, x, z = qa_data(300, seed=3)
    df = pd.DataFrame({"t": t, "x": x, "z": z})
    y = secs / 1e5 + z

    def make():
        return IncrementalPFI(Model(df["t"].dtype), "squared_error", removal="conditional",
                              random_state=7, storage=ConditionalStorage(100, 40))

    whole = make()
    whole.explain_many(df, y)
    parts = make()
    for lo, hi in [(0, 1), (1, 3), (3, 40), (40, 41), (41, 150), (150, 300)]:
        parts.explain_many(df.iloc[lo:hi], y[lo:hi])
        if hi == 150:
            parts = pickle.loads(pickle.dumps(parts))
    rows = make()
    for i in range(120):
        rows.explain_one(df.iloc[[i]], y[i])
    rows = pickle.loads(pickle.dumps(rows))
    rows.explain_many(df.iloc[120:], y[120:])
    np.testing.assert_array_equal(parts.importances_, whole.importances_)
    np.testing.assert_array_equal(rows.importances_, whole.importances_)


def test_python_dates_and_datetimes_are_one_time_axis():
    """A column of Python ``date`` and naive ``datetime`` values (no common order for
    Python: a date and a datetime do not compare) is one time axis, a date at midnight; its
    missing value is coded NaN (``allow_nan``: the fit refuses it otherwise)."""
    values = [datetime.date(2024, 1, 2), datetime.datetime(2024, 1, 1, 12), None,
              datetime.date(2024, 1, 1)]
    s = ConditionalSampler(min_samples_leaf=1, allow_nan=True).fit(
        pd.DataFrame({"t": pd.Series(values, dtype=object), "x": [1.0, 2.0, 3.0, 4.0]}))
    codes = s.encode(s.data_)[:, 0]
    np.testing.assert_array_equal(codes, [43200.0, 0.0, np.nan, -43200.0])


def test_a_categorical_of_many_levels_fits_without_scikit_learn_warning():
    """A true categorical feature keeps its classification tree (its levels have no order),
    and scikit-learn's "unique classes greater than 50% of the samples" warning, about a
    target it takes for a regression one, no longer reaches the user once per tree."""
    rng = np.random.default_rng(0)
    ids = np.array([f"id{i}" for i in range(200)], dtype=object)
    df = pd.DataFrame({"id": ids, "x": rng.normal(size=200)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = ConditionalSampler().fit(df)
    assert "id" in s._encoder.levels and "id" not in s._encoder.dates
    assert set(s.sample(df, ["id"], random_state=0).to_native()["id"]) <= set(ids)


MISSING = {"datetime64[ns]": pd.NaT, "datetime64[s, Europe/Paris]": pd.NaT,
           "timedelta64[s]": pd.NaT, "period[s]": pd.NaT, "python datetime": None}


@pytest.mark.parametrize("form", FORMS)
def test_a_missing_date_is_refused_as_a_missing_number_is(form):
    """Static conditional removal refused NaN in a numeric column but took a NaT (or a None
    among Python datetimes): both are missing values the trees read as NaN codes. Both are
    refused now, by the sampler's fit and so by permutation_importance, naming the column
    and the row; ``allow_nan=True`` takes both, leaving the row out of that tree's pools."""
    t, secs, x, z = qa_data(300)
    df = pd.DataFrame({"t": as_form(t, form), "x": x, "z": z})
    df.loc[7, "t"] = MISSING[form]
    assert df["t"].isna().sum() == 1 and df["t"].dtype == as_form(t, form).dtype
    numbers = pd.DataFrame({"t": secs, "x": x, "z": z})
    numbers.loc[7, "t"] = np.nan
    with pytest.raises(ValueError) as nan:
        ConditionalSampler().fit(numbers)
    assert str(nan.value) == ("ConditionalSampler.fit: column 't' contains NaN (first at row "
                              "7); impute or drop missing values first.")
    with pytest.raises(ValueError) as nat:
        ConditionalSampler().fit(df)
    assert str(nat.value) == (
        f"ConditionalSampler.fit: column 't' contains a missing value "
        f"({df['t'].astype(object)[7]!r}, first at row 7); impute or drop missing values "
        "first.")
    with pytest.raises(ValueError, match="column 't' contains a missing value"):
        permutation_importance(Model(), df, secs / 1e5 + z, loss="squared_error",
                               removal="conditional", n_repeats=1, random_state=0)
    for data in (df, numbers):  # allowed: the row is in no pool of t's tree, as NaN's is
        s = ConditionalSampler(allow_nan=True).fit(data)
        assert 7 not in s.trees_[0][0].pool and 7 not in s.trees_[0][1].pool


def test_every_column_with_missing_values_is_named():
    """NaN in ``x`` (row 4) and a NaT in ``t`` (row 2): one refusal naming both."""
    t, secs, x, z = qa_data(50)
    df = pd.DataFrame({"t": t, "x": x, "z": z})
    df.loc[2, "t"], df.loc[4, "x"] = pd.NaT, np.nan
    with pytest.raises(ValueError) as info:
        ConditionalSampler().fit(df)
    assert str(info.value) == (
        "ConditionalSampler.fit: column 't' contains a missing value (NaT, first at row 2), "
        "column 'x' contains NaN (first at row 4); impute or drop missing values first.")
