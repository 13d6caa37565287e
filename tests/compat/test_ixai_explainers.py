"""ixai's explainer contract on ixplain.compat.ixai: explain_one(update_storage=False) with a
shared storage, IntervalSage = SAGE of the window (brute force), feature names kept as given,
ixai's marginal_loss / model_loss, and the imputer accepted."""

import itertools
import math

import numpy as np
import pytest

pytest.importorskip("river")

from river import metrics
from sklearn.tree import DecisionTreeRegressor

from ixplain.compat.ixai import (
    GeometricReservoirStorage,
    IncrementalPFI,
    IncrementalSage,
    IntervalSage,
    IntervalStorage,
    MarginalImputer,
    SklearnWrapper,
    UniformReservoirStorage,
)

rng = np.random.default_rng(0)
X = rng.normal(size=(400, 3))
Y = X[:, 0] + 2 * X[:, 1] * X[:, 2]
TREE = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, Y)
RECORDS = [dict(zip("abc", row)) for row in X.tolist()]
INT_RECORDS = [dict(enumerate(row)) for row in X.tolist()]


def linear(x):
    return x["a"] + 2 * x["b"]


def test_an_explainer_that_does_not_update_the_storage_reads_the_other_ones_writes():
    """B shares A's storage and never writes it; A writes each row after B explained it: B is
    bit for bit the B' that writes its own storage of the same kind and seed (A and B' write
    the same rows in the same slots)."""
    shared = UniformReservoirStorage(size=50, random_state=3)
    own = UniformReservoirStorage(size=50, random_state=3)
    a = IncrementalSage(linear, metrics.MSE(), list("abc"), storage=shared, random_state=1)
    b = IncrementalPFI(linear, metrics.MSE(), list("abc"), storage=shared, random_state=2)
    b_own = IncrementalPFI(linear, metrics.MSE(), list("abc"), storage=own, random_state=2)
    for x in RECORDS[:200]:
        y = linear(x)
        got = b.explain_one(x, y, update_storage=False)
        a.explain_one(x, y)
        want = b_own.explain_one(x, y)
        assert got == want
    assert shared.n_seen == 200 and own.n_seen == 200
    assert b.importance_values["b"] > b.importance_values["a"] > 0 == b.importance_values["c"]


def test_update_storage_false_alone_leaves_the_storage_empty_and_nothing_explained():
    storage = GeometricReservoirStorage(size=20)
    pfi = IncrementalPFI(linear, metrics.MSE(), list("abc"), storage=storage, random_state=0)
    for x, y in zip(RECORDS[:30], Y[:30]):
        values = pfi.explain_one(x, y, update_storage=False)
    assert len(storage) == 0 and values == {"a": 0.0, "b": 0.0, "c": 0.0}
    assert pfi.seen_samples == 30


def brute_force_sage(f, X, y):
    """Exact SAGE of the window: background = the window, exact inner mean, all orders."""
    n, d = X.shape

    def v(S):
        cols = list(S)
        Z = np.repeat(X, n, axis=0)  # row i paired with every background row b
        B = np.tile(X, (n, 1))
        mixed = B.copy()
        mixed[:, cols] = Z[:, cols]
        m = f(mixed).reshape(n, n).mean(axis=1)
        return -np.mean((m - y) ** 2)

    phi = np.zeros(d)
    for order in itertools.permutations(range(d)):
        S = []
        for j in order:
            phi[j] += v(S + [j]) - v(S)
            S.append(j)
    return phi / math.factorial(d), v(list(range(d))) - v([])


@pytest.mark.parametrize("n_inner, n_perm", [(None, 3000), (8, 6000)])
def test_interval_sage_is_the_sage_of_the_window_every_interval(n_inner, n_perm):
    """Exact inner mean (ixplain.sage) and 8 draws (iSAGE's running mean over the window):
    brute-force SAGE of the window within 4 standard errors; the exact one sums to the
    explained loss."""
    window, interval = 40, 60
    sage = IntervalSage(SklearnWrapper(TREE.predict), list("abc"), metrics.MSE(),
                        n_inner_samples=n_inner, interval_length=interval, storage_length=window,
                        n_permutations=n_perm, random_state=0)
    for t, (x, y) in enumerate(zip(RECORDS[:interval], Y[:interval]), start=1):
        values = sage.explain_one(x, y, verbose=False)
        if t < interval:
            assert values == {"a": 0.0, "b": 0.0, "c": 0.0}
    rows = slice(interval - window, interval)
    want, total = brute_force_sage(TREE.predict, X[rows], Y[rows])
    got = np.array([values[k] for k in "abc"])
    assert np.all(np.abs(got - want) <= 4 * sage.std_ + 1e-9), (got, want, sage.std_)
    assert np.all(sage.std_ < 0.1 * np.abs(want).max())  # the check has power
    if n_inner is None:
        assert got.sum() == pytest.approx(total, rel=1e-9)


def test_interval_sage_explains_a_classifier_that_returns_labels():
    """ixai's accuracy example: predict_one labels and Accuracy (the 0-1 loss)."""
    from river import tree

    model = tree.HoeffdingTreeClassifier(grace_period=20)
    labels = [bool(v > 0) for v in X[:, 0]]
    for x, y in zip(RECORDS[:200], labels[:200]):
        model.learn_one(x, y)
    sage = IntervalSage(model.predict_one, list("abc"), metrics.Accuracy(), interval_length=50,
                        storage_length=50, random_state=0)
    for x, y in zip(RECORDS[200:300], labels[200:300]):
        values = sage.explain_one(x, y, verbose=False)
    assert values["a"] > 0.1 and abs(values["b"]) < 0.05 and abs(values["c"]) < 0.05


