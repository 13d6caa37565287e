"""``ixplain stream --live``: the report is served on 127.0.0.1 while the stream runs, its
``data.json`` grows, an open page shows the rows change, and the end leaves ``report.html``;
port and extra problems are clear errors."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("typer")
pytest.importorskip("river")

from _chromium import chromium_path
from _cli_helpers import cli_env, run_main

import ixplain.report as report_package

N_ROWS = 8000


def _fake_page(payload, live=False):
    return f"<!DOCTYPE html><title>{payload['title']}</title><p>live={live}</p>"


def test_port_in_use_is_an_error_naming_it(capsys, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = run_main(capsys, "stream", "--n-rows", "20", "--live", "--port",
                                str(port), "--out", str(tmp_path), "--no-progress")
    assert code == 2
    assert f"--port {port}: the port is already in use on 127.0.0.1" in err


@pytest.mark.parametrize(("args", "message"), [
    (["--port", "8000"], "--port 8000 is the port of the live report; add --live"),
    (["--live", "--port", "70000"], "--port must be in 0..65535 (0: any free port), got 70000"),
])
def test_port_options_refused(capsys, tmp_path, args, message):
    code, _, err = run_main(capsys, "stream", "--n-rows", "20", *args, "--out", str(tmp_path))
    assert code == 2 and message in err


def test_live_without_the_page_is_a_clear_error(capsys, tmp_path, monkeypatch):
    def missing(payload, live=False):
        raise ImportError("No module named 'plotly'")

    monkeypatch.setattr(report_package, "render_page", missing, raising=False)
    code, _, err = run_main(capsys, "stream", "--n-rows", "20", "--live", "--out",
                            str(tmp_path), "--no-progress")
    assert code == 2
    assert "--live needs the interactive report page" in err
    assert "No module named 'plotly'" in err and "pip install 'ixplain[cli]'" in err


def _get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, dict(r.headers), r.read()


def test_server_serves_only_its_files_uncached(tmp_path, monkeypatch):
    from ixplain.cli._live import LiveReport

    monkeypatch.setattr(report_package, "render_page", _fake_page, raising=False)
    (tmp_path / "summary.json").write_text("{}")
    live = LiveReport(tmp_path, 0)
    try:
        live.start("demo <stream>")
        status, headers, body = _get(live.url + "data.json")
        data = json.loads(body)
        assert status == 200 and headers["Cache-Control"] == "no-store"
        assert data["status"] == {"state": "running", "rows_seen": 0, "rows_total": None}
        assert data["refresh_seconds"] == live.refresh_seconds
        assert b"live=True" in _get(live.url)[2]
        for path in ("summary.json", "..%2Fsummary.json", "data.json.tmp", "nope"):
            with pytest.raises(urllib.error.HTTPError) as info:
                _get(live.url + path)
            assert info.value.code == 404
    finally:
        live.close()
    with socket.socket() as again:  # no one listens on the port any more
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (as the server does)
        again.bind(("127.0.0.1", live.server.server_address[1]))


def _lines(proc, q):
    for line in proc.stdout:
        q.put(line)


def _open_browser():
    """(playwright, browser) or None when chromium or playwright is missing."""
    exe = chromium_path()
    if exe is None:
        return None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=exe, args=[
        "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"])
    return pw, browser


def _watch(url, proc, page, seen, shown, errors, requests):
    """Poll data.json (and the page's row count) until the run is over."""
    if page is not None:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(url)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            data = json.loads(_get(url + "data.json")[2])
        except (urllib.error.URLError, ConnectionError):
            break  # the server has stopped
        seen.append((data["status"]["state"], data["status"]["rows_seen"]))
        if page is not None:
            shown.append(page.evaluate(
                "() => (document.getElementById('status') || {dataset: {}}).dataset.rowsSeen"))
        if seen[-1][0] != "running" and (page is None or shown[-1] == str(N_ROWS)):
            break
        time.sleep(0.25)


@pytest.fixture(scope="module")
def live_run(tmp_path_factory):
    """``ixplain stream --live --port 0`` in a subprocess, watched over HTTP (and in headless
    Chromium when chromium and playwright are installed)."""
    if not hasattr(report_package, "render_page"):
        pytest.skip("this build has no ixplain.report.render_page (the report page)")
    out = tmp_path_factory.mktemp("live") / "out"
    browser = _open_browser()  # before the run: the page must open while it runs
    proc = subprocess.Popen(
        [sys.executable, "-m", "ixplain", "stream", "--dataset", "bike", "--explain", "pfi",
         "--n-rows", str(N_ROWS), "--every", "40", "--live", "--port", "0", "--no-progress",
         "--out", str(out)],
        env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    q: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(proc, q), daemon=True).start()
    seen, shown, errors, requests = [], [], [], []
    try:
        line = q.get(timeout=120)
        assert line.startswith("Live report: http://127.0.0.1:"), line
        url = line.split()[2]
        page = browser[1].new_page() if browser else None
        _watch(url, proc, page, seen, shown, errors, requests)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if browser:
            browser[1].close()
            browser[0].stop()
    return {"url": url, "out": out, "rc": proc.returncode, "stderr": proc.stderr.read(),
            "seen": seen, "shown": shown if browser else None, "errors": errors,
            "requests": requests}


def test_live_data_grows_and_the_run_leaves_the_report(live_run):
    assert live_run["rc"] == 0, live_run["stderr"]
    seen = live_run["seen"]
    running = [rows for state, rows in seen if state == "running"]
    assert any(0 < rows < N_ROWS for rows in running), seen
    rows = [r for _, r in seen]
    assert rows == sorted(rows) and rows[-1] > rows[0]  # grows, never back
    assert seen[-1] == ("finished", N_ROWS), seen  # an open page sees the end
    final = json.loads((live_run["out"] / "data.json").read_text())
    assert final["status"] == {"state": "finished", "rows_seen": N_ROWS, "rows_total": N_ROWS}
    assert final["summary"] and final["headline"] == "importances-pfi"
    assert (live_run["out"] / "report.html").is_file()
    assert (live_run["out"] / "importances.csv").is_file()


def test_live_page_shows_the_rows_change_in_chromium(live_run):
    if live_run["shown"] is None:
        pytest.skip("chromium or playwright is not installed (tests/cli/_chromium.py)")
    shown = [s for s in live_run["shown"] if s is not None]
    assert len(set(shown)) >= 2 and shown[-1] == str(N_ROWS), shown
    assert live_run["errors"] == []
    assert all(u.startswith((live_run["url"], "data:")) for u in live_run["requests"]), \
        live_run["requests"]


def test_live_stopped_by_sigterm_says_interrupted(tmp_path):
    """SIGTERM (as Ctrl-C) mid-stream: exit 130, report.html written, data.json "interrupted"."""
    if not hasattr(report_package, "render_page"):
        pytest.skip("this build has no ixplain.report.render_page (the report page)")
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ixplain", "stream", "--dataset", "bike", "--explain", "pfi",
         "--live", "--no-progress", "--out", str(out)],
        env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split()[2]
        deadline = time.monotonic() + 120
        while json.loads(_get(url + "data.json")[2])["status"]["rows_seen"] == 0:
            assert time.monotonic() < deadline, "no row explained in 120 s"
            time.sleep(0.2)
        proc.terminate()
        assert proc.wait(timeout=120) == 130, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    final = json.loads((out / "data.json").read_text())
    assert final["status"]["state"] == "interrupted"
    assert 0 < final["status"]["rows_seen"] < final["status"]["rows_total"]
    assert (out / "report.html").is_file()
