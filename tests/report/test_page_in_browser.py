"""The report page in a real headless Chromium: hover shows values, the legend filters (bands
included), an incident opens its panel, the first screen holds the answer, nothing is requested
from outside the file and the console stays clean."""

from __future__ import annotations

import io

import numpy as np
import pytest
from _browser import FIRST_SCREEN, module_browser, open_page, screenshot_first_screen
from _payloads import CLOSER, EVIL, evil_payload

from ixplain.report import render_page

pytest.importorskip("plotly")


@pytest.fixture(scope="module")
def browser():
    yield from module_browser()

# Where point i of trace k of a chart is on the screen (plotly's axes map data to pixels).
POINT = """([chart, trace, i, axis]) => {
  const gd = document.querySelector(chart + ' .ix-plot'), fl = gd._fullLayout;
  const t = gd.data[trace], ya = fl[axis], box = gd.getBoundingClientRect();
  return {x: box.left + fl.xaxis._offset + fl.xaxis.l2p(t.x[i]), y: box.top + ya._offset + ya.l2p(t.y[i])};
}"""
TRACES = """(chart) => document.querySelector(chart + ' .ix-plot').data.map(
  (t, k) => ({k: k, kind: t.ixplain, name: t.name, group: t.legendgroup, dash: t.line && t.line.dash,
              visible: t.visible === undefined ? true : t.visible}))"""


@pytest.fixture(scope="module")
def payload():
    return evil_payload()


@pytest.fixture(scope="module")
def report(tmp_path_factory, payload):
    path = tmp_path_factory.mktemp("page") / "report.html"
    path.write_text(render_page(payload), encoding="utf-8")
    return path


@pytest.fixture
def page(browser, report):
    page, seen = open_page(browser, report.as_uri())
    yield page
    page.close()
    assert seen.problems == []
    assert seen.requests and all(u.startswith(("file:", "data:")) for u in seen.requests), seen.requests


def _trace(page, chart, kind, name=None):
    traces = page.evaluate(TRACES, chart)
    return [t for t in traces if t["kind"] == kind and (name is None or t["name"] == name)]


def test_hover_on_the_headline_chart_shows_value_bounds_and_row(page, payload):
    series = payload["charts"][0]["series"][0]  # hour
    line = _trace(page, "#headline", "line", "hour")[0]
    at = page.evaluate(POINT, ["#headline", line["k"], 20, "yaxis"])
    page.mouse.move(at["x"], at["y"])
    label = page.wait_for_selector("#headline .hoverlayer .hovertext", timeout=5000)
    text = label.text_content()
    row = payload["charts"][0]["x"][20]
    assert "hour" in text and f"row {row:g}" in text
    assert f"value {series['y'][20]:.4g}" in text
    assert f"bounds [{series['lower'][20]:.4g}, {series['upper'][20]:.4g}]" in text


def test_legend_shows_names_as_text_and_a_click_hides_the_feature_with_its_band(page):
    legend = page.locator("#headline .legend .traces .legendtext")
    assert legend.all_text_contents()[:4] == ["hour", "temp", CLOSER, EVIL]
    page.locator("#headline .legend .traces").nth(2).click()
    page.wait_for_function(
        "() => document.querySelector('#headline .ix-plot').data.some(t => t.visible === 'legendonly')")
    traces = page.evaluate(TRACES, "#headline")
    hidden = [t for t in traces if t["visible"] == "legendonly"]
    group = hidden[0]["group"]
    assert sorted(t["kind"] for t in hidden) == ["band", "band", "line"]  # the line and its band
    assert all(t["group"] == group for t in hidden)
    assert all(t["visible"] is True for t in traces if t["group"] != group)
    assert {t["dash"] for t in traces if t["kind"] == "line"} == {"solid"}


def test_clicking_an_incident_mark_opens_its_before_after_ranking_and_curves(page, payload):
    mark = _trace(page, "#headline", "incident")[0]
    at = page.evaluate(POINT, ["#headline", mark["k"], 0, "yaxis2"])
    page.mouse.click(at["x"], at["y"])
    panel = page.wait_for_selector("#incident-panel:not([hidden])", timeout=5000)
    incident = payload["incidents"][0]
    assert panel.query_selector("h3").text_content() == incident["headline"]
    names = [td.text_content() for td in panel.query_selector_all("tbody tr td:first-child")]
    assert names == ["temp", CLOSER]
    page.wait_for_function("""() => { const plots = document.querySelectorAll('#incident-panel .ix-plot');
        return plots.length === 2 && Array.from(plots).every(d => d._fullLayout && d.querySelector('.gtitle')); }""")
    titles = page.locator("#incident-panel .gtitle").all_text_contents()
    assert titles == ["Before (open) and after (filled)", "Partial dependence of temp"]
    after = page.evaluate("""() => document.querySelector('#incident-panel .ix-plot').data[1].x""")
    assert after == [f["after"] for f in incident["features"]]
    curves = page.evaluate("""() => document.querySelectorAll('#incident-panel .ix-plot')[1].data
        .filter(t => t.ixplain === 'line').map(t => [t.name, t.line.dash])""")
    assert curves == [["before", "dot"], ["after", "solid"]]  # one feature: one colour, two dashes