def test_interval_sage_refuses_a_storage_that_is_not_a_window():
    with pytest.raises(TypeError, match="'storage' parameter of IntervalSage"):
        IntervalSage(linear, list("abc"), metrics.MSE(), storage=UniformReservoirStorage(5))


@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSage])
def test_int_feature_names_stay_ints_and_give_the_str_named_values(cls):
    def f_int(x):
        return x[0] + 2 * x[1]

    ints = cls(f_int, metrics.MSE(), [0, 1, 2], random_state=0)
    strs = cls(linear, metrics.MSE(), list("abc"), random_state=0)
    for xi, xs, y in zip(INT_RECORDS[:150], RECORDS[:150], Y[:150]):
        got = ints.explain_one(xi, y)
        want = strs.explain_one(xs, y)
    assert list(got) == [0, 1, 2] and all(type(k) is int for k in got)
    assert list(got.values()) == list(want.values())
    assert list(ints.variances) == [0, 1, 2]


def test_marginal_and_model_loss_are_ixais_and_sum_to_the_importances():
    sage = IncrementalSage(linear, metrics.MSE(), list("abc"), random_state=0)
    for x, y in zip(RECORDS[:200], Y[:200]):
        sage.explain_one(x, y)
    assert sage.marginal_loss == sage.marginal_loss_ and sage.model_loss == sage.model_loss_
    assert sage.explained_loss == pytest.approx(sum(sage.importance_values.values()), abs=1e-9)


@pytest.mark.parametrize("bigger_is_better, offset", [(True, 0.0), (False, -1.0)])
def test_accuracy_losses_are_on_ixais_scale(bigger_is_better, offset):
    """ixai scores Accuracy as -accuracy (+1 with loss_bigger_is_better); ixplain as the 0-1
    loss = 1 - accuracy."""
    labels = [bool(v > 0) for v in Y[:100]]
    sage = IncrementalSage(lambda x: x["a"] > 0, metrics.Accuracy(), list("abc"),
                           loss_bigger_is_better=bigger_is_better, random_state=0)
    for x, y in zip(RECORDS[:100], labels):
        sage.explain_one(x, y)
    assert sage.marginal_loss == sage.marginal_loss_ + offset
    assert sage.model_loss == sage.model_loss_ + offset


def test_a_marginal_imputer_gives_the_explainer_its_storage():
    storage = GeometricReservoirStorage(size=30)
    imputer = MarginalImputer(linear, "joint", storage, random_state=0)
    pfi = IncrementalPFI(linear, metrics.MSE(), list("abc"), imputer=imputer, random_state=0)
    assert pfi.storage is storage
    for x, y in zip(RECORDS[:20], Y[:20]):
        pfi.explain_one(x, y)
    draws = imputer.impute(["a"], RECORDS[0], n_samples=7)
    stored_a = np.array([row["a"] for row in storage.get_data()[0]])
    assert len(draws) == 7  # each draw: a stored row's 'a', the observation's 'b'
    assert all(np.abs(stored_a - (d["output"] - 2 * RECORDS[0]["b"])).min() < 1e-12
               for d in draws)


def test_imputers_ixplain_cannot_honour_are_refused():
    storage = GeometricReservoirStorage(size=30)
    with pytest.raises(ValueError, match="'sampling_strategy' parameter of MarginalImputer"):
        MarginalImputer(linear, "product", storage)
    other = MarginalImputer(linear, "joint", GeometricReservoirStorage(size=30))
    with pytest.raises(ValueError, match="draws from another storage"):
        IncrementalPFI(linear, metrics.MSE(), list("abc"), storage=storage, imputer=other)


def test_a_per_call_n_inner_samples_other_than_the_explainers_is_refused():
    pfi = IncrementalPFI(linear, metrics.MSE(), list("abc"), n_inner_samples=2)
    pfi.explain_one(RECORDS[0], Y[0], n_inner_samples=2)
    with pytest.raises(ValueError, match="'n_inner_samples' parameter must be None or"):
        pfi.explain_one(RECORDS[1], Y[1], n_inner_samples=3)


def test_interval_storage_given_to_an_incremental_explainer_is_its_window():
    storage = IntervalStorage(size=5)
    pfi = IncrementalPFI(linear, metrics.MSE(), list("abc"), storage=storage, random_state=0)
    for x, y in zip(RECORDS[:12], Y[:12]):
        pfi.explain_one(x, y)
    assert [row["a"] for row in storage.get_data()[0]] == [r["a"] for r in RECORDS[7:12]]


@pytest.mark.parametrize("bad", [None, "abc"])
def test_batch_sage_needs_its_feature_names(bad):
    with pytest.raises(TypeError, match="'feature_names' parameter of IntervalSage"):
        IntervalSage(linear, bad, metrics.MSE())


def test_incremental_pdp_has_ixais_signature_and_the_closed_form_curve():
    from ixplain.compat.ixai import IncrementalPDP

    pdp = IncrementalPDP(lambda x: 2 * x["a"] + x["b"], "a", 10, dynamic_setting=False,
                         is_classification=False, feature_names=["a", "b"], random_state=0)
    for x in RECORDS:
        assert pdp.explain_one({"a": x["a"], "b": x["b"]}) is None
    grid, values = pdp.pdp
    g, v = np.array(list(grid.values())), np.array(list(values.values()))
    assert 2 <= len(g) <= 10 and list(grid) == list(range(len(g)))  # a lattice of <= 10
    np.testing.assert_array_equal(v, np.asarray(pdp.pd_.average).reshape(-1))
    # PD(v) = 2 v + the mean of b over the rows that met v (values may join the grid late)
    np.testing.assert_allclose(v, 2 * g + X[:, 1].mean(), atol=0.2)
    assert pdp.seen_samples == len(RECORDS)
