"""The notebook summaries (``_repr_html_``) show each result's ranking in order with its values
and bounds, escape every name, carry no script, and stay small."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _parse import parse

from ixplain import IncrementalPFI, IncrementalShapleyInteractions
from ixplain._html import render
from ixplain._html._blocks import num
from ixplain.results import (
    FeatureImportance,
    HStatistic,
    ImportanceTimeSeries,
    InteractionTimeSeries,
    ShapleyInteractions,
)

Z95 = 1.959963984540054


def _importance(names, values, std=None):
    raw = np.asarray(values, dtype=float)[:, None] + (
        np.zeros((len(values), 1)) if std is None else np.c_[-np.asarray(std), np.asarray(std)])
    return FeatureImportance.from_importances(raw, names)


def test_feature_importance_rows_follow_the_ranking_with_their_values_and_spread():
    r = _importance(["a", "b", "c", "d"], [0.5, 2.0, -0.25, 1.0], std=[0.1, 0.2, 0.3, 0.4])
    doc = parse(r._repr_html_())
    (table,) = doc.tables
    assert table[0][:3] == ["feature", "", "value"] and table[0][3] == "mean -/+ std"
    order = np.argsort(-r.importances_mean)
    assert doc.column(0) == [r.feature_names[j] for j in order] == ["b", "d", "a", "c"]
    assert doc.column(0, 2) == [num(r.importances_mean[j]) for j in order]
    lo, hi = r.importances_mean - r.importances_std, r.importances_mean + r.importances_std
    assert doc.column(0, 3) == [f"[{num(lo[j])}, {num(hi[j])}]" for j in order]


def test_a_negative_importance_is_a_bar_left_of_the_zero_line():
    doc = parse(_importance(["up", "down"], [1.0, -1.0])._repr_html_())
    zero = [a for t, a in doc.tags if t == "path" and a.get("stroke") == "#999"]
    bars = [a for t, a in doc.tags if t == "rect"]
    x0 = float(re.match(r"M([\d.]+) ", zero[0]["d"]).group(1))
    up, down = bars  # ranking order: "up" first
    assert float(up["x"]) == pytest.approx(x0, abs=0.1) and float(up["width"]) > 50
    assert float(down["x"]) + float(down["width"]) == pytest.approx(x0, abs=0.1)
    assert up["fill"] != down["fill"]


def test_sage_standard_errors_are_shown_as_the_95_percent_interval():
    r = FeatureImportance(np.array([1.0, 3.0]), np.array([0.5, 0.1]), np.array([[1.0], [3.0]]),
                          ["a", "b"], {"method": "sage"})
    doc = parse(r._repr_html_())
    assert doc.tables[0][0][3] == "95 %"
    assert doc.column(0, 3) == [f"[{num(3 - Z95 * 0.1)}, {num(3 + Z95 * 0.1)}]",
                                f"[{num(1 - Z95 * 0.5)}, {num(1 + Z95 * 0.5)}]"]


def test_shapley_interactions_rank_main_terms_by_value_and_pairs_by_absolute_value():
    r = ShapleyInteractions.from_vector(
        np.array([0.2, 1.0, 0.5, 0.3, -2.0, 0.1]), np.array([0.0, 0.1, 0.0, 0.0, 0.2, 0.0]),
        ["a", "b", "c"], "k-SII")
    doc = parse(r._repr_html_())
    main, pairs = doc.tables
    assert doc.column(0) == ["b", "c", "a"] and doc.column(0, 2) == ["1", "0.5", "0.2"]
    assert doc.column(1) == ["a x c", "a x b", "b x c"]
    assert doc.column(1, 2) == ["-2", "0.3", "0.1"]
    assert doc.column(1, 3)[0] == f"[{num(-2 - Z95 * 0.2)}, {num(-2 + Z95 * 0.2)}]"


def test_h_statistic_ranks_the_overall_statistic_and_the_pairs():
    r = HStatistic(np.array([[0.1, 0.6, 0.3]]), np.array([[1.0, 6.0, 3.0]]),
                   np.full((1, 3, 3), np.nan), np.full((1, 3, 3), np.nan), np.array([2.0]),
                   [(0, 1), (1, 2)], ["a", "b", "c"], ["y"])
    r.pairwise_h2[0, 0, 1] = r.pairwise_h2[0, 1, 0] = 0.05
    r.pairwise_h2[0, 1, 2] = r.pairwise_h2[0, 2, 1] = 0.4
    doc = parse(r._repr_html_())
    assert doc.column(0) == ["b", "c", "a"] and doc.column(0, 2) == ["0.6", "0.3", "0.1"]
    assert doc.column(1) == ["b x c", "a x b"] and doc.column(1, 2) == ["0.4", "0.05"]


def test_time_series_show_the_last_snapshot_ranked_with_its_band():
    times = np.array([100, 200, 300])
    values = np.array([[0.1, 0.5], [0.2, 0.4], [0.9, 0.3]])
    ts = ImportanceTimeSeries(times, values, np.full((3, 2), 0.04), ["a", "b"],
                              {"aggregation": "ema", "alpha": 0.01})
    doc = parse(ts._repr_html_())
    assert doc.column(0) == ["a", "b"] and doc.column(0, 2) == ["0.9", "0.3"]
    half = np.sqrt(0.04 * 0.01 / 1.99 / 0.05)  # the trace plot's band (Chebyshev, delta 0.05)
    assert doc.column(0, 3)[0] == f"[{num(0.9 - half)}, {num(0.9 + half)}]"
    assert len(doc.polylines()) == 2


def test_interaction_time_series_show_main_terms_and_pairs():
    ts = InteractionTimeSeries(np.array([10, 20]), np.array([[0.0, 1.0, 0.5], [0.2, 1.0, -0.7]]),
                               np.zeros((2, 3)), ["a", "b"], "k-SII")
    doc = parse(ts._repr_html_())
    assert doc.column(0) == ["b", "a"] and doc.column(1) == ["a x b"]
    assert doc.column(1, 2) == ["-0.7"]


def test_explainer_shows_its_current_ranking_with_its_confidence_bound():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = 3 * X[:, 0] - X[:, 1]
    e = IncrementalPFI(lambda A: 3 * A[:, 0] - A[:, 1], "squared_error", alpha=0.05,
                       random_state=0, history_every=50)
    e.explain_many(X, y)
    doc = parse(e._repr_html_())
    order = np.argsort(-e.importances_)
    assert doc.column(0) == [e.feature_names_[j] for j in order] == ["x0", "x1", "x2"]
    assert doc.column(0, 2) == [num(e.importances_[j]) for j in order]
    eps = e.confidence_bound(0.05)
    assert doc.column(0, 3) == [f"[{num(e.importances_[j] - eps[j])}, "
                                f"{num(e.importances_[j] + eps[j])}]" for j in order]
    assert len(doc.polylines()) == 3  # a trace per feature, from history_


def test_interaction_explainer_shows_main_terms_and_pairs():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] * X[:, 1]
    e = IncrementalShapleyInteractions(lambda A: A[:, 0] * A[:, 1], loss="squared_error",
                                       alpha=0.1, random_state=0, history_every=20)
    e.explain_many(X, y)
    doc = parse(e._repr_html_())
    main, pairs = doc.tables
    assert sorted(doc.column(0)) == ["x0", "x1", "x2"]
    assert doc.column(0) == [e.players_[j] for j in np.argsort(-e.main_values_, kind="stable")]
    ii, jj = np.triu_indices(3, 1)
    strongest = int(np.argmax(np.abs(e.pair_values_[ii, jj])))
    assert doc.column(1)[0] == f"x{ii[strongest]} x x{jj[strongest]}"


EVIL = "<script>alert(1)</script>"


@pytest.mark.parametrize("make", [
    lambda: _importance([EVIL, "b"], [1.0, 2.0]),
    lambda: ImportanceTimeSeries(np.array([1, 2]), np.ones((2, 2)), np.zeros((2, 2)),
                                 [EVIL, "b"]),
    lambda: ShapleyInteractions.from_vector(np.ones(3), np.zeros(3), [EVIL, "b"], "k-SII"),
    lambda: InteractionTimeSeries(np.array([1]), np.ones((1, 3)), np.zeros((1, 3)), [EVIL, "b"],
                                  "SII"),
    lambda: HStatistic(np.ones((1, 2)), np.ones((1, 2)), np.ones((1, 2, 2)), np.ones((1, 2, 2)),
                       np.ones(1), [(0, 1)], [EVIL, "b"], [EVIL]),
], ids=["importance", "importance series", "interactions", "interaction series", "hstatistic"])
def test_a_feature_named_script_is_escaped(make):
    page = make()._repr_html_()
    assert "<script" not in page.lower() and "&lt;script&gt;" in page
    assert EVIL in "".join(parse(page).text)  # shown as text


def _evil_explainer():
    rng = np.random.default_rng(4)
    e = IncrementalPFI(lambda A: A[:, 0], "squared_error", feature_names=[EVIL, "b"],
                       random_state=0, history_every=10)
    e.explain_many(rng.normal(size=(50, 2)), rng.normal(size=50))
    return e


def _evil_detector():
    from ixplain.drift import ExplanationDriftDetector

    v = np.random.default_rng(5).normal(0, 0.05, (3000, 2))
    v[1500:, 0] += 1.0
    return ExplanationDriftDetector().update_values(v, feature_names=[EVIL, "b"])


def _evil_curves():
    import pandas as pd

    from ixplain import partial_dependence

    df = pd.DataFrame({EVIL: [EVIL, "a", "b"] * 5, "v": np.arange(15.0)})
    return partial_dependence(lambda D: (D[EVIL] == "a").to_numpy() * 1.0, df, EVIL)


@pytest.mark.parametrize("make", [
    _evil_explainer, _evil_detector, lambda: _evil_detector().explain_change(0), _evil_curves,
], ids=["explainer", "detector", "drift explanation", "categorical pd"])
def test_a_feature_named_script_is_escaped_in_stream_objects_and_curves(make):
    page = make()._repr_html_()
    assert "<script" not in page.lower() and "&lt;script&gt;" in page
    assert "no summary" not in page


def test_settings_from_user_data_are_escaped():
    r = FeatureImportance.from_importances(np.ones((1, 1)), ["a"], {"loss": EVIL})
    page = r._repr_html_()
    assert "<script" not in page and "&lt;script&gt;" in page


def test_no_script_handlers_or_remote_references_in_any_summary():
    rng = np.random.default_rng(2)
    e = IncrementalPFI(lambda A: A[:, 0], "squared_error", alpha=0.1, random_state=0,
                       history_every=10)
    e.explain_many(rng.normal(size=(100, 2)), rng.normal(size=100))
    for page in (e._repr_html_(), _importance(["a", "b"], [1, 2])._repr_html_()):
        low = page.lower()
        assert "<script" not in low and " on" not in re.sub(r">[^<]*<", "><", low)
        assert "http" not in low and "url(" not in low and "href" not in low


def test_twenty_features_with_long_traces_stay_under_30_kb():
    rng = np.random.default_rng(3)
    names = [f"feature_{j:02d}" for j in range(20)]
    n = 1000
    ts = ImportanceTimeSeries(np.arange(1, n + 1) * 100, rng.normal(size=(n, 20)).cumsum(axis=0),
                              rng.uniform(size=(n, 20)), names,
                              {"aggregation": "ema", "alpha": 0.001})
    page = ts._repr_html_()
    assert len(page.encode()) < 30_000
    assert len(parse(page).column(0)) == 20
    n_pairs = 20 * 19 // 2  # and 20 main terms with 190 pairs: the 10 strongest pairs shown
    its = InteractionTimeSeries(np.arange(1, n + 1), rng.normal(size=(n, 20 + n_pairs)),
                                rng.uniform(size=(n, 20 + n_pairs)), names, "k-SII",
                                {"aggregation": "ema", "alpha": 0.001})
    page = its._repr_html_()
    assert len(page.encode()) < 30_000
    assert [len(t) - 1 for t in parse(page).tables] == [20, 10]
    e = IncrementalPFI(lambda A: A @ np.arange(20.0), "squared_error", alpha=0.01,
                       random_state=0, history_every=1)
    X = rng.normal(size=(1200, 20))
    e.explain_many(X, X @ np.arange(20.0))
    assert len(e.history_) == 1000
    page = e._repr_html_()
    assert len(page.encode()) < 30_000 and len(parse(page).polylines()) == 20


def test_more_rows_than_shown_are_counted():
    r = _importance([f"f{j}" for j in range(25)], list(range(25)))
    doc = parse(r._repr_html_())
    assert doc.column(0)[:2] == ["f24", "f23"] and len(doc.column(0)) == 20
    assert "... and 5 more rows (to_frame())." in "".join(doc.text)


def test_render_names_every_view():
    with pytest.raises(KeyError):
        render("no such view", object())
