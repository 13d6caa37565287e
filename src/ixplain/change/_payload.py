"""The report payload of a :class:`~ixplain.change.ChangeExplanation` (contract A).

:func:`change_payload` turns a comparison into the plain-JSON dict that
:func:`ixplain.report.render_page` draws. Its first screen answers "what changed": one to three
sentences (which features' importance changed significantly under the family-wise procedure,
by how much with their paired intervals; whether the ranking moved; whether the explanations
shifted), the ranking of the features by ``|delta|`` with the intervals as bars, and the paired
bars (a, b, b - a) of the first importance method as the headline; below it, the PD/ALE curves
of both sides with their bands and the change with its band, and the tables.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._curves import CurveChange

__all__ = ["change_payload"]

_SIDES = {"models": ("model a", "model b"), "datasets": ("reference", "current")}


# ------------------------------------------------------------------------------- small helpers
def _num(v: Any) -> float | None:
    """A JSON number (None for NaN/inf/None)."""
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _nums(values: Any) -> list[float | None] | None:
    if values is None:
        return None
    return [_num(v) for v in np.ravel(np.asarray(values, dtype=object))]


def fmt(v: Any) -> str:
    """A number for a sentence: three significant digits, no exponent for ordinary sizes.

    Examples
    --------
    >>> fmt(4.1234), fmt(0.000123), fmt(12345.6), fmt(-2.5e9), fmt(None)
    ('4.12', '0.000123', '12,300', '-2.5e+09', 'n/a')
    """
    f = _num(v)
    if f is None:
        return "n/a"
    if f == 0:
        return "0"
    if 1000 <= abs(f) < 1e8:  # three significant digits, written out with separators
        return f"{float(f'{f:.3g}'):,.0f}"
    return f"{f:.3g}"


def _pct(level: Any) -> str:
    f = _num(level)
    return "n/a" if f is None else f"{f * 100:g} %"


def _design(result: Any) -> str:
    settings = getattr(result, "settings", None) or {}
    design = settings.get("design") or settings.get("mode")
    if design in _SIDES:
        return str(design)
    return "datasets" if settings.get("X_b") or settings.get("two_datasets") else "models"


def _labels(result: Any) -> tuple[str, str]:
    settings = getattr(result, "settings", None) or {}
    names = settings.get("side_names")
    if isinstance(names, (list, tuple)) and len(names) == 2:
        return str(names[0]), str(names[1])
    return _SIDES[_design(result)]


def _method_title(name: str) -> str:
    return {"pfi": "permutation importance (PFI)", "sage": "SAGE",
            "pfi_label_free": "prediction-sensitivity PFI",
            "interactions": "pairwise Shapley interactions (SII)"}.get(name, name)


def _order(change: Any) -> np.ndarray:
    """Features by |delta|, largest first (stable)."""
    return np.argsort(-np.abs(np.asarray(change.delta, dtype=np.float64)), kind="stable")


def _curve_list(result: Any) -> list[CurveChange]:
    """Every CurveChange of ``result.curves`` ({"pd": {feature: CurveChange}} or {"pd":
    CurveChange} or {feature: CurveChange}), largest ``max |delta|`` first."""
    found: list[CurveChange] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, CurveChange) or hasattr(obj, "max_abs_delta"):
            found.append(obj)
        elif isinstance(obj, dict):
            for v in obj.values():
                walk(v)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                walk(v)

    walk(getattr(result, "curves", None) or {})
    return sorted(found, key=lambda c: -(_num(c.max_abs_delta) or 0.0))


def _p_text(p: Any) -> str:
    f = _num(p)
    if f is None:
        return "p n/a"
    return "p < 0.001" if f < 0.001 else f"p = {f:.2g}"


# ------------------------------------------------------------------------------- sentences
def importance_sentence(name: str, change: Any, max_listed: int = 3) -> str:
    """"3 features changed significantly in PFI (Holm, 5 %): x2 gained 4.1 [3.6, 4.6], ..."."""
    feats = list(change.features)
    sig = np.asarray(change.significant, dtype=bool)
    proc = str(getattr(change, "procedure", "holm")).capitalize()
    level = _pct(getattr(change, "level", 0.05))
    order = [i for i in _order(change) if sig[i]]
    what = "PFI" if name == "pfi" else ("SAGE" if name == "sage" else name)

    def part(i: int) -> str:
        d, lo, hi = float(change.delta[i]), float(change.lower[i]), float(change.upper[i])
        if d > 0:
            return f"{feats[i]} gained {fmt(d)} [{fmt(lo)}, {fmt(hi)}]"
        return f"{feats[i]} lost {fmt(-d)} [{fmt(-hi)}, {fmt(-lo)}]"  # the loss's interval

    if not order:
        if not feats:
            return f"No feature was compared in {what}."
        i = int(_order(change)[0])
        return (f"No feature's {what} changed significantly ({proc}, {level}); the largest "
                f"change, {feats[i]} {fmt(change.delta[i])} [{fmt(change.lower[i])}, "
                f"{fmt(change.upper[i])}], is within the noise.")
    listed = ", ".join(part(i) for i in order[:max_listed])
    more = f" and {len(order) - max_listed} more" if len(order) > max_listed else ""
    noun = "feature" if len(order) == 1 else "features"
    return (f"{len(order)} {noun} changed significantly in {what} ({proc}, {level}): "
            f"{listed}{more}.")


def _field(obj: Any, *names: str) -> Any:
    for n in names:
        if isinstance(obj, dict) and n in obj:
            return obj[n]
        if hasattr(obj, n):
            return getattr(obj, n)
    return None


def ranking_sentence(ranking: Any) -> str | None:
    """"The top-5 ranking moved: NDCG@5 0.82 [0.71, 0.93], Kendall's tau 0.6 [0.4, 0.8]."."""
    if ranking is None:
        return None
    k = _field(ranking, "k", "top_k")
    ndcg = _field(ranking, "ndcg")
    tau = _field(ranking, "kendall_tau", "tau")
    if ndcg is None and tau is None:
        return None
    parts = []
    if ndcg is not None:
        lo, hi = _field(ranking, "ndcg_lower"), _field(ranking, "ndcg_upper")
        band = f" [{fmt(lo)}, {fmt(hi)}]" if lo is not None else ""
        parts.append(f"NDCG@{k if k is not None else 'k'} {fmt(ndcg)}{band}")
    if tau is not None:
        lo = _field(ranking, "kendall_tau_lower", "tau_lower")
        hi = _field(ranking, "kendall_tau_upper", "tau_upper")
        band = f" [{fmt(lo)}, {fmt(hi)}]" if lo is not None else ""
        parts.append(f"Kendall's tau {fmt(tau)}{band}")
    same = (_num(ndcg) or 0) >= 0.999 and (tau is None or (_num(tau) or 0) >= 0.999)
    head = "The ranking is unchanged" if same else "The ranking moved"
    return f"{head}: " + " and ".join(parts) + " (1 = unchanged)."


def shift_sentence(shift: Any) -> str | None:
    """Whether the explanation-shift test found a shift."""
    if shift is None:
        return None
    level = 0.05
    p = _num(shift.p_value)
    found = p is not None and p < level
    verb = "shifted" if found else "did not shift detectably"
    shared = int((getattr(shift, "settings", None) or {}).get("rows_on_both_sides", 0))
    both = (f"; {shared:,} row(s) occur on both sides, their copies kept in one fold"
            if shared else "")
    return (f"The per-row explanations {verb} (explanation-shift test: held-out AUC "
            f"{fmt(shift.auc)}, {_p_text(shift.p_value)}{both}).")


def _significant(p: Any, level: float = 0.05) -> bool:
    value = _num(p)
    return value is not None and value < level


def curve_sentence(curves: list[CurveChange]) -> str | None:
    """The largest effect change among the curves whose change is significant at 5 % (the
    simultaneous sup-t p-value), or that none changed detectably."""
    if not curves:
        return None
    found = [c for c in curves if _significant(c.p_value)]
    if not found:  # (the largest estimate of an unchanged curve is noise, not a change)
        kinds = " or ".join(dict.fromkeys("PD" if c.method == "pd" else "ALE" for c in curves))
        return f"No {kinds} curve changed detectably (sup-t test, level 5 %)."
    c = found[0]
    kind = "PD" if c.method == "pd" else "ALE"
    return (f"Largest effect change: {c.feature}'s {kind} curve moved by up to "
            f"{fmt(c.max_abs_delta)} [{fmt(c.max_abs_lower)}, {fmt(c.max_abs_upper)}] "
            f"({_p_text(c.p_value)}).")


def discrepancy_sentence(disc: Any) -> str | None:
    """The expected squared discrepancy of the two models, if computed."""
    if disc is None:
        return None
    value = _field(disc, "value", "estimate", "mean")
    if value is None:
        return None
    lo, hi = _field(disc, "lower"), _field(disc, "upper")
    band = f" [{fmt(lo)}, {fmt(hi)}]" if lo is not None else ""
    return f"The models' predictions differ by an expected squared discrepancy of {fmt(value)}{band}."


def summary(result: Any) -> list[str]:
    """One to three sentences for the first screen."""
    out: list[str] = []
    importance = getattr(result, "importance", None) or {}
    for name, change in importance.items():
        out.append(importance_sentence(name, change))
        break
    ranking = getattr(result, "ranking", None) or {}
    first = next(iter(importance), None)
    rank_text = ranking_sentence(ranking.get(first) if first in ranking else
                                 next(iter(ranking.values()), None))
    extra = [rank_text, shift_sentence(getattr(result, "shift", None)),
             curve_sentence(_curve_list(result)),
             discrepancy_sentence(getattr(result, "discrepancy", None))]
    out.extend(s for s in extra if s)
    return out[:3] if out else ["Nothing was compared."]


# ------------------------------------------------------------------------------- charts
def importance_chart(name: str, change: Any, labels: tuple[str, str],
                     unit: str = "mean loss increase") -> dict[str, Any]:
    """Paired bars: side a, side b and the change b - a with its interval, by |delta|."""
    order = _order(change)
    feats = [str(change.features[i]) for i in order]

    def pick(values: Any) -> list[float | None] | None:
        if values is None:
            return None
        arr = np.asarray(values, dtype=np.float64)
        return _nums(arr[order])

    def side(key: str) -> dict[str, Any]:
        return {"name": labels[0] if key == "a" else labels[1], "labels": feats,
                "y": pick(getattr(change, key)),
                "lower": pick(getattr(change, f"{key}_lower", None)),
                "upper": pick(getattr(change, f"{key}_upper", None))}

    sig = np.asarray(change.significant, dtype=bool)[order]
    feats = [f + (" *" if s else "") for f, s in zip(feats, sig)]  # one category per feature
    return {
        "id": f"importance-{name}", "kind": "bars",
        "title": f"{_method_title(name)}: {labels[0]}, {labels[1]} and the change "
                 "(* significant)",
        "x_label": "feature", "y_label": f"importance ({unit})",
        "series": [side("a"), side("b"),
                   {"name": f"change ({labels[1]} - {labels[0]})", "labels": feats,
                    "y": pick(change.delta), "lower": pick(change.lower),
                    "upper": pick(change.upper)}],
    }


def curve_chart(c: CurveChange, labels: tuple[str, str]) -> dict[str, Any]:
    """Both sides' curves with their bands and the change with its band, one chart."""
    kind = "PD" if c.method == "pd" else "ALE"
    x = [str(v) for v in c.grid] if c.feature_kind != "numeric" else _nums(c.grid)
    return {
        "id": f"curve-{c.method}-{c.feature}", "kind": "curves",
        "title": f"{kind} of {c.feature}: {labels[0]} vs {labels[1]} (max |change| "
                 f"{fmt(c.max_abs_delta)} [{fmt(c.max_abs_lower)}, {fmt(c.max_abs_upper)}], "
                 f"{_p_text(c.p_value)})",
        "x_label": c.feature, "y_label": f"{kind} (model output)",
        "series": [
            {"name": labels[0], "x": x, "y": _nums(c.a), "lower": _nums(c.a_lower),
             "upper": _nums(c.a_upper), "group": "curves"},
            {"name": labels[1], "x": x, "y": _nums(c.b), "lower": _nums(c.b_lower),
             "upper": _nums(c.b_upper), "group": "curves"},
            {"name": f"change ({labels[1]} - {labels[0]})", "x": x, "y": _nums(c.delta),
             "lower": _nums(c.lower), "upper": _nums(c.upper), "group": "change"},
        ],
    }


