"""All-or-nothing parts: a model call that raises never leaves an explainer (or its drift
detector) half-updated, and the error says where to resume.

Every test runs the same stream three ways with the same seed:

* **interrupted**: a model that raises on the part holding a marker row (``|x0| > 5``, which
  the normal data never reach) while the test's switch is on; the call raises, the switch is
  turned off and the stream goes on from where the error says;
* **committed**: a fresh explainer given only the rows the error says were taken;
* **reference**: a fresh explainer given every row, without any failure.

Right after the error, the interrupted explainer must equal the committed one (estimate,
variances, counters, history, storage, per-class state, and the detector's rows, events,
channels and copies); after resuming, it must equal the reference bit for bit. Before the
parts were atomic the storage (and the detector) had taken rows the aggregator had not, so
these comparisons fail on that code; the messages are checked word for word.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ixplain import (
    ExplanationDriftDetector,
    IncrementalALE,
    IncrementalPDP,
    IncrementalPFI,
    IncrementalSAGE,
    IncrementalShapleyInteractions,
    ModelEvaluationError,
)

W = np.array([1.0, 2.0, -1.0])
N0, N1, N = 600, 1200, 1500  # first call, end of the failing call, stream length
MARKER = 1050  # the stream row whose x0 makes the model raise


class Switchable:
    """``f(x) = scale * x @ W`` (``flags["scale"]``, default 1; a deep copy keeps the scale
    of the moment it was made, as a frozen model does); raises on a batch with a row whose ``|x0| > 5`` (or, with
    ``flags["size"]``, on a batch of that many rows) while ``flags["on"]`` (shared with deep
    copies, so the test can turn the copies' off too); with ``flags["copies_only"]`` only deep
    copies (the drift detector's frozen models and probes) raise."""

    def __init__(self, flags: dict, is_copy: bool = False, scale: float | None = None) -> None:
        self.flags, self.is_copy, self.scale = flags, is_copy, scale

    def __deepcopy__(self, memo: dict) -> Switchable:  # (a copy freezes the scale)
        return Switchable(self.flags, True, self.flags.get("scale", 1.0))

    def __call__(self, Z: np.ndarray) -> np.ndarray:
        Z = np.asarray(Z, dtype=np.float64)
        flags = self.flags
        armed = flags["on"] and (self.is_copy or not flags["copies_only"])
        size = flags.get("size")
        if armed and (len(Z) == size if size else np.any(np.abs(Z[:, 0]) > 5.0)):
            flags["raised"] += 1
            raise RuntimeError("boom")
        return (flags.get("scale", 1.0) if self.scale is None else self.scale) * (Z @ W)


def stream() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(N, 3))
    X[MARKER, 0] = 6.0
    return X, X @ W + 0.1 * rng.normal(size=N)


def detector(kind: str | None) -> ExplanationDriftDetector | None:
    """A detector that checks the model often (so the stream crosses checks, screens,
    snapshots and their warm-ups), or a static one whose data channel is its own copy."""
    if kind is None:
        return None
    if kind == "static":
        return ExplanationDriftDetector(static_model=True, data_samples=2, warmup=20,
                                        memory=200, random_state=3)
    return ExplanationDriftDetector(check_every=300, screen_every=100, n_reference=100,
                                    warmup=20, memory=200, random_state=3)


MAKERS = {
    "pfi": lambda f, d: IncrementalPFI(f, "squared_error", alpha=0.01, random_state=0,
                                       max_batch=150, history_every=50, drift_detector=d),
    "sage": lambda f, d: IncrementalSAGE(f, loss="squared_error", alpha=0.01, random_state=0,
                                         max_batch=150, history_every=50, drift_detector=d),
    "pdp": lambda f, d: IncrementalPDP(f, "x1", grid_resolution=8, range_window=200,
                                       alpha=0.01, random_state=0, max_batch=150,
                                       history_every=50, drift_detector=d),
    "pdp_storage": lambda f, d: IncrementalPDP(f, "x1", grid_resolution=8,
                                               range_source="storage", alpha=0.01,
                                               random_state=0, max_batch=150,
                                               history_every=50, drift_detector=d),
    "ale": lambda f, d: IncrementalALE(f, "x1", grid_resolution=5, regrid_every=70,
                                       alpha=0.01, random_state=0, history_every=50),
    "interactions": lambda f, d: IncrementalShapleyInteractions(
        f, loss="squared_error", alpha=0.01, random_state=0, history_every=50),
}
CASES = [(m, None) for m in MAKERS] + [
    (m, k) for m in ("pfi", "sage", "pdp", "pdp_storage") for k in ("learning", "static")]


def make(method: str, kind: str | None, flags: dict | None = None) -> tuple:
    flags = {"on": False, "copies_only": False, "raised": 0} if flags is None else flags
    return MAKERS[method](Switchable(flags), detector(kind)), flags


def _arrays(value: object) -> list:
    """Everything array-like in ``value`` (tuples, named tuples, arrays, numbers)."""
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _arrays(v)]
    return [np.asarray(value)]


