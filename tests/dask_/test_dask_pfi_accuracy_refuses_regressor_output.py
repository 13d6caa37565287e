"""Dask permutation_importance with scoring='accuracy' raises scikit-learn's ValueError for a
regressor's continuous predictions or a continuous target, as the single-machine function and
scikit-learn do (it used to score them as a 0-1 loss)."""

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("sklearn")
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402
from sklearn.metrics import accuracy_score  # noqa: E402

from ixplain.dask import permutation_importance  # noqa: E402

rng = np.random.default_rng(0)
X = rng.normal(size=(300, 3))
COLS = ["a", "b", "c"]


def _frame(y):
    df = pd.DataFrame(X, columns=COLS)
    df["y"] = y
    return df


def _sklearn_message(y_true, y_pred):
    with pytest.raises(ValueError) as info:
        accuracy_score(y_true, y_pred)
    return str(info.value)


@pytest.mark.parametrize("y", [np.round(X @ [1.0, 2.0, 3.0]), X @ [1.0, 2.0, 3.0]],
                         ids=["integer_y", "continuous_y"])
def test_accuracy_of_a_regressor_raises_sklearns_error(y):
    df = _frame(y)
    model = LinearRegression().fit(df[COLS], df.y)
    expected = _sklearn_message(df.y, model.predict(df[COLS]))
    with pytest.raises(ValueError) as info:
        permutation_importance(model, dd.from_pandas(df, npartitions=3), "y",
                               scoring="accuracy", random_state=0)
    assert expected in str(info.value)


def test_accuracy_of_a_classifier_still_scores():
    df = _frame((X[:, 0] > 0).astype(int))
    model = LogisticRegression().fit(df[COLS], df.y)
    r = permutation_importance(model, dd.from_pandas(df, npartitions=3), "y",
                               scoring="accuracy", random_state=0)
    assert r.importances_mean[0] > 0.2 and abs(r.importances_mean[2]) < 0.05
