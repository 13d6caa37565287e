"""The result of :func:`ixplain.accumulated_local_effects`: ALE curves with an honest band."""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from .partial_dependence import _json_value, _nested

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AccumulatedLocalEffects"]


@dataclass
class AccumulatedLocalEffects:
    """Accumulated local effects (ALE) of one feature or of a pair of numeric features.

    A member of the :class:`~ixplain.results.PartialDependence` family: ``grid_values`` holds
    the points where the curve is evaluated and ``average`` the (centred) ALE there, so the
    same plotting code reads both.

    Attributes
    ----------
    grid_values : list of ndarray
        One array per feature. For a ``"numeric"`` feature the ``n_bins + 1`` bin edges
        ``z_0 < ... < z_K``; for a ``"discrete"`` or ``"categorical"`` feature its ``K + 1``
        levels in the order the effects are accumulated. A datetime feature is numeric in
        time order: its edges are datetimes of the column's type (``numpy.datetime64`` of its
        unit, a pandas ``DatetimeArray`` in its time zone, or datetime objects; durations
        alike); ``to_dict`` writes them as ISO 8601 strings.
    average : ndarray of shape (n_outputs, n_grid) or (n_outputs, n_grid_0, n_grid_1)
        The centred ALE at the grid values: its mean over the rows is 0 (first order:
        Apley & Zhu's centring; second order: main effects removed, then centred).
    std : ndarray of the shape of ``average`` or None
        Standard error of ``average`` from the accumulated variance of the per-bin means (the
        bins are independent given the edges and the bin counts; the centring is included).
        ``None`` for 2-way results. NaN at every point that depends on a bin with fewer
        than two rows (an empty bin's effect is filled from its neighbour, see
        :attr:`empty_bins`: the curve is drawn, its uncertainty is unknown).
    bin_counts : ndarray of int
        Rows per bin, shape (n_bins,) (numeric), per level (n_levels,) (discrete, categorical)
        or per cell (n_bins_0, n_bins_1) (2-way).
    features : tuple of str
    feature_kinds : tuple of {"numeric", "discrete", "categorical"}
    deciles : list of (ndarray of shape (9,) or None)
        Deciles of each numeric feature's non-missing values (for the plot's rug).
    output_names : list of str or None
        Names of the outputs (class labels of a multiclass model), else ``None``.
    target : object or None
    response_method : str
    n_rows : int
        Rows that entered the bins.
    n_missing : tuple of int
        Rows left out because the feature's value is missing (never NaN effects).
    n_outside : tuple of int
        Rows left out because the value lies outside custom edges.
    edge_rule : tuple of str
        ``"quantile"``, ``"levels"``, ``"custom"`` or ``"ordered"``/``"similarity"``/``"sorted"``
        (how categorical levels were ordered).
    extra : dict
        Method-specific details (e.g. the stream position of an incremental estimate).

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import accumulated_local_effects
    >>> X = np.c_[np.arange(6.0), np.zeros(6)]
    >>> ale = accumulated_local_effects(lambda A: 2 * A[:, 0], X, "x0", grid_resolution=2,
    ...                                 min_bin_size=1)
    >>> ale.grid_values[0], ale.average
    (array([0., 2., 5.]), array([[-4.5, -0.5,  5.5]]))
    """

    grid_values: list[np.ndarray]
    average: np.ndarray
    std: np.ndarray | None
    bin_counts: np.ndarray
    features: tuple[str, ...]
    feature_kinds: tuple[str, ...]
    deciles: list[np.ndarray | None]
    output_names: list[str] | None = None
    target: Any = None
    response_method: str = "predict"
    n_rows: int = 0
    n_missing: tuple[int, ...] = ()
    n_outside: tuple[int, ...] = ()
    edge_rule: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    kind = "average"
    centered = True

    @property
    def n_outputs(self) -> int:
        """Number of outputs."""
        return int(self.average.shape[0])

    @property
    def individual(self) -> None:
        """ALE has no per-row curves (kept for the PD plotting code)."""
        return None

    @property
    def empty_bins(self) -> np.ndarray:
        """Bins (cells) without rows, whose effect was filled from the nearest bin.

        Returns
        -------
        ndarray of bool
            Shape (n_bins,) for a numeric feature (``bin_counts == 0``, or only rows of
            weight 0), (n_bins_0, n_bins_1) for 2-way results; all False for a discrete or
            categorical feature (its levels are the values seen).
        """
        if "empty_bins" in self.extra:
            return np.asarray(self.extra["empty_bins"], dtype=bool)
        return np.asarray(self.bin_counts) == 0

    def band(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Pointwise normal band ``average -/+ z * std`` at confidence ``level``.

        Parameters
        ----------
        level : float in (0, 1), default=0.95

        Returns
        -------
        lower, upper : ndarray of the shape of ``average``

        Raises
        ------
        ValueError
            If the result has no standard errors (2-way ALE) or ``level`` is not in (0, 1).
        """
        if self.std is None:
            raise ValueError("This ALE result has no standard errors (2-way ALE has no band).")
        if not 0 < float(level) < 1:
            raise ValueError(
                f"The 'level' parameter of AccumulatedLocalEffects.band must be a float in (0, 1)."
                f" Got {level!r} instead."
            )
        z = band_z(level)
        return self.average - z * self.std, self.average + z * self.std

    def _output_labels(self) -> list[str]:
        if self.output_names is not None:
            return list(self.output_names)
        if self.target is not None:
            return [str(self.target)]
        return [str(i) for i in range(self.n_outputs)]

    def to_frame(self) -> pd.DataFrame:
        """Long-format table: one row per (output, grid point).

        Returns
        -------
        DataFrame
            Columns ``output``, one per feature (the grid value), ``value`` and, for 1-way
            results, ``std``.
        """
        import pandas as pd

        grids = [g if _is_time(g) else np.asarray(g, dtype=object) for g in self.grid_values]
        mesh = np.meshgrid(*[np.arange(len(g)) for g in grids], indexing="ij")
        idx = [m.ravel() for m in mesh]
        frames = []
        for o, label in enumerate(self._output_labels()):
            data: dict[str, Any] = {"output": label}
            for name, g, i in zip(self.features, grids, idx):
                data[name] = g[i]
            data["value"] = self.average[o].ravel()
            if self.std is not None:
                data["std"] = self.std[o].ravel()
            frames.append(pd.DataFrame(data))
        out = pd.concat(frames, ignore_index=True)
        for name, g in zip(self.features, self.grid_values):
            if np.asarray(g).dtype.kind in "iufb":
                out[name] = out[name].astype(np.asarray(g).dtype)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (lists instead of arrays, NaN as ``None``)."""
        return {
            "method": "ale",
            "features": list(self.features),
            "feature_kinds": list(self.feature_kinds),
            "grid_values": [_iso(g) if _is_time(g) else [
                _json_value(v) for v in np.asarray(g, dtype=object)] for g in self.grid_values],
            "average": _nested(self.average),
            "std": None if self.std is None else _nested(self.std),
            "bin_counts": np.asarray(self.bin_counts).tolist(),
            "deciles": [None if d is None else _iso(d) if _is_time(d) else _nested(d)
                        for d in self.deciles],
            "output_names": self.output_names,
            "target": _json_value(self.target),
            "response_method": self.response_method,
            "n_rows": self.n_rows,
            "n_missing": list(self.n_missing),
            "n_outside": list(self.n_outside),
            "edge_rule": list(self.edge_rule),
        }

    def __repr__(self) -> str:
        grid = " x ".join(str(len(g)) for g in self.grid_values)
        return (f"AccumulatedLocalEffects(features={self.features!r}, grid {grid}, "
                f"{self.n_outputs} output(s), {self.n_rows} rows)")

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`)."""
        from .._html import render

        return render("curve", self)


def _is_time(values: Any) -> bool:
    """Whether grid values are datetimes or durations (numpy or pandas arrays)."""
    return getattr(getattr(values, "dtype", None), "kind", None) in ("M", "m")


def _iso(values: Any) -> list[str | None]:
    """Datetimes (durations) as ISO 8601 strings (with the offset of a time zone), NaT as
    ``None``."""
    import pandas as pd

    return [None if pd.isna(v) else v.isoformat() for v in pd.Index(values)]


def band_z(level: float) -> float:
    """The normal quantile of a two-sided ``level`` band (1.96 for 0.95)."""
    return NormalDist().inv_cdf(0.5 + float(level) / 2)