def explainer_state(e: object) -> list:
    """What a part changes in an explainer, as a flat list of arrays and numbers."""
    out: list = [e.n_seen_, e.n_explained_, e.n_skipped_]
    for name in ("importances_", "variances_"):
        try:
            out += _arrays(getattr(e, name))
        except ValueError:  # (iALE before its first edges)
            out.append(name)
    out += [a for h in e.history_ for a in _arrays(tuple(h))]
    st = e.storage
    if getattr(st, "_num", None) is not None:
        out += [st.n_seen, st._len, st._num[: st._len], st._cat[: st._len]]
        out.append(None if st._y is None else st._y[: st._len])
    if isinstance(e, IncrementalPDP) and e.feature_name_ is not None:
        store = e._store
        out += [list(store.keys), list(e._window._fifo), e._window._sorted, store.scale]
        out += [store._S, store._Q, store._W, store._W2, e._core, e._core_miss]
        out += [a for grid, values in e._ice for a in (grid, values)]
    if isinstance(e, IncrementalALE):
        out += [e.edges_, e.n_regrids_, e.n_warmup_, *list(e.edges_history_)]
    return out


def detector_state(d: ExplanationDriftDetector | None) -> list:
    """The detector's rows, events, channels and copies of the explainer."""
    if d is None:
        return []
    out: list = [d.n_rows_, [e.to_dict() for e in d.events_],
                 [e.to_dict() for e in d.loss_changes_], d._n_snapshots, d._n_checks, d._ref_n]
    out.append(None if d._ref_values is None else d._ref_values)
    channels = list(d._channels.items()) + [(f"shadow{i}", ch)
                                            for i, (_, ch, _) in enumerate(d._shadows)]
    for name, ch in channels:
        out += [name, ch.n_rows, ch.memory.values, ch.memory.rows, ch.last_start]
    for shadow, _, _ in d._shadows:
        out += explainer_state(shadow)
    for rows, cols, labels in d._last_rows(max(d.warmup, d.n_reference)):
        out += [rows, *cols.values(), labels]  # (the rows kept however they came in chunks)
    return out


def assert_same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, (list, dict, str)) or x is None:
            assert x == y
        else:
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def full_state(e: object) -> list:
    return explainer_state(e) + detector_state(e.drift_detector)


