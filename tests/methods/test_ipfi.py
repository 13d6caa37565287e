"""IncrementalPFI: Agrawal ground truths, the iPFI simulation properties, agreement with static
PFI, model-call batching, and randomness isolation."""

from fractions import Fraction

import numpy as np
import pytest
from river.datasets.synth import Agrawal

from ixplain import DatasetStorage, IncrementalPFI, permutation_importance

# ---------------------------------------------------------------------------- ground truths
SALARY = (20_000, 150_000)  # river: uniform
AGES = range(20, 81)  # river: random.randint(20, 80), both ends included
ELEVELS = range(5)  # randint(0, 4)


def _age_group(age):
    return 0 if age < 40 else (1 if age < 60 else 2)


def _pfi_function_1():
    """Exact PFI of Agrawal function 2 (river index 1) under 0-1 loss with the true rule.

    The model is the labelling rule f, so loss(y, f(x)) = 0 and the per-observation PFI of
    feature j is 1[f(x with x_j := x'_j) != f(x)] with x' independent: PFI_j = P(f changes).
    f depends on age only through its group g in {<40, 40-59, >=60} with salary band
    B_g = [50k, 100k], [75k, 125k], [25k, 75k]; salary is uniform on [20k, 150k].
    * salary: given g, P(s in B_g) = 50/130 = 5/13, s' independent: 2 * 5/13 * 8/13 = 80/169.
    * age: f changes iff 1[s in B_g] != 1[s in B_g'], with g, g' independent age groups
      (20, 20, 21 of the 61 ages): sum over g, g' of p_g p_g' |B_g symmetric-difference B_g'|/130.
    * any other feature: f does not depend on it: 0.
    Exact enumeration below (intervals' lengths in thousands).
    """
    bands = {0: (50, 100), 1: (75, 125), 2: (25, 75)}
    p = {g: Fraction(sum(_age_group(a) == g for a in AGES), len(AGES)) for g in bands}

    def overlap(a, b):
        return max(0, min(a[1], b[1]) - max(a[0], b[0]))

    age = sum(
        p[g] * p[h] * Fraction(100 - 2 * overlap(bands[g], bands[h]), 130)
        for g in bands
        for h in bands
    )
    salary = sum(p[g] * 2 * Fraction(50, 130) * Fraction(80, 130) for g in bands)
    return {"salary": salary, "age": age}


def _pfi_function_2():
    """Exact PFI of Agrawal function 3 (river index 2): age groups with accepted education
    levels {0, 1}, {1, 2, 3}, {2, 3, 4} of 5 equally likely levels.
    * elevel: 2 q_g (1 - q_g) with q_g = 2/5 or 3/5: 12/25 in every group.
    * age: P(1[e in E_g] != 1[e in E_g']) = |E_g symmetric-difference E_g'| / 5, averaged over
      independent groups g, g'.
    """
    sets = {0: {0, 1}, 1: {1, 2, 3}, 2: {2, 3, 4}}
    p = {g: Fraction(sum(_age_group(a) == g for a in AGES), len(AGES)) for g in sets}
    age = sum(p[g] * p[h] * Fraction(len(sets[g] ^ sets[h]), 5) for g in sets for h in sets)
    elevel = sum(p[g] * 2 * Fraction(len(sets[g]), 5) * (1 - Fraction(len(sets[g]), 5))
                 for g in sets)
    return {"elevel": elevel, "age": age}


def test_ground_truth_fractions():
    t1, t2 = _pfi_function_1(), _pfi_function_2()
    assert t1 == {"salary": Fraction(80, 169), "age": Fraction(16600, 48373)}
    assert t2 == {"elevel": Fraction(12, 25), "age": Fraction(1656, 3721)}


def _rule_model(function):
    rule = getattr(Agrawal, f"_classification_function_{function}")

    def model(records):
        return np.array([rule(**r) for r in records])

    return model


