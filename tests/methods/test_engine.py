"""The explanation engine: static and Dask drivers, block aggregation, progress, registration."""

import builtins

import numpy as np
import pandas as pd
import pytest

from ixplain._random import RowStream
from ixplain.methods import _engine as engine
from ixplain.methods._engine import (
    METHODS,
    Method,
    ProgressInfo,
    RowBatch,
    explain_rows,
    make_progress,
    register,
)
from ixplain.models import as_model
from ixplain.tabular import as_table


def _f(A):
    return 3 * A[:, 0] + A[:, 1] ** 2 - A[:, 0] * A[:, 2]


class RandomShift(Method):
    """lambda_j(x) = f(x + u_{t,j} e_j) - f(x), u_{t,j} uniform, keyed by (seed, row t)."""

    name = "test_random_shift"

    def __init__(self, seed=0):
        self.model = as_model(_f)
        self.seed = seed

    def rows_per_observation(self, table):
        return 1 + len(table.names)

    def explain(self, batch: RowBatch) -> np.ndarray:
        X = np.column_stack([batch.X.numeric_column(n) for n in batch.X.names])
        B, d = X.shape
        u = RowStream(self.seed, "test", d).uniforms(batch.start, B)
        rows = np.repeat(X, 1 + d, axis=0).reshape(B, 1 + d, d)
        rows[:, 1:] += u[:, None, :] * np.eye(d)
        out = self.model.predict_array(rows.reshape(-1, d)).reshape(B, 1 + d)
        return out[:, 1:] - out[:, :1]

    @staticmethod
    def direct(X, seed=0):
        """The same values written plainly, one row at a time."""
        out = []
        for t, x in enumerate(X):
            u = RowStream(seed, "test", X.shape[1]).uniforms(t, 1)[0]
            base = _f(x[None])[0]
            out.append([_f((x + u[j] * np.eye(X.shape[1])[j])[None])[0] - base
                        for j in range(X.shape[1])])
        return np.array(out)


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).normal(size=(500, 3))


