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


# ---------------------------------------------------------------- scikit-learn's Display contract
@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3)) * np.array([1.0, 3.0, 0.5])
    return X, lambda A: A[:, 0] ** 2 + 0.5 * A[:, 1] - A[:, 2]


def test_line_labels_and_short_aliases_reach_the_right_lines(regression):
    X, f = regression
    disp = PartialDependenceDisplay.from_estimator(
        f, X, [0, 1], kind="both", grid_resolution=6, subsample=4, random_state=0,
        line_kw={"c": "r", "label": "mine"}, ice_lines_kw={"ls": ":"},
    )
    for ax in disp.axes_.ravel():
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["mine"]
    pd_line, ice_line = disp.lines_[0, 0, -1], disp.lines_[0, 0, 0]
    assert pd_line.get_color() == "r" and ice_line.get_color() == "r"
    assert ice_line.get_linestyle() == ":" and pd_line.get_linestyle() == "--"
    assert ice_line.get_label().startswith("_")  # ICE lines stay out of the legend
    disp = PartialDependenceDisplay.from_estimator(
        f, X, [0], grid_resolution=6, pd_line_kw={"label": "PD", "color": "g"})
    assert disp.lines_[0, 0].get_label() == "PD" and disp.lines_[0, 0].get_color() == "g"
    individual = PartialDependenceDisplay.from_estimator(
        f, X, [0], kind="individual", grid_resolution=6, line_kw={"label": "x"})
    assert individual.axes_[0, 0].get_legend() is None


def test_artist_arrays_are_shaped_like_the_axes_grid(regression):
    X, f = regression
    avg = PartialDependenceDisplay.from_estimator(f, X, [0, 1, 2, (0, 1)], n_cols=2,
                                                  grid_resolution=5)
    assert avg.axes_.shape == avg.lines_.shape == avg.contours_.shape == (2, 2)
    assert avg.deciles_vlines_.shape == avg.deciles_hlines_.shape == avg.ice_lines_.shape
    assert avg.lines_[1, 1] is None and avg.contours_[1, 1] is not None
    assert avg.deciles_hlines_[1, 1] is not None and avg.deciles_hlines_[0, 0] is None
    both = PartialDependenceDisplay.from_estimator(f, X, [0, 1, 2], kind="both",
                                                   grid_resolution=5, subsample=7)
    assert both.lines_.shape == (1, 3, 8)  # 7 ICE lines, then the PD line
    assert all(len(both.ice_lines_[0, i]) == 7 for i in range(3))
    assert list(both.lines_[0, 2, :7]) == both.ice_lines_[0, 2]


def test_bounding_axes_and_the_users_axes():
    X = np.random.default_rng(3).normal(size=(30, 2))
    f = lambda A: A[:, 0] + A[:, 1]  # noqa: E731
    fig, ax = plt.subplots()
    disp = PartialDependenceDisplay.from_estimator(f, X, [0, 1], ax=ax, grid_resolution=4)
    assert disp.bounding_ax_ is ax and not ax.axison and disp.axes_.shape == (1, 2)
    assert disp.figure_ is fig and len(fig.get_axes()) == 3
    with pytest.raises(ValueError, match="'ax' parameter.*ax=display.axes_"):
        PartialDependenceDisplay.from_estimator(f, X, [0, 1], ax=ax, grid_resolution=4)
    again = PartialDependenceDisplay.from_estimator(f, X, [0, 1], ax=disp.axes_, grid_resolution=4)
    assert again.bounding_ax_ is None and again.axes_.shape == (1, 2)
    assert len(disp.axes_[0, 0].get_lines()) == 2  # both displays drew on the same panels
    _, pair = plt.subplots(1, 2)
    listed = PartialDependenceDisplay.from_estimator(f, X, [0, 1], ax=list(pair),
                                                     grid_resolution=4)
    assert listed.axes_.shape == listed.lines_.shape == (2,)
    with pytest.raises(ValueError, match="Expected ax to have 2 axes, got 3"):
        PartialDependenceDisplay.from_estimator(f, X, [0, 1], ax=plt.subplots(1, 3)[1])


