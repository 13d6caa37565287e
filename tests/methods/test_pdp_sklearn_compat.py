"""partial_dependence behaves as scikit-learn's where a scikit-learn user relies on it.

Exception classes (caught by ``except NotFittedError`` / ``except ValueError``), refusals before
any model call, n-way PD, the custom_values key rule, array-protocol inputs. Values are pinned
against brute force written out here.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.compose import make_column_transformer
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ixplain import partial_dependence, permutation_importance


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = X[:, 0] * X[:, 1] + X[:, 2] - X[:, 3]
    return X, y


class ArrayLike:
    """Converts to an array through ``__array__`` only; numpy's function protocol is refused."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)

    def __array_function__(self, func, types, args, kwargs):
        raise TypeError(f"{func.__name__} must not be called on this object")


@pytest.mark.parametrize("pipeline", [False, True])
def test_unfitted_estimator_raises_sklearns_not_fitted_error(data, pipeline):
    X, _ = data
    est = LogisticRegression()
    if pipeline:
        est = make_pipeline(make_column_transformer((StandardScaler(), [0, 1])), est)
    with pytest.raises(NotFittedError, match="is not fitted"):
        partial_dependence(est, X, [0])
    with pytest.raises(ValueError):  # NotFittedError is a ValueError, as in scikit-learn
        partial_dependence(est, X, [0])


def test_unfitted_estimator_gives_not_fitted_error_in_permutation_importance_too(data):
    X, y = data
    for est in (LinearRegression(), make_pipeline(StandardScaler(), LinearRegression())):
        with pytest.raises(NotFittedError, match="permutation_importance: .* is not fitted"):
            permutation_importance(est, X, y)


def test_clusterer_is_refused_with_the_reason(data):
    X, _ = data
    with pytest.raises(ValueError, match="'estimator' parameter.*regressor or classifier.*KMeans"):
        partial_dependence(KMeans(n_clusters=2, n_init=1, random_state=0).fit(X), X, [0])


def test_multiclass_multioutput_refused_before_any_model_call(data):
    X, _ = data
    calls = []

    class Counting(RandomForestClassifier):
        def predict_proba(self, X):
            calls.append(len(X))
            return super().predict_proba(X)

    y3 = (np.digitize(X[:, 0], [-0.5, 0.5])).astype(int)
    clf = Counting(n_estimators=3, random_state=0).fit(X, np.column_stack([y3, y3]))
    with pytest.raises(ValueError, match="Multiclass-multioutput estimators are not supported"):
        partial_dependence(clf, X, [0])
    assert calls == []


def test_regressor_refuses_a_classifier_response_method(data):
    X, y = data
    with pytest.raises(ValueError, match="'response_method' parameter.*regressor"):
        partial_dependence(LinearRegression().fit(X, y), X, [0], response_method="predict_proba")


@pytest.mark.parametrize("features", [[0, 1, 2], [3, 0, 2, 1]])
def test_n_way_pd_equals_brute_force_on_the_grid_product(data, features):
    X, y = data
    model = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    res = partial_dependence(model, X, features, grid_resolution=3, kind="both")
    shape = tuple(len(g) for g in res.grid_values)
    assert res.average.shape == (1, *shape) and res.individual.shape == (1, len(X), *shape)
    expected = np.empty(shape)
    for point in itertools.product(*[range(n) for n in shape]):
        Xp = X.copy()
        for f, g, i in zip(features, res.grid_values, point):
            Xp[:, f] = g[i]
        expected[point] = model.predict(Xp).mean()
    np.testing.assert_allclose(res.average[0], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.individual[0].mean(axis=0), expected, rtol=0, atol=1e-12)


def test_exact_tree_method_is_one_or_two_way_auto_falls_back_to_brute(data):
    X, y = data
    model = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="method='tree' cannot be used here.*1- and 2-way"):
        partial_dependence(model, X, [0, 1, 2], method="tree", grid_resolution=3)
    assert partial_dependence(model, X, [0, 1, 2], grid_resolution=3).method == "brute"


def test_int_custom_values_key_with_features_by_name_is_ignored_with_a_warning():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    model = LinearRegression().fit(df, df["a"] + 2 * df["b"])
    plain = partial_dependence(model, df, ["a", "b"], grid_resolution=5)
    with pytest.warns(UserWarning, match="custom_values key 1 is ignored"):
        res = partial_dependence(model, df, ["a", "b"], grid_resolution=5,
                                 custom_values={1: [0.0, 1.0]})
    np.testing.assert_array_equal(res.average, plain.average)
    by_name = partial_dependence(model, df, ["a", "b"], grid_resolution=5,
                                 custom_values={"b": [0.0, 1.0]})
    assert by_name.average.shape == (1, 5, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an int key with features by index is used, silently
        by_index = partial_dependence(model, df, [0, 1], grid_resolution=5,
                                      custom_values={1: [0.0, 1.0]})
    np.testing.assert_array_equal(by_index.average, by_name.average)


def test_sample_weight_messages_and_equal_weights(data):
    X, y = data
    model = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match=r"'sample_weight' parameter.*sample_weight\.shape == "
                                         r"\(3,\), expected \(60,\)"):
        partial_dependence(model, X, [0], sample_weight=np.ones(3))
    plain = partial_dependence(model, X, [0], method="brute")
    weighted = partial_dependence(model, X, [0], method="brute", sample_weight=np.full(60, 2.5))
    np.testing.assert_array_equal(weighted.average, plain.average)  # bit for bit
    gbr = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="only applies when 'kind' is set to 'average'"):
        partial_dependence(gbr, X, [0], method="recursion", kind="individual")
    with pytest.raises(ValueError, match="can only be applied when sample_weight is None"):
        partial_dependence(gbr, X, [0], method="recursion", sample_weight=np.ones(60))


def test_array_protocol_inputs_give_the_values_of_the_array(data):
    X, y = data
    yc = (y > 0).astype(int)
    clf = LogisticRegression().fit(X, yc)
    got = permutation_importance(clf, ArrayLike(X), ArrayLike(yc), n_repeats=3, random_state=0)
    ref = permutation_importance(clf, X, yc, n_repeats=3, random_state=0)
    np.testing.assert_array_equal(got.importances, ref.importances)
    np.testing.assert_array_equal(partial_dependence(clf, ArrayLike(X), [1]).average,
                                  partial_dependence(clf, X, [1]).average)
