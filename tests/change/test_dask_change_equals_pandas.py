"""compare_dask equals compare() on the gathered frames for the same seed (PFI deltas with
their intervals and Holm decisions, PD/ALE curve changes), for any partitioning."""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge

from ixplain.change import compare

dd = pytest.importorskip("dask.dataframe")

from ixplain.change._dask import compare_dask  # noqa: E402


def _frames(seed, n, shift=0.0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    X["c"] += shift
    y = 2 * X["a"] + X["b"] ** 2 + 0.3 * rng.normal(size=n)
    return X, y


def _same(res_d, res_p, methods):
    imp_d, imp_p = res_d.importance["pfi"], res_p.importance["pfi"]
    for key in ("a", "b", "delta", "lower", "upper", "p_adjusted"):
        np.testing.assert_allclose(getattr(imp_d, key), getattr(imp_p, key), rtol=1e-9,
                                   atol=1e-12)
    np.testing.assert_array_equal(imp_d.significant, imp_p.significant)
    assert res_d.ranking["pfi"].ndcg == pytest.approx(res_p.ranking["pfi"].ndcg)
    for m in methods:
        for f, c in res_p.curves[m].items():
            d = res_d.curves[m][f]
            np.testing.assert_allclose(d.grid, c.grid)
            for key in ("delta", "lower", "upper", "a", "b"):
                np.testing.assert_allclose(getattr(d, key), getattr(c, key), rtol=1e-9,
                                           atol=1e-10)
            assert d.p_value == pytest.approx(c.p_value, abs=0.02)


@pytest.mark.parametrize("npartitions", [1, 3])
def test_two_models_paired_equals_pandas(npartitions):
    X, y = _frames(0, 240)
    a = Ridge().fit(X, y)
    b = HistGradientBoostingRegressor(max_iter=30, random_state=0).fit(X, y)
    frame = X.assign(y=y)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    res_d = compare_dask(a, ddf, "y", model_b=b, methods=("pfi", "pd", "ale"),
                         n_repeats=2, random_state=5)
    res_p = compare(a, X, y.to_numpy(), model_b=b, methods=("pfi", "pd", "ale"),
                    n_repeats=2, random_state=5)
    _same(res_d, res_p, ("pd", "ale"))
    assert res_d.importance["pfi"].design == "paired"


def test_two_datasets_label_free_equals_pandas():
    Xa, _ = _frames(1, 200)
    Xb, _ = _frames(2, 160, shift=1.0)
    m = Ridge().fit(Xa, 2 * Xa["a"] + Xa["c"])
    res_d = compare_dask(m, dd.from_pandas(Xa, npartitions=2),
                         ddf_b=dd.from_pandas(Xb, npartitions=3), label_free=True,
                         methods=("pfi", "pd"), n_repeats=2, random_state=1)
    res_p = compare(m, Xa, X_b=Xb, label_free=True, methods=("pfi", "pd"), n_repeats=2,
                    random_state=1)
    _same(res_d, res_p, ("pd",))
    assert res_d.importance["pfi"].design == "independent"


def test_refusals_name_the_problem():
    X, y = _frames(0, 50)
    ddf = dd.from_pandas(X.assign(y=y), npartitions=2)
    m = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="do not run on Dask here"):
        compare_dask(m, ddf, "y", model_b=m, methods=("sage",))
    with pytest.raises(ValueError, match="y \\(the label column\\) is required"):
        compare_dask(m, ddf, model_b=m)
    with pytest.raises(TypeError, match="'ddf' parameter"):
        compare_dask(m, X, "y", model_b=m)
