"""Explanation-based drift detection (issue 14): synthetic value streams with known shifts,
stationary streams over many seeds, feature attribution on short Agrawal streams, the two
channels, label-free mode, pickling mid-stream, bad input."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from ixplain.drift._snapshot import reference_values

pytest.importorskip("river")

from river.datasets import synth

from ixplain import (
    DriftEvent,
    DriftExplanation,
    ExplanationDriftDetector,
    GeometricReservoir,
    IncrementalPDP,
    IncrementalPFI,
    IncrementalSAGE,
)
from ixplain.drift import ADWINTest, ChangeTest, KSWINTest, PageHinkleyTest


# ---------------------------------------------------------------------------- helpers
def agrawal_rule_1(X):
    """River's Agrawal classification function 1 (age and salary), the true rule as a model."""
    age = np.array([r["age"] for r in X])
    sal = np.array([r["salary"] for r in X])
    y = (((age < 40) & (sal >= 50_000) & (sal <= 100_000))
         | ((age >= 40) & (age < 60) & (sal >= 75_000) & (sal <= 125_000))
         | ((age >= 60) & (sal >= 25_000) & (sal <= 75_000)))
    return y.astype(int)


def agrawal_abrupt(n, position, seed, functions=(1, 2)):
    """Rows of rule ``functions[0]`` up to ``position``, then rows of rule ``functions[1]``."""
    a = synth.Agrawal(classification_function=functions[0], seed=seed).take(position)
    b = synth.Agrawal(classification_function=functions[1], seed=seed + 1).take(n - position)
    return [(dict(x), int(y)) for x, y in list(a) + list(b)]


def feed(explainer, rows, batch=32):
    for s in range(0, len(rows), batch):
        chunk = rows[s:s + batch]
        explainer.explain_many([x for x, _ in chunk], [y for _, y in chunk])


def adwin_delay_bound(shift_u, sd_u, delta_j, n0):
    """Rows after which ADWIN's cut condition holds for a mean shift ``shift_u`` (values in
    [0, 1] with standard deviation ``sd_u``), with half the shift as noise margin.

    ADWIN cuts ``W = W0 W1`` when ``|mean(W0) - mean(W1)| >= eps`` with
    ``eps = sqrt(2 / m * var * L) + 2 / (3 m) * L``, ``m = 1 / (1/n0 + 1/n1)``,
    ``L = ln(2 / delta')`` and ``delta' = delta / n`` (the rigorous choice; River's is larger,
    so it cuts no later). Solving ``shift_u / 2 >= eps`` for the smallest ``n1`` and adding the
    clock (32 rows between checks) gives the bound.
    """
    for n1 in range(2, 100_000):
        m = 1.0 / (1.0 / n0 + 1.0 / n1)
        big_l = math.log(2.0 * (n0 + n1) / delta_j)
        eps = math.sqrt(2.0 / m * sd_u**2 * big_l) + 2.0 / (3.0 * m) * big_l
        if shift_u / 2 >= eps:
            return n1 + 32
    raise AssertionError("no bound")


# ---------------------------------------------------------------------------- synthetic values
def test_mean_shift_is_found_within_adwins_bound_on_the_right_feature():
    """Four features of N(0, 0.1) values; feature 2 shifts by +0.3 at row 3000.

    The channel scales values by 4 times the warm-up's largest deviation ``s`` (about 0.35 for
    200 normal values of sd 0.1), so the shift is ``0.3 / (4 s)`` and the sd ``0.1 / (4 s)`` in
    [0, 1]; each of the 4 tests runs at ``delta / 4`` (Bonferroni)."""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        v = rng.normal(0.0, 0.1, size=(6000, 4))
        v[3000:, 2] += 0.3
        det = ExplanationDriftDetector(test="adwin", random_state=seed)
        det.update_values(v, feature_names=list("abcd"))
        channel = det._channels["values"]
        s = float(np.ldexp(channel.scale[2], -channel.shift))  # (the values' units)
        bound = adwin_delay_bound(0.3 / (4 * s), 0.1 / (4 * s), 0.002 / 4, 2800)
        first = det.events_[0]
        assert first.feature == "c" and first.channel == "values"
        assert first.direction == "increase" and first.statistic > 0
        assert 3000 <= first.row <= 3000 + bound
        assert abs(first.start - 3000) <= 10  # the change point estimate
        assert first.before_low <= 0.0 <= first.before_high  # true means inside the bounds
        assert first.after_low <= 0.3 <= first.after_high
        assert first.test == "ADWIN(delta=0.0005)"
        assert all(e.feature == "c" for e in det.events_)


