"""Issue 15: inputs that used to give silently wrong results or raw errors."""

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.linear_model import LinearRegression, LogisticRegression

from ixplain import (
    FeatureImportanceDisplay,
    ImportanceTraceDisplay,
    IncrementalPFI,
    PartialDependenceTraceDisplay,
    partial_dependence,
    permutation_importance,
    sage,
)

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
Y01 = (X[:, 0] > 0).astype(int)
YC = X[:, 0] + rng.normal(size=200)
CLF = LogisticRegression().fit(X, Y01)


@pytest.mark.parametrize("call", [
    lambda: permutation_importance(CLF, X, YC, loss="squared_error", random_state=0),
    lambda: sage(CLF, X, YC, loss="squared_error", random_state=0),
    lambda: IncrementalPFI(CLF, "squared_error").explain_many(X, YC),
])
def test_a_classifier_against_a_continuous_target_is_refused(call):
    with pytest.raises(ValueError, match=r"labels y look continuous \(e.g. .*classes \[0, 1\]"):
        call()


def test_float_class_labels_are_still_labels():
    """0.0/1.0 labels are the classes 0/1: no error, the same result as int labels."""
    a = permutation_importance(CLF, X, Y01.astype(float), loss="log_loss", random_state=0)
    b = permutation_importance(CLF, X, Y01, loss="log_loss", random_state=0)
    np.testing.assert_array_equal(a.importances, b.importances)


@pytest.fixture(scope="module")
def results():
    pytest.importorskip("matplotlib")
    m = LinearRegression().fit(X, YC)
    ip = IncrementalPFI(m, "squared_error", random_state=0)
    ip.explain_many(X, YC)
    return ip, partial_dependence(m, X, 0), permutation_importance(m, X, YC, random_state=0)


@pytest.mark.parametrize("display, pick, fix", [
    (FeatureImportanceDisplay.from_result, 0, "FeatureImportanceDisplay.from_explainer"),
    (FeatureImportanceDisplay.from_result, 1, "PartialDependenceDisplay.from_result"),
    (FeatureImportanceDisplay.from_explainer, 2, "FeatureImportanceDisplay.from_result"),
    (ImportanceTraceDisplay.from_result, 0, "ImportanceTraceDisplay.from_explainer"),
    (ImportanceTraceDisplay.from_explainer, 2, "ImportanceTraceDisplay.from_result"),
    (PartialDependenceTraceDisplay.from_explainer, 1, "PartialDependenceDisplay.from_result"),
])
def test_display_misuse_names_the_argument_and_the_fix(results, display, pick, fix):
    with pytest.raises(TypeError, match=rf"The first argument of .* must be .* Got .*{fix}"):
        display(results[pick])
    with pytest.raises(TypeError, match="Got NoneType instead"):
        display(None)


def test_pd_refuses_grids_that_would_not_end():
    """An identifier column (n levels on n rows: n^2 model rows) and a datetime column (every
    timestamp a level) are refused before any model call, naming the feature and the fix; a
    categorical column within the limit keeps its levels."""
    import pandas as pd

    from ixplain.grids import MAX_LEVELS

    n = MAX_LEVELS + 1
    df = pd.DataFrame({"id": [f"u{i}" for i in range(n)],
                       "t": pd.date_range("2020-01-01", periods=n, freq="min"),
                       "c": [f"c{i % 7}" for i in range(n)], "x": np.arange(n, dtype=float)})
    calls = []

    def f(d):
        calls.append(len(d))
        return d["x"].to_numpy()

    with pytest.raises(ValueError, match=r"feature 'id' has 1,001 distinct levels .*custom_values"):
        partial_dependence(f, df, "id")
    with pytest.raises(ValueError, match=r"feature 't' holds dates or datetimes \(dtype datetime64"):
        partial_dependence(f, df, "t")
    assert calls == []
    assert len(partial_dependence(f, df, "c").grid_values[0]) == 7
    few = partial_dependence(f, df, "id", custom_values={"id": ["u1", "u2"]})
    assert list(few.grid_values[0]) == ["u1", "u2"]


def _nan_model(A):
    """Returns NaN for rows whose first feature is above 1.5 (a model that breaks off-data)."""
    A = np.asarray(A, dtype=np.float64)
    return np.where(A[:, 0] > 1.5, np.nan, A[:, 0] + A[:, 1])


@pytest.mark.parametrize("call", [
    lambda: permutation_importance(_nan_model, X, YC, loss="squared_error", random_state=0),
    lambda: sage(_nan_model, X, YC, loss="squared_error", random_state=0),
    lambda: partial_dependence(_nan_model, X, 0),
])
def test_nan_model_outputs_in_static_methods_are_errors_naming_the_rows(call):
    """Issue 15 item 3: these returned NaN results silently (SAGE ran to its 1,000,000
    permutation cap first); now the first NaN prediction stops them, naming the function."""
    from ixplain import ModelEvaluationError

    with pytest.raises(ModelEvaluationError, match=r"returned NaN for \d+ of \d+ rows"):
        call()


