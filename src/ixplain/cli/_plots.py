"""PNG plots of a run, drawn on matplotlib ``Figure`` objects (no pyplot state, no display)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "MARKER_COLORS",
    "draw_bands",
    "feature_colors",
    "mark_incidents",
    "plot_importance_bars",
    "plot_importance_traces",
    "plot_metric",
    "plot_pd_curves",
    "plot_pd_over_time",
    "shown_features",
]

_MAX_LINES = 8
#: Traces always drawn: the largest final importances (a feature with a drift event is added).
_TOP_LINES = 6
#: Bands drawn: those of the strongest shown features only (8 overlapping bands hide the plot).
_MAX_BANDS = 3
_BAND_ALPHA = 0.15
#: Opacity of a band wider than half the panel's height over most of the stream.
_WIDE_BAND_ALPHA = 0.06
#: Colours of the stream-wide markers (the report page's, contract A): known change points
#: (dark grey, dashed), ADWIN's detections on the error (grey, dotted), incidents (red) and
#: model updates (light blue). No feature is drawn in a colour near these.
MARKER_COLORS = {"known change point": "0.15", "detected change (ADWIN)": "0.35",
                 "incident": "#d62728", "model update": "#9ecae1"}
_TITLES = {"pfi": "iPFI", "sage": "iSAGE", "pdp": "iPDP"}
#: Titles of the static methods (``ixplain explain``).
STATIC_TITLES = {"pfi": "PFI", "sage": "SAGE"}


def importance_label(method: str, loss: str | None) -> str:
    """Axis label of an importance: PFI is a loss increase, SAGE a share of the loss reduction."""
    if not loss:
        return "importance"
    if method == "sage":
        return f"SAGE value ({loss} reduction)"
    return f"{loss} increase"


def _figure(n_panels: int, width: float = 7.5, height: float = 3.2) -> tuple[Any, list[Any]]:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is in the cli extra
        raise ImportError(
            "Plotting needs matplotlib: pip install 'ixplain[plot]' (or pip install matplotlib)."
        ) from exc
    fig = Figure(figsize=(width, height * max(n_panels, 1)), layout="constrained")
    axes = fig.subplots(max(n_panels, 1), 1, squeeze=False)[:, 0]
    return fig, list(axes)


def _drift_lines(ax: Any, known: Sequence[int], detected: Sequence[int]) -> None:
    """Known change points (dark grey, dashed) and ADWIN's detections on the error (grey,
    dotted): not in red, the incidents' colour."""
    for label, rows, ls, lw in (("known change point", known, "--", 1.4),
                                ("detected change (ADWIN)", detected, ":", 0.9)):
        for i, row in enumerate(rows):
            ax.axvline(row, color=MARKER_COLORS[label], ls=ls, lw=lw,
                       label=label if i == 0 else None)