def _importance_table(name: str, change: Any) -> dict[str, Any]:
    cols = ["feature", "a", "b", "delta", "lower", "upper", "p_value", "p_adjusted",
            "significant"]
    rows = []
    for i in _order(change):
        row: list[Any] = [str(change.features[i])]
        for key in cols[1:-1]:
            values = getattr(change, key, None)
            row.append(None if values is None else _num(np.asarray(values)[i]))
        row.append(bool(np.asarray(change.significant)[i]))
        rows.append(row)
    return {"title": f"{_method_title(name)}: change per feature", "columns": cols,
            "rows": rows}


def _curves_table(curves: list[CurveChange]) -> dict[str, Any]:
    return {"title": "Curve changes (max |b - a| over the grid, simultaneous interval)",
            "columns": ["feature", "method", "max_abs_delta", "lower", "upper", "p_value",
                        "design"],
            "rows": [[c.feature, c.method, _num(c.max_abs_delta), _num(c.max_abs_lower),
                      _num(c.max_abs_upper), _num(c.p_value),
                      "paired" if c.paired else "independent"] for c in curves]}


def _plain(v: Any) -> Any:
    """Settings values as JSON (numbers, str, lists)."""
    if isinstance(v, (bool, str)) or v is None:
        return v
    if isinstance(v, (int, float, np.integer, np.floating)):
        return _num(v) if isinstance(v, (float, np.floating)) else int(v)
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_plain(x) for x in v]
    return str(v)


