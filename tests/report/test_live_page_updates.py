"""A live page polls data.json from its own origin and redraws; it stops when the run ends."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from _browser import module_browser, open_page

from ixplain.report import example_payload, render_page, write_live_data

pytest.importorskip("plotly")


@pytest.fixture(scope="module")
def browser():
    yield from module_browser()


HIDDEN = """() => document.querySelector('#headline .ix-plot').data
    .filter(t => t.ixplain === 'line' && t.visible === 'legendonly').map(t => t.name)"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture
def served(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(5)


def _payload(rows_seen, state="running"):
    payload = example_payload(n_rows=rows_seen)
    payload["status"] = {"state": state, "rows_seen": rows_seen, "rows_total": 1000}
    payload["refresh_seconds"] = 0.3
    return payload


def test_live_page_shows_new_rows_and_stops_when_finished(browser, served):
    folder, origin = served
    (folder / "index.html").write_text(render_page(_payload(120), live=True), encoding="utf-8")
    write_live_data(_payload(120), folder / "data.json")
    page, seen = open_page(browser, origin + "index.html", allowed=(origin,))
    try:
        status = page.locator("#status")
        page.wait_for_function("() => document.getElementById('status').dataset.rowsSeen === '120'")
        assert "running: 120 of 1,000 rows seen" in status.text_content()
        page.locator("#headline .legend .traces").nth(1).click()  # the reader hides temp
        page.wait_for_function(f"() => ({HIDDEN})().includes('temp')")
        later = _payload(480)
        later["charts"][0]["series"].reverse()  # the ranking changed: temp is now third
        write_live_data(later, folder / "data.json")
        page.wait_for_function("() => document.getElementById('status').dataset.rowsSeen === '480'",
                               timeout=5000)
        assert page.evaluate(HIDDEN) == ["temp"]  # the redraw kept the reader's choice
        last_x = page.evaluate(
            "() => document.querySelector('#headline .ix-plot').data.find(t => t.ixplain === 'line').x.at(-1)")
        assert last_x == 480  # the chart was redrawn with the new rows
        write_live_data(_payload(1000, "finished"), folder / "data.json")
        page.wait_for_function("() => document.body.dataset.polling === 'stopped'", timeout=5000)
        assert status.text_content() == "finished: 1,000 of 1,000 rows"
        polls = len(seen.requests)
        page.wait_for_timeout(1000)
        assert len(seen.requests) == polls  # no more polling
    finally:
        page.close()
    assert seen.problems == []
    assert all(u.startswith(origin) for u in seen.requests), seen.requests
    assert sum(u == origin + "data.json" for u in seen.requests) >= 2
