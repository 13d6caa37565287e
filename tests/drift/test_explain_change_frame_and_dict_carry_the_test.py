"""DriftExplanation's ``to_frame()`` keeps its columns and adds the test's (delta, lower,
upper, p_value, p_adjusted, significant); ``to_dict()`` is plain JSON with the design, the
procedure and the level; a result built without per-row values (or unpickled from before the
test) has ``delta = change`` and NaN statistics, nothing significant."""

from __future__ import annotations

import json
import pickle

import numpy as np

from ixplain.drift import ExplanationDriftDetector
from ixplain.results import DriftExplanation

OLD_COLUMNS = ["feature", "before", "before_low", "before_high", "after", "after_low",
               "after_high", "change"]
TEST_COLUMNS = ["delta", "lower", "upper", "p_value", "p_adjusted", "significant"]


def _change():
    v = np.random.default_rng(2).normal(0.0, 1.0, (3000, 2))
    v[1500:, 0] += 1.0
    det = ExplanationDriftDetector(random_state=0).update_values(v, feature_names=["a", "b"])
    return det.explain_change(0)


def test_frame_keeps_the_old_columns_then_the_test():
    c = _change()
    frame = c.to_frame()
    assert list(frame.columns) == OLD_COLUMNS + TEST_COLUMNS
    for name in TEST_COLUMNS:
        np.testing.assert_array_equal(frame[name].to_numpy(), getattr(c, name))
    assert frame["significant"].dtype == bool


def test_dict_is_plain_json_with_the_design_and_procedure():
    c = _change()
    d = json.loads(json.dumps(c.to_dict()))
    assert (d["design"], d["procedure"], d["level"], d["confidence"]) == (
        "independent", "holm", 0.05, 0.95)
    assert [f["significant"] for f in d["features"]] == c.significant.tolist()
    assert [f["p_adjusted"] for f in d["features"]] == c.p_adjusted.tolist()


def test_without_per_row_values_the_statistics_are_nan():
    c = _change()
    bare = DriftExplanation(c.feature_names, c.before, c.before_se, c.after, c.after_se,
                            c.event, c.before_rows, c.after_rows)
    np.testing.assert_array_equal(bare.delta, bare.change)
    assert np.isnan(bare.p_value).all() and np.isnan(bare.lower).all()
    assert bare.design is None and not bare.significant.any()
    old = pickle.loads(pickle.dumps(c))
    for name in ("delta", "std_error", "lower", "upper", "p_value", "design"):
        del old.__dict__[name]  # (as pickled before the test's fields)
    restored = pickle.loads(pickle.dumps(old))
    assert np.isnan(restored.p_value).all() and restored.to_frame().shape == (2, 14)
