"""IncrementalPDP: grid tracking, smoothing identities, ground truth on Agrawal, drift, bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from ixplain import IncrementalPDP, as_model
from ixplain.methods import _stream_grid as sg

# --------------------------------------------------------------------------- grid helpers


def test_sorted_window_percentiles_equal_numpy_on_the_last_values():
    rng = np.random.default_rng(0)
    stream = rng.normal(size=400).round(1)  # ties included
    w = sg.SortedWindow(50)
    for t, v in enumerate(stream):
        w.update(float(v))
        last = stream[max(0, t - 49) : t + 1]
        for q in (0.0, 0.05, 0.5, 0.95, 1.0):
            assert w.percentile(q) == pytest.approx(np.quantile(last, q), abs=1e-12)
    assert len(w) == 50


@pytest.mark.parametrize(
    "lo, hi, R",
    [(0.0, 1.0, 20), (26_500.0, 143_500.0, 20), (-3.3, 2.2, 7), (1e-6, 3e-6, 10), (17.0, 81.0, 5)],
)
def test_choose_step_is_the_smallest_ladder_step_within_resolution(lo, hi, R):
    step = sg.choose_step(lo, hi, R)
    grid = sg.lattice(lo, hi, step)
    assert 2 <= grid.size <= R
    assert grid.min() >= lo and grid.max() <= hi
    # the next finer ladder step would exceed the resolution
    m, e = step
    finer = {1: (5, e - 1), 2: (1, e), 5: (2, e)}[m]
    assert sg.lattice(lo, hi, finer).size > R


def test_step_hysteresis_keeps_a_fresh_step_until_the_range_moves_enough():
    R = 20
    step = sg.choose_step(0.0, 1.0, R)
    assert step == (1, -1)
    assert sg.keep_step(0.0, 1.0, step, R)
    assert sg.keep_step(0.0, 0.85, step, R)  # small shrink: keep (0.05 would give 18 > 16)
    assert not sg.keep_step(0.0, 0.7, step, R)  # 20% shrink: 0.05 fits 15 <= 16, refine
    assert sg.choose_step(0.0, 0.7, R) == (5, -2)
    assert not sg.keep_step(0.0, 2.5, step, R)  # outgrown: 26 > 20
    assert sg.choose_step(0.0, 2.5, R) == (2, -1)


def test_lattices_nest_so_grid_values_keep_their_identity():
    coarse = sg.lattice(0.0, 1.0, (1, -1))  # 0.0, 0.1, ..., 1.0
    fine = sg.lattice(0.0, 1.0, (5, -2))  # 0.0, 0.05, ..., 1.0
    medium = sg.lattice(0.0, 1.0, (2, -2))  # 0.0, 0.02, ..., 1.0
    assert set(coarse.tolist()) <= set(fine.tolist())
    assert set(coarse.tolist()) <= set(medium.tolist())
    assert 0.3 in coarse.tolist() and 0.3 in fine.tolist()  # same float, not 0.30000000000000004


def test_index_bounds_are_exact_at_lattice_points():
    assert sg.lattice(0.3, 0.7, (1, -1)).tolist() == [0.3, 0.4, 0.5, 0.6, 0.7]
    assert sg.lattice(0.31, 0.69, (1, -1)).tolist() == [0.4, 0.5, 0.6]


# --------------------------------------------------------------------------- smoothing identities


def _linear(X):
    return 2.0 * X[:, 0] + X[:, 1]


def test_fixed_grid_equals_plain_exponential_smoothing_per_value():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, size=(300, 2))
    grid = np.array([0.0, 2.5, 5.0, 10.0])
    alpha = 0.05
    exp = IncrementalPDP(_linear, "x0", grid=grid, alpha=alpha, history_every=100)
    for x in X:
        exp.explain_one(x)
    # plain recursions, written out: the paper's iPDP and the total weight
    phi = np.zeros(grid.size)
    weight = 0.0
    for x in X:
        ice = 2.0 * grid + x[1]
        phi = (1 - alpha) * phi + alpha * ice
        weight = (1 - alpha) * weight + alpha
    res = exp.pd_
    np.testing.assert_allclose(res.grid_values[0], grid)
    np.testing.assert_allclose(res.extra["weight"], 1 - (1 - alpha) ** len(X), rtol=1e-12)
    np.testing.assert_allclose(weight, 1 - (1 - alpha) ** len(X), rtol=1e-12)
    np.testing.assert_allclose(res.average[0] * res.extra["weight"], phi, rtol=1e-10)
    assert [h.n_seen for h in exp.history_] == [100, 200, 300]
    raw = IncrementalPDP(_linear, "x0", grid=grid, alpha=alpha, bias_corrected=False)
    raw.explain_many(X)
    np.testing.assert_allclose(raw.pd_.average[0], phi, rtol=1e-10)  # the paper's iPDP


def test_expectation_of_the_smoothed_pd_on_a_fixed_grid():
    """E[iPDP_t] = (1 - (1-alpha)^t) PD for the paper's estimate; ours is unbiased: E = PD."""
    rng = np.random.default_rng(2)
    grid = np.array([1.0, 4.0])
    alpha, t, reps = 0.1, 30, 300
    pd_true = 2.0 * grid + 0.5  # x1 ~ U(0, 1)
    raw, normalised = [], []
    for _ in range(reps):
        exp = IncrementalPDP(_linear, "x0", grid=grid, alpha=alpha)
        exp.explain_many(rng.uniform(0, 1, size=(t, 2)))
        res = exp.pd_
        raw.append(res.average[0] * res.extra["weight"])
        normalised.append(res.average[0])
    raw, normalised = np.array(raw), np.array(normalised)
    # x1 has variance 1/12; the weighted mean's variance has the closed form of the docstring
    var = (1 / 12) * alpha * (1 - (1 - alpha) ** (2 * t)) / ((2 - alpha) * (1 - (1 - alpha) ** t) ** 2)
    se = np.sqrt(var / reps)
    np.testing.assert_allclose(normalised.mean(axis=0), pd_true, atol=4 * se)
    np.testing.assert_allclose(normalised.var(axis=0, ddof=1), var, rtol=0.3)
    scale = 1 - (1 - alpha) ** t
    np.testing.assert_allclose(raw.mean(axis=0), scale * pd_true, atol=4 * scale * se)