def test_mean_and_values_equal_the_plain_computation(X):
    expected = RandomShift.direct(X)
    out = explain_rows(RandomShift(), as_table(X), keep_values=True)
    np.testing.assert_allclose(out.values, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.mean.get(), expected.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(out.standard_error, expected.std(axis=0, ddof=1) / np.sqrt(500),
                               rtol=1e-10)


def test_weighted_mean(X):
    w = np.random.default_rng(1).uniform(0, 2, size=len(X))
    w[::7] = 0.0
    expected = RandomShift.direct(X)
    out = explain_rows(RandomShift(), as_table(X), sample_weight=w)
    np.testing.assert_allclose(out.mean.get(), w @ expected / w.sum(), rtol=1e-12)
    assert out.mean.n == int((w > 0).sum())


def test_bit_identical_for_any_memory_budget_and_n_jobs(X):
    table = as_table(X)
    ref = explain_rows(RandomShift(), table, keep_values=True)
    # 1 row per call (below a block), 40 rows (blocks cut across calls), 200 rows
    for budget in (8 * 3, 8 * 3 * 4 * 40, 8 * 3 * 4 * 200):
        for jobs in (1, 2):
            got = explain_rows(RandomShift(), table, memory_budget=budget, n_jobs=jobs,
                               keep_values=True)
            np.testing.assert_array_equal(got.mean.get(), ref.mean.get())
            np.testing.assert_array_equal(got.mean.variance, ref.mean.variance)
            np.testing.assert_array_equal(got.values, ref.values)


def test_a_later_start_reads_the_later_rows_draws(X):
    """Rows 100.. explained alone (start=100) get the draws they get in the whole run."""
    whole = explain_rows(RandomShift(), as_table(X), keep_values=True).values
    part = explain_rows(RandomShift(), as_table(X[100:]), start=100, keep_values=True).values
    np.testing.assert_array_equal(part, whole[100:])


def test_labels_required_and_value_count_checked(X):
    class NeedsY(RandomShift):
        name = "test_needs_y"
        needs_labels = True

    with pytest.raises(ValueError, match="needs labels"):
        explain_rows(NeedsY(), as_table(X))

    class Short(RandomShift):
        name = "test_short"

        def explain(self, batch):
            return np.zeros((batch.n_rows - 1, 3))

    with pytest.raises(ValueError, match="returned 499 values for 500 rows"):
        explain_rows(Short(), as_table(X))


# ------------------------------------------------------------------------------ progress
def test_progress_callable_gets_increasing_counts_and_results_do_not_change(X):
    seen = []
    table = as_table(X)
    with_progress = explain_rows(RandomShift(), table, memory_budget=8 * 3 * 4 * 64,
                                 progress=make_progress(seen.append, "test"))
    without = explain_rows(RandomShift(), table, memory_budget=8 * 3 * 4 * 64)
    np.testing.assert_array_equal(with_progress.mean.get(), without.mean.get())
    done = [info.done for info in seen]
    assert len(done) == 8 and done == sorted(done) and done[-1] == 500
    assert all(isinstance(i, ProgressInfo) and i.total == 500 for i in seen)
    assert seen[-1].fraction == 1.0 and seen[0].method == "test_random_shift"


def test_progress_false_is_silent_and_true_prints_without_tqdm(X, capsys, monkeypatch):
    assert make_progress(False, "test") is None
    explain_rows(RandomShift(), as_table(X), progress=make_progress(False, "test"))
    assert capsys.readouterr() == ("", "")
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    report = make_progress(True, "test")
    assert isinstance(report, engine._Printer)
    explain_rows(RandomShift(), as_table(X), memory_budget=8 * 3 * 4 * 10, progress=report)
    lines = capsys.readouterr().err.strip().splitlines()
    assert 2 <= len(lines) <= 11 and lines[-1] == "test_random_shift: 500/500 done"


def test_progress_true_uses_tqdm_when_installed(X):
    pytest.importorskip("tqdm")
    assert isinstance(make_progress(True, "test"), engine._Bar)


def test_bad_progress_is_a_type_error():
    with pytest.raises(TypeError, match="The 'progress' parameter of f must be a bool or a"):
        make_progress("yes", "f")


# ------------------------------------------------------------------------------ registration
def test_register_checks_the_class():
    with pytest.raises(TypeError, match="Method subclass"):
        register(int)

    class NoExplain(Method):
        name = "test_no_explain"

    with pytest.raises(TypeError, match="defines explain"):
        register(NoExplain)

    class Taken(RandomShift):
        name = "test_random_shift"

    register(RandomShift)
    with pytest.raises(ValueError, match="already taken"):
        register(Taken)
    assert METHODS["test_random_shift"] is RandomShift


# ------------------------------------------------------------------------------ Dask
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_dask_equals_static_for_any_partitioning(X, npartitions):
    dd = pytest.importorskip("dask.dataframe")
    from ixplain.dask import explain

    df = pd.DataFrame(X, columns=["x0", "x1", "x2"])
    static = explain_rows(RandomShift(), as_table(df))
    got = explain(RandomShift(), dd.from_pandas(df, npartitions=npartitions))
    np.testing.assert_allclose(got, static.mean.get(), rtol=1e-14, atol=1e-15)


def test_dask_progress_and_weights(X):
    dd = pytest.importorskip("dask.dataframe")
    from ixplain.dask import explain

    w = np.random.default_rng(2).uniform(0, 1, size=len(X))
    df = pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(w=w)
    seen = []
    got = explain(RandomShift(), dd.from_pandas(df, npartitions=5), sample_weight="w",
                  progress=seen.append)
    np.testing.assert_allclose(got, w @ RandomShift.direct(X) / w.sum(), rtol=1e-12)
    done = [i.done for i in seen]
    assert done == sorted(done) and done[-1] == 500 and len(done) >= 2
    with pytest.raises(ValueError, match="sample_weight column 'v'"):
        explain(RandomShift(), dd.from_pandas(df, npartitions=2), sample_weight="v")
    with pytest.raises(TypeError, match="'method' parameter"):
        explain(object(), dd.from_pandas(df, npartitions=2))


# ------------------------------------------------------------------------------ every method
def _examples():
    import ixplain.dask  # noqa: F401  (registers nothing, but imports every method module)

    return sorted(name for name, cls in METHODS.items() if cls.example() is not None)


@pytest.mark.parametrize("name", _examples())
def test_registered_method_conformance(name):
    """Every registered method with an example: bit-identical static results for three memory
    budgets and n_jobs 1/2; on Dask equal to the static result for 1, 3 and 7 partitions."""
    dd = pytest.importorskip("dask.dataframe")

    method, X, y = METHODS[name].example()
    table = as_table(X)
    ref = explain_rows(method, table, y)
    for budget in (2**12, 2**16, 2**24):
        for jobs in (1, 2):
            got = explain_rows(method, table, y, memory_budget=budget, n_jobs=jobs)
            np.testing.assert_array_equal(got.mean.get(), ref.mean.get())
    df = pd.DataFrame(X, columns=list(table.names)).assign(__y=y)
    for npartitions in (1, 3, 7):
        got = engine.explain_partitions(method, dd.from_pandas(df, npartitions=npartitions),
                                        columns=list(table.names), y="__y")
        np.testing.assert_allclose(got.mean.get(), ref.mean.get(), rtol=1e-12, atol=1e-13)


# ------------------------------------------------------------------------------ public functions
def _progress_case():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(700, 3))
    return X, 2 * X[:, 0] + X[:, 1] * X[:, 2]


def _linear_model(A):
    return 2 * A[:, 0] + A[:, 1] * A[:, 2]


def _run_public(name, progress):
    from ixplain import partial_dependence, permutation_importance, sage

    X, y = _progress_case()
    if name == "partial_dependence":
        r = partial_dependence(_linear_model, X, [0, 1], grid_resolution=20, kind="both",
                               memory_budget=8 * 3 * 20 * 20 * 100, progress=progress)
        return np.concatenate([r.average.ravel(), r.individual.ravel()])
    if name == "permutation_importance":
        r = permutation_importance(_linear_model, X, y, loss="squared_error", n_repeats=3,
                                   random_state=0, memory_budget=8 * 3 * 10 * 100,
                                   progress=progress)
        return r.importances.ravel()
    r = sage(_linear_model, X, y, loss="squared_error", random_state=0, batch_size=128,
             n_permutations=1280, convergence_threshold=None, progress=progress)
    return r.importances_mean


