"""What the data channel's loss test costs: the explainer's own base loss instead of a model
call (the engine's ``_on_values`` hook), and the loss CUSUMs' replay from a checkpoint of
their state instead of a deep copy of their channels (ixplain.drift._attribution)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from ixplain.drift._channel import ValueChannel
from ixplain.drift.base import CUSUMTest, _BatchMeans


def _test_state(test):
    return {k: (v.__dict__ if isinstance(v, _BatchMeans) else v)
            for k, v in test.__dict__.items()}


def _channel_state(ch):
    m = ch.memory
    return (m.values.tobytes(), m.rows.tobytes(), m.pos, ch.n_rows, ch._n_pending,
            [(v.tobytes(), r.tobytes()) for v, r in ch._pending],
            None if ch.center is None else (ch.center.tobytes(), ch.scale.tobytes()),
            ch.last_start.tobytes(), [_test_state(t) for t in ch.tests])


def _events(events):
    return [repr(e.to_dict()) for e in events]  # (NaN fields compare equal as text)


@pytest.mark.parametrize("n_before", [10, 120])
def test_cusum_copy_is_independent_and_continues_as_the_original(n_before):
    """The fast deep copy of a CUSUM (its lists copied as lists) against a pickle round trip,
    taken in the warm-up (30 values) and after it: feeding the copy does not change the
    original, and the copy goes on exactly as the original would (same alarms, same state)."""
    rng = np.random.default_rng(0)
    t = CUSUMTest(0.01, warmup=30, batch=5, lag=3)
    for v in rng.normal(size=n_before):
        t.update(v)
    before = pickle.loads(pickle.dumps(t))
    c = copy.deepcopy(t)
    shifted = rng.normal(size=300) + np.repeat([0.0, 1.5], 150)
    alarms = [i for i, v in enumerate(shifted) if c.update(v)]
    assert alarms  # the copy's state moved (the test can fail)
    assert _test_state(t) == _test_state(before)
    assert [i for i, v in enumerate(shifted) if before.update(v)] == alarms
    assert _test_state(before) == _test_state(c)


@pytest.mark.parametrize("sizes", [[1] * 40, [7] * 12, [25, 3, 90, 1, 2, 200]])
def test_rollback_restores_the_channel_as_a_copy_would(sizes):
    """A checkpoint taken before a push, rolled back after it, gives the state a pickled copy
    taken before the push has -- during the warm-up, across its end, and for chunks longer
    than the memory (80 rows) -- and both then find the same events."""
    rng = np.random.default_rng(1)
    ch = ValueChannel("data", ["loss"], "cusum", 0.01, 0, warmup=30, memory=80, shift=0.5)
    row = 0
    for b in sizes:
        chunk = rng.exponential(size=(b, 1)) + (row > 150) * 2.0
        rows = np.arange(row, row + b)
        ref = pickle.loads(pickle.dumps(ch))
        state = ch.checkpoint(b)
        ch.push(chunk, rows)
        ch.rollback(state)
        assert _channel_state(ch) == _channel_state(ref)
        assert _events(ch.push(chunk, rows)) == _events(ref.push(chunk, rows))
        assert _channel_state(ch) == _channel_state(ref)
        row += b
