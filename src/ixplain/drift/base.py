"""The contract of explanation-based drift detection: one univariate change test, one event.

A :class:`ChangeTest` watches one stream of numbers (one feature's per-observation explanation
values, scaled into [0, 1]) and says when its distribution changed. Three are provided, each a
thin wrapper of River's ``drift`` module (imported lazily; ``pip install river``):

``"cusum"`` -- :class:`CUSUMTest` (default)
    A two-sided, self-starting CUSUM of likelihood-ratio type (Page 1954; Lorden 1971;
    Hawkins 1987) on robustly clipped, standardised values: each value is clipped at 5
    robust scales around the warm-up median (Huber 1964), standardised by the mean and
    long-run standard deviation of the regime's clipped values and clipped at +-``t``, ``t``
    from 3 to 4 (3, or the warm-up's own largest ``|z|`` up to 4: values as extreme as the
    warm-up's are evidence, e.g. the errors of a 0-1 loss at a low error rate); each side
    accumulates ``S = max(0, S + d z - psi(d))`` with ``d = 0.5`` and ``psi(d)`` the warm-up's
    log moment generating function of ``z``; alarm at ``h = log(200000 / level)``.
    Guarantees (derived in :class:`CUSUMTest`): (1) always, one row moves a sum by at most
    ``0.5 t - psi``, at most 1.375 (``t = 3``) to 1.875 (``t = 4``), so fewer than 15 to 11
    rows (at the defaults, nine features) cannot raise an alarm from a sum at 0, however
    extreme their values; (2) for i.i.d. values of a known
    distribution, the probability of any false alarm within 100,000 rows is at most
    ``level`` (Ville's inequality on ``exp`` of the sums; the clipping makes the values
    bounded, so the bound holds for heavy-tailed values too, whose own moment generating
    function is infinite); with the distribution estimated from the regime it is
    approximate (the tests measure it on normal, Student-t and lognormal values, the
    benchmark on real streams); (3) for correlated rows, a long-run factor from batch means
    widens the scale (a heuristic). After an alarm the test warms up again on the new regime.
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
    ``n`` stationary values up to ``n * alpha`` false alarms are expected (use a small level).
    With the detector's split, the probability that any feature fires at a given row is at
    most the detector's ``delta``; there is no bound per stream.
``"page_hinkley"`` -- :class:`PageHinkleyTest`
    Page's cumulative-sum test (Page 1954) for a mean shift of at least ``delta`` (in the [0, 1]
    scale), alarm when the cumulative deviation exceeds ``threshold``. It has no false-alarm
    probability: the level it receives (the detector's ``delta / k``) only sets the threshold
    ``log(1 / level)`` (a heuristic: the average run length of CUSUM grows exponentially in the
    threshold), so the detector's split gives it no family-wise guarantee.

A test only says *when*; the detector estimates *where* the change began (the split of the
values since the previous change that maximises the standardised mean difference, the
maximum-likelihood change point of a mean shift) and the means before and after it.

The level a test receives is the *per-feature* level: the detector's ``delta`` divided by the
number of tests in the channel (Bonferroni). That bounds the family's false alarms in the
sense of each test's own guarantee -- per 100,000 rows for the CUSUM, per check for ADWIN,
per row for KSWIN -- and not at all for Page-Hinkley, which has none.

References
----------
A. Bifet, R. Gavalda, "Learning from Time-Changing Data with Adaptive Windowing", SDM 2007.
G. Lorden, "Procedures for Reacting to a Change in Distribution", Annals of Mathematical
Statistics 42, 1971. D. M. Hawkins, "Self-Starting Cusum Charts for Location and Scale",
The Statistician 36, 1987. P. J. Huber, "Robust Estimation of a Location Parameter", Annals
of Mathematical Statistics 35, 1964. W. K. Newey, K. D. West, "A Simple, Positive Semi-Definite,
Heteroskedasticity and Autocorrelation Consistent Covariance Matrix", Econometrica 55, 1987.
C. Raab, M. Heusinger, F.-M. Schleif, "Reactive Soft Prototype Computing for Concept Drift
Streams", Neurocomputing 416, 2020. E. S. Page, "Continuous Inspection Schemes", Biometrika 41,
1954.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import asdict, dataclass
from statistics import NormalDist
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

_RHO = 20.0  # the normal mixture's prior scale, in rows (as the attribution's, RHO)


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
    """Two-sided self-starting CUSUM on robustly clipped, standardised values; false alarms
    at most about ``level`` per 100,000 rows.

    Each value ``x`` is first clipped to ``[m - c s, m + c s]`` (``y``), with ``m`` the
    warm-up median, ``s`` a robust scale of the warm-up (the median absolute deviation over
    0.6745; when more than half the values are equal, the 90 %, then 99 % quantile of the
    absolute deviations over their normal quantile; when even that is 0, the largest
    deviation; a constant warm-up is not clipped: its scale is the floor below) and
    ``c = clip``. The clipped value is standardised by the mean and standard
    deviation of the regime's clipped values so far times a long-run factor ``k >= 1`` and
    clipped again to ``[-t, t]`` (``z``), with ``t = max(max_z, min(4, m_w))`` and ``m_w``
    the largest standardised warm-up value (in absolute terms; ``t = 4`` for a constant
    warm-up, whose every departure is new behaviour, e.g. a perfect model's first errors):
    a value as extreme as the warm-up's own is evidence (a 0-1 loss at error rate 0.05 has
    its errors at 4.4), one more extreme than all of them counts no more than ``max_z``.
    Each side accumulates ``S = max(0, S + d z - psi(d))`` with ``d = shift``; ``psi(d)`` is
    the log moment generating function of the warm-up's ``z`` (at least ``d**2 / 2``, the
    normal one). An alarm when a side reaches ``h = log(200000 / level)`` and the values
    behind it moved the *mean* (``confirm``): the sum is that of the ``n`` values since the
    side was last 0, and their mean ``z`` must exceed ``max(1, sd)`` (their own standard
    deviation) times the normal-mixture confidence sequence's half-width at ``level / 2``
    plus the reference mean's error bound. A spread that grows with the mean unchanged
    drives the sums up too (the test is calibrated on the warm-up's spread): it is not a
    change of the mean, and the sum goes on without an alarm (measured on N(0, 1) values
    whose standard deviation triples: 28 alarms in 200 runs without the confirmation, 5
    with it; mean shifts of 0.25 to 2 standard deviations: the same alarms at the same
    rows). After an alarm the test warms up again.

    What is guaranteed:

    1. **Influence of one row (always).** A row moves a side by at most
       ``b = d t - psi(d)`` (at the defaults 1.375 for ``t = 3``, at most 1.875), so from
       ``S = 0`` no run of fewer than ``ceil(h / b)`` rows can raise an alarm, whatever
       their size (15 rows for ``t = 3``, 11 at most, at ``level = 0.002 / 9``): a few
       extreme rows cannot, unless the sum was already high.
    2. **False alarms (i.i.d. values).** Were the values after the warm-up i.i.d. with
       ``E[z] = 0`` and ``log E[exp(+-d z)] <= psi(d)``, each increment would have
       ``E[exp(d z - psi)] <= 1``: ``exp`` of the sum from any start row is a
       non-negative supermartingale, which reaches ``e^h`` with probability at most ``e^-h``
       (Ville's inequality); the union over the two sides and the start rows bounds the
       probability of any alarm within 100,000 rows by ``level``. The clipping makes ``z``
       bounded, so this moment generating function exists for *any* distribution of ``x``
       -- also for heavy-tailed per-row values (squared-error increments, Student-t,
       lognormal), whose own moment generating function is infinite, so that a CUSUM on the
       raw values has no such bound and a warm-up estimate of ``psi`` has no limit -- and its
       warm-up estimate (the plug-in ``psi``) converges at rate ``1 / sqrt(warmup)``. A
       long-run factor that grows after the warm-up (``k > k_0``) shrinks ``z`` and keeps
       the bound for a mean-zero ``z``: its log moment generating function is convex and 0
       at 0, so ``log E[exp(d z k_0 / k)] <= (k_0 / k) log E[exp(d z)] <= psi`` (up to the
       second clip, applied after the shrinking). The bound is exact for a known ``m, s``,
       mean, standard deviation and ``psi``; with them estimated from the regime (the
       plug-in, Hawkins' self-starting scheme) it is approximate: the tests and the
       benchmark measure the rate.
    3. **Dependent values (a heuristic).** Neighbouring rows of a real stream are correlated
       (hourly rows: daily and weekly cycles, holidays of 24 rows). ``k`` is the long-run
       standard deviation over the standard deviation: after the warm-up the larger of a
       Bartlett estimate from the warm-up's first 10 autocorrelations (Newey & West 1987)
       and a lower 95 % confidence bound from the means of consecutive batches of ``batch``
       clipped values (the last 400 batches of the regime; batch means, e.g. Bagshaw &
       Johnson 1977 for CUSUMs of correlated values), so independent values keep ``k``
       close to 1.

    Parameters
    ----------
    level : float in (0, 1)
        Bound on the probability of a false alarm within 100,000 values (guarantee 2): the
        threshold is ``h = log(200000 / level)``.
    warmup : int, default=200
        Values that fix the clipping range, ``psi`` and the first standardisation (again
        after each alarm).
    shift : float, default=0.5
        The design shift ``d``, in standard deviations of the clipped warm-up values.
    lag : int, default=0
        Values join the reference (its mean and variance) ``lag`` values after they arrive
        (0: at once, Hawkins' self-starting CUSUM). A lag keeps a recent small shift from
        pulling the reference, but makes the reference lag behind a slow trend: on the bike
        stream (benchmark) ``lag=1000`` triples the alarms.
    clip : float, default=5.0
        The first clip, in robust scales ``s`` around the warm-up median: it tames the far
        tail, so that the regime's mean and standard deviation exist for heavy-tailed values
        (one row's influence is bounded by ``max_z``). A tighter clip discards evidence:
        at 2.5 the benchmark's Friedman delays grow by half.
    max_z : float, default=3.0
        The second clip, of the standardised value, raised to the warm-up's largest value up
        to 4 (bounds one row's influence, guarantee 1).
    batch : int, default=25
        Values per batch mean of the long-run factor.
    confirm : bool, default=True
        Confirm an alarm by the mean of the values behind the sum, with their own spread
        (above); False: alarm at ``h`` alone.

    Raises
    ------
    ValueError
        For a level outside (0, 1), a ``warmup`` below 2, or a non-positive ``shift``,
        ``clip``, ``max_z`` or ``batch``.

    References
    ----------
    E. S. Page, "Continuous Inspection Schemes", Biometrika 41, 1954. G. Lorden, "Procedures
    for Reacting to a Change in Distribution", Ann. Math. Statist. 42, 1971. D. M. Hawkins,
    "Self-Starting Cusum Charts for Location and Scale", The Statistician 36, 1987. P. J.
    Huber, "Robust Estimation of a Location Parameter", Ann. Math. Statist. 35, 1964.
    S. L. Bagshaw, R. A. Johnson, "Sequential Procedures for Detecting Parameter Changes in a
    Time-Series Model", JASA 72, 1977. W. K. Newey, K. D. West, Econometrica 55, 1987.

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

    def __init__(self, level: float, warmup: int = 200, shift: float = 0.5, lag: int = 0,
                 clip: float = 5.0, max_z: float = 3.0, batch: int = 25,
                 confirm: bool = True) -> None:
        _check_cusum(level, warmup, shift, clip, max_z, batch)
        self.level = float(level)
        self.confirm = bool(confirm)
        self._z_ref = NormalDist().inv_cdf(1.0 - self.level / 4.0)
        self.lag = int(lag)
        self.warmup = int(warmup)
        self.shift = float(shift)
        self.clip = float(clip)
        self.max_z = float(max_z)
        self.batch = int(batch)
        self.threshold = math.log(200_000.0 / self.level)
        self.name = f"CUSUM(level={self.level:.3g})"
        self._start()

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "max_z" not in state:  # pickled before the robust standardisation: as it was
            state.update(clip=math.inf, max_z=4.0, batch=25, _lo=-math.inf, _hi=math.inf,
                         _inflate0=state.get("_inflate", 1.0), _batches=None, _top=4.0)
        if "confirm" not in state:  # pickled before the confirmation: as it was
            state.update(confirm=False, _seg_up=None, _seg_down=None, _z_ref=0.0)
        self.__dict__.update(state)

    def __deepcopy__(self, memo: dict[int, Any]) -> CUSUMTest:
        """An independent copy of the test's state: its floats shared (immutable), its
        lists of floats (warm-up, pending reference values, batch means, the confirmation's
        sums) copied as lists
        (the generic deep copy copies each of their up to 600 floats one by one; the loss
        test copies its state at every chunk, :mod:`ixplain.drift._attribution`)."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._warm = list(self._warm)
        new._pending = deque(self._pending)
        for side in ("_seg_up", "_seg_down"):  # updated in place (absent from old pickles)
            seg = self.__dict__.get(side)
            if seg is not None:
                setattr(new, side, list(seg))
        if self._batches is not None:
            new._batches = self._batches.copy()
        memo[id(self)] = new
        return new

    def _start(self) -> None:
        self._warm: list[float] = []
        self._mean = self._sd = 0.0
        self._lo, self._hi = -math.inf, math.inf
        self._inflate = self._inflate0 = 1.0
        self._top = self.max_z
        self._psi = (0.0, 0.0)
        self._up = self._down = 0.0
        self._pending: deque[float] = deque()
        self._batches: _BatchMeans | None = _BatchMeans(self.batch)
        # (n, sum z, sum z**2) of the values behind each side's sum (since it was last 0)
        self._seg_up: list[float] | None = [0.0, 0.0, 0.0]
        self._seg_down: list[float] | None = [0.0, 0.0, 0.0]

    def _fit(self) -> None:
        w = self._warm
        n = len(w)
        centre, scale = _robust_location_scale(w)
        if scale > 0:  # (a constant warm-up has no scale to clip at: the floor below)
            self._lo, self._hi = centre - self.clip * scale, centre + self.clip * scale
        y = [self._clipped(x) for x in w]
        self._mean = sum(y) / n
        var = sum((x - self._mean) ** 2 for x in y) / (n - 1)
        # a constant warm-up (e.g. a feature the model ignores, values exactly 0): the rate of
        # other values is below about 3 / n (rule of three), so a departure of the largest
        # size the scaled values allow (0.5) has a standard deviation of about
        # 0.5 * sqrt(3 / n); one odd value is not a change, a run of them is
        self._sd = math.sqrt(var) if var > 0 else 0.5 * math.sqrt(3.0 / n)
        self._n, self._m2 = n, var * (n - 1)
        self._inflate = self._inflate0 = _long_run_factor(y, self._mean, var)
        z = [(x - self._mean) / (self._sd * self._inflate) for x in y]
        # values as extreme as the warm-up's own (up to the old clip at 4) are not clipped:
        # a 0-1 loss of error rate 0.05 has errors at z = 4.4, every one of them evidence
        # (a constant warm-up: every departure is a change of the model's behaviour, e.g. the
        # first errors of a perfect model; it counts as the old clip did)
        self._top = 4.0 if var <= 0 else max(self.max_z, min(4.0, max(abs(v) for v in z)))
        d, top = self.shift, self._top
        z = [max(-top, min(top, v)) for v in z]
        up = math.log(sum(math.exp(d * v) for v in z) / n)
        down = math.log(sum(math.exp(-d * v) for v in z) / n)
        self._psi = (max(up, d * d / 2), max(down, d * d / 2))
        if self._batches is not None:
            for x in y:
                self._batches.add(x)

    def _clipped(self, value: float) -> float:
        return min(self._hi, max(self._lo, value))

    def update(self, value: float) -> bool:
        """Add one value; True when a change is detected at this value."""
        if len(self._warm) < self.warmup:
            self._warm.append(float(value))
            if len(self._warm) == self.warmup:
                self._fit()
            return False
        y = self._clipped(float(value))
        top = self._top
        z = max(-top, min(top, (y - self._mean) / (self._sd * self._inflate)))
        d = self.shift
        self._up = max(0.0, self._up + d * z - self._psi[0])
        self._down = max(0.0, self._down - d * z - self._psi[1])
        up, down = self._seg_up, self._seg_down
        if up is not None:
            up[:] = (0.0, 0.0, 0.0) if self._up == 0.0 else (up[0] + 1, up[1] + z, up[2] + z * z)
        if down is not None:
            down[:] = ((0.0, 0.0, 0.0) if self._down == 0.0
                       else (down[0] + 1, down[1] + z, down[2] + z * z))
        if ((self._up >= self.threshold and self._moved(up))
                or (self._down >= self.threshold and self._moved(down))):
            self._start()
            return True
        # the reference: the regime's clipped values older than ``lag`` rows
        pending = self._pending
        pending.append(y)
        if len(pending) > self.lag:
            self._absorb(pending.popleft())
        return False

    def _moved(self, seg: list[float] | None) -> bool:
        """Whether the values behind a side's sum (those since it was last 0, ``n`` of
        them, standardised: ``z``) moved the mean, judged with their own spread: ``|mean(z)|``
        beyond ``max(1, sd(z))`` times the two-sided normal-mixture confidence sequence's
        half-width at ``level / 2`` (``n`` values; valid at every ``n``) plus the normal
        bound at ``level / 4`` of the reference mean's error (``1 / sqrt(n_ref)``: the
        reference's ``z`` have standard deviation 1).
        A sum driven by a larger spread alone (the mean unchanged) fails it; True without the
        confirmation (``confirm=False``, or a test pickled before it)."""
        if not self.confirm or seg is None or seg[0] < 2:
            return True
        n, s1, s2 = seg
        mean = s1 / n
        sd = math.sqrt(max(1.0, (s2 - s1 * s1 / n) / (n - 1)))
        v = n + _RHO
        half = math.sqrt(v * math.log(v / (_RHO * (self.level / 2.0) ** 2))) / n
        return abs(mean) > sd * half + self._z_ref / math.sqrt(self._n)

    def _absorb(self, value: float) -> None:
        self._n += 1
        delta = value - self._mean
        self._mean += delta / self._n
        self._m2 += delta * (value - self._mean)
        var = self._m2 / (self._n - 1)
        if var > 0:
            self._sd = math.sqrt(var)
        if self._batches is not None and self._batches.add(value):
            ratio = self._batches.lower_variance() * self.batch / self._sd**2
            self._inflate = max(self._inflate0, math.sqrt(min(max(ratio, 1.0), 100.0)))


def _check_cusum(level: float, warmup: int, shift: float, clip: float, max_z: float,
                 batch: int) -> None:
    from .._validation import check_float, check_int

    check_float(level, "level", "CUSUMTest", low=0.0, high=1.0, low_inclusive=False,
                high_inclusive=False)
    check_int(warmup, "warmup", "CUSUMTest", min_value=2)
    for name, value in (("shift", shift), ("clip", clip), ("max_z", max_z)):
        check_float(value, name, "CUSUMTest", low=0.0, low_inclusive=False)
    check_int(batch, "batch", "CUSUMTest", min_value=1)


def _robust_location_scale(w: list[float]) -> tuple[float, float]:
    """The median of ``w`` and a robust scale: the median absolute deviation over 0.6745 (a
    normal sd); when it is 0 (more than half the values equal), the 90 % and then 99 %
    quantile of the absolute deviations over 1.645 and 2.576; then the largest deviation."""
    v = sorted(w)
    n = len(v)
    centre = 0.5 * (v[(n - 1) // 2] + v[n // 2])
    dev = sorted(abs(x - centre) for x in v)

    def quantile(p: float) -> float:
        i = p * (n - 1)
        lo = int(i)
        hi = min(lo + 1, n - 1)
        return dev[lo] + (i - lo) * (dev[hi] - dev[lo])

    for p, z in ((0.5, 0.6745), (0.9, 1.645), (0.99, 2.576)):
        scale = quantile(p) / z
        if scale > 0:
            return centre, scale
    return centre, dev[-1]


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


class _BatchMeans:
    """Means of consecutive batches of ``size`` values (the last ``keep``) and a lower 95 %
    confidence bound of their variance (chi-square, normal approximation)."""

    def __init__(self, size: int, keep: int = 400) -> None:
        self.size, self.keep = int(size), int(keep)
        self._sum = 0.0
        self._count = 0
        self._means: deque[float] = deque()
        self._s1 = self._s2 = 0.0

    def copy(self) -> _BatchMeans:
        """An independent copy (the means as a new deque)."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._means = deque(self._means)
        return new

    def add(self, value: float) -> bool:
        """Add one value; True when it completed a batch and the bound is defined."""
        self._sum += value
        self._count += 1
        if self._count < self.size:
            return False
        m = self._sum / self.size
        self._sum, self._count = 0.0, 0
        self._means.append(m)
        self._s1 += m
        self._s2 += m * m
        if len(self._means) > self.keep:
            old = self._means.popleft()
            self._s1 -= old
            self._s2 -= old * old
        return len(self._means) >= 8

    def lower_variance(self) -> float:
        """``var * (1 - 1.645 sqrt(2 / (n - 1)))``, at least 0 (``n`` batch means)."""
        n = len(self._means)
        var = max(self._s2 - self._s1 * self._s1 / n, 0.0) / (n - 1)
        return var * max(0.0, 1.0 - 1.645 * math.sqrt(2.0 / (n - 1)))


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
        Estimated first row of the new regime (the split of the values since the feature's
        previous change, as its test saw them, with the largest standardised mean difference;
        at least 2 values after it). For a model event: the row after the last model check
        that found no change (or after the reference point): the change was found
        in ``[start, row]``.
    feature : str
        The feature (or group / pair) whose explanation changed.
    channel : {"data", "model", "values"}
        ``"data"``: the explanation of a frozen model snapshot on new rows moved (the data or
        the data/target relation changed); ``"model"``: the current model's explanation on a
        fixed reference sample moved (the model changed); ``"values"``: values fed directly with
        :meth:`~ixplain.drift.ExplanationDriftDetector.update_values`.
    test : str
        The test that found the change and its per-feature level, e.g.
        ``"ADWIN(delta=0.0002)"``. An event of a data channel's attribution names the loss
        test and the test that named the feature: ``"CUSUM(loss, level=...) + z-test at the
        alarm row (fixed n, level=...)"`` (the look) or ``"CUSUM(loss, level=...) + mixture
        sequence (level=...)"`` (see :mod:`ixplain.drift._attribution`).
    before, after : float
        Mean explanation value before and after the change (the method's units, e.g. loss
        increase for PFI).
    before_low, before_high, after_low, after_high : float
        95 % normal-approximation confidence bounds of those means.
    n_before, n_after : int
        Values behind each mean.
    direction : {"increase", "decrease"}
    statistic : float
        Signed z of ``after - before``: for the look's events the look's own z,
        ``(after - before) / (sigma * sqrt(1 / n_after + 1 / n_before))`` with ``sigma`` the
        larger of the two standard deviations (the value it compared with its threshold);
        for a model event the paired z of the reference rows' values then and now (the value
        the model check compared with its critical value); for every other event Welch's z
        of the two means (the change tests and the mixture sequence compare other statistics
        with their boundaries; a feature test's alarm is an event only when this z passes
        the test's level).

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