@pytest.mark.parametrize("test", ["cusum", "adwin"])
def test_no_events_on_stationary_streams_over_many_seeds(test):
    """40 seeds x 3000 rows x 5 features (continuous and {-1, 0, 1}-valued, like 0-1 loss
    differences). ADWIN's guarantee: while the mean is constant, each check cuts with
    probability at most ``delta / k`` per feature, so at most ``delta`` per check for the
    family: about 3750 checks allow 7.5 false alarms in expectation. CUSUM's: about ``delta``
    per 100,000 rows for the family. Both are conservative (unions over checks and start rows)
    and we require none."""
    n_events = 0
    for seed in range(40):
        rng = np.random.default_rng(100 + seed)
        v = np.column_stack([
            rng.normal(0.2, 0.3, size=(3000, 3)),
            rng.choice([-1.0, 0.0, 1.0], p=[0.1, 0.6, 0.3], size=(3000, 2)),
        ])
        det = ExplanationDriftDetector(test=test, random_state=seed).update_values(v)
        n_events += len(det.events_)
    assert n_events == 0


def test_cusum_finds_a_mean_shift_within_its_expected_delay():
    """The default test. Four N(0, 1) features; feature 2 shifts by +1 sd at row 3000.

    CUSUM's upper sum grows by ``d z - psi(d)`` per row with ``d = 0.5`` and, for normal
    values, ``psi(d) = d**2 / 2``: after the shift ``E[d z - psi] = 0.5 - 0.125 = 0.375`` per
    row, so it reaches ``h = log(200000 / (delta / 4)) = 19.8`` after about ``h / 0.375 = 53``
    rows (the self-starting reference absorbs part of the shift, so we allow 3 times that);
    the other features' sums drift down by ``0.125`` per row and stay quiet."""
    h = math.log(200_000 / (0.002 / 4))
    for seed in range(5):
        rng = np.random.default_rng(seed)
        v = rng.normal(size=(6000, 4))
        v[3000:, 2] += 1.0
        det = ExplanationDriftDetector(random_state=seed).update_values(
            v, feature_names=list("abcd"))
        first = det.events_[0]
        assert (first.feature, first.direction) == ("c", "increase")
        assert first.test == "CUSUM(level=0.0005)"
        assert 3000 <= first.row <= 3000 + 3 * h / 0.375
        assert abs(first.start - 3000) <= 30  # the split of only ~40 rows after the shift
        assert all(e.feature == "c" for e in det.events_)


def test_kswin_and_page_hinkley_find_the_shift():
    rng = np.random.default_rng(0)
    v = rng.normal(0.0, 0.1, size=(3000, 3))
    v[1500:, 0] -= 0.5
    for test in ("kswin", "page_hinkley"):
        det = ExplanationDriftDetector(test=test, delta=1e-6, random_state=0)
        det.update_values(v, feature_names=["x", "y", "z"])
        first = det.events_[0]
        assert (first.feature, first.direction) == ("x", "decrease"), test
        assert 1500 <= first.row < 1600, test


def test_tests_follow_the_protocol():
    for t in (ADWINTest(0.01), KSWINTest(0.01, seed=1), PageHinkleyTest(0.01)):
        assert isinstance(t, ChangeTest)
        assert not t.update(0.5)


def test_mini_batches_give_the_events_of_single_rows():
    rng = np.random.default_rng(3)
    v = rng.normal(0.0, 0.1, size=(4000, 3))
    v[2000:, 1] += 0.2
    one = ExplanationDriftDetector(random_state=0)
    for row in v:
        one.update_values(row)
    many = ExplanationDriftDetector(random_state=0)
    for s in range(0, 4000, 77):
        many.update_values(v[s:s + 77])
    assert one.events_ and one.events_ == many.events_


def test_callback_result_and_display():
    rng = np.random.default_rng(1)
    v = rng.normal(0.0, 0.05, size=(3000, 2))
    v[1500:, 1] += 1.0
    seen: list[DriftEvent] = []
    det = ExplanationDriftDetector(callback=seen.append).update_values(v, feature_names=["a", "b"])
    assert seen == det.events_
    change = det.explain_change(det.events_[0])
    assert isinstance(change, DriftExplanation)
    frame = change.to_frame()
    assert list(frame["feature"]) == ["a", "b"]
    assert frame["change"].iloc[1] == pytest.approx(1.0, abs=0.05)
    assert change.to_dict()["event"]["feature"] == "b"
    assert det.events_frame()["feature"].iloc[0] == "b"
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from ixplain import DriftExplanationDisplay

    disp = DriftExplanationDisplay.from_detector(det, 0)
    assert disp.plot() is disp
    assert len(disp.bars_after_) == 2 and list(disp.order_) == [1, 0]


