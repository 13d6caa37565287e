"""QA of the explanation drift detector (session 6): a detector assigned to an explainer's
``drift_detector`` after construction, label-free values with a static model given real
labels, values near 1e300, the model channel's reference sample after a real drift."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

pytest.importorskip("river")

from ixplain import ExplanationDriftDetector, IncrementalPDP, IncrementalPFI, IncrementalSAGE


def linear(A):
    return A[:, 0] + 2.0 * A[:, 1]


def shifted_rows(n=3000, seed=0):
    """``y = x0 + 2 x1`` while x1's spread triples at row n / 2 (x1's loss increase grows)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = linear(X)
    X[n // 2:, 1] = 3.0 * rng.normal(size=n - n // 2)
    return X, y


# ---------------------------------------------------------------------------- 1. assignment
@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSAGE])
def test_assigning_a_detector_attaches_it_as_the_constructor_does(cls):
    """Before: the assignment only set the attribute; the explainer never reported to it,
    which found no event."""
    X, y = shifted_rows()
    given = cls(linear, loss="squared_error", random_state=0,
                drift_detector=ExplanationDriftDetector(static_model=True, random_state=0))
    assigned = cls(linear, loss="squared_error", random_state=0)
    det = ExplanationDriftDetector(static_model=True, random_state=0)
    assigned.drift_detector = det
    assert assigned.drift_detector is det and det.explainer is assigned
    for s in range(0, len(X), 250):
        given.explain_many(X[s:s + 250], y[s:s + 250])
        assigned.explain_many(X[s:s + 250], y[s:s + 250])
    assert given.drift_detector.events_ and det.events_ == given.drift_detector.events_
    np.testing.assert_array_equal(assigned.importances_, given.importances_)


def test_assignment_errors_change_nothing():
    X, y = shifted_rows(400)
    det = ExplanationDriftDetector(static_model=True)
    ipfi = IncrementalPFI(linear, "squared_error", drift_detector=det)
    with pytest.raises(TypeError, match="drift_detector.*ExplanationDriftDetector or None"):
        ipfi.drift_detector = "yes"
    other = IncrementalPFI(linear, "squared_error")
    with pytest.raises(ValueError, match="already watches another explainer"):
        other.drift_detector = det
    assert other.drift_detector is None and det.explainer is ipfi and ipfi.drift_detector is det
    ipfi.explain_many(X[:10], y[:10])
    with pytest.raises(ValueError, match="must be attached before the explainer sees rows"):
        ipfi.drift_detector = ExplanationDriftDetector()
    assert ipfi.drift_detector is det and ipfi._on_values == det.on_values
    ipfi.drift_detector = det  # the one attached: nothing changes
    assert ipfi.drift_detector is det and det.n_rows_ == 10
    with pytest.raises(TypeError, match="reports its per-row values"):
        ExplanationDriftDetector(explainer="an explainer")


def test_assigning_none_detaches_cleanly():
    """After ``= None`` the explainer goes on exactly as one that never had a detector, the
    detector keeps its events and cannot be attached to anything again."""
    X, y = shifted_rows()
    det = ExplanationDriftDetector(static_model=True, random_state=0)
    ipfi = IncrementalPFI(linear, "squared_error", random_state=0, drift_detector=det)
    plain = IncrementalPFI(linear, "squared_error", random_state=0)
    ipfi.explain_many(X[:1000], y[:1000])
    plain.explain_many(X[:1000], y[:1000])
    ipfi.drift_detector = None
    assert ipfi.drift_detector is None and det.explainer is None and ipfi._on_values is None
    ipfi.explain_many(X[1000:], y[1000:])
    plain.explain_many(X[1000:], y[1000:])
    np.testing.assert_array_equal(ipfi.importances_, plain.importances_)
    assert det.n_rows_ == 1000 and det.events_ == []
    with pytest.raises(ValueError, match="has already tested 1000 rows"):
        IncrementalPFI(linear, "squared_error", drift_detector=det)
    ipfi.drift_detector = None  # twice: nothing to detach
    clone = pickle.loads(pickle.dumps(ipfi))
    assert clone.drift_detector is None


def test_replacing_a_detector_detaches_the_old_one():
    old, new = ExplanationDriftDetector(), ExplanationDriftDetector(static_model=True)
    ipfi = IncrementalPFI(linear, "squared_error", drift_detector=old)
    ipfi.drift_detector = new
    assert old.explainer is None and new.explainer is ipfi and ipfi._on_values == new.on_values
    X, y = shifted_rows(300)
    ipfi.explain_many(X, y)
    assert new.n_rows_ == 300 and old.n_rows_ == 0
    ipdp = IncrementalPDP(linear, "x0")
    again = ExplanationDriftDetector(ipdp)  # the constructor attaches through the same path
    assert ipdp.drift_detector is again


