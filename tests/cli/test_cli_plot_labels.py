"""Axis labels say what each importance measures."""

from ixplain.cli._plots import importance_label


def test_pfi_is_a_loss_increase_and_sage_a_share_of_the_loss_reduction():
    assert importance_label("pfi", "log_loss") == "log_loss increase"
    assert importance_label("sage", "brier") == "SAGE value (brier reduction)"
    assert importance_label("sage", None) == "importance"


def test_static_report_titles_pfi_and_sage_with_their_losses(tmp_path, monkeypatch):
    """``ixplain explain`` is static: its bars say PFI and SAGE (not iPFI/iSAGE) and the loss."""
    import numpy as np
    import pytest

    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from ixplain.cli import _plots

    seen = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: seen.append(
        [(ax.get_title(), ax.get_xlabel()) for ax in fig.axes]))
    values = (np.array([1.0, 0.5]), np.array([0.1, 0.1]))
    _plots.plot_importance_bars(
        tmp_path / "b.png", {"pfi": values, "sage": values}, ["a", "b"],
        xlabel={"pfi": importance_label("pfi", "squared_error"),
                "sage": importance_label("sage", "squared_error")},
        title="{method} (error bar: std / standard error)", titles=_plots.STATIC_TITLES,
    )
    (pfi_title, pfi_label), (sage_title, sage_label) = seen[0][:2]
    assert pfi_title.startswith("PFI ") and sage_title.startswith("SAGE ")
    assert pfi_label == "squared_error increase"
    assert sage_label == "SAGE value (squared_error reduction)"