# ------------------------------------------------------------------------------- payload
def change_payload(result: Any, *, max_curves: int = 6, title: str | None = None) -> dict[str, Any]:
    """The report payload (contract A) of a comparison.

    Parameters
    ----------
    result : ChangeExplanation
        From :func:`ixplain.change.compare` (``importance``, ``ranking``, ``discrepancy``,
        ``curves``, ``shift``, ``settings``).
    max_curves : int, default=6
        Curves drawn (largest ``max |delta|`` first); all of them are in the table.
    title : str, optional
        Default: "What changed between model a and model b" (or reference and current).

    Returns
    -------
    dict
        Plain JSON (lists, floats, str): title, subtitle, summary (1-3 sentences), ranking
        (features by ``|delta|`` with intervals), headline (the paired bars' chart id),
        charts (bars per importance method, one curve chart per feature), tables, settings,
        notes.

    References
    ----------
    .. [1] J. Muschalik et al., "Agnostic explanation of model change based on feature
       importance", KI - Kuenstliche Intelligenz 36, 2022.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> ic = SimpleNamespace(features=["x1", "x2"], a=np.array([2.0, 0.0]),
    ...     b=np.array([0.1, 4.2]), delta=np.array([-1.9, 4.2]), lower=np.array([-2.2, 3.7]),
    ...     upper=np.array([-1.6, 4.7]), significant=np.array([True, True]),
    ...     p_value=np.array([0.0, 0.0]), p_adjusted=np.array([0.0, 0.0]),
    ...     procedure="holm", level=0.05)
    >>> res = SimpleNamespace(importance={"pfi": ic}, ranking={}, discrepancy=None,
    ...                       curves={}, shift=None, settings={})
    >>> change_payload(res)["summary"][0]
    '2 features changed significantly in PFI (Holm, 5 %): x2 gained 4.2 [3.7, 4.7], x1 lost 1.9 [1.6, 2.2].'
    """
    labels = _labels(result)
    importance = getattr(result, "importance", None) or {}
    curves = _curve_list(result)
    loss = (getattr(result, "settings", None) or {}).get("loss")
    unit = "mean loss increase" + (f", {loss}" if loss else "")
    charts = [importance_chart(n, c, labels, unit) for n, c in importance.items()]
    charts += [curve_chart(c, labels) for c in curves[:max_curves]]
    first = next(iter(importance.items()), None)
    ranking = None
    if first is not None:
        name, ch = first
        order = _order(ch)
        ranking = {"title": f"Change of {_method_title(name)} ({labels[1]} - {labels[0]})",
                   "unit": unit, "features": [str(ch.features[i]) for i in order],
                   "values": _nums(np.asarray(ch.delta)[order]),
                   "lower": _nums(np.asarray(ch.lower)[order]),
                   "upper": _nums(np.asarray(ch.upper)[order]),
                   "caption": f"Bars: the changes b - a; whiskers: their "
                              f"{_pct(getattr(ch, 'confidence', 0.95))} change intervals."}
    elif curves:
        ranking = {"title": "Largest curve change (max |b - a|)", "unit": "model output",
                   "features": [f"{c.feature} ({c.method.upper()})" for c in curves],
                   "values": [_num(c.max_abs_delta) for c in curves],
                   "lower": [_num(c.max_abs_lower) for c in curves],
                   "upper": [_num(c.max_abs_upper) for c in curves],
                   "caption": "Bars: the largest |b - a| of each curve; whiskers: its "
                              "simultaneous interval."}
    return _assemble(result, labels, title, charts, ranking, importance, curves)