def test_pickles_with_an_assigned_detector_keep_the_old_layout():
    """An explainer keeps its detector under ``drift_detector`` in its instance dict, where
    pickles taken before the property hold it: loading restores the dict (no assignment
    runs), and a pickle taken mid-stream goes on with the same events."""
    X, y = shifted_rows()
    ipfi = IncrementalPFI(linear, "squared_error", random_state=0)
    ipfi.drift_detector = ExplanationDriftDetector(static_model=True, random_state=0)
    ipfi.explain_many(X[:1000], y[:1000])
    clone = pickle.loads(pickle.dumps(ipfi))
    assert clone.__dict__["drift_detector"] is clone.drift_detector
    assert clone.drift_detector.explainer is clone
    for e in (ipfi, clone):
        e.explain_many(X[1000:], y[1000:])
    assert ipfi.drift_detector.events_
    assert clone.drift_detector.events_ == ipfi.drift_detector.events_


# ---------------------------------------------------------------------------- 3. near 1e300
def test_values_near_the_float_limit_give_finite_means_and_bounds():
    """Values times 1e300 give the same events as the values, their means, bounds,
    statistics and standard errors times 1e300 (relative error 1e-12), all finite, and no
    overflow warning. Before: the squares overflowed (inf bounds, z = 0, NaN or inf
    standard errors)."""
    rng = np.random.default_rng(0)
    v = rng.normal(size=(4000, 2)) * 0.1
    v[2000:, 1] += 0.5
    small = ExplanationDriftDetector(random_state=0).update_values(v, feature_names=["a", "b"])
    with np.errstate(all="raise"):
        big = ExplanationDriftDetector(random_state=0).update_values(
            v * 1e300, feature_names=["a", "b"])
    assert small.events_ and len(big.events_) == len(small.events_)
    for e, f in zip(big.events_, small.events_):
        assert (e.row, e.start, e.feature, e.n_before, e.n_after) == (
            f.row, f.start, f.feature, f.n_before, f.n_after)
        for name in ("before", "before_low", "before_high", "after", "after_low", "after_high"):
            assert math.isclose(getattr(e, name) / 1e300, getattr(f, name), rel_tol=1e-12,
                                abs_tol=1e-15), name
        assert math.isclose(e.statistic, f.statistic, rel_tol=1e-12)
    a, b = big.explain_change(0), small.explain_change(0)
    for name in ("before", "before_se", "after", "after_se"):
        np.testing.assert_allclose(getattr(a, name) / 1e300, getattr(b, name), rtol=1e-12)
    frame = a.to_frame()
    assert np.isfinite(frame[["before_low", "before_high", "after_low", "after_high"]]).all().all()


# ---------------------------------------------------------------------------- 2. label_free
def test_label_free_static_model_tests_label_free_values_whatever_labels_the_explainer_gets():
    """``label_free=True, static_model=True``: the data channel tests the values of the
    model's own predictions as labels. Rows given to the explainer directly with their real
    labels (whose relation to x changes at row 1,500 here) give the same events as rows fed
    through ``update_many`` (the model's labels), while the explainer's own estimate uses the
    real labels, as without a detector. Before: the real labels' values were tested (an x1
    event whose after-mean is negative, impossible for the label-free squared-error game)."""
    X, y = shifted_rows()

    def detector():
        return ExplanationDriftDetector(static_model=True, label_free=True, random_state=0)

    fed = IncrementalPFI(linear, "squared_error", random_state=0, drift_detector=detector())
    direct = IncrementalPFI(linear, "squared_error", random_state=0, drift_detector=detector())
    plain = IncrementalPFI(linear, "squared_error", random_state=0)
    for s in range(0, len(X), 300):
        fed.drift_detector.update_many(X[s:s + 300])
        direct.explain_many(X[s:s + 300], y[s:s + 300])
        plain.explain_many(X[s:s + 300], y[s:s + 300])
    events = fed.drift_detector.events_
    assert events and events[0].feature == "x1" and events[0].after > events[0].before > 0
    assert direct.drift_detector.events_ == events
    np.testing.assert_array_equal(direct.importances_, plain.importances_)
    assert not np.allclose(fed.importances_, plain.importances_)  # (the labels differ)


def test_label_free_static_model_warns_for_rows_given_directly_after_fed_rows():
    X, y = shifted_rows(600)
    det = ExplanationDriftDetector(static_model=True, label_free=True, random_state=0)
    ipfi = IncrementalPFI(linear, "squared_error", random_state=0, drift_detector=det)
    det.update_many(X[:300])
    tested = det._channels["data"].n_rows
    with pytest.warns(RuntimeWarning, match="rows given to the explainer with their labels"):
        ipfi.explain_many(X[300:], y[300:])
    assert det._channels["data"].n_rows == tested and ipfi.n_seen_ == 600