@pytest.mark.parametrize("function", [1, 2])
def test_agrawal_converges_to_ground_truth(function):
    """iPFI with the true rule and 0-1 loss converges to the exact PFI.

    With aggregation='mean' over n explained rows, each lambda_j is Bernoulli(q_j) (one draw per
    feature), so the estimate has standard deviation sqrt(q (1 - q) / n) (draws from a 1000-row
    uniform reservoir are iid samples of the stream). With 'ema' at rate alpha after t rows the
    bias is (1 - alpha)**(t-1) q and the standard deviation sqrt(q (1 - q) alpha / (2 - alpha))
    (Fumagalli et al., 2023, Theorem 2). Tolerance: 5 standard deviations (+ the bias).
    Features the rule ignores have lambda = 0 exactly, so their estimate is exactly 0.
    """
    n = 4000
    truth = {k: float(v) for k, v in (_pfi_function_1() if function == 1 else
                                      _pfi_function_2()).items()}
    data = list(Agrawal(classification_function=function, seed=7).take(n))
    X, y = [x for x, _ in data], np.array([t for _, t in data])
    mean = IncrementalPFI(_rule_model(function), "zero_one", aggregation="mean", random_state=0)
    alpha = 0.02
    ema = IncrementalPFI(_rule_model(function), "zero_one", alpha=alpha, random_state=1)
    for s in range(0, n, 250):
        mean.explain_many(X[s : s + 250], y[s : s + 250])
        ema.explain_many(X[s : s + 250], y[s : s + 250])
    names = mean.feature_names_
    for est, kind in ((mean, "mean"), (ema, "ema")):
        for j, name in enumerate(names):
            q = truth.get(name, 0.0)
            if q == 0.0:
                assert est.importances_[j] == 0.0, name
                continue
            if kind == "mean":
                tol = 5 * np.sqrt(q * (1 - q) / (n - 1))
            else:
                tol = 5 * np.sqrt(q * (1 - q) * alpha / (2 - alpha)) + (1 - alpha) ** (n - 1) * q
            assert abs(est.importances_[j] - q) < tol, (kind, name, est.importances_[j], q)


# ---------------------------------------------------------------------------- simulations
def _linear_stream(rng, n):
    X = rng.normal(size=(n, 2))
    return X, X[:, 0].copy()


def _first_feature(A):
    return A[:, 0]


def test_expectation_of_phi_t_follows_the_bias_factor():
    """E[phi_t] = (1 - (1 - alpha)**(t-1)) * PFI.

    Model f(x) = x_0 = y, squared error, x ~ N(0, I): lambda_0 = (x'_0 - x_0)^2 with mean
    PFI_0 = 2 and variance 8. Row 1 is only stored, so after t rows phi_t has had t-1 updates
    from 0: E[phi_t] = (1 - (1-alpha)^(t-1)) * 2. Over R independent runs the mean of phi_t has
    standard error below sqrt(8 * alpha / (2 - alpha) / R) * 1.5 (the factor covers draws that
    reuse the few stored rows early in a run); tolerance 5 of these.
    """
    alpha, t, R = 0.1, 15, 500
    rng = np.random.default_rng(0)
    finals = []
    for r in range(R):
        X, y = _linear_stream(rng, t)
        e = IncrementalPFI(_first_feature, "squared_error", alpha=alpha, random_state=r)
        finals.append(e.explain_many(X, y)[0])
    expected = (1 - (1 - alpha) ** (t - 1)) * 2.0
    se = 1.5 * np.sqrt(8 * alpha / (2 - alpha) / R)
    assert abs(np.mean(finals) - expected) < 5 * se


