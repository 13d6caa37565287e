"""The results' plain ``repr`` says what they hold in one line (not their arrays), and the
hand-written reprs that existed are unchanged."""

from __future__ import annotations

import numpy as np

from ixplain import accumulated_local_effects, partial_dependence
from ixplain.drift import ExplanationDriftDetector
from ixplain.results import (
    FeatureImportance,
    ImportanceTimeSeries,
    InteractionTimeSeries,
    ShapleyInteractions,
)


def test_time_series_reprs_name_snapshots_rows_and_last_values():
    ts = ImportanceTimeSeries(np.array([10, 20]), np.array([[0.1, 0.0], [0.25, -1.0]]),
                              np.zeros((2, 2)), ["a", "b"])
    assert repr(ts) == "ImportanceTimeSeries(2 snapshots, rows 10..20; last: a=0.25, b=-1)"
    empty = ImportanceTimeSeries(np.zeros(0, dtype=int), np.zeros((0, 1)), np.zeros((0, 1)),
                                 ["a"])
    assert repr(empty) == "ImportanceTimeSeries(no snapshots, 1 features)"
    its = InteractionTimeSeries(np.array([10, 20]), np.zeros((2, 6)), np.zeros((2, 6)),
                                ["a", "b", "c"], "k-SII")
    assert repr(its) == ("InteractionTimeSeries(index='k-SII', 2 snapshots, rows 10..20, "
                         "3 features, 3 pairs)")


def test_curve_reprs_name_features_grid_and_rows_without_arrays():
    X = np.c_[np.linspace(0, 1, 40), np.linspace(1, 2, 40)]
    pd_ = partial_dependence(lambda A: A[:, 0], X, "x0", grid_resolution=7, kind="both")
    assert repr(pd_) == ("PartialDependence(features=('x0',), kind='both', method='brute', "
                         "grid 7, 1 output(s), 40 rows)")
    ale = accumulated_local_effects(lambda A: A[:, 0] * A[:, 1], X, ["x0", "x1"],
                                    grid_resolution=4)
    assert repr(ale).startswith("AccumulatedLocalEffects(features=('x0', 'x1'), grid ")
    assert "array" not in repr(ale) and len(repr(ale)) < 120


def test_drift_explanation_repr_names_the_event_and_the_largest_change():
    v = np.zeros((3000, 2)) + np.random.default_rng(1).normal(0, 0.05, (3000, 2))
    v[1500:, 0] += 1.0
    change = ExplanationDriftDetector().update_values(v, feature_names=["a", "b"]).explain_change(0)
    text = repr(change)
    assert text.startswith("DriftExplanation(values event on 'a' at row ")
    assert f"largest change: a {change.before[0]:.4g} -> {change.after[0]:.4g})" in text


def test_existing_reprs_are_unchanged():
    r = FeatureImportance.from_importances(np.array([[2.0], [0.0]]), ["a", "b"])
    assert repr(r) == "FeatureImportance(a=2, b=0)"
    s = ShapleyInteractions(np.zeros(2), np.zeros(2), np.array([[0.0, 2.0], [2.0, 0.0]]),
                            np.zeros((2, 2)), ["a", "b"], "k-SII")
    assert repr(s) == "ShapleyInteractions(index='k-SII', top pairs: axb=2)"
