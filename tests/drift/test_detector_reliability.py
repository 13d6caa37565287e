"""Reliability of the explanation drift detector (QA open items): a raising callback,
``update_values`` on an attached detector, values near the float limits."""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytest.importorskip("river")

from ixplain import ExplanationDriftDetector, IncrementalPFI


def linear(A):
    return A[:, 0] + 2.0 * A[:, 1]


# ---------------------------------------------------------------------------- 2. two sources
@pytest.mark.parametrize("how", ["constructor", "assignment"])
def test_update_values_on_an_attached_detector_is_refused_and_changes_nothing(how):
    """A detector attached to an explainer tests the values that explainer reports; values
    fed directly would mix a second source into the same features. Refused (naming the
    explainer and the way out) before anything changes; after detaching, accepted."""
    ipfi = IncrementalPFI(linear, "squared_error", random_state=0)
    if how == "constructor":
        det = ExplanationDriftDetector(ipfi, static_model=True)
    else:
        det = ExplanationDriftDetector(static_model=True)
        ipfi.drift_detector = det
    with pytest.raises(ValueError, match=r"attached to IncrementalPFI.*"
                                         r"explainer\.drift_detector = None"):
        det.update_values(np.zeros((3, 2)), feature_names=["x0", "x1"])
    assert det.n_rows_ == 0 and det.feature_names_ is None and not det._channels
    ipfi.drift_detector = None
    det.update_values(np.zeros((3, 2)), feature_names=["x0", "x1"])
    assert det.n_rows_ == 3


# ---------------------------------------------------------------------------- 1. callback
class Boom(Exception):
    pass


def raise_once():
    """A callback that raises at its first event and records the later ones."""
    seen: list = []

    def callback(event):
        if not seen:
            seen.append(None)
            raise Boom(event.feature)
        seen.append(event)

    return callback, seen


def _key(events):
    return [(e.row, e.start, e.feature, e.channel, e.before, e.after, e.statistic)
            for e in events]


