"""Incidents, not alarms (issue 29, item 5): the detector's events grouped into one incident
per change, measured on the plotted (smoothed) importances, a learning model's scheduled
checks as model updates; checked on constructed event lists with closed-form traces and on a
synthetic stream with one known real drift."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest

from ixplain import ExplanationDriftDetector, IncrementalPFI
from ixplain.drift import DriftEvent, Incident, IncidentFeature
from ixplain.drift._incidents import (
    SmoothedTrace,
    _Scale,
    build_incidents,
    event_in_words,
    group_events,
    trigger_openers,
)

NAMES = ["a", "b", "c"]
LOSS_TEST = "CUSUM(loss, level=0.0001) + mixture sequence (level=0.01)"


def ev(row, start, feature="a", channel="data", test="CUSUM(level=0.0001)", before=0.0,
       after=1.0):
    """A DriftEvent with the fields the grouping reads (the others filler)."""
    return DriftEvent(row=row, start=start, feature=feature, channel=channel, test=test,
                      before=before, before_low=before - 0.1, before_high=before + 0.1,
                      after=after, after_low=after - 0.1, after_high=after + 0.1,
                      n_before=100, n_after=50,
                      direction="increase" if after > before else "decrease", statistic=5.0)


def loss(row, start, before=10.0, after=14.0, channel="data"):
    return ev(row, start, "loss", channel, "CUSUM(level=0.0001)", before, after)


def step_scale(steps, n=10_000, every=100, half=0.5):
    """A trace with a snapshot every ``every`` rows seen; feature j is ``base[j]`` and moves
    by ``delta`` from ``row`` rows seen on, for each ``(j, row, delta)`` in ``steps``."""
    rows = np.arange(every, n + 1, every)
    values = np.tile(np.array([10.0, 5.0, 1.0]), (len(rows), 1))
    for j, at, delta in steps:
        values[rows >= at, j] += delta
    return _Scale(NAMES, rows, values, values - half, values + half, [])


def build(events, losses=(), scale=None, **kw):
    opts = dict(horizon=2000, check_every=1000, min_change=0.1, static=False)
    opts.update(kw)
    return build_incidents(list(events), list(losses), scale or step_scale([]), **opts)


# ---------------------------------------------------------------------------- grouping
def test_a_loss_change_and_the_features_its_attribution_named_are_one_incident():
    events = [ev(1250, 1000, "a", test=LOSS_TEST), ev(1300, 1000, "b", test=LOSS_TEST)]
    groups = group_events(events, [loss(1200, 1000)], horizon=2000, check_every=1000)
    assert len(groups) == 1
    g = groups[0]
    assert (g.start, g.detected, sorted(g.events)) == (1000, 1200, [0, 1])


def test_a_later_loss_change_that_starts_within_the_horizon_is_the_same_change():
    groups = group_events([], [loss(1200, 1000), loss(2900, 1100, 14.0, 9.0),
                               loss(5000, 3001)], horizon=2000, check_every=1000)
    assert [(g.start, g.detected, len(g.losses)) for g in groups] == [
        (1000, 1200, 2), (3001, 5000, 1)]


def test_events_of_one_model_check_are_one_group_and_scheduled_checks_are_marked():
    events = [ev(2999, 2000, "a", "model", "paired z"), ev(2999, 2000, "b", "model", "paired z"),
              ev(3249, 3000, "a", "model", "paired z")]
    groups = group_events(events, [], horizon=2000, check_every=1000)
    assert [(g.detected, sorted(g.events), g.scheduled) for g in groups] == [
        (2999, [0, 1], True), (3249, [2], False)]


def test_a_channels_own_events_group_when_they_start_within_the_horizon():
    # starts 1000, 2500 (within 2000 of 1000) and 3500 (beyond): two groups; the values
    # channel's event at 1100 is another channel
    events = [ev(1100, 1000), ev(2600, 2500, "b"), ev(3600, 3500, "c"),
              ev(1200, 1100, "a", "values")]
    groups = group_events(events, [], horizon=2000, check_every=1000)
    assert [(g.channel, g.start, sorted(g.events)) for g in groups] == [
        ("data", 1000, [0, 1]), ("values", 1100, [3]), ("data", 3500, [2])]


def test_an_own_event_inside_a_loss_changes_window_joins_it():
    groups = group_events([ev(1500, 1400, "c")], [loss(1200, 1000)], horizon=2000,
                          check_every=1000)
    assert len(groups) == 1 and groups[0].events == [0] and groups[0].start == 1000


def test_the_features_an_external_trigger_named_are_one_incident_opened_by_it():
    # detector.trigger(1200) (or its error_detector) opened a window whose start estimate is
    # 1100; it named a and b; c's own test fired far later
    test = "external trigger at row 1200 + mixture sequence (level=0.01)"
    events = [ev(1230, 1100, "a", test=test), ev(1260, 1100, "b", test=test),
              ev(6000, 5900, "c")]
    openers = trigger_openers(events)
    assert [(o.row, o.start, o.feature, o.test) for o in openers] == [
        (1200, 1100, "loss", "external trigger at row 1200")]
    scale = step_scale([(0, 1150, 3.0), (1, 1150, -2.0), (2, 5950, 0.1)])
    (inc,) = build(events, openers, scale)
    assert (inc.start, inc.detected, inc.events) == (1101, 1201, (0, 1))
    assert inc.headline == ("the data changed: an external alarm at row 1201; a's importance "
                            "rose most (10.0 -> 13.0)")
    assert (inc.loss_before, inc.loss_after) == (None, None)
    assert event_in_words(events[0]).startswith("named after an external trigger")


# ---------------------------------------------------------------------------- measuring
def test_before_and_after_are_the_plotted_values_with_their_bounds():
    # feature b steps from 5 to 9 at 1,001 rows seen; the loss change starts at row 1000
    # (0-based: 1,001 rows seen); before is read at 1,000 rows seen, after at the farthest
    # snapshot from detection (the first at or after it) to start + horizon: all equal after
    # the step, so the first, 1,300 (detected at 1,201 rows seen)
    scale = step_scale([(1, 1001, 4.0)])
    incs = build([ev(1250, 1000, "b", test=LOSS_TEST, before=100.0, after=-50.0)],
                 [loss(1200, 1000)], scale)
    (inc,) = incs
    (f,) = inc.features
    assert (inc.start, inc.detected, inc.end) == (1001, 1201, 1300)
    assert (f.name, f.before, f.after, f.change, f.named) == ("b", 5.0, 9.0, 4.0, True)
    assert (f.before_lower, f.before_upper, f.after_lower, f.after_upper) == (4.5, 5.5, 8.5, 9.5)
    assert inc.scale == "smoothed"


def test_features_are_ranked_by_their_plotted_change_not_by_the_events_means():
    # the events' means rank a first (change 100 vs 1); the plot moves c most (+8) then a (+2)
    scale = step_scale([(0, 1500, 2.0), (2, 1500, 8.0)])
    events = [ev(1250, 1000, "a", test=LOSS_TEST, after=100.0),
              ev(1260, 1000, "c", test=LOSS_TEST, after=1.0)]
    (inc,) = build(events, [loss(1200, 1000)], scale)
    assert [(f.name, f.change) for f in inc.features] == [("c", 8.0), ("a", 2.0)]
    assert "c's importance rose most (1.00 -> 9.00)" in inc.headline


def test_a_feature_the_events_did_not_name_is_listed_when_the_plot_moves_it():
    scale = step_scale([(0, 1500, -6.0)])  # a: 10 -> 4, 6 >= 0.1 * 16
    (inc,) = build([ev(1250, 1000, "b", test=LOSS_TEST)], [loss(1200, 1000)], scale)
    assert [(f.name, f.named) for f in inc.features] == [("a", False), ("b", True)]


def test_after_is_read_where_the_plot_moved_most_a_transient_dip_included():
    # a dips by -12 from 1,500 to 1,800 rows seen, then returns
    scale = step_scale([(0, 1500, -12.0), (0, 1800, 12.0)])
    (inc,) = build([], [loss(1200, 1000)], scale)
    assert inc.end == 1500 and inc.features[0].after == -2.0


def test_after_is_never_read_before_detection_while_the_trace_goes_on():
    # snapshots at 5, 15, ..., 1995, 2005, ...: a model check found a's move at 2,000 rows
    # seen (0-based row 1999), between two snapshots; a steps +5 from 1,500 rows seen and
    # +3 more from 2,003 (the snapshot before detection does not show it)
    rows = np.arange(5, 5000, 10)
    values = np.tile(np.array([10.0, 5.0, 1.0]), (len(rows), 1))
    values[rows >= 1500, 0] += 5.0
    values[rows >= 2003, 0] += 3.0
    values[rows >= 1100, 1] += 4.0  # and b steps +4 from 1,100
    scale = _Scale(NAMES, rows, values, values - 0.5, values + 0.5, [])
    (update,) = build([ev(1999, 1000, "a", "model", "paired z")], [], scale)
    assert (update.start, update.detected, update.end) == (1001, 2000, 2005)
    assert update.features[0].after == 18.0
    # a data change detected at 1,201 rows seen, no snapshot from there to the next change
    # (which starts at 1,203): the first snapshot after detection
    incs = build([ev(1200, 1000, "b"), ev(1250, 1202, "c")], [], scale, horizon=100,
                 min_change=0.0)
    assert [(i.detected, i.end, i.features[0].after) for i in incs][:1] == [(1201, 1205, 9.0)]
    # every incident of a trace that goes on reads after at or after its detection
    for inc in build([ev(r, r - 300, "a", "model", "paired z") for r in range(999, 4999, 1000)]
                     + [ev(1250, 1000, "b", test=LOSS_TEST)], [loss(1200, 1000)], scale,
                     min_change=0.0):
        assert inc.end >= inc.detected


def test_after_is_read_before_detection_only_when_the_trace_ends_before_it():
    scale = step_scale([(0, 500, 5.0)], n=1900)  # the last snapshot: 1,900 rows seen
    (update,) = build([ev(1999, 1000, "a", "model", "paired z")], [], scale)
    assert (update.detected, update.end) == (2000, 1900)


def test_after_is_read_before_the_next_change_of_the_data():
    # b's own test fired (start 1000); a loss change starts at 2500, inside its window
    scale = step_scale([(1, 1100, 3.0), (1, 2600, 50.0)])
    incs = build([ev(1250, 1000, "b")], [loss(2700, 2500)], scale)
    assert [i.start for i in incs] == [1001, 2501]
    assert incs[0].end <= 2501 and incs[0].features[0].after == 8.0


def test_a_group_no_plot_shows_is_left_out_unless_min_change_is_0():
    # c's own test fired; its plotted importance moves 1 -> 1.5: 0.5 < 0.1 * 16.5
    scale = step_scale([(2, 1500, 0.5)])
    events = [ev(1450, 1400, "c")]
    assert build(events, [], scale) == []
    (inc,) = build(events, [], scale, min_change=0.0)
    assert inc.headline.startswith("the data changed without moving the loss: c's")


def test_a_learning_models_scheduled_check_is_a_model_update_a_screened_one_an_incident():
    scale = step_scale([(0, 2500, 5.0), (1, 3200, 3.0)])
    events = [ev(2999, 2000, "a", "model", "paired z"), ev(3249, 3000, "b", "model", "paired z")]
    update, incident = build(events, [], scale)
    assert (update.kind, update.id, update.detected, update.end) == ("model_update", 2, 3000,
                                                                     3000)
    assert update.headline == "the model changed as it learned: a's importance rose (10.0 -> 15.0)"
    assert (incident.kind, incident.id) == ("incident", 1)
    assert incident.headline.startswith("the model changed (retrained or replaced): b's")
    assert [i for i in (update, incident) if i.kind == "incident"] == [incident]


# ---------------------------------------------------------------------------- words
@pytest.mark.parametrize(("before", "after", "static", "channel", "words"), [
    (10.0, 14.0, False, "data", "the data changed: the frozen model's loss rose 40 %"),
    (10.0, 14.0, True, "data", "the data changed: the model's loss rose 40 %"),
    (10.0, 53.0, False, "data", "the data changed: the frozen model's loss rose 5.3-fold"),
    (10.0, 2.0, False, "data", "the data changed: the frozen model's loss fell 80 %"),
    (10.0, 14.0, False, "values", "the values changed: the loss rose 40 %"),
])
def test_the_headline_says_the_channel_and_the_loss_change_in_words(before, after, static,
                                                                     channel, words):
    (inc,) = build([], [loss(1200, 1000, before, after, channel)], static=static,
                   min_change=0.0)
    assert inc.headline.startswith(words + "; ")


def test_event_in_words_reads_each_test_and_keeps_the_technical_name_in_the_event():
    cases = {
        ev(10, 5, test=LOSS_TEST): "named after the frozen model's loss changed",
        ev(10, 5, test="CUSUM(loss, level=0.1) + z-test at the alarm row (fixed n, level=0.1)"):
            "named when the frozen model's loss changed",
        ev(10, 5, channel="model", test="paired z (level=0.1, min_change=0.1)"):
            "a check of the current model on the reference rows",
        ev(10, 5, test="CUSUM(level=0.0001)"): "its own values moved (CUSUM change test)",
        ev(10, 5, test="ADWIN(delta=0.001)"): "its own values moved (ADWIN change test)",
    }
    for event, words in cases.items():
        assert event_in_words(event).startswith(words)
        assert event.test and "(" in event.test


# ---------------------------------------------------------------------------- the record
def test_the_smoothed_record_stays_bounded_and_evenly_thinned():
    t = SmoothedTrace(2, capacity=64)
    for r in range(1, 10_001):
        t.add(r * 10, np.array([r, -r]), np.array([1.0, 2.0]))
    rows = t.rows
    assert len(rows) <= 65 and rows[-1] == 100_000
    gaps = np.diff(rows[:-1])
    assert (gaps == gaps[0]).all() and gaps[0] == 10 * t.stride
    assert np.array_equal(t.values[:, 0], rows / 10) and np.array_equal(t.upper[:, 1],
                                                                        -rows / 10 + 2)
    t.drop_after(5_000)
    assert t.rows[-1] <= 5_000


def test_a_part_taken_back_takes_its_snapshots_out_of_the_detectors_record():
    ipfi, det = _static_stream(0, n=1000)
    rows = det._smoothed.rows
    assert rows.tolist() == [n for n, _, _ in ipfi.history_]
    ipfi.n_seen_ = 700  # as after a part taken back (the explainer's count)
    det.on_failure(RuntimeError("taken back"))
    assert det._smoothed.rows.tolist() == [r for r in rows.tolist() if r <= 700]
    ipfi.n_seen_ = 1000


# ---------------------------------------------------------------------------- a stream
def _fixed_model(A):
    return 3 * A[:, 0] + A[:, 1]


def _static_stream(seed, n=6000, cut=3000):
    """y = 3 x0 + x1 + noise, then x1's coefficient becomes 4 at ``cut``; the model stays
    3 x0 + x1 (fixed): x1's PFI goes from 2 to 8 (2 var + 2 * 3 var), x0's stays 18."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = 3 * X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=n)
    y[cut:] += 3 * X[cut:, 1]
    ipfi = IncrementalPFI(_fixed_model, "squared_error", alpha=0.005,
                          random_state=seed, history_every=50)
    det = ExplanationDriftDetector(ipfi, static_model=True, random_state=seed)
    for s in range(0, n, 100):
        ipfi.explain_many(X[s:s + 100], y[s:s + 100])
    return ipfi, det


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_real_drift_gives_exactly_one_incident_naming_the_changed_feature(seed):
    ipfi, det = _static_stream(seed)
    incs = det.incidents()
    assert len([i for i in incs if i.kind == "incident"]) == 1
    (inc,) = incs
    top = inc.features[0]
    assert (top.name, top.named, top.change > 2.0) == ("x1", True, True)
    assert 2900 <= inc.start <= 3100 and inc.detected <= 3300
    assert inc.headline.startswith("the data changed: the model's loss rose")


