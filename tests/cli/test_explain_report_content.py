"""The ``ixplain explain`` report's payload answers first: the summary sentences, the ranking
sorted, the strongest effect's curve as the headline, the strongest interactions."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")
pytest.importorskip("sklearn")

from _cli_helpers import run_main


@pytest.fixture(scope="module")
def explained(tmp_path_factory):
    """y = 3 a + b (c unused) and a LinearRegression: PFI of a is 9 times b's (2 coef^2 Var)."""
    import joblib
    from sklearn.linear_model import LinearRegression

    d = tmp_path_factory.mktemp("explain")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(400, 3)), columns=["a", "b", "c"])
    frame["y"] = 3 * frame["a"] + frame["b"] + rng.normal(0, 0.1, 400)
    frame.to_csv(d / "d.csv", index=False)
    joblib.dump(LinearRegression().fit(frame[["a", "b", "c"]], frame["y"]), d / "m.joblib")
    return d


def _payload(monkeypatch, capsys, d, methods):
    import ixplain.cli._static as static

    captured = {}
    original = static.explain_payload

    def spy(run, report):
        captured["payload"] = original(run, report)
        return captured["payload"]

    monkeypatch.setattr(static, "explain_payload", spy)
    code, _, err = run_main(capsys, "explain", "--data", str(d / "d.csv"), "--target", "y",
                            "--model", str(d / "m.joblib"), "--methods", methods,
                            "--out", str(d / methods.replace(",", "-")))
    assert code == 0, err
    json.dumps(captured["payload"], allow_nan=False)
    return captured["payload"]


def test_explain_first_screen(monkeypatch, capsys, explained):
    p = _payload(monkeypatch, capsys, explained, "pfi,pd,ice")
    ranking = p["ranking"]
    assert ranking["features"][:2] == ["a", "b"]
    assert ranking["values"] == sorted(ranking["values"], reverse=True)
    positive = [v for v in ranking["values"] if v > 0]
    share = ranking["values"][0] / sum(positive)
    assert share == pytest.approx(0.9, abs=0.03)  # 2*9 / (2*9 + 2*1)
    assert p["summary"][0].startswith(f"`a` carries {100 * share:.0f} % of the summed")
    assert p["summary"][1].startswith("The strongest effect is `a`: its partial dependence "
                                      "rises by ")
    assert p["headline"] == "pd-a" and p["charts"][0]["id"] == "pd-a"
    assert [c["id"] for c in p["charts"]] == ["pd-a", "pd-b", "pd-c"]
    band = p["charts"][0]["series"][0]
    assert all(lo <= y <= up for lo, y, up in zip(band["lower"], band["y"], band["upper"]))


def test_explain_interactions_sentence(monkeypatch, capsys, explained):
    p = _payload(monkeypatch, capsys, explained, "pfi,interactions")
    bars = next(c for c in p["charts"] if c["id"] == "interactions")
    top = bars["series"][0]
    first = top["labels"][0].replace(" x ", "` x `")
    assert p["summary"][-1].startswith(f"The strongest interaction is `{first}`")
    assert abs(top["y"][0]) == max(abs(v) for v in top["y"])


@pytest.mark.parametrize(("methods", "caption"), [
    ("pfi", "Bars: the mean over the 5 repeats; whiskers: \u00b1 the standard deviation over "
            "the repeats."),
    ("sage", "Bars: the SAGE values; whiskers: \u00b1 one standard error of each value (its "
             "Monte Carlo estimate over the sampled permutations)."),
])
def test_explain_ranking_caption_says_what_the_whiskers_are(monkeypatch, capsys, explained,
                                                            methods, caption):
    """The ranking's caption is the explain run's own (not the stream page's default), and the
    whiskers it describes are symmetric: value -+ the method's error."""
    ranking = _payload(monkeypatch, capsys, explained, methods)["ranking"]
    assert ranking["caption"] == caption
    values, lower, upper = (np.asarray(ranking[k]) for k in ("values", "lower", "upper"))
    np.testing.assert_allclose(upper - values, values - lower, rtol=1e-12, atol=1e-12)
    assert (upper - values > 0).all()