def test_running_mean_on_a_fixed_grid_equals_sklearn_brute_partial_dependence():
    from sklearn.inspection import partial_dependence
    from sklearn.tree import DecisionTreeRegressor

    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))
    y = X[:, 0] ** 2 + X[:, 1] * X[:, 2] + rng.normal(scale=0.1, size=400)
    model = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y)
    grid = np.linspace(-2, 2, 9)
    exp = IncrementalPDP(model, 0, grid=grid, aggregation="mean")
    exp.explain_many(X[:150])
    for x in X[150:200]:
        exp.explain_one(x)
    exp.explain_many(X[200:])
    ref = partial_dependence(model, X, [0], custom_values={0: grid}, method="brute")
    np.testing.assert_allclose(exp.pd_.average, ref["average"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(exp.pd_.extra["n_effective"], 400)


def test_fixed_grid_running_mean_equals_static_pd_through_one_ice_function(monkeypatch):
    """iPDP (fixed grid, running mean) and static PD average the same ICE values, computed by
    the one batched ICE function ``pdp.ice_predict`` (counted here: both call it)."""
    from sklearn.tree import DecisionTreeRegressor

    from ixplain import partial_dependence
    from ixplain.methods import _pd_brute as pd_brute
    from ixplain.methods import ipdp as ipdp_module
    from ixplain.methods import pdp

    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    y = X[:, 0] ** 2 + X[:, 1] * X[:, 2]
    model = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    grid = np.linspace(-2, 2, 11)
    calls = {"n": 0}
    real = pdp.ice_predict

    def counting(*args, **kwargs):
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(pdp, "ice_predict", counting)
    monkeypatch.setattr(pd_brute, "ice_predict", counting)  # where static PD's ICE runs
    monkeypatch.setattr(ipdp_module, "ice_predict", counting)
    static = partial_dependence(model, X, [0], custom_values={0: grid}, method="brute")
    assert calls["n"] >= 1
    calls["n"] = 0
    exp = IncrementalPDP(model, 0, grid=grid, aggregation="mean")
    exp.explain_many(X[:120])
    for x in X[120:130]:
        exp.explain_one(x)
    exp.explain_many(X[130:])
    assert calls["n"] >= 12
    np.testing.assert_allclose(exp.pd_.average, static.average, rtol=0, atol=2e-13)


def test_explain_many_equals_explain_one_in_order_under_drift():
    rng = np.random.default_rng(4)
    n = 900
    x0 = np.concatenate([rng.uniform(0, 1, n // 2), rng.uniform(0, 7, n // 2)])
    X = np.column_stack([x0, rng.normal(size=n)])
    kw = dict(alpha=0.02, range_window=100, history_every=50, ice_history=5, kind="both")
    one = IncrementalPDP(_linear, "x0", **kw)
    for x in X:
        one.explain_one(x)
    many = IncrementalPDP(_linear, "x0", **kw)
    for chunk in np.array_split(X, 7):
        many.explain_many(chunk)
    a, b = one.pd_, many.pd_
    np.testing.assert_array_equal(a.grid_values[0], b.grid_values[0])
    np.testing.assert_array_equal(a.average, b.average)  # bit for bit, not to a tolerance
    np.testing.assert_array_equal(a.extra["weight"], b.extra["weight"])
    np.testing.assert_array_equal(a.extra["standard_error"], b.extra["standard_error"])
    np.testing.assert_array_equal(a.individual, b.individual)
    assert len(one.history_) == len(many.history_) == 18
    for h1, h2 in zip(one.history_, many.history_):
        assert h1.n_seen == h2.n_seen
        np.testing.assert_array_equal(h1.grid_values, h2.grid_values)
        np.testing.assert_array_equal(h1.average, h2.average)
        np.testing.assert_array_equal(h1.variance, h2.variance)
    assert many.model_.n_calls == 7  # one model call per batch


@pytest.mark.parametrize("grid", ["range", np.linspace(0.0, 6.0, 7)])
def test_explain_many_is_bit_identical_across_renormalisations_splits_and_pickle(grid):
    """alpha=0.5 halves the lazy decay scale every row, so it falls below 1e-60 (and the sums
    are renormalised) every 199 rows: 1,000 rows cross four renormalisations, some inside a
    batch, one just after a pickle round trip."""
    rng = np.random.default_rng(11)
    X = np.column_stack([rng.uniform(0, 6, 1000), rng.normal(size=1000)])
    kw = dict(grid=grid, alpha=0.5, history_every=13, ice_history=3, kind="both")
    one = IncrementalPDP(_linear, "x0", **kw)
    for x in X:
        one.explain_one(x)
    many = IncrementalPDP(_linear, "x0", max_batch=37, **kw)
    s = 0
    for size in [1, 250, 3, 180, 1, 1, 300, 264]:
        many.explain_many(X[s : s + size])
        s += size
        if s == 434:
            many = pickle.loads(pickle.dumps(many))
    assert s == len(X)
    a, b = one.pd_, many.pd_
    for key in ("weight", "standard_error", "n_effective"):
        np.testing.assert_array_equal(a.extra[key], b.extra[key])
    np.testing.assert_array_equal(a.average, b.average)
    np.testing.assert_array_equal(a.individual, b.individual)
    assert [h.n_seen for h in one.history_] == [h.n_seen for h in many.history_]
    for h1, h2 in zip(one.history_, many.history_):
        np.testing.assert_array_equal(h1.average, h2.average)
        np.testing.assert_array_equal(h1.variance, h2.variance)


def test_max_batch_is_one_model_call_per_max_batch_rows():
    X = np.random.default_rng(0).normal(size=(250, 2))
    explainer = IncrementalPDP(_linear, "x0", max_batch=100)
    assert explainer.max_batch == 100
    explainer.explain_many(X)
    assert explainer.model_.n_calls == 3  # 100 + 100 + 50 rows
    assert IncrementalPDP(_linear, "x0").max_batch == 10_000
    with pytest.raises(ValueError, match="'max_batch' parameter of IncrementalPDP must be an int >= 1"):
        IncrementalPDP(_linear, "x0", max_batch=0)


# --------------------------------------------------------------------------- Agrawal ground truth


def _agrawal_rule(df: pd.DataFrame) -> np.ndarray:
    """River's Agrawal classification_function=1, vectorised: P(y = 1) of the true rule."""
    age, salary = df["age"].to_numpy(), df["salary"].to_numpy()
    young = (age < 40) & (50_000 <= salary) & (salary <= 100_000)
    middle = (age >= 40) & (age < 60) & (75_000 <= salary) & (salary <= 125_000)
    old = (age >= 60) & (25_000 <= salary) & (salary <= 75_000)
    return (young | middle | old).astype(np.float64)


def _agrawal(n, seed):
    from river.datasets import synth

    stream = synth.Agrawal(classification_function=1, seed=seed)
    rows = [x for x, _ in stream.take(n)]
    return rows


def _pd_salary_truth(s):
    """PD(salary) of the true rule: age is uniform on the 61 integers 20..80.

    age < 40 (20 values) is positive on [50k, 100k], 40 <= age < 60 (20) on [75k, 125k],
    age >= 60 (21) on [25k, 75k]; so PD = 0 below 25k, 21/61 on [25k, 50k), 41/61 on
    [50k, 75k), 40/61 on (75k, 100k], 20/61 on (100k, 125k] and 0 above 125k.
    """
    s = np.asarray(s)
    return (
        20 * ((50_000 <= s) & (s <= 100_000))
        + 20 * ((75_000 <= s) & (s <= 125_000))
        + 21 * ((25_000 <= s) & (s <= 75_000))
    ) / 61


@pytest.fixture(scope="module")
def agrawal_rows():
    return _agrawal(2500, seed=7)


def test_agrawal_salary_pd_matches_the_derived_piecewise_values(agrawal_rows):
    model = as_model(_agrawal_rule, input_kind="pandas")
    exp = IncrementalPDP(
        model, "salary", aggregation="mean", grid_resolution=70, percentiles=(0.0, 1.0), range_window=5000
    )
    exp.explain_many(agrawal_rows)
    res = exp.pd_
    grid = res.grid_values[0]
    assert grid.tolist() == [22_000.0 + 2_000 * k for k in range(64)]  # 2k steps in the range
    truth = _pd_salary_truth(grid)
    pieces = {0.0, 21 / 61, 41 / 61, 40 / 61, 20 / 61}
    assert set(np.round(truth, 12).tolist()) == {round(p, 12) for p in pieces}
    assert truth[grid < 25_000].tolist() == [0.0, 0.0] and truth[grid > 125_000].max() == 0.0
    # each ICE value at s is 0/1 with mean PD(s): its variance is p(1-p)
    tol = 4 * np.sqrt(truth * (1 - truth) / res.extra["n_effective"]) + 1e-12
    assert np.all(np.abs(res.average[0] - truth) <= tol)
    assert res.average[0][0] == 0.0 and res.average[0][-1] == 0.0


def test_agrawal_age_pd_is_flat_at_five_thirteenths(agrawal_rows):
    """Each age band is positive on a salary interval of width 50k out of 130k: PD(age) = 5/13.

    Age matters (it selects the band) but its PD is flat: the PD hides the interaction.
    """
    model = as_model(_agrawal_rule, input_kind="pandas")
    exp = IncrementalPDP(model, "age", alpha=0.001)
    exp.explain_many(agrawal_rows)
    res = exp.pd_
    assert res.grid_values[0].min() >= 20 and res.grid_values[0].max() <= 80
    p = 5 / 13
    tol = 4 * np.sqrt(p * (1 - p) / res.extra["n_effective"])
    assert np.all(np.abs(res.average[0] - p) <= tol)
    # all ages see the same observations, so the curve is exactly flat up to age-band noise
    assert res.average.shape == (1, res.grid_values[0].size)


# --------------------------------------------------------------------------- drift


class _Recorder:
    """A model that records every salary value it was evaluated at."""

    def __init__(self):
        self.seen: set[float] = set()

    def __call__(self, df):
        self.seen.update(df["salary"].tolist())
        return _agrawal_rule(df)


def test_drift_grid_extends_to_the_new_range_and_reports_only_evaluated_values():
    rows = _agrawal(3000, seed=11)
    rng = np.random.default_rng(0)
    for r in rows[:1500]:  # first phase: salaries only up to 60k
        r["salary"] = float(rng.uniform(20_000, 60_000))
    recorder = _Recorder()
    model = as_model(recorder, input_kind="pandas")
    exp = IncrementalPDP(model, "salary", alpha=0.01, range_window=300, history_every=250)
    seen_max = -np.inf
    for start in range(0, 3000, 250):
        batch = rows[start : start + 250]
        exp.explain_many(batch)
        seen_max = max(seen_max, max(r["salary"] for r in batch))
        grid = exp.pd_.grid_values[0]
        assert set(grid.tolist()) <= recorder.seen  # never reported where not evaluated
        assert grid.max() <= seen_max
    phase1 = [h for h in exp.history_ if h.n_seen <= 1500]
    phase2 = [h for h in exp.history_ if h.n_seen >= 2000]
    assert all(h.grid_values.max() <= 60_000 for h in phase1)
    assert all(h.grid_values.max() >= 130_000 for h in phase2)
    for h in exp.history_:
        assert set(h.grid_values.tolist()) <= recorder.seen
    # the extended part of the curve converges to the truth of the new range
    res = exp.pd_
    grid = res.grid_values[0]
    new = grid > 100_000
    truth = _pd_salary_truth(grid[new])
    tol = 4 * np.sqrt(np.maximum(truth * (1 - truth), 0.05) / res.extra["n_effective"][new])
    assert np.all(np.abs(res.average[0][new] - truth) <= tol)


def test_range_from_a_storage_follows_the_rows_it_holds():
    from ixplain import SlidingWindow

    rng = np.random.default_rng(8)
    X = np.column_stack([np.concatenate([rng.uniform(0, 1, 300), rng.uniform(0, 50, 300)]),
                         rng.normal(size=600)])
    kw = dict(range_source="storage", percentiles=(0.0, 1.0), history_every=0)
    one = IncrementalPDP(_linear, "x0", storage=SlidingWindow(100), **kw)
    for x in X:
        one.explain_one(x)
    many = IncrementalPDP(_linear, "x0", storage=SlidingWindow(100), **kw)
    many.explain_many(X[:250])
    many.explain_many(X[250:])
    # the last row was explained on the lattice (of the step in use) of the 100 rows before it
    prev = X[-101:-1, 0]
    expected = sg.lattice(prev.min(), prev.max(), one._step)
    assert sg.keep_step(prev.min(), prev.max(), one._step, 20)
    np.testing.assert_array_equal(one.pd_.grid_values[0], expected)
    np.testing.assert_array_equal(many.pd_.grid_values[0], expected)
    np.testing.assert_allclose(one.pd_.average, many.pd_.average, rtol=1e-10)
    assert len(one.storage) == 100


def test_memory_is_bounded_when_the_range_moves_forever():
    exp = IncrementalPDP(lambda X: X[:, 0] ** 2, "x0", grid_resolution=10, range_window=20)
    X = np.column_stack([np.arange(5000.0), np.zeros(5000)])
    exp.explain_many(X)
    assert len(exp._store) <= 8 * 10 + 10
    res = exp.pd_
    np.testing.assert_allclose(res.average[0], res.grid_values[0] ** 2)
    assert res.grid_values[0].min() >= 4979 - 20


# --------------------------------------------------------------------------- categorical


def test_categorical_levels_are_added_as_they_appear():
    effect = {"a": 1.0, "b": 2.0, "c": 5.0}

    def model(records):
        return np.array([effect[r["color"]] + r["x"] for r in records])

    rng = np.random.default_rng(5)
    rows = [{"color": str(rng.choice(["a", "b"])), "x": float(rng.normal())} for _ in range(100)]
    rows += [{"color": str(rng.choice(["a", "b", "c"])), "x": float(rng.normal())} for _ in range(60)]
    first_c = next(i for i, r in enumerate(rows) if r["color"] == "c")
    exp = IncrementalPDP(model, "color", aggregation="mean")
    exp.explain_many(rows[:100])
    assert exp.pd_.grid_values[0].tolist() == ["a", "b"]
    assert exp.pd_.feature_kinds == ("categorical",)
    for r in rows[100:]:
        exp.explain_one(r)
    res = exp.pd_
    assert res.grid_values[0].tolist() == ["a", "b", "c"]
    xs = np.array([r["x"] for r in rows])
    # a level is evaluated from the observation where it first appears on
    first = {c: next(i for i, r in enumerate(rows) if r["color"] == c) for c in "abc"}
    assert first["c"] == first_c >= 100
    expected = [effect[c] + xs[first[c] :].mean() for c in "abc"]
    np.testing.assert_allclose(res.average[0], expected, rtol=1e-12)
    np.testing.assert_allclose(res.extra["n_effective"], [160 - first[c] for c in "abc"])


# --------------------------------------------------------------------------- models and state


def test_integer_array_gets_non_integer_grid_values_untruncated():
    X = np.random.default_rng(9).integers(0, 10, size=(60, 3))
    grid = np.array([0.5, 2.0, 7.25])

    def model(A):
        assert A.dtype.kind == "f"  # the grid values reach the model as floats
        return 1.5 * A[:, 0] + A[:, 1]

    one = IncrementalPDP(model, "x0", grid=grid, aggregation="mean")
    for x in X:
        one.explain_one(x)
    many = IncrementalPDP(model, "x0", grid=grid, aggregation="mean")
    many.explain_many(X)
    expected = 1.5 * grid + X[:, 1].mean()
    np.testing.assert_allclose(one.pd_.average[0], expected)
    np.testing.assert_allclose(many.pd_.average[0], expected)


def test_kind_both_gives_recent_ice_curves_on_the_current_grid():
    grid = np.array([0.0, 1.0, 2.0])
    exp = IncrementalPDP(_linear, "x0", grid=grid, kind="both", ice_history=3)
    X = np.arange(10.0).reshape(5, 2)
    exp.explain_many(X)
    ind = exp.pd_.individual
    assert ind.shape == (1, 3, 3)
    expected = 2.0 * grid[None, :] + X[-3:, 1][:, None]
    np.testing.assert_allclose(ind[0], expected)
    assert exp.pd_.keys() == ["grid_values", "average", "individual"]


def test_multiclass_output_has_one_row_per_class():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 2))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=300), [-0.5, 0.5])
    model = LogisticRegression().fit(X, y)
    exp = IncrementalPDP(model, "x0", aggregation="mean")
    exp.explain_many(X)
    res = exp.pd_
    assert res.average.shape == (3, res.grid_values[0].size)
    np.testing.assert_allclose(res.average.sum(axis=0), 1.0)
    assert res.average[2, -1] > res.average[2, 0]  # class 2 grows with x0


def test_river_model_learning_online_and_pickle_resume():
    from river import tree

    rows = _agrawal(400, seed=3)
    labels = _agrawal_rule(pd.DataFrame(rows)).astype(int)
    model = tree.HoeffdingTreeClassifier(grace_period=50)
    exp = IncrementalPDP(model, "salary", alpha=0.05, history_every=100)
    for x, y in zip(rows[:200], labels[:200]):
        exp.explain_one(x, y)
        model.learn_one(x, y)
    clone = pickle.loads(pickle.dumps(exp))
    for x, y in zip(rows[200:], labels[200:]):
        exp.explain_one(x, y)
        clone.explain_one(x, y)  # the clone holds its own copy of the model, not learning
    assert clone.n_seen_ == exp.n_seen_ == 400
    res = exp.pd_
    assert np.all((res.average >= 0) & (res.average <= 1))
    assert len(exp.history_) == 4


def test_same_input_same_result_and_input_not_mutated():
    rows = _agrawal(200, seed=1)
    copy = [dict(r) for r in rows]
    model = as_model(_agrawal_rule, input_kind="pandas")
    a, b = IncrementalPDP(model, "salary"), IncrementalPDP(model, "salary")
    out = a.explain_many(rows)
    b.explain_many(rows)
    np.testing.assert_array_equal(a.pd_.average, b.pd_.average)
    np.testing.assert_array_equal(out, a.pd_.average)  # explain_many returns the estimate
    assert rows == copy


# --------------------------------------------------------------------------- bad input


def test_missing_feature_key_in_a_later_record():
    exp = IncrementalPDP(lambda r: np.zeros(len(r)), "a")
    exp.explain_one({"a": 1.0, "b": 2.0})
    with pytest.raises(ValueError, match="has no feature 'b'"):
        exp.explain_one({"a": 1.0})
    with pytest.raises(ValueError, match="has no feature 'b'"):
        exp.explain_many([{"a": 1.0, "b": 2.0}, {"a": 1.0}])


def test_nan_in_the_explained_feature():
    X = np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, 1.0]])
    exp = IncrementalPDP(_linear, "x0", nan_policy="raise")
    with pytest.raises(ValueError, match="feature 'x0' is NaN"):
        exp.explain_many(X)
    skip = IncrementalPDP(_linear, "x0", aggregation="mean", history_every=1)
    with pytest.warns(RuntimeWarning, match="NaN"):
        skip.explain_many(X)
    assert (skip.n_seen_, skip.n_explained_, skip.n_skipped_) == (3, 2, 1)
    assert [h.n_seen for h in skip.history_] == [1, 2, 3]
    # the snapshot at the skipped row repeats the state after row 0
    np.testing.assert_array_equal(skip.history_[0].average, skip.history_[1].average)
    passed = IncrementalPDP(_linear, "x0", aggregation="mean", nan_policy="pass")
    passed.explain_many(X)  # the ICE curve of the NaN row is still evaluated on the grid
    assert passed.n_explained_ == 3
    np.testing.assert_allclose(passed.pd_.average[0], 2 * passed.pd_.grid_values[0] + 4 / 3)
    cat = IncrementalPDP(lambda r: np.zeros(len(r)), "c")
    cat.explain_one({"c": None, "d": 1.0})
    with pytest.raises(ValueError, match="has not explained any observation"):
        _ = cat.pd_


