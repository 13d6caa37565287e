"""``compare(methods=("interactions",))``: the change of the pairwise Shapley interaction index
(SII) of the loss game, per pair, with common random numbers and Holm across the pairs.

Closed form. Inputs ``x0 .. x3`` independent standard normal, label
``y = x0 x1 + x2 x3 + 0.5 e``, squared error, marginal removal. A model ``f = sum_k x_{P_k}``
of products over pairs ``P_k`` has ``g_S(x) = E[f(x_S, X_-S)] = sum_k 1[P_k in S] x_{P_k}``
(a removed factor has mean 0), so the global game ``v(S) = E[y^2] - E[(y - g_S)^2] =
2 E[y g_S] - E[g_S^2]`` is ``sum_k 1[P_k in S] (2 E[y x_{P_k}] - 1)`` (the cross terms
``E[x_{P_k} x_{P_l}]`` vanish for ``k != l``): a sum of unanimity games on pairs, whose SII
puts the coefficient on that pair and 0 on every other pair. Model a, ``x0 x1 + x2 x3``:
``I_01 = 1``, ``I_23 = 1``. Model b, ``x0 x2 + x2 x3``: ``I_02 = 2 * 0 - 1 = -1``,
``I_23 = 1``. Change ``b - a``: ``x0 x x1`` -1, ``x0 x x2`` -1, every other pair 0 (``x2 x x3``
unchanged but nonzero on both sides; ``x0 x x3`` gets half of model b's per-row three-player
term ``-2 x0 x2^2 x3``, of mean 0).
"""

from __future__ import annotations

import numpy as np
import pytest

from ixplain import compare, shapley_interactions

PAIRS = ["x0 x x1", "x0 x x2", "x0 x x3", "x1 x x2", "x1 x x3", "x2 x x3"]
TRUTH = np.array([-1.0, -1.0, 0.0, 0.0, 0.0, 0.0])


def model_a(A: np.ndarray) -> np.ndarray:
    return A[:, 0] * A[:, 1] + A[:, 2] * A[:, 3]


def model_b(A: np.ndarray) -> np.ndarray:
    return A[:, 0] * A[:, 2] + A[:, 2] * A[:, 3]


def draw(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    X = rng.normal(size=(n, 4))
    return X, model_a(X) + 0.5 * rng.normal(size=n)


def test_the_moved_pairs_are_found_and_the_intervals_cover_the_closed_form():
    rng = np.random.default_rng(1)
    found, hits = [], []
    for trial in range(10):  # 40 trials: found 1.0, 1.0 (others <= 0.025), coverage >= 0.925
        X, y = draw(800, rng)
        res = compare(model_a, X, y, model_b=model_b, methods=("interactions",),
                      random_state=trial).importance["interactions"]
        assert res.features == PAIRS
        found.append(res.significant)
        hits.append((res.lower <= TRUTH) & (TRUTH <= res.upper))
    rate = np.mean(found, axis=0)
    assert rate[0] == 1.0 and rate[1] == 1.0
    assert rate[5] <= 0.1  # x2 x x3: unchanged, nonzero on both sides
    assert np.max(rate[2:]) <= 0.2
    assert np.mean(hits) >= 0.85


def test_paired_intervals_are_narrower_than_two_independent_runs():
    """Equal model rows: side b on fresh rows with its own draws (Welch) vs common random
    numbers on one sample. The pair both models share (``x2 x x3``) cancels row by row only
    when paired: 1.85x to 3.5x narrower over these 8 seeds (median ~2.4x). A pair present on
    one side only (``x0 x x1``) gains nothing, and pairs whose per-row terms are negatively
    correlated across the models (``x0 x x3``) can be wider paired; the total width shrinks."""
    rng = np.random.default_rng(2)
    shared, total = [], []
    for trial in range(8):
        X, y = draw(400, rng)
        X2, y2 = draw(400, rng)
        paired = compare(model_a, X, y, model_b=model_b, methods=("interactions",),
                         random_state=trial).importance["interactions"]
        indep = compare(model_a, X, y, model_b=model_b, X_b=X2, y_b=y2,
                        methods=("interactions",), random_state=trial).importance["interactions"]
        assert paired.design == "paired" and indep.design == "independent"
        width_p, width_i = paired.upper - paired.lower, indep.upper - indep.lower
        shared.append(width_i[5] / width_p[5])
        total.append(width_i.sum() / width_p.sum())
    assert min(shared) >= 1.7 and np.median(shared) >= 2.0
    assert min(total) > 1.0


def test_side_values_are_the_static_shapley_interactions():
    """The per-row machinery is shapley_interactions' (exact, SII pairs, same seed): each
    side's mean is its pair_values."""
    X, y = draw(150, np.random.default_rng(3))
    res = compare(model_a, X, y, model_b=model_b, methods=("interactions",),
                  random_state=7).importance["interactions"]
    for f, got in ((model_a, res.a), (model_b, res.b)):
        ref = shapley_interactions(f, X, y, loss="squared_error", index="SII",
                                   method="exact", random_state=7).pair_values
        np.testing.assert_allclose(got, ref[np.triu_indices(4, 1)], rtol=1e-9, atol=1e-12)


def test_pairs_are_capped_to_the_features_of_largest_main_effect():
    """Seven columns, three of them unused by both models: 5 features kept, 10 pairs, none
    of an unused column beyond the two needed to fill the five."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 7))
    y = model_a(X) + 0.5 * rng.normal(size=200)
    full = compare(model_a, X, y, model_b=model_b, methods=("interactions",), random_state=0)
    res = full.importance["interactions"]
    assert len(res.features) == 10
    kept = {f for p in res.features for f in p.split(" x ")}
    assert {"x0", "x1", "x2", "x3"} <= kept and len(kept) == 5
    assert res.significant[res.features.index("x0 x x1")]
    left = sorted({f"x{i}" for i in range(7)} - kept)
    assert any(f"left out: {left}" in note for note in full.notes)


def test_pair_rows_appear_in_to_frame_next_to_pfi():
    X, y = draw(200, np.random.default_rng(5))
    frame = compare(model_a, X, y, model_b=model_b, methods=("pfi", "interactions"),
                    random_state=0).to_frame()
    rows = frame[frame["method"] == "interactions"]
    assert rows["feature"].tolist() == PAIRS
    assert frame[frame["method"] == "pfi"]["feature"].tolist() == ["x0", "x1", "x2", "x3"]
    assert rows[["lower", "upper", "p_adjusted"]].notna().all().all()


def test_one_feature_has_no_pairs():
    X, y = draw(50, np.random.default_rng(6))
    with pytest.raises(ValueError, match="at least 2 features"):
        compare(model_a, X, y, model_b=model_b, methods=("interactions",), features=["x0"])


def test_a_group_is_one_player_of_the_pairs():
    """``x1`` and ``x2`` as one player: model a's ``x0 x1`` (+1) and model b's ``x0 x2`` (-1)
    both land on the pair ``x0 x x1+x2``, a change of -2; the shared ``x2 x3`` stays on
    ``x1+x2 x x3``."""
    X, y = draw(800, np.random.default_rng(7))
    res = compare(model_a, X, y, model_b=model_b, methods=("interactions",),
                  features=["x0", ["x1", "x2"], "x3"], random_state=0).importance["interactions"]
    assert res.features == ["x0 x x1+x2", "x0 x x3", "x1+x2 x x3"]
    assert res.lower[0] <= -2.0 <= res.upper[0]
    np.testing.assert_array_equal(res.significant, [True, False, False])
