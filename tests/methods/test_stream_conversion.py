"""Stream explainers: conversion of observations and labels (QA session 9, items 1, 2, 7, 12)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain import IncrementalPFI, IncrementalSAGE


def _linear(X):
    A = np.asarray(X, dtype=float)
    return 3.0 * A[:, 0] + A[:, 1]


def _frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    return df, pd.Series(3.0 * df.a + df.b, name="y")


# ---------------------------------------------------------------- item 7: a one-column y
@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSAGE])
@pytest.mark.parametrize("shape", ["array", "frame"])
def test_a_one_column_y_is_the_same_as_its_1d_column(cls, shape):
    """y of shape (n, 1) (an array or a one-column DataFrame) is the column y[:, 0], as in
    scikit-learn: the state is bit for bit that of the run with the 1-D labels (the
    reference), and the importances are not all 0 (the labels were used)."""
    df, y = _frame()
    y2 = y.to_numpy()[:, None] if shape == "array" else y.to_frame()
    ref = cls(_linear, loss="squared_error", random_state=0).explain_many(df, y.to_numpy())
    got = cls(_linear, loss="squared_error", random_state=0).explain_many(df, y2)
    np.testing.assert_array_equal(got, ref)
    assert ref[0] > 1.0


def test_explain_one_takes_a_one_element_label_array():
    """explain_one(x, np.array([v])) is explain_one(x, v) (the loop's reference)."""
    df, y = _frame(30)
    a = IncrementalPFI(_linear, "squared_error", random_state=0)
    b = IncrementalPFI(_linear, "squared_error", random_state=0)
    for i in range(len(df)):
        a.explain_one(df.iloc[i].to_numpy(), float(y[i]))
        b.explain_one(df.iloc[i].to_numpy(), np.array([y[i]]))
    np.testing.assert_array_equal(b.importances_, a.importances_)
    assert a.importances_[0] > 0.1


def test_a_y_with_the_wrong_number_of_rows_still_raises():
    df, y = _frame(20)
    with pytest.raises(ValueError, match="20 observations but 19 labels"):
        IncrementalPFI(_linear, "squared_error").explain_many(df, y.to_numpy()[:19, None])


# ---------------------------------------------------------------- item 1: a new categorical level
_EFFECT = {"lo": 0.0, "hi": 1.0, "new": 10.0}


def _cat_model(seen):
    """num + effect(cat); records the 'cat' values it receives (NaN is -100: visible)."""

    def f(D):
        cat = D["cat"].astype(object)
        seen.extend(cat.tolist())
        return D["num"].to_numpy() + cat.map(_EFFECT).fillna(-100.0).to_numpy(float)

    return f


def _cat_stream(categorical, n=60, seed=0):
    """Rows with cat in {lo, hi}, then rows with the level 'new' (its own Categorical)."""
    rng = np.random.default_rng(seed)
    cat = rng.choice(["lo", "hi"], size=n).astype(object)
    cat[n // 2:][rng.random(n - n // 2) < 0.5] = "new"
    num = rng.normal(size=n)
    y = num + np.vectorize(_EFFECT.get)(cat)
    make = pd.Categorical if categorical else (lambda v: np.asarray(v, dtype=object))
    first = pd.DataFrame({"num": num[: n // 2], "cat": make(cat[: n // 2])})
    later = pd.DataFrame({"num": num[n // 2:], "cat": make(cat[n // 2:])})
    return first, later, y


@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSAGE])
def test_a_new_level_of_a_categorical_reaches_the_model_as_in_an_object_column(cls):
    """A level the first batch's categories lack reaches the model as itself (it was NaN):
    the run equals, bit for bit, the same stream with an object column (the reference, whose
    values pass through unchanged), and the model never sees a missing value."""
    results = []
    for categorical in (True, False):
        seen: list = []
        first, later, y = _cat_stream(categorical)
        e = cls(_cat_model(seen), loss="squared_error", random_state=0)
        e.explain_many(first, y[: len(first)])
        e.explain_many(later, y[len(first):])
        assert "new" in seen and not any(pd.isna(v) for v in seen)
        assert e.n_skipped_ == 0
        results.append(e.importances_)
    np.testing.assert_array_equal(results[0], results[1])


def test_a_new_level_in_a_record_after_a_categorical_frame():
    seen: list = []
    first, _, y = _cat_stream(True)
    e = IncrementalPFI(_cat_model(seen), "squared_error", random_state=0)
    e.explain_many(first, y[: len(first)])
    seen.clear()
    e.explain_one({"num": 0.5, "cat": "new"}, 10.5)
    assert seen[0] == "new"
    assert list(e._schema.dtypes[1].categories) == ["hi", "lo", "new"]


def test_new_levels_keep_their_codes_however_the_stream_is_batched():
    """A model that reads the category codes (as XGBoost does) gets the same codes in a loop
    of explain_one and in one explain_many: the new levels are appended in the order they
    arrive, so the states are equal bit for bit."""

    def by_code(D):
        return D["num"].to_numpy() + D["cat"].cat.codes.to_numpy(float)

    first, later, y = _cat_stream(True, n=40)
    a = IncrementalPFI(by_code, "squared_error", random_state=0)
    b = IncrementalPFI(by_code, "squared_error", random_state=0)
    a.explain_many(first, y[:20])
    b.explain_many(first, y[:20])
    a.explain_many(later, y[20:])
    for i in range(20):
        b.explain_one({"num": later.num[i], "cat": later.cat[i]}, y[20 + i])
    np.testing.assert_array_equal(a.importances_, b.importances_)
    assert a.importances_[1] > 0.1


def test_a_new_level_of_an_ordered_categorical_is_refused_naming_it():
    order = pd.CategoricalDtype(["small", "large"], ordered=True)
    df = pd.DataFrame({"num": [0.0, 1.0, 2.0], "cat": pd.Series(["small", "large", "small"],
                                                                dtype=order)})
    e = IncrementalPFI(lambda D: D["num"].to_numpy(), "squared_error", random_state=0)
    e.explain_many(df, df.num)
    with pytest.raises(ValueError, match=r"ordered categorical.*'huge'"):
        e.explain_one({"num": 0.0, "cat": "huge"}, 0.0)


# ---------------------------------------------------------------- item 12: zero_one label types
def _int_classifier():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    return LogisticRegression().fit(X, y), X, y


@pytest.mark.filterwarnings("ignore:None of the labels y")
@pytest.mark.parametrize("how", ["permutation_importance", "sage", "IncrementalPFI",
                                 "IncrementalSAGE"])
def test_zero_one_refuses_labels_of_another_type_than_the_classes(how):
    """'0'/'1' strings for a classifier of the ints 0/1 never equal a prediction (every
    importance was 0, with a warning only): refused as log_loss refuses them, naming the
    label and the classes."""
    import ixplain

    model, X, y = _int_classifier()
    ys = y.astype(str)
    match = (r"The true label '[01]' is not one of the model's classes \[0, 1\] \(str"
             if how in ("permutation_importance", "sage") else  # the stream names the row:
             r"batch row 0 \(stream row 0\) is '[01]' \(str\), which cannot be one of the "
             r"model's classes \[0, 1\] \(int\)")
    with pytest.raises(ValueError, match=match):
        if how in ("permutation_importance", "sage"):
            getattr(ixplain, how)(model, X, ys, loss="zero_one", random_state=0)
        else:
            getattr(ixplain, how)(model, loss="zero_one", random_state=0).explain_many(X, ys)


def test_zero_one_refusal_and_what_it_keeps():
    """The check at the loss, against hand-computed 0-1 losses: a label of the classes' type
    the model lacks (a class new in a stream) counts wrong, as sklearn's zero_one_loss; bools
    and ints, ints and floats compare by value; text labels of text classes pass."""
    from ixplain.losses import zero_one

    assert zero_one(np.array([0, 2]), np.array([0, 0]), classes=np.array([0, 1])).tolist() == [
        0.0, 1.0]
    assert zero_one(np.array([0, 1]), np.array([False, False]),
                    classes=np.array([False, True])).tolist() == [0.0, 1.0]
    assert zero_one(np.array([1.0, 0.0]), np.array([1, 1]), classes=np.array([0, 1])).tolist() == [
        0.0, 1.0]
    objs = np.array(["no", "maybe", None], dtype=object)
    assert zero_one(objs, np.array(["no", "no", "no"]),
                    classes=np.array(["no", "yes"])).tolist() == [0.0, 1.0, 1.0]
    with pytest.raises(ValueError, match=r"The true label 1 is not one of the model's classes "
                                         r"\['no', 'yes'\] \(int, the classes are str\)"):
        zero_one(np.array(["no", 1], dtype=object), np.array(["no", "no"]),
                 classes=np.array(["no", "yes"]))
    assert zero_one(np.array(["1"]), np.array(["1"])).tolist() == [0.0]  # no classes: as is


# ---------------------------------------------------------------- item 2: a first missing value
def _ac_model(seen):
    """a + 1[c == 'x'] on dict records; records the 'c' values it receives."""

    def f(R):
        seen.extend(r["c"] for r in R)
        return np.array([r["a"] + (r["c"] == "x") for r in R], dtype=float)

    return f


def _ac_rows(n=40, seed=0):
    rng = np.random.default_rng(seed)
    rows = [{"a": float(a), "c": str(c)} for a, c in zip(rng.normal(size=n),
                                                       rng.choice(["x", "y"], size=n))]
    return rows, [r["a"] + (r["c"] == "x") for r in rows]


@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSAGE])
def test_a_first_missing_value_does_not_make_a_string_feature_numeric(cls):
    """A record stream whose first value of 'c' is NaN, then strings: the NaN row is skipped
    (nan_policy='skip', 'c' could be numeric), then 'c' is categorical. Reference: the same
    stream whose first row is skipped for a NaN in 'a' (the kinds known from row 0): the
    states are equal bit for bit."""
    rows, y = _ac_rows()
    runs = []
    for first in ({"a": 0.1, "c": float("nan")}, {"a": float("nan"), "c": "x"}):
        seen: list = []
        e = cls(_ac_model(seen), loss="squared_error", random_state=0)
        with pytest.warns(RuntimeWarning, match="skipped"):
            e.explain_one(first, 0.1)
        for r, t in zip(rows, y):
            e.explain_one(r, t)
        assert e.n_skipped_ == 1 and e._schema.kinds == ("numeric", "categorical")
        assert set(seen) <= {"x", "y"}
        runs.append(e.importances_)
    np.testing.assert_array_equal(runs[0], runs[1])
    assert runs[0][1] > 0  # 'c' is used (the model sees its strings)


@pytest.mark.parametrize("nan_policy", ["skip", "pass"])
def test_one_batch_of_records_reads_the_kinds_from_all_its_rows(nan_policy):
    """explain_many on records whose first 'c' is missing: the batch's later strings make 'c'
    categorical before any row is processed, so the missing value reaches the model as it
    is (a categorical missing value; the CLI streams such batches)."""
    rows, y = _ac_rows(20)
    batch = [{"a": 0.1, "c": float("nan")}, *rows]
    seen: list = []
    e = IncrementalPFI(_ac_model(seen), "squared_error", random_state=0, nan_policy=nan_policy)
    e.explain_many(batch, [0.1, *y])
    assert e.n_skipped_ == 0 and e.n_seen_ == 21
    assert any(isinstance(v, float) and np.isnan(v) for v in seen)


def test_a_numeric_feature_whose_first_value_is_missing_stays_numeric():
    """NaN first, then numbers: 'c' is numeric (rows with its NaN skipped); a string after the
    numbers is refused as before, naming it."""
    e = IncrementalPFI(lambda R: np.array([r["a"] + r["c"] for r in R]), "squared_error",
                       random_state=0)
    with pytest.warns(RuntimeWarning, match="skipped"):
        e.explain_one({"a": 0.1, "c": float("nan")}, 0.1)
    for i in range(5):
        e.explain_one({"a": float(i), "c": 1.0}, i + 1.0)
    assert e._schema.kinds == ("numeric", "numeric") and e.n_explained_ == 4
    with pytest.raises(ValueError, match="feature 'c' is numeric but an observation holds 'x'"):
        e.explain_one({"a": 0.1, "c": "x"}, 0.1)


def test_with_nan_policy_pass_a_stored_missing_number_then_a_string_is_refused_saying_why():
    """nan_policy='pass' stores the first row (its 'c' a NaN number): a later string cannot
    make 'c' categorical, and the error says why and what to do."""
    e = IncrementalPFI(_ac_model([]), "squared_error", random_state=0, nan_policy="pass")
    e.explain_one({"a": 0.1, "c": float("nan")}, 0.1)
    with pytest.raises(ValueError, match=r"feature 'c' held only missing values in the first 1 "
                                         r"observation\(s\).*holds 'x'.*one explain_many batch"):
        e.explain_one({"a": 0.2, "c": "x"}, 1.2)


def test_the_ipdp_of_a_feature_whose_first_value_is_missing_uses_its_levels():
    """iPDP of 'c' (first value NaN, then strings): its grid is the levels x and y; the last
    ICE curve of a + 1[c == 'x'] is 1 higher at x than at y (exactly)."""
    from ixplain import IncrementalPDP

    rows, _ = _ac_rows(30)
    p = IncrementalPDP(_ac_model([]), "c", random_state=0)
    with pytest.warns(RuntimeWarning, match="skipped"):
        p.explain_one({"a": 0.1, "c": float("nan")})
    for r in rows:
        p.explain_one(r)
    grid, ice = p.ice_history_[-1]
    levels = dict(zip(list(grid), ice[0]))
    assert set(levels) == {"x", "y"} and set(p.pd_.grid_values[0]) == {"x", "y"}
    assert levels["x"] - levels["y"] == 1.0


@pytest.mark.parametrize("first", [None, float("nan")])
def test_a_series_row_whose_first_string_value_is_missing_follows_the_dict_rule(first):
    """Rows of a DataFrame given one at a time (iterrows): pandas makes the first row's missing
    'c' a float NaN in a float64 Series, which fixed 'c' as numeric and its first string
    crashed. A Series row follows the dict rule; reference: the same rows as dict records
    whose first 'c' is NaN (what the Series row holds), importances equal bit for bit (the
    model reads columns of either input) and that row skipped in both."""
    rows, y = _ac_rows(30)
    frame = pd.DataFrame([{"a": 0.1, "c": first}, *rows])
    rows = [{"a": 0.1, "c": float("nan")}, *rows]
    y = [0.1, *y]

    def model(X):
        X = pd.DataFrame(list(X)) if not isinstance(X, pd.DataFrame) else X
        return X["a"].to_numpy(dtype=float) + (X["c"] == "x").to_numpy()

    runs = []
    for as_series in (False, True):
        e = IncrementalPFI(model, "squared_error", random_state=0)
        with pytest.warns(RuntimeWarning, match="skipped"):
            for (_, row), r, t in zip(frame.iterrows(), rows, y):
                e.explain_one(row if as_series else r, t)
        assert e._schema.kinds == ("numeric", "categorical") and e.n_skipped_ == 1
        runs.append(e.importances_)
    np.testing.assert_array_equal(runs[0], runs[1])
    assert runs[1][1] > 0


def _str_class_stream(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] > 0, "yes", "no"), (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("loss", ["zero_one", "log_loss"])
def test_the_first_row_with_labels_of_another_type_is_refused_as_the_later_ones(loss):
    """A scikit-learn classifier of str classes, int labels: the first explain_one only warned
    and took the row (n_seen_ 1, importances 0: nothing is stored, so no loss was computed);
    the second raised. Now every call refuses the first such label before any model call
    and takes nothing, as the batch does; a label of the classes' type that the model lacks
    is still taken (counted wrong, with the adapter's warning)."""
    from sklearn.linear_model import LogisticRegression

    X, ys, yi = _str_class_stream()
    m = LogisticRegression().fit(X, ys)
    for rows, labels in ((X[0], yi[0]), (X[:5], yi[:5])):
        e = IncrementalPFI(m, loss, random_state=0)
        where = r"the observation \(stream row 0\)" if rows.ndim == 1 else r"batch row 0"
        match = (where + r".* is 1 \(int\), which cannot be one of the model's classes "
                 r"\['no', 'yes'\] \(str\)")
        for _ in range(2):
            with pytest.raises(ValueError, match=match):
                (e.explain_one if rows.ndim == 1 else e.explain_many)(rows, labels)
            assert e.n_seen_ == 0
    e = IncrementalPFI(m, "zero_one", random_state=0)
    with pytest.warns(RuntimeWarning, match=r"None of the labels y \('maybe'"):
        e.explain_one(X[0], "maybe")
    e.explain_one(X[1], ys[1])
    assert e.n_seen_ == 2


@pytest.mark.parametrize("mode", ["one", "many"])
def test_a_river_classifier_refuses_labels_of_another_type(mode):
    """River learns its classes from the stream, but a tree keeps the classes it learnt: int
    labels for a tree of str classes are refused from the first row (they were taken with a
    warning, every importance 0), in an explain_one loop as in explain_many; a new label of
    the classes' type is taken (River learners meet new classes)."""
    from river import tree

    X, ys, yi = _str_class_stream()
    recs = [dict(zip("abc", map(float, r))) for r in X]
    rm = tree.HoeffdingTreeClassifier()
    for r, t in zip(recs, ys):
        rm.learn_one(r, t)
    e = IncrementalPFI(rm, "zero_one", random_state=0)
    match = r"is [01] \(int\), which cannot be one of the model's classes \['no', 'yes'\]"
    with pytest.raises(ValueError, match=match):
        if mode == "one":
            for r, t in zip(recs, yi.tolist()):
                e.explain_one(r, t)
        else:
            e.explain_many(recs, yi.tolist())
    assert e.n_seen_ == 0
    labels = ys.tolist()
    labels[3] = "maybe"
    e.explain_many(recs, labels)
    assert e.n_seen_ == len(recs)
