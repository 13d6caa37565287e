"""``progress=True`` draws its bar with ``tqdm.auto``: the widget in a notebook (with
ipywidgets), the text bar elsewhere; never ``tqdm.tqdm`` directly."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain import ProgressInfo, permutation_importance
from ixplain.methods._engine import make_progress

tqdm = pytest.importorskip("tqdm")
tqdm_auto = pytest.importorskip("tqdm.auto")


class _FakeBar:
    made: list[_FakeBar] = []

    def __init__(self, total=None, desc=None, **kwargs):
        self.total, self.desc, self.kwargs = total, desc, kwargs
        self.n, self.closed = 0, False
        _FakeBar.made.append(self)

    def update(self, k):
        self.n += k

    def set_postfix(self, **kwargs):
        self.postfix = kwargs

    def close(self):
        self.closed = True


@pytest.fixture
def fake_auto(monkeypatch):
    _FakeBar.made = []
    monkeypatch.setattr(tqdm_auto, "tqdm", _FakeBar)

    def refused(*args, **kwargs):
        raise AssertionError("tqdm.tqdm used instead of tqdm.auto.tqdm")

    monkeypatch.setattr(tqdm, "tqdm", refused)
    return _FakeBar


def test_the_bar_comes_from_tqdm_auto(fake_auto):
    report = make_progress(True, "test")
    report(ProgressInfo(40, 100, "partial_dependence"))
    report(ProgressInfo(100, 100, "partial_dependence"))
    (bar,) = fake_auto.made
    assert (bar.total, bar.desc, bar.n, bar.closed) == (100, "partial_dependence", 100, True)


def test_a_static_explanation_reports_through_tqdm_auto(fake_auto):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    permutation_importance(lambda A: A[:, 0], X, X[:, 0], loss="squared_error", n_repeats=2,
                           random_state=0, progress=True)
    assert fake_auto.made and fake_auto.made[0].n == fake_auto.made[0].total
