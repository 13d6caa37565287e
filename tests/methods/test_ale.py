"""Static ALE: closed forms, a plain reference, PD vs ALE, band coverage, edge cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain import accumulated_local_effects, partial_dependence
from ixplain.methods.ale import accumulation_matrix, quantile_edges


def _additive(A):
    return np.sin(3 * A[:, 0]) + A[:, 1] ** 2 + A[:, 0] * A[:, 2] + np.log1p(A[:, 3])


def _correlated(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    x1 = 0.9 * x0 + 0.3 * rng.normal(size=n)
    return np.c_[x0, x1, rng.normal(size=n), rng.uniform(size=n)]


def test_additive_component_closed_form():
    """f = sin(3 x0) + x1^2 + x0 x2 + log(1 + x3), x1 correlated with x0.

    Every local difference in x1 is ``z_k^2 - z_{k-1}^2`` exactly (the other terms cancel), so
    the uncentred ALE at the edges is ``z_k^2 - z_0^2`` and the centred one subtracts
    ``c = sum_k w_k (g_{k-1} + g_k) / 2`` with ``w_k`` the share of rows in bin k.
    """
    X = _correlated()
    res = accumulated_local_effects(_additive, X, "x1")
    z = res.grid_values[0]
    g = z**2 - z[0] ** 2
    w = res.bin_counts / res.bin_counts.sum()
    c = np.sum(w * (g[:-1] + g[1:]) / 2)
    assert res.feature_kinds == ("numeric",) and len(z) == 21
    np.testing.assert_allclose(res.average[0], g - c, rtol=0, atol=1e-12)
    # the per-row differences are constant within a bin: zero variance up to the rounding of
    # the one-pass moments (sqrt of ~1e-16 relative)
    np.testing.assert_allclose(res.std[0], 0, atol=1e-6)


def _plain_reference_1d(f, X, j, edges):
    """PyALE's formula with Apley's centring, written with loops over bins."""
    x = X[:, j]
    K = len(edges) - 1
    deltas, counts = [], []
    for k in range(1, K + 1):
        if k == 1:
            rows = [i for i in range(len(x)) if edges[0] <= x[i] <= edges[1]]
        else:
            rows = [i for i in range(len(x)) if edges[k - 1] < x[i] <= edges[k]]
        hi, lo = X[rows].copy(), X[rows].copy()
        hi[:, j], lo[:, j] = edges[k], edges[k - 1]
        deltas.append(np.mean(f(hi) - f(lo)))
        counts.append(len(rows))
    g = [0.0]
    for d in deltas:
        g.append(g[-1] + d)
    centre = sum(counts[k] * (g[k] + g[k + 1]) / 2 for k in range(K)) / sum(counts)
    return np.array(g) - centre


def _plain_reference_discrete(f, X, j, levels):
    x = X[:, j]
    g, sizes = [0.0], [int(np.sum(x == levels[0]))]
    for k in range(1, len(levels)):
        rows = x == levels[k]
        hi, lo = X[rows].copy(), X[rows].copy()
        hi[:, j], lo[:, j] = levels[k], levels[k - 1]
        g.append(g[-1] + np.mean(f(hi) - f(lo)))
        sizes.append(int(rows.sum()))
    g = np.array(g)
    return g - np.sum(g * np.array(sizes)) / sum(sizes)


def _interaction(A):
    return A[:, 0] * A[:, 1] + np.sin(A[:, 0]) * A[:, 2] ** 2 + 0.5 * A[:, 2]


def test_numeric_equals_plain_reference():
    X = _correlated(seed=1)[:, :3]
    res = accumulated_local_effects(_interaction, X, 0, grid_resolution=15)
    edges = res.grid_values[0]
    np.testing.assert_array_equal(
        edges, np.unique(np.quantile(X[:, 0], np.linspace(0, 1, 16), method="lower"))
    )
    np.testing.assert_allclose(res.average[0], _plain_reference_1d(_interaction, X, 0, edges),
                               rtol=0, atol=1e-12)


def test_discrete_equals_plain_reference():
    rng = np.random.default_rng(2)
    X = np.c_[rng.normal(size=500), rng.normal(size=500), rng.integers(0, 6, 500).astype(float)]
    res = accumulated_local_effects(_interaction, X, "x2")
    assert res.feature_kinds == ("discrete",)
    np.testing.assert_array_equal(res.grid_values[0], np.arange(6))
    np.testing.assert_allclose(res.average[0],
                               _plain_reference_discrete(_interaction, X, 2, np.arange(6.0)),
                               rtol=0, atol=1e-12)


def _plain_reference_2d(f, X, a, b, ea, eb):
    """Apley's ALEPlot second-order estimator written with loops over cells."""
    K1, K2 = len(ea) - 1, len(eb) - 1

    def cell(v, e):
        return max(1, int(np.searchsorted(e, v, side="left"))) - 1

    sums, cnt = np.zeros((K1, K2)), np.zeros((K1, K2))
    for row in X:
        k, m = cell(row[a], ea), cell(row[b], eb)
        pts = []
        for va, vb in ((ea[k + 1], eb[m + 1]), (ea[k], eb[m + 1]), (ea[k + 1], eb[m]), (ea[k], eb[m])):
            r = row.copy()
            r[a], r[b] = va, vb
            pts.append(f(r[None, :])[0])
        sums[k, m] += pts[0] - pts[1] - pts[2] + pts[3]
        cnt[k, m] += 1
    delta = np.zeros((K1, K2))
    full = [(k, m) for k in range(K1) for m in range(K2) if cnt[k, m] > 0]
    for k in range(K1):
        for m in range(K2):
            if cnt[k, m] > 0:
                delta[k, m] = sums[k, m] / cnt[k, m]
            else:
                near = min(full, key=lambda p: ((p[0] - k) / max(1, K1 - 1)) ** 2
                           + ((p[1] - m) / max(1, K2 - 1)) ** 2)
                delta[k, m] = sums[near] / cnt[near]
    h = np.zeros((K1 + 1, K2 + 1))
    for k in range(1, K1 + 1):
        for m in range(1, K2 + 1):
            h[k, m] = delta[:k, :m].sum()
    f1 = np.zeros(K1 + 1)
    for k in range(1, K1 + 1):
        num = sum(cnt[k - 1, m] * ((h[k, m + 1] - h[k - 1, m + 1]) + (h[k, m] - h[k - 1, m])) / 2
                  for m in range(K2))
        f1[k] = f1[k - 1] + num / cnt[k - 1].sum()
    f2 = np.zeros(K2 + 1)
    for m in range(1, K2 + 1):
        num = sum(cnt[k, m - 1] * ((h[k + 1, m] - h[k + 1, m - 1]) + (h[k, m] - h[k, m - 1])) / 2
                  for k in range(K1))
        f2[m] = f2[m - 1] + num / cnt[:, m - 1].sum()
    h = h - f1[:, None] - f2[None, :]
    c = sum(cnt[k, m] * (h[k, m] + h[k + 1, m] + h[k, m + 1] + h[k + 1, m + 1]) / 4
            for k in range(K1) for m in range(K2)) / cnt.sum()
    return h - c


