"""A malformed payload is refused with an error that names the key where it is wrong."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from ixplain.report import example_payload, prepare_payload, write_live_data


def _set(payload, path, value):
    node = payload
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value


CASES = [
    (("title",), KeyError, ValueError, "'payload' has no 'title' key"),
    (("titel",), "x", ValueError, "'payload.titel' must be one of the known keys"),
    (("title",), 3, TypeError, "'title' must be a str. Got 3"),
    (("status", "state"), "done", ValueError, "'status.state' must be one of"),
    (("status", "rows_seen"), -1, ValueError, "'status.rows_seen' must be an int >= 0"),
    (("ranking", "values"), [1.0, 2.0], ValueError,
     "'ranking.values' must be a list of the length of 'ranking.features' (4). Got '2 values'"),
    (("ranking", "upper", 2), "high", TypeError, "'ranking.upper[2]' must be a number or None"),
    (("headline",), "nope", ValueError, "'headline' must be the id of one of the charts"),
    (("charts", 0, "series", 1, "y"), [1.0], ValueError,
     "'charts[0].series[1].y' must be a list of the length of 'charts[0].x' (101)"),
    (("charts", 0, "x", 3), None, TypeError, "'charts[0].x[3]' must be a number. Got None"),
    (("charts", 0, "markers", 0, "kind"), "alarm", ValueError, "'charts[0].markers[0].kind' must be one of"),
    (("charts", 0, "markers", 1, "incident"), 7, ValueError,
     "'charts[0].markers[1].incident' must be None or the id of one of the incidents [0, 1]. Got 7"),
    (("charts", 1, "series", 0, "lower"), [1.0], ValueError, "'charts[1].series[0].lower' must be a list"),
    (("charts", 2, "series", 0, "labels"), "hour", TypeError, "'charts[2].series[0].labels' must be a list"),
    (("charts", 2, "id"), "importance", ValueError, "'charts[2].id' must be unique among the charts"),
    (("incidents", 0, "features", 0, "name"), None, TypeError, "'incidents[0].features[0].name' must be a str"),
    (("tables", 0, "rows", 1), ["hour"], ValueError, "'tables[0].rows[1]' must be a list of the length"),
    (("settings", 0), ["rows"], ValueError, "'settings[0]' must be a [name, value] pair"),
    (("images",), [{"png_base64": "<svg>"}], ValueError, "'images[0].png_base64' must be base64 text"),
    (("refresh_seconds",), 0, ValueError, "'refresh_seconds' must be a number > 0"),
]


@pytest.mark.parametrize("path, value, error, message", CASES, ids=[".".join(map(str, c[0])) for c in CASES])
def test_error_names_the_bad_key(path, value, error, message):
    payload = copy.deepcopy(example_payload())
    _set(payload, path, value)
    with pytest.raises(error) as info:
        prepare_payload(payload)
    assert message in str(info.value)


def test_numpy_values_become_json_and_non_finite_numbers_none():
    payload = example_payload()
    payload["ranking"]["values"] = np.array([1.5, np.nan, np.inf, 2])
    payload["tables"][0]["rows"][0] = [np.str_("hour"), np.float32(0.5)]
    payload["settings"].append(["seed", np.int64(7)])
    page = prepare_payload(payload)
    assert page["ranking"]["values"] == [1.5, None, None, 2.0]
    assert page["tables"][0]["rows"][0] == ["hour", 0.5]
    assert page["settings"][-1] == ["seed", 7] and type(page["settings"][-1][1]) is int
    json.dumps(page, allow_nan=False)  # plain JSON


def test_defaults_fill_the_optional_keys():
    page = prepare_payload({"title": "t"})
    assert page == {"title": "t", "subtitle": None, "status": None, "summary": [], "ranking": None,
                    "headline": None, "charts": [], "incidents": [], "tables": [], "settings": [],
                    "images": [], "notes": [], "files": [], "refresh_seconds": 3.0}


def test_live_data_is_the_checked_payload_written_whole(tmp_path):
    payload = example_payload()
    path = write_live_data(payload, tmp_path / "data.json")
    data = json.loads(path.read_text())
    assert data["status"] == payload["status"] and data["ranking"]["features"][0] == "hour"
    assert "tables" not in data  # only what the page's script draws
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.json"]  # no temporary left
    bad = dict(payload, refresh_seconds=math.nan)
    with pytest.raises(ValueError, match="'refresh_seconds' must be a finite number"):
        write_live_data(bad, tmp_path / "data.json")
    assert json.loads(path.read_text()) == data  # the last good file stays


def test_page_without_plotly_says_how_to_install_it_unless_it_draws_nothing(monkeypatch):
    import sys

    from ixplain.report import _assets, render_page

    _assets.plotly_js.cache_clear()
    monkeypatch.setitem(sys.modules, "plotly", None)  # as if it were not installed
    try:
        with pytest.raises(ImportError, match=r"pip install 'ixplain\[cli\]'"):
            render_page(example_payload())
        with pytest.raises(ImportError, match="plotly"):
            render_page({"title": "t"}, live=True)  # a live page may draw later
        text_only = {"title": "t", "tables": example_payload()["tables"], "notes": ["n"]}
        page = render_page(text_only)  # nothing to draw: no plotly.js needed
        assert page.count("<script") == 3 and "<td>hour</td>" in page
    finally:
        _assets.plotly_js.cache_clear()
