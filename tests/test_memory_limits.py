"""One minimum memory budget, and sizes known up front checked before anything is allocated
(issue #15: ``memory_budget=1`` made one-row model calls; ``n_repeats=10**7`` grew memory)."""

from __future__ import annotations

import numpy as np
import pytest

import ixplain._validation as validation
from ixplain import (
    accumulated_local_effects,
    h_statistic,
    partial_dependence,
    permutation_importance,
    sage,
)
from ixplain.models import MIN_MEMORY_BUDGET

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 4))
y = X[:, 0] - 2 * X[:, 1]


def f(A):
    return np.asarray(A)[:, 0] - 2 * np.asarray(A)[:, 1]


STATIC = {
    "partial_dependence": lambda b, m=f: partial_dependence(m, X, [0], memory_budget=b),
    "permutation_importance": lambda b, m=f: permutation_importance(
        m, X, y, loss="squared_error", n_repeats=2, memory_budget=b),
    "accumulated_local_effects": lambda b, m=f: accumulated_local_effects(
        m, X, [0], memory_budget=b),
    "h_statistic": lambda b, m=f: h_statistic(m, X, features=[0, 1], memory_budget=b),
}


@pytest.mark.parametrize("name", sorted(STATIC))
@pytest.mark.parametrize("budget", [1, MIN_MEMORY_BUDGET - 1])
def test_a_budget_below_the_minimum_is_refused_naming_it(name, budget):
    assert MIN_MEMORY_BUDGET == 4096
    with pytest.raises(ValueError, match=f"'memory_budget' parameter of {name} must be an int "
                                         ">= 4096 \\(bytes; the minimum memory budget"):
        STATIC[name](budget)


@pytest.mark.parametrize("name", sorted(STATIC))
def test_the_minimum_budget_runs_with_calls_of_many_rows(name):
    sizes = []

    def g(A):
        sizes.append(len(A))
        return f(A)

    STATIC[name](MIN_MEMORY_BUDGET, g)
    assert max(sizes) > 16  # not one-row calls: 4096 bytes hold 128 rows of 4 features


def test_dask_functions_share_the_minimum():
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    from ixplain import dask as ixdask

    frame = pd.DataFrame(X, columns=list("abcd")).assign(y=y)
    ddf = dd.from_pandas(frame, npartitions=2)
    model = lambda D: D["a"].to_numpy() - 2 * D["b"].to_numpy()  # noqa: E731
    calls = {
        "ixplain.dask.partial_dependence": lambda: ixdask.partial_dependence(
            model, ddf.drop(columns="y"), "a", memory_budget=1),
        "ixplain.dask.permutation_importance": lambda: ixdask.permutation_importance(
            model, ddf, "y", loss="squared_error", memory_budget=1),
        "ixplain.dask.sage": lambda: ixdask.sage(model, ddf, "y", loss="squared_error",
                                                 memory_budget=1),
    }
    for owner, call in calls.items():
        with pytest.raises(ValueError, match=f"'memory_budget' parameter of {owner} must be an "
                                             "int >= 4096"):
            call()


# ----------------------------------------------------------------------------- sizes up front
@pytest.fixture
def two_gib(monkeypatch):
    """Pretend the machine has 2 GiB available (the checks read it when they run)."""
    monkeypatch.setattr(validation, "available_memory", lambda: 2 * 2**30)


def test_permutation_importance_refuses_absurd_n_repeats_with_the_bytes(two_gib):
    # 10**7 repeats x 4 features: 40,000,001 perturbed rows per observation, 4 cells of 8 bytes
    with pytest.raises(ValueError, match=r"n_repeats=10,000,000 for 4 feature group\(s\) "
                       r"\(40,000,001 perturbed rows of 4 features per observation\) needs "
                       r"1,280,000,032 bytes in one model call, more than "
                       r"memory_budget=268,435,456"):
        permutation_importance(f, X, y, loss="squared_error", n_repeats=10**7)
    # with a budget that allows it, the (G, R) importances (x3 copies) exceed the memory
    with pytest.raises(MemoryError, match=r"n_repeats=100,000,000 .* would need 8.9 GiB "
                       r"\(9,600,000,000 bytes\), more than the 2.0 GiB"):
        permutation_importance(f, X, y, loss="squared_error", n_repeats=10**8,
                               memory_budget=2**45)


