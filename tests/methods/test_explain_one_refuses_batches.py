"""``explain_one`` is for one observation. A DataFrame or 2-D array of several rows is refused
with "<Explainer>.explain_one expects one observation; got 5 rows (use explain_many).", and
nothing of the call is taken. A list of dict records was not: the loss-based explainers raised a
raw ``TypeError: unhashable type: 'list'`` (iPFI, iSAGE, Shapley interactions), iALE an
``IndexError`` with a label list, and iPDP and iALE without labels took the 5 rows as if
``explain_many`` had been called. A list of records must get the same refusal, naming
``explain_many``."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import ixplain

RECORDS = [{"a": float(i), "b": float(i % 3)} for i in range(12)]
LABELS = [x["a"] + x["b"] for x in RECORDS]


def _f(x):
    return x["a"] + 2.0 * x["b"]


EXPLAINERS = {
    "IncrementalPFI": (lambda: ixplain.IncrementalPFI(_f, "squared_error", random_state=0), True),
    "IncrementalSAGE": (lambda: ixplain.IncrementalSAGE(_f, loss="squared_error",
                                                        random_state=0), True),
    "IncrementalShapleyInteractions": (lambda: ixplain.IncrementalShapleyInteractions(
        _f, loss="squared_error", random_state=0), True),
    "IncrementalPDP": (lambda: ixplain.IncrementalPDP(_f, "a", random_state=0), False),
    "IncrementalALE": (lambda: ixplain.IncrementalALE(_f, "a", random_state=0), False),
}


def _started(name):
    make, labelled = EXPLAINERS[name]
    explainer = make()
    for x, y in zip(RECORDS[:3], LABELS[:3]):
        explainer.explain_one(x, y if labelled else None)
    return explainer, labelled


def _expected(name, what):
    return re.escape(f"{name}.explain_one expects one observation; got {what} (use explain_many).")


CASES = [(name, with_y) for name in sorted(EXPLAINERS) for with_y in (True, False)
         if with_y or not EXPLAINERS[name][1]]  # (a loss-based explainer needs its labels)


@pytest.mark.parametrize(("name", "with_y"), CASES)
def test_a_list_of_records_is_refused_naming_explain_many_and_nothing_is_taken(name, with_y):
    explainer, _ = _started(name)
    seen = explainer.n_seen_
    args = (RECORDS[3:8], LABELS[3:8]) if with_y else (RECORDS[3:8],)
    with pytest.raises(ValueError, match=_expected(name, "a list of 5 records")):
        explainer.explain_one(*args)
    assert explainer.n_seen_ == seen


@pytest.mark.parametrize("name", sorted(EXPLAINERS))
@pytest.mark.parametrize("kind", ["frame", "array"])
def test_a_table_of_several_rows_is_refused_naming_explain_many(name, kind):
    explainer, labelled = _started(name)
    seen = explainer.n_seen_
    rows = pd.DataFrame(RECORDS[3:8])
    batch = rows if kind == "frame" else rows.to_numpy()
    with pytest.raises(ValueError, match=_expected(name, "5 rows")):
        explainer.explain_one(batch, LABELS[3:8] if labelled else None)
    assert explainer.n_seen_ == seen


@pytest.mark.parametrize("name", sorted(EXPLAINERS))
def test_the_same_list_goes_through_explain_many(name):
    explainer, labelled = _started(name)
    explainer.explain_many(RECORDS[3:8], LABELS[3:8] if labelled else None)
    assert explainer.n_seen_ == 8
    explainer.explain_one(RECORDS[8], LABELS[8] if labelled else None)  # one record: taken
    assert explainer.n_seen_ == 9
