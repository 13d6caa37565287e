"""IncrementalShapleyInteractions: the static invariant, efficiency at every step, a drifting
interaction on River's FriedmanDrift, pickling, model calls and validation."""

import itertools
import pickle

import numpy as np
import pytest

from ixplain import (
    DatasetStorage,
    IncrementalShapleyInteractions,
    InteractionTimeSeries,
    ShapleyInteractions,
)


def product_plus(Z):
    return Z[:, 0] * Z[:, 1] + Z[:, 2]


BALANCED = np.array(list(itertools.product([-1.0, 1.0], repeat=3)) * 250)


def test_running_mean_with_the_dataset_as_storage_is_the_static_game():
    """aggregation='mean' and DatasetStorage(X): the estimate converges to the index of the
    static game on X, here the closed form of y = x0 x1 + x2 (see test_interactions.py):
    k-SII mains (0, 0, 1), pair (0, 1) = 1, other pairs 0; within 4 standard errors."""
    rng = np.random.default_rng(0)
    X = BALANCED[rng.permutation(len(BALANCED))]
    for method in ("exact", "permutation"):
        e = IncrementalShapleyInteractions(product_plus, loss="squared_error", method=method,
                                           aggregation="mean", storage=DatasetStorage(X),
                                           n_samples=4, random_state=1)
        e.explain_many(X, product_plus(X))
        res = e.to_result()
        truth = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
        se = e.standard_errors()
        assert np.all(np.abs(e.importances_ - truth) <= 4 * se + 1e-12), (method, e.importances_)
        assert res.top_pairs(1)[0][:2] == ("x0", "x1")
        assert e.main_values_.shape == (3,) and e.pair_values_.shape == (3, 3)


