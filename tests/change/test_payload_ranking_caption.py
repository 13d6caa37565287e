"""The compare report's ranking chart is captioned as a change (bars b - a, whiskers the change
intervals), not with the stream report's "final values / bounds" caption; the report page keeps
the caption and draws it (its default stays for payloads without one)."""

from importlib import resources

import numpy as np
from sklearn.linear_model import Ridge

from ixplain.change import compare

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
y = 2 * X[:, 0] + X[:, 1]


def test_ranking_caption_describes_changes_and_their_intervals():
    res = compare(Ridge().fit(X, y), X, y, model_b=Ridge().fit(X, X[:, 2]), random_state=0)
    caption = res.to_payload()["ranking"]["caption"]
    assert caption == "Bars: the changes b - a; whiskers: their 95 % change intervals."
    assert "final values" not in caption


def test_report_page_keeps_and_draws_the_caption():
    from ixplain.report._payload import prepare_payload

    res = compare(Ridge().fit(X, y), X, y, model_b=Ridge().fit(X, X[:, 2]), random_state=0)
    page = prepare_payload(res.to_payload())
    assert page["ranking"]["caption"].startswith("Bars: the changes b - a")
    js = resources.files("ixplain.report").joinpath("page.js").read_text(encoding="utf-8")
    assert "p.ranking.caption != null ? p.ranking.caption" in js
    plain = dict(res.to_payload())
    plain["ranking"] = {k: v for k, v in plain["ranking"].items() if k != "caption"}
    assert "caption" not in prepare_payload(plain)["ranking"]