@pytest.mark.parametrize(("method", "kind"), CASES)
def test_explain_many_part_is_all_or_nothing(method: str, kind: str | None) -> None:
    """The part with the marker row raises; every part before it is kept, it is not: the
    explainer equals one given only the kept rows, the message names them, and explaining
    the rest from there gives the uninterrupted run's state bit for bit."""
    X, y = stream()
    e, flags = make(method, kind)
    e.explain_many(X[:N0], y[:N0])
    starts = [s for s, _ in e._parts(N1 - N0)]
    start = max(s for s in starts if s <= MARKER - N0)  # the part holding the marker row
    flags["on"] = True
    with pytest.raises(ModelEvaluationError) as info:
        e.explain_many(X[N0:N1], y[N0:N1])
    assert flags["raised"] >= 1
    taken = N0 + start
    assert e.n_seen_ == taken
    message = str(info.value)
    owner = type(e).__name__
    if start:
        assert message.startswith(
            f"{owner}.explain_many: rows 0-{start - 1} of this batch were explained (n_seen_ "
            f"is now {taken}); the part starting at batch row {start} (stream row {taken}) "
            f"raised and nothing of it was taken: call explain_many(X[{start}:], "
            f"y[{start}:]) to continue.")
    else:
        assert message.startswith(f"{owner}.explain_many: no row of this batch was taken "
                                  f"(n_seen_ is still {taken})")
    assert "boom" in message and isinstance(info.value.__cause__, ModelEvaluationError)

    committed, _ = make(method, kind)
    committed.explain_many(X[:N0], y[:N0])
    if taken > N0:
        committed.explain_many(X[N0:taken], y[N0:taken])
    assert_same(full_state(e), full_state(committed))

    flags["on"] = False
    e.explain_many(X[taken:N1], y[taken:N1])
    e.explain_many(X[N1:], y[N1:])
    reference, _ = make(method, kind)
    reference.explain_many(X[:N0], y[:N0])
    reference.explain_many(X[N0:], y[N0:])
    assert_same(full_state(e), full_state(reference))


@pytest.mark.parametrize(("method", "kind"), [("pfi", None), ("pfi", "learning"),
                                              ("sage", "static"), ("pdp", None),
                                              ("pdp", "learning"), ("ale", None),
                                              ("interactions", None)])
def test_explain_one_takes_nothing_of_a_failing_row(method: str, kind: str | None) -> None:
    """``explain_one`` on the marker row raises "nothing was taken": the explainer equals one
    that stopped before the row; explaining the row again (the model mended) and the rest
    gives the uninterrupted loop's state."""
    X, y = stream()
    e, flags = make(method, kind)
    e.explain_many(X[:N0], y[:N0])
    for t in range(N0, MARKER):
        e.explain_one(X[t], y[t])
    flags["on"] = True
    _fail_the_marker_row_then_go_on(e, flags, method, kind, X, y, X)


@pytest.mark.parametrize(("method", "kind"), [("pfi", "learning"), ("sage", "learning"),
                                              ("pfi", "static"), ("pdp", "learning")])
def test_failure_in_the_detectors_copy_only(method: str, kind: str) -> None:
    """Only the detector's frozen copies of the model raise (its data channel's copy, the
    static copy with more draws, the model check's probes and snapshots): the explainer's
    own model call of that part succeeded, yet neither the explainer nor the detector keeps
    anything of the part."""
    X, y = stream()
    flags = {"on": False, "copies_only": True, "raised": 0}
    e, _ = make(method, kind, flags)
    e.explain_many(X[:N0], y[:N0])
    assert e.drift_detector._shadows  # (the copies exist: the test would not test them)
    flags["on"] = True
    with pytest.raises(ModelEvaluationError, match="nothing of it was taken"):
        e.explain_many(X[N0:N1], y[N0:N1])
    taken = e.n_seen_
    assert N0 < taken <= MARKER and flags["raised"] >= 1
    committed, _ = make(method, kind)
    committed.explain_many(X[:taken], y[:taken])
    assert_same(full_state(e), full_state(committed))
    flags["on"] = False
    e.explain_many(X[taken:], y[taken:])
    reference, _ = make(method, kind)
    reference.explain_many(X, y)
    assert_same(full_state(e), full_state(reference))


