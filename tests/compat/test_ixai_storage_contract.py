"""ixai's storage contract (``update`` / ``len`` / ``get_data``) holds for the storages of
ixplain.compat.ixai: what is held, in which order, with which labels and keys."""

import numpy as np
import pytest

pytest.importorskip("river")

from river import metrics

from ixplain import UniformReservoir
from ixplain.compat.ixai import IncrementalPFI
from ixplain.compat.ixai.storage import (
    BatchStorage,
    GeometricReservoirStorage,
    IntervalStorage,
    SequenceStorage,
    UniformReservoirStorage,
)

STREAM = [({"t": i}, i) for i in range(10)]


def fed(storage, stream=STREAM):
    for x, y in stream:
        storage.update(x, y)
    return storage


BOUNDED = [
    lambda size, st: UniformReservoirStorage(size=size, store_targets=st, random_state=0),
    lambda size, st: GeometricReservoirStorage(size=size, store_targets=st, random_state=0),
    lambda size, st: GeometricReservoirStorage(size, 0.5, st, random_state=0),
    lambda size, st: IntervalStorage(size=size, store_targets=st),
]


@pytest.mark.parametrize("make", BOUNDED)
@pytest.mark.parametrize("size", [1, 3, 5, 10, 15])
@pytest.mark.parametrize("store_targets", [True, False])
def test_a_bounded_storage_holds_min_size_rows_with_their_own_labels(make, size, store_targets):
    storage = fed(make(size, store_targets))
    x, y = storage.get_data()
    assert len(storage) == len(x) == min(size, 10)
    assert all(set(row) == {"t"} for row in x)
    assert len({row["t"] for row in x}) == len(x)  # distinct stream rows, none invented
    assert {row["t"] for row in x} <= set(range(10))
    if store_targets:
        assert [row["t"] for row in x] == y  # each label stays with its row
    else:
        assert y == []


@pytest.mark.parametrize("size", [1, 3, 5, 8, 10, 12])
def test_an_interval_storage_holds_the_last_rows_oldest_first(size):
    x, y = fed(IntervalStorage(size=size)).get_data()
    expected = list(range(max(0, 10 - size), 10))
    assert [row["t"] for row in x] == expected and y == expected


def test_a_sequence_storage_holds_the_last_row():
    storage = fed(SequenceStorage())
    assert len(storage) == 1 and storage.get_data() == ([{"t": 9.0}], [9])
    assert fed(SequenceStorage(store_targets=False)).get_data() == ([{"t": 9.0}], [])


@pytest.mark.parametrize("store_targets", [True, False])
def test_a_batch_storage_holds_every_row_in_order(store_targets):
    storage = fed(BatchStorage(store_targets=store_targets))
    x, y = storage.get_data()
    assert len(storage) == 10 and x == [x_ for x_, _ in STREAM]
    assert y == (list(range(10)) if store_targets else [])


def test_the_uniform_reservoir_holds_every_row_with_probability_size_over_n():
    # closed form: after n offers each row is held with probability size / n
    counts = np.zeros(10)
    n_runs = 1500
    for seed in range(n_runs):
        x, _ = fed(UniformReservoirStorage(size=3, random_state=seed)).get_data()
        for row in x:
            counts[int(row["t"])] += 1
    se = np.sqrt(0.3 * 0.7 / n_runs)
    assert np.all(np.abs(counts / n_runs - 0.3) < 4.5 * se)


def test_int_keys_come_back_as_ints():
    storage = fed(IntervalStorage(size=2), [({0: float(i), 1: 2.0 * i}, i) for i in range(4)])
    x, y = storage.get_data()
    assert x == [{0: 2.0, 1: 4.0}, {0: 3.0, 1: 6.0}] and y == [2, 3]
    assert all(type(k) is int for row in x for k in row)


def test_an_empty_storage_gives_empty_lists():
    assert UniformReservoirStorage(5).get_data() == ([], [])
    assert IntervalStorage(5).get_data() == ([], [])


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_store_targets_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="'store_targets' parameter of IntervalStorage"):
        IntervalStorage(3, store_targets=bad)


def _model(x):
    return x["a"]


def test_an_ixai_storage_may_be_shared_by_two_explainers_an_ixplain_one_may_not():
    stream = [({"a": float(i), "b": 1.0}, float(i)) for i in range(5)]
    shared = GeometricReservoirStorage(size=10)
    first = IncrementalPFI(_model, metrics.MSE(), ["a", "b"], storage=shared, random_state=0)
    second = IncrementalPFI(_model, metrics.MSE(), ["a", "b"], storage=shared, random_state=1)
    for x, y in stream:
        first.explain_one(x, y)
        second.explain_one(x, y, update_storage=False)
    assert len(shared) == 5 and shared.n_seen == 5
    plain = UniformReservoir(10)
    one = IncrementalPFI(_model, metrics.MSE(), ["a", "b"], storage=plain, random_state=0)
    two = IncrementalPFI(_model, metrics.MSE(), ["a", "b"], storage=plain, random_state=1)
    one.explain_one(*stream[0])
    with pytest.raises(ValueError, match="already the storage of another explainer"):
        two.explain_one(*stream[0])
