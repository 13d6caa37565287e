"""A function that fails both as a per-row and as a batch function: its one-record error is shown.

``g(x) = x["a"] + 2 * x["zz"]`` is a per-row function with a bug (no key 'zz'). Called on one
record it raises KeyError('zz'); called on the list of records (the batch fallback) it raises
"list indices must be integers or slices, not str", which only used to be reported.
"""

import numpy as np
import pytest

from ixplain import IncrementalPFI
from ixplain._validation import ModelEvaluationError
from ixplain.models import as_model
from ixplain.tabular import as_table


def g(x):
    return x["a"] + 2 * x["zz"]


def test_incremental_pfi_reports_the_keyerror_of_the_one_record_call():
    e = IncrementalPFI(g, "squared_error")
    e.explain_one({"a": 1.0, "b": 2.0}, 3.0)
    with pytest.raises(ModelEvaluationError) as info:
        e.explain_one({"a": 2.0, "b": 1.0}, 3.0)
    msg = str(info.value)
    assert "raised KeyError when called on one record" in msg and "'zz'" in msg
    causes, exc = [], info.value
    while exc is not None:
        causes.append(type(exc))
        exc = exc.__cause__
    assert KeyError in causes  # the user's own exception is kept as the cause
    # the batch call's error is mentioned after it, not instead of it
    assert msg.index("KeyError") < msg.index("list indices must be integers")


def test_a_batch_function_failing_on_its_own_keeps_its_error():
    def batch(rows):
        raise RuntimeError("batch broke")

    model = as_model(batch)
    table = as_table([{"a": 1.0}, {"a": 2.0}])
    with pytest.raises(ModelEvaluationError, match="batch broke") as info:
        model.predict(table)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_a_batch_function_on_records_still_works_after_the_failed_one_record_call():
    def batch(rows):  # fails on one dict (iterates its keys), fine on a list of dicts
        return np.array([r["a"] * 2.0 for r in rows])

    model = as_model(batch)
    out = model.predict(as_table([{"a": 1.0}, {"a": 2.0}]))
    np.testing.assert_allclose(out, [2.0, 4.0])