def test_failure_in_the_model_check_at_a_check_row() -> None:
    """The model channel's check (its probes of the current model, the new snapshot) raises
    at a check row: the part that ends there is taken back, detector included, and the
    check runs again (and succeeds) when the part is explained again."""
    X, y = stream()
    X[MARKER, 0] = 0.0  # no marker in the stream: the reference rows hold it
    X[5, 0] = 6.0  # (a reference row: every check evaluates the model on it)
    flags = {"on": False, "copies_only": True, "raised": 0}
    e, _ = make("pfi", "learning", flags)
    e.explain_many(X[:N0 - 1], y[:N0 - 1])
    flags["on"] = True  # the shadows hold no marker row; the check's probe does
    with pytest.raises(ModelEvaluationError, match=re.escape(
            "IncrementalPFI.explain_many: no row of this batch was taken (n_seen_ is still "
            f"{N0 - 1})")):
        e.explain_many(X[N0 - 1: N0], y[N0 - 1: N0])  # row 599: the check of rows 0..599
    assert flags["raised"] >= 1
    committed, _ = make("pfi", "learning")
    committed.explain_many(X[:N0 - 1], y[:N0 - 1])
    assert_same(full_state(e), full_state(committed))
    flags["on"] = False
    e.explain_many(X[N0 - 1:], y[N0 - 1:])
    reference, _ = make("pfi", "learning")
    reference.explain_many(X, y)
    assert e.drift_detector._n_checks >= 3  # the checks did run after it
    assert_same(full_state(e), full_state(reference))


def test_standalone_detector_update_many_and_update() -> None:
    """The detector's own ``update_many`` / ``update`` (rows explained through its explainer)
    give the same guarantee and the explainer's message."""
    X, y = stream()
    flags = {"on": False, "copies_only": False, "raised": 0}
    e = IncrementalPFI(Switchable(flags), "squared_error", alpha=0.01, random_state=0,
                       max_batch=150)
    det = ExplanationDriftDetector(e, check_every=300, screen_every=100, n_reference=100,
                                   warmup=20, memory=200, random_state=3)
    det.update_many(X[:N0], y[:N0])
    for t in range(N0, MARKER):
        det.update(X[t], y[t])
    flags["on"] = True
    with pytest.raises(ModelEvaluationError, match="IncrementalPFI.explain_one: nothing was"):
        det.update(X[MARKER], y[MARKER])
    with pytest.raises(ModelEvaluationError, match="IncrementalPFI.explain_many: no row of"):
        det.update_many(X[MARKER:N1], y[MARKER:N1])
    flags["on"] = False
    det.update_many(X[MARKER:], y[MARKER:])
    reference = IncrementalPFI(Switchable(dict(flags)), "squared_error", alpha=0.01,
                               random_state=0, max_batch=150)
    ExplanationDriftDetector(reference, check_every=300, screen_every=100, n_reference=100,
                             warmup=20, memory=200, random_state=3).update_many(X, y)
    assert_same(full_state(e), full_state(reference))


def test_other_exceptions_are_taken_back_and_noted() -> None:
    """An exception of another type (here the ``nan_policy='raise'`` check of a later part)
    also leaves nothing of its part, and propagates unchanged with a note saying what was
    taken."""
    X, y = stream()
    X[MARKER, 2] = np.nan
    e = IncrementalPFI(lambda Z: Z @ W, "squared_error", random_state=0, max_batch=150,
                       nan_policy="raise")
    e.explain_many(X[:N0], y[:N0])
    with pytest.raises(ValueError, match="NaN or infinite") as info:
        e.explain_many(X[N0:N1], y[N0:N1])
    assert e.n_seen_ == MARKER and e.storage.n_seen == MARKER  # (parts of 150 rows)
    assert any("rows 0-449 of this batch were explained" in n for n in info.value.__notes__)