def test_the_incidents_numbers_are_the_explainers_smoothed_estimate_and_bound():
    ipfi, det = _static_stream(0)
    (inc,) = det.incidents()
    history = {n: (est, var) for n, est, var in ipfi.history_}
    snaps = sorted(history)
    before_row = max(r for r in snaps if r <= inc.start - 1)
    j = ipfi.feature_names_.index("x1")
    top = inc.features[0]
    for row, value, upper in ((before_row, top.before, top.before_upper),
                              (inc.end, top.after, top.after_upper)):
        est, var = history[row]
        a = ipfi.alpha  # iPFI's bound (Theorem 2): (1 - a)^n + sqrt(var a / (2 - a) / 0.05)
        bound = (1 - a) ** (row - 1) + math.sqrt(var[j]) * math.sqrt(a / (2 - a) / 0.05)
        assert value == pytest.approx(est[j], rel=1e-12)
        assert upper - value == pytest.approx(bound, rel=1e-9)


def test_traces_given_by_the_caller_are_used_in_their_feature_order():
    ipfi, det = _static_stream(0)
    rows = np.array([n for n, _, _ in ipfi.history_])
    values = np.vstack([e for _, e, _ in ipfi.history_])
    order = [2, 0, 1]
    given = {"rows": rows, "values": values[:, order] * 2.0,
             "bounds": np.ones_like(values), "feature_names": [ipfi.feature_names_[i]
                                                               for i in order]}
    own, theirs = det.incidents()[0], det.incidents(given)[0]
    assert theirs.features[0].name == own.features[0].name == "x1"
    assert theirs.features[0].before == pytest.approx(2 * own.features[0].before)
    assert theirs.features[0].after_upper == pytest.approx(theirs.features[0].after + 1.0)
    with pytest.raises(ValueError, match="traces"):
        det.incidents({"rows": rows})
    with pytest.raises(ValueError, match="min_change"):
        det.incidents(min_change=-1.0)
    with pytest.raises(ValueError, match="horizon"):
        det.incidents(horizon=0)