def test_nan_in_the_first_record_is_a_missing_number():
    """A stream starting with NaN keeps the column numeric (tabular fix), so the policy applies."""
    exp = IncrementalPDP(lambda r: np.zeros(len(r)), "a", nan_policy="raise")
    with pytest.raises(ValueError, match="'a' is NaN"):
        exp.explain_one({"a": float("nan"), "b": 1.0})


def test_unknown_feature():
    exp = IncrementalPDP(_linear, "salary")
    with pytest.raises(ValueError, match=r"unknown feature 'salary'. Available features: \['x0'"):
        exp.explain_one(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="position in"):
        IncrementalPDP(_linear, 5).explain_one(np.array([1.0, 2.0]))


def test_string_feature_needs_categorical_and_changed_columns_raise():
    exp = IncrementalPDP(lambda r: np.zeros(len(r)), "c", categorical=False)
    with pytest.raises(ValueError, match="non-numeric"):
        exp.explain_one({"c": "x", "d": 1.0})
    exp = IncrementalPDP(lambda df: df["x0"].to_numpy(), "x0")
    exp.explain_one(pd.DataFrame({"x0": [1.0], "x1": [2.0]}))
    with pytest.raises(ValueError, match="has no feature 'x1'"):
        exp.explain_one(pd.DataFrame({"x0": [1.0], "z": [2.0]}))