def test_variance_of_phi_t_and_window_equivalence():
    """Var(phi_t) -> sigma^2 alpha / (2 - alpha); with alpha = 2/(N+1) that is sigma^2 / N, the
    variance of an N-row moving average.

    Derivation: phi_t = sum_k alpha (1-alpha)^k lambda_{t-k} with iid lambda of variance
    sigma^2, so Var = sigma^2 alpha^2 / (1 - (1-alpha)^2) = sigma^2 alpha / (2 - alpha); for
    alpha = 2/(N+1), alpha / (2 - alpha) = 1/N. Simulation: one long stream explained with a
    DatasetStorage of 50,000 iid rows (so draws are independent), phi read every 60 rows
    (correlation (1-alpha)^60 < 1e-3 for N = 19); sigma^2 is estimated by the Welford variance
    of lambda from a second explainer with aggregation='mean' on the same rows (theory: 8).
    Tolerance: the sample variance of K nearly-normal values has relative sd sqrt(2/K); 5 of
    those.
    """
    rng = np.random.default_rng(1)
    N = 19
    alpha = 2 / (N + 1)
    pool, _ = _linear_stream(rng, 50_000)
    K, gap = 600, 60
    X, y = _linear_stream(rng, K * gap)
    ema = IncrementalPFI(_first_feature, "squared_error", alpha=alpha, random_state=2,
                         storage=DatasetStorage(pool))
    mean = IncrementalPFI(_first_feature, "squared_error", aggregation="mean", random_state=3,
                          storage=DatasetStorage(pool))
    snaps = []
    for k in range(K):
        snaps.append(ema.explain_many(X[k * gap : (k + 1) * gap], y[k * gap : (k + 1) * gap])[0])
        mean.explain_many(X[k * gap : (k + 1) * gap], y[k * gap : (k + 1) * gap])
    sigma2 = mean.variances_[0]  # theory: Var((x' - x)^2) = 8
    assert abs(sigma2 - 8) < 5 * np.sqrt(96 / len(X))  # Var of (2 chi2_1)^2 terms ~ 96
    var_phi = np.var(snaps[5:], ddof=1)
    assert abs(var_phi / (sigma2 * alpha / (2 - alpha)) - 1) < 5 * np.sqrt(2 / (K - 5))
    assert np.isclose(alpha / (2 - alpha), 1 / N)


def test_mean_with_full_storage_agrees_with_static():
    """aggregation='mean' + DatasetStorage(X), streaming X once, estimates static PFI on X.

    Both average lambda(x_i, x') over the rows of X; iPFI draws x' uniformly from X (so x' = x_i
    with probability 1/n, giving lambda = 0) while a permutation draws from the other rows:
    E[iPFI] = (n - 1)/n * E[static]. Tolerance: 5 standard errors of the difference (the iPFI
    running variance / n, the static importances_std**2 / n_repeats).
    """
    rng = np.random.default_rng(4)
    n = 3000
    X = rng.normal(size=(n, 3)) * [1.0, 0.5, 2.0]
    y = X @ [1.0, 2.0, 0.0] + 0.1 * rng.normal(size=n)

    def f(A):
        return A @ np.array([1.0, 2.0, 0.0])

    static = permutation_importance(f, X, y, loss="squared_error", n_repeats=20, random_state=0)
    inc = IncrementalPFI(f, "squared_error", aggregation="mean", storage=DatasetStorage(X),
                         random_state=0)
    for s in range(0, n, 500):
        inc.explain_many(X[s : s + 500], y[s : s + 500])
    assert inc.n_explained_ == n  # the storage is full from the start
    se = np.sqrt(inc.variances_ / n + static.importances_std**2 / 20)
    diff = inc.importances_ - (n - 1) / n * static.importances_mean
    assert np.all(np.abs(diff) <= 5 * se + 1e-12)
    assert inc.importances_[2] == 0.0


# ---------------------------------------------------------------------------- mechanics
class CountingModel:
    """A scikit-learn-like regressor that records the size of every call."""

    def __init__(self):
        self.sizes = []

    def fit(self, X, y):
        return self

    def predict(self, X):
        self.sizes.append(len(X))
        return X[:, 0] * 2.0


