"""change_payload: the report payload (contract A) of a comparison -- the first screen's
sentences carry the result's numbers, the ranking is by |delta| with the intervals, plain JSON."""

import json

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from ixplain.change import compare
from ixplain.change._payload import change_payload, fmt


@pytest.fixture(scope="module")
def retrained():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 4))
    ya = 2 * X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=500)
    yb = 2 * X[:, 0] + X[:, 2] + 0.3 * rng.normal(size=500)
    a, b = Ridge().fit(X, ya), Ridge().fit(X, yb)
    return compare(a, X, yb, model_b=b, methods=("pfi", "pd"), random_state=0)


def test_payload_is_plain_json_with_the_contract_keys(retrained):
    p = retrained.to_payload()
    assert json.loads(json.dumps(p, allow_nan=False)) == p
    for key in ("title", "subtitle", "summary", "ranking", "headline", "charts", "tables",
                "settings", "notes"):
        assert key in p
    assert p["headline"] == p["charts"][0]["id"] == "importance-pfi"
    kinds = [c["kind"] for c in p["charts"]]
    assert kinds[0] == "bars" and kinds.count("curves") == 4
    assert 1 <= len(p["summary"]) <= 3


def test_first_sentence_names_the_significant_changes_with_their_intervals(retrained):
    imp = retrained.importance["pfi"]
    sentence = change_payload(retrained)["summary"][0]
    sig = [i for i in np.argsort(-np.abs(imp.delta)) if imp.significant[i]]
    assert sentence.startswith(f"{len(sig)} feature")
    assert "(Holm, 5 %)" in sentence
    for i in sig[:3]:
        if imp.delta[i] > 0:
            text = (f"{imp.features[i]} gained {fmt(imp.delta[i])} [{fmt(imp.lower[i])}, "
                    f"{fmt(imp.upper[i])}]")
        else:  # a loss is said as a positive size, its interval flipped with it
            text = (f"{imp.features[i]} lost {fmt(-imp.delta[i])} [{fmt(-imp.upper[i])}, "
                    f"{fmt(-imp.lower[i])}]")
        assert text in sentence


def test_ranking_is_sorted_by_absolute_change_with_intervals(retrained):
    imp = retrained.importance["pfi"]
    r = change_payload(retrained)["ranking"]
    order = np.argsort(-np.abs(imp.delta), kind="stable")
    assert r["features"] == [imp.features[i] for i in order]
    np.testing.assert_allclose(r["values"], imp.delta[order])
    assert all(lo <= v <= hi for v, lo, hi in zip(r["values"], r["lower"], r["upper"]))


def test_curve_charts_hold_both_sides_and_the_change(retrained):
    p = change_payload(retrained, max_curves=2)
    curves = [c for c in p["charts"] if c["kind"] == "curves"]
    assert len(curves) == 2
    names = [s["name"] for s in curves[0]["series"]]
    assert names == ["model a", "model b", "change (model b - model a)"]
    s = curves[0]["series"]
    np.testing.assert_allclose(np.subtract(s[1]["y"], s[0]["y"]), s[2]["y"], atol=1e-9)


def test_nothing_significant_is_said_so():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = X[:, 0] + rng.normal(size=300)
    m = Ridge().fit(X, y)
    res = compare(m, X[:150], y[:150], X_b=X[150:], y_b=y[150:], random_state=0)
    first = change_payload(res)["summary"][0]
    assert first.startswith("No feature's PFI changed significantly (Holm, 5 %)")


def test_renders_through_the_report_page(retrained):
    report = pytest.importorskip("ixplain.report")
    if not hasattr(report, "render_page"):
        pytest.skip("ixplain.report.render_page is not in this build")
    html = report.render_page(retrained.to_payload())
    assert "<html" in html.lower() and "changed significantly" in html