def feature_colors(n_features: int) -> list[Any]:
    """One colour per feature, by its position among the run's features, so that the same
    feature has the same colour in every figure of a run (``importance_traces.png``,
    ``drift_events.png``).

    matplotlib's ``tab10`` for up to 7 features, else ``tab20``'s dark shades then its light
    ones (13 colours, repeated beyond), each palette without the colours near a marker's
    (:data:`MARKER_COLORS`: the red of an incident, the light blue of a model update, the
    greys of the change lines; a feature drawn in red read as the change point exactly where
    it moved). "Near" is a Euclidean RGB distance below 0.3 (unit cube: this also drops the
    brown, 0.21 from the grey, and tab20's light blue, cyan and lavender) or a grey (channel
    spread below 0.1).
    """
    from matplotlib import colormaps

    def usable(colors: Sequence[Any]) -> list[Any]:
        return [c for c in colors if not _near_marker(c)]

    base = usable(colormaps["tab10"].colors)  # type: ignore[attr-defined]
    if n_features > len(base):
        tab20 = list(colormaps["tab20"].colors)  # type: ignore[attr-defined]
        base = usable(tab20[0::2] + tab20[1::2])
    return (base * (n_features // len(base) + 1))[:n_features]


def _near_marker(color: Any) -> bool:
    from matplotlib.colors import to_rgb

    rgb = np.asarray(to_rgb(color))
    if np.ptp(rgb) < 0.1:  # a grey
        return True
    return any(float(np.linalg.norm(rgb - np.asarray(to_rgb(m)))) < 0.3
               for m in MARKER_COLORS.values())


def shown_features(values: np.ndarray, events: Sequence[Any], names: Sequence[str],
                   k: int = _MAX_LINES, n_top: int = _MAX_LINES) -> list[int]:
    """The features a trace panel draws, strongest first (the legend's order).

    The ``n_top`` largest final importances ``values`` (NaN last) are always drawn; the
    features of ``events`` (feature names, or objects with a ``feature`` attribute such as
    explanation drift events) are added, strongest first, while fewer than ``max(k, n_top)``
    are drawn, so a weak feature with an event never pushes out a stronger one. The result
    is sorted by final importance, descending.
    """
    order = [int(j) for j in _top(values, len(values))]
    top = order[:n_top]
    wanted = [getattr(e, "feature", e) for e in events]
    fired = {names.index(f) for f in wanted if f in names}
    extra = [j for j in order[n_top:] if j in fired][: max(k - len(top), 0)]
    chosen = set(top) | set(extra)
    return [j for j in order if j in chosen]


def incident_features(incidents: Sequence[dict[str, Any]], n: int = 2) -> list[str]:
    """The names of the top ``n`` features of each incident (contract B dicts; model updates
    left out), in the incidents' order, without repeats."""
    names = [f["name"] for inc in incidents if inc["kind"] == "incident"
             for f in inc["features"][:n]]
    return list(dict.fromkeys(names))


def mark_incidents(ax: Any, incidents: Sequence[dict[str, Any]],
                   drawn: Sequence[str] | None = None) -> None:
    """Mark drift incidents and model updates (contract B dicts, ``Incident.to_dict()``).

    An incident: a red span (:data:`MARKER_COLORS`) from its ``start`` to its ``detected``
    row, a red line at ``detected`` with its ``id`` at the top of the panel, and red dots at
    its top feature's ``before`` (at ``start``) and ``after`` (at ``end``) when that feature
    is among ``drawn`` (feature names; ``None``: always). A model update: a light blue line
    at ``detected``. One legend entry per kind.
    """
    labelled: set[str] = set()
    red, light = MARKER_COLORS["incident"], MARKER_COLORS["model update"]
    for inc in incidents:
        if inc["kind"] == "model_update":
            label = None if "update" in labelled else "model update (the model learned)"
            labelled.add("update")
            ax.axvline(inc["detected"], color=light, lw=1.2, label=label, zorder=0)
            continue
        label = None if "incident" in labelled else "incident (start to detection)"
        labelled.add("incident")
        start, detected = inc["start"], inc["detected"]
        ax.axvspan(start, max(detected, start + 1), color=red, alpha=0.15, lw=0, label=label)
        ax.axvline(detected, color=red, lw=1.6)
        ax.annotate(str(inc["id"]), (detected, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(2, -10), textcoords="offset points", color=red, fontsize=8,
                    fontweight="bold")
        top = inc["features"][0] if inc["features"] else None
        if (top is None or inc.get("end") is None or top["before"] is None
                or top["after"] is None or (drawn is not None and top["name"] not in drawn)):
            continue
        ax.plot([start, inc["end"]], [top["before"], top["after"]], ls="none", marker="o",
                ms=5, color=red, markeredgecolor="black", zorder=5)


def _top(values: np.ndarray, k: int) -> np.ndarray:
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")
    return order[:k]


def plot_importance_traces(
    path: Path,
    traces: dict[str, Any],
    feature_names: Sequence[str],
    *,
    known_drift: Sequence[int] = (),
    detected_drift: Sequence[int] = (),
    losses: dict[str, str] | None = None,
    incidents: Mapping[str, Sequence[dict[str, Any]]] | None = None,
) -> Path:
    """One panel per method: importance of the top features over stream rows, with bands.

    The lines are the ``_TOP_LINES`` (6) largest final importances and up to two weaker
    features among the top two of an incident (:func:`shown_features`,
    :func:`incident_features`), listed in the legend by final importance, descending. The
    band is the importance plus/minus its confidence bound (``confidence_bound(0.05)``),
    drawn for the three strongest lines only and lighter where it is wider than half the
    panel (:func:`draw_bands`). Dashed dark grey lines mark known drift points, dotted grey
    lines detected changes (ADWIN on the error); ``incidents`` (method -> its run's
    incidents and model updates, contract B dicts: :attr:`StreamRun.incidents`) are marked
    as in ``drift_events.png`` (:func:`mark_incidents`: red, numbered; model updates light
    blue). A feature has the colour :func:`feature_colors` gives it, never one near a
    marker's.
    """
    fig, axes = _figure(len(traces), width=9.0)
    colors = feature_colors(len(feature_names))
    for ax, (method, trace) in zip(axes, traces.items()):
        if len(trace.rows) == 0:
            ax.text(0.5, 0.5, "no snapshot yet", ha="center", transform=ax.transAxes)
            continue
        found = list((incidents or {}).get(method, ()))
        _trace_panel(ax, trace, feature_names, found, colors)
        _drift_lines(ax, known_drift, detected_drift)
        ax.set_title(f"{_TITLES.get(method, method)} over the stream "
                     f"(bands: 95% bound of the top {_MAX_BANDS})")
        ax.set_xlabel("rows seen")
        ax.set_ylabel(importance_label(method, (losses or {}).get(method)))
        # outside the axes, so it never hides the curves
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, framealpha=0.8)
        ax.grid(alpha=0.3)
    fig.savefig(path, dpi=90)
    return path


def _trace_panel(ax: Any, trace: Any, feature_names: Sequence[str],
                 incidents: Sequence[dict[str, Any]], colors: Sequence[Any]) -> None:
    """The lines (strongest first), the y-limits from the lines, the bands, the incidents."""
    rows = np.asarray(trace.rows)
    values = np.vstack(trace.values)
    bounds = np.vstack(trace.bounds)
    shown = shown_features(values[-1], incident_features(incidents), list(feature_names),
                           n_top=_TOP_LINES)
    display = _display("ImportanceTraceDisplay")
    if display is not None:  # the library's Display draws the lines; bands drawn below
        names = [_text(n) for n in feature_names]
        display(rows, values, None, names).plot(
            ax=ax, features=[names[j] for j in shown], legend=False,
            colors=[colors[j] for j in shown],
        )
    else:
        for j in shown:
            ax.plot(rows, values[:, j], color=colors[j], lw=1.6, label=_text(feature_names[j]))
    finite = values[:, shown][np.isfinite(values[:, shown])]
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        pad = 0.1 * (hi - lo if hi > lo else max(abs(hi), 1.0))
        ax.set_ylim(lo - pad, hi + pad)
    draw_bands(ax, rows, values, bounds, shown[:_MAX_BANDS], colors)
    mark_incidents(ax, incidents, [feature_names[j] for j in shown])


def draw_bands(ax: Any, rows: np.ndarray, values: np.ndarray, bounds: np.ndarray,
               features: Sequence[int], colors: Sequence[Any]) -> list[Any]:
    """Fill ``values[:, j] +/- bounds[:, j]`` for each ``j`` in ``features`` (after the
    y-limits are set): opacity ``_BAND_ALPHA`` (0.15) where the band is at most half the
    panel's height, ``_WIDE_BAND_ALPHA`` (0.06) where it is wider (early in a stream, where a
    band would cover the plot). Non-finite bounds are left out. Returns the filled areas:
    one or two per band (narrow and wide stretches), each in its feature's colour.
    """
    y0, y1 = ax.get_ylim()
    height = abs(y1 - y0) or 1.0
    filled = []
    for j in features:
        b, v = bounds[:, j], values[:, j]
        ok = np.isfinite(b) & np.isfinite(v)
        if not ok.any():
            continue
        wide = ok & (2 * np.where(ok, b, 0.0) > height / 2)
        for part, alpha in ((ok & ~wide, _BAND_ALPHA), (wide, _WIDE_BAND_ALPHA)):
            # one point more on each side, so the two stretches meet without a gap
            part = ok & (part | np.r_[part[1:], False] | np.r_[False, part[:-1]])
            if part.sum() < 2:
                continue
            filled.append(ax.fill_between(rows, v - np.where(ok, b, 0.0), v + np.where(ok, b, 0.0),
                                          where=part, color=colors[j], lw=0, alpha=alpha))
    ax.set_ylim(y0, y1)  # the bands never widen the panel
    return filled


def plot_importance_bars(
    path: Path,
    final: dict[str, tuple[np.ndarray, np.ndarray]],
    feature_names: Sequence[str],
    *,
    xlabel: str | dict[str, str] = "importance",
    title: str = "{method}: final importances (error bar: 95% bound)",
    titles: dict[str, str] | None = None,
) -> Path:
    """Horizontal bars of the final importances per method, sorted, with error bars
    (``titles``: method -> name in the title; default the stream names, iPFI and iSAGE)."""
    titles = _TITLES if titles is None else titles
    fig, axes = _figure(len(final), height=max(2.4, 0.28 * len(feature_names) + 1.0))
    for ax, (method, (values, err)) in zip(axes, final.items()):
        display = _display("FeatureImportanceDisplay")
        errors = np.where(np.isfinite(err), err, 0.0)
        if display is not None:
            names = [_text(n) for n in feature_names]
            display(np.nan_to_num(values), errors, names).plot(ax=ax)
        else:
            order = np.argsort(np.nan_to_num(values, nan=-np.inf))
            y = np.arange(len(order))
            ax.barh(y, np.nan_to_num(values[order]), xerr=errors[order], capsize=2)
            ax.set_yticks(y)
            ax.set_yticklabels([_text(feature_names[i]) for i in order], fontsize=8)
            ax.axvline(0, color="0.2", lw=0.8)
        ax.set_title(title.format(method=titles.get(method, method)))
        ax.set_xlabel(xlabel.get(method, "importance") if isinstance(xlabel, dict) else xlabel)
        ax.grid(axis="x", alpha=0.3)
    fig.savefig(path, dpi=90)
    return path


def plot_pd_over_time(
    path: Path, snapshots: dict[str, list[tuple[int, np.ndarray, np.ndarray]]], ylabel: str,
    title: str = "iPDP of {feature} over the stream (newest darkest)",
) -> Path:
    """One panel per feature: PD (or ALE) snapshots overlaid, newest darkest (at most 8)."""
    fig, axes = _figure(len(snapshots))
    try:
        from matplotlib import colormaps

        cmap = colormaps["Blues"]
    except Exception:  # pragma: no cover - very old matplotlib
        cmap = None
    for ax, (feature, snaps) in zip(axes, snapshots.items()):
        if not snaps:
            ax.text(0.5, 0.5, "no snapshot yet", ha="center", transform=ax.transAxes)
            continue
        pick = np.unique(np.linspace(0, len(snaps) - 1, min(8, len(snaps))).round().astype(int))
        display = _display("PartialDependenceTraceDisplay")
        if display is not None:  # the library's Display: colour bar maps colour to the row
            categorical = np.asarray(snaps[-1][1]).dtype.kind not in "iufb"
            display([snaps[i] for i in pick], _text(feature), categorical=categorical).plot(ax=ax)
        else:
            for k, i in enumerate(pick):
                row, grid, values = snaps[i]
                shade = 0.3 + 0.7 * (k + 1) / len(pick)
                color = cmap(shade) if cmap is not None else str(1 - shade)
                _draw_curve(ax, grid, values, color=color, label=f"row {row}")
            ax.legend(fontsize=7, ncol=2, framealpha=0.8)
        ax.set_title(title.format(feature=_text(feature)))
        ax.set_xlabel(_text(feature))
        ax.set_ylabel(_text(ylabel))
        ax.grid(alpha=0.3)
    fig.savefig(path, dpi=90)
    return path


def plot_pd_curves(
    path: Path,
    curves: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]],
    ylabel: str,
) -> Path:
    """One panel per feature: PD (thick) and up to 50 ICE curves (thin) of a static model."""
    fig, axes = _figure(len(curves))
    for ax, (feature, (grid, average, ice)) in zip(axes, curves.items()):
        if ice is not None:
            for row in ice[:50]:
                _draw_curve(ax, grid, row, color="0.6", lw=0.5, alpha=0.5)
        _draw_curve(ax, grid, average, color="#C44E52", lw=2.2, label="PD")
        ax.set_title(f"partial dependence of {_text(feature)}")
        ax.set_xlabel(_text(feature))
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.savefig(path, dpi=90)
    return path


