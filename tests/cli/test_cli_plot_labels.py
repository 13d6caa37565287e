"""Axis labels say what each importance measures."""

from ixplain.cli._plots import importance_label


def test_pfi_is_a_loss_increase_and_sage_a_share_of_the_loss_reduction():
    assert importance_label("pfi", "log_loss") == "log_loss increase"
    assert importance_label("sage", "brier") == "SAGE value (brier reduction)"
    assert importance_label("sage", None) == "importance"
