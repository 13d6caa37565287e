"""iPDP's drift summaries on a fixed core grid (QA P1): the adaptive grid's edges move by a
lattice point or two every few rows on a stationary stream, and a nonlinear model's
least-squares slope / curvature over a grid that gains or loses an end point changes with them,
so a static model on stationary data gave false "data" events. Each row's ICE curve is now
summarised on a core grid fixed once (the lattice less a margin at each end)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from ixplain import ExplanationDriftDetector, IncrementalPDP
from ixplain.methods._curve_summary import curve_summary
from ixplain.methods.ipdp import CORE_AFTER


def _stairs(A):
    """A static tree-like model: steps in x0 (at 0.3 and every 0.5), additive x1."""
    return np.where(A[:, 0] > 0.3, 1.0, 0.0) + 0.5 * np.floor(2 * A[:, 0]) + A[:, 1]


def _tested(det, name="data"):
    """(rows, values) of a detector's channel memory, in stream order."""
    ch = det._channels[name] if name in det._channels else det._shadows[-1][1]
    order = np.argsort(ch.memory.rows)
    keep = ch.memory.rows[order] >= 0
    return ch.memory.rows[order][keep], ch.memory.values[order][keep]


@pytest.mark.parametrize("seed", [0, 1])
def test_a_static_step_model_on_a_stationary_stream_gives_no_events(seed):
    """x ~ N(0, I) i.i.d., the step model fixed: nothing changes, so no event. The mechanism
    of the old false alarms is checked on the same stream: after the range window filled, the
    rows' grids still have several different ends, and the old summaries -- slope and
    curvature over each row's whole grid, rebuilt from ``ice_history_`` (every row's curve:
    chunks of 100 rows, 100 curves kept) -- fire a detector of the same settings (13-21 events
    per 14,000 rows measured); the core summaries fire none."""
    n = 15_000
    X = np.random.default_rng(seed).normal(size=(n, 3))
    det = ExplanationDriftDetector(static_model=True, random_state=seed)
    ipdp = IncrementalPDP(_stairs, "x0", drift_detector=det, ice_history=100)
    old, ends = [], set()
    for s in range(0, n, 100):
        ipdp.explain_many(X[s:s + 100])
        for g, v in ipdp.ice_history_:
            old.append(curve_summary(g, np.array([len(g)]), v.T, True)[0][0])
            if s >= CORE_AFTER:
                ends.add((g[0], g[-1]))
    assert det.events_ == [], det.events_
    # every row from the core on (row 999: the first row's value starts the range window and
    # is held twice, so the window holds 1,000 values from row 999)
    assert det._channels["data"].n_rows == n - CORE_AFTER + 1

    assert len(ends) >= 3  # the edges move ...
    reference = ExplanationDriftDetector(static_model=True, random_state=seed)
    reference.update_values(np.array(old)[CORE_AFTER:], feature_names=["slope", "curvature"])
    assert len(reference.events_) >= 3  # ... and the whole-grid summaries fire


def _signed_stairs(A):
    """``x2 * stairs(x0) + x1``: the PD of x0 follows the sign of E[x2]."""
    return A[:, 2] * (np.where(A[:, 0] > 0.3, 1.0, 0.0) + 0.5 * np.floor(2 * A[:, 0])) + A[:, 1]