def test_incidents_pickle_and_their_dicts_are_json():
    ipfi, det = _static_stream(1)
    (inc,) = det.incidents()
    d = inc.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text) == d
    assert set(d) >= {"id", "kind", "channel", "start", "detected", "end", "headline",
                      "features", "events"}
    assert set(d["features"][0]) >= {"name", "before", "after", "change", "before_lower",
                                     "before_upper", "after_lower", "after_upper"}
    assert pickle.loads(pickle.dumps(inc)) == inc
    again = pickle.loads(pickle.dumps(det))
    assert again.incidents() == det.incidents()
    assert isinstance(inc, Incident) and isinstance(inc.features[0], IncidentFeature)


def test_a_nan_bound_becomes_none_in_the_dict():
    f = IncidentFeature("a", 1.0, 2.0, 1.0, float("nan"), None, 0.5, float("inf"))
    assert f.to_dict()["before_lower"] is None and f.to_dict()["after_upper"] is None


def test_without_a_trace_the_numbers_are_the_events_means():
    rng = np.random.default_rng(0)
    v = rng.normal(0, 0.1, (4000, 2))
    v[2000:, 1] += 0.5
    det = ExplanationDriftDetector().update_values(v, feature_names=["a", "b"])
    (inc,) = det.incidents()
    change = det.explain_change(inc.events[0])
    b = inc.features[0]
    assert (inc.scale, inc.end, b.name) == ("event means", None, "b")
    assert (b.before, b.after) == (change.before[1], change.after[1])