def test_failure_in_the_screen_of_the_model() -> None:
    """The screen (the current model's predictions on the first 100 reference rows, one
    call, every ``screen_every`` rows) raises: made before the chunk changes anything, it
    leaves the row untaken; the screen runs again when the row is explained again."""
    X, y = stream()
    X[MARKER, 0] = 0.0
    flags = {"on": False, "copies_only": False, "raised": 0, "size": 100}
    e, _ = make("pfi", "learning", flags)
    e.explain_many(X[:450], y[:450])  # (the check at row 299 set the reference)
    for t in range(450, 499):
        e.explain_one(X[t], y[t])
    flags["on"] = True
    with pytest.raises(ModelEvaluationError, match="nothing was taken"):
        e.explain_one(X[499], y[499])  # row 499 ends a screen_every period
    assert flags["raised"] == 1
    committed, _ = make("pfi", "learning")
    committed.explain_many(X[:499], y[:499])
    assert_same(full_state(e), full_state(committed))
    flags["on"] = False
    for t in range(499, 620):
        e.explain_one(X[t], y[t])
    reference, _ = make("pfi", "learning")
    reference.explain_many(X[:620], y[:620])
    assert len(e.drift_detector._moves) >= 2  # (the screens ran)
    assert_same(full_state(e), full_state(reference))


def test_failure_in_the_check_a_screen_jump_runs() -> None:
    """A model replaced in a step (its output doubles at row 700, after quiet screens): the
    screen at row 799 finds the jump and runs the check at once, whose probe (a copy) raises;
    the chunk is taken back, screen and check included, and explaining it again gives the
    run without the failure."""
    X, y = stream()
    X[MARKER, 0] = 0.0
    size = 100 * (1 + 3)  # the check's probe: iPFI on the 100 reference rows, 3 features
    flags = {"on": False, "copies_only": True, "raised": 0, "size": size}
    e, _ = make("pfi", "learning", flags)
    e.explain_many(X[:700], y[:700])
    flags["scale"] = 2.0
    e.explain_many(X[700:750], y[700:750])
    flags["on"] = True
    with pytest.raises(ModelEvaluationError, match="no row of this batch was taken"):
        e.explain_many(X[750:800], y[750:800])
    # only a check makes a 400-row call, and rows 750..799 hold no scheduled one (at
    # multiples of 300): the screen at row 799 found the jump and ran it
    assert flags["raised"] == 1

    def run_to(stop: int) -> object:
        """A model that never fails, scaled by 2 from row 700, given rows [0, stop)."""
        run_flags = {"on": False, "copies_only": True, "raised": 0}
        run, _ = make("pfi", "learning", run_flags)
        run.explain_many(X[:700], y[:700])
        run_flags["scale"] = 2.0
        run.explain_many(X[700:stop], y[700:stop])
        return run

    assert_same(full_state(e), full_state(run_to(750)))
    flags["on"] = False
    e.explain_many(X[750:900], y[750:900])
    assert_same(full_state(e), full_state(run_to(900)))


def test_message_without_labels_slices_only_X() -> None:
    """An explainer fed without labels (iPDP) is told to go on with ``X[start:]`` alone."""
    X, _ = stream()
    flags = {"on": False, "copies_only": False, "raised": 0}
    e = IncrementalPDP(Switchable(flags), "x1", grid_resolution=8, max_batch=150,
                       random_state=0)
    e.explain_many(X[:N0])
    flags["on"] = True
    with pytest.raises(ModelEvaluationError, match=re.escape(
            "call explain_many(X[450:]) to continue. Switchable raised RuntimeError")):
        e.explain_many(X[N0:N1])
    assert e.n_seen_ == MARKER


def test_failed_check_keeps_the_callback_and_its_undelivered_events() -> None:
    """The model check that raises is taken back from a checkpoint copy of the detector;
    pickling drops the callback and the undelivered events, the checkpoint must not: after
    the failure the callback is still set, and the events found before the failing part of
    the same call (not yet delivered) are still due."""
    X, y = stream()
    X[MARKER, 0] = 0.0
    size = 100 * (1 + 3)  # the check's probe (see test_failure_in_the_check_a_screen_jump_runs)
    flags = {"on": False, "copies_only": True, "raised": 0, "size": size}
    e, _ = make("pfi", "learning", flags)
    got: list = []
    det = e.drift_detector
    det.callback = got.append
    e.explain_many(X[:N0 - 1], y[:N0 - 1])
    flags["on"] = True
    with pytest.raises(ModelEvaluationError, match="no row of this batch was taken"):
        e.explain_many(X[N0 - 1:N0], y[N0 - 1:N0])  # row 599: a check
    assert flags["raised"] == 1
    assert det.callback == got.append
    flags["on"] = False
    e.explain_many(X[N0 - 1:], y[N0 - 1:])
    assert got == list(det.events_)
    # an undelivered event survives a checkpoint (the restore of a failing check)
    event = object()
    det.__dict__["_unsent"] = [event]
    saved = det._checkpoint()
    assert saved.callback == got.append and saved.__dict__["_unsent"] == [event]
    assert saved.__dict__["_unsent"] is not det.__dict__["_unsent"]


