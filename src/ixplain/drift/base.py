"""The contract of explanation-based drift detection: one univariate change test, one event.

A :class:`ChangeTest` watches one stream of numbers (one feature's per-observation explanation
values, scaled into [0, 1]) and says when its distribution changed. Three are provided, each a
thin wrapper of River's ``drift`` module (imported lazily; ``pip install river``):

``"cusum"`` -- :class:`CUSUMTest` (default)
    A two-sided, self-starting CUSUM of likelihood-ratio type on standardised values (Page
    1954; Lorden 1971; Hawkins 1987). Each value is standardised by the mean and long-run
    standard deviation of the regime so far (the first ``warmup`` values fix the standard
    deviation -- with their first 10 autocorrelations, as neighbouring rows of a real stream
    are correlated -- and the shape term ``psi``; the mean and variance then absorb every
    value), clipped to [-4, 4] (``z``); each side accumulates ``S = max(0, S + d z -
    psi(d))`` with ``d = 0.5`` (tuned to shifts of about half a standard deviation) and
    ``psi(d)`` the warm-up's log moment generating function of ``z`` (at least ``d**2 / 2``,
    the normal one). Alarm when a side reaches ``h = log(200000 / level)``. Guarantee: were
    the values i.i.d. with a known distribution, ``exp`` of the sum of the increments from
    any start row would be a martingale of mean 1, so (Ville's inequality) it reaches
    ``e^h`` with probability at most ``e^-h``; a union over the two sides and the start rows
    bounds the probability of any false alarm within 100,000 rows by ``level``. With the
    distribution estimated from the regime the bound is approximate (the benchmark measures
    the rate on real streams). After an alarm the test warms up again on the new regime.
``"adwin"`` -- :class:`ADWINTest`
    ADWIN (Bifet & Gavalda 2007): an adaptive window, cut when the means of two sub-windows
    differ by more than a Hoeffding/Bernstein bound. Its guarantee (Theorem 3.1 of the paper):
    while the mean is constant, the probability that a check cuts the window is at most
    ``delta`` -- for values in [0, 1], which is why values are scaled (see
    :class:`~ixplain.drift.ExplanationDriftDetector`). Gives a change point estimate (the
    window left after the cut).
``"kswin"`` -- :class:`KSWINTest`
    A Kolmogorov-Smirnov test between the last ``stat_size`` values and a sample of the window
    before them (Raab et al. 2020), at level ``alpha`` **per test**, one test per value: over
    ``n`` stationary values about ``n * alpha`` false alarms are expected (use a small level).
``"page_hinkley"`` -- :class:`PageHinkleyTest`
    Page's cumulative-sum test (Page 1954) for a mean shift of at least ``delta`` (in the [0, 1]
    scale), alarm when the cumulative deviation exceeds ``threshold``. It has no false-alarm
    probability; the family-wise level is applied by scaling the threshold with
    ``log(1 / level)`` (a heuristic: the average run length of CUSUM grows exponentially in the
    threshold).

A test only says *when*; the detector estimates *where* the change began (the split of the
values since the previous change that maximises the standardised mean difference, the
maximum-likelihood change point of a mean shift) and the means before and after it.

The level a test receives is the *per-feature* level: the family-wise level divided by the
number of features watched (Bonferroni), chosen by the detector.

References
----------
A. Bifet, R. Gavalda, "Learning from Time-Changing Data with Adaptive Windowing", SDM 2007.
G. Lorden, "Procedures for Reacting to a Change in Distribution", Annals of Mathematical
Statistics 42, 1971. D. M. Hawkins, "Self-Starting Cusum Charts for Location and Scale",
The Statistician 36, 1987. W. K. Newey, K. D. West, "A Simple, Positive Semi-Definite,
Heteroskedasticity and Autocorrelation Consistent Covariance Matrix", Econometrica 55, 1987.
C. Raab, M. Heusinger, F.-M. Schleif, "Reactive Soft Prototype Computing for Concept Drift
Streams", Neurocomputing 416, 2020. E. S. Page, "Continuous Inspection Schemes", Biometrika 41,
1954.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "ADWINTest",
    "CUSUMTest",
    "ChangeTest",
    "DriftEvent",
    "KSWINTest",
    "PageHinkleyTest",
    "make_test",
]


@runtime_checkable
class ChangeTest(Protocol):
    """One univariate change test over values in [0, 1].

    Attributes
    ----------
    name : str
        Describes the test and its level, e.g. ``"ADWIN(delta=0.0005)"``.
    """

    name: str

    def update(self, value: float) -> bool:
        """Add one value; True when a change is detected at this value."""


def _river_drift() -> Any:
    try:
        from river import drift
    except ImportError:  # pragma: no cover - river is in the cli and river extras
        raise ImportError(
            "Explanation drift detection uses River's drift detectors: pip install 'ixplain[river]'"
        ) from None
    return drift


class ADWINTest:
    """ADWIN on values in [0, 1] at level ``delta`` (River's ``drift.ADWIN``).

    Parameters
    ----------
    delta : float in (0, 1)
        The per-check false-alarm probability bound.
    clock : int, default=32
        Check for a cut every ``clock`` values (River's default).

    Examples
    --------
    >>> t = ADWINTest(0.002)
    >>> hits = [i for i in range(2000) if t.update(0.2 if i < 1000 else 0.8)]
    >>> 1000 <= hits[0] < 1100
    True
    """

    def __init__(self, delta: float, clock: int = 32) -> None:
        self.delta = float(delta)
        self.name = f"ADWIN(delta={self.delta:.3g})"
        self._adwin = _river_drift().ADWIN(delta=self.delta, clock=clock)

    def update(self, value: float) -> bool:
        self._adwin.update(value)
        return bool(self._adwin.drift_detected)



class KSWINTest:
    """KSWIN at level ``alpha`` per test (River's ``drift.KSWIN``).

    Parameters
    ----------
    alpha : float in (0, 1)
    seed : int
        Seeds KSWIN's sampling of the old window (same seed, same detections).
    window_size, stat_size : int, default=100, 30

    Examples
    --------
    >>> t = KSWINTest(1e-4, seed=0)
    >>> hits = [i for i in range(600) if t.update(0.2 if i < 300 else 0.8)]
    >>> 300 <= hits[0] < 330
    True
    """

    def __init__(self, alpha: float, seed: int, window_size: int = 100, stat_size: int = 30):
        self.alpha = float(alpha)
        self.stat_size = int(stat_size)
        self.name = f"KSWIN(alpha={self.alpha:.3g})"
        self._kswin = _river_drift().KSWIN(
            alpha=self.alpha, window_size=window_size, stat_size=stat_size, seed=int(seed)
        )

    def update(self, value: float) -> bool:
        self._kswin.update(value)
        return bool(self._kswin.drift_detected)



class PageHinkleyTest:
    """Two-sided Page-Hinkley (CUSUM) test (River's ``drift.PageHinkley``).

    Parameters
    ----------
    level : float in (0, 1)
        Sets the threshold ``threshold_scale * log(1 / level)``.
    delta : float, default=0.01
        Tolerated mean change (values are in [0, 1]).
    threshold_scale : float, default=1.0

    Examples
    --------
    >>> t = PageHinkleyTest(0.002)
    >>> hits = [i for i in range(2000) if t.update(0.2 if i < 1000 else 0.8)]
    >>> 1000 <= hits[0] < 1100
    True
    """

    def __init__(self, level: float, delta: float = 0.01, threshold_scale: float = 1.0) -> None:
        self.level = float(level)
        self.threshold = float(threshold_scale) * math.log(1.0 / self.level)
        self.name = f"PageHinkley(threshold={self.threshold:.3g})"
        self._ph = _river_drift().PageHinkley(
            min_instances=30, delta=delta, threshold=self.threshold, alpha=1.0
        )

    def update(self, value: float) -> bool:
        self._ph.update(value)
        return bool(self._ph.drift_detected)



class CUSUMTest:
    """Two-sided self-starting CUSUM on standardised values, false alarms at most about
    ``level`` per 100,000 rows.

    Parameters
    ----------
    level : float in (0, 1)
        Bound on the probability of a false alarm within 100,000 values (see the module
        docstring): the threshold is ``h = log(200000 / level)``.
    warmup : int, default=200
        Values that fix the standardisation (and again after each alarm).
    shift : float, default=0.5
        The design shift ``d``, in standard deviations of the warm-up values.
    lag : int, default=0
        Values join the reference (its mean and variance) ``lag`` values after they arrive
        (0: at once, Hawkins' self-starting CUSUM). A lag keeps a recent small shift from
        pulling the reference, but makes the reference lag behind a slow trend: on the bike
        stream (benchmark) ``lag=1000`` triples the alarms.

    Examples
    --------
    >>> import numpy as np
    >>> v = np.random.default_rng(0).normal(0.5, 0.05, 2000)
    >>> v[1000:] += 0.03                                   # +0.6 standard deviations
    >>> t = CUSUMTest(0.001)
    >>> hits = [i for i, x in enumerate(v) if t.update(x)]
    >>> 1000 <= hits[0] < 1200, t.name
    (True, 'CUSUM(level=0.001)')
    """

    def __init__(self, level: float, warmup: int = 200, shift: float = 0.5,
                 lag: int = 0) -> None:
        self.level = float(level)
        self.lag = int(lag)
        self.warmup = int(warmup)
        self.shift = float(shift)
        self.threshold = math.log(200_000.0 / self.level)
        self.name = f"CUSUM(level={self.level:.3g})"
        self._start()

    def _start(self) -> None:
        self._warm: list[float] = []
        self._mean = self._sd = 0.0
        self._inflate = 1.0
        self._psi = (0.0, 0.0)
        self._up = self._down = 0.0
        self._pending: deque[float] = deque()

    def _fit(self) -> None:
        w = self._warm
        n = len(w)
        self._mean = sum(w) / n
        var = sum((x - self._mean) ** 2 for x in w) / max(n - 1, 1)
        # a constant warm-up (e.g. a feature the model ignores, values exactly 0): the rate of
        # other values is below about 3 / n (rule of three), so a departure of the largest
        # size the scaled values allow (0.5) has a standard deviation of about
        # 0.5 * sqrt(3 / n); one odd value is not a change, a run of them is
        self._sd = math.sqrt(var) if var > 0 else 0.5 * math.sqrt(3.0 / n)
        self._n, self._m2 = n, var * max(n - 1, 1)
        self._inflate = _long_run_factor(w, self._mean, var)
        d = self.shift
        z = [max(-4.0, min(4.0, (x - self._mean) / (self._sd * self._inflate))) for x in w]
        up = math.log(sum(math.exp(d * v) for v in z) / n)
        down = math.log(sum(math.exp(-d * v) for v in z) / n)
        self._psi = (max(up, d * d / 2), max(down, d * d / 2))

    def update(self, value: float) -> bool:
        if len(self._warm) < self.warmup:
            self._warm.append(float(value))
            if len(self._warm) == self.warmup:
                self._fit()
            return False
        z = max(-4.0, min(4.0, (value - self._mean) / (self._sd * self._inflate)))
        d = self.shift
        self._up = max(0.0, self._up + d * z - self._psi[0])
        self._down = max(0.0, self._down - d * z - self._psi[1])
        if self._up >= self.threshold or self._down >= self.threshold:
            self._start()
            return True
        # the reference: the regime's values older than ``lag`` rows
        pending = self._pending
        pending.append(float(value))
        if len(pending) > self.lag:
            self._absorb(pending.popleft())
        return False

    def _absorb(self, value: float) -> None:
        self._n += 1
        delta = value - self._mean
        self._mean += delta / self._n
        self._m2 += delta * (value - self._mean)
        var = self._m2 / (self._n - 1)
        if var > 0:
            self._sd = math.sqrt(var)


def _long_run_factor(w: list[float], mean: float, var: float, lags: int = 10) -> float:
    """``sqrt`` of the long-run variance of ``w`` over its variance (Bartlett weights, the
    first ``lags`` autocorrelations; Newey & West 1987), at least 1: the CUSUM sums values,
    and neighbouring rows of a real stream are correlated, which makes a sum vary more."""
    n = len(w)
    if var <= 0 or n < 4 * lags:
        return 1.0
    c = [x - mean for x in w]
    total = 1.0
    for lag in range(1, lags + 1):
        rho = sum(a * b for a, b in zip(c[:-lag], c[lag:])) / (var * (n - 1))
        total += 2.0 * (1.0 - lag / (lags + 1)) * rho
    return math.sqrt(min(max(total, 1.0), 100.0))


#: The tests by name, with the keyword their level goes to.
TESTS = ("cusum", "adwin", "kswin", "page_hinkley")


def make_test(name: str, level: float, seed: int, warmup: int = 200) -> ChangeTest:
    """A fresh test by name at a per-feature ``level`` (``seed`` for the randomised KSWIN,
    ``warmup`` for CUSUM's standardisation).

    Examples
    --------
    >>> make_test("adwin", 0.001, seed=0).name
    'ADWIN(delta=0.001)'
    """
    if name == "cusum":
        return CUSUMTest(level, warmup=warmup)
    if name == "adwin":
        return ADWINTest(level)
    if name == "kswin":
        return KSWINTest(level, seed=seed)
    return PageHinkleyTest(level)


@dataclass(frozen=True)
class DriftEvent:
    """A change of one feature's explanation, found by one test on one channel.

    Attributes
    ----------
    row : int
        Stream row (0-based) at which the test fired.
    start : int
        Estimated first row of the new regime (maximum-likelihood split of the values since
        the feature's previous change).
    feature : str
        The feature (or group / pair) whose explanation changed.
    channel : {"data", "model", "values"}
        ``"data"``: the explanation of a frozen model snapshot on new rows moved (the data or
        the data/target relation changed); ``"model"``: the current model's explanation on a
        fixed reference sample moved (the model changed); ``"values"``: values fed directly with
        :meth:`~ixplain.drift.ExplanationDriftDetector.update_values`.
    test : str
        The test and its per-feature level, e.g. ``"ADWIN(delta=0.0002)"``.
    before, after : float
        Mean explanation value before and after the change (the method's units, e.g. loss
        increase for PFI).
    before_low, before_high, after_low, after_high : float
        95 % normal-approximation confidence bounds of those means.
    n_before, n_after : int
        Values behind each mean.
    direction : {"increase", "decrease"}
    statistic : float
        Welch's z of ``after - before`` (signed).

    Examples
    --------
    >>> e = DriftEvent(row=120, start=100, feature="age", channel="data", test="ADWIN(delta=0.001)",
    ...                before=0.3, before_low=0.28, before_high=0.32, after=0.1, after_low=0.05,
    ...                after_high=0.15, n_before=900, n_after=21, direction="decrease",
    ...                statistic=-7.1)
    >>> e.to_dict()["feature"], e.direction
    ('age', 'decrease')
    """

    row: int
    start: int
    feature: str
    channel: str
    test: str
    before: float
    before_low: float
    before_high: float
    after: float
    after_low: float
    after_high: float
    n_before: int
    n_after: int
    direction: str
    statistic: float

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-ready)."""
        return asdict(self)