def test_sage_accepts_nan_for_a_model_that_handles_it():
    """Issue 15 item 6: SAGE refused NaN in X even for HistGradientBoosting; now NaN goes to
    the model. The values still sum to the explained loss (efficiency)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    Xn = X.copy()
    Xn[::7, 1] = np.nan
    y = 2 * X[:, 0] + X[:, 2]
    model = HistGradientBoostingRegressor(max_iter=30, random_state=0).fit(Xn, y)
    r = sage(model, Xn, y, loss="squared_error", random_state=0, n_permutations=256)
    assert np.isfinite(r.importances_mean).all()
    assert r.importances_mean.sum() == pytest.approx(r.settings["explained_loss"], rel=1e-9)
    assert r.importances_mean[0] > r.importances_mean[1]


def test_impossible_sizes_are_refused_up_front_with_the_bytes():
    """Issue 15 item 9: these allocated (or swapped) for minutes before a raw MemoryError."""
    from ixplain import GeometricReservoir, IncrementalPDP, UniformReservoir

    for storage in (UniformReservoir(10**12), GeometricReservoir(10**12)):
        with pytest.raises(MemoryError, match=r"size=1,000,000,000,000\) for 3 features would "
                                              r"need 2.*GiB \(24,000,000,000,000 bytes\), more than the .* GiB"):
            storage.update_many(X[:5])
    with pytest.raises(ValueError, match="'grid_resolution' parameter of IncrementalPDP must be "
                                         "at most 10,000"):
        IncrementalPDP(lambda A: A[:, 0], "x0", grid_resolution=10**7)
    IncrementalPDP(lambda A: A[:, 0], "x0", grid_resolution=10_000)  # the bound itself is fine


@pytest.mark.parametrize("call, owner", [
    (lambda X1: partial_dependence(lambda A: A[:, 0], X1, 0), "partial_dependence"),
    (lambda X1: permutation_importance(lambda A: A[:, 0], X1, YC, loss="squared_error"),
     "permutation_importance"),
    (lambda X1: sage(lambda A: A[:, 0], X1, YC, loss="squared_error"), "sage"),
])
def test_a_1d_x_is_refused_not_read_as_one_row(call, owner):
    """Issue 15 item 4: partial_dependence took a 1-D X as one row."""
    with pytest.raises(ValueError, match=rf"'X' parameter of {owner} must be 2-D .* shape "
                                         r"\(200,\) .*reshape\(-1, 1\)"):
        call(X[:, 0])


def test_xgboost_categorical_splits_auto_is_brute_tree_says_why():
    """Issue 15: XGBoost categorical splits are not read by the tree method; 'auto' says which
    method ran (brute, the same quantity), 'tree' refuses naming the reason."""
    xgb = pytest.importorskip("xgboost")
    import pandas as pd

    df = pd.DataFrame({"a": X[:, 0], "c": pd.Categorical(np.where(X[:, 1] > 0, "p", "n"))})
    model = xgb.XGBRegressor(n_estimators=5, enable_categorical=True, tree_method="hist")
    model.fit(df, YC)
    auto = partial_dependence(model, df, "a", grid_resolution=5)
    brute = partial_dependence(model, df, "a", grid_resolution=5, method="brute")
    assert auto.method == "brute"
    np.testing.assert_array_equal(auto.average, brute.average)
    with pytest.raises(ValueError, match="XGBoost categorical splits are not supported"):
        partial_dependence(model, df, "a", method="tree")


def test_qa_campaign_silently_wrong_inputs_now_fail_clearly():
    """The second bad-input campaign's silently wrong rows (#42, #54, #144, #145, #158, #179)."""
    import pandas as pd

    from ixplain import DatasetStorage, UniformReservoir
    from ixplain.datasets import iter_bike_sharing

    # three features: the 3-way PD over the grid product, as scikit-learn returns (it was
    # refused; tests/methods/test_pdp_sklearn_compat.py pins its values against brute force)
    three = partial_dependence(lambda A: A[:, 0], X, [0, 1, 2], grid_resolution=3)
    assert three.average.shape == (1, *(len(g) for g in three.grid_values))
    assert len(three.grid_values) == 3
    with pytest.raises(ValueError, match="give loss= or scoring=, not both"):
        permutation_importance(LinearRegression().fit(X, YC), X, YC, loss="squared_error",
                               scoring="r2")
    f = lambda A: A[:, 0] + A[:, 1]  # noqa: E731
    wide = IncrementalPFI(f, "squared_error", storage=DatasetStorage(np.ones((10, 3))))
    with pytest.raises(ValueError, match=r"holds the columns \['x0', 'x1', 'x2'\], but the "
                                         r"observations have the features \['x0', 'x1'\]"):
        wide.explain_one(np.array([1.0, 2.0]), 3.0)
    named = IncrementalPFI(lambda R: np.array([r["a"] + r["b"] for r in R]), "squared_error",
                           storage=DatasetStorage(pd.DataFrame({"p": [1.0], "q": [2.0]})))
    with pytest.raises(ValueError, match=r"holds the columns \['p', 'q'\]"):
        named.explain_one({"a": 1.0, "b": 2.0}, 3.0)
    positional = IncrementalPFI(f, "squared_error", storage=DatasetStorage(np.ones((10, 2))))
    positional.explain_one(np.array([1.0, 2.0]), 3.0)  # same columns: no error
    shared = UniformReservoir(50, random_state=0)
    first = IncrementalPFI(f, "squared_error", storage=shared)
    second = IncrementalPFI(f, "squared_error", storage=shared)
    first.explain_one(X[0, :2], 1.0)
    with pytest.raises(ValueError, match="already the storage of another explainer"):
        second.explain_one(X[0, :2], 1.0)
    for bad in (-1, 0, "a", 2.5):
        with pytest.raises(ValueError, match="'n_rows' parameter of iter_frame"):
            next(iter_bike_sharing(n_rows=bad))