@pytest.mark.parametrize(("method", "kind"), [("pfi", "learning"), ("sage", "learning"),
                                              ("pfi", "static")])
def test_explain_one_failure_in_the_detectors_copy_only(method: str, kind: str) -> None:
    """``explain_one`` on the marker row where only the detector's copies raise: the
    explainer's own model call succeeded, yet its estimate must not have taken the row
    (the one-row path fed the aggregator before the detector's hook, which the undo of a
    failing row does not cover); explaining it again gives the uninterrupted loop. The rows
    come as dicts, whose conversion finds no NaN: the one-row path."""
    X, y = stream()
    rows = [dict(zip(("x0", "x1", "x2"), map(float, x))) for x in X]
    flags = {"on": False, "copies_only": True, "raised": 0}
    e, _ = make(method, kind, flags)
    e.explain_many(X[:N0], y[:N0])
    for t in range(N0, MARKER):
        e.explain_one(rows[t], y[t])
    flags["on"] = True
    _fail_the_marker_row_then_go_on(e, flags, method, kind, X, y, rows)
    assert flags["raised"] >= 1


def test_detector_messages_name_update_and_update_many() -> None:
    """Rows fed through the detector: the message tells to go on with the method called
    (``update_many``/``update``), with ``y`` only when the caller gave labels; a failing
    model call for the labels of ``label_free`` also says that nothing was taken."""
    X, y = stream()
    for label_free, labels in ((False, y), (True, None)):
        flags = {"on": False, "copies_only": False, "raised": 0}
        e = IncrementalPFI(Switchable(flags), "squared_error", random_state=0, max_batch=150)
        det = ExplanationDriftDetector(e, label_free=label_free, random_state=3)
        det.update_many(X[:N0], None if labels is None else labels[:N0])
        flags["on"], flags["copies_only"] = True, False
        flags["size"] = 150 if labels is None else None  # (label_free: the labels' call passes)
        rest = "X[450:], y[450:]" if labels is not None else "X[450:]"
        with pytest.raises(ModelEvaluationError, match=re.escape(
                f"call update_many({rest}) to continue.")):
            det.update_many(X[N0:N1], None if labels is None else labels[N0:N1])
        flags["size"] = None
        one = "x, y" if labels is not None else "x"
        match = (f"IncrementalPFI.explain_one: nothing was taken (n_seen_ is still {MARKER}):"
                 f" call update({one}) again to retry." if labels is not None else
                 "ExplanationDriftDetector.update: nothing was taken (n_seen_ is still "
                 f"{MARKER}): the model's labels")
        with pytest.raises(ModelEvaluationError, match=re.escape(match)):
            det.update(X[MARKER], None if labels is None else labels[MARKER])
        assert e.n_seen_ == MARKER


