"""Shapley interactions state their cost: the static estimators report progress within
seconds (not after a first batch of 512 observations), the stream explainer warns at
construction when every row is costly and refuses a row that would take minutes."""

import time
import warnings

import numpy as np
import pytest

from ixplain import shapley_interactions
from ixplain.methods import interactions
from ixplain.methods._interaction_cost import InteractionCostWarning, stream_cost
from ixplain.methods.iinteractions import IncrementalShapleyInteractions


def _names(G):
    return [f"x{i}" for i in range(G)]


def _linear(G, seed=0):
    w = np.random.default_rng(seed).normal(size=G)
    return w, (lambda Z: np.asarray(Z, dtype=float) @ w)


def test_thirty_features_warn_at_construction_with_the_model_rows_per_row():
    _, f = _linear(30)
    # before: silent, then 1.3-2.6 s for every row
    with pytest.warns(InteractionCostWarning, match=r"30 players.*11,161 model rows.*465 "
                                                    r"terms on 1,395 coalitions"):
        IncrementalShapleyInteractions(f, loss="squared_error", feature_names=_names(30))


def test_ten_features_are_silent():
    _, f = _linear(10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = IncrementalShapleyInteractions(f, loss="squared_error", feature_names=_names(10))
    assert stream_cost(e._plan, e.n_samples_) == (1321, 165 * 56.0**2)


def test_without_feature_names_the_first_row_warns():
    w, f = _linear(30)
    e = IncrementalShapleyInteractions(f, loss="squared_error", random_state=0)
    x = np.random.default_rng(1).normal(size=(1, 30))
    with pytest.warns(InteractionCostWarning, match="11,161 model rows"):
        e.explain_many(x, x @ w)


@pytest.mark.parametrize("kw, match", [
    (dict(order=3), r"108,601 model rows and a least-squares fit of 4,525 terms.*2\.8e\+11 "
                    r"operations.*use order=2"),
    (dict(method="exact", n_samples=8), r"268,435,449 model rows"),
])
def test_a_row_of_minutes_is_refused_with_its_size(kw, match):
    _, f = _linear(30 if "order" in kw else 25)
    G = 30 if "order" in kw else 25
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        IncrementalShapleyInteractions(f, loss="squared_error", feature_names=_names(G), **kw)
    assert time.perf_counter() - t0 < 5


def test_the_static_estimator_reports_progress_within_a_batch(monkeypatch):
    G = 12
    w, f = _linear(G)

    def slow(Z):
        time.sleep(0.02 * len(Z) / 467)  # a slow model: 20 ms an observation's 467 rows
        return f(Z)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, G))
    y = X @ w
    kw = dict(loss="squared_error", n_samples=2, n_permutations=40, batch_size=40,
              convergence_threshold=None, random_state=0)
    monkeypatch.setattr(interactions, "REPORT_SECONDS", 0.1)
    seen, start = [], time.perf_counter()
    with_progress = shapley_interactions(
        slow, X, y, progress=lambda p: seen.append((time.perf_counter() - start, p)), **kw)
    # before: one report, after the whole batch of 40 observations
    assert len(seen) >= 3
    assert seen[0][1].done < 40 and seen[0][1].convergence_ratio is None
    assert [p.done for _, p in seen] == sorted({p.done for _, p in seen})
    assert seen[-1][1].done == 40 and seen[-1][1].convergence_ratio > 0
    plain = shapley_interactions(slow, X, y, **kw)
    np.testing.assert_array_equal(with_progress.pair_values, plain.pair_values)
    np.testing.assert_array_equal(with_progress.main_values, plain.main_values)