@pytest.mark.parametrize("name", ["partial_dependence", "permutation_importance", "sage"])
def test_public_functions_report_progress(name, capsys):
    seen = []
    with_progress = _run_public(name, seen.append)
    silent = _run_public(name, False)
    assert capsys.readouterr() == ("", "")  # False prints nothing
    np.testing.assert_array_equal(with_progress, silent)  # progress changes nothing
    done = [i.done for i in seen]
    assert len(done) >= 3 and done == sorted(done) and len(set(done)) == len(done)
    assert all(i.method == name for i in seen)
    if name == "sage":  # orders so far, and the ratio once a block of orders was accumulated
        from ixplain.methods.sage import CHECK_EVERY

        assert done == list(range(128, 1281, 128)) and seen[-1].total == 1280
        ratios = [i.convergence_ratio for i in seen]
        assert all((r is None) == (d < CHECK_EVERY) for r, d in zip(ratios, done))
        assert all(r > 0 for r in ratios if r is not None)
    else:
        assert done[-1] == seen[-1].total


def test_public_functions_reject_a_bad_progress():
    with pytest.raises(TypeError, match="The 'progress' parameter of partial_dependence"):
        _run_public("partial_dependence", "yes")
    with pytest.raises(TypeError, match="The 'progress' parameter of permutation_importance"):
        _run_public("permutation_importance", 1)


def test_incremental_explainers_evaluate_their_registered_methods(monkeypatch):
    """iPFI and iSAGE compute their values through the registered Method objects
    (BackgroundPFI, SAGEFunction), on every path: the one-row numeric hot path, mini-batches
    and a categorical table (the column route); wrapping the methods counts the calls."""
    from collections import Counter

    from ixplain import IncrementalPFI, IncrementalSAGE
    from ixplain.methods.pfi import BackgroundPFI
    from ixplain.methods.sage import SAGEFunction

    assert engine.METHODS["permutation_importance_background"] is BackgroundPFI
    assert engine.METHODS["sage"] is SAGEFunction
    calls: Counter = Counter()
    def counted(cls, attr):
        orig, key = getattr(cls, attr), f"{cls.__name__}.{attr}"

        def wrap(self, *args):
            calls[key] += 1
            return orig(self, *args)
        return wrap

    for cls, attr in [(BackgroundPFI, "explain_sampled"), (BackgroundPFI, "explain_numeric"),
                      (SAGEFunction, "explain_sampled")]:
        monkeypatch.setattr(cls, attr, counted(cls, attr))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] - X[:, 1]
    from sklearn.linear_model import LinearRegression

    pfi = IncrementalPFI(LinearRegression().fit(X, y), "squared_error", random_state=0)
    for x, t in zip(X[:5], y[:5]):  # records: row 0 is only stored, row 1 is a batch of one,
        pfi.explain_one(dict(zip(["x0", "x1", "x2"], x)), t)  # rows 2-4 the one-row path
    pfi.explain_many(X[5:], y[5:])
    # explain_sampled: row 1 and the batch, explain_numeric: those two and the three rows
    assert calls == {"BackgroundPFI.explain_sampled": 2, "BackgroundPFI.explain_numeric": 5}
    assert np.all(pfi.importances_[:2] > 0) and abs(pfi.importances_[2]) < 1e-12
    frame = pd.DataFrame({"a": X[:, 0], "c": pd.Categorical(np.where(X[:, 1] > 0, "p", "n"))})
    calls.clear()
    pfi = IncrementalPFI(lambda D: D["a"].to_numpy() + (D["c"] == "p").to_numpy(),
                         "squared_error", random_state=0)
    pfi.explain_many(frame, frame["a"].to_numpy())
    assert calls == {"BackgroundPFI.explain_sampled": 1}  # column route, no numeric layout
    sage = IncrementalSAGE(lambda A: A[:, 0] - A[:, 1], loss="squared_error", random_state=0)
    sage.explain_one(X[0], y[0])
    sage.explain_many(X[1:], y[1:])
    assert calls["SAGEFunction.explain_sampled"] == 1  # row 0 found an empty storage
    np.testing.assert_allclose(sage.importances_.sum(), sage.marginal_loss_ - sage.model_loss_)


def test_row_stream_uniforms_at_is_each_rows_own_numbers():
    """``uniforms_at`` returns row t's numbers of ``uniforms(t, 1)`` for any set of rows: dense
    (one call over the span), sparse and unordered (one call per run), and empty."""
    full = RowStream(3, "at", 5).uniforms(0, 400)
    for rows in (np.arange(10, 30), np.array([5, 3, 4, 399, 200, 201]), np.array([], dtype=int),
                 np.random.default_rng(0).permutation(400)[:37]):
        got = RowStream(3, "at", 5).uniforms_at(rows)
        assert got.shape == (len(rows), 5)
        assert np.array_equal(got, full[rows])