def _flip_stream(n, flip, seed):
    """x0, x1 ~ N(0, 1); x2 = +1 before row ``flip``, -1 from it (sd 0.1)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[:, 2] = np.where(np.arange(n) < flip, 1.0, -1.0) + 0.1 * rng.normal(size=n)
    return X


def test_a_pd_change_of_a_nonlinear_model_is_found_on_the_core():
    """The data flip of x2 at row 6000 turns the PD of x0 (``E[x2] * stairs(v) + 0``) upside
    down: the core slope of every row is ``x2_t * S`` with ``S`` the least-squares slope of
    ``stairs`` on the core (computed here with the core the explainer fixed). With the default
    detector (a learning-model setting: the data channel is a frozen copy of the explainer)
    the first event is ``x0 slope`` on the data channel, decreasing from ``S`` to ``-S``, soon
    after row 6000, and nothing is reported before it."""
    X = _flip_stream(9000, 6000, seed=0)
    det = ExplanationDriftDetector(random_state=0)
    ipdp = IncrementalPDP(_signed_stairs, "x0", drift_detector=det)
    for s in range(0, len(X), 250):
        ipdp.explain_many(X[s:s + 250])
    core = ipdp._core
    ones = np.column_stack([core, np.zeros_like(core), np.ones_like(core)])
    S = np.polyfit(core, _signed_stairs(ones), 1)[0]
    assert S > 0.5
    e = det.events_[0]
    assert (e.feature, e.channel, e.direction) == ("x0 slope", "data", "decrease")
    assert 6000 <= e.row < 6100 and abs(e.start - 6000) <= 10
    assert e.before == pytest.approx(S, rel=0.02) and e.after == pytest.approx(-S, rel=0.1)
    assert all(ev.row >= 6000 for ev in det.events_)


def _run(chunks, X, resume=()):
    """The flip stream through the default detector (check_every=500, range_window=600: the
    first snapshot, at row 500, is warmed up on rows 300-499 while the window reaches 600
    values, so its warm-up copy fixes the core), in the given chunk sizes (cycled), pickled
    after the chunks ending at the rows in ``resume``."""
    det = ExplanationDriftDetector(random_state=3, check_every=500)
    ipdp = IncrementalPDP(_signed_stairs, "x0", range_window=600, drift_detector=det)
    ipdp = _feed(ipdp, chunks, X, resume)
    return ipdp, ipdp.drift_detector


def _feed(ipdp, chunks, X, resume, after_chunk=lambda ipdp: None):
    """``X`` through ``ipdp`` in the chunk sizes (cycled; 1: ``explain_one``), calling
    ``after_chunk(ipdp)`` after each and pickling after the chunks ending at ``resume``."""
    s, i = 0, 0
    while s < len(X):
        size = chunks[i % len(chunks)]
        if size == 1:
            ipdp.explain_one(X[s])
        else:
            ipdp.explain_many(X[s:s + size])
        after_chunk(ipdp)
        s, i = s + size, i + 1
        if s in resume:
            ipdp = pickle.loads(pickle.dumps(ipdp))
    return ipdp


def test_the_core_and_the_events_do_not_depend_on_batching_or_pickling():
    """explain_one row by row, chunks of 7 / 500 / mixed sizes, pickled before and after the
    core is fixed: the same core, the same tested values (bit for bit) and events. The snapshot
    takes the core its warm-up copy fixed, so the data channel tests rows from 399 on one core
    (the copy's window holds 501 values -- the first row's twice -- and reaches 600 at the
    replay of row 399; without the hand-over the snapshot fixed its own core at row 599)."""
    X = _flip_stream(2500, 1500, seed=4)
    ipdp, det = _run([1], X)
    rows, values = _tested(det)
    assert ipdp._core is not None and len(ipdp._core) >= 3
    assert rows[0] == 399 and np.all(np.diff(rows) == 1)
    assert det.events_ and det.events_[0].feature == "x0 slope"
    for chunks, resume in (([7], ()), ([500], ()), ([3, 250, 1, 64], (254, 1572))):
        other, odet = _run(chunks, X, resume)
        assert np.array_equal(other._core, ipdp._core)
        orows, ovalues = _tested(odet)
        assert np.array_equal(orows, rows) and np.array_equal(ovalues, values)
        assert [e.to_dict() for e in odet.events_] == [e.to_dict() for e in det.events_]


def test_core_summaries_of_a_quadratic_model_have_their_closed_form():
    """``f = a x0**2 + b x0 + x1`` (a = 0.3, b = -2), x0 ~ U(0, 10). On an evenly spaced core
    ``v_1 < ... < v_m`` with mean ``w`` (deviations ``u_i`` symmetric, ``sum u**3 = 0``) the
    least-squares slope of the ICE curve is ``sum u f / sum u**2 = b + a sum u (w + u)**2 /
    sum u**2 = b + 2 a w = b + a (v_1 + v_m)`` and the quadratic fit is exact: curvature
    ``a``; the same for every row. The range 0.5..9.5 (5 % / 95 %) takes step 0.5 (19 values),
    the margin is 2 points: core 1.5..8.5 up to a lattice point of sampling noise. Rows before
    the window held 1,000 values (row 999: the first row's value is held twice) report
    nothing; with a fixed grid the core is that grid and
    row 0 reports."""
    a, b = 0.3, -2.0
    X = np.random.default_rng(5).uniform(0, 10, size=(3000, 2))

    def quad(A):
        return a * A[:, 0] ** 2 + b * A[:, 0] + A[:, 1]

    det = ExplanationDriftDetector(static_model=True, random_state=0)
    ipdp = IncrementalPDP(quad, "x0", drift_detector=det)
    ipdp.explain_many(X)
    core = ipdp._core
    assert np.allclose(np.diff(core), 0.5)
    assert core[0] in (1.0, 1.5, 2.0) and core[-1] in (8.0, 8.5, 9.0)
    rows, values = _tested(det)
    assert rows[0] == CORE_AFTER - 1 and len(rows) == len(X) - CORE_AFTER + 1
    assert np.allclose(values[:, 0], b + a * (core[0] + core[-1]), rtol=0, atol=1e-9)
    assert np.allclose(values[:, 1], a, rtol=0, atol=1e-9)

    det = ExplanationDriftDetector(static_model=True, random_state=0)
    fixed = IncrementalPDP(quad, "x0", grid=[4.0, 0.0, 1.0, 2.0, 3.0], drift_detector=det)
    fixed.explain_many(X[:500])
    assert fixed._core.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    rows, values = _tested(det)
    assert rows[0] == 0 and len(rows) == 500
    assert np.allclose(values, [b + a * 4.0, a], rtol=0, atol=1e-9)


def test_a_storage_range_fixes_the_core_once_the_storage_holds_enough_rows():
    """``range_source="storage"`` (a GeometricReservoir of 1,000 rows): the range of row ``t``
    comes from the rows before it, so the core is fixed at row 1,000, the first whose
    storage holds 1,000 values; from there every row is tested, and the stationary step
    model gives no event (the whole-grid summaries gave 18 on this stream)."""
    X = np.random.default_rng(0).normal(size=(20_000, 3))
    det = ExplanationDriftDetector(static_model=True, random_state=0)
    ipdp = IncrementalPDP(_stairs, "x0", range_source="storage", drift_detector=det)
    for s in range(0, len(X), 500):
        ipdp.explain_many(X[s:s + 500])
    assert det.events_ == []
    rows, _ = _tested(det)
    assert det._channels["data"].n_rows == len(X) - CORE_AFTER and rows[-1] == len(X) - 1
    assert np.allclose(np.diff(ipdp._core), 0.2) and len(ipdp._core) >= 9


# ---------------------------------------------------------------- the core fixed again
def _linear(A):
    """``2 x0 + x1``: every ICE curve is a line of slope 2, on any core."""
    return 2.0 * A[:, 0] + A[:, 1]


def _quadratic(A):
    """``0.3 x0**2 - x0 + x1``: on an evenly spaced core ``v_1 .. v_m`` every row's slope is
    ``-1 + 0.3 (v_1 + v_m)`` (see the closed-form test above), so it moves with the core."""
    return 0.3 * A[:, 0] ** 2 - A[:, 0] + A[:, 1]


@pytest.mark.parametrize("model", [_linear, _quadratic])
def test_a_shift_off_the_core_fixes_it_again_and_restarts_the_tests(model):
    """x ~ N(0, I), x0 shifted by +1 sd from row R = 4000, a static model. The range window
    (1,000 rows, 5 % / 95 %) moves up with the shift and the rows' grids lose the core's lowest
    value (its margin was 2 lattice points of step 0.2) within the window's turnover, by row
    R + 1000 at the latest (the window's 5 % point is then -0.645 against a core starting
    near -1.2); after 1,000 more missing rows the core is fixed again. So the rows report
    again within ``2 * CORE_AFTER`` rows of R (measured: R + 1457), at the row where the core
    was fixed again, once, and on a fresh data channel (tests, warm-up, scale) from that row:
    no event. The quadratic model's slope is ``-1 + 0.3 (v_1 + v_m)`` on either core, another
    constant after the fix: a channel fed across it (with the first core's scale: spread 0)
    would fire at once. Its values on the new core are checked against the closed form."""
    R, n = 4000, 8000
    X = np.random.default_rng(0).normal(size=(n, 3))
    X[R:, 0] += 1.0
    det = ExplanationDriftDetector(static_model=True, random_state=0)
    ipdp = IncrementalPDP(model, "x0", drift_detector=det)
    first, restarts = None, []
    hook = ipdp._on_values

    def spy(*args, restarts=(), **kwargs):  # the rows the hook is told the core restarts at
        seen.extend(restarts)
        return hook(*args, restarts=restarts, **kwargs)

    seen: list = []
    ipdp._on_values = spy
    for s in range(0, n, 250):
        ipdp.explain_many(X[s:s + 250])
        first = ipdp._core if first is None else first
    restarts = seen
    assert ipdp._core_epoch == 1 and len(restarts) == 1
    row = restarts[0]
    assert R < row < R + 2 * CORE_AFTER
    assert ipdp._core[0] > first[0] + 0.5 and ipdp._core[-1] > first[-1] + 0.5
    assert det.events_ == [], det.events_
    channel = det._channels["data"]
    assert channel.last_start.tolist() == [row, row] and channel.n_rows == n - row
    rows, values = _tested(det)
    assert rows[0] == max(row, n - det.memory) and rows[-1] == n - 1
    slope = 2.0 if model is _linear else -1.0 + 0.3 * (ipdp._core[0] + ipdp._core[-1])
    assert np.allclose(values[:, 0], slope, rtol=0, atol=1e-9)


def _shift_flip_stream(n, shift_at, flip, seed):
    """:func:`_flip_stream` with x0 shifted by +1 sd from row ``shift_at``."""
    X = _flip_stream(n, flip, seed)
    X[shift_at:, 0] += 1.0
    return X


def _signed_linear(A):
    """``x2 * x0 + x1``: the ICE slope of x0 is the row's x2 on any core."""
    return A[:, 2] * A[:, 0] + A[:, 1]


@pytest.mark.parametrize("static", [True, False])
def test_a_pd_change_after_the_core_was_fixed_again_is_found(static):
    """The +1 sd shift of x0 at row 3000 makes the core be fixed again (before row 5000, see
    above); x2 flips from +1 to -1 at row 7000 (sd 0.1), so every row's slope flips from
    x2 ~ 1 to ~ -1. On the fresh channel (warmed up on rows after the fix) the flip is found:
    the first event is ``x0 slope`` on the data channel, decreasing from about 1 to about -1,
    soon after row 7000 -- with the explainer's own values (static_model) and with the
    frozen snapshot's (the default), whose copy fixed its core again on its own."""
    X = _shift_flip_stream(10_000, 3000, 7000, seed=1)
    det = ExplanationDriftDetector(static_model=static, random_state=0)
    ipdp = IncrementalPDP(_signed_linear, "x0", drift_detector=det)
    for s in range(0, len(X), 500):
        ipdp.explain_many(X[s:s + 500])
    model = ipdp if static else det._shadows[-1][0]
    assert model._core_epoch == 1
    e = det.events_[0]
    assert (e.feature, e.channel, e.direction) == ("x0 slope", "data", "decrease")
    assert 7000 <= e.row < 7100 and abs(e.start - 7000) <= 10
    assert e.before == pytest.approx(1.0, abs=0.02) and e.after == pytest.approx(-1.0, abs=0.1)
    assert e.n_before <= 7000 - 3000  # the regime before began after the shift's core fix


def _run_shift(chunks, X, resume=()):
    """:func:`_run` with a 300-row range window (the core is fixed at row 299 and fixed again
    300 missing rows after the shift) on the stream ``X``; also the rows from which the
    snapshot's core was fixed again (as reported per chunk: exact for chunks of one row,
    which the model channel's checks do not split)."""
    det = ExplanationDriftDetector(random_state=3, check_every=500)
    ipdp = IncrementalPDP(_signed_stairs, "x0", range_window=300, drift_detector=det)
    restarts: list = []

    def collect(ipdp):
        shadows = ipdp.drift_detector._shadows
        restarts.extend(shadows[-1][2].restarts if shadows else [])  # (its hook's last call)

    ipdp = _feed(ipdp, chunks, X, resume, collect)
    return ipdp, ipdp.drift_detector, restarts


def test_fixing_the_core_again_does_not_depend_on_batching_or_pickling():
    """x0 shifted by +1 sd at row 1200, x2 flipped at row 2400, the step model: row by row,
    chunks of 7 / 500 / mixed sizes, pickled before, during and after the miss run -- the
    same cores (explainer and snapshot), the same rows where the snapshot's core was fixed
    again, the same tested values (bit for bit) and the same events, the flip among them."""
    X = _shift_flip_stream(3200, 1200, 2400, seed=4)
    ipdp, det, restarts = _run_shift([1], X)
    shadow = det._shadows[-1][0]
    assert ipdp._core_epoch >= 1 and shadow._core_epoch >= 1 and restarts
    assert 1200 < restarts[0] < 1200 + 600
    rows, values = _tested(det)
    assert rows[0] == restarts[-1]
    assert any(e.feature == "x0 slope" and e.direction == "decrease" and e.row >= 2400
               for e in det.events_)
    for chunks, resume in (([7], ()), ([500], ()), ([3, 250, 1, 64], (254, 1322, 1572))):
        other, odet, orestarts = _run_shift(chunks, X, resume)
        oshadow = odet._shadows[-1][0]
        assert np.array_equal(other._core, ipdp._core)
        assert np.array_equal(oshadow._core, shadow._core)
        assert set(orestarts) <= set(restarts)
        assert np.array_equal(odet._shadows[-1][1].last_start, det._shadows[-1][1].last_start)
        assert (other._core_epoch, oshadow._core_epoch) == (ipdp._core_epoch, shadow._core_epoch)
        orows, ovalues = _tested(odet)
        assert np.array_equal(orows, rows) and np.array_equal(ovalues, values)
        assert [e.to_dict() for e in odet.events_] == [e.to_dict() for e in det.events_]


@pytest.mark.parametrize("static", [True, False])
def test_a_grid_too_small_for_a_core_warns_once(static):
    """``grid_resolution=2`` on U(0, 10) gives the one-value grid [5.]: no core of 3 values can
    be fixed, so the detector would get no summaries at all (QA: silently, even through a PD
    flip). iPDP warns once, naming the feature and the fix; without a detector it does not."""
    X = np.random.default_rng(0).uniform(0, 10, (3000, 2))

    def run(det):
        ipdp = IncrementalPDP(lambda A: np.asarray(A)[:, 0] ** 2, "x0", grid_resolution=2,
                              drift_detector=det)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for s in range(0, 3000, 500):
                ipdp.explain_many(X[s:s + 500])
        return ipdp, [str(w.message) for w in caught if "core grid" in str(w.message)]

    ipdp, messages = run(ExplanationDriftDetector(static_model=static, random_state=0))
    assert ipdp._core is None and len(messages) == 1
    assert "'x0' has 1 value(s)" in messages[0] and "grid_resolution=2" in messages[0]
    assert run(None)[1] == []


class _Bends:
    """``z + b z**2`` with ``z = x0 / unit`` (``b`` set by the test) and x1 ignored."""

    def __init__(self, unit):
        self.b, self.unit = 0.0, unit

    def __call__(self, A):
        z = np.asarray(A)[:, 0] / self.unit
        return z + self.b * z**2


@pytest.mark.parametrize("unit", [1.0, 1e-3, 1e3])
def test_the_model_channel_finds_a_change_whatever_the_feature_unit(unit):
    """QA (session 11): the model check's ``min_change`` compared each summary's change with
    the total of ``|slope| + |curvature|``, whose units are output / feature unit and output /
    feature unit squared: the same model (``z + 0.3 z**2`` from ``z`` at row 2,000, ``z`` the
    feature in its own unit) on the same data, with the feature given as ``x0 = 1000 z``, has
    a slope 1,000 times smaller and a curvature 10**6 times smaller (``3e-7``, under 10 % of
    the total ``1e-3 + 3e-7``), so the curvature that appears was found for ``x0 = z`` and
    ``x0 = z / 1000`` but not for ``x0 = 1000 z``. Each term is now
    measured in output units over the grid (``term_sizes``): the same event, at the same row,
    in every unit, its curvature ``0.3 / unit**2``."""
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=4000) * unit, rng.normal(size=4000)]
    model = _Bends(unit)
    det = ExplanationDriftDetector(random_state=0)
    ipdp = IncrementalPDP(model, "x0", feature_names=["x0", "x1"], drift_detector=det)
    for k in range(0, 4000, 100):
        if k == 2000:
            model.b = 0.3
        ipdp.explain_many(X[k:k + 100])
    events = [(e.row, e.feature, e.channel) for e in det.events_]
    assert events == [(2249, "x0 curvature", "model")], events
    assert det.events_[0].after == pytest.approx(0.3 / unit**2, rel=1e-6)