def shifting_values(n=6000, seed=0):
    """Three features of N(0, 0.1) values: ``b`` steps by +0.5 at row 2000, ``a`` and ``c``
    by -0.4 at row 4000 (events on several features, some in one chunk)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, 3)) * 0.1
    v[2000:, 1] += 0.5
    v[4000:, [0, 2]] -= 0.4
    return v


@pytest.mark.parametrize("chunk", [1, 500, 6000])
def test_a_raising_callback_leaves_update_values_complete(chunk):
    """The callback raises at the first event. The exception reaches the caller, the
    event is in events_, the rows are counted, and going on with the stream gives the
    same events (rows, starts, features, means, statistics) as a run without callback;
    the callback gets every later event. Before: the push stopped at the event (the row
    count not advanced, the chunk's later events lost), so the stream diverged."""
    v = shifting_values()
    plain = ExplanationDriftDetector(random_state=0).update_values(v, feature_names=list("abc"))
    assert len({e.feature for e in plain.events_}) == 3  # the test can tell a difference
    callback, seen = raise_once()
    det = ExplanationDriftDetector(random_state=0, callback=callback)
    raised = 0
    for s in range(0, len(v), chunk):
        try:
            det.update_values(v[s:s + chunk], feature_names=list("abc"))
        except Boom:
            raised += 1
            assert det.n_rows_ == min(s + chunk, len(v)) and det.events_
    assert raised == 1
    assert _key(det.events_) == _key(plain.events_)
    # the callback gets the events of the later updates (not those of the one that raised)
    end = (plain.events_[0].row // chunk + 1) * chunk
    assert _key(seen[1:]) == _key([e for e in plain.events_ if e.row >= end])
    assert det.n_rows_ == len(v)


def test_a_raising_callback_leaves_the_explainer_and_detector_complete():
    """Attached to iPFI (static model; x1's spread triples at row 1500): a callback that
    raises at the first event, the rows given to the explainer in chunks of 250, the chunk
    that raised not given again. Events, the explainer's estimate and its row count are
    those of a run without callback. Before: the explainer stopped inside the chunk (rows
    stored, not aggregated, not counted)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = linear(X)
    X[1500:, 1] = 3.0 * rng.normal(size=1500)

    def run(callback):
        ipfi = IncrementalPFI(linear, "squared_error", random_state=0)
        det = ExplanationDriftDetector(ipfi, static_model=True, random_state=0,
                                       callback=callback)
        raised = 0
        for s in range(0, len(X), 250):
            try:
                ipfi.explain_many(X[s:s + 250], y[s:s + 250])
            except Boom:
                raised += 1
        return ipfi, det, raised

    ipfi0, plain, _ = run(None)
    assert plain.events_
    callback, _ = raise_once()
    ipfi, det, raised = run(callback)
    assert raised == 1
    assert _key(det.events_) == _key(plain.events_)
    assert ipfi.n_seen_ == ipfi0.n_seen_ == len(X) and det.n_rows_ == len(X)
    np.testing.assert_array_equal(ipfi.importances_, ipfi0.importances_)


# ---------------------------------------------------------------------------- 3. extremes
def _fields(events):
    return [(e.row, e.start, e.feature, e.direction, e.n_before, e.n_after) for e in events]


def extreme_stream(seed=0):
    """``a``: signs +-1 with N(0, 0.1) noise (a warm-up median near +-1: deviations of 2,
    which overflow at 2**1023); ``b``: N(0, 0.1) stepping +0.5 at row 2000; a loss that
    steps +2 at row 2000 too (its attribution window sums the values' squares)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(4000, 2)) * 0.1
    v[:, 0] += rng.choice([-1.0, 1.0], size=4000)
    v[2000:, 1] += 0.5
    v[3000:, 0] += 0.4
    loss = rng.normal(size=4000) ** 2
    loss[2000:] += 2.0
    return v, loss


@functools.cache
def order_one_run(test):
    """The detector on :func:`extreme_stream` itself (once per test)."""
    v, loss = extreme_stream()
    return ExplanationDriftDetector(test=test, random_state=0).update_values(
        v, feature_names=["a", "b"], losses=None if test == "kswin" else loss)


@pytest.mark.parametrize("test", ["cusum", "adwin", "kswin", "page_hinkley"])
@pytest.mark.parametrize("power", [1022, 997, -997, -1060])
def test_values_at_the_float_limits_give_the_events_of_the_same_values_at_order_1(test, power):
    """The stream times ``2**power`` (1e307, 1e300, 1e-300; 2**-1060 ~ 1e-319, subnormal:
    the values keep 4 to 14 significant bits) against the stream itself. Multiplying by a
    power of two is exact, and the channel scales by the power of two fitted at the
    warm-up, so the tests see the same scaled values (subnormals up to their round-off,
    below the 1e-6 rounding of the scaled values): the same event rows, starts, features
    and counts, their means ``2**power`` times those at order 1, every field finite, no
    overflow. Before: at 1e-300 the scale's absolute floor (1e-300) widened the scale (later
    or no events), subnormal values gave no event at all; at 2**1022 the deviations from
    the median overflowed; the attribution window's squares overflowed at 1e300."""
    v, loss = extreme_stream()
    names = ["a", "b"]
    small = order_one_run(test)
    assert small.events_ and {e.feature for e in small.events_} == {"a", "b"}
    factor = 2.0 ** power
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        big = ExplanationDriftDetector(test=test, random_state=0).update_values(
            v * factor, feature_names=names, losses=None if test == "kswin" else loss)
    assert _fields(big.events_) == _fields(small.events_)
    assert [e.row for e in big.loss_changes_] == [e.row for e in small.loss_changes_]
    for e, f in zip(big.events_, small.events_):
        fields = (e.before, e.after, e.before_low, e.before_high, e.after_low, e.after_high)
        assert np.isfinite(fields).all() and np.isfinite(e.statistic)
        if power > -1000:  # (not subnormal: exact up to the summaries' round-off)
            np.testing.assert_allclose(np.array([e.before, e.after]) / factor,
                                       [f.before, f.after], rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(e.statistic, f.statistic, rtol=1e-9)


# ---------------------------------------------------------------------------- 5. the split
@pytest.mark.parametrize("with_loss", [False, True])
def test_every_test_gets_its_bonferroni_share_and_page_hinkley_only_a_threshold(with_loss):
    """What the README and the detector docstring say of ``delta``: each of the ``k``
    feature tests (``k + 1`` with the loss test, which is a CUSUM whatever ``test`` is, split
    again over its design shifts) gets ``delta / k`` -- as CUSUM's ``level``, ADWIN's
    ``delta``, KSWIN's ``alpha`` (one KS test per row) -- and Page-Hinkley only the threshold
    ``log(1 / share)``."""
    import math

    from ixplain.drift._attribution import LOSS_SHIFTS

    k, delta = 4, 0.002
    share = delta / (k + 1 if with_loss else k)
    for test, attr in [("cusum", "level"), ("adwin", "delta"), ("kswin", "alpha"),
                       ("page_hinkley", "level")]:
        det = ExplanationDriftDetector(test=test, delta=delta).update_values(
            np.zeros((3, k)), losses=np.zeros(3) if with_loss else None)
        channel = det._channels["values"]
        assert [getattr(t, attr) for t in channel.tests] == [share] * k
        if test == "page_hinkley":
            assert all(t.threshold == math.log(1.0 / share) for t in channel.tests)
        if with_loss:
            losses = [t for ch in channel.trigger.losses for t in ch.tests]
            assert [type(t).__name__ for t in losses] == ["CUSUMTest"] * len(LOSS_SHIFTS)
            assert [t.level for t in losses] == [share / len(LOSS_SHIFTS)] * len(LOSS_SHIFTS)


def test_a_memory_this_machine_cannot_hold_is_refused_up_front():
    """``memory=10**12`` needs at least 16 bytes a row (a value and its row), 16 TB: refused
    at construction with the bytes and the parameter, not by numpy at the first update; a
    memory that fits one value a row but not ``k`` of them is refused when ``k`` is known,
    and the detector stays usable with another memory."""
    with pytest.raises(MemoryError, match=r"memory=1,000,000,000,000 rows would need"):
        ExplanationDriftDetector(memory=10**12)
    det = ExplanationDriftDetector(memory=10**7)   # 160 MB for 1 value a row: fits
    with pytest.raises(MemoryError, match=r"memory=10,000,000 rows of 100000 values"):
        det.update_values(np.zeros((3, 100_000)))   # 8 TB
