"""Input checks of :class:`~ixplain.PartialDependenceDisplay` (features, kind, subsample, target).

Messages follow ixplain's format and also carry scikit-learn's wording for the same refusal, so
code written against :class:`sklearn.inspection.PartialDependenceDisplay` that matches on it
keeps working.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._validation import param_error

__all__ = [
    "KINDS",
    "check_kind",
    "check_subsample",
    "column_names",
    "panel_features",
    "panel_kinds",
    "refuse_before_drawing",
    "require_target",
]

KINDS = ("average", "individual", "both")


def check_subsample(subsample: Any, owner: str) -> int | float | None:
    """``None``, an int >= 1 or a float in (0, 1]; returned as int / float.

    Raises
    ------
    ValueError, TypeError
        For a value out of range / of another type.
    """
    rule = "None, an int >= 1 or a float in (0, 1]"
    if subsample is None:
        return None
    if isinstance(subsample, numbers.Integral) and not isinstance(subsample, bool):
        if int(subsample) < 1:
            raise param_error(owner, "subsample",
                              f"{rule} (When an integer, subsample={subsample} should be "
                              "positive.)", subsample)
        return int(subsample)
    if isinstance(subsample, numbers.Real) and not isinstance(subsample, bool):
        if not 0 < float(subsample) <= 1:
            raise param_error(owner, "subsample",
                              f"{rule} (When a floating-point, subsample={subsample} should be "
                              "in the (0, 1) range.)", subsample)
        return float(subsample)
    raise param_error(owner, "subsample", rule, subsample, exc=TypeError)


def column_names(X: Any, feature_names: Any, owner: str) -> list[str]:
    """The names of the columns of ``X`` (``feature_names`` when given, checked for duplicates)."""
    if feature_names is not None:
        names = [str(n) for n in (feature_names.tolist() if hasattr(feature_names, "tolist")
                                  else list(feature_names))]
        if len(set(names)) != len(names):
            raise param_error(owner, "feature_names",
                              "a sequence of distinct names (feature_names should not contain "
                              "duplicates)", feature_names)
        return names
    from ..tabular import as_table

    return list(as_table(X, owner=owner).names)


def _entry_error(owner: str, features: Any) -> ValueError:
    return ValueError(
        f"The 'features' parameter of {owner} must be a list whose entries are a feature or a "
        "pair of features. Each entry in features must be either an int, a string, or an "
        f"iterable of size at most 2. Got {features!r:.200} instead."
    )


def _one(item: Any, names: list[str], owner: str) -> int:
    if isinstance(item, str):
        if item not in names:
            raise ValueError(
                f"The 'features' parameter of {owner} names an unknown feature {item!r}: "
                f"Feature {item!r} not in feature_names {names}."
            )
        return names.index(item)
    if isinstance(item, numbers.Integral) and not isinstance(item, (bool, np.bool_)):
        if not 0 <= int(item) < len(names):
            raise ValueError(
                f"The 'features' parameter of {owner} must hold column indices in "
                f"[0, {len(names) - 1}]: All entries of features must be less than "
                f"len(feature_names) = {len(names)}, got {item}."
            )
        return int(item)
    raise _entry_error(owner, item)


def panel_features(features: Any, names: list[str], owner: str) -> list[tuple[int, ...]]:
    """``features`` -> one tuple of 1 or 2 column indices per panel."""
    if isinstance(features, (str, numbers.Integral)):
        features = [features]
    entries: list[tuple[int, ...]] = []
    for item in features:
        if isinstance(item, (str, numbers.Integral)) and not isinstance(item, bool):
            entries.append((_one(item, names, owner),))
        elif isinstance(item, (tuple, list, np.ndarray)) and 1 <= len(item) <= 2:
            entries.append(tuple(_one(f, names, owner) for f in item))
        else:
            raise _entry_error(owner, item)
    if not entries:
        raise param_error(owner, "features", "a non-empty list of features", features)
    return entries


def check_kind(kind: Any, n_panels: int, owner: str) -> list[str]:
    """``kind`` as one entry per panel.

    Raises
    ------
    ValueError
        For an unknown kind or a list whose length is not the number of panels.
    """
    if isinstance(kind, str):
        kinds = [kind] * n_panels
    else:
        kinds = list(kind)
        if len(kinds) != n_panels:
            raise ValueError(
                f"The 'kind' parameter of {owner} must be one kind or one per panel. "
                "When `kind` is provided as a list of strings, it should contain as many "
                f"elements as `features`. `kind` contains {len(kinds)} element(s) and "
                f"`features` contains {n_panels} element(s)."
            )
    for k in kinds:
        if k not in KINDS:
            raise param_error(owner, "kind", f"one of {KINDS} or a list of them", kind)
    return kinds


def panel_kinds(kind: Any, entries: int, owner: str) -> list[str]:
    """The kind computed for each panel (``check_kind``)."""
    return check_kind(kind, entries, owner)


def require_target(result: Any, target: Any, target_idx: Any, estimator: Any,
                   owner: str) -> int:
    """The output index drawn; a model with several outputs needs ``target`` (which one).

    Raises
    ------
    ValueError
        ``target`` missing for several outputs, or an output index out of range.
    """
    n_out = result.n_outputs
    if target is None and n_out > 1:
        what = "multi-class classifiers" if hasattr(estimator, "classes_") else "multi-output regressors"
        raise ValueError(
            f"The 'target' parameter of {owner} must name the output to draw: the model has "
            f"{n_out} outputs. target must be specified for {what}."
        )
    if target_idx is None or n_out == 1:  # one output: nothing to select (scikit-learn)
        return 0
    if isinstance(target_idx, bool) or not isinstance(target_idx, numbers.Integral) or not (
        0 <= int(target_idx) < n_out
    ):
        raise param_error(owner, "target",
                          f"an output index in [0, {n_out - 1}] (target must be in [0, n_tasks])",
                          target_idx)
    return int(target_idx)


def refuse_before_drawing(result: Any, kind: str, owner: str) -> None:
    """ICE cannot be drawn for a 2-way panel, nor ICE alone for a categorical feature."""
    if len(result.features) == 2 and kind != "average":
        raise ValueError(
            f"The 'kind' parameter of {owner} must be 'average' for the pair "
            f"{list(result.features)}: ICE plot cannot be rendered for 2-way feature "
            "interactions. 2-way feature interactions mandates PD plots using the 'average' "
            "kind."
        )
    if len(result.features) == 1 and result.feature_kinds[0] == "categorical" and kind == "individual":
        raise ValueError(
            f"The 'kind' parameter of {owner} cannot be 'individual' for the categorical "
            f"feature {result.features[0]!r}: It is not possible to display individual effects "
            "for categorical features (its panel shows one bar per level)."
        )

