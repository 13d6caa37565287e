"""DriftExplanationDisplay: the layout fits long feature names on a figure it makes, a given
axes' figure is left alone, and a model event's legend names the model's rows."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from ixplain import DriftExplanationDisplay
from ixplain.drift import DriftEvent
from ixplain.results import DriftExplanation

NAMES = ["salary", "commission", "a_very_long_feature_name_indeed"]


def _result(channel, before_rows, after_rows):
    event = DriftEvent(row=after_rows[1], start=before_rows[1], feature="salary", channel=channel,
                       test="CUSUM", before=1.0, before_low=0.9, before_high=1.1, after=0.2,
                       after_low=0.1, after_high=0.3, n_before=100, n_after=100,
                       direction="decrease", statistic=-9.0)
    k = len(NAMES)
    return DriftExplanation(NAMES, np.array([1.0, 0.1, 0.0]), np.full(k, 0.05),
                            np.array([0.2, 0.1, 0.0]), np.full(k, 0.05), event, before_rows,
                            after_rows)


def test_tick_labels_fit_in_a_plain_savefig(tmp_path):
    """QA qa13: 'commission' showed as 'mmission' in fig.savefig: every tick label lies
    inside the saved figure."""
    disp = DriftExplanationDisplay.from_result(_result("data", (1800, 3005), (3006, 3190)))
    disp.plot()
    disp.figure_.savefig(tmp_path / "event.png")  # draws with the layout engine
    renderer = disp.figure_.canvas.get_renderer()
    fig_box = disp.figure_.bbox
    for label in disp.ax_.get_yticklabels():
        box = label.get_window_extent(renderer)
        assert box.x0 >= fig_box.x0 - 0.5 and box.x1 <= fig_box.x1 + 0.5, label.get_text()


def test_a_given_axes_figure_keeps_its_layout():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    engine = fig.get_layout_engine()
    DriftExplanationDisplay.from_result(_result("data", (0, 9), (10, 19))).plot(ax=ax)
    assert fig.get_layout_engine() is engine
    plt.close(fig)


@pytest.mark.parametrize(("channel", "labels"), [
    ("model", ["model at row 2999", "model at row 6000"]),
    ("data", ["before (rows 1800-3005)", "after (rows 3006-3190)"]),
])
def test_the_legend_names_the_rows_or_the_model(channel, labels):
    rows = ((2999, 2999), (6000, 6000)) if channel == "model" else ((1800, 3005), (3006, 3190))
    disp = DriftExplanationDisplay.from_result(_result(channel, *rows)).plot()
    assert [t.get_text() for t in disp.ax_.get_legend().get_texts()] == labels
