"""A loss that overflows float64: ixplain's own warning (streams) or error (static functions)
alone, its count covering the call, and no "y" where the labels may be the model's own.

numpy's ``RuntimeWarning: overflow encountered in square`` / ``invalid value encountered in
subtract`` came next to ixplain's message, several times per call, pointing at ixplain's
lines; the stream warning said "99 explanation(s) were not finite" for a call that skipped
399 rows (the count of its first part of ``max_batch`` rows); with a ``label_free`` drift
detector it quoted the model's own prediction as "y".
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import ixplain as ix

N = 400


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 2))
    return X, 1e200 * X[:, 0]


def huge(A):
    """``1e200 * x0``: the squared error of any perturbed copy overflows."""
    return 1e200 * np.asarray(A)[:, 0]


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return caught


def _numpy_warnings(caught):
    return [str(w.message) for w in caught
            if "encountered in" in str(w.message)]  # numpy's "overflow encountered in ..."


STREAM = {
    "pfi": lambda: ix.IncrementalPFI(huge, "squared_error", random_state=0, max_batch=100),
    "sage": lambda: ix.IncrementalSAGE(huge, loss="squared_error", random_state=0,
                                       max_batch=100),
}


@pytest.mark.parametrize("method", list(STREAM))
def test_a_stream_call_gives_one_warning_whose_count_is_the_calls(method):
    """400 rows in parts of 100: one warning, no numpy warning; its count is the rows the
    call skipped (``n_skipped_``: every row but the first, which is only stored), not the
    first part's 99."""
    X, y = _data()
    e = STREAM[method]()
    caught = _caught(lambda: e.explain_many(X, y))
    assert _numpy_warnings(caught) == []
    ours = [str(w.message) for w in caught]
    assert len(ours) == 1 and e.n_skipped_ == N - 1
    assert ours[0].startswith(f"{type(e).__name__}: {N - 1} of {N} observation(s) of this call "
                              "skipped (explanations that were not finite, first at stream row 1")
    assert caught[0].filename == __file__


def test_explain_one_warns_alone_and_the_models_own_warnings_still_show():
    """One row: ixplain's warning, no numpy warning of its loss; a model whose own arithmetic
    overflows (``exp(1000 x)``) still gets numpy's warning, at its own line."""
    X, y = _data()
    e = STREAM["pfi"]()
    e.explain_one(X[0], y[0])
    caught = _caught(lambda: e.explain_one(X[1], y[1]))
    assert _numpy_warnings(caught) == [] and len(caught) == 1
    assert str(caught[0].message).startswith("IncrementalPFI: 1 of 1 observation(s) skipped")

    def overflowing(A):
        A = np.asarray(A)
        np.exp(1000.0 * np.abs(A[:, 0]) + 1000.0)  # (overflows; the output does not use it)
        return A[:, 0]

    for call in (lambda: ix.IncrementalPFI(overflowing, "squared_error", random_state=0)
                 .explain_many(X[:20], X[:20, 0]),
                 lambda: ix.permutation_importance(overflowing, X, X[:, 0],
                                                   loss="squared_error", random_state=0)):
        caught = _caught(call)
        assert caught and all(w.filename == __file__ for w in caught)
        assert all("overflow encountered in exp" in str(w.message) for w in caught)


def test_static_functions_refuse_without_numpy_warnings():
    """permutation_importance and sage raise their own error for the overflowed loss; numpy's
    warnings of the loss arithmetic (9 for permutation_importance) are gone."""
    X, y = _data()
    for call in (lambda: ix.permutation_importance(huge, X, y, loss="squared_error",
                                                   random_state=0),
                 lambda: ix.sage(huge, X[:50], y[:50], loss="squared_error",
                                 background=X[:20], random_state=0, n_jobs=2)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(ValueError, match="is not finite"):
                call()
        assert _numpy_warnings(caught) == []


def test_a_call_that_skips_for_two_reasons_counts_both():
    """NaN inputs in one part and non-finite explanations in another: one warning, both
    reasons, and the count is n_skipped_ of the call."""
    X, y = _data()
    X = X.copy()
    X[150:160, 1] = np.nan
    e = STREAM["pfi"]()
    caught = _caught(lambda: e.explain_many(X, y))
    assert len(caught) == 1
    msg = str(caught[0].message)
    assert msg.startswith(f"IncrementalPFI: {e.n_skipped_} of {N} observation(s) of this call")
    assert "explanations that were not finite" in msg
    assert "NaN or infinite values (first in feature 'x1')" in msg
    assert e.n_skipped_ == N - 1


def test_a_label_free_detector_does_not_call_the_models_label_y():
    """With ``label_free`` the rows' labels are the model's own predictions: the text says
    "label", not "y"."""
    X, _ = _data()
    e = STREAM["pfi"]()
    detector = ix.ExplanationDriftDetector(e, label_free=True, random_state=0)
    caught = _caught(lambda: detector.update_many(X))
    assert _numpy_warnings(caught) == []
    msg = str(caught[0].message)
    assert re.search(r"first at stream row 1 with label -?\d", msg), msg  # (a prediction)
    assert "y =" not in msg and "|y|" not in msg and "rescale the labels and" in msg
    assert caught[0].filename == __file__
