"""Where IncrementalALE counts a row whose feature value is NaN or infinite, as documented on
``n_missing_``: skipped (``n_skipped_``) under the default ``nan_policy='skip'``, in no bin
(``n_missing_``) under ``'pass'``. (The docstring said infinite values went to ``n_missing_``
under any policy.)"""

import warnings

import numpy as np
import pytest

from ixplain import IncrementalALE


def _run(policy):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 2))

    def f(Z):
        Z = np.asarray(Z, dtype=float)
        return Z[:, 0] ** 2 + Z[:, 1]

    e = IncrementalALE(f, "x0", random_state=0, nan_policy=policy)
    e.explain_many(X[:500])
    batch = X[500:].copy()
    batch[:3, 0] = np.inf
    batch[3, 0] = -np.inf
    batch[4:6, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.explain_many(batch)
    return e


@pytest.mark.parametrize("policy, missing, skipped", [("skip", 0, 6), ("pass", 6, 0)])
def test_nonfinite_feature_values_are_counted_where_the_docs_say(policy, missing, skipped):
    e = _run(policy)
    assert (e.n_missing_, e.n_skipped_) == (missing, skipped)
    assert np.isfinite(e.ale_.average).all()
