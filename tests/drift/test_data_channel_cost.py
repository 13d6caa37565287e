"""What the data channel's loss test costs: the explainer's own base loss instead of a model
call (the engine's ``_on_values`` hook), and the loss CUSUMs' replay from a checkpoint of
their state instead of a deep copy of their channels (ixplain.drift._attribution)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from ixplain import ExplanationDriftDetector, IncrementalPFI, IncrementalSAGE
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


def _f(A):
    if isinstance(A, list):  # records
        A = np.array([[r["a"], r["b"], r["c"]] for r in A])
    A = np.asarray(A, dtype=np.float64)
    return 2 * A[:, 0] - A[:, 1]


class _Hook:
    """An ``_on_values`` hook keeping every chunk's mask, rows and reported losses."""

    def __init__(self):
        self.calls = []

    def __call__(self, values, ok, rows, cols, y, losses=None):
        self.calls.append((ok, rows, losses))


def _reported(hook, n):
    """The reported loss of every explained row (NaN elsewhere); None entries are errors."""
    out = np.full(n, np.nan)
    for ok, rows, losses in hook.calls:
        if ok.any():
            assert losses is not None
            out[rows[ok]] = losses[ok]
    return out


def _linear_stream(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X[:, 0] + 0.5 * rng.normal(size=n)


@pytest.mark.parametrize("kw", [{}, {"n_samples": 3}, {"removal": "conditional"}])
@pytest.mark.parametrize("how", ["one", "many", "records"])
def test_ipfi_reports_the_squared_error_of_its_model(kw, how):
    """iPFI's base loss, reported through the hook, is ``(y - f(x))**2`` of the explained
    rows, on the one-row numeric path, the batched path and the records path."""
    X, y = _linear_stream()
    e = IncrementalPFI(_f, "squared_error", random_state=0, feature_names=["a", "b", "c"],
                       **kw)
    e._on_values = hook = _Hook()
    if how == "one":
        for x, t in zip(X, y):
            e.explain_one(x, t)
    elif how == "many":
        for s in range(0, len(X), 37):
            e.explain_many(X[s:s + 37], y[s:s + 37])
    else:
        e.explain_many([dict(zip("abc", x)) for x in X], y)
    got = _reported(hook, len(X))
    explained = ~np.isnan(got)
    assert explained.sum() == len(X) - 1  # all but the first row (empty storage)
    np.testing.assert_allclose(got[explained], ((y - _f(X)) ** 2)[explained], rtol=1e-14,
                               atol=0)


@pytest.mark.parametrize("removal", ["marginal", "conditional"])
def test_isage_reports_the_loss_of_f_itself(removal):
    """iSAGE's last value averages ``n_samples`` copies of ``f(x)``; the reported loss is the
    loss of ``f(x)`` itself."""
    X, y = _linear_stream(200, seed=2)
    e = IncrementalSAGE(_f, loss="squared_error", n_samples=3, random_state=0,
                        feature_names=["a", "b", "c"], removal=removal)
    e._on_values = hook = _Hook()
    for s in range(0, len(X), 23):
        e.explain_many(X[s:s + 23], y[s:s + 23])
    got = _reported(hook, len(X))
    explained = ~np.isnan(got)
    assert explained.sum() == len(X) - 1
    np.testing.assert_allclose(got[explained], ((y - _f(X)) ** 2)[explained], rtol=1e-14,
                               atol=0)


class _Counted:
    """``_f`` counting the rows it predicts."""

    def __init__(self):
        self.rows = 0

    def __call__(self, A):
        self.rows += len(A)
        return _f(np.asarray(A))


def _sign_flip(n=2400, c=1200):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 3))
    y = np.where(np.arange(n) < c, 1.0, -1.0) * _f(X) + 0.1 * rng.normal(size=n)
    return X, y


class _Silent(IncrementalPFI):
    """iPFI that does not report its base loss (the detector calls the model for it)."""

    def _explain_batch(self, X, y, sampler):
        out = super()._explain_batch(X, y, sampler)
        sampler.losses = None
        return out

    def _explain_numeric_row(self, xm, y, t, sampler):
        return None


@pytest.mark.parametrize("batch", [1, 50])
def test_the_static_data_channel_costs_no_model_call(batch):
    """With the base loss reported, a static model's detector predicts no row the explainer
    does not (an explainer that reports none costs a model row per row of its chunks);
    the events and loss changes are those of the model call (a model whose output for a row
    does not depend on the other rows of its call)."""
    X, y = _sign_flip()
    out = {}
    for cls, watched in ((IncrementalPFI, False), (IncrementalPFI, True), (_Silent, True)):
        model = _Counted()
        det = ExplanationDriftDetector(static_model=True, random_state=0) if watched else None
        e = cls(model, "squared_error", random_state=0, drift_detector=det)
        for s in range(0, len(X), batch):
            if batch == 1:
                e.explain_one(X[s], y[s])
            else:
                e.explain_many(X[s:s + batch], y[s:s + batch])
        out[cls, watched] = model.rows, det
    plain, reported, silent = (out[k][0] for k in out)
    # the silent one: one model row per row of every chunk with an explained row (all but
    # the first one-row chunk, met by the empty storage)
    assert reported == plain and silent == plain + len(X) - (batch == 1)
    det, ref = out[IncrementalPFI, True][1], out[_Silent, True][1]
    assert det.loss_changes_ and det.events_  # a change is found (the test can fail)
    assert _events(det.events_) == _events(ref.events_)
    assert _events(det.loss_changes_) == _events(ref.loss_changes_)


def test_a_method_reporting_losses_of_another_length_is_an_error():
    class Bad(IncrementalPFI):
        def _explain_batch(self, X, y, sampler):
            out = super()._explain_batch(X, y, sampler)
            sampler.losses = np.zeros(X.n_rows + 1)
            return out

    X, y = _linear_stream(20)
    e = Bad(_f, "squared_error", random_state=0)
    with pytest.raises(ValueError, match="Sampler.losses"):
        e.explain_many(X, y)


def test_snapshots_pickled_before_losses_were_reported_go_on_alike():
    """A detector whose snapshots' captures were pickled before they kept the reported
    losses (no ``losses`` attribute) loads and finds the events of the run without the
    pickle."""
    pytest.importorskip("river")
    from river import tree
    from river.datasets import synth

    rows = [(dict(x), int(t)) for fn, seed, n in ((1, 0, 2000), (2, 1, 2000))
            for x, t in synth.Agrawal(classification_function=fn, seed=seed).take(n)]

    def run(cut=None):
        model = tree.HoeffdingTreeClassifier()
        det = ExplanationDriftDetector(random_state=0)
        e = IncrementalPFI(model, "zero_one", random_state=0, drift_detector=det)
        for s in range(0, len(rows), 40):
            chunk = rows[s:s + 40]
            e.explain_many([x for x, _ in chunk], [t for _, t in chunk])
            for x, t in chunk:
                model.learn_one(x, t)
            if s == cut:
                for _, _, capture in e.drift_detector._shadows:
                    del capture.__dict__["losses"]
                e = pickle.loads(pickle.dumps(e))
                model = e.model
        return e.drift_detector

    whole, resumed = run(), run(cut=1600)
    assert whole.loss_changes_
    assert _events(resumed.events_) == _events(whole.events_)
    assert _events(resumed.loss_changes_) == _events(whole.loss_changes_)
