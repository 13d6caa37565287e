"""curve_changes: PD/ALE deltas of linear models against their closed forms, band coverage
against the known population truth, the sup-t test's level on A/A data."""

import numpy as np
import pandas as pd
import pytest

from ixplain.change._curves import curve_changes, curve_statistics

BA = np.array([2.0, 1.0, 0.0])
BB = np.array([2.5, 0.0, 1.0])
CA, CB = 0.5, -1.0


def lin(beta, c):
    return lambda A: np.asarray(A, dtype=float) @ beta + c


def test_paired_pd_delta_equals_the_closed_form():
    X = np.random.default_rng(1).normal(loc=[0.0, 1.0, -2.0], size=(300, 3))
    out = curve_changes(lin(BA, CA), X, lin(BB, CB), random_state=0)
    d, m = BB - BA, X.mean(axis=0)
    for j, name in enumerate(["x0", "x1", "x2"]):
        ch = out[name]
        rest = sum(d[k] * m[k] for k in range(3) if k != j)
        np.testing.assert_allclose(ch.delta, d[j] * ch.grid + rest + CB - CA, atol=1e-10)
        np.testing.assert_allclose(ch.b - ch.a, ch.delta, atol=1e-12)
        assert ch.paired and ch.n_a == ch.n_b == 300
    # the per-row differences vary with the other features only: se = sd(sum_k!=j d_k x_k)/sqrt(n)
    sd = np.std(X[:, 1] * d[1] + X[:, 2] * d[2], ddof=1) / np.sqrt(300)
    np.testing.assert_allclose(out["x0"].std_error, sd, rtol=1e-8)


def test_paired_ale_delta_is_the_slope_change_centred_on_the_rows():
    X = np.random.default_rng(2).uniform(-1, 1, size=(400, 3))
    out = curve_changes(lin(BA, CA), X, lin(BB, CB), method="ale", grid_resolution=8,
                        random_state=0)
    for j, name in enumerate(["x0", "x1", "x2"]):
        ch = out[name]
        z = ch.grid
        np.testing.assert_allclose(ch.delta - ch.delta[0], (BB - BA)[j] * (z - z[0]), atol=1e-10)
        # centred as Apley's ALEPlot: bin-count-weighted mean of the bin midpoint values is 0
        k = np.clip(np.searchsorted(z, X[:, j], side="left") - 1, 0, None)  # [z0,z1], (z1,z2]..
        counts = np.bincount(k, minlength=len(z) - 1)
        mids = (ch.delta[:-1] + ch.delta[1:]) / 2
        assert abs(np.sum(counts * mids) / counts.sum()) < 1e-10
        assert np.all(ch.std_error < 1e-8)  # a linear change is the same on every row


def test_two_datasets_one_linear_model():
    rng = np.random.default_rng(3)
    Xa = rng.normal(size=(500, 3))
    Xb = rng.normal(size=(400, 3)) + [1.0, 0.0, 0.0]
    pd_out = curve_changes(lin(BA, CA), Xa, X_b=Xb, random_state=0)
    shift = Xb.mean(axis=0) - Xa.mean(axis=0)
    for j, name in enumerate(["x0", "x1", "x2"]):
        expect = sum(BA[k] * shift[k] for k in range(3) if k != j)
        np.testing.assert_allclose(pd_out[name].delta, expect, atol=1e-10)
        assert not pd_out[name].paired and (pd_out[name].n_a, pd_out[name].n_b) == (500, 400)
    ale_out = curve_changes(lin(BA, CA), Xa, X_b=Xb, method="ale", random_state=0)
    for ch in ale_out.values():  # same local effects, centred alike: no change
        np.testing.assert_allclose(ch.delta, 0.0, atol=1e-10)
        assert ch.p_value > 0.5


def test_paired_pd_band_covers_the_population_delta_at_its_level():
    """Truth: E over x of the ICE difference = d_0 v + d_1 E[x1] + d_2 E[x2] + (CB - CA)."""
    d = BB - BA
    grid = np.array([-1.0, 0.0, 1.0])
    truth = d[0] * grid + CB - CA  # E[x1] = E[x2] = 0
    hits, simult = [], []
    for seed in range(150):
        X = np.random.default_rng(100 + seed).normal(size=(80, 3))
        ch = curve_changes(lin(BA, CA), X, lin(BB, CB), features="x0", n_simulations=500,
                           custom_values={"x0": grid}, random_state=seed)["x0"]
        hits.append((ch.lower <= truth) & (truth <= ch.upper))
        true_max = np.max(np.abs(truth))
        simult.append(ch.max_abs_lower <= true_max <= ch.max_abs_upper)
    rate = np.mean(hits, axis=0)
    assert np.all(rate > 0.89) and np.all(rate < 0.995), rate
    assert np.mean(simult) >= 0.9


