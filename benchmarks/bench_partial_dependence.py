"""ixplain.partial_dependence vs sklearn.inspection.partial_dependence(method='brute').

Friedman-1 (20,000 training rows, 10 features, seed 0); HistGradientBoostingRegressor,
RandomForestRegressor(n_estimators=100, max_depth=10), LightGBM, SplineTransformer+Ridge;
1-way PD (grid 50) on 2,000 rows and 2-way PD (50 x 50) on 200 rows, kind='both'; models
single-threaded. Prints the median of 5 wall times, the speed-up, the max absolute difference of
``average`` and ``individual`` and the peak traced memory (tracemalloc) of each call.

Run: ``PYTHONPATH=src python benchmarks/bench_partial_dependence.py [--repeats 5]``
"""

import _common  # noqa: I001  (first: pins BLAS/OpenMP threads to 1)

import argparse
import tracemalloc

_common.ensure_installed({"sklearn": "scikit-learn>=1.4", "lightgbm": "lightgbm>=4.0"})

import numpy as np  # noqa: E402
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor  # noqa: E402
from sklearn.inspection import partial_dependence as sk_partial_dependence  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import SplineTransformer  # noqa: E402

from ixplain import partial_dependence  # noqa: E402
from ixplain.models import DEFAULT_MEMORY_BUDGET  # noqa: E402


def models():
    import lightgbm

    return {
        "HistGradientBoosting": HistGradientBoostingRegressor(random_state=0),
        "RandomForest": RandomForestRegressor(
            n_estimators=100, max_depth=10, n_jobs=1, random_state=0
        ),
        "LightGBM": lightgbm.LGBMRegressor(n_jobs=1, verbose=-1, random_state=0),
        "Spline+Ridge": make_pipeline(SplineTransformer(), Ridge()),
    }


def peak_memory(fn):
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def run_case(model, X_eval, features, repeats):
    kwargs = dict(grid_resolution=50, kind="both")
    t_sk, sk = _common.median_time(
        lambda: sk_partial_dependence(model, X_eval, features, method="brute", **kwargs), repeats
    )
    t_ix, ix = _common.median_time(
        lambda: partial_dependence(model, X_eval, features, method="brute", **kwargs), repeats
    )
    grids_equal = all(np.array_equal(a, b) for a, b in zip(sk.grid_values, ix.grid_values))
    diff = max(
        np.abs(sk.average - ix.average).max(), np.abs(sk.individual - ix.individual).max()
    )
    mem_ix = peak_memory(
        lambda: partial_dependence(model, X_eval, features, method="brute", **kwargs)
    )
    mem_sk = peak_memory(
        lambda: sk_partial_dependence(model, X_eval, features, method="brute", **kwargs)
    )
    return t_sk, t_ix, diff, grids_equal, mem_sk, mem_ix


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    X, y = make_friedman1(n_samples=20_000, n_features=10, random_state=0)
    rng = np.random.default_rng(0)
    X_1way = X[rng.choice(len(X), 2_000, replace=False)]
    X_2way = X[rng.choice(len(X), 200, replace=False)]
    cases = [("1-way", X_1way, [0]), ("2-way", X_2way, [0, 1])]

    header = (
        f"{'model':<22}{'case':<7}{'sklearn s':>10}{'ixplain s':>10}{'speed-up':>9}"
        f"{'max|diff|':>11}{'grid=':>6}{'peak MB sk':>11}{'peak MB ix':>11}"
    )
    print(f"median of {args.repeats}; memory budget {DEFAULT_MEMORY_BUDGET / 2**20:.0f} MB")
    print(header)
    print("-" * len(header))
    for name, model in models().items():
        model.fit(X, y)
        for case, X_eval, features in cases:
            t_sk, t_ix, diff, eq, m_sk, m_ix = run_case(model, X_eval, features, args.repeats)
            print(
                f"{name:<22}{case:<7}{t_sk:>10.3f}{t_ix:>10.3f}{t_sk / t_ix:>8.1f}x"
                f"{diff:>11.1e}{'yes' if eq else 'NO':>6}{m_sk / 2**20:>11.1f}{m_ix / 2**20:>11.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
