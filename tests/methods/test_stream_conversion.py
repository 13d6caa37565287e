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
    match = r"The true label '[01]' is not one of the model's classes \[0, 1\] \(str"
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