def plot_metric(
    path: Path,
    rolling: np.ndarray,
    name: str,
    window: int,
    *,
    known_drift: Sequence[int] = (),
    detected_drift: Sequence[int] = (),
) -> Path:
    """The rolling prequential metric over the stream, with drift markers."""
    fig, axes = _figure(1, height=2.6)
    ax = axes[0]
    ax.plot(np.arange(1, len(rolling) + 1), rolling, color="#55A868", lw=1.4)
    _drift_lines(ax, known_drift, detected_drift)
    ax.set_title(f"prequential {name} (rolling window of {window} rows)")
    ax.set_xlabel("rows seen")
    ax.set_ylabel(name)
    ax.grid(alpha=0.3)
    if known_drift or detected_drift:
        ax.legend(fontsize=7)
    fig.savefig(path, dpi=90)
    return path


def _draw_curve(ax: Any, grid: np.ndarray, values: np.ndarray, **kwargs: Any) -> None:
    grid = np.asarray(grid)
    if grid.dtype.kind in "iufb":
        ax.plot(grid.astype(float), values, **kwargs)
    else:  # categorical levels: points joined in level order
        ax.plot(np.arange(len(grid)), values, marker="o", **kwargs)
        ax.set_xticks(np.arange(len(grid)))
        ax.set_xticklabels([_text(g) for g in grid], rotation=30, fontsize=7)


def _display(name: str) -> Any:
    """The library's Display class ``name`` (``None`` in a build without it)."""
    import ixplain

    return getattr(ixplain, name, None)


def _text(value: object) -> str:
    """Data-derived text for matplotlib: ``$`` escaped so no name is parsed as mathtext."""
    return str(value).replace("$", r"\$")


def _palette(n: int) -> list[Any]:
    base = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]
    return (base * (n // len(base) + 1))[:n]
