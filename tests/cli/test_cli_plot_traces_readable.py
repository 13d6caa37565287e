"""``importance_traces.png`` reads true (issue 29 item 8): no feature is drawn in a marker's
colour, the legend lists features by final importance and never drops a strong feature for a
weaker one with an event, and the bands of many features do not cover the plot."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("matplotlib")

NAMES = ["season", "year", "month", "hour", "holiday", "weekday", "workingday", "weather",
         "temp", "feel_temp", "humidity", "windspeed"]
#: Final importances in the order of the bike demo's iPFI: hour, humidity, workingday, temp,
#: weather, feel_temp, ... month last (negative).
FINAL = np.array([188.0, -2.0, -50.0, 32995.0, 19.0, 94.0, 1792.0, 1208.0, 1719.0, 435.0,
                  1898.0, 103.0])


def _capture(monkeypatch):
    from matplotlib.figure import Figure

    figures = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: figures.append(fig))
    return figures


def _trace(final=FINAL, bound_scale=0.05, n=60):
    rows = np.arange(1, n + 1) * 100
    ramp = np.linspace(0.2, 1.0, n)[:, None]
    values = ramp * final[None, :]
    bounds = np.full_like(values, bound_scale) * np.abs(final).max()
    return SimpleNamespace(rows=list(rows), values=list(values), bounds=list(bounds))


def _incident(id_, row, features, kind="incident"):
    """A contract B incident dict moving ``features`` (top first)."""
    feats = [{"name": f, "before": 1.0, "after": 2.0, "change": 1.0, "before_lower": None,
              "before_upper": None, "after_lower": None, "after_upper": None, "named": True}
             for f in features]
    return {"id": id_, "kind": kind, "channel": "data", "start": row - 200, "detected": row,
            "end": row + 100, "headline": "", "features": feats, "events": [], "method": "pfi"}


def _draw(tmp_path, monkeypatch, trace, incidents=()):
    from ixplain.cli import _plots

    figures = _capture(monkeypatch)
    _plots.plot_importance_traces(tmp_path / "t.png", {"pfi": trace}, NAMES,
                                  known_drift=[3000], detected_drift=[3500, 4200],
                                  incidents={"pfi": list(incidents)})
    return figures[0].axes[0]


def _feature_lines(ax):
    return [ln for ln in ax.get_lines() if ln.get_label() in NAMES]


def _distance(a, b):
    from matplotlib.colors import to_rgb

    return float(np.linalg.norm(np.subtract(to_rgb(a), to_rgb(b))))


@pytest.mark.parametrize("n_features", [1, 5, 8, 9, 12, 16, 17, 40])
def test_feature_colours_stay_away_from_the_marker_colours(n_features):
    from matplotlib.colors import to_hex, to_rgb

    from ixplain.cli._plots import MARKER_COLORS, feature_colors

    colours = feature_colors(n_features)
    assert len(colours) == n_features
    for c in colours:
        assert np.ptp(to_rgb(c)) >= 0.1, c  # not a grey like the detected-change lines
        for marker in MARKER_COLORS.values():
            assert _distance(c, marker) >= 0.3, (c, marker)
    # distinct within a run while the palette lasts (13 colours of tab20 remain)
    assert len({to_hex(c) for c in colours}) == min(n_features, 13)


def test_every_marker_colour_of_the_stream_figures_is_kept_from_the_features():
    """The marks of drift_events.png and importance_traces.png (incident red, model update
    light blue, known change dark grey, ADWIN grey) are all in MARKER_COLORS, the colours
    :func:`feature_colors` stays away from."""
    from matplotlib.colors import to_hex

    from ixplain.cli import _drift, _plots
    from ixplain.drift import Incident, IncidentFeature

    kept = {to_hex(c) for c in _plots.MARKER_COLORS.values()}
    assert {"#d62728", "#9ecae1", to_hex("0.15")} <= kept
    feature = (IncidentFeature("temp", 1.0, 2.0, 1.0),)
    incidents = [Incident(1, "incident", "data", 100, 200, 300, "", feature, (0,)),
                 Incident(2, "model_update", "model", 400, 500, 500, "", feature, (1,))]
    fig, axes = _plots._figure(1)
    ax = axes[0]
    _drift._mark_incidents(ax, incidents)
    _drift._change_lines(ax, [150], [250])
    drawn = {to_hex(ln.get_color()) for ln in ax.get_lines()}
    drawn |= {to_hex(p.get_facecolor()) for p in ax.patches}
    drawn |= {to_hex(t.get_color()) for t in ax.texts}
    assert len(drawn) == 4
    assert drawn <= kept


def test_no_trace_is_drawn_in_the_colour_of_a_change_marker(tmp_path, monkeypatch):
    ax = _draw(tmp_path, monkeypatch, _trace())
    markers = [ln for ln in ax.get_lines() if ln.get_linestyle() in ("--", ":")]
    assert {ln.get_label() for ln in markers} >= {"known change point", "detected change (ADWIN)"}
    lines = _feature_lines(ax)
    assert len(lines) >= 6
    for line in lines:
        for marker in markers:
            assert _distance(line.get_color(), marker.get_color()) >= 0.3, line.get_label()


def test_the_legend_lists_features_by_final_importance_and_keeps_the_strong_ones(
    tmp_path, monkeypatch
):
    """The demo's case: events on weak features (month, holiday, year) used to push the 5th
    strongest (weather) out of the legend; now incidents moving them must not either."""
    incidents = [_incident(1, 2500, ["month", "holiday"]), _incident(2, 4500, ["year", "month"])]
    ax = _draw(tmp_path, monkeypatch, _trace(), incidents)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    features = [name for name in legend if name in NAMES]
    by_importance = [NAMES[j] for j in np.argsort(-FINAL, kind="stable")]
    assert features[:6] == by_importance[:6]  # the six strongest, strongest first
    assert "weather" in features
    # two weaker features with an event are added, in their order of importance
    assert features[6:] == [n for n in by_importance[6:] if n in {"month", "holiday", "year"}][:2]
    values = [FINAL[NAMES.index(n)] for n in features]
    assert values == sorted(values, reverse=True)


def test_a_shown_feature_is_never_weaker_than_a_hidden_one_unless_it_has_an_event():
    """Brute-force check of the selection rule on random importances and events."""
    from ixplain.cli._plots import shown_features

    rng = np.random.default_rng(0)
    names = [f"x{i}" for i in range(12)]
    for _ in range(200):
        values = rng.normal(size=12)
        fired = set(rng.choice(names, size=rng.integers(0, 6), replace=False))
        # names (an incident's features) or objects with a feature (drift events)
        events = list(fired) if rng.random() < 0.5 else [SimpleNamespace(feature=f)
                                                          for f in fired]
        n_top, k = int(rng.integers(1, 8)), int(rng.integers(1, 10))
        shown = shown_features(values, events, names, k=k, n_top=n_top)
        assert [values[j] for j in shown] == sorted((values[j] for j in shown), reverse=True)
        top = set(np.argsort(-values)[:n_top])
        assert top <= set(shown)
        fired_below = [f for f in fired if names.index(f) not in top]
        assert len(shown) == n_top + min(max(k - n_top, 0), len(fired_below))
        hidden = [j for j in range(12) if j not in shown]
        for i in shown:
            if names[i] not in fired:
                assert all(values[i] >= values[j] for j in hidden)


def test_only_the_strongest_features_get_a_band(tmp_path, monkeypatch):
    from matplotlib.collections import PolyCollection

    ax = _draw(tmp_path, monkeypatch, _trace(bound_scale=0.01))
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 3
    top3 = [NAMES[j] for j in np.argsort(-FINAL)[:3]]
    colours = {ln.get_label(): ln.get_color() for ln in _feature_lines(ax)}
    for band, name in zip(bands, top3):
        assert _distance(band.get_facecolor()[0][:3], colours[name]) < 1e-6
        assert band.get_alpha() == pytest.approx(0.15)


def test_bands_wider_than_half_the_panel_are_drawn_lighter(tmp_path, monkeypatch):
    """The rainfall case: bounds as large as the importances themselves; the panel's limits
    still come from the lines."""
    from matplotlib.collections import PolyCollection

    ax = _draw(tmp_path, monkeypatch, _trace(bound_scale=2.0))
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 3
    assert all(b.get_alpha() == pytest.approx(0.06) for b in bands)
    lo, hi = ax.get_ylim()
    assert hi - lo < 1.5 * (FINAL.max() - min(0.2 * FINAL.min(), FINAL.min()))


def test_a_band_is_light_where_it_is_wide_and_normal_where_it_narrows(tmp_path, monkeypatch):
    """Early in a stream the bounds are wide (few rows): that stretch is light, the rest not;
    still three features' bands only."""
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_hex

    trace = _trace()
    n = len(trace.rows)
    shrink = np.where(np.arange(n) < n // 4, 40.0, 1.0)[:, None]  # wide for the first quarter
    trace.bounds = list(np.vstack(trace.bounds) * shrink)
    ax = _draw(tmp_path, monkeypatch, trace)
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len({to_hex(b.get_facecolor()[0]) for b in bands}) == 3
    alphas = sorted(b.get_alpha() for b in bands)
    assert alphas == pytest.approx([0.06] * 3 + [0.15] * 3)
    for band in bands:  # the light stretch is the early one
        xs = np.concatenate([p.vertices[:, 0] for p in band.get_paths()])
        early = xs.max() <= trace.rows[n // 4] + 1e-9
        assert early == (band.get_alpha() == pytest.approx(0.06))
