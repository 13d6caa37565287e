"""Explanation-based drift detection: which features' explanations changed, when, and whether
the data or the model moved."""

from __future__ import annotations

import copy
import warnings
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
from ._attribution import INPUT_BEFORE, LOOK_MAX, InputMemory, LossTrigger, row_losses
from ._channel import RowMemory, ValueChannel, _quantile, as_float_rows, make_event, summary
from ._snapshot import (
    Capture,
    detached_copy,
    pd_curves,
    pseudo_labels,
    reference_predictions,
    reference_values,
    value_labels,
)
from .base import TESTS, DriftEvent

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ExplanationDriftDetector", "attach_detector"]

_OWNER = "ExplanationDriftDetector"
_SCREEN_ROWS = 100  # reference rows the model channel's screen predicts


class ExplanationDriftDetector(ExplainerObserver):
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

    Attributes
    ----------
    events_ : list of DriftEvent
        All events so far, in the order found (strongest first within a row).
    loss_changes_ : list of DriftEvent
        The changes of a data channel's per-row model loss (``feature="loss"``; ``before`` /
        ``after`` are mean losses), whether or not a feature was named after them; an event
        named by the attribution that followed has the same ``start``.
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
    ) -> None:
        self.test = check_options(test, "test", _OWNER, TESTS)
        self.delta = float(check_float(delta, "delta", _OWNER, low=0.0, high=1.0,  # type: ignore[arg-type]
                                       low_inclusive=False, high_inclusive=False))
        self.static_model = check_bool(static_model, "static_model", _OWNER)
        self.label_free = check_bool(label_free, "label_free", _OWNER)
        self.n_reference = int(check_int(n_reference, "n_reference", _OWNER, min_value=2))  # type: ignore[arg-type]
        self.check_every = int(check_int(check_every, "check_every", _OWNER, min_value=1))  # type: ignore[arg-type]
        self.screen_every = int(check_int(screen_every, "screen_every", _OWNER, min_value=0))  # type: ignore[arg-type]
        self.min_change = float(check_float(min_change, "min_change", _OWNER, low=0.0))  # type: ignore[arg-type]
        self.warmup = int(check_int(warmup, "warmup", _OWNER, min_value=2))  # type: ignore[arg-type]
        self.memory = int(check_int(memory, "memory", _OWNER, min_value=10))  # type: ignore[arg-type]
        if self.memory < 2 * self.warmup:
            raise ValueError(f"{_OWNER}: memory={self.memory} rows cannot hold a regime's "
                             f"warm-up and the rows of a change after it; give memory >= 2 * "
                             f"warmup = {2 * self.warmup}.")
        check_allocation(16 * self.memory, f"memory={self.memory:,} rows", _OWNER,
                         "Give a smaller memory (rows of values kept per channel).")
        self.attribution_level = float(check_float(  # type: ignore[arg-type]
            attribution_level, "attribution_level", _OWNER, low=0.0, high=1.0,
            low_inclusive=False, high_inclusive=False))
        self.data_samples = int(check_int(data_samples, "data_samples", _OWNER,  # type: ignore[arg-type]
                                          min_value=1))
        self._blank_storage: Any = None
        if callback is not None and not callable(callback):
            raise param_error(_OWNER, "callback", "a callable or None", callback, exc=TypeError)
        self.callback = callback
        self.random_state = random_state
        self._seed = root_seed(random_state, _OWNER)
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
                f"{_OWNER}.{method}: nothing was taken (n_seen_ is still "
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
        values, feature_names = self._named_columns(values, feature_names)
        arr = as_float_rows(values, self._k, _OWNER)
        rows_arr = self._check_rows(rows, len(arr))
        loss_arr = self._check_losses(losses, rows_arr)
        if not np.isfinite(arr).all():
            i, j = np.argwhere(~np.isfinite(arr))[0]
            name = (self.feature_names_ or feature_names or [f"v{c}" for c in range(arr.shape[1])])
            raise ValueError(
                f"{_OWNER}: the value of feature {list(name)[j]!r} at row {rows_arr[i]} is "
                f"{float(arr[i, j])}; explanation values must be finite."
            )
        if self._k is None:
            names = ([f"v{j}" for j in range(arr.shape[1])] if feature_names is None
                     else [str(n) for n in feature_names])
            if len(names) != arr.shape[1]:
                raise param_error(_OWNER, "feature_names", f"{arr.shape[1]} names", feature_names)
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
                f"{_OWNER}.update_values: the detector is attached to "
                f"{type(self.explainer).__name__} and tests the values it reports; values fed "
                "directly would mix two sources. Feed the explainer (or the detector's "
                "update / update_many), or detach the detector first with "
                "explainer.drift_detector = None."
            )

    def _named_columns(self, values: Any, feature_names: Any) -> tuple[Any, Any]:
        """``update_values``' values and names: a DataFrame's columns name its values (and
        are put in the first call's order on later calls); names that differ from the first
        call's, or repeat, are refused."""
        columns = getattr(values, "columns", None)
        if columns is not None:
            columns = [str(c) for c in columns]
            known = self.feature_names_
            if known is not None and columns != known and sorted(columns) == sorted(known):
                values = values[[c for k in known for c in values.columns if str(c) == k]]
                columns = list(known)  # the same columns, another order
            if feature_names is None:
                feature_names = columns
        if feature_names is not None:
            names = [str(n) for n in feature_names]
            if len(set(names)) != len(names):
                dup = next(n for n in names if names.count(n) > 1)
                raise ValueError(f"{_OWNER}.update_values: feature name {dup!r} is repeated.")
            if columns is not None and names != columns:
                raise ValueError(f"{_OWNER}.update_values: feature_names {names} differ from "
                                 f"the DataFrame's columns {columns}.")
            if self.feature_names_ is not None and names != self.feature_names_:
                raise ValueError(f"{_OWNER}.update_values: got features {names}, but the "
                                 f"detector watches {self.feature_names_} (the feature set "
                                 "cannot change; build a new detector).")
        return values, feature_names

    def _check_losses(self, losses: Any, rows: np.ndarray) -> np.ndarray | None:
        """``losses`` as float64 ``(B,)`` for the stream rows ``rows`` (None if not given);
        a non-finite loss is refused naming its stream row (and its row in the batch)."""
        n = len(rows)
        channel = self._channels.get("values")
        watched = None if channel is None else channel.trigger is not None
        if losses is None:
            if watched:
                raise ValueError(f"{_OWNER}.update_values: losses were given before; give "
                                 "them on every call.")
            return None
        if watched is False:
            raise ValueError(f"{_OWNER}.update_values: losses must be given from the first "
                             "call on (the loss test needs its warm-up).")
        try:
            arr = np.asarray(losses, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{_OWNER}.update_values: losses must be numbers, one per row; got "
                            f"{type(losses).__name__}.") from None
        if arr.ndim > 1 and arr.size != n:
            raise ValueError(f"{_OWNER}.update_values: losses must have shape ({n},), one per "
                             f"row; got shape {arr.shape}.")
        arr = arr.reshape(-1)
        if len(arr) != n:
            raise ValueError(f"{_OWNER}.update_values: got {n} rows of values but "
                             f"{len(arr)} losses.")
        if not np.isfinite(arr).all():
            i = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise ValueError(f"{_OWNER}.update_values: the loss at row {int(rows[i])} (row {i} "
                             f"of this batch) is {float(arr[i])}; losses must be finite.")
        return arr

    def explain_change(self, event: DriftEvent | int) -> DriftExplanation:
        """Before/after importances of every feature around an event.

        Parameters
        ----------
        event : DriftEvent or int
            An event of :attr:`events_` or its index (a negative index counts from the end,
            as for a list: -1 is the last event).

        Returns
        -------
        DriftExplanation
        """
        if isinstance(event, DriftEvent):
            idx = next((i for i, e in enumerate(self.events_) if e is event), None)
            if idx is None:
                raise ValueError(f"{_OWNER}.explain_change: the event is not one of events_.")
        else:
            if isinstance(event, bool) or not isinstance(event, (int, np.integer)):
                raise param_error(f"{_OWNER}.explain_change", "event",
                                  "a DriftEvent of events_ or its index", event, exc=TypeError)
            idx = int(event)
            if not self.events_:
                raise ValueError(f"{_OWNER}.explain_change: there are no events yet.")
            if not -len(self.events_) <= idx < len(self.events_):
                n = len(self.events_)
                raise param_error(f"{_OWNER}.explain_change", "event",
                                  f"an index of events_ (0..{n - 1}, or -{n}..-1 from the end)",
                                  event)
        return self._changes[idx]

    def events_frame(self) -> pd.DataFrame:
        """:attr:`events_` as a DataFrame, one row per event (columns: the event fields)."""
        import pandas as pd

        columns = list(DriftEvent.__dataclass_fields__)
        return pd.DataFrame([e.to_dict() for e in self.events_], columns=columns)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["callback"] = None
        state.pop("_unsent", None)
        return state

    def __repr__(self) -> str:
        return (f"{_OWNER}(test={self.test!r}, delta={self.delta}, n_rows={self.n_rows_}, "
                f"n_events={len(self.events_)})")

    # ------------------------------------------------------------------ explainer side
    def attach(self, explainer: Any) -> None:
        """Watch ``explainer`` (:func:`~ixplain.observers.subscribe` checked it first)."""
        self.explainer = explainer
        if hasattr(explainer, "_use_grid"):
            self._rows = RowMemory(self.memory)
        # the input rows, for the attribution's look (its input test: _attribution)
        # (the look compares up to INPUT_BEFORE rows before a start at most LOOK_MAX rows
        # before the alarm: that many rows before the newest chunk, whatever ``memory``)
        self._inputs = InputMemory(INPUT_BEFORE + LOOK_MAX) if self._watch_loss() else None
        if self._more_draws(explainer) or self._label_free_static(explainer):
            # the static data channel's own copy (with more draws, or given the model's labels)
            # starts from this empty storage
            self._blank_storage = copy.deepcopy(explainer.storage)

    def detach(self, explainer: Any) -> None:
        """Stop watching ``explainer``: :attr:`explainer` is None (the events found so far
        stay; :func:`~ixplain.observers.subscribe` removes the explainer's hook)."""
        if self.explainer is explainer:
            self.explainer = None

    def check_attach(self, explainer: Any) -> None:
        """Raise if this detector cannot be attached to ``explainer`` (nothing changes)."""
        from ..methods._incremental import IncrementalExplainer

        if not isinstance(explainer, IncrementalExplainer) or not (
                type(explainer)._process is IncrementalExplainer._process
                or hasattr(explainer, "_report_values")):
            raise param_error(
                _OWNER, "explainer",
                "an incremental explainer that reports its per-row values (IncrementalPFI, "
                "IncrementalSAGE, IncrementalPDP)", explainer, exc=TypeError)
        if self.explainer is not None and self.explainer is not explainer:
            raise ValueError(f"{_OWNER} already watches another explainer; use one per explainer.")
        if explainer.n_seen_:
            raise ValueError(f"{_OWNER} must be attached before the explainer sees rows "
                             f"(it has seen {explainer.n_seen_}).")
        if not self.static_model:
            _check_copyable(explainer)
        if self.explainer is None and self.n_rows_:
            raise ValueError(f"{_OWNER} has already tested {self.n_rows_} rows (from "
                             "update_values, or from an explainer it was detached from); "
                             "attach a new detector to the explainer.")

    def _more_draws(self, explainer: Any) -> bool:
        """Whether a static data channel explains the rows with more draws (its own copy)."""
        return self.static_model and self.data_samples > 1 and _draws_of(explainer) is not None

    def _label_free_static(self, explainer: Any) -> bool:
        """Whether the explainer's own values may not be label-free: ``label_free`` with
        ``static_model`` for an explainer that uses labels (iPFI, iSAGE)."""
        return self.static_model and self.label_free and bool(
            getattr(explainer, "requires_labels", False))

    def _own_labels(self) -> bool:
        """``label_free`` with ``static_model``: whether this chunk's values were computed with
        labels other than the model's (the rows were given to the explainer directly), which
        the data channel must not use. The first chunk decides how the data channel is fed:
        rows given directly -- the explainer's estimate uses the caller's labels -- make it a
        copy of the explainer fed the model's predictions as labels (the values of
        :meth:`update` / :meth:`update_many`, at twice the model rows); rows fed through
        :meth:`update` / :meth:`update_many` use the explainer's own values. Rows given
        directly after that are not tested (a warning)."""
        explainer = self.explainer
        if not self._label_free_static(explainer) or self._labels_mode == "legacy":
            return False
        if self._labels_mode is None:
            self._labels_mode = "own" if self._feeding else "copy"
            if self._feeding and not self._more_draws(explainer):
                self._blank_storage = None  # the explainer's own values are label-free
        if self._labels_mode == "copy" or self._feeding:
            return False
        if not self.__dict__.get("_warned_labels"):
            self._warned_labels = True
            warnings.warn(
                f"{_OWNER}(label_free=True, static_model=True): rows given to the explainer "
                "with their labels after rows fed through the detector's update/update_many "
                "are not tested (their values use those labels); feed every row one way.",
                RuntimeWarning, stacklevel=7)
        return True

    def on_values(self, values: Any, ok: np.ndarray, rows: np.ndarray, cols: Any,
                   y: Any, losses: np.ndarray | None = None, restarts: Any = ()) -> None:
        """The explainer's hook: one processed chunk (see ``ExplainerObserver.on_values``;
        ``losses``: the model's own per-row loss, if the explainer's method reported it;
        ``restarts``: iPDP's rows from which its summaries use a core fixed again).

        All or nothing: if a model call raises (a data channel's copy of the model, the
        model channel's check, a PD curve of an event), the detector is put back as it was
        before the chunk (:class:`_HookUndo`) and the exception propagates (the explainer
        then takes back its part too)."""
        undo = _HookUndo(self, rows)
        try:
            self._take_values(values, ok, rows, cols, y, losses, restarts, undo)
        except BaseException:
            undo.restore()
            raise

    def _take_values(self, values: Any, ok: np.ndarray, rows: np.ndarray, cols: Any, y: Any,
                     losses: np.ndarray | None, restarts: Any, undo: _HookUndo) -> None:
        """:meth:`on_values`' work: every model call of the data channels first (the copies
        of the explainer take the chunk, each undoable), then the changes of the detector,
        then the model channel's check (a checkpoint of the detector covers those two when
        they may call a model: :class:`_HookUndo`)."""
        explainer = self.explainer
        skip = self._own_labels()
        if self._k is None:
            if values is None:
                self.n_rows_ = int(rows[-1]) + 1 if len(rows) else self.n_rows_
                self._remember_reference(cols, y)
                if self._blank_storage is not None:  # its copy with more draws sees them later
                    self.__dict__.setdefault("_static_rows", []).append(
                        ({k: np.array(v) for k, v in cols.items()},
                         None if y is None else np.array(y)))
                return
            names, _ = value_labels(explainer, int(np.prod(values.shape[1:])))
            self._set_features(names)
        k = self._k
        assert k is not None
        shadowed = self._blank_storage is not None or (self.static_model and self._shadows)
        new = None
        if shadowed and not self._shadows:  # static_model with data_samples > 1: a copy with more draws
            new = self._static_shadow()
        fed = self._run_shadows(self._shadows + ([new] if new else []), cols, y, undo) if (
            shadowed or not self.static_model) else []
        if not shadowed and self.static_model and values is not None and ok.any() and not skip:
            losses = self._losses(explainer, cols, y, losses)
        # (the model calls of the data channels are done: what follows changes the detector)
        if new is not None:
            self._blank_storage = None
            self.__dict__.pop("_static_rows", None)
            self._shadows.append(new)
        if self._rows is not None:
            self._rows.push(rows, cols)
        inputs = self.__dict__.get("_inputs")  # (absent from old pickles)
        if inputs is not None:
            inputs.push(rows, cols)
        if shadowed or not self.static_model:
            self._push_shadows(fed, rows)
        elif self.static_model and not shadowed:
            if values is not None and ok.any() and not skip:
                flat = values.reshape(len(ok), -1)[:, :k]
                self._push("data", flat[ok], rows[ok], None if losses is None else losses[ok],
                           restarts)
        if not self.static_model:
            self._remember_recent(rows, cols, y)
        self._remember_reference(cols, y)
        last = int(rows[-1]) + 1 if len(rows) else self.n_rows_
        before, self.n_rows_ = self.n_rows_, max(self.n_rows_, last)
        if self.static_model or self._ref_n < self.n_reference:
            return
        if self.n_rows_ // self.check_every > before // self.check_every:
            self._check_model(self.n_rows_ - 1)
        elif (self.screen_every and self._ref_values is not None
              and self.n_rows_ // self.screen_every > before // self.screen_every
              and self._predictions_moved(undo.screen)):
            self._check_model(self.n_rows_ - 1)

    def _checks_due(self, last: int) -> tuple[bool, bool]:
        """Whether the model channel checks, and whether it screens, the model at the end of
        a chunk that ends before stream row ``last`` (multiples of ``check_every`` and
        ``screen_every`` rows; a screen once a check set the reference; :class:`_HookUndo`)."""
        if self.static_model:
            return False, False
        before = self.n_rows_
        check = last // self.check_every > before // self.check_every
        screen = bool(self.screen_every) and self._ref_values is not None and (
            last // self.screen_every > before // self.screen_every)
        return check, screen and not check

    def _checkpoint(self) -> ExplanationDriftDetector:
        """A copy of the detector to go back to (:class:`_HookUndo`): everything but the
        explainer it watches and what never changes (the models its copies froze, the events
        and their explanations). The copy keeps the callback and the events not yet given
        to it, which pickling (``__getstate__``) drops."""
        memo: dict[int, Any] = {id(self.explainer): self.explainer}
        for frozen in [sh for sh, _, _ in self._shadows] + [self._ref_model]:
            if frozen is not None:  # (and the method objects: caches of what never changes)
                for kept in (frozen.model, frozen._model.model, frozen.__dict__.get("_method")):
                    memo[id(kept)] = kept
        for kept in (*self.events_, *self.loss_changes_, *self._changes):
            memo[id(kept)] = kept
        saved = copy.deepcopy(self, memo)
        saved.callback = self.callback
        if "_unsent" in self.__dict__:
            saved.__dict__["_unsent"] = list(self.__dict__["_unsent"])
        return saved

    def cut_offsets(self, start: int, B: int) -> list[int]:
        """Offsets in ``(0, B)`` of a batch starting at stream row ``start`` after which the
        model channel may check (multiples of ``check_every`` and ``screen_every`` rows): the
        explainer processes its batches in parts cut there (``IncrementalExplainer._parts``)."""
        if self.static_model:
            return []
        out: list[int] = []
        for period in (self.check_every, self.screen_every):
            if period:
                out.extend(range((period - start % period) % period or period, B, period))
        return out

    def _run_shadows(self, shadows: list[tuple[Any, ValueChannel, Capture]], cols: Any,
                     y: Any, undo: _HookUndo) -> list[tuple[int, Any, Any, Any, Any]]:
        """Each data-channel copy of the explainer takes the chunk (its model's labels with
        ``label_free``), all or nothing (the undo of each is kept in ``undo``); returns, per
        copy with values, ``(index, flat values, mask of the kept rows, their losses, its
        core restarts)``."""
        k = self._k
        out = []
        for i, (shadow, _, capture) in enumerate(shadows):
            yy = pseudo_labels(shadow._model, shadow._make_table(cols)) if self.label_free else y
            undo.parts.append(shadow._run_part(cols, yy, False, full=True))
            if capture.values is not None and capture.ok is not None:
                ok = capture.ok
                flat = capture.values.reshape(len(ok), -1)[:, :k]
                losses = self._losses(shadow, cols, y, capture.losses)
                out.append((i, flat, ok, losses, capture.restarts))
        return out

    def _push_shadows(self, fed: list, rows: np.ndarray) -> None:
        """Push the values of the data-channel copies (:meth:`_run_shadows`) to their
        channels; drop the old snapshot once the new one is warmed up."""
        for i, flat, ok, losses, restarts in fed:
            shadow, channel, capture = self._shadows[i]
            fresh = self._push_cores(restarts, channel, flat[ok], rows[ok],
                                     None if losses is None else losses[ok])
            self._shadows[i] = (shadow, fresh, capture)
        if len(self._shadows) > 1 and self._shadows[-1][1].n_rows >= 2 * self.warmup:
            self._shadows = self._shadows[-1:]  # the new snapshot is warmed up

    def _static_shadow(self) -> tuple[Any, ValueChannel, Capture]:
        """The data channel of a static model explained with ``data_samples`` draws per row:
        a copy of the explainer, fed the same rows from an empty storage (a copy of the one
        kept at attach time; the caller adds it to the shadows)."""
        shadow = detached_copy(self.explainer, keep_storage=False)
        shadow.storage = copy.deepcopy(self._blank_storage)
        shadow.n_seen_ = 0  # from the stream's first row: those before any value are replayed
        if self.data_samples > 1:
            _set_draws(shadow, self.data_samples)
        for c, t in self.__dict__.get("_static_rows", []):
            shadow._process(c, pseudo_labels(shadow._model, shadow._make_table(c))
                            if self.label_free else t, False)
        capture = Capture()
        shadow._on_values = capture
        return shadow, self._new_channel("data"), capture

    def _snapshot(self) -> None:
        """Freeze the current model: a new data-channel copy of the explainer, warmed up on
        the last ``warmup`` rows (explained by a throw-away copy of it), so its tests hold a
        regime before any change that follows."""
        shadow = detached_copy(self.explainer)
        # the hook runs before the explainer counts the chunk it is processing (whose rows its
        # storage holds already): the copy goes on from the next stream row
        shadow.n_seen_ = self.n_rows_
        if self.data_samples > 1:
            _set_draws(shadow, self.data_samples)
        capture = Capture()
        shadow._on_values = capture
        self._n_snapshots += 1
        channel = self._new_channel("data")
        probe = detached_copy(shadow)
        probe._on_values = warm = Capture()
        k = self._k
        for rows, cols, y in self._last_rows():
            yy = pseudo_labels(probe._model, probe._make_table(cols)) if self.label_free else y
            probe._process(cols, yy, False)
            if warm.values is not None and warm.ok is not None:
                flat = warm.values.reshape(len(warm.ok), -1)[:, :k]
                losses = self._losses(probe, cols, y, warm.losses)
                channel = self._push_cores(warm.restarts, channel, flat[warm.ok],
                                           rows[warm.ok],
                                           None if losses is None else losses[warm.ok])
        if hasattr(shadow, "_track_core"):
            # iPDP: the core grid the warm-up's values used (fixed, or fixed again, while
            # warming up) is the one the snapshot's values use, with its run of misses
            shadow._core, shadow._core_miss = probe._core, probe._core_miss
            shadow._core_epoch = probe._core_epoch
        self._shadows.append((shadow, channel, capture))

    def _last_rows(self, n: int | None = None) -> list[tuple[np.ndarray, dict[str, np.ndarray],
                                                             Any]]:
        """The last ``n`` (default ``warmup``) rows seen, as one block ``(rows, columns,
        labels)`` (none before the first row): exactly those rows, however they arrived in
        chunks."""
        if not self._recent:
            return []
        rows = np.concatenate([r for r, _, _ in self._recent])[-(n or self.warmup):]
        n = len(rows)
        cols = {k: np.concatenate([c[k] for _, c, _ in self._recent])[-n:]
                for k in self._recent[0][1]}
        ys = [t for _, _, t in self._recent]
        return [(rows, cols, None if ys[0] is None else np.concatenate(ys)[-n:])]

    def _remember_recent(self, rows: np.ndarray, cols: Any, y: Any) -> None:
        """Keep the last ``warmup`` rows (at least) for warming up a new snapshot, and the last
        ``n_reference`` for the model channel's new reference sample."""
        self._recent.append((rows, {k: np.array(v) for k, v in cols.items()},
                             None if y is None else np.array(y)))
        self._n_recent += len(rows)
        keep = max(self.warmup, self.n_reference)
        while self._n_recent - len(self._recent[0][0]) >= keep:
            self._n_recent -= len(self._recent.popleft()[0])

    # ------------------------------------------------------------------ model channel
    def _remember_reference(self, cols: Any, y: Any) -> None:
        need = self.n_reference - self._ref_n
        if need <= 0 or self.static_model:
            return
        n = len(next(iter(cols.values())))
        take = min(need, n)
        for name, col in cols.items():
            self._ref_cols.setdefault(name, []).append(np.array(col[:take]))
        if y is not None:
            self._ref_y.append(np.asarray(y[:take]))
        self._ref_n += take

    def _reference_rows(self) -> dict[str, np.ndarray]:
        return {k: np.concatenate(v) for k, v in self._ref_cols.items()}

    def _screen_rows(self) -> dict[str, np.ndarray]:
        """The first ``_SCREEN_ROWS`` reference rows (a model replaced in a step moves its
        predictions on almost every row; fewer rows make the screen cheap)."""
        return {k: v[:_SCREEN_ROWS] for k, v in self._reference_rows().items()}

    def _predictions_moved(self, screen: tuple | None = None) -> bool:
        """The screen: the model's predictions on the reference rows moved since the last
        screen after a quiet spell (no move at at least half of the last 20 screens, and at
        least 3 screens seen): a model replaced or retrained in a step. Moves are mean
        absolute changes over the predictions' mean absolute deviation. ``screen``: the
        outcome of :meth:`_screen` taken before the chunk changed anything (its model call)."""
        pred, move, jump = self._screen() if screen is None else screen
        self._ref_pred = pred
        if move is None:
            return False
        moves = self.__dict__.setdefault("_moves", deque())  # (absent from old pickles)
        moves.append(move)
        if len(moves) > 20:
            moves.popleft()
        return jump

    def _screen(self) -> tuple[np.ndarray, float | None, bool]:
        """The screen's model call and verdict, changing nothing: ``(predictions, move (None
        when there is nothing to compare with), whether it is a jump)``."""
        pred = reference_predictions(self.explainer, self._screen_rows())
        last = self._ref_pred
        if last is None or last.shape != pred.shape:
            return pred, None, False
        spread = float(np.abs(last - last.mean()).mean())
        move = float(np.abs(pred - last).mean()) / (spread if spread > 0 else 1.0)
        moves = self.__dict__.get("_moves") or ()
        jump = len(moves) >= 3 and move > 1e-12 and float(np.median(moves)) <= 1e-12
        return pred, move, jump

    def _check_model(self, row: int) -> None:
        if self._stale_reference and self._ref_model is not None:
            self._move_reference_rows()
        cols = self._reference_rows()
        y = np.concatenate(self._ref_y) if self._ref_y else None
        k = self._k
        assert k is not None
        if self.screen_every and self._ref_pred is None:
            self._ref_pred = reference_predictions(self.explainer, self._screen_rows())
        now = reference_values(self.explainer, cols, y, self._seed, self.label_free,
                               self._ref_fixed)
        now = now.reshape(len(now), -1)[:, :k]
        if self._ref_values is None:
            self._new_reference(now, row)
            return
        self._n_checks += 1
        level = self.delta / k
        events = self._model_events(row, now, level)
        if events:
            self._record_model(events, now, row)
            return
        self._quiet = row  # (the model had not changed by this row)
        if self._stale_reference:
            # a loss change since the reference point: its rows' labels are out of date
            self._new_reference(now, row, snapshot=False)

    def _model_events(self, row: int, now: np.ndarray, level: float) -> list[DriftEvent]:
        ref = self._ref_values
        assert ref is not None and self.feature_names_ is not None
        diff = now - ref
        n = len(diff)
        mean, se = summary(diff)  # (scaled: no overflow for values near 1e300)
        z = np.where(se > 0, mean / np.where(se > 0, se, 1.0),
                     np.where(mean == 0, 0.0, np.inf))
        crit = _quantile(1.0 - level / 2.0)
        units = self._term_sizes(len(mean))  # (iPDP: slope and curvature in output units)
        size = max(float(np.abs(ref.mean(axis=0) * units).sum()),
                   float(np.abs(now.mean(axis=0) * units).sum()))
        fire = (np.abs(z) > crit) & (np.abs(mean) * units >= self.min_change * size) & (size > 0)
        mb, sb = summary(ref)
        ma, sa = summary(now)
        test = f"paired z (level={level:.3g}, min_change={self.min_change})"
        # the last row the model was found unchanged: the reference row or a later check
        # that raised nothing (absent from old pickles: the reference row)
        quiet = int(self.__dict__.get("_quiet", self._ref_row))
        events = [
            make_event(row, quiet + 1, self.feature_names_[j], "model", test,
                       (mb[j], sb[j], n), (ma[j], sa[j], n), statistic=float(z[j]))
            for j in np.flatnonzero(fire)
        ]
        events.sort(key=lambda e: -abs(e.statistic))
        return events

    def _term_sizes(self, k: int) -> np.ndarray:
        """Factors to output units of the ``k`` watched values for ``min_change``: for iPDP,
        :func:`~ixplain.methods._curve_summary.term_sizes` on the model channel's fixed grid (slope
        and curvature have the units of the output per feature unit and per feature unit
        squared); 1 for importances, which share the loss's units."""
        grid = self._ref_fixed.get("grid")
        if grid is None:
            return np.ones(k)
        from ..methods._curve_summary import term_sizes

        return term_sizes(grid, k, getattr(self.explainer, "feature_kind_", None) == "numeric")

    def _record_model(self, events: list[DriftEvent], now: np.ndarray, row: int) -> None:
        ref = self._ref_values
        assert ref is not None and self.feature_names_ is not None
        mb, sb = summary(ref)
        ma, sa = summary(now)
        curve = self._ref_fixed.get("curve")
        curves = {}
        if self._ref_curve is not None and curve is not None:
            curves = {"grid_values": self._ref_fixed["grid"],
                      "before_curve": self._ref_curve[0], "before_curve_se": self._ref_curve[1],
                      "after_curve": curve[0], "after_curve_se": curve[1]}
        for e in events:
            change = DriftExplanation(
                feature_names=list(self.feature_names_), before=mb, before_se=sb, after=ma,
                after_se=sa, event=e, before_rows=(self._ref_row, self._ref_row),
                after_rows=(row, row), **curves)
            self._emit(e, change)
        self._n_checks = 0
        self._new_reference(now, row)

    def _move_reference_rows(self) -> None:
        """After a data channel's loss change: the reference sample becomes the last
        ``n_reference`` rows seen (those since the change's start if fewer, at least 100),
        with their labels, and the reference values are those of
        the model *at the reference point* (a frozen copy) on them, so the check that follows
        compares the model then and now on rows of the new concept (on the old rows' old
        labels, a model that changed with the concept shows a feature that became relevant
        as harmful: a negative SAGE value, a 'decrease')."""
        since = self.n_rows_ - self._stale_start  # rows of the new concept, when enough
        take = max(_SCREEN_ROWS, min(self.n_reference, since))
        last = self._last_rows(take)
        if not last or len(last[0][0]) < take:
            return
        _, cols, y = last[0]
        self._stale_reference = False
        self._ref_cols = {name: [col] for name, col in cols.items()}
        self._ref_y = [] if y is None else [y]
        self._ref_n = self.n_reference  # complete (no more rows join it)
        self._ref_fixed.pop("storage", None)  # conditional removal: the reference model's
        before = reference_values(self._ref_model, cols, y, self._seed, self.label_free,
                                  self._ref_fixed)
        self._ref_values = before.reshape(len(before), -1)[:, :self._k]
        self._ref_curve = self._ref_fixed.get("curve")
        if self.screen_every:
            self._ref_pred = reference_predictions(self.explainer, self._screen_rows())

    def _new_reference(self, now: np.ndarray, row: int, snapshot: bool = True) -> None:
        """The reference point moves to ``row`` (the first check, a model event, the first
        check after a data channel's loss change), with the values ``now``. After a loss
        change the reference sample becomes the last ``n_reference`` rows seen, with their
        labels (``now`` is recomputed on them, the screen's predictions too), so that after
        a real drift the checks compare the model on rows of the new concept -- on the old
        rows' old labels a feature that became relevant (Agrawal 1 -> 2: elevel) gains no
        importance. (At every reference point instead, the benchmark's model-channel false
        events rose: stationary learning Agrawal 8.3 -> 16.7, bike 34.7 -> 81.0 per 100,000
        rows.) With ``snapshot`` a new snapshot freezes the model (not after a loss change
        alone: the model did not move)."""
        stale, self._stale_reference = self._stale_reference, False
        last = self._last_rows(self.n_reference) if stale else []
        if last and len(last[0][0]) >= self.n_reference:
            _, cols, y = last[0]
            self._ref_cols = {name: [col] for name, col in cols.items()}
            self._ref_y = [] if y is None else [y]
            self._ref_n = self.n_reference
            self._ref_fixed.pop("storage", None)  # conditional removal: freeze it anew
            now = reference_values(self.explainer, cols, y, self._seed, self.label_free,
                                   self._ref_fixed)
            now = now.reshape(len(now), -1)[:, :self._k]
            if self.screen_every:
                self._ref_pred = reference_predictions(self.explainer, self._screen_rows())
        self._ref_values, self._ref_row, self._quiet = now, row, row
        self._ref_curve = self._ref_fixed.get("curve")
        self._ref_model = detached_copy(self.explainer)  # the model at the reference point
        if snapshot:
            self._snapshot()

    # ------------------------------------------------------------------ helpers
    def _set_features(self, names: list[str]) -> None:
        self.feature_names_ = list(names)
        self._k = len(names)

    def _watch_loss(self) -> bool:
        """Whether data channels test the model's own per-row loss (not label-free, and the
        explainer has a loss)."""
        return (not self.label_free and self.explainer is not None
                and getattr(self.explainer, "_loss", None) is not None)

    def _losses(self, explainer: Any, cols: Any, y: Any,
                reported: np.ndarray | None) -> np.ndarray | None:
        """The data channel's per-row loss of ``explainer``'s model on a chunk: the one its
        method reported with the values (``reported``: iPFI's and iSAGE's base loss, no model
        call), else one batched model call (:func:`row_losses`); None when not watched."""
        if not self._watch_loss():
            return None
        return reported if reported is not None else row_losses(explainer, cols, y)

    def _new_channel(self, name: str, with_loss: bool | None = None) -> ValueChannel:
        """A channel of per-feature tests; with the loss test and attribution for a data
        channel whose explainer has a loss (or ``with_loss``)."""
        assert self.feature_names_ is not None and self._k is not None
        k = self._k
        seed = self._seed + self._n_snapshots
        if with_loss is None:
            with_loss = name == "data" and self._watch_loss()
        if not with_loss:
            return ValueChannel(name, self.feature_names_, self.test, self.delta / k, seed,
                                self.warmup, self.memory)
        # k feature tests and the loss test: Bonferroni over k + 1
        level = self.delta / (k + 1)
        channel = ValueChannel(name, self.feature_names_, self.test, level, seed, self.warmup,
                               self.memory)
        alpha = float(getattr(self.explainer, "alpha", 0.001))
        channel.trigger = LossTrigger(channel, level, self.attribution_level,
                                      int(round(2.0 / alpha)), seed)
        channel.trigger.inputs = self.__dict__.get("_inputs")
        return channel

    def _push(self, name: str, values: np.ndarray, rows: np.ndarray,
              losses: np.ndarray | None = None, restarts: Any = ()) -> None:
        """Push to the channel ``name`` (made at its first values); from each row of
        ``restarts`` (iPDP's core fixed again), to a fresh one (:meth:`_push_cores`)."""
        channel = self._channels.get(name) or self._new_channel(name)
        self._channels[name] = self._push_cores(restarts, channel, values, rows, losses)

    def _push_cores(self, restarts: Any, channel: ValueChannel, values: np.ndarray,
                    rows: np.ndarray, losses: np.ndarray | None) -> ValueChannel:
        """Push a chunk's values to ``channel``, and from each of the stream rows ``restarts``
        (where the iPDP that computed them fixed its core grid again, as its hook reported)
        to a fresh channel (new tests, warm-up, scale and memory: summaries on another core
        are not comparable); returns the channel now in use."""
        for start in restarts:
            cut = int(np.searchsorted(rows, start))
            self._push_to(channel, values[:cut], rows[:cut],
                          None if losses is None else losses[:cut])
            values, rows = values[cut:], rows[cut:]
            losses = None if losses is None else losses[cut:]
            channel = self._new_channel(channel.name)
        self._push_to(channel, values, rows, losses)
        return channel

    def _push_to(self, channel: ValueChannel, values: np.ndarray, rows: np.ndarray,
                 losses: np.ndarray | None = None) -> None:
        before_starts = channel.last_start.copy()
        trigger = channel.trigger
        if trigger is not None and losses is not None and len(rows):
            n_changes = len(trigger.changes)
            events = trigger.push(values, rows, losses)
            self.loss_changes_ += trigger.changes[n_changes:]
            if len(trigger.changes) > n_changes and channel.name == "data":
                self._stale_reference = True  # (the model channel's reference labels)
                self._stale_start = trigger.changes[-1].start
            events.sort(key=lambda e: (e.row, -abs(e.statistic)))
        else:
            events = channel.push(values, rows)
        for e in events:
            j = channel.labels.index(e.feature)
            prev = int(before_starts[j])
            before_starts[j] = e.start
            # the comparison taken when the event was found (the memory as it was then)
            known = channel.__dict__.get("compared", {}).pop((e.row, e.feature), None)
            mb, sb, ma, sa, counts = known if known is not None else channel.compare(e, prev)
            change = DriftExplanation(
                feature_names=list(channel.labels), before=mb, before_se=sb, after=ma,
                after_se=sa, event=e, before_rows=(prev, e.start - 1), after_rows=(e.start, e.row),
                **self._curves(channel, e, prev))
            self._emit(e, change)
        channel.__dict__.get("compared", {}).clear()

    def _curves(self, channel: ValueChannel, event: DriftEvent, prev: int) -> dict[str, Any]:
        """iPDP: the PD curves of the channel's model before (at most 1,000 rows) and after
        the change, on the explainer's current grid (empty for other explainers)."""
        if self._rows is None:
            return {}
        model = self.explainer if self.static_model else next(
            (sh for sh, ch, _ in self._shadows if ch is channel), None)
        before = self._rows.between(max(prev, event.start - 1000), event.start)
        after = self._rows.between(event.start, event.row + 1)
        if model is None or before is None or after is None:
            return {}
        grid = _curve_grid(self.explainer, before, after)
        b, sb = pd_curves(model, before, grid)
        a, sa = pd_curves(model, after, grid)
        return {"grid_values": grid, "before_curve": b, "before_curve_se": sb,
                "after_curve": a, "after_curve_se": sa}

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
                f"{_OWNER}.{method} explains rows through an explainer: pass "
                f"ExplanationDriftDetector(explainer) (or use update_values for values)."
            )
        return self.explainer

    def _check_rows(self, rows: Any, n: int) -> np.ndarray:
        if rows is None:
            return np.arange(self.n_rows_, self.n_rows_ + n)
        raw = np.asarray(rows).reshape(-1)
        if raw.dtype.kind not in "iu" and not (
                raw.dtype.kind == "f" and np.isfinite(raw).all() and (raw == np.round(raw)).all()):
            raise ValueError(f"{_OWNER}: row indices must be whole numbers; got "
                             f"{raw[:5].tolist()}...")
        arr = raw.astype(np.int64)
        if len(arr) != n:
            raise ValueError(f"{_OWNER}: got {n} rows of values but {len(arr)} row indices.")
        if (np.diff(arr) <= 0).any() or (len(arr) and arr[0] < self.n_rows_):
            raise ValueError(f"{_OWNER}: row indices must increase (and continue after row "
                             f"{self.n_rows_ - 1}); got {arr[:5].tolist()}...")
        return arr


