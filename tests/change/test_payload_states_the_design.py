"""The compare report's subtitle and notes state the design the intervals were computed with:
paired for two models on the same rows, independent (Welch) for two tables."""

import numpy as np
from sklearn.linear_model import Ridge

from ixplain.change import compare

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
y = 2 * X[:, 0] + X[:, 1]
model = Ridge().fit(X, y)


def test_two_tables_are_described_as_independent_welch():
    X2 = rng.normal(size=(150, 3))
    res = compare(model, X, y, X_b=X2, y_b=2 * X2[:, 0] + X2[:, 1], random_state=0)
    assert res.importance["pfi"].design == "independent"
    p = res.to_payload()
    assert "independent (Welch)" in p["subtitle"] and "paired" not in p["subtitle"]
    assert not any("paired" in n and "are paired" in n for n in p["notes"])
    assert any("Welch" in n and "independent" in n for n in p["notes"])


def test_two_models_on_the_same_rows_are_described_as_paired():
    res = compare(model, X, y, model_b=Ridge().fit(X, X[:, 2]), random_state=0)
    p = res.to_payload()
    assert "with paired 95 % intervals" in p["subtitle"] or "with paired" in p["subtitle"]
    assert any(n.startswith("Intervals of a change are paired") for n in p["notes"])