def _assemble(result: Any, labels: tuple[str, str], title: str | None, charts: list[Any],
              ranking: Any, importance: dict[str, Any], curves: list[CurveChange]) -> dict[str, Any]:
    tables = [_importance_table(n, c) for n, c in importance.items()]
    if curves:
        tables.append(_curves_table(curves))
    shift = getattr(result, "shift", None)
    notes = [_design_note(importance, curves)]
    notes += [str(n) for n in getattr(result, "notes", None) or []]
    if shift is not None:
        tables.append({"title": "Explanation-shift test", "columns": ["feature", "AUC alone"],
                       "rows": [[f, _num(v)] for f, v in zip(shift.features,
                                                            shift.feature_auc)]})
        notes.append(f"Explanation-shift test: {shift.method}.")
    if curves:
        notes.append("Curve bands are pointwise; the interval and p-value of max |change| are "
                     "simultaneous over the grid (sup-t).")
    settings = getattr(result, "settings", None) or {}
    return {
        "title": title or f"What changed between {labels[0]} and {labels[1]}",
        "subtitle": _subtitle(importance),
        "summary": summary(result),
        "ranking": ranking,
        "headline": charts[0]["id"] if charts else None,
        "charts": charts, "incidents": [], "tables": tables,
        "settings": [[str(k), _plain(v)] for k, v in settings.items()],
        "images": [], "notes": notes, "files": [],
    }