# ---------------------------------------------------------------------------- explainers
def test_static_model_concept_drift_names_salary_first():
    """The true rule 1 (age, salary) as a static model; the labels follow rule 2 (age, elevel)
    from row 2000. Under rule 2 the labels do not depend on salary, so salary's loss increase
    drops from 80/169 to about 0: the data channel must name salary (or age, whose
    importance drops too) first, soon after row 2000."""
    for seed in range(3):
        det = ExplanationDriftDetector(static_model=True, random_state=seed)
        ipfi = IncrementalPFI(agrawal_rule_1, "zero_one", alpha=0.01, random_state=seed,
                              drift_detector=det)
        feed(ipfi, agrawal_abrupt(3500, 2000, seed))
        first = det.events_[0]
        assert first.feature == "salary" and first.channel == "data"
        assert first.direction == "decrease"
        assert 2000 <= first.row <= 2000 + 2 / 0.01
        assert ipfi.drift_detector is det


def test_virtual_drift_on_a_perfect_static_model():
    """Ages shifted to >= 60 from row 2000 (rule 1 unchanged, the model is the true rule):
    the error stays 0, but the explanation of age changes."""
    rows = agrawal_abrupt(2000, 2000, 0, functions=(1, 1))
    rng = np.random.default_rng(0)
    late = [(dict(x, age=float(rng.integers(60, 81))), 0) for x, _ in
            agrawal_abrupt(1500, 1500, 5, functions=(1, 1))]
    late = [(x, int(agrawal_rule_1([x])[0])) for x, _ in late]
    det = ExplanationDriftDetector(static_model=True, random_state=0)
    # the replacement values come from the storage: the explanation moves as the storage
    # turns over (half of a 200-row reservoir after about 139 rows)
    ipfi = IncrementalPFI(agrawal_rule_1, "zero_one", alpha=0.01, random_state=0,
                          storage=GeometricReservoir(200, p=1.0, random_state=0),
                          drift_detector=det)
    feed(ipfi, rows + late)
    first = det.events_[0]
    assert first.feature == "age" and 2000 <= first.row <= 2600


class SwitchingModel:
    """Predicts ``x0`` until ``switch`` is set, then ``x1`` (two noisy copies of one signal)."""

    def __init__(self) -> None:
        self.use = 0

    def __call__(self, X):
        return np.asarray(X)[:, self.use]