def test_one_model_call_per_explain_one_and_per_batch():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 4))
    m = CountingModel()
    e = IncrementalPFI(m, "squared_error", n_samples=3, random_state=0)
    e.explain_one(X[0], 0.0)  # first row: stored, nothing to explain yet
    assert m.sizes == []
    for x in X[1:5]:
        e.explain_one(x, 1.0)
    assert m.sizes == [1 + 4 * 3] * 4
    m.sizes.clear()
    e.explain_many(X[5:45], np.ones(40))
    assert m.sizes == [40 * (1 + 4 * 3)]


def test_online_model_is_explained_as_it_is_now():
    """The model is called at explain time: changing it changes the next explanation."""
    coef = {"w": np.array([1.0, 0.0])}

    def model(A):
        return A @ coef["w"]

    rng = np.random.default_rng(6)
    e = IncrementalPFI(model, "squared_error", alpha=1.0, random_state=0)
    X = rng.normal(size=(20, 2))
    for x in X[:10]:
        e.explain_one(x, x[0])
    assert e.importances_[1] == 0.0 and e.importances_[0] > 0
    coef["w"] = np.array([0.0, 1.0])
    e.explain_one(X[10], X[10][0])
    assert e.importances_[0] == 0.0 and e.importances_[1] != 0.0


def test_two_explainers_in_one_loop_do_not_interact():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 3))
    y = X[:, 0]

    def f(A):
        return A[:, 0] + A[:, 1]

    solo = IncrementalPFI(f, "squared_error", alpha=0.05, random_state=5)
    a = IncrementalPFI(f, "squared_error", alpha=0.05, random_state=5)
    b = IncrementalPFI(f, "absolute_error", alpha=0.2, random_state=5, n_samples=2)
    for x, t in zip(X, y):
        solo.explain_one(x, t)
        a.explain_one(x, t)
        b.explain_one(x, t)
    np.testing.assert_array_equal(solo.importances_, a.importances_)


def test_bias_corrected_confidence_bound_history():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(300, 2))
    y = X[:, 0]
    e = IncrementalPFI(_first_feature, "squared_error", alpha=0.05, bias_corrected=True,
                       history_every=50, random_state=0)
    e.explain_many(X, y)
    raw = e._aggregator.get()
    np.testing.assert_allclose(e.importances_, raw / (1 - 0.95 ** (300 - 1)))
    cb = e.confidence_bound(0.1)
    expected = 0.95**299 + np.sqrt(e.variances_) * np.sqrt(0.05 / 1.95) / np.sqrt(0.1)
    np.testing.assert_allclose(cb, expected)
    ts = e.importance_history()
    assert ts.to_frame().index.tolist() == [50, 100, 150, 200, 250, 300]
    assert ts.importances.shape == (6, 2)
    with pytest.raises(ValueError, match="'delta' parameter"):
        e.confidence_bound(0.0)


def test_validation_messages():
    with pytest.raises(ValueError, match="'n_samples' parameter of IncrementalPFI"):
        IncrementalPFI(_first_feature, "squared_error", n_samples=0)
    with pytest.raises(ValueError, match="'loss' parameter of IncrementalPFI"):
        IncrementalPFI(_first_feature, "nope")
    e = IncrementalPFI(_first_feature, "squared_error")
    with pytest.raises(ValueError, match="needs the label y"):
        e.explain_one(np.zeros(2))