def test_two_way_equals_plain_reference():
    X = _correlated(n=300, seed=3)[:, :3]
    res = accumulated_local_effects(_interaction, X, ["x0", "x2"], grid_resolution=6)
    ea, eb = res.grid_values
    assert res.average.shape == (1, len(ea), len(eb)) and res.std is None
    ref = _plain_reference_2d(_interaction, X, 0, 2, ea, eb)
    np.testing.assert_allclose(res.average[0], ref, rtol=0, atol=1e-12)


def test_two_way_of_a_product_is_the_product_minus_main_effects():
    """For f = x0 * x1 on independent uniform features the second-order ALE is about
    (x0 - 1/2)(x1 - 1/2) (main effects x0/2, x1/2 removed, centred); bins of 1/10."""
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(20000, 2))
    res = accumulated_local_effects(lambda A: A[:, 0] * A[:, 1], X, [0, 1], grid_resolution=10,
                                    custom_edges={"x0": np.linspace(0, 1, 11),
                                                  "x1": np.linspace(0, 1, 11)})
    g = np.linspace(0, 1, 11) - 0.5
    np.testing.assert_allclose(res.average[0], np.outer(g, g), atol=0.02)


def test_pd_is_misleading_where_ale_is_right():
    """x1 and x2 strongly correlated; on the data f equals x2 (it depends on x1 only far
    from the data, through 10 (x1 - x2)^2). PD of x1 averages f(x1, x2) over all x2 --
    mostly combinations that never occur -- and is a strong U; ALE of x1 stays flat."""
    rng = np.random.default_rng(5)
    x2 = rng.uniform(-1, 1, size=3000)
    X = np.c_[x2 + 0.01 * rng.normal(size=3000), x2]

    def f(A):
        return A[:, 1] + 10 * (A[:, 0] - A[:, 1]) ** 2

    ale = accumulated_local_effects(f, X, "x0")
    pd_ = partial_dependence(f, X, "x0")
    assert np.ptp(pd_.average) > 5
    assert np.ptp(ale.average) < 0.02 * np.ptp(pd_.average)


