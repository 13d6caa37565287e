"""The first-screen sentences say what the numbers show: each expected sentence is written out
from constructed inputs whose shares, ratios and rows are worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain.report import summarize_static, summarize_stream

NAMES = ["hour", "temp", "wind", "month"]
ROWS = [1000, 2000, 8000, 9000, 12000]
# final: 71 + 20 + 9 = 100 positive; month -5 (5 % of the positive total: named)
TRACE = [
    [30, 5, 4, 0],
    [50, 8, 6, 1],
    [60, 10, 8, 2],   # row 8,000: last snapshot at or before the known change at 8,645
    [65, 15, 9, 0],
    [71, 20, 9, -5],
]


def test_share_and_gain_since_the_known_change():
    out = summarize_stream(NAMES, ROWS, TRACE, known_changes=[8645])
    # temp doubles (10 -> 20), but the largest change is hour's (60 -> 71, +11 > +10), within
    # the 1.5x of "held"
    assert out == ["`hour` carries 71 % of the summed positive iPFI; `month` is below zero (-5); "
                   "since the known change at row 8,645 the importances held (largest change: "
                   "`hour`, 60 to 71)."]


def test_gain_named_when_it_is_the_largest_change():
    trace = np.array(TRACE, dtype=float)
    trace[-1, 1] = 30.0  # temp 10 -> 30 (3x), hour 60 -> 71; positives 71 + 30 + 9 = 110
    out = summarize_stream(NAMES, ROWS, trace, method="iSAGE", known_changes=[8645])
    assert out == ["`hour` carries 65 % of the summed positive iSAGE; `month` is below zero (-5);"
                   " since the known change at row 8,645 `temp` gained 3x (10 to 30)."]


def test_leaders_listed_until_half_the_total():
    out = summarize_stream(["a", "b", "c", "d"], [10], [[30, 25, 25, 20]])
    assert out == ["`a` and `b` carry 30 % and 25 % of the summed iPFI."]


def test_loss_and_lead_change():
    out = summarize_stream(["a", "b"], [10, 20, 30], [[10, 2], [10, 4], [4, 4.5]],
                           known_changes=[20])
    # leader changes from a (10 against 4) to b (4.5 against 4)
    assert out == ["`b` carries 53 % of the summed iPFI; since the known change at row 20 `b` "
                   "took the lead from `a` (4.5 against 4, from 4 against 10)."]
    out = summarize_stream(["a", "b"], [10, 20, 30], [[10, 2], [10, 2], [4, 2]],
                           known_changes=[20])
    assert out == ["`a` carries 67 % of the summed iPFI; since the known change at row 20 `a` "
                   "lost 60 % (10 to 4)."]


def test_sign_change_is_told_as_values():
    out = summarize_stream(["a", "b"], [10, 20, 30], [[10, 3], [10, 3], [12, -4]],
                           known_changes=[20])
    assert out == ["`a` carries 100 % of the summed positive iPFI; `b` is below zero (-4); since "
                   "the known change at row 20 `b` went from 3 to -4."]


def test_all_zero_negative_nan_and_single_feature():
    assert summarize_stream(["a", "b"], [5], [[0.0, 0.0]]) == [
        "No feature has a positive iPFI (largest: `a`, 0): removing any one does not raise "
        "the loss."]
    assert summarize_stream(["a", "b"], [5], [[-1.0, -3.0]]) == [
        "No feature has a positive iPFI (largest: `a`, -1): removing any one does not raise "
        "the loss."]
    assert summarize_stream(["a", "b"], [5], [[np.nan, np.nan]]) == [
        "No feature has a value of iPFI yet."]
    assert summarize_stream(["a", "b"], [5], [[np.nan, 2.0]]) == [
        "`b` carries 100 % of the summed iPFI."]
    assert summarize_stream(["a"], [5, 10], [[1.0], [2.5]], known_changes=[5]) == [
        "`a` is the only feature (iPFI 2.5)."]
    assert summarize_stream(["a"], [], np.empty((0, 1))) == ["No row has been explained yet."]


def test_no_reference_row_then_mid_stream():
    # two snapshots: the middle is the first one
    assert summarize_stream(["a", "b"], [10, 20], [[1, 1], [1, 3]]) == [
        "`b` carries 75 % of the summed iPFI."]
    out = summarize_stream(["a", "b"], [10, 20, 30, 40], [[1, 1], [1, 1], [1, 2], [1, 3]])
    assert out == ["`b` carries 75 % of the summed iPFI; since row 20 (mid-stream) `b` gained 3x "
                   "(1 to 3)."]


def _incident(i, start, detected, kind="incident", feature="temp"):
    return {"id": i, "kind": kind, "channel": "data", "start": start, "detected": detected,
            "end": None, "headline": "", "events": [],
            "features": [{"name": feature, "before": 1.0, "after": 2.0, "change": 1.0}]}


def test_incidents_counted_against_the_known_change():
    incidents = [_incident(0, 8700, 8900), _incident(1, 9500, 9800, feature="hour"),
                 _incident(2, 3000, 3100, kind="model_update")]
    out = summarize_stream(NAMES, ROWS, TRACE, known_changes=[8645], incidents=incidents)
    assert out[1] == ("2 incidents, both after the known change at 8,645 (the first detected 255 "
                      "rows after it, led by `temp`); 1 model update as the model learned.")
    one = summarize_stream(NAMES, ROWS, TRACE, known_changes=[8645], incidents=incidents[:1])
    assert one[1] == ("1 incident, after the known change at 8,645 (the first detected 255 rows "
                      "after it, led by `temp`).")


def test_incidents_before_and_after_and_without_known_changes():
    incidents = [_incident(0, 500, 700), _incident(1, 8700, 8900)]
    out = summarize_stream(NAMES, ROWS, TRACE, known_changes=[8645], incidents=incidents)
    assert out[1] == ("2 incidents: 1 before any known change (first detected at row 700, led "
                      "by `temp`) and 1 after the known change at 8,645 (first detected 255 "
                      "rows after it, led by `temp`).")
    out = summarize_stream(NAMES, ROWS, TRACE, incidents=incidents[::-1])
    assert out[1] == "2 incidents, the first detected at row 700, led by `temp`."
    # the first incident's start is then the reference row of the change clause
    assert "since row 500 (the first incident's start)" not in out[0]  # no snapshot before 500
    assert summarize_stream(NAMES, ROWS, TRACE, incidents=[])[1] == "No incident was detected."
    updates = [_incident(0, 10, 20, kind="model_update"), _incident(1, 30, 40, kind="model_update")]
    assert summarize_stream(NAMES, ROWS, TRACE, incidents=updates)[1] == (
        "No incident was detected; 2 model updates as the model learned.")


def test_first_incident_start_is_the_reference_without_known_changes():
    out = summarize_stream(NAMES, ROWS, TRACE, incidents=[_incident(0, 8500, 8900)])
    assert out[0].endswith("since row 8,500 (the first incident's start) the importances held "
                           "(largest change: `hour`, 60 to 71).")


def test_stream_shape_is_checked():
    with pytest.raises(ValueError, match="'values' parameter of summarize_stream"):
        summarize_stream(["a", "b"], [1, 2], [[1.0, 2.0]])


def test_static_ranking_agreement_effect_and_interactions():
    out = summarize_static(
        ["a", "b", "c"],
        {"PFI": ([2.0, 1.0, 1.0], [0.1, 0.05, np.nan]), "SAGE": ([0.5, 0.7, 0.1], [0, 0, 0])},
        effects={"a": ([0.0, 1.0, 2.0], [3.0, 2.0, 0.0]), "b": ([0.0, 1.0], [0.0, 1.0])},
        interactions=[("a", "b", 0.02), ("a", "c", 0.3), ("b", "c", np.nan)],
    )
    assert out == [
        "`a` carries 50 % of the summed PFI (2 ± 0.1); SAGE puts `b` first.",
        "The strongest effect is `a`: its partial dependence falls by 3 from 0 to 2; next `b` "
        "(span 1).",
        "The strongest interaction is `a` x `c` (H^2 0.3), then `a` x `b` (0.02).",
    ]


def test_static_agreement_non_monotone_and_categorical_effects():
    out = summarize_static(
        ["a", "b"], {"PFI": ([2.0, 1.0], [0.1, 0.1]), "SAGE": ([3.0, 1.0], [0.1, 0.1])},
        effects={"a": ([0.0, 1.0, 2.0], [0.0, 4.0, 1.0])}, effect_name="ALE")
    assert out == ["`a` carries 67 % of the summed PFI (2 ± 0.1); SAGE also puts `a` first.",
                   "The strongest effect is `a`: its ALE spans 4, highest at 1."]
    out = summarize_static(["k"], {"PFI": ([0.5], [0.0])},
                           effects={"k": (np.array(["x", "y"], dtype=object), [1.0, 3.0])},
                           interactions=[("k", "k", 0.0)])
    assert out == ["`k` is the only feature (PFI 0.5 ± 0).",
                   "The strongest effect is `k`: its partial dependence spans 2, highest at `y`.",
                   "No pair of features interacts (H^2 0 for every pair)."]


def test_static_without_values():
    assert summarize_static(["a", "b"], {"PFI": ([np.nan, np.nan], [np.nan, np.nan])}) == [
        "No feature has a value of PFI yet."]
    assert summarize_static(["a"], {}) == []
    with pytest.raises(ValueError, match="'importances' parameter"):
        summarize_static(["a", "b"], {"PFI": ([1.0], [0.0])})


def test_numbers_near_zero_against_the_others_read_about_zero():
    out = summarize_stream(["a", "b"], [10, 20, 30], [[21.3, 9.2e-6], [21.3, 9.2e-6],
                                                      [-4.37e-5, 16.4]], known_changes=[20])
    assert out == ["`b` carries 100 % of the summed iPFI; since the known change at row 20 `b` "
                   "took the lead from `a` (16.4 against about 0, from about 0 against 21.3)."]


def test_static_effect_mostly_rising():
    # span 4 (0 to 4), turns down by 0.5 (12 % of the span) once, ends 4 above its start
    out = summarize_static(["a"], {}, effects={"a": ([1.0, 2.0, 3.0, 4.0], [0.0, 2.0, 1.5, 4.0])})
    assert out == ["The strongest effect is `a`: its partial dependence mostly rises, by 4 from "
                   "1 to 4."]
    out = summarize_static(["a"], {}, effects={"a": ([1.0, 2.0, 3.0], [0.0, 4.0, 3.0])})
    assert out == ["The strongest effect is `a`: its partial dependence spans 4, highest at 2."]
