"""The contract of explanation-based drift detection: one univariate change test, one event.

A :class:`ChangeTest` watches one stream of numbers (one feature's per-observation explanation
values, scaled into [0, 1]) and says when its distribution changed. Three are provided, each a
thin wrapper of River's ``drift`` module (imported lazily; ``pip install river``):

``"adwin"`` -- :class:`ADWINTest` (default)
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
C. Raab, M. Heusinger, F.-M. Schleif, "Reactive Soft Prototype Computing for Concept Drift
Streams", Neurocomputing 416, 2020. E. S. Page, "Continuous Inspection Schemes", Biometrika 41,
1954.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "ADWINTest",
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



#: The tests by name, with the keyword their level goes to.
TESTS = ("adwin", "kswin", "page_hinkley")


def make_test(name: str, level: float, seed: int) -> ChangeTest:
    """A fresh test by name at a per-feature ``level`` (``seed`` for the randomised KSWIN).

    Examples
    --------
    >>> make_test("adwin", 0.001, seed=0).name
    'ADWIN(delta=0.001)'
    """
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