def test_model_returning_nan_is_reported():
    """A NaN ICE curve skips its row with a warning (as an infinite one; it raised before)."""
    exp = IncrementalPDP(lambda X: np.full(len(X), np.nan), "x0")
    with pytest.warns(RuntimeWarning, match="the model returned NaN or inf"):
        exp.explain_one(np.array([1.0, 2.0]))
    assert exp.n_skipped_ == 1 and exp.n_explained_ == 0


def test_pd_before_any_observation():
    exp = IncrementalPDP(_linear, "x0")
    with pytest.raises(ValueError, match="has not explained any observation"):
        _ = exp.pd_
    assert getattr(exp, "pd_", None) is None  # an AttributeError too, for getattr(..., default)


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"grid_resolution": 1}, ValueError, "'grid_resolution' parameter of IncrementalPDP must be an int >= 2. Got 1"),
        ({"grid_resolution": 2.5}, TypeError, "'grid_resolution'"),
        ({"alpha": 0.0}, ValueError, "'alpha' parameter of IncrementalPDP must be a float in"),
        ({"aggregation": "median"}, ValueError, "'aggregation'"),
        ({"alpha": 1.5}, ValueError, "'alpha'"),
        ({"grid": "quantile"}, ValueError, "'grid' parameter"),
        ({"grid": [1.0, 1.0]}, ValueError, "distinct"),
        ({"grid": [[1.0], [2.0]]}, ValueError, "1-D"),
        ({"grid": [1.0, np.nan]}, ValueError, "non-missing"),
        ({"percentiles": (0.9, 0.1)}, ValueError, "0 <= low < high <= 1"),
        ({"percentiles": 0.5}, ValueError, "'percentiles'"),
        ({"range_source": "reservoir"}, ValueError, "'range_source'"),
        ({"range_window": 0}, ValueError, "'range_window'"),
        ({"kind": "individual"}, ValueError, "'kind' parameter of IncrementalPDP must be one of"),
        ({"ice_history": -1}, ValueError, "'ice_history'"),
        ({"history_every": -1}, ValueError, "'history_every'"),
        ({"categorical": "yes"}, TypeError, "'categorical'"),
        ({"random_state": "seed"}, TypeError, "'random_state'"),
    ],
)
def test_parameter_validation(kwargs, exc, message):
    with pytest.raises(exc, match=message.replace("(", r"\(").replace(".", r"\.")):
        IncrementalPDP(_linear, "x0", **kwargs)


