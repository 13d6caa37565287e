"""An infinite feature or label value in a stream is skipped as NaN is (nan_policy='skip'), bit
for bit, and named under nan_policy='raise'."""

import numpy as np
import pytest

pytest.importorskip("sklearn")


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
