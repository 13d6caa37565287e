"""Two models that use a feature alike differ, on that feature's per-row PFI values, only by
float rounding of their predictions (about 1e-16 of them). Their "change" is 0 and never
significant, whatever ``min_change``; a real change next to it is still found."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain import compare
from ixplain.change._stats import paired_change


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_feature_both_models_use_alike_is_unchanged_exactly(seed):
    X = np.random.default_rng(seed).normal(size=(200, 3))
    res = compare(lambda A: 2 * A[:, 0] + 0.3 * A[:, 2],
                  X, model_b=lambda A: 2 * A[:, 0] + A[:, 1] + 0.3 * A[:, 2],
                  label_free=True, random_state=seed)
    frame = res.to_frame().set_index("feature")
    assert frame.loc["x0", "delta"] == 0.0 and frame.loc["x2", "delta"] == 0.0
    assert not frame.loc["x0", "significant"] and not frame.loc["x2", "significant"]
    assert frame.loc["x1", "significant"]  # the real change: x1 enters model b


def test_differences_within_rounding_of_the_values_count_as_zero_and_larger_ones_do_not():
    """Closed form: values 1 +- 1e-15 differ by rounding (tolerance 1e-9 x mean |value| = 2e-9
    for the sides' mean absolute values 1 and 1), a shift of 1e-6 does not."""
    rng = np.random.default_rng(0)
    a = np.ones((50, 2))
    b = a.copy()
    b[:, 0] += rng.choice([-1e-15, 1e-15], size=50)
    b[:, 1] += 1e-6 + rng.normal(0, 1e-8, size=50)
    c = paired_change(a, b)
    assert c.delta[0] == 0.0 and c.p_value[0] == 1.0
    assert c.delta[1] == pytest.approx(1e-6, rel=1e-2) and c.p_value[1] < 1e-10
