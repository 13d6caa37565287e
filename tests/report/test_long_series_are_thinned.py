"""Series longer than MAX_POINTS are thinned evenly for the page, first and last points kept."""

from __future__ import annotations

import pytest

from ixplain.report import MAX_POINTS, example_payload, prepare_payload, thin_indices


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 10, 11, 50, 97])
@pytest.mark.parametrize("m", [2, 3, 5, 10])
def test_thin_indices_against_their_definition(n, m):
    idx = thin_indices(n, m)
    if n <= m:
        assert idx == list(range(n))
        return
    assert len(idx) <= m and idx[0] == 0 and idx[-1] == n - 1
    step = -(-(n - 1) // (m - 1))  # the smallest even step that fits in m points
    assert idx[:-1] == list(range(0, n - 1, step))  # evenly spread ...
    assert 0 < idx[-1] - idx[-2] <= step  # ... and the last point kept


def test_thin_indices_refuses_bad_sizes():
    with pytest.raises(ValueError, match="'max_points' parameter of thin_indices must be an int >= 2. Got 1"):
        thin_indices(10, 1)
    with pytest.raises(ValueError, match="'n' parameter of thin_indices must be an int >= 0. Got -1"):
        thin_indices(-1)


def test_a_long_trace_keeps_its_first_and_last_rows_and_stays_aligned():
    payload = example_payload(n_rows=20_001)  # 5001 points per series
    original = payload["charts"][0]
    chart = prepare_payload(payload)["charts"][0]
    assert len(original["x"]) == 5001
    assert len(chart["x"]) <= MAX_POINTS
    assert chart["x"][0] == original["x"][0] and chart["x"][-1] == 20_001
    assert chart["thinned"] == {"points": 5001, "shown": len(chart["x"]), "step": 3}
    lookup = dict(zip(original["x"], original["series"][1]["upper"]))
    assert [lookup[x] for x in chart["x"]] == chart["series"][1]["upper"]  # same rows as x
    assert prepare_payload(example_payload())["charts"][0]["thinned"] is None