def test_mixed_numeric_and_categorical_stream():
    """A string feature goes through the object path (storage block, perturbation, model).

    f = 2 a + 1[c == "x"], c uniform on {x, y}, squared error with y = f: PFI_c =
    E[(1[c'=x] - 1[c=x])^2] = 1/2; PFI_a = 2 * 4 * Var(a) = 8; b is ignored (exactly 0).
    Tolerance: 5 standard errors of the running mean (lambda_c is Bernoulli(1/2); lambda_a =
    4 (a' - a)^2 has variance 16 * 8 = 128).
    """
    rng = np.random.default_rng(10)
    n = 3000
    A, Bv = rng.normal(size=n), rng.normal(size=n)
    C = rng.choice(np.array(["x", "y"], dtype=object), size=n)
    X = [{"a": a, "b": b, "c": c} for a, b, c in zip(A, Bv, C)]

    def f(records):
        return np.array([2 * r["a"] + (r["c"] == "x") for r in records], dtype=float)

    y = f(X)
    e = IncrementalPFI(f, "squared_error", aggregation="mean", random_state=0)
    e.explain_one(X[0], y[0])
    e.explain_many(X[1:], y[1:])
    imp = dict(zip(e.feature_names_, e.importances_))
    assert abs(imp["c"] - 0.5) < 5 * np.sqrt(0.25 / n)
    assert abs(imp["a"] - 8.0) < 5 * np.sqrt(128 / n)
    assert imp["b"] == 0.0


def test_explain_many_skips_nan_rows():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 2))
    X[[5, 17], 1] = np.nan
    e = IncrementalPFI(_first_feature, "squared_error", alpha=0.1, random_state=0)
    with pytest.warns(RuntimeWarning, match="NaN"):
        e.explain_many(X, X[:, 0])
    assert e.n_skipped_ == 2 and e.n_seen_ == 60 and np.isfinite(e.importances_).all()
    assert len(e.storage) == 58  # the NaN rows were not stored


def test_stream_start_in_a_batch_never_feeds_placeholders_to_the_model():
    """The first row of a stream has nothing to draw from; explain_many must not send the empty
    storage's placeholder values (NaN) to a model that rejects NaN."""
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(12)
    X = rng.normal(size=(50, 3))
    y = X @ [1.0, 2.0, 0.0]
    model = LinearRegression().fit(X, y)
    e = IncrementalPFI(model, "squared_error", alpha=0.1, random_state=0)
    e.explain_many(X, y)
    assert e.n_explained_ == 49 and np.isfinite(e.importances_).all()


@pytest.mark.parametrize("kind", ["records", "numpy", "pandas_int", "sklearn"])
@pytest.mark.parametrize("n_samples", [1, 3])
@pytest.mark.parametrize("mode", ["explain_one", "explain_many"])
def test_single_row_path_equals_general_path(kind, n_samples, mode):
    """IncrementalPFI's numeric route into pfi_losses' kernel (explain_one's single rows, and
    explain_many's batches of changing sizes, which reuse a prefix of the cached flat
    positions; draws in (row, feature, draw) order; the model called natively once its input
    kind is known, records built as copies of each observation's dict) gives bit for bit what
    pfi_losses gives on a source table with explicit replacement indices and a Table round
    trip on every call, for every model input kind (records, numpy, a pandas frame with int
    columns, scikit-learn)."""
    import pandas as pd
    from sklearn.linear_model import LinearRegression

    from ixplain import GeometricReservoir

    rng = np.random.default_rng(5)
    X = rng.integers(-3, 4, size=(120, 3)).astype(np.float64)
    y = 2 * X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=120)
    if kind == "records":
        rows = [dict(zip("abc", r)) for r in X.tolist()]
        model = lambda R: np.array([2 * r["a"] - r["b"] + 0.5 * r["c"] ** 2 for r in R])  # noqa: E731
    elif kind == "numpy":
        rows = list(X)
        model = lambda A: 2 * A[:, 0] - A[:, 1] + 0.5 * A[:, 2] ** 2  # noqa: E731
    elif kind == "pandas_int":
        frame = pd.DataFrame(X.astype(np.int64), columns=list("abc"))
        rows = [frame.iloc[i] for i in range(len(frame))]
        model = lambda D: (2 * D["a"] - D["b"] + 0.5 * D["c"] ** 2).to_numpy()  # noqa: E731
    else:
        rows = [dict(zip("abc", r)) for r in X.tolist()]
        model = LinearRegression().fit(X, y)

    seen = {"fast": [], "general": []}

    def make(key):
        if kind != "records":
            f = model
        else:  # log what the model receives: records with the same keys, order and values
            def f(R):
                seen[key].append([list(r.items()) for r in R])
                return model(R)
        return IncrementalPFI(f, "squared_error", alpha=0.05, n_samples=n_samples,
                              storage=GeometricReservoir(30, p=1.0, random_state=1),
                              random_state=2)

    fast, general = make("fast"), make("general")
    general._all_numeric = False  # forces the source-table route of pfi_losses (BackgroundPFI.numeric_layout)
    if mode == "explain_one":
        for r, t in zip(rows, y):
            fast.explain_one(r, t)
            general.explain_one(r, t)
    else:  # batch sizes that grow and shrink
        start = 0
        for size in [7, 1, 30, 4, 50, 2, 26]:
            part = rows[start : start + size]
            if kind == "numpy":
                part = np.array(part)
            elif kind == "pandas_int":
                part = frame.iloc[start : start + size]
            fast.explain_many(part, y[start : start + size])
            general.explain_many(part, y[start : start + size])
            start += size
        assert start == len(rows) and fast.n_explained_ == len(rows) - 1
    assert seen["fast"] == seen["general"]
    assert fast._method._numeric_plan[0].native_kind == {"records": "records", "numpy": "numpy", "pandas_int": None,
                                 "sklearn": "numpy"}[kind]
    assert np.any(fast.importances_ != 0)
    np.testing.assert_array_equal(fast.importances_, general.importances_)