def copies_stream(n, seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    X = np.column_stack([z + 0.1 * rng.normal(size=n), z + 0.1 * rng.normal(size=n),
                         rng.normal(size=n)])
    return X, z


def _copies_run(model, switch, n=4000, at=2000):
    """iPFI with a detector (checks every 250 rows) on :func:`copies_stream` in chunks of 50;
    ``switch(model)`` at row ``at``."""
    X, y = copies_stream(n, 0)
    det = ExplanationDriftDetector(random_state=0, check_every=250, n_reference=300)
    ipfi = IncrementalPFI(model, "squared_error", alpha=0.01, random_state=0,
                          feature_names=["x0", "x1", "x2"], drift_detector=det)
    for s in range(0, n, 50):
        if s == at:
            switch(model)
        ipfi.explain_many(X[s:s + 50], y[s:s + 50])
    return det


def test_model_change_the_error_cannot_see_fires_the_model_channel_only():
    """Type 3: two redundant copies of the signal; at row 2000 the model switches from copy 0
    to copy 1. The error distribution is unchanged (both copies carry noise of sd 0.1), the data
    too; only the model channel may fire, naming x0 (decrease) or x1 (increase). Its
    ``start`` is the row after the last check that found no change (row 1,999: chunks of 50,
    checks every 250 rows); it was the row after the reference point, the first check (row
    249), though the checks at rows 499 to 1,999 found nothing (QA, session 11)."""
    det = _copies_run(SwitchingModel(), lambda m: setattr(m, "use", 1))
    assert det.events_, "the switch was not detected"
    assert {e.channel for e in det.events_} == {"model"}
    first = det.events_[0]
    assert first.feature in ("x0", "x1") and 2000 <= first.row <= 2250
    assert {e.feature for e in det.events_ if e.row == first.row} == {"x0", "x1"}
    assert first.start == 2000, first
    again = [e for e in det.events_ if e.row > first.row]
    assert all(e.start > first.row for e in again)  # (after the new reference point)
    change = det.explain_change(0).to_frame().set_index("feature")
    assert change.loc["x0", "before"] > 1.0 > change.loc["x0", "after"]


class MixingModel:
    """``(1 - w) x0 + w x1``; ``w`` set by the test."""

    w = 0.0

    def __call__(self, X):
        X = np.asarray(X)
        return (1.0 - self.w) * X[:, 0] + self.w * X[:, 1]


def test_a_model_event_reports_the_paired_statistic_it_passed():
    """QA (session 11): a model event's ``statistic`` was Welch's z of the reference rows'
    values before and after, not the paired z the model check compares with its critical
    value (the same rows explained by the model then and now: the rows' own spread cancels).
    A mild change, ``x0 -> 0.9 x0 + 0.1 x1`` at row 2,000 (x0's PFI ``2 w_0**2 Var`` falls by
    ``1 - 0.81 = 19 %``), passes the paired test at the check of row 2,249 while Welch's z of
    the two means is -1.8; the event now reports the paired z, beyond its critical value."""
    from statistics import NormalDist

    det = _copies_run(MixingModel(), lambda m: setattr(m, "w", 0.1))
    e = next(e for e in det.events_ if e.channel == "model")
    assert (e.feature, e.row, e.direction) == ("x0", 2249, "decrease")
    level = float(e.test.split("level=")[1].split(",")[0])
    assert e.statistic < -NormalDist().inv_cdf(1 - level / 2)
    welch = (e.after - e.before) / math.hypot(e.before_high - e.before, e.after_high - e.after)
    assert abs(welch * 1.959963984540054) < 2.5 < abs(e.statistic)


def test_model_channel_with_conditional_removal():
    """iPFI with conditional removal in the default (learning) mode: the model channel
    explains its reference rows with the explainer's conditional storage frozen at the first
    reference point, so a model that did not change gives exactly the same values at every
    check (no event before the switch), and the switch from copy 0 to copy 1 at row 2000 is
    found by the model channel."""
    X, y = copies_stream(3000, 2)
    model = SwitchingModel()
    det = ExplanationDriftDetector(random_state=0, check_every=250, n_reference=300)
    ipfi = IncrementalPFI(model, "squared_error", alpha=0.01, random_state=0,
                          removal="conditional", feature_names=["x0", "x1", "x2"],
                          drift_detector=det)
    ipfi.explain_many(X[:2000], y[:2000])
    assert det._ref_values is not None and det._n_checks >= 3
    assert not [e for e in det.events_ if e.channel == "model"]
    again = reference_values(ipfi, det._reference_rows(), np.concatenate(det._ref_y),
                             det._seed, False, det._ref_fixed)
    np.testing.assert_array_equal(again[:, :3], det._ref_values)
    model.use = 1
    ipfi.explain_many(X[2000:], y[2000:])
    first = next(e for e in det.events_ if e.channel == "model")
    assert first.feature in ("x0", "x1") and 2000 <= first.row <= 2250


def test_learning_model_channels_and_snapshot():
    """A Hoeffding tree learning rule 1 (age, salary), then rule 2 from row 3000. Before the
    drift the tree grows: the model channel reports it (salary's importance rises from 0 as
    the tree learns to split on it) and the data channel, a frozen snapshot on stationary rows,
    reports nothing; every data event after the drift names salary (the frozen tree uses
    salary, the new labels do not depend on it)."""
    from river import tree

    model = tree.HoeffdingTreeClassifier(grace_period=100)
    det = ExplanationDriftDetector(random_state=0)
    ipfi = IncrementalPFI(model, "zero_one", alpha=0.01, random_state=0, drift_detector=det)
    rows = agrawal_abrupt(4000, 3000, 0)
    for s in range(0, len(rows), 50):
        chunk = rows[s:s + 50]
        ipfi.explain_many([x for x, _ in chunk], [y for _, y in chunk])
        for x, y in chunk:
            model.learn_one(x, y)
    model_events = [e for e in det.events_ if e.channel == "model"]
    data_events = [e for e in det.events_ if e.channel == "data"]
    assert model_events and model_events[0].row < 3000
    assert model_events[0].feature == "salary" and model_events[0].direction == "increase"
    assert det._shadows, "no snapshot was taken"
    assert all(e.row >= 3000 and e.feature == "salary" for e in data_events)


def test_label_free_mode_needs_no_labels():
    """Regression ``f = 3 a + b``; from row 2000 the spread of ``a`` shrinks 10-fold. Label-free
    values ``(f(x with a replaced) - f(x))**2 = 9 (a' - a)**2`` have mean
    ``9 (Var(a') + Var(a))``: 18 before, 9.09 right after (the storage still holds the old
    ``a'``), then 0.18 as the storage turns over. A shift of 9 against a standard deviation of
    about 25 (``9 * 2 * sqrt(2)`` for a scaled chi-square) needs a few hundred rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 2))
    X[2000:, 0] *= 0.1

    def f(A):
        return 3 * A[:, 0] + A[:, 1]

    ipfi = IncrementalPFI(f, "squared_error", alpha=0.01, feature_names=["a", "b"],
                          random_state=0)
    det = ExplanationDriftDetector(ipfi, static_model=True, label_free=True, random_state=0)
    for s in range(0, 4000, 100):
        det.update_many(X[s:s + 100])
    det.update(X[0])
    first = det.events_[0]
    assert (first.feature, first.direction) == ("a", "decrease")
    assert 2000 <= first.row <= 2500
    assert ipfi.importances_[0] < 18 / 4  # the label-free importance followed (18 before)


def test_sage_values_are_watched_per_player():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = X[:, 0] + X[:, 1]

    def f(A):
        return A[:, 0] + A[:, 1]

    # q's values drop by about 0.2 of their (long-run) standard deviation, below the CUSUM's
    # reach (d = 0.5 accumulates only shifts above d / 2): ADWIN, with its variance-aware
    # bound, finds it
    det = ExplanationDriftDetector(static_model=True, random_state=0, test="adwin")
    isage = IncrementalSAGE(f, loss="squared_error", n_samples=2, feature_names=["p", "q"],
                            random_state=0, drift_detector=det)
    X[1500:, 1] *= 0.1
    y = X[:, 0] + X[:, 1]
    for s in range(0, 3000, 100):
        isage.explain_many(X[s:s + 100], y[s:s + 100])
    assert det.feature_names_ == ["p", "q"]
    assert det.events_[0].feature == "q" and det.events_[0].direction == "decrease"


# ---------------------------------------------------------------------------- pickling, seeds
def test_pickle_mid_stream_continues_with_the_same_events():
    rows = agrawal_abrupt(3000, 1500, 0)
    det = ExplanationDriftDetector(static_model=True, random_state=7, callback=print)
    ipfi = IncrementalPFI(agrawal_rule_1, "zero_one", alpha=0.01, random_state=7,
                          drift_detector=det)
    feed(ipfi, rows[:1000])
    clone = pickle.loads(pickle.dumps(ipfi))
    assert clone.drift_detector.callback is None and clone.drift_detector.explainer is clone
    feed(ipfi, rows[1000:])
    feed(clone, rows[1000:])
    assert det.events_ and clone.drift_detector.events_ == det.events_
    # same seed, same events: a fresh run from the start in other mini-batches agrees
    det2 = ExplanationDriftDetector(static_model=True, random_state=7)
    again = IncrementalPFI(agrawal_rule_1, "zero_one", alpha=0.01, random_state=7,
                           drift_detector=det2)
    feed(again, rows, batch=77)  # other mini-batches: the explainer's values do not change
    assert det2.events_ == det.events_


def test_same_seed_same_kswin_events_and_other_seeds_differ():
    """KSWIN samples its reference window at random: the detector's seed fixes it."""
    rng = np.random.default_rng(4)
    v = rng.normal(0.0, 0.1, size=(700, 2))
    v[350:, 0] += 0.08

    def run(seed):
        det = ExplanationDriftDetector(test="kswin", delta=0.05, random_state=seed)
        return det.update_values(v).events_

    assert run(3) == run(3)
    assert len({tuple(run(s)) for s in range(6)}) > 1


def test_pickle_with_snapshots_and_reference():
    X, y = copies_stream(1500, 1)
    det = ExplanationDriftDetector(random_state=0, check_every=250, n_reference=300)
    ipfi = IncrementalPFI(SwitchingModel(), "squared_error", random_state=0,
                          feature_names=["x0", "x1", "x2"], drift_detector=det)
    ipfi.explain_many(X[:800], y[:800])
    assert det._shadows and det._ref_values is not None
    clone = pickle.loads(pickle.dumps(ipfi))
    ipfi.model.use = 1
    clone.model.use = 1
    ipfi.explain_many(X[800:], y[800:])
    clone.explain_many(X[800:], y[800:])
    assert det.events_ == clone.drift_detector.events_


# ---------------------------------------------------------------------------- bad input
def test_bad_values():
    det = ExplanationDriftDetector()
    det.update_values(np.zeros((5, 3)), feature_names=["a", "b", "c"])
    bad = np.zeros((2, 3))
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"feature 'c' at row 6 is nan;"):
        det.update_values(bad)
    with pytest.raises(ValueError, match="got 4 values per row, but the detector watches 3"):
        det.update_values(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="row indices must increase"):
        det.update_values(np.zeros((2, 3)), rows=[3, 4])
    with pytest.raises(ValueError, match="'feature_names' parameter"):
        ExplanationDriftDetector().update_values(np.zeros((2, 3)), feature_names=["a"])
    with pytest.raises(ValueError, match="explains rows through an explainer"):
        ExplanationDriftDetector().update({"a": 1.0})