class _HookUndo:
    """How to put a detector back as it was before a chunk (:meth:`ExplanationDriftDetector.
    on_values`).

    Always: a shallow copy of its attributes and of its list of data-channel copies, and the
    undo of each copy's part (the copies take the chunk first, before anything else changes,
    so a failing model call of theirs finds nothing else changed). When what follows may
    call a model too: before a model check, a checkpoint copy of the whole detector
    (:meth:`~ExplanationDriftDetector._checkpoint`; every ``check_every`` rows, and when a
    screen finds a jump -- the screen's own model call is made first, before anything
    changes);
    for an iPDP, whose events draw PD curves while the chunk is pushed, the channels'
    own checkpoints (:meth:`ValueChannel.checkpoint`: what the push overwrites), the row
    memory's chunks and the lengths of the event lists."""

    __slots__ = ("detector", "state", "shadows", "parts", "copy", "channels", "pushed",
                 "screen", "inputs")

    def __init__(self, detector: ExplanationDriftDetector, rows: np.ndarray) -> None:
        self.detector = detector
        last = int(rows[-1]) + 1 if len(rows) else detector.n_rows_
        check, screen = detector._checks_due(last)
        # a screen alone changes nothing before its model call: made now, it needs no
        # checkpoint unless it finds a jump (which runs the check)
        self.screen = detector._screen() if screen else None
        if self.screen is not None and self.screen[2]:
            check = True
        self.copy = detector._checkpoint() if check else None
        self.state = dict(detector.__dict__)
        self.shadows = list(detector._shadows)
        inputs = detector.__dict__.get("_inputs")
        self.inputs = None if inputs is None else inputs.saved(len(rows))
        self.parts: list[Any] = []
        self.channels: dict[str, ValueChannel] | None = None
        if self.copy is None and detector._rows is not None:  # iPDP: the curves of events
            self.channels = dict(detector._channels)
            channels = list(self.channels.values()) + [ch for _, ch, _ in self.shadows]
            memory = detector._rows
            self.pushed = ([(ch, ch.checkpoint(len(rows))) for ch in channels],
                           list(memory.chunks), memory.n, len(detector.events_),
                           len(detector.loss_changes_), len(detector._changes),
                           len(detector.__dict__.get("_unsent", ())))

    def restore(self) -> None:
        """Put the detector (and its copies of the explainer) back."""
        for part in reversed(self.parts):
            part.restore()
        d = self.detector
        if self.inputs is not None and d._inputs is not None:  # (pushed in place)
            d._inputs.restore(self.inputs)
        if self.copy is not None:
            d.__dict__.clear()
            d.__dict__.update(self.copy.__dict__)
            return
        if self.channels is not None:
            pushed, chunks, n, n_events, n_losses, n_changes, n_unsent = self.pushed
            for channel, saved in pushed:
                channel.rollback(saved)
                channel.compared = {}
            d._channels.clear()
            d._channels.update(self.channels)
            assert d._rows is not None
            d._rows.chunks[:] = chunks
            d._rows.n = n
            del d.events_[n_events:], d.loss_changes_[n_losses:], d._changes[n_changes:]
            del d.__dict__.get("_unsent", [])[n_unsent:]
        self.state["_shadows"][:] = self.shadows
        d.__dict__.clear()
        d.__dict__.update(self.state)