def test_non_finite_explanation_of_one_row_is_skipped_with_a_warning_at_the_caller():
    """A model returning NaN for one row: explain_one skips the row, counts it, warns once,
    and the warning points at the caller's line; the estimate stays that of the other rows."""
    def model(R):
        return np.array([np.nan if r["a"] == 5.0 else r["a"] for r in R])

    e = IncrementalPFI(model, "squared_error", alpha=0.5, random_state=0)
    ref = IncrementalPFI(lambda R: np.array([r["a"] for r in R]), "squared_error", alpha=0.5,
                         random_state=0)
    e.explain_one({"a": 1.0, "b": 0.0}, 1.0)
    ref.explain_one({"a": 1.0, "b": 0.0}, 1.0)
    with pytest.warns(RuntimeWarning, match="not finite") as record:
        e.explain_one({"a": 5.0, "b": 0.0}, 5.0)
    assert record[0].filename == __file__
    assert (e.n_seen_, e.n_explained_, e.n_skipped_) == (2, 0, 1)
    np.testing.assert_array_equal(e.importances_, [0.0, 0.0])
    ref.explain_one({"a": 5.0, "b": 0.0}, 5.0)
    assert ref.n_explained_ == 1 and ref.importances_[0] == 0.5 * 16.0


@pytest.mark.parametrize("as_dict", [True, False])
def test_nan_label_follows_the_nan_policy_for_every_row_type(as_dict):
    """A NaN label in explain_one: 'raise' names the label, 'skip' neither explains nor stores
    the row (for dict records too, whose fast path checks the features only). With zero_one
    such a row would otherwise add lambda = 1 - 1 = 0 and pull every importance towards 0."""
    def model(R):
        a = np.array([r["a"] for r in R]) if as_dict else np.asarray(R)[:, 0]
        return (a > 0).astype(int)

    def row(a, b):
        return {"a": a, "b": b} if as_dict else np.array([a, b])

    e = IncrementalPFI(model, "zero_one", nan_policy="raise", random_state=0)
    e.explain_one(row(1.0, 0.0), 1.0)
    with pytest.raises(ValueError, match="the label y is NaN"):
        e.explain_one(row(-1.0, 0.0), float("nan"))
    assert e.n_seen_ == 1 and len(e.storage) == 1
    s = IncrementalPFI(model, "zero_one", aggregation="mean", nan_policy="skip", random_state=0)
    rng = np.random.default_rng(1)
    with pytest.warns(RuntimeWarning, match="the label y"):
        for i in range(400):
            a = float(rng.normal())
            s.explain_one(row(a, float(rng.normal())), float("nan") if i % 2 else float(a > 0))
    assert s.n_skipped_ == 200 and s.n_explained_ == 199 and len(s.storage) == 200
    # importance of 'a' under the true rule: P(sign of a changes) = 1/2 (not halved by NaN rows)
    assert abs(s.importances_[0] - 0.5) < 4 * np.sqrt(0.25 / 199) and s.importances_[1] == 0


