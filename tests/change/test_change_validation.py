"""compare's input errors: each names the parameter, the columns or the lengths involved."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ixplain import compare


def _f(A):
    return np.asarray(A, dtype=float)[:, 0]


def _g(A):
    return np.asarray(A, dtype=float)[:, 1]


X = np.random.default_rng(0).normal(size=(20, 3))
y = X[:, 0]


def test_neither_model_b_nor_x_b_is_refused():
    with pytest.raises(ValueError, match="give model_b .* X_b .*got neither"):
        compare(_f, X, y)


def test_mismatched_columns_are_named():
    a = pd.DataFrame(X, columns=["u", "v", "w"])
    b = pd.DataFrame(X, columns=["u", "v", "z"])
    with pytest.raises(ValueError, match=r"only in X_a: \['w'\]; only in X_b: \['z'\]"):
        compare(lambda d: d["u"].to_numpy(), a, y, X_b=b, y_b=y)


def test_columns_in_another_order_are_aligned():
    a = pd.DataFrame(X, columns=["u", "v", "w"])
    res = compare(lambda d: d["u"].to_numpy(), a, y, X_b=a[["w", "u", "v"]], y_b=y,
                  random_state=0)
    assert res.importance["pfi"].features == ["u", "v", "w"]
    np.testing.assert_allclose(res.importance["pfi"].a, res.importance["pfi"].b)


def test_array_with_other_width_is_refused():
    with pytest.raises(ValueError, match="X_a has 3 columns .* X_b has 2"):
        compare(_f, X, y, X_b=X[:, :2], y_b=y)


def test_missing_labels_without_label_free_are_refused():
    with pytest.raises(ValueError, match="y_a is None.*label_free=True"):
        compare(_f, X, model_b=_g)
    with pytest.raises(ValueError, match="y_b is None.*label_free=True"):
        compare(_f, X, y, X_b=X[:10])


def test_label_length_mismatch_is_refused():
    with pytest.raises(ValueError, match="X_a has 20 rows but y_a has shape \\(19,\\)"):
        compare(_f, X, y[:-1], model_b=_g)
    with pytest.raises(ValueError, match="X_b has 10 rows but y_b has shape \\(20,\\)"):
        compare(_f, X, y, X_b=X[:10], y_b=y)


def test_y_b_without_x_b_is_refused():
    with pytest.raises(ValueError, match="y_b was given without X_b"):
        compare(_f, X, y, model_b=_g, y_b=y)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("methods", ("pfi", "nope"), "'methods' parameter of compare"),
    ("methods", (), "'methods' parameter of compare"),
    ("confidence", 1.0, "'confidence' parameter of compare"),
    ("family_level", 0.0, "'family_level' parameter of compare"),
    ("min_change", -1.0, "'min_change' parameter of compare"),
    ("top_k", 0, "'top_k' parameter of compare"),
    ("n_repeats", 0, "'n_repeats' parameter of compare"),
    ("n_bootstrap", 2, "'n_bootstrap' parameter of compare"),
    ("features", ["x0", "nope"], "not columns of X_a"),
    ("features", ["x0", "x0"], "'features' parameter of compare"),
])
def test_bad_parameter_values_are_named(name, value, message):
    with pytest.raises((ValueError, TypeError), match=message):
        compare(_f, X, y, model_b=_g, **{name: value})


def test_loss_with_label_free_is_refused():
    with pytest.raises(ValueError, match="'loss' parameter of compare"):
        compare(_f, X, model_b=_g, label_free=True, loss="absolute_error")


def test_label_free_bool_is_checked():
    with pytest.raises(TypeError, match="'label_free' parameter of compare"):
        compare(_f, X, model_b=_g, label_free="yes")


def test_shift_needs_two_datasets():
    with pytest.raises(ValueError, match="give X_b"):
        compare(_f, X, y, model_b=_g, methods=("shift",))
