"""Several observers on one stream explainer (:mod:`ixplain.observers`): every observer gets
the same rows and snapshots whatever the batching, a part refused by one observer is taken
back for the explainer and for the observers that took it, and the drift detector finds the
same events with company as alone."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from ixplain import ExplanationDriftDetector, IncrementalPFI
from ixplain.observers import ExplainerObserver


class Record(ExplainerObserver):
    """Keeps every row, ok flag and snapshot it is given (rebinding: the default undo)."""

    def __init__(self) -> None:
        self.rows: tuple[int, ...] = ()
        self.ok: tuple[bool, ...] = ()
        self.snapshots: tuple[tuple[int, bytes, bytes], ...] = ()
        self.calls_ended = 0

    def on_values(self, values, ok, rows, cols, y, losses=None, restarts=()):
        self.rows += tuple(int(r) for r in rows)
        self.ok += tuple(bool(o) for o in ok)

    def on_snapshot(self, n_seen, estimate, variance):
        self.snapshots += ((n_seen, estimate.tobytes(), variance.tobytes()),)

    def on_call_end(self):
        self.calls_ended += 1


class Snapshots(ExplainerObserver):
    """Takes no values: only snapshots."""

    def __init__(self) -> None:
        self.rows: list[int] = []

    def on_snapshot(self, n_seen, estimate, variance):
        self.rows.append(n_seen)


class RaiseAt(ExplainerObserver):
    """Refuses the part that holds stream row ``row``."""

    def __init__(self, row: int) -> None:
        self.row = row

    def on_values(self, values, ok, rows, cols, y, losses=None, restarts=()):
        if self.row in rows:
            raise RuntimeError(f"refused row {self.row}")


def _stream(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X[:, 0] + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)


def _model(A):
    return A[:, 0] + 0.5 * A[:, 1]


def _explainer(**kw):
    return IncrementalPFI(_model, "squared_error", alpha=0.05, random_state=0,
                          history_every=50, **kw)


def _state(explainer):
    return (explainer.n_seen_, explainer.n_explained_, explainer.importances_.tobytes(),
            explainer.variances_.tobytes(),
            [(n, e.tobytes(), v.tobytes()) for n, e, v in explainer.history_])


def test_an_observer_gets_the_same_rows_and_snapshots_for_any_batching():
    X, y = _stream()
    loop = _explainer()
    seen = loop.subscribe(Record())
    for x, t in zip(X, y):
        loop.explain_one(x, t)
    for max_batch, cuts in ((64, (0, 123, 124, 600)), (1000, (0, 600)), (7, (0, 50, 333, 600))):
        batched = _explainer(max_batch=max_batch)
        got = batched.subscribe(Record())
        for s, e in zip(cuts[:-1], cuts[1:]):
            batched.explain_many(X[s:e], y[s:e])
        assert got.rows == seen.rows == tuple(range(600))
        assert got.ok == seen.ok
        assert got.snapshots == seen.snapshots
        assert [n for n, _, _ in got.snapshots] == list(range(50, 601, 50))
        assert got.calls_ended == len(cuts) - 1


def test_observers_do_not_change_the_explainer():
    X, y = _stream()
    alone = _explainer(max_batch=64)
    alone.explain_many(X, y)
    watched = _explainer(max_batch=64)
    watched.subscribe(Record())
    watched.subscribe(Snapshots())
    watched.explain_many(X, y)
    assert _state(watched) == _state(alone)
    assert pickle.dumps(watched.storage) == pickle.dumps(alone.storage)


def test_two_observers_both_receive_everything_in_subscription_order():
    X, y = _stream()
    explainer = _explainer(max_batch=100)
    order: list[str] = []

    class Named(Record):
        def __init__(self, name):
            super().__init__()
            self.name = name

        def on_values(self, *args, **kw):
            order.append(self.name)
            super().on_values(*args, **kw)

    first, second = explainer.subscribe(Named("first")), explainer.subscribe(Named("second"))
    snaps = explainer.subscribe(Snapshots())
    assert explainer.observers_ == (first, second, snaps)
    explainer.explain_many(X, y)
    assert first.rows == second.rows == tuple(range(600))
    assert first.snapshots == second.snapshots
    assert snaps.rows == [n for n, _, _ in first.snapshots] == list(range(50, 601, 50))
    assert order == ["first", "second"] * 6  # six parts of 100 rows
    explainer.unsubscribe(first)
    assert explainer.observers_ == (second, snaps)
    with pytest.raises(ValueError, match="observer"):
        explainer.unsubscribe(first)
    with pytest.raises(TypeError, match="observer"):
        explainer.subscribe(object())


def test_a_raising_second_observer_takes_the_part_back_for_all():
    X, y = _stream()
    reference = _explainer(max_batch=100)
    ref_seen = reference.subscribe(Record())
    reference.explain_many(X[:200], y[:200])
    before, seen_before = _state(reference), ref_seen.rows
    reference.explain_many(X[200:], y[200:])

    explainer = _explainer(max_batch=100)
    first = explainer.subscribe(Record())
    refuse = explainer.subscribe(RaiseAt(250))
    with pytest.raises(RuntimeError, match="refused row 250") as info:
        explainer.explain_many(X, y)
    assert "rows 0-199 of this batch were explained" in str(info.value.__notes__)
    assert _state(explainer) == before  # the part of rows 200-299 taken back ...
    assert first.rows == seen_before  # ... by the first observer too
    explainer.unsubscribe(refuse)
    explainer.explain_many(X[200:], y[200:])
    assert _state(explainer) == _state(reference)
    assert first.rows == ref_seen.rows and first.snapshots == ref_seen.snapshots


def _drift_stream(n=3000, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(np.arange(n) < n // 2, X[:, 0], X[:, 1]) + 0.1 * rng.normal(size=n)
    return X, y


def _events(detector):
    return [(e.row, e.feature, e.channel, e.test) for e in detector.events_], (
        detector.events_frame().to_csv())


def _detected(extra_before=(), extra_after=(), batch=250):
    X, y = _drift_stream()
    explainer = IncrementalPFI(_model, "squared_error", alpha=0.01, random_state=0)
    for observer in extra_before:
        explainer.subscribe(observer)
    detector = ExplanationDriftDetector(random_state=0, check_every=500, n_reference=100)
    explainer.drift_detector = detector
    for observer in extra_after:
        explainer.subscribe(observer)
    for s in range(0, len(X), batch):
        explainer.explain_many(X[s:s + batch], y[s:s + batch])
    return explainer, detector


def test_the_drift_detector_finds_the_same_events_with_other_observers():
    alone, detector = _detected()
    events = _events(detector)
    assert events[0], "the stream must give events for this test to mean anything"
    for before, after in (((Record(),), ()), ((), (Record(), Snapshots())),
                          ((Snapshots(),), (Record(),))):
        explainer, other = _detected(before, after, batch=333)
        assert _events(other) == events
        assert _state(explainer) == _state(alone)
        assert explainer.drift_detector is other
        recorded = [o for o in explainer.observers_ if isinstance(o, Record)][0]
        assert recorded.rows == tuple(range(3000))


def test_a_raising_observer_after_the_detector_takes_its_part_back():
    X, y = _drift_stream()
    reference, ref_detector = _detected()
    explainer = IncrementalPFI(_model, "squared_error", alpha=0.01, random_state=0)
    detector = ExplanationDriftDetector(random_state=0, check_every=500, n_reference=100)
    explainer.drift_detector = detector
    refuse = explainer.subscribe(RaiseAt(1600))
    explainer.explain_many(X[:1500], y[:1500])
    rows_before = detector.n_rows_
    with pytest.raises(RuntimeError, match="refused row 1600"):
        explainer.explain_many(X[1500:], y[1500:])
    assert explainer.n_seen_ == 1500 and detector.n_rows_ == rows_before == 1500
    explainer.unsubscribe(refuse)
    assert explainer.observers_ == (detector,)
    explainer.explain_many(X[1500:], y[1500:])
    assert _events(detector) == _events(ref_detector)
    assert _state(explainer) == _state(reference)


def test_assigning_the_detector_replaces_only_the_detector():
    explainer = _explainer()
    record = explainer.subscribe(Record())
    first = ExplanationDriftDetector(random_state=0)
    explainer.drift_detector = first
    snaps = explainer.subscribe(Snapshots())
    second = ExplanationDriftDetector(random_state=0)
    explainer.drift_detector = second
    assert explainer.observers_ == (record, second, snaps)
    assert first.explainer is None and second.explainer is explainer
    explainer.unsubscribe(second)
    assert explainer.drift_detector is None and explainer.observers_ == (record, snaps)
    explainer.drift_detector = None
    assert explainer.observers_ == (record, snaps)


def test_a_pickled_explainer_keeps_its_observers_and_goes_on_as_before():
    X, y = _stream()
    straight = _explainer(max_batch=64)
    seen = straight.subscribe(Record())
    straight.subscribe(Record())
    straight.explain_many(X, y)
    half = _explainer(max_batch=64)
    half.subscribe(Record())
    half.subscribe(Record())
    half.explain_many(X[:300], y[:300])
    copy = pickle.loads(pickle.dumps(half))
    first, second = copy.observers_
    copy.explain_many(X[300:], y[300:])
    assert _state(copy) == _state(straight)
    assert first.rows == second.rows == seen.rows
    assert first.snapshots == seen.snapshots