@pytest.mark.parametrize("kwargs, message", [
    ({"test": "ddm"}, "'test' parameter of ExplanationDriftDetector"),
    ({"delta": 0.0}, "'delta' parameter of ExplanationDriftDetector must be a float in"),
    ({"delta": 1.0}, "'delta' parameter"),
    ({"n_reference": 1}, "'n_reference' parameter"),
    ({"check_every": 0}, "'check_every' parameter"),
    ({"min_change": -1.0}, "'min_change' parameter"),
    ({"warmup": 0}, "'warmup' parameter"),
    ({"callback": 3}, "'callback' parameter"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        ExplanationDriftDetector(**kwargs)


def test_bad_attachment():
    def f(A):
        return A[:, 0]

    with pytest.raises(TypeError, match="'drift_detector' parameter of IncrementalPFI"):
        IncrementalPFI(f, "squared_error", drift_detector=object())
    det = ExplanationDriftDetector()
    IncrementalPFI(f, "squared_error", drift_detector=det)
    with pytest.raises(ValueError, match="already watches another explainer"):
        IncrementalPFI(f, "squared_error", drift_detector=det)
    used = IncrementalPFI(f, "squared_error")
    used.explain_many(np.zeros((3, 2)), np.zeros(3))
    with pytest.raises(ValueError, match="before the explainer sees rows"):
        ExplanationDriftDetector(used)
    with pytest.raises(TypeError, match="'explainer' parameter"):
        ExplanationDriftDetector(explainer="ipfi")


# ---------------------------------------------------------------------------- iPDP
def _product_stream(n, flip, seed):
    """x0, x1 uniform on [-1, 1]; x2 = +1 before row ``flip`` and -1 from it (sd 0.1 noise)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 3))
    X[:, 2] = np.where(np.arange(n) < flip, 1.0, -1.0) + 0.1 * rng.normal(size=n)
    return X


def _product(A):
    return A[:, 0] * A[:, 2] + A[:, 1] ** 2


def test_ipdp_slope_flip_of_a_static_model_is_found_with_its_curves():
    """``f = x0 * x2 + x1**2`` with a static model; E[x2] flips from +1 to -1 at row 3000.

    The ICE curve of x0 on row t is ``v * x2_t + x1_t**2``: slope ``x2_t`` (sd 0.1 around
    +-1), curvature exactly 0. So the PD of x0 is ``v * E[x2] + 1/3``: slope +1 before, -1
    after, and the data channel (the explainer's own values, ``static_model=True``) must
    report ``x0 slope`` first, decreasing, soon after row 3000, with no event before; the
    before/after curves are ``+v + 1/3`` and ``-v + 1/3`` within their sampling error."""
    for seed in range(2):
        X = _product_stream(5000, 3000, seed)
        det = ExplanationDriftDetector(static_model=True, random_state=seed)
        ipdp = IncrementalPDP(_product, "x0", drift_detector=det)
        for s in range(0, len(X), 64):
            ipdp.explain_many(X[s:s + 64])
        assert det.feature_names_ == ["x0 slope", "x0 curvature"]
        e = det.events_[0]
        assert (e.feature, e.channel, e.direction) == ("x0 slope", "data", "decrease")
        assert 3000 <= e.row < 3100 and abs(e.start - 3000) <= 10
        assert e.before == pytest.approx(1.0, abs=0.02)
        assert e.after == pytest.approx(-1.0, abs=0.1)
        change = det.explain_change(0)
        grid = np.asarray(change.grid_values, dtype=float)
        assert np.allclose(change.before_curve[0], grid + 1 / 3, atol=0.08)
        assert np.allclose(change.after_curve[0], -grid + 1 / 3, atol=0.25)
        frame = change.to_frame("curves")
        assert len(frame) == len(grid) and set(frame["output"]) == {0}
        assert "curves" in change.to_dict()


class _Flip:
    """``s * x0 + x1``; the sign ``s`` is set from outside (a model that relearns)."""

    def __init__(self):
        self.s = 1.0

    def __call__(self, A):
        return self.s * A[:, 0] + A[:, 1]


def _run_flip(n, flip, seed, det=None, chunk=32, resume_at=None):
    X = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(n, 3))
    model = _Flip()
    det = det or ExplanationDriftDetector(random_state=seed, check_every=500)
    ipdp = IncrementalPDP(model, "x0", drift_detector=det)
    for s in range(0, n, chunk):
        if resume_at is not None and s == resume_at:
            ipdp = pickle.loads(pickle.dumps(ipdp))
            det = ipdp.drift_detector
            model = ipdp.model
        if s >= flip:
            model.s = -1.0
        ipdp.explain_many(X[s:s + chunk])
    return det


def test_ipdp_model_change_fires_the_model_channel_with_exact_curves():
    """The model's slope in x0 flips from +1 to -1 at row 3008 (a callable model: the data
    channel's snapshot keeps the old copy and sees nothing). The model channel re-explains the
    reference rows every ``check_every = 500`` rows on one fixed grid: the summaries of an
    unchanged linear model are identical (no event before the flip), and at the first check
    after it the slope goes from exactly 1 to exactly -1; the PD curves on the reference rows
    are ``+-v + mean(x1_ref)``."""
    det = _run_flip(5000, 3008, seed=0)
    assert det.events_, "no event"
    e = det.events_[0]
    assert (e.feature, e.channel, e.direction) == ("x0 slope", "model", "decrease")
    assert 3008 <= e.row < 3008 + 500 + 32
    assert (e.before, e.after) == (pytest.approx(1.0), pytest.approx(-1.0))
    assert all(ev.row >= 3008 for ev in det.events_)
    change = det.explain_change(0)
    grid = np.asarray(change.grid_values, dtype=float)
    shift = change.before_curve[0] - grid
    assert np.allclose(shift, shift[0]) and np.allclose(change.after_curve[0], -grid + shift[0])


def test_ipdp_no_events_on_a_stationary_stream():
    """No flip: the PD of x0 stays ``v * E[x2] + 1/3`` for a static model, and neither the
    slope nor the curvature test may fire (3 seeds x 6,000 rows)."""
    for seed in range(3):
        X = _product_stream(6000, 10**9, seed)
        det = ExplanationDriftDetector(static_model=True, random_state=seed)
        ipdp = IncrementalPDP(_product, "x0", drift_detector=det)
        ipdp.explain_many(X)
        assert det.events_ == [], det.events_


def test_ipdp_pickle_mid_stream_gives_the_same_events():
    plain = _run_flip(4000, 2016, seed=1)
    resumed = _run_flip(4000, 2016, seed=1, resume_at=1504)
    assert [e.to_dict() for e in plain.events_] == [e.to_dict() for e in resumed.events_]
    assert plain.events_


def test_ipdp_categorical_feature_watches_the_spread():
    """A categorical feature's ICE curve is summarised by its spread across levels: the
    effect ``{"a": 0, "b": 1, "c": 2}`` (spread sqrt(2/3)) vanishes at row 2000."""
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"c": rng.choice(["a", "b", "c"], 4000), "x": rng.normal(size=4000)})
    effect = {"a": 0.0, "b": 1.0, "c": 2.0}

    class Model:
        on = True

        def __call__(self, df):
            base = np.asarray(df["x"], dtype=float)
            return base + (df["c"].map(effect).to_numpy(float) if self.on else 0.0)

    model = Model()
    det = ExplanationDriftDetector(random_state=0, check_every=500)
    ipdp = IncrementalPDP(model, "c", drift_detector=det)
    for s in range(0, 4000, 100):
        model.on = s < 2000
        ipdp.explain_many(frame.iloc[s:s + 100])
    assert det.feature_names_ == ["c spread"]
    e = det.events_[0]
    assert (e.feature, e.channel) == ("c spread", "model") and 2000 <= e.row < 2600
    assert e.before == pytest.approx(math.sqrt(2 / 3)) and e.after == pytest.approx(0.0)


@pytest.mark.parametrize(("values", "exc", "match"), [
    (np.zeros((0, 2)), ValueError, r"at least one value; got shape \(0, 2\)"),
    (3.0, ValueError, r"got shape \(\)"),
    (np.zeros((2, 2, 2)), ValueError, r"got shape \(2, 2, 2\)"),
    ("abc", TypeError, "must be numbers"),
])
def test_update_values_refuses_empty_scalar_3d_and_text(values, exc, match):
    with pytest.raises(exc, match=match):
        ExplanationDriftDetector().update_values(values)


def test_a_detector_that_tested_values_cannot_be_attached_to_an_explainer():
    """Its channels hold another stream's rows (and maybe another feature count)."""
    from ixplain import IncrementalPFI

    det = ExplanationDriftDetector(static_model=True).update_values(np.zeros((50, 2)))
    with pytest.raises(ValueError, match="already tested 50 rows"):
        IncrementalPFI(lambda A: A[:, 0], "squared_error", drift_detector=det)


def _flip_stream(n=1400, at=800):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    y = 2 * X[:, 0] + X[:, 1]
    y[at:] = -2 * X[at:, 0] + X[at:, 1]
    return X, y


def _events_by_chunks(sizes, **kw):
    from ixplain import IncrementalPFI

    X, y = _flip_stream()
    det = ExplanationDriftDetector(random_state=0, n_reference=100, check_every=300,
                                   screen_every=70, warmup=100, **kw)
    e = IncrementalPFI(lambda A: 2 * A[:, 0] + A[:, 1], "squared_error", random_state=0,
                       drift_detector=det)
    s = 0
    for b in sizes:
        e.explain_many(X[s:s + b], y[s:s + b])
        s += b
    assert s == len(X)
    return ([e.to_dict() for e in det.events_], [c.to_dict() for c in det.loss_changes_])


def test_long_regimes_and_long_chunks_do_not_depend_on_the_chunking():
    """Regimes and chunks longer than the detector's value memory (1,000 rows here): a chunk
    enters the memory row by row up to each event, so every event, loss change and before/after
    comparison sees the last 1,000 rows up to its own row, whether the 20,000 rows come in one
    chunk, in chunks of 100 or of 7 (with one chunk, the memory used to hold the chunk's last
    1,000 rows: the loss change's means were NaN and the attribution named ``a`` 16 rows
    later)."""
    rng = np.random.default_rng(0)
    v = rng.normal(size=(20000, 2))
    v[3000:, 0] += 1.0
    v[9000:, 1] -= 1.0
    loss = rng.normal(size=20000)
    loss[3000:] += 1.0

    def run(sizes):
        det = ExplanationDriftDetector(random_state=0, memory=1000)
        s = 0
        for c in sizes:
            det.update_values(v[s:s + c], losses=loss[s:s + c], feature_names=["a", "b"])
            s += c
        changes = [det.explain_change(i).to_frame().to_dict() for i in range(len(det.events_))]
        return (repr([e.to_dict() for e in det.events_]),
                repr([e.to_dict() for e in det.loss_changes_]), repr(changes))

    one = run([20000])
    assert "nan" not in one[1] and "'a'" in one[0] and "'b'" in one[0]
    assert run([100] * 200) == one
    assert run([7] * 2857 + [1]) == one


@pytest.mark.parametrize("kw", [{}, {"static_model": True, "data_samples": 3}])
def test_events_do_not_depend_on_the_batching(kw):
    """Same seed, same events: the model channel's checks and the snapshot they take (default
    mode), and the static copy with more draws, see the stream as row-by-row explaining does,
    for any split into mini-batches (the model never learns, so every split is one stream)."""
    rng = np.random.default_rng(1)
    random_sizes = []
    while sum(random_sizes) < 1400:
        random_sizes.append(int(min(rng.integers(1, 120), 1400 - sum(random_sizes))))
    reference = _events_by_chunks([1] * 1400, **kw)
    assert reference[0] and reference[1]  # a change is found (the test can fail)
    assert any(e["feature"] == "x0" for e in reference[0])
    for sizes in ([7] * 200, [1400], random_sizes):
        assert _events_by_chunks(sizes, **kw) == reference