def test_band_coverage_by_simulation():
    """f = x0^2 + x0 x1, x0 ~ U(0, 1), x1 ~ N(0, 1) independent, fixed edges z_k = k/10.

    The true bin mean is ``z_k^2 - z_{k-1}^2`` (E x1 = 0); given the bin counts the target of
    the centred curve is ``A(counts) @ Delta_true``. The nominal 95 % band must cover it at
    >= 90 % of the (dataset, edge) pairs over 200 datasets.
    """
    edges = np.linspace(0, 1, 11)
    true_delta = np.diff(edges**2)
    rng = np.random.default_rng(6)
    covered = []
    for _ in range(200):
        X = np.c_[rng.uniform(size=400), rng.normal(size=400)]
        res = accumulated_local_effects(lambda A: A[:, 0] ** 2 + A[:, 0] * A[:, 1], X, "x0",
                                        custom_edges={"x0": edges})
        target = accumulation_matrix("numeric", res.bin_counts.astype(float)) @ true_delta
        lo, hi = res.band(0.95)
        covered.append((lo[0] <= target) & (target <= hi[0]))
    coverage = np.mean(covered)
    assert 0.90 <= coverage <= 0.99


def test_edge_cases_constant_zeros_integers_nan_lognormal():
    rng = np.random.default_rng(7)
    n = 2000
    zeros = np.where(rng.uniform(size=n) < 0.9, 0.0, rng.exponential(size=n))
    nan = rng.normal(size=n)
    nan[rng.uniform(size=n) < 0.05] = np.nan
    X = np.c_[np.full(n, 3.0), zeros, rng.integers(1, 4, n), nan, rng.lognormal(sigma=1.5, size=n)]

    def f(A):
        return np.nansum(A, axis=1) + A[:, 4] ** 0.5

    const = accumulated_local_effects(f, X, "x0")
    assert const.average.shape == (1, 1) and const.average[0, 0] == 0
    z = accumulated_local_effects(f, X, "x1")
    assert z.grid_values[0][0] == 0 and np.isfinite(z.average).all()
    assert z.bin_counts.min() >= 10
    ints = accumulated_local_effects(f, X, "x2")
    assert ints.feature_kinds == ("discrete",)
    np.testing.assert_allclose(np.diff(ints.average[0]), [1.0, 1.0], atol=1e-12)
    miss = accumulated_local_effects(f, X, "x3")
    assert miss.n_missing == (int(np.isnan(nan).sum()),) and np.isfinite(miss.average).all()
    assert miss.n_rows == n - miss.n_missing[0]
    with pytest.raises(ValueError, match="'x3' has .* missing values"):
        accumulated_local_effects(f, X, "x3", missing="raise")
    logn = accumulated_local_effects(f, X, "x4")
    assert len(logn.bin_counts) == 20 and logn.bin_counts.min() >= 10
    with pytest.raises(ValueError, match="'x0' is constant"):
        accumulated_local_effects(f, X, ["x0", "x4"])
    with pytest.raises(ValueError, match="'x1' has no non-missing value"):
        accumulated_local_effects(f, np.c_[X[:, :1], np.full(n, np.nan)], "x1")


def test_min_bin_size_bounds_the_number_of_bins():
    x = np.random.default_rng(8).normal(size=95)
    edges = quantile_edges(x, None, 50, 10)
    assert len(edges) - 1 == 9
    counts = np.histogram(x, edges)[0]
    assert counts.min() >= 10