def test_input_error_note_does_not_advise_a_retry_and_names_the_row() -> None:
    """A NaN with ``nan_policy='raise'`` at batch row 234 (parts of 128 rows): the note says
    which rows were kept and that the part at batch row 128 was not taken, with no "to
    continue" (the same rows would raise again); the error names the batch and stream row."""
    X, y = stream()
    X[N0 + 234, 1] = np.nan
    e = IncrementalPFI(lambda Z: Z @ W, "squared_error", random_state=0, max_batch=128,
                       nan_policy="raise")
    e.explain_many(X[:N0], y[:N0])
    with pytest.raises(ValueError, match=re.escape(
            f"feature 'x1' is NaN or infinite in batch row 234 (stream row {N0 + 234})")) as info:
        e.explain_many(X[N0:N1], y[N0:N1])
    assert info.value.__notes__ == [
        f"IncrementalPFI.explain_many: rows 0-127 of this batch were explained (n_seen_ is now "
        f"{N0 + 128}); the part starting at batch row 128 (stream row {N0 + 128}) raised and "
        "nothing of it was taken."]
    with pytest.raises(ValueError, match=re.escape(
            f"in the observation (stream row {N0 + 128})")):
        e.explain_one(np.array([1.0, np.nan, 0.0]), 0.0)


def test_keyboard_interrupt_from_the_model_gets_the_note() -> None:
    """A ``KeyboardInterrupt`` raised by the model (no ``Exception``) also leaves nothing of
    its part and carries the note saying what was taken and how to go on."""
    X, y = stream()
    state = {"calls": 0}

    def model(Z: np.ndarray) -> np.ndarray:
        state["calls"] += 1
        if state["calls"] == 3:
            raise KeyboardInterrupt
        return Z @ W

    e = IncrementalPFI(model, "squared_error", random_state=0, max_batch=150)
    with pytest.raises(KeyboardInterrupt) as info:
        e.explain_many(X[:N0], y[:N0])
    assert info.value.__notes__ == [
        "IncrementalPFI.explain_many: rows 0-299 of this batch were explained (n_seen_ is now "
        "300); the part starting at batch row 300 (stream row 300) raised and nothing of it "
        "was taken: call explain_many(X[300:], y[300:]) to continue."]
    assert e.n_seen_ == 300


def _fail_the_marker_row_then_go_on(e, flags, method, kind, X, y, rows) -> None:
    """``explain_one(rows[MARKER])`` raises "nothing was taken" (the model fails while
    ``flags["on"]``): ``e`` equals an explainer given only the rows before it; with the model
    mended, the marker row and 59 more give the state of the uninterrupted stream."""
    with pytest.raises(ModelEvaluationError, match=re.escape(
            f"{type(e).__name__}.explain_one: nothing was taken (n_seen_ is still {MARKER})")):
        e.explain_one(rows[MARKER], y[MARKER])
    committed, _ = make(method, kind)
    committed.explain_many(X[:MARKER], y[:MARKER])
    assert_same(full_state(e), full_state(committed))
    flags["on"] = False
    for t in range(MARKER, MARKER + 60):
        e.explain_one(rows[t], y[t])
    reference, _ = make(method, kind)
    reference.explain_many(X[: MARKER + 60], y[: MARKER + 60])
    assert_same(full_state(e), full_state(reference))


class _FailsFirst:
    """``f = 2 * x + [c == "a"]`` (a DataFrame, or records); raises while ``self.on``."""

    def __init__(self) -> None:
        self.on = True

    def __call__(self, D):
        import pandas as pd

        if self.on:
            raise RuntimeError("the model is not ready")
        D = pd.DataFrame(D)
        return 2.0 * D["x"].to_numpy(dtype=float) + (D["c"].to_numpy() == "a")


def _schema_frames():
    import pandas as pd

    rng = np.random.default_rng(3)
    x = rng.normal(size=40)
    y = 2.0 * x + rng.normal(size=40)
    first = pd.DataFrame({"c": rng.normal(size=40), "x": x})  # c numeric
    retry = pd.DataFrame({"c": np.where(x > 0, "a", "b").astype(object), "x": x})  # c strings
    return first, retry, y


_SCHEMA_MAKERS = {
    "pfi": lambda f: IncrementalPFI(f, "squared_error", random_state=0, max_batch=8),
    "sage": lambda f: IncrementalSAGE(f, loss="squared_error", random_state=0, max_batch=8),
    "pdp": lambda f: IncrementalPDP(f, "x", random_state=0, max_batch=8),
}


@pytest.mark.parametrize(("method", "one_by_one"),
                         [("pfi", False), ("sage", False), ("pdp", False), ("pdp", True)])
