"""``ImportanceTraceDisplay(drift_points=...)``: each point was passed to ``float()``, so
``[nan, "x"]`` raised a bare "could not convert string to float: 'x'" (no parameter named), a
scalar a bare "'int' object is not iterable", and NaN or inf were accepted and drew nothing.
Bad values are now refused with the standard message naming the parameter, the value and the
first bad item; good ones are drawn one line each at their position."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib

matplotlib.use("Agg")

from ixplain import ImportanceTraceDisplay, InteractionTraceDisplay

TIMES, VALUES = [10, 20, 30], np.array([[0.1, 0.0], [0.2, 0.0], [0.3, 0.1]])
PREFIX = ("The 'drift_points' parameter of ImportanceTraceDisplay must be None or a sequence "
          "of finite numbers (stream positions).")


def _display(points):
    return ImportanceTraceDisplay(TIMES, VALUES, None, ["a", "b"], drift_points=points)


@pytest.mark.parametrize(("points", "error", "item"), [
    ([np.nan, "x"], ValueError, "Item 0 is nan"),
    ([15.0, np.inf], ValueError, "Item 1 is inf"),
    (np.array([1.0, -np.inf]), ValueError, "Item 1 is -inf"),
    ([15.0, "x"], TypeError, "Item 1 is 'x' (str), not a number"),
    ([True], TypeError, "Item 0 is True (bool), not a number"),
    ([[1, 2]], TypeError, "Item 0 is [1, 2] (list), not a number"),
    (15, TypeError, "Got 15 instead"),
    ("15", TypeError, "Got '15' instead"),
    (np.array(15.0), TypeError, "Got array(15.) instead"),
])
def test_bad_drift_points_are_refused_naming_the_parameter_and_the_bad_item(points, error, item):
    with pytest.raises(error) as info:
        _display(points)
    assert str(info.value).startswith(PREFIX)
    assert item in str(info.value)


def test_the_subclass_names_itself_in_the_message():
    with pytest.raises(ValueError, match="'drift_points' parameter of InteractionTraceDisplay"):
        InteractionTraceDisplay(TIMES, VALUES, None, ["a", "b"], drift_points=[np.nan])


@pytest.mark.parametrize("points", [[15, 25.5], (np.int64(15), np.float32(25.5)),
                                    np.array([15.0, 25.5]), range(15, 26, 10)])
def test_numbers_of_any_kind_are_drawn_one_line_each_at_their_position(points):
    disp = _display(points).plot()
    want = [float(p) for p in points]
    assert disp.drift_points == want
    assert [line.get_xdata()[0] for line in disp.drift_lines_] == want