# ---------------------------------------------------------------------------- 5. reference
def test_the_model_channel_names_a_feature_that_became_relevant_after_a_real_drift():
    """Agrawal (River's functions 1 -> 2: age and salary -> age and elevel) at row 3,000, a
    Hoeffding tree learning prequentially. After the data channel's loss change, the model
    channel's reference sample becomes the last ``n_reference`` rows, with their labels, so
    the tree's growing use of elevel is measured on rows of the new concept: a model event
    names elevel (increase) after the change. Before,
    the reference rows kept their old labels, on which elevel gains nothing: no model event
    after the change named it."""
    from river import tree
    from river.datasets import synth

    n, at = 6500, 3000
    rows = [(dict(x), int(y)) for x, y in
            list(synth.Agrawal(classification_function=1, seed=2).take(at))
            + list(synth.Agrawal(classification_function=2, seed=3).take(n - at))]
    model = tree.HoeffdingTreeClassifier(grace_period=50)
    det = ExplanationDriftDetector(random_state=2)
    ipfi = IncrementalPFI(model, "zero_one", random_state=2, drift_detector=det)
    for s in range(0, n, 50):
        chunk = rows[s:s + 50]
        ipfi.explain_many([x for x, _ in chunk], [y for _, y in chunk])
        for x, y in chunk:
            model.learn_one(x, y)
    assert any(c.row >= at for c in det.loss_changes_)
    named = [e for e in det.events_ if e.channel == "model" and e.row >= at]
    assert any(e.feature == "elevel" and e.direction == "increase" for e in named), named


@pytest.mark.parametrize("method", ["pfi", "sage"])
def test_model_that_changes_with_the_concept_is_measured_on_the_new_rows(method):
    """A linear model ``y = a + 2 b`` retrained to ``y = a + 2 c`` at row 2500, where the
    labels change too. The data channel's loss change moves the model channel's reference
    sample to the rows since the change, with the model *at the reference point* (a frozen
    copy) explained on them: c's importance goes from 0 (the old model ignores c) to about
    ``E[(2 c' - 2 c)**2] = 8`` for PFI (4 for SAGE's contribution, half of it), an
    increase. On the old rows' old labels the new model's c looked harmful (SAGE: 'decrease'
    to -3.8) and PFI named no c at all."""
    from ixplain import IncrementalSAGE

    n, switch = 5000, 2500
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 4))
    w1, w2 = np.array([1.0, 2.0, 0.0, 0.0]), np.array([1.0, 0.0, 2.0, 0.0])
    y = np.where(np.arange(n) < switch, X @ w1, X @ w2) + 0.1 * rng.normal(size=n)

    class Linear:  # (a class: the frozen copies copy its weights)
        def __init__(self):
            self.w = w1.copy()

        def __call__(self, A):
            return np.asarray(A, float) @ self.w

    model = Linear()
    det = ExplanationDriftDetector(random_state=0)
    cls = IncrementalPFI if method == "pfi" else IncrementalSAGE
    kw = {"loss": "squared_error"} if method == "sage" else {}
    args = (model,) if method == "sage" else (model, "squared_error")
    e = cls(*args, alpha=0.01, random_state=0, drift_detector=det, feature_names=list("abcd"),
            **kw)
    for s in range(0, n, 100):
        if s == switch:
            model.w[:] = w2
        e.explain_many(X[s:s + 100], y[s:s + 100])
    model_events = [ev for ev in det.events_ if ev.channel == "model"]
    c = [ev for ev in model_events if ev.feature == "c"]
    assert c and c[0].direction == "increase" and c[0].before == pytest.approx(0, abs=0.1)
    assert c[0].after == pytest.approx(8.0 if method == "pfi" else 4.0, rel=0.25)
    assert switch <= c[0].row < switch + 500


def test_bad_warmup_memory_and_rows_are_refused_up_front():
    """qa6: ``warmup=1`` passed the detector and failed at the first update in CUSUMTest; a
    memory of 10 rows gave an event with the wrong direction (before = 1 value); NaN or
    fractional row indices were cast with a numpy warning (NaN: the rows restarted at 0)."""
    with pytest.raises(ValueError, match="warmup"):
        ExplanationDriftDetector(warmup=1)
    with pytest.raises(ValueError, match=r"memory=10 rows .* memory >= 2 \* warmup = 400"):
        ExplanationDriftDetector(memory=10)
    det = ExplanationDriftDetector()
    for rows in ([0.0, np.nan], [0.2, 1.9]):
        with pytest.raises(ValueError, match="row indices must be whole numbers"):
            det.update_values(np.zeros((2, 2)), rows=rows)
    det.update_values(np.zeros((2, 2)), rows=[0.0, 3.0])  # whole floats are fine
    assert det.n_rows_ == 4