@pytest.mark.parametrize("storage", ["geometric", "geometric_p", "uniform", "window"])
@pytest.mark.parametrize("aggregation", ["ema", "mean"])
def test_explain_many_equals_a_loop_of_explain_one(storage, aggregation):
    """explain_many from the very first row (an empty storage) in batches of changing sizes
    keeps the same rows and draws the same replacements as a loop of explain_one with the same
    seeds: every decision of row t (storage entry and slot, replacement rows) is read from row
    streams at index t, and the aggregator takes the batch as a sequence of updates: the states
    are equal bit for bit."""
    from ixplain import GeometricReservoir, SlidingWindow, UniformReservoir

    make = {
        "geometric": lambda: GeometricReservoir(20, p=1.0, random_state=3),
        "geometric_p": lambda: GeometricReservoir(20, p=0.5, random_state=3),
        "uniform": lambda: UniformReservoir(25, random_state=3),
        "window": lambda: SlidingWindow(15),
    }[storage]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = X @ [1.0, -2.0, 0.5, 0.0] + 0.1 * rng.normal(size=300)

    def model(A):
        return A @ np.array([1.0, -2.0, 0.5, 0.0])

    a = IncrementalPFI(model, "squared_error", storage=make(), aggregation=aggregation,
                       alpha=0.05, random_state=1)
    b = IncrementalPFI(model, "squared_error", storage=make(), aggregation=aggregation,
                       alpha=0.05, random_state=1)
    for r, t in zip(X, y):
        a.explain_one(r, t)
    start = 0
    for size in [37, 1, 64, 5, 100, 93]:
        b.explain_many(X[start : start + size], y[start : start + size])
        start += size
    np.testing.assert_array_equal(a.storage._num, b.storage._num)
    np.testing.assert_array_equal(a.importances_, b.importances_)
    np.testing.assert_array_equal(a.variances_, b.variances_)
    assert a.n_explained_ == b.n_explained_ == 299


@pytest.fixture(scope="module")
def issue10_setup():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(10)
    X = rng.normal(size=(3000, 4))
    y = X @ np.array([1.0, 2.0, 0.0, 0.5]) + 0.3 * rng.normal(size=3000)
    return LinearRegression().fit(X, y), X, y


