"""The stream CLI's online scaling cannot explode on a feature that was constant so far.

Issue 29 item 7: ``year`` in the bike stream is 2011 for 8,645 rows; a running standard
scaler (River's ``StandardScaler``, and ours before the guard) maps the first 2012 row to about
``sqrt(8645) = 93`` standard deviations, and the Hoeffding tree's leaf models blew up (errors
of 2,648 on a target whose maximum is 977), which the explainers then reported as a dip of
iPFI(workingday)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ixplain.cli._models import OnlinePreprocessor, make_river_model


@pytest.mark.parametrize("n_constant", [10, 1000, 8645])
def test_a_constant_then_step_feature_gives_bounded_scaled_values(n_constant):
    from river.preprocessing import StandardScaler

    ours, river_scaler = OnlinePreprocessor(["a"], []), StandardScaler()
    values = [2011.0] * n_constant + [2012.0] * 5
    for i, v in enumerate(values):
        ours.learn_one({"a": v})
        river_scaler.learn_one({"a": v})
        seen = values[: i + 1]
        z = [ours.transform_one({"a": s})["a"] for s in seen]
        assert max(abs(t) for t in z) <= ours.z_bound + 1e-12, (i, z)
    # the unguarded running scaler is what exploded: about sqrt(n) at the first new value
    river_scaler = StandardScaler()
    for v in values[: n_constant + 1]:
        river_scaler.learn_one({"a": v})
    assert river_scaler.transform_one({"a": 2012.0})["a"] == pytest.approx(
        math.sqrt(n_constant), rel=0.01
    )


def test_the_scaled_step_keeps_its_order_and_its_distance_in_range_units():
    """Within the observed range the map is affine: the step lands z_bound * (1 - p) above the
    constant's level, p = share of new rows (mean = old + p, scale = range / z_bound)."""
    p = OnlinePreprocessor(["a"], [], z_bound=4.0)
    for v in [0.0] * 99 + [1.0]:
        p.learn_one({"a": v})
    low, high = p.transform_one({"a": 0.0})["a"], p.transform_one({"a": 1.0})["a"]
    assert low == pytest.approx(-4.0 * 0.01)
    assert high == pytest.approx(4.0 * 0.99)
    assert p.transform_one({"a": 0.5})["a"] == pytest.approx((low + high) / 2)


def test_a_well_spread_feature_is_scaled_exactly_as_rivers_standard_scaler():
    """A uniform feature: range / sd is at most sqrt(12) = 3.46 < 5, so the floor stays off."""
    from river.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    ours, theirs = OnlinePreprocessor(["a"], []), StandardScaler()
    for v in rng.uniform(-1.0, 7.0, size=500):
        ours.learn_one({"a": float(v)})
        theirs.learn_one({"a": float(v)})
    for v in (-0.5, 3.0, 6.9):
        assert ours.transform_one({"a": v})["a"] == pytest.approx(theirs.transform_one({"a": v})["a"])


def test_values_outside_the_observed_range_are_clipped_to_the_bound():
    p = OnlinePreprocessor(["a"], [])
    for v in np.linspace(-1.0, 1.0, 101):
        p.learn_one({"a": float(v)})
    assert p.transform_one({"a": 1e9})["a"] == p.z_bound
    assert p.transform_one({"a": -math.inf})["a"] == -p.z_bound
    p.learn_one({"a": math.inf})  # not counted: the statistics stay finite
    assert p.transform_one({"a": 0.0})["a"] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, "5", True])
def test_a_bad_z_bound_is_refused_by_name(bad):
    with pytest.raises(ValueError, match=r"'z_bound' parameter of OnlinePreprocessor.*Got"):
        OnlinePreprocessor(["a"], [], z_bound=bad)


def test_the_bike_models_error_after_the_year_change_stays_within_the_targets_range():
    """End to end on the bundled data: rows 4,646-9,145 (4,000 rows of 2011, then 500 of 2012),
    the CLI's default model, prequential (predict, then learn). An error larger than the target's
    range means the model predicts outside anything it has seen; before the guard this slice
    reached 1,741 on a target whose range in the slice is 650 (2,648 from row 1; range 976)."""
    from ixplain.cli._data import split_kinds
    from ixplain.datasets import load_bike_sharing

    X, y = load_bike_sharing(return_X_y=True)
    X, y = X.iloc[4645:9145], y.iloc[4645:9145].to_numpy(dtype=float)
    assert (X["year"].iloc[:4000] == X["year"].iloc[0]).all() and X["year"].iloc[4000] != X["year"].iloc[0]
    numeric, categorical = split_kinds(X, list(X.columns))
    model = make_river_model("hoeffding-tree", "regression", numeric, categorical, seed=0)
    errors = []
    for x, target in zip(X.to_dict("records"), y):
        errors.append(abs(model.predict_one(x) - target))
        model.learn_one(x, target)
    after = np.asarray(errors[4000:])
    target_range = y.max() - y.min()
    assert after.max() < target_range, (after.max(), target_range)
    assert after.mean() < np.mean(errors[3500:4000]) * 1.5