def test_two_way_panel_puts_the_first_feature_on_x():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.uniform(0, 1, 50), rng.uniform(10, 20, 50)])
    disp = PartialDependenceDisplay.from_estimator(lambda A: A[:, 0], X, [(0, 1)],
                                                   grid_resolution=5, percentiles=(0, 1))
    ax = disp.axes_[0, 0]
    g0, g1 = disp.pd_results[0].grid_values
    np.testing.assert_allclose(ax.get_xlim(), (g0.min(), g0.max()))
    np.testing.assert_allclose(ax.get_ylim(), (g1.min(), g1.max()))
    assert ax.get_xlabel() == "x0" and ax.get_ylabel() == "x1"
    np.testing.assert_allclose(disp.deciles_vlines_[0, 0].get_segments()[0][0][0],
                               disp.deciles[0][0])


def test_users_labels_are_kept():
    X = np.random.default_rng(5).normal(size=(30, 2))
    _, axes = plt.subplots(1, 2)
    axes[0].set_xlabel("dose (mg)")
    axes[0].set_ylabel("risk")
    PartialDependenceDisplay.from_estimator(lambda A: A[:, 0], X, [0, 1], ax=axes,
                                            grid_resolution=4)
    assert axes[0].get_xlabel() == "dose (mg)" and axes[0].get_ylabel() == "risk"
    assert axes[1].get_xlabel() == "x1" and axes[1].get_ylabel() == "Partial dependence"


def test_sklearn_attributes_and_one_value_range_for_one_way_panels(regression):
    X, f = regression
    disp = PartialDependenceDisplay.from_estimator(f, X, [2, 0], kind=["both", "average"],
                                                   grid_resolution=5)
    assert disp.features == [(2,), (0,)] and list(disp.feature_names) == ["x0", "x1", "x2"]
    assert disp.kind == ["both", "average"] and disp.target_idx == 0
    assert sorted(disp.deciles) == [0, 2] and disp.pd_results is disp.results
    drawn = np.concatenate([disp.pd_results[0].individual.ravel(),
                            disp.pd_results[0].average.ravel(),
                            disp.pd_results[1].average.ravel()])
    pad = 0.05 * (drawn.max() - drawn.min())
    for ax in disp.axes_.ravel():
        np.testing.assert_allclose(ax.get_ylim(), (drawn.min() - pad, drawn.max() + pad))
    assert disp.axes_[0, 1].get_ylabel() == ""  # one label per row of the grid
    disp.kind = ["average"]
    with pytest.raises(ValueError, match="as many elements as `features`"):
        disp.plot()


def test_refusals_come_before_any_model_call():
    X = np.random.default_rng(6).normal(size=(20, 2))
    calls = []

    def f(A):
        calls.append(len(A))
        return np.column_stack([A[:, 0], A[:, 1]])

    with pytest.raises(ValueError, match="ICE plot cannot be rendered for 2-way"):
        PartialDependenceDisplay.from_estimator(f, X, [(0, 1)], kind="both")
    assert calls == []
    with pytest.raises(ValueError, match="target must be specified for multi-output"):
        PartialDependenceDisplay.from_estimator(f, X, [0], grid_resolution=4)
    second = PartialDependenceDisplay.from_estimator(f, X, [1], target=1, grid_resolution=4)
    assert second.target_idx == 1
    np.testing.assert_allclose(second.lines_[0, 0].get_ydata(),
                               second.pd_results[0].average[1])
    with pytest.raises(ValueError, match=r"target must be in \[0, n_tasks\]"):
        PartialDependenceDisplay.from_estimator(f, X, [1], target=2, grid_resolution=4)


def test_centring_happens_when_drawing(regression):
    X, f = regression
    disp = PartialDependenceDisplay.from_estimator(f, X, [0], kind="both", centered=True,
                                                   grid_resolution=5, subsample=None)
    assert all(line.get_ydata()[0] == 0 for line in disp.lines_.ravel())
    res = disp.pd_results[0]
    np.testing.assert_allclose(disp.lines_[0, 0, -1].get_ydata(),
                               res.average[0] - res.average[0, 0])
