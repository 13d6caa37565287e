"""Every string of the payload reaches the reader as text: escaped in the HTML, and in the JSON
the page's script reads with ``<``, ``>`` and ``&`` written as unicode escapes."""

from __future__ import annotations

import json
import re

import pytest
from _payloads import CLOSER, EVIL, evil_payload

from ixplain.report import render_page
from ixplain.report._assets import page_js, plotly_js

pytest.importorskip("plotly")


def _markup(page: str) -> str:
    """The page without the two scripts it inlines (their strings hold tags of their own)."""
    assert page.count(plotly_js()) == 1 and page.count(page_js()) == 1
    return page.replace(plotly_js(), "").replace(page_js(), "")


def _embedded(page: str, element_id: str) -> dict:
    found = re.search(f'<script type="application/json" id="{element_id}">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


@pytest.fixture(scope="module")
def hostile():
    payload = evil_payload()
    payload["title"] = f"run {EVIL}"
    payload["summary"] = [f"{EVIL} carries 71 % of the loss.", CLOSER]
    payload["notes"] = [f"note {EVIL}"]
    payload["settings"].append([EVIL, CLOSER])
    payload["files"].append(EVIL)
    payload["images"] = [{"caption": EVIL, "png_base64": "iVBORw0KGgo="}]
    return payload, render_page(payload)


def test_no_string_of_the_payload_appears_as_markup(hostile):
    _, page = hostile
    assert EVIL not in page and CLOSER not in page
    markup = _markup(page)
    # exactly the page's own four script elements open and close
    assert markup.count("<script") == 4 and markup.count("</script>") == 4
    assert "<b>" not in markup


def test_text_parts_are_html_escaped(hostile):
    _, page = hostile
    assert "<title>run &lt;script&gt;alert(1)&lt;/script&gt;</title>" in page
    assert "<p>&lt;script&gt;alert(1)&lt;/script&gt; carries 71 % of the loss.</p>" in page
    assert '<p class="note">note &lt;script&gt;alert(1)&lt;/script&gt;</p>' in page
    assert "<td>a&lt;/script&gt;&lt;b&gt;&amp;amp;</td>" in page  # a setting's value
    assert '<img alt="&lt;script&gt;alert(1)&lt;/script&gt;"' in page


def test_embedded_json_round_trips_the_hostile_names(hostile):
    payload, page = hostile
    data = _embedded(page, "ixplain-payload")
    assert data["ranking"]["features"] == payload["ranking"]["features"]
    assert EVIL in data["ranking"]["features"] and CLOSER in data["ranking"]["features"]
    assert data["incidents"][0]["features"][1]["name"] == CLOSER
    assert data["summary"] == payload["summary"]
    raw = re.search('id="ixplain-payload">(.*?)</script>', page, re.S).group(1)
    assert "<" not in raw and ">" not in raw and "&" not in raw


def test_plotly_text_is_entity_escaped_by_the_page_script():
    """plotly reads its labels as a small HTML dialect: the page writes &, <, > as entities
    before any payload string reaches it (checked in the browser by the legend test)."""
    js = page_js()
    assert 'replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")' in js
    assert "innerHTML" not in js and "insertAdjacentHTML" not in js and "document.write" not in js
