"""The first screen's curve sentence: when no curve changed detectably (every sup-t p-value at
least 5 %) it says so instead of reporting the largest estimate as a change; when one did, it
names the largest significant change."""

import numpy as np
from sklearn.linear_model import Ridge

from ixplain import compare
from ixplain.change._payload import curve_sentence

rng = np.random.default_rng(0)
X = rng.normal(size=(300, 3))
y = 2 * X[:, 0] + X[:, 1]
model = Ridge().fit(X, y)


def test_same_model_on_the_same_table_says_no_curve_changed():
    X2 = X.copy()
    res = compare(model, X, y, X_b=X2, y_b=y, methods=("pd",), random_state=0)
    curves = list(res.curves["pd"].values())
    assert all(c.p_value >= 0.05 for c in curves)
    sentence = curve_sentence(curves)
    assert sentence == "No PD curve changed detectably (sup-t test, level 5 %)."
    assert not any("Largest effect change" in s for s in res.to_payload()["summary"])


def test_a_changed_curve_is_named():
    other = Ridge().fit(X, 2 * X[:, 0] + 3 * X[:, 2])
    res = compare(model, X, y, model_b=other, methods=("pd",), random_state=0)
    sentence = curve_sentence(sorted(res.curves["pd"].values(), key=lambda c: -c.max_abs_delta))
    assert sentence.startswith("Largest effect change: x2's PD curve moved by up to")