def test_efficiency_at_every_step():
    """k-SII main and pair terms of every observation sum to l(empty) - l(model), so the
    smoothed values sum to marginal_loss_ - model_loss_ after each update."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + rng.normal(scale=0.1, size=300)
    f = lambda Z: Z[:, 0] * Z[:, 1] + np.sin(Z[:, 2])  # noqa: E731
    e = IncrementalShapleyInteractions(f, loss="squared_error", method="permutation",
                                       alpha=0.05, random_state=0)
    for start in range(0, 300, 60):
        e.explain_many(X[start:start + 60], y[start:start + 60])
        assert e.importances_.sum() == pytest.approx(e.marginal_loss_ - e.model_loss_, abs=1e-9)
    assert e.to_result().total == pytest.approx(e.marginal_loss_ - e.model_loss_, abs=1e-9)


class Oracle:
    """The labelling function of FriedmanDrift(drift_type='gra'): before the switch
    10 sin(pi x0 x1) + 20 (x2 - 1/2)^2 + 10 x3 + 5 x4, after it the features move to
    10 sin(pi x3 x5) + 20 (x1 - 1/2)^2 + 10 x0 + 5 x2 (river's source)."""

    def __init__(self):
        self.drifted = False

    def __call__(self, Z):
        a, b, c, d, e = (3, 5, 1, 0, 2) if self.drifted else (0, 1, 2, 3, 4)
        return (10 * np.sin(np.pi * Z[:, a] * Z[:, b]) + 20 * (Z[:, c] - 0.5) ** 2
                + 10 * Z[:, d] + 5 * Z[:, e])


def test_friedman_drift_the_new_pair_is_ranked_first_within_2_over_alpha_rows():
    """The interacting pair moves from (0, 1) to (3, 5) at row 5,000; the model (the stream's
    own function) switches with it. With alpha = 0.001 the EMA keeps e^-2 of the old value
    after 2 / alpha rows, so the new pair must be ranked first by then, and (0, 1) before."""
    synth = pytest.importorskip("river.datasets.synth")
    switch, alpha = 5000, 0.001
    rows = list(synth.FriedmanDrift(drift_type="gra", position=(switch, 10**6), seed=3)
                .take(switch + int(2 / alpha)))
    X = np.array([[x[i] for i in range(10)] for x, _ in rows])
    y = np.array([t for _, t in rows])
    model = Oracle()
    e = IncrementalShapleyInteractions(model, loss="squared_error", alpha=alpha,
                                       history_every=250, random_state=0)
    assert e.method == "auto"
    e.explain_many(X[:switch], y[:switch])
    assert e.to_result().top_pairs(1)[0][:2] == ("x0", "x1")
    model.drifted = True
    e.explain_many(X[switch:], y[switch:])
    assert e.to_result().top_pairs(1)[0][:2] == ("x3", "x5")
    ts = e.to_time_series()
    assert isinstance(ts, InteractionTimeSeries)
    assert ts.values.shape == (len(X) // 250, 10 + 45)
    assert ts.pair_frame().shape == (len(X) // 250, 45)


def test_one_model_call_per_observation():
    calls = []

    def model(Z):
        calls.append(len(Z))
        return product_plus(Z)

    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 3))
    e = IncrementalShapleyInteractions(model, loss="squared_error", n_samples=2, random_state=9)
    for x, t in zip(X[:5], product_plus(X[:5])):
        e.explain_one(x, t)
    assert calls == [7 * 2 + 1] * 4  # exact for 3 players: 2^3 - 1 coalitions x 2 draws + f(x)
    e.explain_many(X[5:], product_plus(X[5:]))
    assert len(calls) == 5 and calls[-1] == 20 * 15


def test_pickled_explainer_resumes_identically():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3))
    y = product_plus(X)
    e = IncrementalShapleyInteractions(product_plus, loss="squared_error", method="permutation",
                                       n_samples=2, random_state=9)
    e.explain_many(X[:25], y[:25])
    g = pickle.loads(pickle.dumps(e))
    e.explain_many(X[25:], y[25:])
    g.explain_many(X[25:], y[25:])
    np.testing.assert_array_equal(e.importances_, g.importances_)
    assert e.confidence_bound(0.05).shape == (6,)
    assert isinstance(g.to_result(), ShapleyInteractions)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"index": "Moebius"}, "'index' parameter of IncrementalShapleyInteractions"),
        ({"method": "kernel"}, "'method' parameter"),
        ({"index": "FSII", "method": "permutation"}, "'method' parameter .* index='FSII'"),
        ({"n_samples": 0}, "'n_samples' parameter"),
        ({"n_samples": "many"}, "'n_samples' parameter"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        IncrementalShapleyInteractions(product_plus, loss="squared_error", **kwargs)


def test_results_need_observations():
    e = IncrementalShapleyInteractions(product_plus, loss="squared_error")
    with pytest.raises(ValueError, match="has not explained any observation"):
        e.to_result()
    with pytest.raises(ValueError, match="no history_ snapshots"):
        e.to_time_series()
    with pytest.raises(ValueError, match="at least 2 players"):
        IncrementalShapleyInteractions(product_plus, loss="squared_error",
                                       feature_names=["a"])


def test_to_result_after_only_storage_filling_rows_says_why():
    """The first row meets an empty storage: it is stored, not explained; the error says so
    (it read as if explain_one had never been called)."""
    from ixplain import IncrementalShapleyInteractions

    X = np.random.default_rng(0).normal(size=(3, 3))
    e = IncrementalShapleyInteractions(lambda Z: Z.sum(axis=1), loss="squared_error")
    e.explain_one(X[0], 0.0)
    with pytest.raises(ValueError, match=r"seen 1 row\(s\), which only filled its storage"):
        e.to_result()


@pytest.mark.parametrize("index, order, method", [
    ("k-SII", 2, "exact"), ("SII", 2, "exact"), ("FSII", 2, "exact"), ("k-SII", 3, "exact"),
    ("SII", 3, "exact"), ("k-SII", 2, "permutation"), ("FSII", 2, "regression"),
])
def test_same_seed_same_bits_for_any_batching(index, order, method):
    """QA9 item 14: the main terms of an explain_one loop and of explain_many differed by
    2e-17 (4 players: the sums over 2^3 coalitions ran in an order set by the batch's layout,
    and the k-SII/FSII maps were BLAS products); every term must match bit for bit."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))

    def f(Z):
        return Z[:, 0] * Z[:, 1] * Z[:, 3] + Z[:, 2]

    y = f(X)
    kw = dict(loss="squared_error", alpha=0.01, random_state=0, index=index, order=order,
              method=method)
    one = IncrementalShapleyInteractions(f, **kw)
    for x, t in zip(X, y):
        one.explain_one(x, t)
    many = IncrementalShapleyInteractions(f, **kw)
    for start, stop in ((0, 1), (1, 50), (50, 120)):
        many.explain_many(X[start:stop], y[start:stop])
    np.testing.assert_array_equal(one.importances_, many.importances_)
    np.testing.assert_array_equal(one.to_result().main_values, many.to_result().main_values)
