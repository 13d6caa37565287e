"""Explanation-based drift detection: which features' explanations changed, when, and whether
the data or the model moved."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from .._random import root_seed
from .._validation import (
    ModelEvaluationError,
    check_allocation,
    check_bool,
    check_float,
    check_int,
    check_options,
    param_error,
)
from ..observers import ExplainerObserver, subscribe
from ..results.drift import DriftExplanation
from ._attribution import InputMemory
from ._channel import RowMemory, ValueChannel, as_float_rows
from ._data_channels import check_error_detector, check_trigger_row, explained
from ._snapshot import Capture, pseudo_labels
from ._state import OWNER
from ._values_input import checked_losses, named_columns
from ._watch import ExplainerWatch
from .base import TESTS, DriftEvent

if TYPE_CHECKING:
    import pandas as pd

    from ._incidents import Incident

__all__ = ["ExplanationDriftDetector", "attach_detector"]

class ExplanationDriftDetector(ExplainerWatch, ExplainerObserver):
    """Change detection over the per-observation explanation values of an incremental explainer.

    Every incremental explainer computes, for each observation, one explanation value per
    feature (iPFI's loss increase, iSAGE's marginal contribution ...) before smoothing them. This
    detector runs one change test per feature over those values and reports a
    :class:`~ixplain.drift.DriftEvent` -- row, feature, mean value before and after with 95 %
    bounds, direction, statistic, test and channel -- when one changes.

    Channels
    --------
    ``"data"``
        The values of a **frozen snapshot** of the model on the incoming rows: the model is
        fixed, so a change means the data or the data/target relation moved (virtual or real
        concept drift). With ``static_model=True`` the explainer's own values are used (the model
        never changes); otherwise a copy of the explainer with a deep copy of the model is fed
        the same rows. The snapshot is replaced when the model channel fires (the model it froze
        is no longer the model in use); the old snapshot keeps testing until the new one is
        warmed up.
        With ``data_samples > 1`` the data channels explain each row with that many
        perturbation draws (a copy of the explainer, also with ``static_model=True``; the
        explainer's own estimate is unchanged). Besides the ``k`` per-feature tests, each data
        channel tests the channel model's own per-row loss ``loss(y, f(x))`` (for iPFI and
        iSAGE the base loss their values are computed from, no model call of its own; one
        batched model call per chunk for other explainers with a loss; not with
        ``label_free``, nor for explainers without a loss such as iPDP) with CUSUMs of its
        own (design shifts
        :data:`~ixplain.drift._attribution.LOSS_SHIFTS`, the first to fire gives the alarm;
        each at its share of the loss test's level): the loss of a fixed model moves much
        more than any one feature's values when the data/target relation changes. A loss
        change (recorded in :attr:`loss_changes_`, not an event) opens an **attribution
        window**: from the alarm row on, every feature's values since the estimated start are
        compared with those of its regime before it by an anytime-valid normal-mixture
        confidence sequence -- and, when the alarm comes within
        :data:`~ixplain.drift._attribution.LOOK_MAX` rows of the start, once at the alarm
        row by a fixed-``n`` z-test (half the level; given to the features whose *input*
        values also moved, by a Kolmogorov-Smirnov test, when any did) --, and each feature
        that crosses gets an event whose ``test`` names the test that named it,
        ``"CUSUM(loss, ...) + z-test at the alarm row (fixed n, level=...)"`` or
        ``"CUSUM(loss, ...) + mixture sequence (level=...)"``, and whose ``start`` is the
        loss change's (:mod:`ixplain.drift._attribution`); the named feature's own test
        restarts on the new regime. The window closes ``2 / alpha`` rows (the explainer's ``alpha``) after the
        start or when every feature has been named or has fired on its own test. The
        per-feature tests keep running and find the changes that do not move the loss
        (virtual drift, a model that switches between redundant features).
    ``"model"``
        Every ``check_every`` rows, the values of the **current model** on a reference
        sample (perturbation rows drawn from it with the same draws at every check) are
        compared with those at the last reference point: per feature
        a paired z-test of the mean difference (common random numbers: a model that did not change
        gives differences of exactly 0). An event needs significance *and* a change of at least
        ``min_change`` times the total absolute importance (a model that keeps growing a tree
        changes a little all the time). The reference sample is the first ``n_reference``
        rows; the reference point moves to the event. After a real drift (a data channel's
        loss change: the frozen model's loss moved) the reference rows' labels are out of
        date: at the first check that follows, the reference point moves there (as at an
        event) and the reference sample becomes the last ``n_reference`` rows seen, with
        their labels, so that the model is measured on the new concept (a feature that
        became relevant gains importance only there). In between,
        every ``screen_every`` rows a screen compares the current model's predictions on the
        first 100 reference rows (one batched call) with those at the last
        screen, and runs the check at once when they moved after a quiet spell (they had not
        moved at at least half of the last 20 screens): a model that is replaced or retrained
        in steps (e.g. switches to another copy of a feature) is checked within
        ``screen_every`` rows instead of ``check_every``. A model that did not change is never
        checked early, and neither is one that keeps learning (a Hoeffding tree's leaf
        statistics, SGD steps: its predictions move at every screen), whose changes are left
        to the scheduled checks and their ``min_change`` control.
    ``"values"``
        Values fed directly with :meth:`update_values` (any source).

    False alarms across features
    ----------------------------
    ``delta`` is split across the features (Bonferroni): each of the ``k`` features' tests runs
    at ``delta / k`` (in a data channel that also tests the loss, each of the ``k + 1`` tests
    runs at ``delta / (k + 1)``; the loss test is always a CUSUM). What the split bounds depends
    on the test. For the CUSUM (default) it bounds the probability that *any* feature fires
    within 100,000 rows while no explanation changes by about ``delta`` (see
    :class:`~ixplain.drift.CUSUMTest`: exact for i.i.d. values of a known distribution --
    heavy-tailed ones too, as the test clips them --, approximate with the distribution
    estimated from the stream; and whatever the values, no run of fewer than 11 to 15 rows
    fires it); for ADWIN it bounds, at each
    check, the probability that any feature fires by ``delta`` (ADWIN's Theorem 3.1, values
    scaled into [0, 1], see :mod:`ixplain.drift._channel`). Both bounds are conservative; the
    benchmark ``benchmarks/bench_explanation_drift.py`` reports the measured false alarms per
    100,000 rows. For KSWIN the level is that of one Kolmogorov-Smirnov test, run at every row:
    the split bounds the probability that any feature fires *at a given row* by ``delta``
    (i.i.d. values), so up to ``delta * n`` false alarms are expected in ``n`` rows -- no bound
    per stream (measured on i.i.d. normal values, four features, ``delta=0.002``: 90 per
    100,000 rows; use a far smaller ``delta``). For Page-Hinkley its share ``level`` only sets
    the threshold ``log(1 / level)``: a heuristic, with no false-alarm probability behind it
    (measured likewise: 8 per 100,000 rows). The model
    channel's paired z-tests run at ``delta / k`` each, so at each check the probability that
    any feature is reported while the model's explanation on the reference sample has not
    moved is at most ``delta`` (normal approximation of the paired mean; a model that did not
    change at all gives zero differences and is never reported). The screen adds checks, not
    tests of another kind: there are at most ``n / check_every`` scheduled and
    ``n / screen_every`` screened checks in ``n`` rows, each with that bound; a model that
    keeps learning is never screened in, so its false-alarm control is the scheduled
    checks' ``min_change``. An attribution event needs a
    loss change (found at the CUSUM's level) *and* a crossing: given a loss change, the
    probability that the window names a feature whose mean value did not change is at most
    about ``attribution_level`` (``attribution_level / k`` per feature; exact for i.i.d.
    sub-Gaussian values of a known standard deviation, approximate with it estimated; the
    look at the alarm row and the sequence share it, half each, when the look is taken).

    Parameters
    ----------
    explainer : IncrementalExplainer, optional
        The explainer to watch (:meth:`update` / :meth:`update_many` explain rows through it).
        Not needed for :meth:`update_values`, or when the detector is given to an explainer
        (``IncrementalPFI(..., drift_detector=detector)``).
    test : {"cusum", "adwin", "kswin", "page_hinkley"}, default="cusum"
        The per-feature change test (:mod:`ixplain.drift.base`). A feature test's alarm is
        reported as an event only when the event's before and after means differ at the
        test's level (Welch's z beyond ``z(1 - level / 2)``): the tests watch values clipped
        at their warm-up's tails, whose mean also moves when only the spread grows.
    delta : float in (0, 1), default=0.002
        The level split across the features (Bonferroni, see above): a family-wise
        false-alarm probability per 100,000 rows for the CUSUM, per check for ADWIN (whose
        River default it is) and per row for KSWIN; for Page-Hinkley only its threshold.
    static_model : bool, default=False
        The model never learns: the explainer's own values form the data channel, no model
        channel runs. With ``label_free`` and an explainer that uses labels (iPFI, iSAGE),
        rows fed through :meth:`update` / :meth:`update_many` give the explainer the model's
        predictions as labels (its own estimate becomes label-free too) and its values form
        the data channel; rows given to the explainer directly with their labels
        (``explain_one(x, y)``, a River-style loop) leave its estimate on those labels, and
        the data channel is a copy of the explainer fed the model's predictions (the same
        values and events as through :meth:`update`, at twice the model rows). The first row
        decides; rows given the other way after it are not tested (a ``RuntimeWarning``).
    label_free : bool, default=False
        Compute every channel's values with the model's own predictions as labels (``y := f(x)``;
        for iPFI with squared error ``lambda_j = (f(x with x_j replaced) - f(x))**2``, a
        prediction-sensitivity game), whatever labels the explainer is given, so streams
        without labels can be watched; :meth:`update` then takes ``y=None``.
    n_reference : int, default=500
        Reference rows of the model channel (the first ones; the last ones seen after a
        loss change).
    check_every : int, default=1000
        Rows between model checks (each costs ``n_reference * (k + 1)`` model rows for iPFI).
    screen_every : int, default=250
        Rows between screens of the model's predictions (each costs 100 model rows, one
        call); 0 turns the screen off.
    min_change : float, default=0.1
        Smallest model change reported, as a fraction of the total absolute importance
        (iPDP: of the total size of the slope and curvature terms over the grid, both in
        output units, so that it does not depend on the feature's unit; see
        :func:`~ixplain.methods._curve_summary.term_sizes`).
    warmup : int, default=200
        Rows a data channel uses to fix its scaling before testing (at least 2).
    memory : int, default=5000
        Rows of values kept per channel for the before/after means of events (at least 10 and
        ``2 * warmup``; a memory that this machine cannot hold is refused with MemoryError).
    attribution_level : float in (0, 1), default=0.05
        Family-wise level of the attribution step after a loss change (see above).
    data_samples : int, default=1
        Perturbation draws per row in the data channels (iPFI's / iSAGE's ``n_samples``; other
        explainers ignore it): lower-variance values for ``data_samples`` times the data
        channel's model rows. Measured (benchmark, 2 seeds, 4 draws): a learning model's
        abrupt change found after 547 rows instead of 909 and the static swap after 40 instead
        of 77, at twice the run time and with more false events on the bike stream (197
        instead of 150 per 100,000 rows), so it is off by default.
    callback : callable, optional
        Called with each new :class:`DriftEvent`, at the end of the update that found it
        (:meth:`update_values`, or the explainer's ``explain_one`` / ``explain_many``), once
        the detector and the explainer have taken all its rows: if it raises, the exception
        propagates, the event is in :attr:`events_` and the stream can go on (the later
        events of that update are not given to it). Not pickled (set it again after
        loading).
    random_state : None, int or numpy.random.Generator, default=None
        Seeds KSWIN's sampling and the model channel's draws.
    error_detector : river drift detector, optional
        A detector with River's protocol (``update(x)``, ``drift_detected``; e.g.
        ``river.drift.ADWIN()``, updated in place) fed the **current** model's per-row loss
        (one batched model call per chunk with a learning model); where it fires the
        detector calls :meth:`trigger` at that row: ADWIN's speed on the error, this
        detector's attribution. Needs labels and an explainer with a loss. If its ``update``
        raises, it fails like the model (:class:`~ixplain.ModelEvaluationError` naming it and
        the row; the part is taken back, ``error_detector`` too). (The frozen snapshot's loss
        instead named as often on the benchmark but gave more false incidents:
        ``benchmarks/bench_explanation_drift.py --trigger``.)

    Attributes
    ----------
    events_ : list of DriftEvent
        All events so far, in the order found (strongest first within a row).
    loss_changes_ : list of DriftEvent
        The changes of a data channel's per-row model loss (``feature="loss"``; ``before`` /
        ``after`` are mean losses), whether or not a feature was named after them; an event
        named by the attribution that followed has the same ``start``.
    triggers_ : list of int
        The rows of the external triggers (:meth:`trigger`, ``error_detector``'s alarms),
        each once, in the order they came.
    feature_names_ : list of str
        The watched features.
    n_rows_ : int
        One past the last stream row seen: the number of rows fed, or, when ``update_values``
        was given ``rows=``, the last of them plus one (rows fed as 1000, 1001, 1002 give
        1003).

    References
    ----------
    F. Fumagalli, M. Muschalik, E. Hullermeier, B. Hammer, "Incremental Permutation Feature
    Importance (iPFI)", Machine Learning 112, 2023 (explanations for drift detection). A. Bifet,
    R. Gavalda, "Learning from Time-Changing Data with Adaptive Windowing", SDM 2007.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> values = rng.normal(size=(4000, 2)) * 0.1
    >>> values[2000:, 1] += 0.5                       # feature "b" changes at row 2000
    >>> det = ExplanationDriftDetector(random_state=0)
    >>> det = det.update_values(values, feature_names=["a", "b"])
    >>> e = det.events_[0]
    >>> e.feature, e.channel, e.direction, 2000 <= e.row < 2100, abs(e.start - 2000) < 20
    ('b', 'values', 'increase', True, True)
    >>> round(e.before, 1) + 0.0, round(e.after, 1)   # (+ 0.0: no "-0.0" under plain doctest)
    (0.0, 0.5)
    """

    # detectors pickled before the screen existed load with it off
    screen_every = 0
    _ref_pred: np.ndarray | None = None
    # label_free with static_model (see _labels_mode); "legacy": pickled before, as it was
    _labels_mode: str | None = "legacy"
    _feeding = False  # inside update / update_many (the explainer gets the model's labels)
    _stale_reference = False  # a loss change since the model channel's reference point
    _ref_model: Any = None  # a frozen copy of the explainer at the reference point
    _stale_start = 0  # the start of that loss change

    def __init__(
        self,
        explainer: Any = None,
        *,
        test: str = "cusum",
        delta: float = 0.002,
        static_model: bool = False,
        label_free: bool = False,
        n_reference: int = 500,
        check_every: int = 1000,
        screen_every: int = 250,
        min_change: float = 0.1,
        warmup: int = 200,
        memory: int = 5000,
        attribution_level: float = 0.05,
        data_samples: int = 1,
        callback: Any = None,
        random_state: Any = None,
        error_detector: Any = None,
    ) -> None:
        self.test = check_options(test, "test", OWNER, TESTS)
        self.delta = float(check_float(delta, "delta", OWNER, low=0.0, high=1.0,  # type: ignore[arg-type]
                                       low_inclusive=False, high_inclusive=False))
        self.static_model = check_bool(static_model, "static_model", OWNER)
        self.label_free = check_bool(label_free, "label_free", OWNER)
        self.n_reference = int(check_int(n_reference, "n_reference", OWNER, min_value=2))  # type: ignore[arg-type]
        self.check_every = int(check_int(check_every, "check_every", OWNER, min_value=1))  # type: ignore[arg-type]
        self.screen_every = int(check_int(screen_every, "screen_every", OWNER, min_value=0))  # type: ignore[arg-type]
        self.min_change = float(check_float(min_change, "min_change", OWNER, low=0.0))  # type: ignore[arg-type]
        self.warmup = int(check_int(warmup, "warmup", OWNER, min_value=2))  # type: ignore[arg-type]
        self.memory = int(check_int(memory, "memory", OWNER, min_value=10))  # type: ignore[arg-type]
        if self.memory < 2 * self.warmup:
            raise ValueError(f"{OWNER}: memory={self.memory} rows cannot hold a regime's "
                             f"warm-up and the rows of a change after it; give memory >= 2 * "
                             f"warmup = {2 * self.warmup}.")
        check_allocation(16 * self.memory, f"memory={self.memory:,} rows", OWNER,
                         "Give a smaller memory (rows of values kept per channel).")
        self.attribution_level = float(check_float(  # type: ignore[arg-type]
            attribution_level, "attribution_level", OWNER, low=0.0, high=1.0,
            low_inclusive=False, high_inclusive=False))
        self.data_samples = int(check_int(data_samples, "data_samples", OWNER,  # type: ignore[arg-type]
                                          min_value=1))
        self._blank_storage: Any = None
        if callback is not None and not callable(callback):
            raise param_error(OWNER, "callback", "a callable or None", callback, exc=TypeError)
        self.callback = callback
        self.random_state = random_state
        self.error_detector = check_error_detector(error_detector, self.label_free)
        self.triggers_: list[int] = []
        self._seed = root_seed(random_state, OWNER)
        self.events_: list[DriftEvent] = []
        self.loss_changes_: list[DriftEvent] = []
        self._changes: list[DriftExplanation] = []
        self.feature_names_: list[str] | None = None
        self.n_rows_ = 0
        self._k: int | None = None
        self._channels: dict[str, ValueChannel] = {}
        self._shadows: list[tuple[Any, ValueChannel, Capture]] = []
        self._n_snapshots = 0
        self._recent: deque = deque()
        self._n_recent = 0
        self._ref_cols: dict[str, list[np.ndarray]] = {}
        self._ref_y: list[np.ndarray] = []
        self._ref_n = 0
        self._ref_values: np.ndarray | None = None
        self._ref_pred: np.ndarray | None = None  # the model's predictions at the last screen
        self._moves: deque = deque()  # the last screens' prediction moves
        self._ref_fixed: dict[str, Any] = {}
        self._ref_curve: Any = None
        self._rows: RowMemory | None = None  # iPDP: the rows, for before/after PD curves
        self._inputs: InputMemory | None = None  # the input rows, for the attribution's look
        self._ref_row = 0
        self._n_checks = 0
        self.explainer: Any = None
        self._labels_mode = None
        if explainer is not None:
            attach_detector(explainer, self)

    # ------------------------------------------------------------------ public API
    def update(self, x: Any, y: Any = None) -> ExplanationDriftDetector:
        """Explain one observation through the explainer and test its values.

        Parameters
        ----------
        x : dict, pandas Series or ndarray of shape (n_features,)
        y : object, optional
            Its label; with ``label_free=True`` None uses the model's prediction.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Without an explainer, or (from the explainer) for a bad observation.
        ModelEvaluationError
            If a model call raises (the explainer's, a data channel's copy, a model check):
            nothing of the row was taken by the explainer or the detector (the message of
            the explainer's ``explain_one`` says so).
        """
        self._feed("update", x, y, True)
        return self

    def update_many(self, X: Any, y: Any = None) -> ExplanationDriftDetector:
        """Explain a mini-batch through the explainer (same semantics as a loop of
        :meth:`update`) and test its values.

        Parameters
        ----------
        X : ndarray of shape (B, n_features), DataFrame or list of dict
        y : array-like of shape (B,), optional (None with ``label_free=True``)

        Returns
        -------
        self

        Raises
        ------
        ModelEvaluationError
            If a model call raises: the parts of the batch before it were taken by the
            explainer and the detector, the failing part by neither, and the message (the
            explainer's ``explain_many``) names the rows taken and how to go on.
        """
        self._feed("update_many", X, y, False)
        return self

    def trigger(self, row: Any = None) -> ExplanationDriftDetector:
        """Open an attribution window at ``row`` as a loss change there would (an external
        alarm: a detector on the error, a deployment, a user): in every data channel that
        tests a loss, the features whose values changed since the estimated start (the split
        of the channel's per-row losses) are named, by events whose ``test`` reads
        ``"external trigger at row N + ..."``. The row goes to :attr:`triggers_` in the order
        of the calls and of ``error_detector``'s alarms (rows need not increase); a row
        already there is a no-op. A channel not yet warmed up (a learning model's first
        snapshot comes at the first model check) has nothing to compare. The model channel's
        reference is not renewed.

        Parameters
        ----------
        row : int, optional
            A stream row seen, still in the channels' memory (default: the last row seen).
            Before the last row, the window takes the values of the rows since at once.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Before any row, for a row not seen yet or no longer in memory, or when the data
            channels test no loss (``label_free``, an explainer without a loss such as iPDP,
            ``update_values`` without ``losses``).
        TypeError
            For a ``row`` that is not an int.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> values = rng.normal(size=(2100, 2)) * 0.1
        >>> values[2000:, 1] += 0.05                  # "b" moves by half a standard deviation
        >>> losses = 1 + 0.1 * rng.normal(size=2100)
        >>> losses[2000:] += 0.03                     # too little for the loss test so far
        >>> det = ExplanationDriftDetector(random_state=0)
        >>> det = det.update_values(values, feature_names=["a", "b"], losses=losses)
        >>> det.events_
        []
        >>> [(e.feature, e.row, e.test[:28]) for e in det.trigger().events_]
        [('b', 2099, 'external trigger at row 2099')]
        >>> det.trigger(2099).triggers_                # the same row again: nothing new
        [2099]
        """
        if check_trigger_row(self, row) not in self.__dict__.get("triggers_", ()):
            self._trigger(row)
        self.on_call_end()
        return self

    def _pseudo_labels(self, method: str, explainer: Any, X: Any, single: bool,
                       given: bool) -> np.ndarray:
        """The model's labels of ``X`` for :meth:`update` / :meth:`update_many` with
        ``label_free``; a failing model call raises a :class:`ModelEvaluationError` saying
        that nothing was taken (the explainer's message)."""
        try:
            return pseudo_labels(explainer._model, explainer._make_table(
                explainer._input.columns(X, single, explainer)))
        except ModelEvaluationError as exc:
            arg = "x" if single else "X"
            raise ModelEvaluationError(
                f"{OWNER}.{method}: nothing was taken (n_seen_ is still "
                f"{explainer.n_seen_}): the model's labels of the rows (label_free=True) "
                f"could not be computed: call {method}({arg}{', y' if given else ''}) again "
                f"to retry. {exc}") from exc

    def _feed(self, method: str, X: Any, y: Any, single: bool) -> None:
        """Explain ``X`` (one observation if ``single``) through the explainer for
        :meth:`update` / :meth:`update_many` (its error messages name ``method``), with the
        model's labels when ``label_free`` and ``y`` is None. If that fails before any row
        of the stream was taken, the schema the rows fixed is taken back too (the labels are
        computed from the converted rows, before the explainer's own call)."""
        explainer = self._need_explainer(method)
        given = y is not None
        self._feeding = self.label_free
        explainer.__dict__["_resume_as"] = (method, given)
        try:
            with explainer._first_call():
                if y is None and self.label_free:
                    y = self._pseudo_labels(method, explainer, X, single, given)
                    y = y[0] if single else y
                (explainer.explain_one if single else explainer.explain_many)(X, y)
        finally:
            self._feeding = False
            explainer.__dict__.pop("_resume_as", None)

    def update_values(
        self, values: Any, rows: Any = None, *, feature_names: Any = None, losses: Any = None
    ) -> ExplanationDriftDetector:
        """Test explanation values computed elsewhere (channel ``"values"``).

        Parameters
        ----------
        values : array-like of shape (B, k) or (k,)
            One row of values per observation.
        rows : array-like of int, shape (B,), optional
            Their stream rows (increasing); default: continue from the last row seen.
        feature_names : sequence of k str, optional
            Names of the value columns on the first call (default: a DataFrame's columns,
            else ``v0, v1, ...``); on later calls, if given, the same names. A DataFrame with
            the same columns in another order is reordered.
        losses : array-like of shape (B,), optional
            The (fixed) model's own per-row loss on these rows. Given from the first call on
            (and then on every call), the channel also tests the loss and, when it changes,
            names the features whose values moved (loss-triggered attribution, as in a data
            channel, with a 2,000-row attribution window); the loss changes go to
            :attr:`loss_changes_`.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For NaN or infinite values (naming the feature and row), a number of values per row
            or feature names that differ from the first call, repeated names, rows that do not
            increase or are not whole numbers, or ``losses`` of
            another length, not finite, or given on some calls only; or when the detector is
            attached to an explainer (its values would mix with the explainer's: feed the
            explainer, or detach the detector first with ``explainer.drift_detector = None``).
        """
        self._refuse_attached()
        values, feature_names = named_columns(self.feature_names_, values, feature_names)
        arr = as_float_rows(values, self._k, OWNER)
        rows_arr = self._check_rows(rows, len(arr))
        channel = self._channels.get("values")
        loss_arr = checked_losses(None if channel is None else channel.trigger is not None,
                                  losses, rows_arr)
        if not np.isfinite(arr).all():
            i, j = np.argwhere(~np.isfinite(arr))[0]
            name = (self.feature_names_ or feature_names or [f"v{c}" for c in range(arr.shape[1])])
            raise ValueError(
                f"{OWNER}: the value of feature {list(name)[j]!r} at row {rows_arr[i]} is "
                f"{float(arr[i, j])}; explanation values must be finite."
            )
        if self._k is None:
            names = ([f"v{j}" for j in range(arr.shape[1])] if feature_names is None
                     else [str(n) for n in feature_names])
            if len(names) != arr.shape[1]:
                raise param_error(OWNER, "feature_names", f"{arr.shape[1]} names", feature_names)
            self._set_features(names)
        if "values" not in self._channels:
            self._channels["values"] = self._new_channel("values", loss_arr is not None)
        self._push("values", arr, rows_arr, loss_arr)
        self.n_rows_ = max(self.n_rows_, int(rows_arr[-1]) + 1)
        self.on_call_end()  # (the state is complete if the callback raises)
        return self

    def _refuse_attached(self) -> None:
        """``update_values`` on a detector attached to an explainer: a ``ValueError`` (its
        values would mix with the explainer's in the same features)."""
        if self.explainer is not None:
            raise ValueError(
                f"{OWNER}.update_values: the detector is attached to "
                f"{type(self.explainer).__name__} and tests the values it reports; values fed "
                "directly would mix two sources. Feed the explainer (or the detector's "
                "update / update_many), or detach the detector first with "
                "explainer.drift_detector = None."
            )

    def explain_change(self, event: DriftEvent | int, level: float = 0.05) -> DriftExplanation:
        """Every feature's explanation before and after an event, and the test of its change.

        Parameters
        ----------
        event : DriftEvent or int
            An event of :attr:`events_` or its index (negative: from the end; -1 the last).
        level : float in (0, 1), default=0.05
            Family-wise level of the result's ``significant`` (Holm across the features).

        Returns
        -------
        DriftExplanation
            The means, ``delta`` with its 95 % interval and p-value (Welch's t for a data or
            values event, paired t for a model event) and Holm's adjusted p-values.

        Raises
        ------
        ValueError, TypeError
            For an ``event`` not of :attr:`events_` or a ``level`` outside (0, 1).
        """
        return explained(self, event, level)

    def events_frame(self) -> pd.DataFrame:
        """:attr:`events_` as a DataFrame, one row per event (columns: the event fields)."""
        import pandas as pd

        columns = list(DriftEvent.__dataclass_fields__)
        return pd.DataFrame([e.to_dict() for e in self.events_], columns=columns)

    # ------------------------------------------------------------------ incidents

    def incidents(self, traces: Any = None, *, min_change: float | None = None,
                  horizon: int | None = None) -> list[Incident]:
        """The events grouped into incidents (one per change) and model updates.

        One incident per loss change (with the features its attribution named), one per
        model check, and a channel's other events that start within ``horizon`` rows of
        each other; each measured on the **plotted** importances (the explainer's smoothed
        estimate before the start and ``horizon`` rows after it, with its 95 % bounds), its
        features ranked by ``|change|`` there. A learning model's scheduled checks are
        ``kind="model_update"``, not incidents; a group without a loss change whose named
        features move less than ``min_change`` times the total absolute plotted importance
        is left out (its events stay in :attr:`events_`). The smoothed estimate is
        ``traces`` when given, else the detector's own bounded record of the snapshots its
        explainer publishes; without either, the events' means (see
        :mod:`ixplain.drift._incidents`).

        Parameters
        ----------
        traces : mapping or object, optional
            The plotted trace: ``rows`` (T,) rows seen, ``values`` (T, k), and ``bounds``
            (T, k) half-widths or ``lower`` and ``upper`` (T, k); optional
            ``feature_names`` (k,) when the columns are in another order than
            :attr:`feature_names_`.
        min_change : float >= 0, optional
            Default: the detector's ``min_change`` (0.1). 0 keeps every group.
        horizon : int >= 1, optional
            Rows after the start at which ``after`` is read and within which events join a
            change. Default: ``ceil(2 / alpha)`` for an explainer that smooths with rate
            ``alpha`` (the attribution window), else 2,000.

        Returns
        -------
        list of Incident
            In the order of detection (``id``: the incidents 1, 2, ..., then the model
            updates).

        Raises
        ------
        ValueError
            For ``traces`` without ``rows`` and ``values``, of another number of features,
            or with rows that do not increase; a negative ``min_change``; a ``horizon``
            below 1.
        """
        from ._incidents import incidents_of

        return incidents_of(self, traces, min_change, horizon)

    def on_snapshot(self, n_seen: int, estimate: Any, variance: Any) -> None:
        """The explainer's hook: record its smoothed estimate for :meth:`incidents`."""
        from ._incidents import record_snapshot

        record_snapshot(self, n_seen, estimate)

    def on_failure(self, exc: BaseException) -> None:
        """The explainer's hook: a part taken back; forget its snapshots."""
        record = self.__dict__.get("_smoothed")
        if record is not None and self.explainer is not None:
            record.drop_after(int(self.explainer.n_seen_))

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["callback"] = None
        state.pop("_unsent", None)
        return state

    def __repr__(self) -> str:
        return (f"{OWNER}(test={self.test!r}, delta={self.delta}, n_rows={self.n_rows_}, "
                f"n_events={len(self.events_)})")

    # ------------------------------------------------------------------ explainer side

    # ------------------------------------------------------------------ model channel

    # ------------------------------------------------------------------ helpers

    def _emit(self, event: DriftEvent, change: DriftExplanation) -> None:
        """Record an event; the callback gets it from :meth:`on_call_end`, once the update
        that found it has changed all the state it changes."""
        self.events_.append(event)
        self._changes.append(change)
        if self.callback is not None:
            self.__dict__.setdefault("_unsent", []).append(event)

    def on_call_end(self) -> None:
        """Give the callback the events found since the last delivery, in order: called at
        the end of :meth:`update_values` and of the attached explainer's ``explain_one`` /
        ``explain_many``, after every channel, memory, test and the explainer itself have
        taken the rows, so that a callback that raises leaves a complete state (the
        exception propagates; the events are in :attr:`events_`; the later events of the
        same update are not given to the callback)."""
        unsent = self.__dict__.pop("_unsent", None)
        if unsent and self.callback is not None:
            for event in unsent:
                self.callback(event)

    def _need_explainer(self, method: str) -> Any:
        if self.explainer is None:
            raise ValueError(
                f"{OWNER}.{method} explains rows through an explainer: pass "
                f"ExplanationDriftDetector(explainer) (or use update_values for values)."
            )
        return self.explainer

    def _check_rows(self, rows: Any, n: int) -> np.ndarray:
        if rows is None:
            return np.arange(self.n_rows_, self.n_rows_ + n)
        raw = np.asarray(rows).reshape(-1)
        if raw.dtype.kind not in "iu" and not (
                raw.dtype.kind == "f" and np.isfinite(raw).all() and (raw == np.round(raw)).all()):
            raise ValueError(f"{OWNER}: row indices must be whole numbers; got "
                             f"{raw[:5].tolist()}...")
        arr = raw.astype(np.int64)
        if len(arr) != n:
            raise ValueError(f"{OWNER}: got {n} rows of values but {len(arr)} row indices.")
        if (np.diff(arr) <= 0).any() or (len(arr) and arr[0] < self.n_rows_):
            raise ValueError(f"{OWNER}: row indices must increase (and continue after row "
                             f"{self.n_rows_ - 1}); got {arr[:5].tolist()}...")
        return arr


def attach_detector(explainer: Any, detector: Any) -> Any:
    """Connect ``detector`` to ``explainer`` (the ``drift_detector`` parameter of the
    incremental explainers, and an assignment ``explainer.drift_detector = detector``).

    The detector attached before (if another) is detached first: the explainer no longer
    reports to it and its ``explainer`` is None. ``detector=None`` only detaches. Assigning
    the detector already attached changes nothing.

    Parameters
    ----------
    explainer : IncrementalExplainer
        Has not seen any row yet (unless ``detector`` is None or already attached to it).
    detector : ExplanationDriftDetector or None

    Returns
    -------
    ExplanationDriftDetector or None
        ``detector``.

    Raises
    ------
    TypeError
        For anything but an :class:`ExplanationDriftDetector` or None, or an explainer that
        does not report its per-row values.
    ValueError
        If the detector already watches another explainer (or has tested rows of its own),
        or the explainer has seen rows. Nothing changes when it raises.

    Examples
    --------
    >>> from ixplain import IncrementalPFI
    >>> ipfi = IncrementalPFI(lambda A: A[:, 0], "squared_error")
    >>> det = attach_detector(ipfi, ExplanationDriftDetector())
    >>> det.explainer is ipfi, ipfi.drift_detector is det
    (True, True)
    """
    if detector is not None and not isinstance(detector, ExplanationDriftDetector):
        raise param_error(type(explainer).__name__, "drift_detector",
                          "an ExplanationDriftDetector or None", detector, exc=TypeError)
    return subscribe(explainer, detector)