def _check_copyable(explainer: Any) -> None:
    """Raise ``TypeError`` now if the explainer's model cannot be deep-copied: with a
    learning model the detector freezes copies of it (the snapshots, the model channel's
    reference), the first at the first model check, ``check_every`` rows later."""
    try:
        copy.deepcopy(explainer._model)
    except Exception as exc:  # any failure of the model's own copying
        raise TypeError(
            f"{_OWNER}: the model cannot be copied ({type(exc).__name__}: {exc}); with a "
            "model that learns (static_model=False) the detector freezes copies of it. Pass "
            "static_model=True for a model that does not learn, or make it deep-copyable."
        ) from exc


def _draws_of(explainer: Any) -> str | None:
    """The attribute holding an explainer's perturbation draws per row (iSAGE's
    ``n_samples_``, iPFI's ``n_samples``), or None for an explainer without draws."""
    if hasattr(explainer, "n_samples_"):
        return "n_samples_"
    if isinstance(getattr(explainer, "n_samples", None), int):
        return "n_samples"
    return None


def _set_draws(explainer: Any, n: int) -> None:
    """Give a data-channel copy ``n`` draws per row (its estimator rebuilt at the next row;
    same expectation, less variance)."""
    name = _draws_of(explainer)
    if name is not None:
        setattr(explainer, name, int(n))
        explainer._method = None


def _curve_grid(explainer: Any, before: dict[str, np.ndarray],
                after: dict[str, np.ndarray]) -> np.ndarray:
    """The explainer's current grid, or -- inside its first chunk, before it has one --
    ``grid_resolution`` values spanning the explainer's percentiles of the rows around the
    event (the levels seen, for a categorical feature)."""
    from ..methods.ipdp import NotStartedError

    try:
        return np.asarray(explainer.pd_.grid_values[0])
    except NotStartedError:
        pass
    name = str(explainer.feature_name_)
    values = np.concatenate([before[name], after[name]])
    if explainer.feature_kind_ != "numeric":
        return np.asarray(sorted(set(values.tolist()), key=str), dtype=object)
    finite = values[np.isfinite(values)]
    lo, hi = np.quantile(finite, explainer.percentiles)
    return np.unique(np.linspace(lo, hi, explainer.grid_resolution))


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
