"""Bundled real datasets and synthetic streams with known ground truth.

Real data ship inside the package (gzip CSVs, provenance in ``datasets/data/README.md``) and are
never downloaded at run time:

* :func:`load_bike_sharing` / :func:`iter_bike_sharing` -- hourly bike rentals, regression stream;
* :func:`load_rainfall` / :func:`iter_rainfall` -- daily rain, binary stream, drift from row 12,000;
* :func:`load_adult` -- census income, binary;
* :func:`load_california_housing` -- house values, regression.

Synthetic streams (River needed): :func:`iter_agrawal`, :func:`iter_agrawal_drift` and their
``load_*`` DataFrame versions, with the theoretical explanation values in their docstrings.

:data:`DATASETS` is the registry used by ``ixplain stream --dataset NAME``;
:func:`list_datasets` shows it as a table.
"""

from ._base import DATASETS, DatasetInfo, iter_frame, list_datasets, load_dataset
from ._real import (
    iter_bike_sharing,
    iter_rainfall,
    load_adult,
    load_bike_sharing,
    load_california_housing,
    load_rainfall,
)
from ._synthetic import iter_agrawal, iter_agrawal_drift, load_agrawal, load_agrawal_drift

__all__ = [
    "DATASETS",
    "DatasetInfo",
    "iter_agrawal",
    "iter_agrawal_drift",
    "iter_bike_sharing",
    "iter_frame",
    "iter_rainfall",
    "list_datasets",
    "load_adult",
    "load_agrawal",
    "load_agrawal_drift",
    "load_bike_sharing",
    "load_california_housing",
    "load_dataset",
    "load_rainfall",
]
