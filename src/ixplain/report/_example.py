"""A small, complete report payload: the format of contract A, shown by example."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["example_payload"]


def _trace(level: float, jump: float, rows: list[int], change: int, wiggle: float) -> list[float]:
    return [round(level + (jump if r >= change else 0.0) * (1 - math.exp(-(r - change) / 40))
                  * (r >= change) + wiggle * math.sin(r / 23.0), 4) for r in rows]


def _charts(rows: list[int], change: int) -> list[dict[str, Any]]:
    shapes = {"hour": (60.0, 5.0, 3.0), "temp": (20.0, 25.0, 2.0), "workingday": (12.0, -6.0, 1.5),
              "humidity": (4.0, 0.0, 1.0)}
    series = []
    for name, (level, jump, wiggle) in shapes.items():
        y = _trace(level, jump, rows, change, wiggle)
        width = [round(8.0 / math.sqrt(1 + r / 50), 4) for r in rows]
        series.append({"name": name, "y": y, "lower": [round(v - w, 4) for v, w in zip(y, width)],
                       "upper": [round(v + w, 4) for v, w in zip(y, width)]})
    grid = [float(t) for t in range(0, 36, 5)]
    curves = [
        {"name": "before", "group": "temp", "x": grid, "y": [round(100 + 3 * t, 2) for t in grid],
         "lower": None, "upper": None},
        {"name": "after", "group": "temp", "x": grid, "y": [round(100 + 6 * t, 2) for t in grid],
         "lower": [round(95 + 6 * t, 2) for t in grid], "upper": [round(105 + 6 * t, 2) for t in grid]},
    ]
    markers = [
        {"x": float(change), "label": "known change (row 200)", "kind": "known", "incident": None},
        {"x": 236.0, "label": "incident 0: the data changed", "kind": "incident", "incident": 0},
        {"x": 330.0, "label": "model update", "kind": "model_update", "incident": 1},
    ]
    return [
        {"id": "importance", "title": "iPFI over the stream", "kind": "traces", "x_label": "row",
         "y_label": "iPFI (MAE increase)", "x": [float(r) for r in rows], "series": series,
         "markers": markers},
        {"id": "pd-temp", "title": "Partial dependence of temp", "kind": "curves", "x_label": "temp",
         "y_label": "predicted rentals", "series": curves},
        {"id": "final-methods", "title": "Final importances by method", "kind": "bars",
         "x_label": "feature", "y_label": "importance",
         "series": [{"name": "iPFI", "labels": list(shapes), "y": [65.0, 45.0, 6.0, 4.0],
                     "lower": [60.0, 38.0, 2.0, 1.0], "upper": [70.0, 52.0, 10.0, 7.0]}]},
    ]


def _incidents() -> list[dict[str, Any]]:
    def feature(name, before, after, half):
        return {"name": name, "before": before, "after": after, "change": round(after - before, 4),
                "before_lower": before - half, "before_upper": before + half,
                "after_lower": after - half, "after_upper": after + half}

    return [
        {"id": 0, "kind": "incident", "channel": "data", "start": 200, "detected": 236, "end": None,
         "headline": "the data changed: the frozen model's loss rose 40 %",
         "features": [feature("temp", 20.0, 42.0, 3.0), feature("workingday", 12.0, 7.0, 2.0)],
         "events": [0, 1]},
        {"id": 1, "kind": "model_update", "channel": "model", "start": 300, "detected": 330,
         "end": 360, "headline": "the model changed as it learned",
         "features": [feature("hour", 64.0, 66.0, 1.0)], "events": [2]},
    ]


def example_payload(n_rows: int = 400) -> dict[str, Any]:
    """A complete report payload for a made-up stream of ``n_rows`` rows (no randomness).

    Four features (``hour``, ``temp``, ``workingday``, ``humidity``) with importance traces and
    bands, a known change at row 200, an incident found at row 236 and a model update at row
    330, a partial-dependence chart of ``temp`` before and after, a bar chart, a table, settings
    and notes: every key of contract A, for documentation and tests.

    Parameters
    ----------
    n_rows : int, default=400
        Rows of the made-up stream (>= 2); the traces have one point every 4 rows, so
        ``n_rows > 8000`` gives series long enough to be thinned in the page.

    Returns
    -------
    dict
        A payload for :func:`ixplain.report.render_page`.

    Raises
    ------
    ValueError
        If ``n_rows`` is below 2.

    Examples
    --------
    >>> payload = example_payload()
    >>> payload["headline"], [s["name"] for s in payload["charts"][0]["series"]]
    ('importance', ['hour', 'temp', 'workingday', 'humidity'])
    """
    if isinstance(n_rows, bool) or not isinstance(n_rows, int) or n_rows < 2:
        raise ValueError(f"The 'n_rows' parameter of example_payload must be an int >= 2. Got {n_rows!r} instead.")
    rows = [*range(1, n_rows, 4), n_rows]
    charts = _charts(rows, 200)
    final = [s["y"][-1] for s in charts[0]["series"]]
    return {
        "title": "ixplain stream: example.csv",
        "subtitle": "a made-up stream of bike rentals",
        "status": {"state": "finished", "rows_seen": n_rows, "rows_total": n_rows},
        "summary": ["hour carries most of the explained loss.",
                    "Since row 200 temp gained 2x; 1 incident, after the known change at row 200."],
        "ranking": {"title": "Final ranking (iPFI)", "unit": "MAE increase",
                    "features": [s["name"] for s in charts[0]["series"]], "values": final,
                    "lower": [s["lower"][-1] for s in charts[0]["series"]],
                    "upper": [s["upper"][-1] for s in charts[0]["series"]]},
        "headline": "importance",
        "charts": charts,
        "incidents": _incidents(),
        "tables": [{"title": "Final importances", "columns": ["feature", "iPFI"],
                    "rows": [[s["name"], s["y"][-1]] for s in charts[0]["series"]]}],
        "settings": [["rows", f"{n_rows} of {n_rows}"], ["methods", "pfi"], ["alpha", 0.01]],
        "images": [],
        "notes": [],
        "files": ["importances.csv", "summary.json", "report.html"],
        "refresh_seconds": 3,
    }