def test_partial_dependence_refuses_a_grid_that_cannot_run_or_fit(two_gib):
    big = rng.normal(size=(20_000, 4))
    # 2-way on 20,000 distinct values each: 4 * 10**8 grid points, one row's calls 12.8 GB
    with pytest.raises(ValueError, match=r"400,000,000 grid points \(grid_resolution=100,000, "
                       r"2 feature\(s\)\) for one row of 4 features needs 12,800,000,000 bytes"):
        partial_dependence(f, big, [0, 1], grid_resolution=100_000)
    # 1-way, 20,000 points: one row fits the budget, but 20,000 ICE curves of 20,000 points
    # are 3.2 GB
    with pytest.raises(MemoryError, match=r"kind='both' with 20,000 grid points .* for 20,000 "
                       r"rows would need 3.0 GiB \(3,200,160,000 bytes\)"):
        partial_dependence(f, big, [0], grid_resolution=100_000, kind="both")
    average = partial_dependence(f, big, [0], grid_resolution=100_000, kind="average")
    assert average.average.shape == (1, 20_000)


def test_sage_refuses_batches_and_permutations_that_cannot_fit(two_gib):
    with pytest.raises(MemoryError, match=r"batch_size=100,000,000 permutations of 4 players"):
        sage(f, X, y, loss="squared_error", batch_size=10**8, n_permutations=10**9,
             convergence_threshold=None)
    # the exact inner average over a huge background: one permutation's rows cannot fit
    background = np.zeros((30_000_000, 4))
    with pytest.raises(MemoryError, match=r"30,000,000 background rows x 4 players"):
        sage(f, X, y, loss="squared_error", background=background, n_samples=None,
             n_permutations=10)


def test_sage_chunks_model_calls_with_call_rows_bit_identically(monkeypatch):
    """Permutations per model call come from models.call_rows: a smaller CALL_ROWS makes more,
    smaller calls and changes no bit of the estimate."""
    import ixplain.models.base as base

    sizes = []

    def g(A):
        sizes.append(len(A))
        return f(A)

    kw = dict(loss="squared_error", random_state=0, n_permutations=600,
              convergence_threshold=None, n_samples=4)
    ref = sage(g, X, y, **kw)
    big = max(s for s in sizes if s != len(X))  # not the model's loss on X and background
    sizes.clear()
    monkeypatch.setattr(base, "CALL_ROWS", 128)
    small = sage(g, X, y, **kw)
    per = 4 * 4 + 1  # (players) x n_samples + 1 rows per permutation
    assert big == min(base.rows_for_budget(4), 8192) // per * per
    assert max(s for s in sizes if s != len(X)) == 128 // per * per < big
    np.testing.assert_array_equal(ref.importances_mean, small.importances_mean)
    np.testing.assert_array_equal(ref.importances_std, small.importances_std)


def test_dask_refuses_absurd_sizes_and_pfi_calls_are_call_rows_sized():
    """Dask PFI explains a partition in chunks of models.call_rows rows of model input (the
    engine's Method.chunk_rows), the same bits for any budget; n_repeats and PD grids whose
    smallest model call exceeds the budget are refused before any partition is computed."""
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    from ixplain import dask as ixdask
    from ixplain.models import call_rows

    frame = pd.DataFrame(rng.normal(size=(3000, 4)), columns=list("abcd"))
    frame["y"] = frame["a"] - 2 * frame["b"]
    ddf = dd.from_pandas(frame, npartitions=2)
    sizes = []

    def model(D):
        sizes.append(len(D))
        return D["a"].to_numpy() - 2 * D["b"].to_numpy()

    results = []
    for budget in (2**13, 2**16, 2**28):
        sizes.clear()
        r = ixdask.permutation_importance(model, ddf, "y", loss="squared_error", n_repeats=2,
                                          random_state=0, memory_budget=budget)
        results.append(r.importances)
        per = 1 + 4 * 2  # rows per observation: itself and 2 draws for each of 4 features
        # model calls on the partitions (not the background or the head)
        explain_calls = [s for s in sizes if s % per == 0 and s > 100]
        assert max(explain_calls) <= call_rows(4, budget, n_rows=1500) // per * per
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    with pytest.raises(ValueError, match=r"ixplain.dask.permutation_importance: "
                       r"n_repeats=10,000,000 .* needs 1,280,000,032 bytes in one model call"):
        ixdask.permutation_importance(model, ddf, "y", loss="squared_error", n_repeats=10**7)
    with pytest.raises(ValueError, match=r"ixplain.dask.partial_dependence: 9,000,000 grid "
                       r"points .* more than memory_budget=268,435,456"):
        ixdask.partial_dependence(model, ddf.drop(columns="y"), ["a", "b"],
                                  grid_resolution=10**5)
