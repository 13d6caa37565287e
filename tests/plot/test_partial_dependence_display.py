"""PartialDependenceDisplay: artists match the computed values."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from ixplain import PartialDependenceDisplay, partial_dependence


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "z": rng.uniform(size=n),
            "color": rng.choice(["red", "green", "blue"], size=n),
        }
    )


def model(df):
    bonus = df["color"].map({"red": 3.0, "green": 1.0, "blue": 2.0}).to_numpy()
    return df["x"].to_numpy() ** 2 + df["z"].to_numpy() + bonus


def test_one_panel_per_feature_with_pd_ice_and_rug(frame):
    disp = PartialDependenceDisplay.from_estimator(
        model, frame, ["x", "color", ("x", "z")], kind=["both", "both", "average"],
        grid_resolution=8,
        subsample=10, random_state=0,
    )
    assert disp.axes_.shape == (1, 3) and len(disp.results) == 3
    res = disp.results[0]
    line = disp.lines_[0, 0, -1]
    assert np.allclose(line.get_xdata(), res.grid_values[0])
    assert np.allclose(line.get_ydata(), res.average[0])
    assert len(disp.ice_lines_[0, 0]) == 10  # thinned
    assert list(disp.lines_[0, 0, :10]) == disp.ice_lines_[0, 0]
    drawn = {tuple(np.round(ln.get_ydata(), 12)) for ln in disp.ice_lines_[0, 0]}
    all_ice = {tuple(np.round(r, 12)) for r in res.individual[0]}
    assert drawn <= all_ice
    segs = disp.deciles_vlines_[0, 0].get_segments()
    assert np.allclose([s[0][0] for s in segs], res.deciles[0])
    # categorical panel: bars, ordered by PD value
    heights = [b.get_height() for b in disp.bars_[0, 1]]
    assert heights == sorted(heights, reverse=True)
    assert disp.lines_[0, 1, -1] is None and disp.bars_[0, 0] is None
    # 2-way panel: filled contours (first feature on x) with the rugs of both features
    assert disp.contours_[0, 2] is not None and disp.colorbars_[0, 2] is None
    assert disp.axes_[0, 2].get_xlabel() == "x" and disp.axes_[0, 2].get_ylabel() == "z"


def test_ice_thinning_is_seeded(frame):
    res = partial_dependence(model, frame, "x", kind="individual", grid_resolution=5)
    a = PartialDependenceDisplay.from_result(res, subsample=7, random_state=3)
    b = PartialDependenceDisplay.from_result(res, subsample=7, random_state=3)
    ya = [tuple(ln.get_ydata()) for ln in a.ice_lines_[0, 0]]
    yb = [tuple(ln.get_ydata()) for ln in b.ice_lines_[0, 0]]
    assert ya == yb and len(ya) == 7 and a.lines_.shape == (1, 1, 7)
    allc = PartialDependenceDisplay.from_result(res, subsample=None)
    assert len(allc.ice_lines_[0, 0]) == len(frame)


def test_centred_ice_starts_at_zero(frame):
    disp = PartialDependenceDisplay.from_estimator(
        model, frame, ["z"], kind="both", centered=True, grid_resolution=6, subsample=None
    )
    starts = [ln.get_ydata()[0] for ln in disp.ice_lines_[0, 0]]
    assert np.allclose(starts, 0) and disp.lines_[0, 0, -1].get_ydata()[0] == 0
    # the values are centred when drawn: the result keeps the model's level
    assert disp.results[0].average[0, 0] != 0


def test_heatmap_for_categorical_pair_and_given_axes(frame):
    fig, axes = plt.subplots(1, 2)
    res = [
        partial_dependence(model, frame, ["color", "x"], grid_resolution=4),
        partial_dependence(model, frame, ["x"], grid_resolution=4),
    ]
    disp = PartialDependenceDisplay.from_result(res, ax=axes)
    assert disp.figure_ is fig and disp.axes_[0] is axes[0] and disp.bounding_ax_ is None
    image = disp.heatmaps_[0]
    assert disp.contours_[0] is None
    # first feature (color) on x, second (x) on y: the image's rows follow x
    assert np.allclose(image.get_array(), res[0].average[0].T)
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["blue", "green", "red"]


def test_multiclass_output_selection_and_layout():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    clf = LogisticRegression().fit(X, y)
    disp = PartialDependenceDisplay.from_estimator(clf, X, [0, 1, 2, 3], target="b",
                                                   grid_resolution=5, n_cols=2)
    assert disp.axes_.shape == (2, 2)
    res = partial_dependence(clf, X, [0], grid_resolution=5)
    d2 = PartialDependenceDisplay.from_result(res, output=2)
    assert np.allclose(d2.lines_[0, 0].get_ydata(), res.average[2])
    assert d2.target_idx == 2 and disp.target_idx == 1


def test_bad_arguments(frame):
    res = partial_dependence(model, frame, "x", grid_resolution=4)
    with pytest.raises(ValueError, match="'target_idx' parameter"):
        PartialDependenceDisplay.from_result(res, output=3)
    with pytest.raises(TypeError, match="'pd_results' parameter"):
        PartialDependenceDisplay([])
    with pytest.raises(ValueError, match="'subsample' parameter"):
        PartialDependenceDisplay(res, subsample=0)
    with pytest.raises(ValueError, match="'ax' parameter"):
        _, axes = plt.subplots(1, 3)
        PartialDependenceDisplay.from_result(res, ax=axes)
    with pytest.raises(ValueError, match="'features' parameter"):
        PartialDependenceDisplay.from_estimator(model, frame, [("x", "z", "color")])
