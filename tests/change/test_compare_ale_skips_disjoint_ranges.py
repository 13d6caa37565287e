"""ALE of two datasets whose feature is constant on one side only: the message is true (the
sides' ranges, not "constant on both sides"), compare() skips that feature's ALE with a note and
keeps every other result; a feature constant on both sides keeps its old message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain import compare
from ixplain.change._curves import curve_changes

rng = np.random.default_rng(0)
A = pd.DataFrame(rng.normal(size=(150, 3)), columns=["a", "b", "c"])
B = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
A_const = A.assign(c=1.0)


def model(d):
    return 2 * d["a"].to_numpy() + d["b"].to_numpy() + d["c"].to_numpy()


def test_compare_skips_ale_of_a_one_sided_constant_with_a_note():
    res = compare(model, A_const, model(A_const), X_b=B, y_b=model(B),
                  methods=("pfi", "pd", "ale"), random_state=0)
    assert set(res.curves["ale"]) == {"a", "b"}
    assert set(res.curves["pd"]) == {"a", "b", "c"}
    assert res.importance["pfi"].features == ["a", "b", "c"]
    (note,) = res.notes
    assert "ALE of 'c' skipped" in note and "[1, 1] on side a" in note
    assert "constant on both sides" not in note
    assert res.to_dict()["notes"] == res.notes
    assert note in res.to_payload()["notes"]


def test_direct_curve_changes_names_both_ranges():
    with pytest.raises(ValueError, match=r"'c' takes values in \[1, 1\] on side a and \[-.*\] "
                       "on side b"):
        curve_changes(model, A_const, X_b=B, method="ale", features=["c"])


def test_constant_on_both_sides_keeps_its_message():
    with pytest.raises(ValueError, match="'c' is constant on both sides; ALE needs at least two"):
        curve_changes(model, A_const, X_b=B.assign(c=1.0), method="ale", features=["c"])