def test_sample_weight_equals_repeated_rows():
    rng = np.random.default_rng(9)
    X = _correlated(n=400, seed=9)[:, :3]
    w = rng.integers(1, 4, size=400)
    edges = {"x0": np.quantile(X[:, 0], np.linspace(0, 1, 9))}
    weighted = accumulated_local_effects(_interaction, X, "x0", sample_weight=w, custom_edges=edges)
    repeated = accumulated_local_effects(_interaction, np.repeat(X, w, axis=0), "x0",
                                         custom_edges=edges)
    np.testing.assert_allclose(weighted.average, repeated.average, rtol=0, atol=1e-12)


def test_classifier_probabilities_and_target():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(n_samples=300, n_features=4, n_informative=3, n_redundant=0,
                               n_classes=3, random_state=0)
    clf = LogisticRegression(max_iter=500).fit(X, y)
    res = accumulated_local_effects(clf, X, 0)
    assert res.average.shape == (3, len(res.grid_values[0]))
    np.testing.assert_allclose(res.average.sum(axis=0), 0, atol=1e-12)  # probabilities sum to 1
    one = accumulated_local_effects(clf, X, 0, target=2)
    np.testing.assert_allclose(one.average[0], res.average[2], atol=1e-12)
    ref = _plain_reference_1d(lambda A: clf.predict_proba(A)[:, 2], X, 0, res.grid_values[0])
    np.testing.assert_allclose(one.average[0], ref, atol=1e-12)


def test_categorical_order_follows_similarity_and_ordered_categories():
    rng = np.random.default_rng(10)
    n = 900
    level = rng.choice(["a", "b", "c"], size=n)
    centre = {"a": 1.0, "b": 5.0, "c": -3.0}  # by the other feature: c, a, b
    x = np.array([centre[v] for v in level]) + rng.normal(size=n)
    df = pd.DataFrame({"cat": level, "x": x})

    def f(frame):
        return frame["x"].to_numpy() + (frame["cat"] == "b").to_numpy() * 2.0

    res = accumulated_local_effects(f, df, "cat")
    assert res.feature_kinds == ("categorical",) and res.edge_rule == ("similarity",)
    assert list(res.grid_values[0]) in (["c", "a", "b"], ["b", "a", "c"])
    assert list(accumulated_local_effects(f, df, "cat", categorical_order="sorted").grid_values[0]) \
        == ["a", "b", "c"]
    ordered = df.assign(cat=pd.Categorical(level, categories=["b", "c", "a"], ordered=True))
    res_o = accumulated_local_effects(f, ordered, "cat")
    assert list(res_o.grid_values[0]) == ["b", "c", "a"] and res_o.edge_rule == ("ordered",)
    # jumps: b -> c is -2, c -> a is 0; centred by the level shares
    g = np.array([0.0, -2.0, -2.0])
    share = np.array([np.mean(level == v) for v in ["b", "c", "a"]])
    np.testing.assert_allclose(res_o.average[0], g - share @ g, atol=1e-12)


def test_to_frame_and_to_dict():
    X = _correlated(n=200)
    res = accumulated_local_effects(_additive, X, "x0", grid_resolution=5)
    frame = res.to_frame()
    assert list(frame.columns) == ["output", "x0", "value", "std"] and len(frame) == 6
    d = res.to_dict()
    assert d["method"] == "ale" and len(d["average"][0]) == 6


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"grid_resolution": 0}, ValueError, "'grid_resolution' parameter of accumulated_local_"
                                             "effects must be an int >= 1. Got 0 instead"),
        ({"min_bin_size": 1.5}, TypeError, "'min_bin_size'"),
        ({"categorical_order": "x"}, ValueError, "'categorical_order'"),
        ({"missing": "skip"}, ValueError, "'missing'"),
        ({"features": "nope"}, ValueError, "unknown feature 'nope'"),
        ({"features": [0, 1, 2]}, ValueError, "'features'"),
        ({"custom_edges": {"x0": [1.0, 0.0]}}, ValueError, "'custom_edges'"),
        ({"sample_weight": [1.0]}, ValueError, "'sample_weight'"),
        ({"response_method": "proba"}, ValueError, "'response_method'"),
    ],
)
def test_bad_parameters(kwargs, exc, match):
    X = _correlated(n=50)
    kwargs = {"features": "x0", **kwargs}
    with pytest.raises(exc, match=match):
        accumulated_local_effects(_additive, X, **kwargs)