def test_issue10_explain_many_equals_the_explain_one_loop(issue10_setup):
    """The reproduction of issue 10: LinearRegression on 3,000 rows, IncrementalPFI(m,
    loss="squared_error", alpha=0.01, random_state=0). explain_many over the whole stream
    with history_every 100 (the default), 0 and 7 gave four different estimates before; now
    each is the explain_one loop's state bit for bit, history_ included (the loop keeps a
    snapshot after every row; history_every=k must give those at multiples of k)."""
    m, X, y = issue10_setup

    def make(every, size=1000):
        return IncrementalPFI(m, loss="squared_error", alpha=0.01, random_state=0,
                              history_every=every, history_size=size)

    loop = make(1, size=3000)
    for x, t in zip(X, y):
        loop.explain_one(x, t)
    for every in (100, 0, 7):
        many = make(every)
        many.explain_many(X, y)
        np.testing.assert_array_equal(many.importances_, loop.importances_)
        np.testing.assert_array_equal(many.variances_, loop.variances_)
        expected = [h for h in loop.history_ if every and h[0] % every == 0]
        assert len(many.history_) == len(expected) == (3000 // every if every else 0)
        for (n1, e1, v1), (n2, e2, v2) in zip(many.history_, expected):
            assert n1 == n2
            np.testing.assert_array_equal(e1, e2)
            np.testing.assert_array_equal(v1, v2)


def test_unseeded_storage_takes_the_explainers_seed(issue10_setup):
    """A storage passed without its own random_state is seeded from the explainer's: two runs
    with random_state=0 agree exactly, another seed keeps other rows (issue 10); a storage
    given a seed keeps it whatever the explainer's."""
    from ixplain import GeometricReservoir, UniformReservoir

    m, X, y = issue10_setup

    def run(seed, storage):
        e = IncrementalPFI(m, "squared_error", alpha=0.01, storage=storage, random_state=seed)
        e.explain_many(X[:1500], y[:1500])
        return e

    for make in (lambda: UniformReservoir(50), lambda: GeometricReservoir(50, p=0.3)):
        a, b, c = run(0, make()), run(0, make()), run(1, make())
        np.testing.assert_array_equal(a.importances_, b.importances_)
        np.testing.assert_array_equal(a.storage._num, b.storage._num)
        assert not np.array_equal(a.storage._num, c.storage._num)
    own = [run(s, UniformReservoir(50, random_state=9)).storage._num for s in (0, 1)]
    np.testing.assert_array_equal(own[0], own[1])


def test_explain_many_bad_batches_name_the_problem():
    """An empty list and a scalar label for a batch get errors that say so (not an IndexError
    or a message about feature names), and the explainer stays usable."""
    e = IncrementalPFI(lambda R: np.array([r["a"] for r in R]), "squared_error", random_state=0)
    rows = [{"a": 1.0, "b": 2.0}, {"a": 3.0, "b": 4.0}]
    with pytest.raises(ValueError, match="empty batch"):
        e.explain_many([], [])
    with pytest.raises(ValueError, match="one label per observation"):
        e.explain_many(rows, 1.0)
    e.explain_many(rows, [1.0, 3.0])
    assert e.n_seen_ == 2 and e.n_explained_ == 1


def test_labels_of_another_type_than_the_classes_are_refused_by_zero_one():
    """y given as 0/1 to a classifier fitted on "no"/"yes": no label can ever be predicted
    (0-1 importances were all 0); the explainer refuses the labels before any model call
    (as log_loss does), naming the first one, and takes nothing of the call.
    A class of the classes' type that the model has not seen (a stream may start with one)
    is no error: it counts wrong."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    labels = np.where(X[:, 0] > 0, "yes", "no")
    model = LogisticRegression().fit(X, labels)
    e = IncrementalPFI(model, "zero_one", random_state=0)
    for part in (slice(0, 100), slice(100, 200)):
        with pytest.raises(ValueError, match=r"batch row 0 \(stream row 0\) is [01] \(int\), "
                                             r"which cannot be one of the model's classes "
                                             r"\['no', 'yes'\] \(str\)"):
            e.explain_many(X[part], (X[part, 0] > 0).astype(int))
    assert e.n_seen_ == 0 and len(e.storage) == 0 and e._model.n_calls == 0
    new_class = np.where(labels == "no", "maybe", labels)  # the model never predicts "maybe"
    unseen = IncrementalPFI(model, "zero_one", random_state=0)
    unseen.explain_many(X, new_class)
    assert unseen.n_explained_ == 199
    ok = IncrementalPFI(model, "zero_one", random_state=0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok.explain_many(X, labels)
    assert ok.importances_[0] > 0
