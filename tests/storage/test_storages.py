"""Storages: copying, bounded memory, mixed columns, and their sampling laws (by simulation)."""

import numpy as np
import pytest

from ixplain.storage import DatasetStorage, GeometricReservoir, SlidingWindow, UniformReservoir


def test_rows_are_copied_not_referenced():
    r = SlidingWindow(3)
    rec = {"a": 1.0, "c": "x"}
    r.update(rec)
    rec["a"] = 99.0
    rec["c"] = "changed"
    assert r.table.columns["a"].tolist() == [1.0]
    assert r.table.columns["c"].tolist() == ["x"]


def test_mixed_columns_dtypes_and_bounded_memory():
    r = GeometricReservoir(5, random_state=0)
    for i in range(1000):
        r.update({"num": float(i), "cat": f"c{i % 3}"})
    assert len(r) == 5 and r.n_seen == 1000
    assert r._cols["num"].dtype == np.float64 and r._cols["num"].shape == (5,)
    assert r._cols["cat"].dtype == object and r._cols["cat"].shape == (5,)


def test_missing_key_names_the_key():
    r = UniformReservoir(4, random_state=0)
    r.update({"a": 1.0, "b": 2.0})
    with pytest.raises(ValueError, match="'b'"):
        r.update({"a": 1.0})


def test_sliding_window_keeps_last_rows_in_batches():
    w = SlidingWindow(4)
    w.update_many(np.arange(10.0).reshape(-1, 1))
    w.update_many(np.arange(10.0, 13.0).reshape(-1, 1))
    assert sorted(w.table.columns["x0"].tolist()) == [9.0, 10.0, 11.0, 12.0]


def test_sample_draws_from_held_rows_with_callers_rng():
    d = DatasetStorage(np.array([[1.0], [2.0], [3.0]]))
    s = d.sample(1000, np.random.default_rng(0)).columns["x0"]
    assert set(s.tolist()) == {1.0, 2.0, 3.0}
    a = d.sample(5, np.random.default_rng(1)).columns["x0"]
    b = d.sample(5, np.random.default_rng(1)).columns["x0"]
    np.testing.assert_array_equal(a, b)


def test_empty_storage_sample_raises():
    with pytest.raises(ValueError, match="empty"):
        UniformReservoir(3).sample(1, np.random.default_rng(0))


def test_bad_size():
    with pytest.raises(ValueError, match="'size' parameter of UniformReservoir"):
        UniformReservoir(0)
    with pytest.raises(ValueError, match="'p' parameter of GeometricReservoir"):
        GeometricReservoir(3, p=0.0)