def test_sup_t_test_holds_its_level_on_a_a_datasets():
    """Two samples of one distribution, a nonlinear model: p < 0.05 in about 5 % of trials."""
    f = lambda A: np.sin(2 * A[:, 0]) + A[:, 1] ** 2  # noqa: E731
    p = []
    for seed in range(80):
        rng = np.random.default_rng(seed)
        Xa, Xb = rng.normal(size=(150, 2)), rng.normal(size=(150, 2))
        ch = curve_changes(f, Xa, X_b=Xb, features="x0", grid_resolution=8,
                           n_simulations=500, random_state=seed)["x0"]
        p.append(ch.p_value)
    assert np.mean(np.array(p) < 0.05) <= 0.125


def test_sup_t_test_finds_a_moved_curve():
    f = lambda A: np.sin(2 * np.asarray(A)[:, 0])  # noqa: E731
    g = lambda A: np.sin(2 * np.asarray(A)[:, 0]) + 0.3 * np.asarray(A)[:, 0]  # noqa: E731
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(200, 2)), columns=["u", "v"])
    out = curve_changes(f, X, g, random_state=0)
    assert out["u"].p_value < 0.01 and out["u"].max_abs_lower > 0
    # v's PD moves by 0.3 * mean(u) (its rows' u): within noise of a zero-mean u
    np.testing.assert_allclose(out["v"].delta, 0.3 * X["u"].mean(), atol=1e-12)
    assert out["v"].p_value > 0.05


def test_curve_statistics_simultaneous_band_is_wider_than_pointwise():
    cov = np.eye(10) * 0.04
    out = curve_statistics(np.zeros(10), cov, 0.95, np.random.default_rng(0), 20_000)
    assert out["critical_value"] > 1.96 + 0.5  # 10 independent points: ~2.8
    np.testing.assert_allclose(out["critical_value"], 2.80, atol=0.05)
    np.testing.assert_allclose(out["std_error"], 0.2)


def test_classifier_probabilities_are_compared():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)
    a = LogisticRegression().fit(X, y)
    b = LogisticRegression(C=0.01).fit(X, y)
    ch = curve_changes(a, X, b, features=0, random_state=0)["x0"]
    assert np.all((ch.a >= 0) & (ch.a <= 1)) and ch.p_value < 0.01


@pytest.mark.parametrize("kwargs, match", [
    ({}, "give model_b"),
    ({"model_b": lin(BA, 0), "method": "shap"}, "'method' parameter of curve_changes"),
    ({"model_b": lin(BA, 0), "confidence": 1.5}, "'confidence' parameter"),
    ({"model_b": lin(BA, 0), "features": ["nope"]}, "unknown feature 'nope'"),
])
def test_bad_arguments_are_named(kwargs, match):
    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises(ValueError, match=match):
        curve_changes(lin(BA, 0), X, **kwargs)


def test_column_mismatch_and_categorical_ale_are_refused():
    a = pd.DataFrame({"p": np.arange(30.0), "q": np.arange(30.0) % 3})
    b = pd.DataFrame({"p": np.arange(30.0), "r": np.arange(30.0)})
    f = lambda D: np.asarray(D, dtype=float)[:, 0]  # noqa: E731
    with pytest.raises(ValueError, match=r"only in X_a \['q'\], only in X_b \['r'\]"):
        curve_changes(f, a, X_b=b)
    c = pd.DataFrame({"p": np.arange(30.0), "k": list("xyz") * 10})
    g = lambda D: D["p"].to_numpy()  # noqa: E731
    with pytest.raises(ValueError, match="'k' is categorical"):
        curve_changes(g, c, g, features=["k"], method="ale")
    out = curve_changes(g, c, lambda D: D["p"].to_numpy() + (D["k"] == "y"), features="k",
                        random_state=0)["k"]
    np.testing.assert_allclose(out.delta, [0.0, 1.0, 0.0])
    assert list(out.grid) == ["x", "y", "z"]
