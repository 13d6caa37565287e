"""The HTML report: everything from the data is escaped; it renders in a real headless Chromium."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")
pytest.importorskip("river")

from _chromium import chromium_path, load_page

from ixplain.cli import main

EVIL_COLUMN = "<script>alert(1)</script>"
EVIL_VALUE = '<img src=x onerror="document.title=\'pwned\'">'
EVIL_TARGET = 'y"&<b>'
DOLLARS = "price in $ and $^{"  # invalid matplotlib mathtext unless escaped


@pytest.fixture(scope="module")
def evil_report(tmp_path_factory):
    """A stream whose column names and values are HTML/JS, run through the CLI in-process."""
    d = tmp_path_factory.mktemp("evil")
    rng = np.random.default_rng(0)
    n = 240
    frame = pd.DataFrame(
        {
            EVIL_COLUMN: rng.normal(size=n),
            DOLLARS: rng.uniform(size=n),
            "kind": np.where(rng.uniform(size=n) < 0.5, EVIL_VALUE, "plain"),
        }
    )
    frame[EVIL_TARGET] = 3 * frame[EVIL_COLUMN] + frame[DOLLARS] + rng.normal(scale=0.1, size=n)
    frame.to_csv(d / "evil.csv", index=False)
    out = d / "out"
    with pytest.raises(SystemExit) as info:
        main([
            "stream", "--data", str(d / "evil.csv"), "--target", EVIL_TARGET,
            "--explain", "pfi,pdp", "--pd-features", f"{EVIL_COLUMN},kind,{DOLLARS}",
            "--every", "40", "--alpha", "0.05", "--out", str(out), "--no-progress",
        ])
    assert info.value.code in (0, None)
    return out


def _without_inlined_code(html: str) -> str:
    """The page without the scripts it inlines (the page's own and plotly.js, whose strings hold
    tags): what is left is the markup and the data. The stream report draws charts, so it
    inlines plotly.js once."""
    from ixplain.report import _assets

    assert html.count(_assets.page_js()) == 1 and html.count(_assets.plotly_js()) == 1
    return html.replace(_assets.page_js(), "").replace(_assets.plotly_js(), "")


def test_report_escapes_feature_names_and_values(evil_report):
    html = (evil_report / "report.html").read_text()
    assert EVIL_COLUMN not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;document.title=&#x27;pwned&#x27;&quot;&gt;" in html
    markup = _without_inlined_code(html)
    assert "<b>" not in markup
    # the only scripts: the payload and the page's settings (JSON), plotly.js and the page's own
    assert markup.lower().count("<script") == 4 and "<script src" not in markup.lower()
    summary = json.loads((evil_report / "summary.json").read_text())
    assert EVIL_COLUMN in summary["final_importances"]["pfi"]  # JSON keeps the real name


def test_report_renders_in_headless_chromium(evil_report):
    if chromium_path() is None:
        pytest.skip(
            "chromium is not installed and could not be installed here (.ci/run installs "
            "Debian's chromium package when it runs as root: apt-get install -y chromium)"
        )
    Image = pytest.importorskip("PIL.Image")
    page = load_page(
        evil_report / "report.html",
        {
            # the static PNGs sit behind a closed disclosure below the charts: open them all
            "opened": "document.querySelectorAll('details').forEach(d => { d.open = true; })",
            "charts": "document.querySelectorAll('.js-plotly-plot').length",
            "title": "document.title",
            "scripts": "document.scripts.length",
            "external": "Array.from(document.scripts).filter(s => s.src).length",
            "text": "document.body.innerText",
            "images": """Array.from(document.images).map(i => ({
                src: i.src.slice(0, 22), ok: i.complete && i.naturalWidth > 0,
                x: i.getBoundingClientRect().left + window.scrollX,
                y: i.getBoundingClientRect().top + window.scrollY,
                w: i.getBoundingClientRect().width, h: i.getBoundingClientRect().height}))""",
            "dpr": "window.devicePixelRatio",
        },
    )
    assert page.errors == []
    assert page.values["charts"] >= 2  # the headline chart and the PD curves, drawn by plotly
    assert page.values["scripts"] == 4  # all inline (no src: nothing loaded from elsewhere)
    assert page.values["external"] == 0
    assert page.values["title"].startswith("ixplain stream") and "pwned" not in page.values["title"]
    assert EVIL_COLUMN in page.values["text"]  # shown as text
    images = page.values["images"]
    assert len(images) == 4
    assert DOLLARS in page.values["text"]
    assert all(i["src"] == "data:image/png;base64," and i["ok"] for i in images)
    shot = Image.open(io.BytesIO(page.screenshot)).convert("L")
    scale = page.values["dpr"] or 1
    for im in images:
        box = [int(v * scale) for v in (im["x"], im["y"], im["x"] + im["w"], im["y"] + im["h"])]
        assert im["w"] > 200 and im["h"] > 100, im
        pixels = np.asarray(shot.crop(box), dtype=float)
        assert pixels.std() > 10, f"image at {box} looks blank (std {pixels.std():.1f})"
        assert (pixels < 128).mean() > 0.005  # lines, text and axes, not a white box


def test_report_is_drawn_by_the_one_page_renderer(tmp_path):
    """render_report builds a payload and hands it to ixplain.report.render_page: numpy values,
    paths and PNG files become plain JSON and base64, and the page is the same."""
    from ixplain.cli.report import Report, render_report, report_payload
    from ixplain.report import render_page

    png = tmp_path / "p.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n")
    report = Report(
        "run", settings=[("seed", np.int64(3)), ("out", tmp_path)],
        tables=[("Final importances", pd.Index(["feature", "pfi"]),
                 np.array([["hour", 1.5]], dtype=object))],
        images=[("a plot", png)], notes=["note"], files=["p.png"],
    )
    payload = report_payload(report)
    assert payload["settings"] == [["seed", np.int64(3)], ["out", tmp_path]]
    assert payload["images"] == [{"caption": "a plot", "png_base64": "iVBORw0KGgo="}]
    page = render_report(report)
    assert page == render_page(payload)
    assert f"<td>{tmp_path}</td>" in page and '<td class="num">3</td>' in page
    assert '<td>hour</td><td class="num">1.5</td>' in page
    assert page.count('src="data:image/png;base64,iVBORw0KGgo="') == 1
