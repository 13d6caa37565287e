"""The static explainers refuse messy inputs with clear errors, never silently wrong numbers:
non-finite, missing or misshaped targets, string labels or outputs with a regression loss, bad
sample weights (named by index and value), ``n_jobs=0``, a feature listed twice; a one-column
target frame equals the 1-D target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression

from ixplain import permutation_importance, sage


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    y = (2 * X["a"] + X["b"]).to_numpy()
    return X, y


@pytest.fixture(scope="module")
def lin(data):
    X, y = data
    return LinearRegression().fit(X, y)


def _pfi(model, X, y, **kw):
    return permutation_importance(model, X, y, loss=kw.pop("loss", "squared_error"),
                                  n_repeats=2, random_state=0, **kw)


def _sage(model, X, y, **kw):
    return sage(model, X, y, loss=kw.pop("loss", "squared_error"), n_permutations=16,
                random_state=0, **kw)


@pytest.mark.parametrize("explain", [_pfi, _sage])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_y_is_rejected(data, lin, explain, bad):
    X, y = data
    y = y.copy()
    y[7] = bad
    with pytest.raises(ValueError, match=r"y .*(NaN|infinite).*row 7"):
        explain(lin, X, y)


@pytest.mark.parametrize("explain", [_pfi, _sage])
def test_y_none_is_a_clear_error(data, lin, explain):
    X, _ = data
    with pytest.raises(TypeError, match="'y'"):
        explain(lin, X, None)


@pytest.mark.parametrize("explain", [_pfi, _sage])
def test_y_with_wrong_shape_for_model_output(data, lin, explain):
    X, y = data
    n = len(y)  # the caller's shapes, not the rows the method evaluates
    with pytest.raises(ValueError, match=rf"y has shape \({n}, 2\), but the loss "
                                         rf"'squared_error' takes the model's 1 output per "
                                         rf"observation, so y needs shape \({n},\)"):
        explain(lin, X, np.c_[y, y])  # 2-D targets, 1-D predictions


@pytest.mark.parametrize("explain", [_pfi, _sage])
def test_string_labels_with_regression_loss(data, explain):
    X, _ = data
    labels = np.where(X["a"] > 0, "yes", "no")
    clf = LogisticRegression().fit(X, labels)
    with pytest.raises(ValueError, match=r"squared_error.*non-numeric"):
        explain(clf, X, labels)


@pytest.mark.parametrize("explain", [_pfi, _sage])
def test_model_returning_strings_with_regression_loss(data, explain):
    X, y = data
    with pytest.raises(ValueError, match=r"non-numeric"):
        explain(lambda d: np.array(["x"] * len(d)), X, y)


@pytest.mark.parametrize(
    "weights",
    [
        -np.ones(120),
        np.r_[np.nan, np.ones(119)],
        np.zeros(120),
        np.ones((120, 2)),
        ["a"] * 120,
    ],
    ids=["negative", "nan", "all-zero", "2-D", "strings"],
)
def test_pfi_bad_sample_weight_is_rejected(data, lin, weights):
    X, y = data
    with pytest.raises((ValueError, TypeError), match="'sample_weight' parameter"):
        _pfi(lin, X, y, sample_weight=weights)


@pytest.mark.parametrize("explain", [_pfi, _sage])
def test_single_column_y_frame_equals_1d_y(data, lin, explain):
    # a (n, 1) target against (n,) predictions used to broadcast to (n, n) losses silently
    X, y = data
    expected = explain(lin, X, y).importances_mean
    column = pd.DataFrame({"y": y})
    np.testing.assert_allclose(explain(lin, X, column).importances_mean, expected)


def test_n_jobs_has_one_meaning_everywhere():
    """joblib's convention in every static function: -1 is all cores, 0 is refused."""
    import ixplain

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] + X[:, 1]

    def f(A):
        return A[:, 0] + A[:, 1]

    one = ixplain.sage(f, X, y, loss="squared_error", n_permutations=64, random_state=0, n_jobs=1)
    all_ = ixplain.sage(f, X, y, loss="squared_error", n_permutations=64, random_state=0, n_jobs=-1)
    np.testing.assert_array_equal(one.importances_mean, all_.importances_mean)
    for func, args in [
        (ixplain.sage, (f, X, y)),
        (ixplain.permutation_importance, (f, X, y)),
        (ixplain.partial_dependence, (f, X, [0])),
    ]:
        kwargs = {"loss": "squared_error"} if func is not ixplain.partial_dependence else {}
        with pytest.raises(ValueError, match=r"'n_jobs' parameter .* non-zero int.*Got 0"):
            func(*args, n_jobs=0, **kwargs)


def test_a_feature_listed_twice_is_refused():
    X = np.random.default_rng(1).normal(size=(30, 2))
    with pytest.raises(ValueError, match=r"\['x0'\] appear more than once"):
        permutation_importance(lambda A: A[:, 0], X, X[:, 0], loss="squared_error",
                               features=["x0", 0])


@pytest.mark.parametrize(("weights", "found"), [
    ([1.0, 1.0, -2.0, 1.0], r"1 bad weight\(s\), the first sample_weight\[2\] = -2.0"),
    ([np.nan] * 4, r"4 bad weight\(s\), the first sample_weight\[0\] = nan"),
    ([0.0] * 4, "weights summing to 0.0"),
])
def test_bad_sample_weight_is_named_not_echoed(weights, found):
    """A bad weight is named by its index and value; the array itself is not repeated."""
    from ixplain._validation import check_sample_weight

    with pytest.raises(ValueError, match=found) as info:
        check_sample_weight(np.array(weights), 4, "accumulated_local_effects")
    assert "array(" not in str(info.value)