def test_update_values_takes_names_from_a_dataframe_and_refuses_other_names():
    """qa6: a DataFrame's column names were ignored (features v0, v1) and a later chunk with
    reordered columns was taken by position, so a change of column ``b`` was reported as
    ``v0``. Now its columns name the features, a reordered chunk is put back in order, and
    names that differ from the first call's, or repeat, are refused."""
    import pandas as pd

    rng = np.random.default_rng(0)
    v = rng.normal(size=(4000, 2)) * 0.1
    v[2000:, 1] += 0.5  # column "b" changes
    det = ExplanationDriftDetector(random_state=0)
    det.update_values(pd.DataFrame(v[:2000], columns=["a", "b"]))
    det.update_values(pd.DataFrame(v[2000:, ::-1], columns=["b", "a"]))
    assert det.feature_names_ == ["a", "b"]
    assert det.events_ and {e.feature for e in det.events_} == {"b"}
    with pytest.raises(ValueError, match=r"got features \['a', 'c'\].*watches \['a', 'b'\]"):
        det.update_values(v[:5], feature_names=["a", "c"])
    with pytest.raises(ValueError, match="cannot change"):
        det.update_values(pd.DataFrame(v[:5], columns=["a", "c"]))
    with pytest.raises(ValueError, match="feature name 'x' is repeated"):
        ExplanationDriftDetector().update_values(v[:5], feature_names=["x", "x"])


def test_a_model_that_cannot_be_copied_is_refused_when_attached():
    """qa6: with a learning-mode detector, a model holding a lock failed only at the first
    model check (row 999) with a bare pickling TypeError; now attaching says why and what
    to do, and ``static_model=True`` (no copies) accepts it."""
    import threading

    class Locked:
        def __init__(self):
            self.lock = threading.Lock()

        def __call__(self, A):
            return np.asarray(A, float)[:, 0]

    with pytest.raises(TypeError, match=r"model cannot be copied .*static_model=True"):
        IncrementalPFI(Locked(), "squared_error", drift_detector=ExplanationDriftDetector())
    det = ExplanationDriftDetector(static_model=True)
    IncrementalPFI(Locked(), "squared_error", drift_detector=det).explain_many(
        np.zeros((5, 2)), np.zeros(5))
    assert det.n_rows_ == 5


def test_explain_change_and_losses_errors_name_the_problem():
    """qa6: ``explain_change("a")`` said "invalid literal for int()", with no events the
    index range read "(0..-1)", 2-D losses "300 rows of values but 600 losses", string
    losses a bare float conversion error."""
    det = ExplanationDriftDetector()
    with pytest.raises(ValueError, match="no events yet"):
        det.explain_change(0)
    with pytest.raises(TypeError, match="a DriftEvent of events_ or its index"):
        det.explain_change("a")
    with pytest.raises(ValueError, match=r"losses must have shape \(300,\).*\(300, 2\)"):
        det.update_values(np.zeros((300, 2)), losses=np.zeros((300, 2)))
    with pytest.raises(TypeError, match="losses must be numbers"):
        det.update_values(np.zeros((3, 2)), losses=["a", "b", "c"])
    assert det.n_rows_ == 0  # nothing was taken


@pytest.mark.parametrize("bad", ["x", -1, True, 1.5])
def test_a_bad_random_state_is_named_with_its_value(bad):
    """QA (session 11): the detector's message said "Got str instead" (the type) where the
    explainers' said "Got 'x' instead" (the value), and raised ValueError where they raised
    TypeError: both now show the value and raise the same error."""
    from ixplain import IncrementalPFI

    for build in (lambda: ExplanationDriftDetector(random_state=bad),
                  lambda: IncrementalPFI(lambda X: X[:, 0], "squared_error", random_state=bad)):
        error = ValueError if bad == -1 else TypeError  # (a wrong type: TypeError, as before)
        with pytest.raises(error, match=f"'random_state' parameter .* Got {bad!r} instead"):
            build()


def test_explain_change_takes_list_indices_and_says_so():
    """``explain_change(-1)`` is the last event (as for a list); an index out of range names
    both ranges it accepts (QA, session 11: the message gave ``0..n-1`` only)."""
    rng = np.random.default_rng(0)
    v = rng.normal(size=(4000, 2))
    v[2000:, 0] += 2.0
    det = ExplanationDriftDetector(random_state=0).update_values(v, feature_names=["a", "b"])
    n = len(det.events_)
    assert n >= 1
    assert det.explain_change(-1) is det.explain_change(n - 1)
    with pytest.raises(ValueError, match=rf"an index of events_ \(0\.\.{n - 1}, or -{n}\.\.-1"):
        det.explain_change(n)
