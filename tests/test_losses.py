"""Per-row losses against their definitions written plainly."""

import numpy as np
import pytest

from ixplain.losses import zero_one


def test_zero_one_on_object_labels_is_pythons_not_equal_pair_by_pair():
    """Labels of any Python type (str, None, tuples, mixed int/str, bool) compared pair by pair
    with !=, as written in the loss's definition; 1.0 where they differ."""
    def column(values):
        out = np.empty(len(values), dtype=object)
        for i, v in enumerate(values):  # element by element: tuples stay tuples
            out[i] = v
        return out

    pred = ["a", None, (1, 2), (1, 2), 1, "1", True, 0.5]
    true = ["a", "b", (1, 2), (2, 1), 1, 1, 1, 0.5]
    expected = [float(a != b) for a, b in zip(pred, true)]
    assert zero_one(column(true), column(pred)).tolist() == expected
    assert zero_one(np.array(true[:2], dtype=object), np.array(["a", "a"])).tolist() == [0.0, 1.0]
    # numeric labels on both sides: compared as numbers
    assert zero_one(np.array([1, 2, 3]), np.array([1.0, 2.5, 3.0])).tolist() == [0.0, 1.0, 0.0]


def test_zero_one_compares_integer_labels_of_one_dtype_exactly():
    """Integer labels are compared as integers: 2**53 + 1 is not 2**53 (their float64 casts
    are equal)."""
    y = np.array([2**53, 1, 7])
    pred = np.array([2**53 + 1, 1, 8])
    np.testing.assert_array_equal(zero_one(y, pred), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(zero_one(y, y), [0.0, 0.0, 0.0])
    # another dtype on one side: compared as float64, as before
    np.testing.assert_array_equal(zero_one(y[1:].astype(np.float32), pred[1:]), [0.0, 1.0])


@pytest.mark.parametrize("labels", [np.array(["1", "2.5"]), np.array(["1", "2.5"], dtype=object),
                                    np.array([1.0, "2.5"], dtype=object)])
def test_regression_losses_refuse_labels_that_are_strings(labels):
    """numpy reads ``"2.5"`` as 2.5, so a string label passed as a number while the stream
    explainers refuse the same string in a numeric feature (QA, session 11): the regression
    losses refuse strings, naming them and the conversion."""
    from ixplain.losses import absolute_error, squared_error

    for loss in (squared_error, absolute_error):
        with pytest.raises(ValueError, match=r"non-numeric targets \(labels y\) \(e\.g\. \[.*'2\.5'"
                                             r"\]\); strings are not read as numbers"):
            loss(labels, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(squared_error(np.array([1, 2.5], dtype=object),
                                                np.array([1.0, 2.0])), [0.0, 0.25])
