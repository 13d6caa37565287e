"""ixai's examples pass ``n_inner_samples`` of 1 or 5 and the shim forwards it as iSAGE's
``n_samples``. With a log loss on a River Hoeffding tree whose probabilities reach 0 that
gave values summing to half the explained loss (5 draws), a negative marginal loss (2) or 18
times the value (1), silently. The shim now raises the count to 32 with iSAGE's warning, and
the values sum to the explained loss of the static ``sage`` on the same rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("river")
from river import metrics, tree

import ixplain
from ixplain.compat import ixai as compat

NAMES = ["x0", "x1", "x2", "x3"]


def _stream(n=1600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.5, 0.5])  # 3 classes: pure leaves, p = 0
    return X, y


@pytest.mark.parametrize("n_inner_samples", [1, 5])
def test_few_inner_draws_with_a_log_loss_are_raised_and_sum_to_the_explained_loss(
        n_inner_samples):
    X, y = _stream()
    model = tree.HoeffdingTreeClassifier(grace_period=50, leaf_prediction="mc")
    for row, label in zip(X[:1000], y[:1000]):
        model.learn_one(dict(zip(NAMES, row)), int(label))
    Xt, yt = X[1000:], y[1000:]
    with pytest.warns(UserWarning, match=rf"n_samples={n_inner_samples} raised to 32 for the "
                                         "log loss"):
        sage = compat.IncrementalSage(model.predict_proba_one, metrics.CrossEntropy(), NAMES,
                                      n_inner_samples=n_inner_samples, dynamic_setting=False,
                                      storage=compat.UniformReservoirStorage(600),
                                      random_state=0)
    assert sage.n_samples_ == 32
    for row, label in zip(Xt, yt):
        sage.explain_one(dict(zip(NAMES, row)), int(label))
    static = ixplain.sage(model, pd.DataFrame(Xt, columns=NAMES), yt, loss="log_loss",
                          n_samples=None, random_state=0)
    explained = float(np.sum(static.importances_mean))
    assert sage.marginal_loss > sage.model_loss
    total = sum(sage.importance_values.values())
    assert abs(total - explained) <= 0.1 * explained
