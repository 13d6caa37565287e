"""Per-row losses against their definitions written plainly."""

import numpy as np

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