def _independent(importance: dict[str, Any], curves: list[CurveChange]) -> bool:
    """Whether the sides are independent samples (two tables: Welch intervals)."""
    designs = [getattr(c, "design", "paired") for c in importance.values()]
    designs += ["paired" if getattr(c, "paired", True) else "independent" for c in curves]
    return "independent" in designs


def _design_note(importance: dict[str, Any], curves: list[CurveChange]) -> str:
    if _independent(importance, curves):
        return ("Intervals of a change are Welch intervals of two independent samples (the two "
                "tables' rows are different rows, so they cannot be paired).")
    return ("Intervals of a change are paired (the same permutations, draws and rows for "
            "both sides) when two models are compared on the same rows.")


def _subtitle(importance: dict[str, Any]) -> str | None:
    first = next(iter(importance.values()), None)
    if first is None:
        return None
    conf = getattr(first, "confidence", None)
    level = _pct(getattr(first, "level", 0.05))
    proc = str(getattr(first, "procedure", "holm")).capitalize()
    band = f"{_pct(conf)} intervals" if conf is not None else "intervals"
    design = ("independent (Welch)" if getattr(first, "design", "paired") == "independent"
              else "paired")
    return f"Change b - a with {design} {band}; significance family-wise ({proc}, {level})"


#: The name :meth:`ixplain.change.ChangeExplanation.to_payload` calls.
to_payload = change_payload