def test_qa_campaign_bad_errors_now_name_the_problem():
    """QA rows #36, #53, #123, #279: raw third-party errors replaced by ixplain's."""
    from ixplain import IncrementalPDP

    with pytest.raises(ValueError, match="'method' parameter of partial_dependence .*'recursion' "
                                         "needs a fitted scikit-learn"):
        partial_dependence(lambda A: A[:, 0], X, 0, method="recursion")
    with pytest.raises(ValueError, match="'scoring' parameter of permutation_importance must be"):
        permutation_importance(LinearRegression().fit(X, YC), X, YC, scoring="nope")
    pdp = IncrementalPDP(lambda A: A[:, 0] * 0 + 1, 0, grid_resolution=5)
    with pytest.warns(RuntimeWarning, match="NaN or infinite values"):  # the row is skipped
        for i in range(50):  # an infinite value does not move the grid's range (it overflowed)
            pdp.explain_one(np.array([np.inf if i == 10 else float(i), float(i)]))
    assert np.isfinite(pdp.pd_.grid_values[0]).all() and pdp.n_skipped_ == 1
    ipfi = IncrementalPFI(lambda A: A[:, 0], "squared_error", random_state=0)
    with pytest.raises(ValueError, match=r"explain_one: y has shape \(2,\), but the loss "
                                         r"'squared_error' takes the model's 1 output"):
        for i in range(3):  # a 2-value label for a 1-output model: the caller's shape named
            ipfi.explain_one(X[i], np.array([YC[i], YC[i]]))


@pytest.mark.parametrize("where", ["feature", "label"])
@pytest.mark.parametrize("how", ["many", "one"])
def test_an_infinite_value_is_skipped_like_nan(where, how):
    """QA: one ``inf`` in X went into the perturbation storage and spoiled later rows (5 rows
    skipped, the warning blamed the model). Under ``nan_policy='skip'`` a row with +-inf is
    now what a row with NaN is: not explained, not stored, counted once; so the run equals,
    bit for bit, the run with NaN in the same cell, and differs from neither in ``n_skipped_``
    (1). ``nan_policy='raise'`` names the feature."""
    from ixplain import IncrementalPFI

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = X[:, 0] + X[:, 1]

    def f(A):
        A = np.asarray(A)
        return A[:, 0] + A[:, 1]

    def run(bad):
        Xb, yb = X.copy(), y.copy()
        if where == "feature":
            Xb[10, 0] = bad
        else:
            yb[10] = bad
        e = IncrementalPFI(f, "squared_error", alpha=0.05, random_state=0)
        with pytest.warns(RuntimeWarning, match="NaN or infinite values"):
            if how == "many":
                e.explain_many(Xb, yb)
            else:
                for i in range(len(Xb)):
                    e.explain_one(Xb[i], yb[i])
        return e

    inf, nan = run(np.inf), run(np.nan)
    assert inf.n_skipped_ == nan.n_skipped_ == 1
    assert np.array_equal(inf.importances_, nan.importances_)
    assert np.isfinite(inf.importances_).all()
    if where == "feature":
        e = IncrementalPFI(f, "squared_error", nan_policy="raise")
        Xb = X.copy()
        Xb[1, 0] = -np.inf
        with pytest.raises(ValueError, match="feature 'x0' is NaN or infinite"):
            e.explain_many(Xb, y)