def test_engine_drivers_give_the_static_ale():
    """The registered explanation function (dense per-bin moments) through the engine's static
    driver equals accumulated_local_effects (per-bin sums) on the same edges."""
    from ixplain.methods._engine import explain_rows
    from ixplain.methods.ale import ALEFunction
    from ixplain.models import as_model
    from ixplain.tabular import as_table

    X = _correlated(n=700, seed=11)[:, :3]
    static = accumulated_local_effects(_interaction, X, "x0", grid_resolution=12)
    method = ALEFunction(as_model(_interaction), "x0", static.grid_values[0])
    got = method.result(explain_rows(method, as_table(X), memory_budget=2**14))
    np.testing.assert_allclose(got.average, static.average, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.std, static.std, rtol=1e-9)
    np.testing.assert_allclose(got.bin_counts, static.bin_counts, rtol=1e-12)


def test_every_row_is_used():
    """No silent subsampling (effector keeps 10,000 rows): 12,000 rows, all in the bins."""
    X = _correlated(n=12_000, seed=12)
    res = accumulated_local_effects(_additive, X, "x1")
    assert res.n_rows == 12_000 and res.bin_counts.sum() == 12_000


def test_ale_new_user_qa_rows():
    """New-user QA of ALE: NaN predictions made invented or flat curves (now an error naming the
    rows), an infinite feature value made the curve -inf (now a missing value), a 1-D X was read
    as one row (now refused)."""
    from ixplain import ModelEvaluationError

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(1000, 3))
    edges = {"x0": [0, 0.25, 0.5, 0.75, 1]}
    for model in (lambda A: np.where(A[:, 0] > 0.6, np.nan, A[:, 0]),
                  lambda A: np.full(len(A), np.nan)):
        with pytest.raises(ModelEvaluationError, match="accumulated_local_effects: .* returned "
                                                       "NaN for"):
            accumulated_local_effects(model, X, 0, custom_edges=edges)
    with_inf = np.r_[X, [[np.inf, 0.0, 0.0]]]
    r = accumulated_local_effects(lambda A: A[:, 0], with_inf, 0)
    assert np.isfinite(r.average).all() and r.n_missing == (1,)
    with pytest.raises(ValueError, match="'X' parameter of accumulated_local_effects must be 2-D"):
        accumulated_local_effects(lambda A: A[:, 0], X[:, 0], 0)


def test_ale_custom_edges_take_column_indices_and_name_a_bad_key():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 3))
    by_index = accumulated_local_effects(lambda A: A[:, 0] ** 2, X, 0,
                                         custom_edges={0: [0.0, 0.5, 1.0]})
    by_name = accumulated_local_effects(lambda A: A[:, 0] ** 2, X, 0,
                                        custom_edges={"x0": [0.0, 0.5, 1.0]})
    np.testing.assert_array_equal(by_index.average, by_name.average)
    with pytest.raises(ValueError, match="key 'x2', which is not an explained feature"):
        accumulated_local_effects(lambda A: A[:, 0], X, 0, custom_edges={"x2": [0.0, 1.0]})


