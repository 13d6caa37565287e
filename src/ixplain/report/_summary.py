"""The first screen's sentences: what the model relies on, how that changed and where.

Every sentence is derived from the numbers it is given and says only what they show: shares
are of the summed positive importances, a change is the value at the last snapshot at or
before a reference row against the final value, and incidents are counted against the known
change points they follow. Negative importances (PFI can be below zero), all-zero vectors, a
single feature and missing values (NaN) each get their own wording, never a wrong percentage.

Feature names are written between backticks; the text is plain (the page escapes it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["summarize_static", "summarize_stream"]

#: A change counts as a gain or a loss when the importance is multiplied or divided by this.
_CHANGE_RATIO = 1.5
#: A feature takes part in the change sentence when its importance, before or after, is at
#: least this share of the larger summed positive importance (smaller values are noise).
_MATERIAL_SHARE = 0.05
#: A negative importance is named when its size is at least this share of the positive total.
_NEGATIVE_SHARE = 0.01


def _num(value: float, scale: float | None = None) -> str:
    """A number for a sentence: thousands separated, about 3 significant digits; "about 0"
    when it is below 1/2000 of ``scale`` (the largest number it is compared with).

    >>> _num(13751.4), _num(-898.2), _num(1.23456), _num(0.000123), _num(0.0)
    ('13,751', '-898', '1.23', '0.000123', '0')
    >>> _num(-4.37e-05, scale=16.4)
    'about 0'
    """
    v = float(value)
    if scale is not None and v != 0 and abs(v) < 5e-4 * abs(scale):
        return "about 0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def _pct(share: float) -> str:
    """``0.714`` -> ``"71 %"`` (``"<1 %"`` for a positive share that rounds to 0)."""
    p = 100.0 * share
    return "<1 %" if 0 < p < 0.5 else f"{p:.0f} %"


def _ratio(r: float) -> str:
    """``2.04`` -> ``"2x"``, ``2.44`` -> ``"2.4x"``, ``13.2`` -> ``"13x"``."""
    if r >= 10:
        return f"{r:.0f}x"
    text = f"{r:.1f}".removesuffix(".0")
    return f"{text}x"


def _name(feature: str) -> str:
    return f"`{feature}`"


def _join(items: Sequence[str]) -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _vector(values: Any, n: int, what: str) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.shape != (n,):
        raise ValueError(f"The '{what}' parameter must hold one value per feature ({n}); "
                         f"got shape {np.shape(values)} instead.")
    return v


def _share_clause(names: Sequence[str], final: np.ndarray, method: str,
                  errors: np.ndarray | None = None) -> str:
    """Who carries the summed positive importance (see :func:`summarize_stream`)."""
    finite = np.isfinite(final)
    if not finite.any():
        return f"no feature has a value of {method} yet"

    def shown(j: int) -> str:
        err = "" if errors is None or not np.isfinite(errors[j]) else f" ± {_num(errors[j])}"
        return f"{_num(final[j])}{err}"

    if len(names) == 1:
        return f"{_name(names[0])} is the only feature ({method} {shown(0)})"
    positive = finite & (final > 0)
    total = float(final[positive].sum())
    if total <= 0:
        return (f"no feature has a positive {method} (largest: {_name(names[_argmax(final)])}, "
                f"{shown(_argmax(final))}): removing any one does not raise the loss")
    order = [int(j) for j in np.argsort(-np.where(positive, final, -np.inf), kind="stable")
             if positive[j]]
    leaders: list[int] = []
    for j in order[:3]:
        leaders.append(j)
        if final[leaders].sum() >= 0.5 * total:
            break
    negative = _negative_clause(names, final, total)
    of = f"the summed {'positive ' if negative else ''}{method}"
    verb = "carries" if len(leaders) == 1 else "carry"
    text = (f"{_join([_name(names[j]) for j in leaders])} {verb} "
            f"{_join([_pct(final[j] / total) for j in leaders])} of {of}")
    if errors is not None and len(leaders) == 1:
        text += f" ({shown(leaders[0])})"
    return text + negative


def _negative_clause(names: Sequence[str], final: np.ndarray, total: float) -> str:
    neg = [int(j) for j in np.argsort(final) if np.isfinite(final[j])
           and final[j] < 0 and -final[j] >= _NEGATIVE_SHARE * total][:2]
    if not neg:
        return ""
    verb = "is" if len(neg) == 1 else "are"
    return (f"; {_join([_name(names[j]) for j in neg])} {verb} below zero "
            f"({', '.join(_num(final[j]) for j in neg)})")


def _argmax(values: np.ndarray) -> int:
    return int(np.argmax(np.where(np.isfinite(values), values, -np.inf)))


def _change_clause(names: Sequence[str], before: np.ndarray, after: np.ndarray,
                   since: str) -> str:
    """How the importances moved between two snapshots (see :func:`summarize_stream`)."""
    both = np.isfinite(before) & np.isfinite(after)
    if not both.any():
        return ""
    lead_b, lead_a = _argmax(np.where(both, before, np.nan)), _argmax(np.where(both, after, np.nan))
    big = float(np.nanmax(np.abs(np.concatenate([before[both], after[both]]))))
    if (lead_b != lead_a and after[lead_a] > max(after[lead_b], 0)
            and before[lead_b] > before[lead_a]):  # (a tie before is no lead)
        return (f"{since} {_name(names[lead_a])} took the lead from {_name(names[lead_b])} "
                f"({_num(after[lead_a], big)} against {_num(after[lead_b], big)}, "
                f"from {_num(before[lead_a], big)} against {_num(before[lead_b], big)})")
    scale = max(float(np.clip(before[both], 0, None).sum()),
                float(np.clip(after[both], 0, None).sum()))
    size = np.maximum(np.abs(before), np.abs(after))
    material = both & (size >= _MATERIAL_SHARE * scale) if scale > 0 else both
    if not material.any():
        return ""
    delta = np.where(material, np.abs(after - before), -np.inf)
    j = int(np.argmax(delta))
    b, a = float(before[j]), float(after[j])
    if b > 0 and a > 0:
        r = a / b
        if r >= _CHANGE_RATIO:
            return f"{since} {_name(names[j])} gained {_ratio(r)} ({_num(b, big)} to {_num(a)})"
        if r <= 1 / _CHANGE_RATIO:
            return f"{since} {_name(names[j])} lost {_pct(1 - r)} ({_num(b)} to {_num(a, big)})"
        return f"{since} the importances held (largest change: {_name(names[j])}, " \
               f"{_num(b)} to {_num(a)})"
    if b == a:
        return f"{since} the importances held"
    return f"{since} {_name(names[j])} went from {_num(b, big)} to {_num(a, big)}"


def _reference(rows: np.ndarray, known: Sequence[int],
               incidents: Sequence[Mapping[str, Any]]) -> tuple[int, str] | None:
    """(snapshot index before the reference row, "since ..." words) or None.

    The reference is the first known change point with a snapshot at or before it and one
    after it; else the first incident's start; else the middle of the stream."""
    if len(rows) < 2:
        return None
    candidates = [(int(k), f"since the known change at row {int(k):,}") for k in sorted(known)]
    starts = [int(i["start"]) for i in incidents if i.get("kind", "incident") == "incident"]
    candidates += [(min(starts), f"since row {min(starts):,} (the first incident's start)")] \
        if starts else []
    middle = int(rows[len(rows) // 2 - 1]) if len(rows) >= 4 else None
    candidates += [(middle, f"since row {middle:,} (mid-stream)")] if middle else []
    for row, words in candidates:
        at = int(np.searchsorted(rows, row, side="right")) - 1
        if 0 <= at < len(rows) - 1:
            return at, words
    return None


def _incident_sentence(incidents: Sequence[Mapping[str, Any]], known: Sequence[int]) -> str:
    """``"2 incidents, both after the known change at 8,645 (...)"`` (see
    :func:`summarize_stream`)."""
    real = [i for i in incidents if i.get("kind", "incident") == "incident"]
    updates = len(incidents) - len(real)
    tail = (f"; {updates} model update{'s' if updates != 1 else ''} as the model learned"
            if updates else "")
    if not real:
        return f"No incident was detected{tail}."
    real = sorted(real, key=lambda i: int(i["detected"]))
    n = len(real)
    head = f"{n} incident{'s' if n != 1 else ''}"
    first = real[0]
    feats = first.get("features") or []
    led = f", led by {_name(str(feats[0]['name']))}" if feats else ""
    ks = sorted(int(k) for k in known)
    after = [max((k for k in ks if k <= int(i["detected"])), default=None) for i in real]
    if not ks:
        return f"{head}, the first detected at row {int(first['detected']):,}{led}{tail}."
    if all(a is not None and a == after[0] for a in after):
        k = int(after[0])  # type: ignore[arg-type]
        quant = "" if n == 1 else ("both " if n == 2 else "all ")
        delay = int(first["detected"]) - k
        return (f"{head}, {quant}after the known change at {k:,} (the first detected "
                f"{delay:,} rows after it{led}){tail}.")
    groups: dict[int | None, list[Mapping[str, Any]]] = {}
    for a, inc in zip(after, real):
        groups.setdefault(a, []).append(inc)
    parts = []
    for a, incs in sorted(groups.items(), key=lambda t: -1 if t[0] is None else t[0]):
        lead = incs[0].get("features") or []
        by = f", led by {_name(str(lead[0]['name']))}" if lead else ""
        d = int(incs[0]["detected"])
        parts.append(f"{len(incs)} before any known change (first detected at row {d:,}{by})"
                     if a is None else f"{len(incs)} after the known change at {a:,} (first "
                     f"detected {d - a:,} rows after it{by})")
    return f"{head}: {_join(parts)}{tail}."


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def summarize_stream(
    features: Sequence[str],
    rows: Any,
    values: Any,
    *,
    method: str = "iPFI",
    known_changes: Sequence[int] = (),
    incidents: Sequence[Mapping[str, Any]] | None = None,
) -> list[str]:
    """The first-screen sentences of a stream report.

    Parameters
    ----------
    features : sequence of str
        Feature names, in the order of the columns of ``values``.
    rows : array-like of int, shape (n_snapshots,)
        The stream row of each snapshot, increasing.
    values : array-like of float, shape (n_snapshots, n_features)
        The importances over the stream (the plotted, smoothed values); NaN: no value.
    method : str, default="iPFI"
        The name of the importance in the sentences.
    known_changes : sequence of int, default=()
        Known change points (rows) among the rows seen.
    incidents : sequence of dict or None, default=None
        Incidents in the dict form of ``Incident.to_dict()`` (``kind``, ``start``,
        ``detected``, ``features``); None when no detector ran (no incident sentence).

    Returns
    -------
    list of str
        One or two sentences: who carries the summed positive importance at the end and,
        against the last snapshot at or before a reference row (the first known change
        point, else the first incident's start, else mid-stream), the largest change among
        the features that matter (a leader change first; "gained 2x" / "lost 60 %" for
        positive values, "went from a to b" otherwise); then the incidents counted against
        the known changes they follow, with the model updates.

    Raises
    ------
    ValueError
        When ``values`` does not hold one column per feature or one row per snapshot.

    Examples
    --------
    >>> summarize_stream(["hour", "temp", "wind"], [100, 200, 300],
    ...                  [[50, 10, 5], [60, 12, 4], [70, 25, 5]], known_changes=[200])
    ['`hour` carries 70 % of the summed iPFI; since the known change at row 200 `temp` gained 2.1x (12 to 25).']
    """
    names = [str(f) for f in features]
    r = np.asarray(rows, dtype=np.int64).reshape(-1)
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or v.shape != (len(r), len(names)):
        raise ValueError(f"The 'values' parameter of summarize_stream must have shape "
                         f"(n_snapshots, n_features) = ({len(r)}, {len(names)}); got "
                         f"{v.shape} instead.")
    if len(r) == 0:
        return ["No row has been explained yet."]
    text = _share_clause(names, v[-1], method)
    ref = _reference(r, known_changes, incidents or [])
    if ref is not None and len(names) > 1:
        change = _change_clause(names, v[ref[0]], v[-1], ref[1])
        text += f"; {change}" if change else ""
    out = [_sentence(text)]
    if incidents is not None:
        out.append(_incident_sentence(incidents, known_changes))
    return out


def _effect_clause(effects: Mapping[str, tuple[Any, Any]], what: str) -> str:
    """The feature whose curve spans the widest range, with its shape."""
    spans = {}
    for f, (_grid, avg) in effects.items():
        a = np.asarray(avg, dtype=np.float64).reshape(-1)
        if np.isfinite(a).sum() >= 2:
            spans[f] = float(np.nanmax(a) - np.nanmin(a))
    if not spans:
        return ""
    ranked = sorted(spans, key=lambda f: -spans[f])
    f = ranked[0]
    grid = list(np.asarray(effects[f][0], dtype=object).reshape(-1))
    a = np.asarray(effects[f][1], dtype=np.float64).reshape(-1)
    ok = np.isfinite(a)
    grid, a = [g for g, k in zip(grid, ok) if k], a[ok]
    span, tol = spans[f], 0.01 * spans[f]
    numeric = all(isinstance(g, (int, float, np.integer, np.floating)) for g in grid)
    steps = np.diff(a)
    if span == 0:
        shape = "is flat"
    elif numeric and (steps >= -tol).all():
        shape = f"rises by {_num(a[-1] - a[0])} from {_num(grid[0])} to {_num(grid[-1])}"
    elif numeric and (steps <= tol).all():
        shape = f"falls by {_num(a[0] - a[-1])} from {_num(grid[0])} to {_num(grid[-1])}"
    elif numeric and abs(a[-1] - a[0]) >= 0.8 * span:  # small turns on a clear slope
        verb = "rises" if a[-1] > a[0] else "falls"
        shape = (f"mostly {verb}, by {_num(abs(a[-1] - a[0]))} from {_num(grid[0])} to "
                 f"{_num(grid[-1])}")
    else:
        top = grid[int(np.argmax(a))]
        shape = (f"spans {_num(span)}, highest at "
                 f"{_num(top) if numeric else _name(str(top))}")
    text = f"the strongest effect is {_name(str(f))}: its {what} {shape}"
    if len(ranked) > 1:
        text += f"; next {_name(str(ranked[1]))} (span {_num(spans[ranked[1]])})"
    return text


def _interaction_clause(pairs: Sequence[tuple[str, str, float]], what: str) -> str:
    ranked = sorted(((a, b, float(v)) for a, b, v in pairs if np.isfinite(v)),
                    key=lambda t: -abs(t[2]))
    if not ranked:
        return ""
    a, b, v = ranked[0]
    if v == 0:
        return f"no pair of features interacts ({what} 0 for every pair)"
    text = f"the strongest interaction is {_name(a)} x {_name(b)} ({what} {_num(v)})"
    if len(ranked) > 1:
        a2, b2, v2 = ranked[1]
        text += f", then {_name(a2)} x {_name(b2)} ({_num(v2)})"
    return text


def summarize_static(
    features: Sequence[str],
    importances: Mapping[str, tuple[Any, Any]],
    *,
    effects: Mapping[str, tuple[Any, Any]] | None = None,
    effect_name: str = "partial dependence",
    interactions: Sequence[tuple[str, str, float]] | None = None,
    interaction_name: str = "H^2",
) -> list[str]:
    """The first-screen sentences of an ``ixplain explain`` report.

    Parameters
    ----------
    features : sequence of str
        Feature names, in the order of the importance vectors.
    importances : mapping of str to (array-like, array-like)
        Method name (shown as given, e.g. ``"PFI"``) -> (values, errors), each of shape
        (n_features,); the first method is the one the ranking sentence uses, the others
        are compared with it (which feature they put first). Errors may be NaN.
    effects : mapping of str to (grid, average), optional
        Per feature, the grid (n_grid,) and the average curve (n_grid,) of the effect
        (PD or ALE).
    effect_name : str, default="partial dependence"
        What the curves are, for the sentence.
    interactions : sequence of (str, str, float), optional
        Pairs and their interaction strength (ranked here by absolute value).
    interaction_name : str, default="H^2"
        The name of the strength.

    Returns
    -------
    list of str
        Up to three sentences: the ranking (who carries the summed positive importance,
        and whether the other methods put the same feature first), the strongest effect
        (its curve's span and shape: rising or falling -- "mostly" when it turns by more
        than 1 % of its span on the way but ends at least 80 % of its span from where it
        started -- else where it peaks), the strongest
        interactions.

    Raises
    ------
    ValueError
        When an importance vector does not hold one value per feature.

    Examples
    --------
    >>> summarize_static(["a", "b"], {"PFI": ([3.0, 1.0], [0.1, 0.2])},
    ...                  effects={"a": ([0, 1, 2], [0.0, 1.0, 2.0])})
    ['`a` carries 75 % of the summed PFI (3 ± 0.1).', 'The strongest effect is `a`: its partial dependence rises by 2 from 0 to 2.']
    """
    names = [str(f) for f in features]
    out = []
    methods = list(importances)
    if methods:
        first = methods[0]
        values = _vector(importances[first][0], len(names), "importances")
        errors = _vector(importances[first][1], len(names), "importances")
        text = _share_clause(names, values, first, errors)
        if len(names) > 1 and np.isfinite(values).any():
            text += _agreement(names, values, methods, importances)
        out.append(_sentence(text))
    effect = _effect_clause(effects or {}, effect_name)
    if effect:
        out.append(_sentence(effect))
    inter = _interaction_clause(interactions or [], interaction_name)
    if inter:
        out.append(_sentence(inter))
    return out


def _agreement(names: Sequence[str], values: np.ndarray, methods: Sequence[str],
               importances: Mapping[str, tuple[Any, Any]]) -> str:
    lead = _argmax(values)
    same: list[tuple[str, int]] = []
    other: list[tuple[str, int]] = []
    for m in methods[1:]:
        v = _vector(importances[m][0], len(names), "importances")
        if not np.isfinite(v).any():
            continue
        (same if _argmax(v) == lead else other).append((m, _argmax(v)))
    parts = []
    if same:
        parts.append(f"{_join([m for m, _ in same])} also put{'s' if len(same) == 1 else ''} "
                     f"{_name(names[lead])} first")
    parts += [f"{m} puts {_name(names[j])} first" for m, j in other]
    return "; " + "; ".join(parts) if parts else ""
