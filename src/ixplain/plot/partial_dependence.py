"""Partial dependence / ICE plots: :class:`PartialDependenceDisplay`.

Compute returns data, a Display draws it: :meth:`PartialDependenceDisplay.from_estimator`
computes one :class:`~ixplain.results.PartialDependence` per panel and plots it;
:meth:`PartialDependenceDisplay.from_result` plots results you already have. The Display
keeps scikit-learn's attributes (``pd_results``, ``features``, ``feature_names``,
``target_idx``, ``deciles``, ``kind``; after :meth:`plot` the artist arrays shaped like
``axes_``), so code written for :class:`sklearn.inspection.PartialDependenceDisplay` runs
unchanged. Layout and drawing live in :mod:`ixplain.plot._pd_draw`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_bool, check_int, check_random_state, param_error
from ..models import DEFAULT_MEMORY_BUDGET
from ..results.partial_dependence import PartialDependence
from . import _pd_draw as draw
from ._axes import check_kw
from ._pd_inputs import (
    check_kind,
    check_subsample,
    column_names,
    panel_features,
    panel_kinds,
    refuse_before_drawing,
    require_target,
)

__all__ = ["PartialDependenceDisplay"]

_OWNER = "PartialDependenceDisplay"


class PartialDependenceDisplay:
    """Partial dependence (PD) and ICE plots, one panel per feature or feature pair.

    Build it with :meth:`from_estimator` or :meth:`from_result`, then :meth:`plot` (called by
    both) draws it. Panels:

    * a numeric feature: ICE lines (thinned to ``subsample`` lines with ``random_state``), the PD
      line on top, a rug of the feature's deciles; centred curves with ``centered=True``;
    * a categorical feature: one bar per level, ordered by PD value (largest first);
    * a pair of numeric features: filled contours (first feature on x, second on y) with
      labelled contour lines and both deciles rugs; a pair with a categorical feature: a heatmap
      with a colour bar.

    1-way panels share one value range, 2-way panels another (5% padding), as in scikit-learn.

    Parameters
    ----------
    pd_results : list of PartialDependence
        One result per panel (1 or 2 features each). A single result is accepted.
    features : list of tuple of int, optional
        The features of each panel as indices into ``feature_names`` (scikit-learn's form);
        default: from the results.
    feature_names : array-like of str, optional
        Default: the features of the results, in order of appearance.
    target_idx : int, optional
        Which output (class or regression target) to draw; default ``output``.
    deciles : dict of int to ndarray, optional
        Deciles of each feature index (the rugs); default: from the results.
    kind : {"average", "individual", "both"} or list of them, optional
        What each panel shows; default: what each result holds.
    subsample : int or float or None, default=1000
        ICE lines drawn per panel: a count, a fraction of the rows, or ``None`` for all.
    random_state : int, Generator or None, default=None
        Seeds the choice of the ICE lines drawn (the same rows in every panel).
    is_categorical : list of tuple of bool, optional
        Default: from the results' ``feature_kinds``.
    output : int, default=0
        Same as ``target_idx`` (ixplain's name).
    ale : list of (AccumulatedLocalEffects or None), optional
        One entry per panel: an ALE result of the same numeric feature drawn on the PD axis
        (with its band), shifted to the PD's mean over the PD grid (ALE is centred, PD is not).

    Attributes
    ----------
    pd_results, results : list of PartialDependence
        The results drawn (``results`` is ixplain's name for the same list).
    figure_ : matplotlib Figure
    bounding_ax_ : matplotlib Axes or None
        The Axes the grid was drawn in (``ax=None`` or a single Axes), else ``None``.
    axes_ : ndarray of Axes
        Of shape (n_rows, n_cols) for a grid made here (``None`` in unused cells), else the
        shape of the Axes given.
    lines_ : ndarray of (Line2D or None)
        Shaped like ``axes_`` when every panel is ``"average"`` (the PD line); else with a last
        axis of length n_ice (+ 1 when a panel is ``"both"``): the ICE lines, then the PD line.
    ice_lines_ : ndarray of list of Line2D
        Shaped like ``axes_``: the ICE lines drawn in each panel.
    deciles_vlines_, deciles_hlines_ : ndarray of (LineCollection or None)
        Shaped like ``axes_``: the decile rug of the x (first) and y (second) feature.
    contours_, bars_, heatmaps_ : ndarray of (artist or None)
        Shaped like ``axes_``: the contour set of numeric 2-way panels, the bars of categorical
        panels, the image of 2-way panels with a categorical feature.
    colorbars_ : ndarray of (Colorbar or None)
        Shaped like ``axes_`` (heatmaps only).
    ale_lines_ : ndarray of (Line2D or None)
        Shaped like ``axes_``: the ALE line of each panel, where one was given.

    References
    ----------
    .. [1] A. Goldstein et al., "Peeking inside the black box: visualizing statistical learning
       with plots of individual conditional expectation", JCGS 24(1), 2015.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from ixplain import PartialDependenceDisplay
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> disp = PartialDependenceDisplay.from_estimator(
    ...     lambda A: A[:, 0] ** 2 + A[:, 1], X, [0, 1, (0, 1)], grid_resolution=10)
    >>> disp.axes_.shape, disp.lines_.shape, disp.contours_[0, 2] is not None
    ((1, 3), (1, 3), True)
    """

    def __init__(
        self,
        pd_results: Sequence[PartialDependence] | PartialDependence,
        *,
        features: Sequence[Sequence[int]] | None = None,
        feature_names: Any = None,
        target_idx: int | None = None,
        deciles: dict[int, Any] | None = None,
        kind: str | Sequence[str] | None = None,
        subsample: int | float | None = 1000,
        random_state: Any = None,
        is_categorical: Sequence[Sequence[bool]] | None = None,
        output: int = 0,
        ale: Sequence[Any] | None = None,
    ) -> None:
        if isinstance(pd_results, PartialDependence):
            pd_results = [pd_results]
        if not pd_results or not all(isinstance(r, PartialDependence) for r in pd_results):
            raise param_error(_OWNER, "pd_results", "a non-empty list of PartialDependence",
                              pd_results, exc=TypeError)
        for r in pd_results:
            if len(r.features) > 2:
                raise ValueError(
                    f"{_OWNER} draws 1- or 2-feature results; got features {list(r.features)}."
                )
        self.pd_results = list(pd_results)
        names = _names_in_order(self.pd_results)
        self.feature_names = np.asarray(names if feature_names is None else list(feature_names),
                                        dtype=object)
        index = {str(n): i for i, n in enumerate(self.feature_names)}
        self.features = (
            [tuple(index[str(f)] for f in r.features) for r in self.pd_results]
            if features is None else [tuple(f) for f in features]
        )
        self.output = check_int(output, "output", _OWNER, min_value=0) or 0
        self.target_idx = self.output if target_idx is None else int(target_idx)
        self.deciles = _deciles(self.pd_results, self.features) if deciles is None else deciles
        self.kind = [r.kind for r in self.pd_results] if kind is None else kind
        self.subsample = check_subsample(subsample, _OWNER)
        self.random_state = random_state
        self.is_categorical = (
            [tuple(k == "categorical" for k in r.feature_kinds) for r in self.pd_results]
            if is_categorical is None else is_categorical
        )
        self.ale = _check_ale(ale, len(self.pd_results))

    @property
    def results(self) -> list[PartialDependence]:
        """The results drawn (the same list as ``pd_results``)."""
        return self.pd_results

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        features: Any,
        *,
        sample_weight: Any = None,
        categorical_features: Any = None,
        feature_names: Any = None,
        target: Any = None,
        response_method: str = "auto",
        n_cols: int = 3,
        grid_resolution: int = 100,
        percentiles: tuple[float, float] = (0.05, 0.95),
        custom_values: dict[Any, Any] | None = None,
        method: str = "auto",
        n_jobs: int | None = None,
        verbose: int = 0,
        line_kw: dict[str, Any] | None = None,
        ice_lines_kw: dict[str, Any] | None = None,
        pd_line_kw: dict[str, Any] | None = None,
        contour_kw: dict[str, Any] | None = None,
        ax: Any = None,
        kind: str | Sequence[str] = "average",
        centered: bool = False,
        subsample: int | float | None = 1000,
        random_state: Any = None,
        grid: str = "percentile",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        ale: bool = False,
        bar_kw: dict[str, Any] | None = None,
        heatmap_kw: dict[str, Any] | None = None,
    ) -> PartialDependenceDisplay:
        """Compute PD/ICE with :func:`ixplain.partial_dependence` and plot one panel per entry.

        Parameters
        ----------
        estimator, X, sample_weight, categorical_features, feature_names, response_method,
        percentiles, grid_resolution, method, grid, memory_budget, n_jobs
            As in :func:`ixplain.partial_dependence`.
        features : int, str, or list of (int, str or pair of them)
            One entry per panel: a feature (1-way) or a pair (2-way).
        target : int or class label, optional
            The class (multiclass classifier) or output index (multi-output regressor) drawn;
            required when the model has several outputs.
        custom_values : dict, optional
            ``{feature: 1-D array}``: the grid of that feature in every panel that shows it
            (keys by name or by column index).
        verbose : int, default=0
            Accepted for scikit-learn compatibility (progress is ixplain's ``progress``).
        kind : {"average", "individual", "both"} or list of them, default="average"
            Per panel or for all; 2-way panels are ``"average"`` only.
        centered : bool, default=False
            Draw every curve minus its value at the first grid point.
        subsample : int or float or None, default=1000
            ICE lines drawn per panel (the PD averages all rows).
        random_state : int, Generator or None
            Seeds the ICE lines drawn.
        ale : bool, default=False
            Also compute :func:`ixplain.accumulated_local_effects` of every 1-way numeric
            panel and draw it on the same axis (PD can mislead on correlated features).
        ax, n_cols, line_kw, ice_lines_kw, pd_line_kw, contour_kw, bar_kw, heatmap_kw
            Passed to :meth:`plot`.

        Returns
        -------
        PartialDependenceDisplay

        Raises
        ------
        ValueError
            For a bad feature entry, a missing or unknown ``target``, a ``kind`` list of the
            wrong length, ICE asked for a 2-way or a categorical panel (scikit-learn's
            messages are part of ixplain's).
        """
        from ..methods.pdp import partial_dependence

        names = column_names(X, feature_names, _OWNER)
        entries = panel_features(features, names, _OWNER)
        kinds = panel_kinds(kind, len(entries), _OWNER)
        subsample = check_subsample(subsample, _OWNER)
        custom = _custom_by_name(custom_values, names)
        pd_target, target_idx = _pd_target(estimator, target)
        for entry, panel_kind in zip(entries, kinds):  # before any model call
            if len(entry) == 2 and panel_kind != "average":
                refuse_before_drawing(PairOnly([names[i] for i in entry]), panel_kind, _OWNER)
        results = []
        for entry, panel_kind in zip(entries, kinds):
            res = partial_dependence(
                estimator, X, [names[i] for i in entry], sample_weight=sample_weight,
                categorical_features=categorical_features, feature_names=feature_names,
                response_method=response_method, percentiles=percentiles,
                grid_resolution=grid_resolution,
                custom_values={n: v for n, v in custom.items() if n in [names[i] for i in entry]}
                or None,
                method=method, kind=panel_kind, grid=grid, target=pd_target,
                memory_budget=memory_budget, n_jobs=n_jobs,
            )
            target_idx = require_target(res, target, target_idx, estimator, _OWNER)
            refuse_before_drawing(res, panel_kind, _OWNER)
            results.append(res)
        ale_results = None
        if check_bool(ale, "ale", f"{_OWNER}.from_estimator"):
            from ..methods.ale import accumulated_local_effects

            ale_results = [
                accumulated_local_effects(
                    estimator, X, list(r.features), sample_weight=sample_weight,
                    categorical_features=categorical_features, feature_names=feature_names,
                    response_method=response_method, target=target,
                ) if len(r.features) == 1 and r.feature_kinds[0] == "numeric" else None
                for r in results
            ]
        display = cls(results, features=entries, feature_names=names, kind=kind,
                      target_idx=target_idx,
                      subsample=subsample, random_state=random_state, ale=ale_results)
        return display.plot(
            ax=ax, n_cols=n_cols, line_kw=line_kw, ice_lines_kw=ice_lines_kw,
            pd_line_kw=pd_line_kw, contour_kw=contour_kw, bar_kw=bar_kw, heatmap_kw=heatmap_kw,
            centered=centered,
        )

    @classmethod
    def from_result(
        cls,
        results: PartialDependence | Sequence[PartialDependence],
        *,
        output: int = 0,
        subsample: int | float | None = 1000,
        random_state: Any = None,
        ax: Any = None,
        n_cols: int = 3,
        **plot_kw: Any,
    ) -> PartialDependenceDisplay:
        """Plot results computed with :func:`ixplain.partial_dependence` (one panel each).

        Parameters
        ----------
        results : PartialDependence or list of PartialDependence
        output, subsample, random_state
            See the class parameters.
        ax, n_cols, **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        PartialDependenceDisplay
        """
        display = cls(results, output=output, subsample=subsample, random_state=random_state)
        return display.plot(ax=ax, n_cols=n_cols, **plot_kw)

    # ------------------------------------------------------------------ drawing
    def plot(
        self,
        *,
        ax: Any = None,
        n_cols: int = 3,
        line_kw: dict[str, Any] | None = None,
        ice_lines_kw: dict[str, Any] | None = None,
        pd_line_kw: dict[str, Any] | None = None,
        contour_kw: dict[str, Any] | None = None,
        bar_kw: dict[str, Any] | None = None,
        heatmap_kw: dict[str, Any] | None = None,
        pdp_lim: dict[int, tuple[float, float]] | None = None,
        centered: bool = False,
    ) -> PartialDependenceDisplay:
        """Draw the panels.

        Parameters
        ----------
        ax : Axes or array-like of Axes, optional
            One Axes: the grid is drawn inside it (its frame hidden; ``bounding_ax_``). Several:
            one per panel, kept in their shape. Default: a new figure.
        n_cols : int, default=3
            Columns of the grid drawn inside a bounding Axes.
        line_kw : dict, optional
            Keyword arguments of both ICE and PD lines (``c``, ``ls``, ``lw`` accepted).
        ice_lines_kw, pd_line_kw : dict, optional
            Keyword arguments of the ICE lines and of the PD line (override ``line_kw``); a
            ``label`` names the PD line in the legend.
        contour_kw : dict, optional
            Keyword arguments of ``contourf`` (numeric 2-way panels).
        bar_kw, heatmap_kw : dict, optional
            Keyword arguments of ``bar`` (categorical panels) and ``imshow`` (2-way panels with
            a categorical feature).
        pdp_lim : dict, optional
            ``{1: (low, high), 2: (low, high)}``: value range of 1-way panels (y axis) and of
            2-way panels (contour levels); default: the range of the values drawn, padded 5%.
        centered : bool, default=False
            Draw every curve minus its value at the first grid point.

        Returns
        -------
        self

        Raises
        ------
        TypeError
            If a ``*_kw`` parameter is not a dict (or None).
        """
        n_cols = check_int(n_cols, "n_cols", _OWNER, min_value=1) or 1
        line_kw, ice_lines_kw, pd_line_kw, contour_kw, bar_kw, heatmap_kw = (
            check_kw(v, n, _OWNER) for v, n in (
                (line_kw, "line_kw"), (ice_lines_kw, "ice_lines_kw"), (pd_line_kw, "pd_line_kw"),
                (contour_kw, "contour_kw"), (bar_kw, "bar_kw"), (heatmap_kw, "heatmap_kw")))
        centered = check_bool(centered, "centered", _OWNER)
        kinds = check_kind(self.kind, len(self.pd_results), _OWNER)
        place = draw.layout(len(self.pd_results), n_cols, ax)
        self.figure_, self.axes_, self.bounding_ax_ = place.figure, place.axes, place.bounding_ax
        output = self._output()
        panels = list(zip(self.pd_results, kinds))
        limits = draw.pd_limits(panels, output, centered) if pdp_lim is None else dict(pdp_lim)
        ice_rows = self._ice_rows()
        arts = []
        for i, ((result, kind), panel) in enumerate(zip(panels, place.panel_axes(len(panels)))):
            pd_kw, ice_kw = draw.line_kwargs(kind, line_kw, pd_line_kw, ice_lines_kw)
            style = draw.PanelStyle(
                pd_kw, ice_kw, dict(contour_kw or {}), dict(bar_kw or {}), dict(heatmap_kw or {}),
                limits, first_column=place.n_cols is None or i % place.n_cols == 0,
            )
            drawn = draw.draw_panel(panel, result, kind, output, ice_rows, style, centered)
            drawn["ale"] = _draw_ale(panel, result, self.ale[i], output, centered)
            arts.append(drawn)
        self._store(arts, kinds, place)
        return self

    def _output(self) -> int:
        n_out = min(r.n_outputs for r in self.pd_results)
        if not 0 <= self.target_idx < n_out:
            raise param_error(_OWNER, "target_idx", f"an int in [0, {n_out - 1}] for these results",
                              self.target_idx)
        return self.target_idx

    def _ice_rows(self) -> np.ndarray:
        """The rows whose ICE curves are drawn (the same in every panel)."""
        n_rows = min((r.individual.shape[1] for r in self.pd_results if r.individual is not None),
                     default=0)
        if self.subsample is None:
            return np.arange(n_rows)
        size = self.subsample if isinstance(self.subsample, int) else max(
            1, int(self.subsample * n_rows))
        if size >= n_rows:
            return np.arange(n_rows)
        rng = check_random_state(self.random_state, _OWNER)
        return np.sort(rng.choice(n_rows, size=size, replace=False))

    def _store(self, arts: list[dict[str, Any]], kinds: list[str], place: draw.Layout) -> None:
        """Artist arrays shaped like ``axes_`` (``lines_`` with an ICE axis when ICE is drawn)."""
        shape = self.axes_.shape

        def grid(key: str) -> np.ndarray:
            out = np.empty(shape, dtype=object)
            for i, a in enumerate(arts):
                out[place.position(i)] = a.get(key)
            return out

        self.contours_, self.bars_, self.heatmaps_ = grid("contour"), grid("bars"), grid("heatmap")
        self.deciles_vlines_, self.deciles_hlines_ = grid("deciles_v"), grid("deciles_h")
        self.colorbars_, self.ale_lines_ = grid("colorbar"), grid("ale")
        self.ice_lines_ = np.empty(shape, dtype=object)
        for i, a in enumerate(arts):
            self.ice_lines_[place.position(i)] = list(a.get("ice", []))
        if all(k == "average" for k in kinds):
            self.lines_ = grid("line")
            return
        n_lines = max(len(a.get("ice", [])) for a in arts) + int("both" in kinds)
        self.lines_ = np.empty(shape + (n_lines,), dtype=object)
        for i, a in enumerate(arts):
            ice = a.get("ice", [])
            self.lines_[place.position(i)][: len(ice)] = ice
            if a.get("line") is not None:
                self.lines_[place.position(i)][-1] = a["line"]


# ---------------------------------------------------------------------------------- helpers
class PairOnly:
    """The features of a 2-way panel before its result exists (for the kind check)."""

    def __init__(self, features: list[str]) -> None:
        self.features = features
        self.feature_kinds = ("numeric", "numeric")


def _pd_target(estimator: Any, target: Any) -> tuple[Any, int | None]:
    """``target`` for :func:`partial_dependence` and the output index drawn (scikit-learn's).

    A multiclass classifier and a regressor are computed for all their outputs and the drawn
    one is an index (``target_idx``); a binary or River classifier selects its class in the
    model (ixplain's meaning of ``target``).
    """
    classes = getattr(estimator, "classes_", None)
    if classes is not None and len(np.asarray(classes)) > 2:
        listed = np.asarray(classes).tolist()
        if target is None:
            return None, None
        if target not in listed:
            raise param_error(_OWNER, "target",
                              f"one of the model's classes {listed} (target not in "
                              f"est.classes_, got {target})", target)
        return None, listed.index(target)
    if classes is None and not hasattr(estimator, "predict_proba_one"):
        return None, None if target is None else target
    return target, 0


def _names_in_order(results: Sequence[PartialDependence]) -> list[str]:
    names: list[str] = []
    for r in results:
        names.extend(f for f in r.features if f not in names)
    return names


def _deciles(results: Sequence[PartialDependence], features: list[tuple[int, ...]]) -> dict:
    out: dict[int, Any] = {}
    for r, idx in zip(results, features):
        for j, i in enumerate(idx):
            if r.deciles[j] is not None:
                out.setdefault(i, r.deciles[j])
    return out


def _custom_by_name(custom_values: Any, names: list[str]) -> dict[str, Any]:
    """``custom_values`` keyed by feature name (an int key is a column index)."""
    if not custom_values:
        return {}
    if not isinstance(custom_values, dict):
        raise param_error(_OWNER, "custom_values", "None or a dict {feature: 1-D array}",
                          custom_values, exc=TypeError)
    out = {}
    for key, values in custom_values.items():
        if isinstance(key, numbers.Integral) and not isinstance(key, bool) and key not in names:
            if not 0 <= int(key) < len(names):
                raise param_error(_OWNER, "custom_values",
                                  f"keyed by feature names or column indices in [0, {len(names) - 1}]",
                                  custom_values)
            key = names[int(key)]
        out[key] = values
    return out


def _check_ale(ale: Any, n_panels: int) -> list[Any]:
    from ..results.ale import AccumulatedLocalEffects

    if ale is None:
        return [None] * n_panels
    items = [ale] if isinstance(ale, AccumulatedLocalEffects) else list(ale)
    if len(items) != n_panels or not all(
        a is None or (isinstance(a, AccumulatedLocalEffects) and len(a.features) == 1)
        for a in items
    ):
        raise param_error(_OWNER, "ale", f"None or {n_panels} 1-way ALE results (or None each)",
                          ale, exc=TypeError)
    return items


def _draw_ale(ax: Any, result: PartialDependence, ale: Any, output: int, centered: bool) -> Any:
    """ALE on the PD axis, shifted so that its mean over the PD grid is the PD's mean there."""
    if ale is None or result.average is None or len(result.features) != 1:
        return None
    if ale.features[0] != result.features[0] or result.feature_kinds[0] != "numeric":
        raise ValueError(
            f"{_OWNER}: an ALE result of {ale.features[0]!r} cannot share the panel of the "
            f"PD of {result.features[0]!r} (numeric features only, the same feature)."
        )
    from .ale import draw_ale_line

    grid = np.asarray(result.grid_values[0], dtype=float)
    keep = ~np.isnan(grid)
    edges = np.asarray(ale.grid_values[0], dtype=float)
    ale_at = np.interp(grid[keep], edges, ale.average[output])
    average = draw.panel_values(result, output, "average", centered)
    if average is None:
        return None
    offset = float(np.mean(average[keep] - ale_at))
    arts = draw_ale_line(ax, ale, output, offset=offset)
    ax.set_ylabel("partial dependence / ALE")
    ax.relim()
    ax.autoscale(axis="y")
    ax.legend(loc="best", fontsize="small")
    return arts.get("line")