def test_min_bin_size_holds_whatever_grid_resolution():
    """30 continuous rows with grid_resolution=50: every value used to be a one-row "discrete"
    level. Now the quantile rule holds: 3 bins of at least 10 rows. Few integer levels keep
    their steps only when every level has min_bin_size rows; fewer rows than min_bin_size is a
    clear error."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    res = accumulated_local_effects(lambda A: A[:, 0], X, 0, grid_resolution=50)
    assert res.feature_kinds == ("numeric",) and res.bin_counts.tolist() == [10, 10, 10]
    ints = np.r_[np.zeros(40), np.ones(40), np.full(3, 2.0)]  # level 2 has 3 rows
    Xi = np.c_[ints, np.zeros(83)]
    res = accumulated_local_effects(lambda A: 2 * A[:, 0], Xi, 0)
    assert res.feature_kinds == ("numeric",) and res.bin_counts.min() >= 10
    assert res.grid_values[0].dtype.kind in "iuf" and set(res.grid_values[0]) <= {0, 1, 2}
    res = accumulated_local_effects(lambda A: 2 * A[:, 0], Xi, 0, min_bin_size=3)
    assert res.feature_kinds == ("discrete",) and res.bin_counts.tolist() == [40, 40, 3]
    np.testing.assert_allclose(np.diff(res.average[0]), [2.0, 2.0], atol=1e-12)
    with pytest.raises(ValueError, match="'x0' has 2 non-missing values, fewer than min_bin_size"):
        accumulated_local_effects(lambda A: A[:, 0], X[:2], 0)
    two = accumulated_local_effects(lambda A: A[:, 0], X[:2], 0, min_bin_size=1)
    assert two.bin_counts.tolist() == [1, 1] and two.feature_kinds == ("discrete",)


def _time_frame(n=400, unit="ns", tz=None, seed=0):
    rng = np.random.default_rng(seed)
    days = np.sort(rng.uniform(0, 365, n))
    t = (pd.Timestamp("2020-01-01") + pd.to_timedelta(days, unit="D")).as_unit(unit)
    t = t.tz_localize("UTC").tz_convert(tz) if tz is not None else t
    return pd.DataFrame({"t": t, "x": rng.normal(size=n) + days / 100}), days


def _days(t):
    t = pd.Series(t)
    if t.dt.tz is not None:
        t = t.dt.tz_convert("UTC").dt.tz_localize(None)
    return ((t - pd.Timestamp("2020-01-01")).dt.total_seconds() / 86400).to_numpy()


def _time_model(d):
    days = _days(d["t"])
    return np.sin(days / 50) * (1 + d["x"].to_numpy())


@pytest.mark.parametrize("unit, tz", [("ns", None), ("us", None), ("ns", "Europe/Berlin")])
def test_datetime_feature_is_numeric_in_time_order(unit, tz):
    """A datetime column is binned in time (it used to be categorical, ordered by similarity).

    Reference: the same model reading the time as a number of days, ALE of that number on
    the days of the datetime edges (custom_edges): equal to 1e-9 (float days).
    """
    df, days = _time_frame(unit=unit, tz=tz)
    res = accumulated_local_effects(_time_model, df, "t")
    assert res.feature_kinds == ("numeric",) and res.edge_rule == ("quantile",)
    grid = res.grid_values[0]
    assert grid.dtype == df["t"].dtype and len(grid) == 21
    assert (np.diff(_days(grid)) > 0).all() and grid[0] == df["t"].min()
    num = pd.DataFrame({"t": _days(df["t"]), "x": df["x"]})  # the same float days
    ref = accumulated_local_effects(
        lambda d: np.sin(d["t"].to_numpy() / 50) * (1 + d["x"].to_numpy()), num, "t",
        custom_edges={"t": _days(grid)})
    np.testing.assert_allclose(res.average, ref.average, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.std, ref.std, rtol=1e-6)
    frame = res.to_frame()
    assert frame["t"].dtype == df["t"].dtype
    d = res.to_dict()
    assert d["grid_values"][0][0] == pd.Timestamp(grid[0]).isoformat() and len(d["deciles"][0]) == 9
    if tz is not None:
        assert d["grid_values"][0][0].endswith("+01:00")


def test_datetime_two_way_custom_edges_missing_and_levels():
    df, days = _time_frame()
    df.loc[::10, "t"] = pd.NaT
    res = accumulated_local_effects(_time_model, df, "t", custom_edges={
        "t": ["2020-01-01", "2020-07-01", "2021-01-01"]})
    assert res.n_missing == (40,) and res.bin_counts.sum() == 360
    assert str(res.grid_values[0][1])[:10] == "2020-07-01"
    two = accumulated_local_effects(_time_model, df, ["t", "x"], grid_resolution=5)
    assert two.average.shape == (1, 6, 6) and two.grid_values[0].dtype.kind == "M"
    few = pd.DataFrame({"t": pd.to_datetime(["2020-01-01", "2020-03-01", "2020-02-01"] * 20),
                        "x": np.zeros(60)})
    lv = accumulated_local_effects(lambda d: _days(d["t"]), few, "t")
    assert lv.feature_kinds == ("discrete",)
    np.testing.assert_allclose(np.diff(lv.average[0]), [31, 29], atol=1e-9)  # 2020: leap year
    objects = pd.DataFrame({"t": np.asarray(few["t"].dt.to_pydatetime(), dtype=object),
                            "x": np.zeros(60)})
    ob = accumulated_local_effects(lambda d: _days(pd.to_datetime(d["t"])), objects, "t")
    np.testing.assert_allclose(ob.average, lv.average, atol=1e-9)
    with pytest.raises(ValueError, match="'custom_edges' .* datetimes for the datetime feature"):
        accumulated_local_effects(_time_model, df, "t", custom_edges={"t": ["a", "b"]})
    with pytest.raises(ValueError, match="strictly increasing datetimes"):
        accumulated_local_effects(_time_model, df, "t", custom_edges={
            "t": ["2021-01-01", "2020-01-01"]})


def test_datetime_stream_is_refused_with_the_fix():
    from ixplain import IncrementalALE

    df, _ = _time_frame(n=50)
    with pytest.raises(ValueError, match=r"'t' holds dates or datetimes \(dtype datetime64.*total_seconds"):
        IncrementalALE(_time_model, "t").explain_many(df)


def test_durations_are_numeric_too():
    """A timedelta column was categorical (one level per distinct duration, similarity order);
    it is binned in time like a datetime: f = 2 * seconds gives slope 2 per second."""
    n = 300
    df = pd.DataFrame({"d": pd.to_timedelta(np.arange(n) * 7, unit="s"), "x": np.zeros(n)})
    res = accumulated_local_effects(lambda d: 2 * d["d"].dt.total_seconds().to_numpy(), df, "d")
    assert res.feature_kinds == ("numeric",) and res.grid_values[0].dtype.kind == "m"
    secs = res.grid_values[0] / np.timedelta64(1, "s")
    np.testing.assert_allclose(np.diff(res.average[0]), 2 * np.diff(secs), rtol=1e-12)
    assert res.to_dict()["grid_values"][0][0] == "P0DT0H0M0S"


def test_weight_zero_bins_and_unknown_categorical_features_and_many_levels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    w = (X[:, 0] > 0).astype(float)
    res = accumulated_local_effects(lambda A: A[:, 0], X, 0, sample_weight=w,
                                    custom_edges={0: [-3, -1, 0, 1, 3]})
    assert res.empty_bins.tolist() == [True, True, False, False]  # rows, but weight 0
    assert np.isnan(res.std[0, :2]).all() and np.isfinite(res.std[0, 2:]).all()
    with pytest.raises(ValueError, match="'categorical_features' parameter .* unknown feature 'zz'"):
        accumulated_local_effects(lambda A: A[:, 0], X, 0, categorical_features=["zz"])
    df = pd.DataFrame({"id": np.arange(1000) % 150, "x": rng.normal(size=1000)}).astype({"id": str})
    with pytest.warns(UserWarning, match="'id' has 150 levels.*sorted order is used"):
        many = accumulated_local_effects(lambda d: d["x"].to_numpy(), df, "id")
    assert many.edge_rule == ("sorted",)


def test_an_infinite_prediction_is_refused_not_accumulated():
    """A model returning inf above x0 > 1 gave a curve of -inf, NaN and inf (NaN outputs were
    already refused). The model adapter refuses the inf output itself, as for every static
    method; finite outputs of +-1.7e308 whose difference overflows get ALE's own error (it
    said 'returned an infinite prediction', which they did not), naming the row of X."""
    from ixplain import ModelEvaluationError

    X = np.random.default_rng(0).normal(size=(300, 2))
    with pytest.raises(ModelEvaluationError,
                       match=r"accumulated_local_effects: .* returned inf for \d+ of \d+ rows"):
        accumulated_local_effects(lambda A: np.where(A[:, 0] > 1, np.inf, A[:, 0]), X, 0)
    with pytest.raises(ModelEvaluationError,
                       match=r"difference of .* predictions across a bin is infinite for \d+ "
                             r"rows \(first: row \d+ of X; the predictions overflow"):
        accumulated_local_effects(lambda A: np.where(A[:, 0] > 1, 1.7e308, -1.7e308), X, 0)