def test_incident_list_opens_the_same_panel_and_model_updates_are_not_alerts(page, payload):
    items = page.locator("#incident-list > li button")
    assert items.count() == 1  # the model update is not in the list of incidents
    assert page.locator("#incidents-title").text_content() == "Incidents (1)"
    assert page.locator("#model-updates summary").text_content().startswith("Model updates (1)")
    items.first.click()
    panel = page.wait_for_selector("#incident-panel:not([hidden])", timeout=5000)
    assert panel.get_attribute("data-incident") == "0"
    mark = _trace(page, "#headline", "model_update")[0]
    at = page.evaluate(POINT, ["#headline", mark["k"], 0, "yaxis2"])
    page.mouse.click(at["x"], at["y"])
    page.wait_for_selector("#incident-panel[data-incident='1']", timeout=5000)
    assert [td.text_content() for td in page.query_selector_all("#incident-panel tbody td:first-child")] == ["hour"]


def test_first_screen_holds_title_summary_headline_and_ranking(page, browser, report, tmp_path):
    boxes = page.evaluate("""() => Object.fromEntries(['title', 'summary', 'headline', 'ranking'].map(
        id => [id, document.getElementById(id).getBoundingClientRect().toJSON()]))""")
    for name, box in boxes.items():
        assert box["height"] > 0 and box["bottom"] <= FIRST_SCREEN["height"], (name, box)
        assert box["right"] <= FIRST_SCREEN["width"], (name, box)
    assert boxes["headline"]["height"] > 400 and boxes["ranking"]["width"] > 300
    assert page.evaluate("() => Array.from(document.querySelectorAll('details')).every(d => !d.open)")
    Image = pytest.importorskip("PIL.Image")
    shot = screenshot_first_screen(report, tmp_path / "first.png", browser)
    image = Image.open(io.BytesIO(shot.read_bytes())).convert("L")
    assert image.size == (FIRST_SCREEN["width"], FIRST_SCREEN["height"])
    pixels = np.asarray(image, dtype=float)
    assert pixels.std() > 10 and (pixels < 128).mean() > 0.005  # lines and text, not a blank page


def test_long_chart_of_many_features_is_thinned_and_bands_only_the_top_five(browser, tmp_path):
    payload = evil_payload(n_rows=9_000)  # 2251 points a series: thinned to every 2nd
    chart = payload["charts"][0]
    chart["series"] += [dict(s, name=f"extra {k}") for k, s in enumerate(chart["series"])]
    path = tmp_path / "long.html"
    path.write_text(render_page(payload), encoding="utf-8")
    page, seen = open_page(browser, path.as_uri())
    try:
        traces = page.evaluate(TRACES, "#headline")
        lines = [t for t in traces if t["kind"] == "line"]
        banded = {t["group"] for t in traces if t["kind"] == "band"}
        assert [t["group"] in banded for t in lines] == [True] * 5 + [False] * 3
        assert len(page.evaluate("() => document.querySelector('#headline .ix-plot').data[2].x")) == 1126
        assert "Thinned: every 2nd of 2,251 points shown (the last included)." in (
            page.locator("#headline .caption").text_content())
        at = page.evaluate(POINT, ["#headline", lines[0]["k"], 1000, "yaxis"])
        page.mouse.move(at["x"], at["y"])
        text = page.wait_for_selector("#headline .hoverlayer .hovertext", timeout=5000).text_content()
        assert "row 8,001" in text and "every 2nd of 2,251 points shown" in text
    finally:
        page.close()
    assert seen.problems == []


def test_dragging_zooms_the_rows_only_and_fits_the_values_shown(page, payload):
    box = page.locator("#headline .nsewdrag").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 0.55 * box["width"], y)
    page.mouse.down()
    page.mouse.move(box["x"] + 0.75 * box["width"], y + 40, steps=5)
    page.mouse.up()
    page.wait_for_function(
        "() => !document.querySelector('#headline .ix-plot')._fullLayout.xaxis.autorange")
    page.wait_for_timeout(300)
    x0, x1 = page.evaluate("() => document.querySelector('#headline .ix-plot')._fullLayout.xaxis.range")
    y0, y1 = page.evaluate("() => document.querySelector('#headline .ix-plot')._fullLayout.yaxis.range")
    rows = payload["charts"][0]["x"]
    assert rows[0] < x0 < x1 < rows[-1]
    shown = [v for s in payload["charts"][0]["series"] for r, v in zip(rows, s["y"]) if x0 <= r <= x1]
    pad = (max(shown) - min(shown)) * 0.08
    assert (y0, y1) == pytest.approx((min(shown) - pad, max(shown) + pad))  # y fits the window


FITS = """() => Array.from(document.querySelectorAll('.ix-plot')).map(
  d => [d.closest('[data-chart]') ? d.closest('[data-chart]').dataset.chart : 'panel',
        d.clientWidth, d.querySelector('.main-svg').getBoundingClientRect().width])"""


def test_every_chart_fits_its_box_without_a_headline(browser, tmp_path, payload):
    """A static explanation has no headline: the ranking stands alone and the other charts share
    a grid; each chart is drawn at its box's width (none clipped)."""
    static = dict(payload, headline=None, status=None, incidents=[],
                  charts=[c for c in payload["charts"] if c["kind"] != "traces"])
    path = tmp_path / "static.html"
    path.write_text(render_page(static), encoding="utf-8")
    page, seen = open_page(browser, path.as_uri())
    try:
        page.wait_for_timeout(300)
        sizes = page.evaluate(FITS)
        assert [name for name, _, _ in sizes] == ["ranking", "chart:pd-temp", "chart:final-methods"]
        for name, box, svg in sizes:
            assert 300 < box and abs(svg - box) <= 1, (name, box, svg)
        assert page.locator("#headline").is_hidden() and page.locator("#incidents").is_hidden()
    finally:
        page.close()
    assert seen.problems == []