def test_failed_first_part_takes_the_schema_back(method: str, one_by_one: bool) -> None:
    """The first call fixed the schema (``c`` numeric) even when its first part failed, so a
    retry whose ``c`` holds strings raised "feature 'c' is numeric but an observation holds
    'a'". The undo takes the schema (and the storage's buffers and claim) back: the retry is
    read as the stream's first rows, and the explainer equals a fresh one given only them.
    (``explain_one``: iPDP only, whose first row calls the model; PFI's and SAGE's first row,
    with nothing stored, makes no model call and is taken, schema and all.)"""
    first, retry, y = _schema_frames()
    model = _FailsFirst()
    e = _SCHEMA_MAKERS[method](model)
    with pytest.raises(ModelEvaluationError, match="nothing was taken|no row of this batch"):
        if one_by_one:
            e.explain_one(first.iloc[0].to_dict(), y[0])
        else:
            e.explain_many(first, y)
    assert e.n_seen_ == 0 and e._schema is None and e.feature_names_ is None
    model.on = False
    reference = _SCHEMA_MAKERS[method](_FailsFirst())
    reference.model.on = False
    for target in (e, reference):
        if one_by_one:
            for t, row in enumerate(retry.to_dict("records")):
                target.explain_one(row, y[t])
        else:
            target.explain_many(retry, y)
    assert e._schema.kinds == ("categorical", "numeric") == reference._schema.kinds
    assert_same(explainer_state(e), explainer_state(reference))


def test_failed_later_part_keeps_the_schema() -> None:
    """Once a part is taken the schema stays: rows 0-7 of the first call were explained, the
    part of rows 8-15 (with the marker row 10) failed, and the numeric ``c`` is still the
    stream's."""
    first, retry, y = _schema_frames()
    marker = first["c"].iloc[10]

    def f(D):
        if (D["c"].to_numpy() == marker).any():  # (iPDP's ICE rows keep their own c)
            raise RuntimeError("the model failed")
        return 2.0 * D["x"].to_numpy(dtype=float)

    e = IncrementalPDP(f, "x", random_state=0, max_batch=8)
    with pytest.raises(ModelEvaluationError, match="rows 0-7 of this batch were explained"):
        e.explain_many(first, y)
    assert e.n_seen_ == 8 and e._schema.kinds == ("numeric", "numeric")
    with pytest.raises(ValueError, match="feature 'c' is numeric but an observation holds"):
        e.explain_many(retry)


@pytest.mark.parametrize("single", [False, True])
def test_label_free_update_failing_first_call_takes_the_schema_back(single: bool) -> None:
    """``update`` / ``update_many`` of a ``label_free`` detector convert the rows for the
    model's labels before the explainer's own call, so a first call whose labels' model call
    raised left the schema (``c`` numeric) fixed, and a retry with ``c`` of strings was
    refused. The schema is taken back: the retry is read as the first rows and the explainer
    and detector equal fresh ones given only them."""
    first, retry, _ = _schema_frames()
    model = _FailsFirst()
    e = IncrementalPFI(model, "squared_error", random_state=0, max_batch=8)
    det = ExplanationDriftDetector(e, label_free=True, random_state=3)
    with pytest.raises(ModelEvaluationError, match="nothing was taken"):
        if single:
            det.update(first.iloc[0].to_dict())
        else:
            det.update_many(first)
    assert e.n_seen_ == 0 and e._schema is None and e.feature_names_ is None
    model.on = False
    ref = IncrementalPFI(_FailsFirst(), "squared_error", random_state=0, max_batch=8)
    ref.model.on = False
    ref_det = ExplanationDriftDetector(ref, label_free=True, random_state=3)
    for d in (det, ref_det):
        if single:
            for row in retry.to_dict("records"):
                d.update(row)
        else:
            d.update_many(retry)
    assert e._schema.kinds == ("categorical", "numeric") == ref._schema.kinds
    assert_same(explainer_state(e), explainer_state(ref))