def test_feature_must_be_a_name_or_position():
    with pytest.raises(TypeError, match="'feature' parameter of IncrementalPDP must be a str or an int"):
        IncrementalPDP(_linear, 1.5)


# --------------------------------------------------------------------------- QA9 grid findings


def _datetime_inputs():
    rng = np.random.default_rng(0)
    ts = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 100, 40), unit="D")
    z = rng.normal(size=40)
    return {
        "datetime64": pd.DataFrame({"dt": ts, "z": z}),
        "tz-aware": pd.DataFrame({"dt": ts.tz_localize("UTC"), "z": z}),
        "timedelta64": pd.DataFrame({"dt": ts - ts.min(), "z": z}),
        "object Timestamps": pd.DataFrame({"dt": pd.Series(list(ts), dtype=object), "z": z}),
        "records datetime": [{"dt": t.to_pydatetime(), "z": v} for t, v in zip(ts, z)],
        "records date": [{"dt": t.date(), "z": v} for t, v in zip(ts, z)],
    }


@pytest.mark.parametrize("container", list(_datetime_inputs()))
@pytest.mark.parametrize("categorical", [None, True])
def test_datetime_feature_is_refused_before_any_model_call(container, categorical):
    """QA9 #4: a datetime (or date, or duration) feature got one grid value per distinct
    timestamp (3,000 points for grid_resolution=20). It is refused, as partial_dependence and
    IncrementalALE refuse it, naming the feature and the conversion, before the model runs."""
    calls = []

    def f(D):
        calls.append(len(D))
        return np.zeros(len(D))

    X = _datetime_inputs()[container]
    e = IncrementalPDP(f, "dt", categorical=categorical)
    with pytest.raises(ValueError, match=r"feature 'dt' holds (dates or datetimes|dates|durations) "
                                         r".*seconds"):
        e.explain_many(X)
    assert calls == [] and e.n_seen_ == 0


