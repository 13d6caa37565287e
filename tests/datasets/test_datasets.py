"""Bundled datasets (provenance, shapes, stream order) and the Agrawal streams' ground truth."""

from __future__ import annotations

import gzip
import hashlib
import re
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from ixplain import datasets

DATA = resources.files("ixplain.datasets").joinpath("data")


def test_bundled_files_match_the_recorded_checksums():
    readme = DATA.joinpath("README.md").read_text()
    recorded = dict(
        (name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", readme, re.M)
    )
    files = {
        "bike_sharing.csv.gz": "bike.csv",
        "adult.csv.gz": "adult_census.csv",
        "california_housing.csv.gz": "california_housing.csv",
        "rainfall.csv.gz": "rainfall_data.csv",
    }
    for bundled, original in files.items():
        raw = gzip.decompress(DATA.joinpath(bundled).read_bytes())
        assert hashlib.sha256(raw).hexdigest() == recorded[original], bundled


@pytest.mark.parametrize("name", ["bike", "rainfall", "adult", "california"])
def test_real_loaders_match_the_registry(name):
    info = datasets.DATASETS[name]
    frame = datasets.load_dataset(name)
    assert frame.shape == (info.n_rows, info.n_features + 1)
    assert frame.columns[-1] == info.target
    missing = {"adult": ["native-country", "occupation", "workclass"]}.get(name, [])
    assert sorted(frame.columns[frame.isna().any()]) == missing  # documented missing values
    y = frame[info.target]
    if info.task == "binary":
        assert sorted(y.unique().tolist()) == [0, 1]
    else:
        assert pd.api.types.is_numeric_dtype(y)
    assert info.source and info.license


def test_bike_is_in_time_order_and_streams_in_that_order():
    frame = datasets.load_bike_sharing()
    t = frame["year"] * 10_000 + frame["month"] * 100
    assert (np.diff(t.to_numpy()) >= 0).all()
    assert frame.loc[8645, "year"] == 2012 and frame.loc[8644, "year"] == 2011
    rows = list(datasets.iter_bike_sharing(n_rows=50))
    assert len(rows) == 50
    x, y = rows[7]
    assert x == {k: frame.loc[7, k] for k in frame.columns[:-1]} and y == frame.loc[7, "count"]
    assert isinstance(x["season"], str) and isinstance(x["temp"], float)


def test_rainfall_drift_is_documented_and_visible():
    frame = datasets.load_rainfall()
    assert datasets.DATASETS["rainfall"].drift_points == (12000,)
    before, after = frame["rain"][:12000].mean(), frame["rain"][12000:].mean()
    assert before == pytest.approx(0.294, abs=0.001) and after == pytest.approx(0.353, abs=0.001)
    X, y = datasets.load_rainfall(return_X_y=True)
    assert X.shape == (18159, 8) and y.name == "rain"


def test_adult_missing_categories_are_missing_values():
    frame = datasets.load_adult()
    # missing values are missing (NaN), as the data README says, not the UCI files' "?"
    assert frame["workclass"].isna().sum() == 2799
    assert frame["occupation"].isna().sum() == 2809
    assert frame["native-country"].isna().sum() == 857
    assert not (frame.select_dtypes(exclude="number") == "?").any().any()
    assert frame["class"].sum() == 11687


def test_list_datasets_table():
    table = datasets.list_datasets()
    assert {"bike", "rainfall", "adult", "california", "agrawal", "agrawal-drift"} <= set(
        table.index
    )
    assert table.loc["agrawal-drift", "drift_points"] == "10000"
    with pytest.raises(ValueError, match="Unknown dataset 'nope'. Known datasets: "):
        datasets.load_dataset("nope")


# ---------------------------------------------------------------------- Agrawal ground truth
def rule_1(age, salary):
    """River's classification_function=1 (Agrawal's function 2)."""
    return np.where(
        age < 40,
        (50_000 <= salary) & (salary <= 100_000),
        np.where(age < 60, (75_000 <= salary) & (salary <= 125_000),
                 (25_000 <= salary) & (salary <= 75_000)),
    ).astype(int)


def rule_2(age, elevel):
    """River's classification_function=2 (Agrawal's function 3)."""
    return np.where(
        age < 40, np.isin(elevel, [0, 1]),
        np.where(age < 60, np.isin(elevel, [1, 2, 3]), np.isin(elevel, [2, 3, 4])),
    ).astype(int)


def test_agrawal_labels_follow_the_documented_rules():
    pytest.importorskip("river")
    f1 = datasets.load_agrawal(n_rows=3000, classification_function=1, seed=5)
    assert (f1["y"] == rule_1(f1["age"], f1["salary"])).all()
    f2 = datasets.load_agrawal(n_rows=3000, classification_function=2, seed=5)
    assert (f2["y"] == rule_2(f2["age"], f2["elevel"])).all()
    drift = datasets.load_agrawal_drift(n_rows=12_000, seed=1)
    early, late = drift.iloc[:9000], drift.iloc[11_000:]
    assert (early["y"] == rule_1(early["age"], early["salary"])).all()
    assert (late["y"] == rule_2(late["age"], late["elevel"])).all()
    # the two sides come from different seeds: the rows are not a replay
    assert not np.allclose(drift["salary"].iloc[:1000], drift["salary"].iloc[11_000:12_000])


def test_agrawal_docstring_pfi_values():
    """Monte Carlo check of the PFI values quoted in the docstrings (true rule, 0-1 loss).

    PFI_j = P(rule(x) != rule(x with x_j from an independent row)); with n = 20,000 rows and
    one permutation the standard error is below sqrt(0.25 / n) = 0.0035, so 0.015 is more than
    four standard errors.
    """
    pytest.importorskip("river")
    from ixplain import permutation_importance

    def model_1(X):
        return rule_1(X["age"].to_numpy(), X["salary"].to_numpy())

    def model_2(X):
        return rule_2(X["age"].to_numpy(), X["elevel"].to_numpy())

    for fn, model, expected in [
        (1, model_1, {"salary": 80 / 169, "age": 16600 / 48373, "loan": 0.0}),
        (2, model_2, {"elevel": 12 / 25, "age": 1656 / 3721, "salary": 0.0}),
    ]:
        frame = datasets.load_agrawal(n_rows=20_000, classification_function=fn, seed=11)
        X, y = frame.drop(columns="y"), frame["y"].to_numpy()
        r = permutation_importance(model, X, y, loss="zero_one", n_repeats=1, random_state=0)
        got = dict(zip(r.feature_names, r.importances_mean))
        for name, value in expected.items():
            assert got[name] == pytest.approx(value, abs=0.015), (fn, name)
