"""QA of the incremental explainers on messy stream input (labels)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ixplain import IncrementalPFI, IncrementalSAGE


def _model(x):
    return 2.0 * x["a"] + x["b"]


class _Linear:  # a River-style regressor
    def learn_one(self, x, y):
        pass

    def predict_one(self, x):
        return _model(x)


def _warm(cls):
    e = cls(_Linear(), loss="squared_error", random_state=0)
    rng = np.random.default_rng(0)
    for v in rng.normal(size=(30, 2)):
        x = {"a": float(v[0]), "b": float(v[1])}
        e.explain_one(x, _model(x))
    return e


@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSAGE])
def test_a_nan_label_is_skipped_and_the_warning_names_the_label(cls):
    e = _warm(cls)
    before = e.importances_.copy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e.explain_one({"a": 1.0, "b": 2.0}, float("nan"))
    np.testing.assert_array_equal(e.importances_, before)
    assert e.n_skipped_ == 1
    messages = [str(w.message) for w in caught]
    assert any("label y" in m for m in messages), messages
    assert not any("does the model return NaN" in m for m in messages), messages


@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSAGE])
def test_a_text_label_with_a_regression_loss_names_the_label(cls):
    e = _warm(cls)
    with pytest.raises(ValueError, match=r"label.*'abc'"):
        e.explain_one({"a": 1.0, "b": 2.0}, "abc")