def test_datetime_converted_to_days_gives_the_linear_pd():
    """The advised conversion works: days since the start, for ``f = days / 50 + z``, give
    ``PD(v) = v / 50 + mean(z)`` on a fixed grid (every row at every value: exact)."""
    X = _datetime_inputs()["datetime64"]
    days = pd.DataFrame({"days": (X["dt"] - pd.Timestamp("2024-01-01")).dt.days, "z": X["z"]})
    e = IncrementalPDP(lambda D: D["days"].to_numpy() / 50 + D["z"].to_numpy(), "days",
                       grid=[0, 30, 60, 90], aggregation="mean")
    e.explain_many(days)
    np.testing.assert_allclose(e.pd_.average[0], np.array([0, 30, 60, 90]) / 50 + X["z"].mean(),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("ordered", [True, False])
def test_ordered_categorical_keeps_its_level_order(ordered):
    """QA9 #9: an ordered categorical's levels came out alphabetically (large, medium, small);
    static PD keeps the category order, and so does iPDP now (an unordered one stays sorted,
    as static PD sorts it). Values: a level first seen at row r is on the grid of every row
    from r on, so with a running mean and ``f = code + z``, ``PD(level) = code + mean(z[r:])``."""
    from ixplain import partial_dependence

    rng = np.random.default_rng(0)
    cats = ["small", "medium", "large"]
    size = pd.Categorical(rng.choice(cats, 300), categories=cats, ordered=ordered)
    df = pd.DataFrame({"size": size, "z": rng.normal(size=300)})

    def f(D):
        return D["size"].cat.codes.to_numpy(float) + D["z"].to_numpy()

    e = IncrementalPDP(f, "size", aggregation="mean")
    for start in range(0, 300, 7):  # uneven batches
        e.explain_many(df.iloc[start : start + 7])
    static = partial_dependence(f, df, "size")
    assert list(e.pd_.grid_values[0]) == list(static.grid_values[0])
    assert list(e.pd_.grid_values[0]) == (cats if ordered else sorted(cats))
    z = df["z"].to_numpy()
    expected = [cats.index(c) + z[int(np.flatnonzero(df["size"] == c)[0]):].mean()
                for c in e.pd_.grid_values[0]]
    np.testing.assert_allclose(e.pd_.average[0], expected, rtol=0, atol=1e-12)


def _first_grid_rows(values):
    """Row from which each distinct value is on the grid of a discrete feature whose range
    source keeps every row: the row after its first occurrence (row 0: its own value)."""
    first = {}
    for i, v in enumerate(values):
        first.setdefault(v, 0 if i == 0 else i + 1)
    return first


@pytest.mark.parametrize("range_source", ["window", "storage"])
def test_integer_feature_with_few_values_is_gridded_at_its_levels(range_source):
    """QA9 #5: an integer feature taking 0..4 got half-integer grid values it never takes (the
    1-2-5 lattice of its range, step 0.2 or 0.5). With at most grid_resolution distinct values
    in the range's source its grid is those values, as static PD and scikit-learn grid it.
    Closed form with a running mean, ``f = g(k) + z`` and a source that keeps every row: level
    ``v`` is on the grid from the row after its first occurrence, so
    ``PD(v) = g(v) + mean(z[r_v:])``."""
    from sklearn.inspection import partial_dependence as sk_pd
    from sklearn.linear_model import LinearRegression

    from ixplain.storage import UniformReservoir

    rng = np.random.default_rng(0)
    k, z = rng.integers(0, 5, 600), rng.normal(size=600)
    df = pd.DataFrame({"k": k, "z": z})
    g = np.array([0.0, 3.0, -1.0, 2.0, 0.5])

    def f(D):
        return g[D["k"].to_numpy().astype(int)] + D["z"].to_numpy()

    kw = {"storage": UniformReservoir(1000, random_state=0)} if range_source == "storage" else {}
    e = IncrementalPDP(f, "k", aggregation="mean", range_source=range_source, **kw)
    for start in range(0, 600, 11):
        e.explain_many(df.iloc[start : start + 11])
    grid = e.pd_.grid_values[0]
    assert grid.tolist() == np.unique(k).tolist() == [0, 1, 2, 3, 4]
    floats = df.astype(float)  # (scikit-learn refuses an integer column)
    sk_grid = sk_pd(LinearRegression().fit(floats, f(df)), floats, ["k"])["grid_values"][0]
    assert grid.tolist() == sk_grid.tolist()
    first = _first_grid_rows(k.tolist())
    expected = [g[int(v)] + z[first[int(v)]:].mean() for v in grid]
    np.testing.assert_allclose(e.pd_.average[0], expected, rtol=0, atol=1e-12)


def test_hour_of_day_with_grid_resolution_24_shows_an_even_odd_effect():
    """The finding's hour example: 24 levels fit grid_resolution=24, so every hour is on the
    grid and an effect of even hours shows (PD alternates by exactly 1); with the default 20
    (24 > 20 levels) the grid is the integer lattice of step 2, every other hour."""
    rng = np.random.default_rng(0)
    hour = rng.integers(0, 24, 2000).astype(float)
    X = np.c_[hour, rng.normal(size=2000)]

    def f(A):
        return (A[:, 0] % 2 == 0) + A[:, 1]

    e = IncrementalPDP(f, "x0", grid_resolution=24, grid="range", aggregation="mean")
    e.explain_many(X)
    assert e.pd_.grid_values[0].tolist() == list(range(24))
    d = e.pd_.average[0] - X[:, 1].mean()  # z's mean differs slightly per level (its rows)
    assert np.all(np.abs(np.diff(d)) > 0.9)
    default = IncrementalPDP(f, "x0")
    default.explain_many(X)
    assert default.pd_.grid_values[0].tolist() == list(range(2, 23, 2))


def test_integer_feature_lattice_step_is_never_below_one():
    """An integer feature with more distinct values than grid_resolution and a narrow range
    (percentiles (0.49, 0.51) of 0..299: about 6 wide, where the ladder gives step 0.5): the
    grid is every integer in the range, the numpy quantiles of the window (reference)."""
    rng = np.random.default_rng(1)
    X = np.c_[rng.integers(0, 300, 800).astype(float), rng.normal(size=800)]
    e = IncrementalPDP(_linear, "x0", percentiles=(0.49, 0.51), range_window=500)
    e.explain_many(X[:-1])
    lo, hi = np.quantile(X[-501:-1, 0], [0.49, 0.51])  # the window before the last row
    assert sg.choose_step(lo, hi, 20)[1] < 0  # the ladder alone would go below 1
    e.explain_one(X[-1])
    assert e.pd_.grid_values[0].tolist() == list(range(int(np.ceil(lo)), int(np.floor(hi)) + 1))


def test_continuous_start_and_float_feature_of_few_values_keep_the_lattice():
    """Only integer features are gridded at their values: the first rows of a continuous
    feature and a float feature of three values keep the 1-2-5 lattice (every grid value a
    multiple of the step), whose values survive when the range grows (a float feature of few
    values early in a seasonal stream would lose its estimates when it outgrows them)."""
    rng = np.random.default_rng(2)
    for values in (rng.uniform(0, 6, 40), rng.choice([0.5, 1.25, 2.5], 40)):
        e = IncrementalPDP(_linear, "x0", grid_resolution=10)
        for x in np.c_[values, rng.normal(size=40)]:
            e.explain_one(x)
            grid = e.pd_.grid_values[0]
            if len(grid) > 1:
                step = sg.step_size(e._step)
                np.testing.assert_allclose(grid / step, np.round(grid / step), atol=1e-9)
        assert len(e.pd_.grid_values[0]) > 3


def test_levels_and_lattice_switching_is_bit_identical_across_splits_and_pickle():
    """A window of 40 values over an integer stream whose spread grows and shrinks: the grid
    switches between the levels (at most 20 distinct values) and the integer lattice; the
    explain_one loop, uneven explain_many calls and a pickle round trip agree bit for bit."""
    rng = np.random.default_rng(3)
    width = np.r_[np.full(300, 6), np.full(300, 60), np.full(300, 6)]
    X = np.c_[rng.integers(0, width), rng.normal(size=900)].astype(float)
    kw = dict(range_window=40, alpha=0.05, history_every=17, ice_history=5, kind="both")
    one = IncrementalPDP(_linear, "x0", **kw)
    for x in X:
        one.explain_one(x)
    many = IncrementalPDP(_linear, "x0", max_batch=29, **kw)
    s = 0
    for size in [1, 310, 7, 290, 1, 291]:
        many.explain_many(X[s : s + size])
        s += size
        if s == 318:
            many = pickle.loads(pickle.dumps(many))
    a, b = one.pd_, many.pd_
    np.testing.assert_array_equal(a.grid_values[0], b.grid_values[0])
    np.testing.assert_array_equal(a.average, b.average)
    np.testing.assert_array_equal(a.individual, b.individual)
    grids = [h.grid_values for h in one.history_]
    assert any(len(g) > 20 or np.diff(g).min() > 1 for g in grids)  # the lattice was used
    assert all(np.all(g == np.round(g)) for g in grids)  # never a non-integer grid value
    for h1, h2 in zip(one.history_, many.history_):
        np.testing.assert_array_equal(h1.grid_values, h2.grid_values)
        np.testing.assert_array_equal(h1.average, h2.average)


def test_drift_core_of_an_integer_feature_is_its_inner_levels():
    """With a detector attached, the core grid of an integer feature of 9 levels is fixed
    from its levels once the window holds range_window values, less max(2, 9 // 10) = 2 at
    each end (levels 2..6), the same for any batching and after pickling."""
    from ixplain.drift import ExplanationDriftDetector

    rng = np.random.default_rng(4)
    X = np.c_[rng.integers(0, 9, 1500), rng.normal(size=1500)].astype(float)
    cores = []
    for chunks in ([1], [7, 400, 1]):
        det = ExplanationDriftDetector(random_state=0, check_every=500)
        e = IncrementalPDP(_linear, "x0", range_window=300, drift_detector=det)
        s, i = 0, 0
        while s < len(X):
            e.explain_many(X[s : s + chunks[i % len(chunks)]])
            s, i = s + chunks[i % len(chunks)], i + 1
            if i == 3:
                e = pickle.loads(pickle.dumps(e))
        cores.append(e._core)
    assert cores[0].tolist() == cores[1].tolist() == [2.0, 3.0, 4.0, 5.0, 6.0]


def test_sorted_window_levels_count_and_old_pickles():
    """SortedWindow.levels against np.unique of the last values (a reference), and a window
    pickled before the distinct values were counted (no ``_counts``) counts them on load."""
    rng = np.random.default_rng(5)
    w = sg.SortedWindow(30)
    stream = np.r_[rng.integers(0, 8, 100), rng.integers(0, 50, 100), rng.integers(0, 8, 100)]
    for t, v in enumerate(stream.astype(float)):
        w.update(float(v))
        last = np.unique(stream[max(0, t - 29) : t + 1])
        assert w.levels(10) == (last.tolist() if len(last) <= 10 else None)
    state = {k: v for k, v in w.__dict__.items() if k not in ("_counts", "_n_fractional")}
    old = sg.SortedWindow.__new__(sg.SortedWindow)
    old.__setstate__(state)
    assert old.levels(10) == w.levels(10) and old.integer_valued


def _grid_rule_reference(grids, ice, alpha):
    """PD_t(v) by the documented rule: the weighted mean of ``ice(s, v)`` over the rows ``s``
    whose grid ``grids[s]`` holds ``v``, weights ``(1 - alpha)^(t - s)`` (all 1 for the
    running mean, ``alpha = 0``); returns ``{v: (PD_t(v), number of rows)}``."""
    t = len(grids) - 1
    out = {}
    for v in sorted({v for g in grids for v in g}):
        rows = [s for s in range(t + 1) if v in grids[s]]
        w = np.array([(1 - alpha) ** (t - s) for s in rows])
        out[v] = (float(w @ np.array([ice(s, v) for s in rows]) / w.sum()), len(rows))
    return out


@pytest.mark.parametrize("aggregation, alpha", [("mean", 0.0), ("ema", 0.3)])
def test_each_grid_value_averages_the_rows_whose_grid_held_it(aggregation, alpha):
    """The Notes' rule, enumerated on 8 rows. Numeric ``x`` of few integers with
    ``percentiles=(0, 1)``: row ``s``'s grid is the distinct values of rows ``0..s-1`` (row
    0: its own), so 3 (first at row 2) is on the grid from row 3 on, 0 and 2 later still;
    ``f = x^2 + z x`` with ``z_s = s / 2``, so every row's ICE value differs and an average
    over other rows would show. At every step, each grid value's estimate is the weighted
    mean over exactly those rows (``n_effective`` their number for the running mean)."""
    x = np.array([1, 1, 3, 0, 2, 3, 1, 0], dtype=float)
    z = np.arange(8) / 2
    e = IncrementalPDP(lambda A: A[:, 0] ** 2 + A[:, 1] * A[:, 0], "x0", aggregation=aggregation,
                       alpha=alpha or 0.001, percentiles=(0, 1), grid_resolution=20)
    grids = []
    for t in range(8):
        grids.append({x[0]} if t == 0 else set(x[:t]))
        e.explain_one(np.array([x[t], z[t]]))
        ref = _grid_rule_reference(grids, lambda s, v: v ** 2 + z[s] * v, alpha)
        assert list(e.pd_.grid_values[0]) == sorted(grids[t])
        got = dict(zip(e.pd_.grid_values[0], e.pd_.average[0]))
        for v in grids[t]:
            np.testing.assert_allclose(got[v], ref[v][0], rtol=1e-13)
        if aggregation == "mean":
            n_eff = dict(zip(e.pd_.grid_values[0], e.pd_.extra["n_effective"]))
            assert {v: n_eff[v] for v in grids[t]} == {v: ref[v][1] for v in grids[t]}
    assert {v: ref[v][1] for v in ref} == {0.0: 4, 1.0: 8, 2.0: 3, 3.0: 5}


def test_a_grid_value_leaves_when_the_range_window_drops_its_row():
    """The rule with ``range_window=2``: row ``s``'s grid spans the feature values of rows
    ``s-2, s-1`` only (``percentiles=(0, 1)``, integers: their distinct values), not of every
    earlier row. ``x = 0, 10, 0, 0, 0``: rows 2 and 3 see 10 (rows 0-1 and 1-2), row 4 sees
    only 0 (rows 2-3). With ``f`` = the row's id (``z``), ``PD_t(10)`` is the mean of the ids
    of rows 2 and 3 (2.5) and ``PD_t(0)`` that of every row (``0, 1, 2, 3, 4`` at ``t = 4``)."""
    x = np.array([0, 10, 0, 0, 0], dtype=float)
    e = IncrementalPDP(lambda A: A[:, 1], "x0", aggregation="mean", percentiles=(0, 1),
                       range_window=2)
    grids = []
    for t in range(5):
        e.explain_one(np.array([x[t], float(t)]))
        grids.append(list(e.pd_.grid_values[0]))
        got = dict(zip(e.pd_.grid_values[0], e.pd_.average[0]))
        if t == 3:
            assert got == {0.0: 1.5, 10.0: 2.5}
    assert grids == [[0.0], [0.0], [0.0, 10.0], [0.0, 10.0], [0.0]]
    assert list(e.pd_.average[0]) == [2.0]


def test_a_categorical_level_averages_the_rows_from_its_first_one():
    """Categorical: row ``s``'s grid is the levels of rows ``0..s`` (its own included), so
    ``b`` (first at row 2) averages rows 2-5 and ``c`` rows 4-5; ``f = 10 level + z_s``."""
    levels = ["a", "a", "b", "a", "c", "b"]
    code = {"a": 1.0, "b": 2.0, "c": 3.0}
    rows = [{"c": c, "z": float(s)} for s, c in enumerate(levels)]
    e = IncrementalPDP(lambda D: 10 * D["c"].map(code).to_numpy() + D["z"].to_numpy(), "c",
                       aggregation="mean")
    for r in rows:
        e.explain_one(pd.Series(r))
    grids = [set(levels[: s + 1]) for s in range(len(levels))]
    ref = _grid_rule_reference(grids, lambda s, v: 10 * code[v] + s, 0.0)
    assert list(e.pd_.grid_values[0]) == ["a", "b", "c"]
    np.testing.assert_allclose(e.pd_.average[0], [ref[v][0] for v in "abc"], rtol=1e-13)
    assert [ref[v][1] for v in "abc"] == [6, 4, 2]
    np.testing.assert_array_equal(e.pd_.extra["n_effective"], [6, 4, 2])


@pytest.mark.parametrize("cls", ["IncrementalPDP", "IncrementalALE"])
def test_an_unknown_feature_is_refused_at_construction_when_the_names_are_given(cls):
    """QA qa13: ``IncrementalPDP(f, "nope", feature_names=[...])`` failed only at the first
    row; with the names given, the typo (or a position outside them) is refused at once."""
    import ixplain

    make = getattr(ixplain, cls)
    with pytest.raises(ValueError, match=r"unknown feature 'nope'.*\['a', 'b'\]"):
        make(lambda A: A[:, 0], "nope", feature_names=["a", "b"])
    with pytest.raises(ValueError, match=r"'feature' parameter .*\[0, 1\]"):
        make(lambda A: A[:, 0], 2, feature_names=["a", "b"])
    ex = make(lambda A: A[:, 0], "nope")  # names unknown yet: refused at the first row
    with pytest.raises(ValueError, match="unknown feature 'nope'"):
        ex.explain_many(np.zeros((3, 2)))
    ok = make(lambda A: A[:, 0], "b", feature_names=["a", "b"])
    ok.explain_many(np.arange(40.0).reshape(20, 2))
    assert ok.n_seen_ == 20
