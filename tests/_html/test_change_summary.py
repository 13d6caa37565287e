"""ChangeExplanation._repr_html_: per method the changes b - a ordered by |b - a| with their
values and change intervals (as to_frame() has them), significant rows marked, curve changes
with their simultaneous intervals, notes; every name escaped, no script, small."""

from __future__ import annotations

import numpy as np
import pandas as pd
from _parse import parse

from ixplain import compare
from ixplain._html._blocks import num
from ixplain.change import ChangeExplanation

rng = np.random.default_rng(0)
X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "<b>&", "c"])


def old(d):
    return 2 * d["a"].to_numpy() + d["<b>&"].to_numpy()


def new(d):
    return 2 * d["a"].to_numpy() + d["c"].to_numpy()


def test_rows_follow_abs_change_with_values_and_intervals():
    r = compare(old, X, model_b=new, label_free=True, methods=("pfi", "pd"), random_state=0)
    page = r._repr_html_()
    doc = parse(page)
    imp = r.importance["pfi"]
    order = np.argsort(-np.abs(imp.delta), kind="stable")
    table = doc.tables[0]
    assert table[0][:4] == ["feature", "", "b - a", "95 % change interval"]
    names = [imp.features[i] + (" *" if imp.significant[i] else "") for i in order]
    assert doc.column(0) == names
    assert "<b>& *" in names  # it lost its role: a significant change
    assert doc.column(0, 2) == [num(imp.delta[i]) for i in order]
    assert doc.column(0, 3) == [f"[{num(imp.lower[i])}, {num(imp.upper[i])}]" for i in order]
    curves = doc.tables[1]
    assert curves[0][:3] == ["curve", "", "max |b - a|"] and len(curves) == 4
    assert "&lt;b&gt;&amp;" in page and "<b>&" not in page
    assert "<script" not in page and len(page) < 20_000


def test_notes_are_shown_escaped_and_an_empty_result_says_so():
    r = ChangeExplanation(notes=["ALE of '<x>' skipped"])
    page = r._repr_html_()
    assert "Note: ALE of &#x27;&lt;x&gt;&#x27; skipped" in page
    assert "ChangeExplanation" in page
    assert "Nothing was computed." in ChangeExplanation()._repr_html_()
