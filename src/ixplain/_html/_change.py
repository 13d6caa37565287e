"""The notebook summary of a :class:`~ixplain.change.ChangeExplanation`, read by attribute.

Per importance method: one sentence (how many features changed significantly, family-wise)
and the ranking of the changes ``b - a`` by ``|b - a|`` as bars with their change intervals as
whiskers and numbers; the curve changes as one ranking of each curve's largest ``|b - a|`` with
its simultaneous interval; the explanation-shift test and the notes as sentences; the design
and sizes in the muted line.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._blocks import Row, card, esc, num, ranking, sentence, settings_line

_TITLES = {"pfi": "permutation importance", "sage": "SAGE"}


def _pct(value: Any) -> str:
    try:
        return f"{float(value) * 100:g} %"
    except (TypeError, ValueError):
        return "95 %"


def _importance_parts(method: str, ch: Any) -> list[str]:
    names = [str(f) for f in ch.features]
    delta = np.asarray(ch.delta, dtype=np.float64)
    lower, upper = np.asarray(ch.lower, dtype=np.float64), np.asarray(ch.upper, dtype=np.float64)
    sig = np.asarray(ch.significant, dtype=bool)
    found = [n for n, s in zip(names, sig) if s]
    level = _pct(getattr(ch, "level", 0.05))
    head = (f"{_TITLES.get(method, method)}: {len(found)} of {len(names)} feature(s) changed "
            f"significantly (family-wise {level}, {getattr(ch, 'procedure', 'holm')})"
            + (f": {', '.join(found[:8])}{', ...' if len(found) > 8 else ''}." if found
               else "."))
    order = sorted(range(len(names)),
                   key=lambda i: -abs(delta[i]) if math.isfinite(delta[i]) else math.inf)
    rows = [Row(names[i] + (" *" if sig[i] else ""), float(delta[i]), float(lower[i]),
                float(upper[i])) for i in order]
    bound = f"{_pct(getattr(ch, 'confidence', 0.95))} change interval"
    return [sentence(head), ranking(rows, bound=bound, order=False, value="b - a",
                                    where="to_frame()")]


def _curve_list(curves: Any) -> list[Any]:
    found: list[Any] = []
    for value in (curves or {}).values():
        items = value.values() if isinstance(value, dict) else [value]
        found += [c for c in items if hasattr(c, "max_abs_delta")]
    return sorted(found, key=lambda c: -float(c.max_abs_delta)
                  if math.isfinite(float(c.max_abs_delta)) else math.inf)


def _curve_parts(curves: list[Any]) -> list[str]:
    if not curves:
        return []
    rows = [Row(f"{c.feature} ({str(c.method).upper()})", float(c.max_abs_delta),
                float(c.max_abs_lower), float(c.max_abs_upper),
                note=f"{num(c.max_abs_delta)} (p = {num(c.p_value)})") for c in curves]
    return [sentence("Curve changes (largest |b - a| over the grid, simultaneous interval; "
                     "see .curves):"),
            ranking(rows, bound="interval", order=False, value="max |b - a|", label="curve",
                    where=".curves")]


def change_html(r: Any) -> str:
    """Summary of a :class:`~ixplain.change.ChangeExplanation` (see the module docstring).

    Parameters
    ----------
    r : ChangeExplanation

    Returns
    -------
    str
        An HTML fragment; every feature name and note escaped.
    """
    settings = dict(getattr(r, "settings", None) or {})
    parts: list[str] = []
    for method, ch in (getattr(r, "importance", None) or {}).items():
        parts += _importance_parts(str(method), ch)
    parts += _curve_parts(_curve_list(getattr(r, "curves", None)))
    shift = getattr(r, "shift", None)
    if shift is not None:
        parts.append(sentence(f"Explanation-shift test: held-out AUC {num(shift.auc)}, "
                              f"p = {num(shift.p_value)}."))
    parts += [sentence(f"Note: {n}") for n in getattr(r, "notes", None) or []]
    if not parts:
        parts.append(sentence("Nothing was computed."))
    keys = ("design", "loss", "n_a", "n_b", "random_state")
    meta = settings_line({k: settings[k] for k in keys if k in settings},
                         "* significant" if getattr(r, "importance", None) else "")
    return card(esc("ChangeExplanation (b - a)"), parts, meta)