@pytest.mark.parametrize("batch", [1, 7])
def test_uniform_reservoir_inclusion_probability(batch):
    """Algorithm L keeps each of the n rows with probability size/n.

    Derivation: reservoir sampling's invariant (Vitter 1985; Li 1994) -- after n rows the
    reservoir is a uniform random subset of size k, so P(row i held) = k/n for every i. Over R
    independent runs the count of runs holding row i is Binomial(R, k/n): its standard deviation
    sqrt(R p (1-p)) gives the tolerance (5 sigma per row; the mean over rows 1/sqrt(n) tighter).
    """
    k, n, R = 5, 30, 600
    counts = np.zeros(n)
    for seed in range(R):
        r = UniformReservoir(k, random_state=seed)
        X = np.arange(n, dtype=float).reshape(-1, 1)
        for s in range(0, n, batch):
            r.update_many(X[s : s + batch])
        held = r.table.columns["x0"].astype(int)
        assert len(set(held.tolist())) == k  # no duplicates
        counts[held] += 1
    p = k / n
    sd = np.sqrt(R * p * (1 - p))
    assert np.all(np.abs(counts - R * p) < 5 * sd)
    # early and late rows alike (no recency bias): the halves agree within 5 sigma of their sums
    first, second = counts[: n // 2].sum(), counts[n // 2 :].sum()
    assert abs(first - second) < 5 * np.sqrt(2 * (n // 2)) * sd


def test_geometric_reservoir_mean_age():
    """A held row's age is geometric with mean size/p.

    Derivation: once full, each incoming row overwrites a given slot with probability p/size,
    so a slot's content survives each step with probability 1 - p/size and its age A (steps since
    written, counting the write as age 1) satisfies P(A = a) = (p/size)(1 - p/size)^(a-1):
    E[A] = size/p, Var[A] = (1 - p/size)/(p/size)^2. The tolerance is 5 standard errors of the
    mean over the sampled ages.
    """
    size, p, n = 20, 0.5, 4000
    g = GeometricReservoir(size, p=p, random_state=3)
    ages = []
    for t in range(n):
        g.update({"t": float(t)})
        if t > 2000 and t % 10 == 0:  # after burn-in, read the ages of all held rows
            ages.extend((t + 1 - g.table.columns["t"]).tolist())
    ages = np.asarray(ages)
    q = p / size
    se = np.sqrt((1 - q) / q**2) / np.sqrt(len(ages) / size)  # rows of one snapshot correlate
    assert abs(ages.mean() - size / p) < 5 * se


def test_dataset_storage_is_static():
    d = DatasetStorage([{"a": 1.0, "b": "u"}, {"a": 2.0, "b": "v"}])
    d.update({"a": 5.0, "b": "w"})
    assert d.table.columns["a"].tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="empty"):
        DatasetStorage(np.empty((0, 2)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: GeometricReservoir(6, p=1.0, random_state=0),
        lambda: GeometricReservoir(6, p=0.5, random_state=0),
        lambda: UniformReservoir(6, random_state=0),
        lambda: SlidingWindow(4),
    ],
)
def test_batch_draws_see_the_storage_as_each_row_found_it(make):
    """_sample_blocks for a mini-batch against the definition, written as a loop: row i draws
    slot s of the buffer after the writes of rows < i (planned slots, later rows win), so a slot
    an earlier batch row wrote yields that row's values; rows that found the storage empty get
    their own values. Mixed numeric/categorical rows, a fill phase inside
    the batch, repeated slots."""
    from ixplain.tabular import as_table

    for prefill in (0, 3, 10):
        store = make()
        first = {"a": 0.0, "k": "z"}
        store._ensure_schema(as_table(first).schema)
        for i in range(prefill):
            store.update({"a": float(-i - 1), "k": f"p{i}"})
        B, n = 12, 5
        batch = {"a": np.arange(B, dtype=float) + 100.0,
                 "k": np.array([f"b{i}" for i in range(B)], dtype=object)}
        slots = store._plan(B)
        num0, cat0, len0 = store._num.copy(), store._cat.copy(), len(store)
        uniforms = np.random.default_rng(11).random((B, n))  # row i's numbers: uniforms[i]
        num, cat, available = store._sample_blocks(batch, slots, uniforms)
        buf_num, buf_cat, held = num0.copy(), cat0.copy(), len0
        for i in range(B):
            u = uniforms[i]
            for s in range(n):
                r = i * n + s
                if held == 0:
                    assert not available[i]
                    assert num[r, 0] == batch["a"][i] and cat[r, 0] == batch["k"][i]
                    continue
                slot = int(np.floor(u[s] * held))
                assert available[i]
                assert num[r, 0] == buf_num[slot, 0], (prefill, i, s)
                assert cat[r, 0] == buf_cat[slot, 0], (prefill, i, s)
            if slots[i] >= 0:  # row i is written after it was explained
                buf_num[slots[i], 0] = batch["a"][i]
                buf_cat[slots[i], 0] = batch["k"][i]
                held = max(held, int(slots[i]) + 1)


def test_cached_rows_index_is_uniform_index_of_the_row():
    """``CachedRows.index(t, n)`` is ``uniform_index(row(t), n)`` whatever the sequence of
    ``n`` (growing during a fill phase, then fixed: the block's indices are cached), across
    block boundaries, jumps back and a pickle round trip."""
    import pickle

    from ixplain._random import RowStream, uniform_index
    from ixplain.storage.base import CachedRows

    stream = RowStream(7, "draw:0/5", 5)
    cached = CachedRows(RowStream(7, "draw:0/5", 5), block=8)
    ts = list(range(0, 30)) + [3, 4, 29, 30, 31]
    ns = [min(t + 1, 12) for t in range(30)] + [12, 12, 5, 12, 12]
    for t, n in zip(ts, ns):
        expected = uniform_index(stream.uniforms(t, 1)[0], n)
        np.testing.assert_array_equal(cached.index(t, n), expected)
        if t == 20:
            cached = pickle.loads(pickle.dumps(cached))
