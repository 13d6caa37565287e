"""iPDP: ixplain's IncrementalPDP vs ixai's incremental PDP, same stream, model and settings.

ixai's ``IncrementalPDP`` is not in any PyPI release (0.1.3 is the latest and has no PDP); it
lives in the GitHub master (``ixai/explainer/pdp.py``). :class:`ReferenceIPDP` below re-states its
``explain_one`` step by step on ixai 0.1.3's own storage, trackers and model wrappers:

* a 20-observation warm-up that only fills the storage;
* per observation: the storage's rows turned into a DataFrame, the 5% / 95% quantiles of the
  feature, ``linspace(q05, q95, gridsize)``, then one model call per grid value on a dict record;
* the grid *positions* and the ICE values smoothed per grid index (exponential smoothing, read
  bias-corrected), a bounded deque of ICE curves and a PD snapshot every 1000 observations.

Settings shared by both: Agrawal stream (``classification_function=1``), feature ``salary``,
``alpha=0.001``, ``GeometricReservoir(100, p=0.8)`` (ixai's default PDP storage) as the range
source, 5% / 95% percentiles, 100 ICE curves and 10 PD snapshots (every 1000 rows) kept, the same
seed. ixplain's grid is the 1-2-5 lattice of the range (at most ``grid_resolution`` values):
``grid_resolution=30`` gives about 23 grid values on this stream, so ixplain evaluates at least
as many grid points per observation as ixai's 20 (the table prints both).

Run: ``python benchmarks/bench_incremental_pdp.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import _common

_common.ensure_installed(
    {
        "river": "river>=0.21",
        "lightgbm": "lightgbm>=4.0",
        "sklearn": "scikit-learn>=1.4",
        "ixai": "ixai==0.1.3",
    }
)

import argparse  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections import OrderedDict, deque  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ixai.storage import GeometricReservoirStorage  # noqa: E402
from ixai.utils.tracker import ExponentialSmoothingTracker, MultiValueTracker  # noqa: E402
from ixai.utils.wrappers import RiverWrapper, SklearnWrapper  # noqa: E402

from ixplain import GeometricReservoir, IncrementalPDP  # noqa: E402

FEATURE = "salary"
ALPHA = 0.001
GRIDSIZE = 20
IXPLAIN_GRID_RESOLUTION = 30
STORAGE_SIZE, STORAGE_P = 100, 0.8


class ReferenceIPDP:
    """ixai's incremental PDP (GitHub master), re-stated on ixai 0.1.3's building blocks."""

    def __init__(self, model_function, feature, *, gridsize, alpha, storage, output_key=1,
                 ice_size=100, history_size=10, history_interval=1000, waiting_period=20):
        self.model_function = model_function
        self.feature = feature
        self.gridsize = gridsize
        self.alpha = alpha
        self.storage = storage
        self.output_key = output_key
        self.waiting_period = waiting_period
        self.history_interval = history_interval
        self.x_tracker = MultiValueTracker(ExponentialSmoothingTracker(alpha))
        self.y_tracker = MultiValueTracker(ExponentialSmoothingTracker(alpha))
        self.ice_x: deque = deque(maxlen=ice_size)
        self.ice_y: deque = deque(maxlen=ice_size)
        self.history: deque = deque(maxlen=history_size)
        self.seen = 0
        self.evaluated: set[float] = set()
        self.track_evaluated = False

    def explain_one(self, x):
        if self.seen <= self.waiting_period:
            self.storage.update(x)
            self.seen += 1
            return
        x_data, _ = self.storage.get_data()
        column = pd.DataFrame(x_data)[self.feature]
        lo, hi = np.quantile(column, q=0.05), np.quantile(column, q=0.95)
        grid = np.linspace(start=lo, stop=hi, num=self.gridsize)
        grid_dict = OrderedDict(enumerate(grid))
        predictions = OrderedDict()
        for i, value in enumerate(grid):
            predictions[i] = self.model_function({**x, self.feature: value})[self.output_key]
        if self.track_evaluated:
            self.evaluated.update(float(v) for v in grid)
        self.y_tracker.update(predictions)
        self.x_tracker.update(grid_dict)
        self.ice_x.append(grid_dict)
        self.ice_y.append(predictions)
        self.storage.update(x)
        self.seen += 1
        if self.seen % self.history_interval == 0:
            self.history.append((OrderedDict(self.x_tracker.get()), OrderedDict(self.y_tracker.get())))

    def pd(self):
        """(grid positions, PD values), both smoothed per grid index and bias-corrected."""
        n = self.x_tracker.N
        scale = 1 - (1 - self.alpha) ** n
        xs = np.array([v for _, v in sorted(self.x_tracker.get().items())]) / scale
        ys = np.array([v for _, v in sorted(self.y_tracker.get().items())]) / scale
        return xs, ys


def agrawal(n, seed):
    from river.datasets import synth

    return list(synth.Agrawal(classification_function=1, seed=seed).take(n))


def make_pair(model, model_function, seed):
    random.seed(seed)  # ixai's reservoir draws from the global `random`
    ref = ReferenceIPDP(
        model_function, FEATURE, gridsize=GRIDSIZE, alpha=ALPHA,
        storage=GeometricReservoirStorage(size=STORAGE_SIZE, constant_probability=STORAGE_P),
    )
    ours = IncrementalPDP(
        model, FEATURE, grid_resolution=IXPLAIN_GRID_RESOLUTION, alpha=ALPHA,
        range_source="storage", storage=GeometricReservoir(STORAGE_SIZE, p=STORAGE_P,
                                                            random_state=seed),
        percentiles=(0.05, 0.95), ice_history=100, history_every=1000, history_size=10,
    )
    return ref, ours


def interleaved(ref, ours, rows, learn=None):
    """Per-observation loop, the two explainers alternating on each row (same model state)."""
    t_ref = t_ours = 0.0
    for x, y in rows:
        start = time.perf_counter()
        ref.explain_one(x)
        mid = time.perf_counter()
        ours.explain_one(x)
        t_ours += time.perf_counter() - mid
        t_ref += mid - start
        if learn is not None:
            learn(x, y)
    return len(rows) / t_ref, len(rows) / t_ours


def grid_points(ours):
    return ours.pd_.grid_values[0].size


def bench_static(name, model, model_function, rows, n_one, n_many, seed):
    ref, ours = make_pair(model, model_function, seed)
    warm = rows[:200]
    interleaved(ref, ours, warm)  # past the warm-up, storage filled
    ref_rate, one_rate = interleaved(ref, ours, rows[200 : 200 + n_one])
    # explain_many: the whole batch's ICE curves in one model call per 10,000 rows
    _, batch_ours = make_pair(model, model_function, seed)
    batch_ours.explain_many([x for x, _ in warm])
    batch = [x for x, _ in rows[200 : 200 + n_many]]
    start = time.perf_counter()
    for s in range(0, len(batch), 1000):
        batch_ours.explain_many(batch[s : s + 1000])
    many_rate = len(batch) / (time.perf_counter() - start)
    return {
        "model": name, "ixai (ref) obs/s": ref_rate, "ixplain one obs/s": one_rate,
        "ixplain many obs/s": many_rate, "ratio one": one_rate / ref_rate,
        "ratio many": many_rate / ref_rate, "grid ixai/ixplain": f"{GRIDSIZE}/{grid_points(ours)}",
    }


def bench_river(rows, n, seed):
    from river import tree

    model = tree.HoeffdingTreeClassifier(grace_period=100)
    for x, y in rows[:1000]:
        model.learn_one(x, y)
    ref, ours = make_pair(model, RiverWrapper(model.predict_proba_one), seed)
    ours.model_.observe_labels([0, 1])
    interleaved(ref, ours, rows[1000:1200], learn=model.learn_one)
    ref_rate, one_rate = interleaved(ref, ours, rows[1200 : 1200 + n], learn=model.learn_one)
    return {
        "model": "River HoeffdingTree (learning)", "ixai (ref) obs/s": ref_rate,
        "ixplain one obs/s": one_rate, "ixplain many obs/s": float("nan"),
        "ratio one": one_rate / ref_rate, "ratio many": float("nan"),
        "grid ixai/ixplain": f"{GRIDSIZE}/{grid_points(ours)}",
    }


def true_rule(records_or_frame):
    df = pd.DataFrame(records_or_frame if not isinstance(records_or_frame, dict)
                      else [records_or_frame])
    age, salary = df["age"].to_numpy(), df["salary"].to_numpy()
    young = (age < 40) & (50_000 <= salary) & (salary <= 100_000)
    middle = (age >= 40) & (age < 60) & (75_000 <= salary) & (salary <= 125_000)
    old = (age >= 60) & (25_000 <= salary) & (salary <= 75_000)
    return (young | middle | old).astype(np.float64)


def drift_check(seed, n_phase):
    """Salary first in [20k, 60k], then in [20k, 150k]: where is the PD reported?"""
    rows = agrawal(2 * n_phase, seed)
    rng = np.random.default_rng(seed)
    for x, _ in rows[:n_phase]:
        x["salary"] = float(rng.uniform(20_000, 60_000))

    def ref_function(x):
        age, salary = x["age"], x["salary"]
        if age < 40:
            hit = 50_000 <= salary <= 100_000
        elif age < 60:
            hit = 75_000 <= salary <= 125_000
        else:
            hit = 25_000 <= salary <= 75_000
        return {1: float(hit)}

    evaluated: set[float] = set()

    def ours_function(df):
        evaluated.update(df["salary"].tolist())
        return true_rule(df)

    from ixplain import as_model

    ref, ours = make_pair(as_model(ours_function, input_kind="pandas"), ref_function, seed)
    ref.track_evaluated = True
    for x, _ in rows:
        ref.explain_one(x)
        ours.explain_one(x)
    lines = []
    for name, xs in [("ixai (ref)", ref.pd()[0]), ("ixplain", ours.pd_.grid_values[0])]:
        seen = ref.evaluated if name.startswith("ixai") else evaluated
        never = np.mean([float(v) not in seen for v in xs])
        lines.append(
            f"  {name:<11} reported x in [{xs.min():>9,.0f}, {xs.max():>9,.0f}]; "
            f"{never:.0%} of the reported x-values were never evaluated by the model"
        )
    return lines


def print_table(results):
    cols = list(results[0])
    cells = [[f"{r[c]:,.1f}" if isinstance(r[c], float) else str(r[c]) for c in cols]
             for r in results]
    widths = [max(len(c), *(len(row[j]) for row in cells)) for j, c in enumerate(cols)]
    print(" | ".join(c.ljust(w) for c, w in zip(cols, widths)))
    print("-|-".join("-" * w for w in widths))
    for row in cells:
        print(" | ".join(v.ljust(w) for v, w in zip(row, widths)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--only", choices=["static", "river", "drift"], default=None,
                        help="run one part only")
    args = parser.parse_args()
    n_one, n_many, n_river = (100, 2000, 300) if args.quick else (300, 20_000, 2000)

    from lightgbm import LGBMClassifier
    from sklearn.ensemble import HistGradientBoostingClassifier

    train = agrawal(5000, args.seed + 1)
    names = list(train[0][0])
    X = np.array([[x[n] for n in names] for x, _ in train], dtype=np.float64)
    y = np.array([t for _, t in train])
    rows = agrawal(200 + n_many, args.seed)

    results = []
    if args.only in (None, "static"):
        for name, model in [
            ("LightGBM (static)", LGBMClassifier(n_estimators=100, verbose=-1, random_state=0)),
            ("HistGradientBoosting (static)", HistGradientBoostingClassifier(random_state=0)),
        ]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(X, y)
            function = SklearnWrapper(model.predict_proba, feature_names=names)
            results.append(bench_static(name, model, function, rows, n_one, n_many, args.seed))
    if args.only in (None, "river"):
        results.append(bench_river(agrawal(1200 + n_river, args.seed + 2), n_river, args.seed))
    if results:
        print(f"iPDP of '{FEATURE}' on Agrawal(classification_function=1), alpha={ALPHA}, "
              f"GeometricReservoir({STORAGE_SIZE}, p={STORAGE_P}), seed={args.seed}; "
              "observations per second (higher is better)")
        print_table(results)
    if args.only in (None, "drift"):
        print("\nDrift (salary range grows from [20k, 60k] to [20k, 150k]), true rule as model:")
        for line in drift_check(args.seed, 1000 if args.quick else 3000):
            print(line)

if __name__ == "__main__":
    main()
