"""The result of :func:`ixplain.partial_dependence`: a typed, scikit-learn-compatible Bunch."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PartialDependence"]

_BUNCH_KEYS = ("grid_values", "average", "individual")


@dataclass
class PartialDependence:
    """Partial dependence (PD) and individual conditional expectation (ICE) of a feature set.

    Holds the same keys, shapes and values as the ``Bunch`` returned by
    :func:`sklearn.inspection.partial_dependence` (attribute and key access:
    ``result.average`` and ``result["average"]``), plus the settings that produced it.

    Attributes
    ----------
    grid_values : list of ndarray
        One array per feature in ``features``; ``grid_values[j]`` has shape (n_grid_j,). The grid
        is their cartesian product.
    average : ndarray of shape (n_outputs, n_grid_0, ..., n_grid_{d-1}) or None
        The PD: the model's output with ``features`` set to each grid point, averaged over the
        rows (weighted by ``sample_weight``). ``None`` for ``kind="individual"``.
    individual : ndarray of shape (n_outputs, n_rows, n_grid_0, ..., n_grid_{d-1}) or None
        The ICE curves: one per row. ``None`` for ``kind="average"``.
    features : tuple of str
        The names of the features, in grid order.
    feature_kinds : tuple of {"numeric", "categorical"}
    deciles : list of (ndarray of shape (9,) or None)
        Deciles of each numeric feature's non-missing values (for the plot's rug).
    kind : {"average", "individual", "both"}
    method : str
        ``"brute"`` or ``"recursion"`` (or a method added later, e.g. ``"tree"``).
    centered : bool
        Whether the curves were shifted to 0 at the first grid point (c-ICE).
    output_names : list of str or None
        Names of the ``n_outputs`` rows (class labels for multiclass output), else ``None``.
    target : object or None
        The class selected with ``target``, if any.
    response_method : str
        The model output explained (``"predict"``, ``"predict_proba"``, ...).
    upcast : tuple of str
        Integer features whose grid holds non-integer values: the model received them as
        float64 columns.
    missing_in_grid : tuple of bool
        For each feature, whether its last grid value is the missing value (NaN).
    grid_rules : tuple of str
        How each grid was built (``"unique"``, ``"percentile"``, ``"quantile"``, ``"custom"``,
        ``"unique-fallback"``).
    n_rows : int
        Number of rows averaged (after ``subsample``).
    extra : dict
        Method-specific details (e.g. the rows seen by an incremental explainer).

    Examples
    --------
    >>> import numpy as np
    >>> from ixplain import partial_dependence
    >>> X = np.array([[0.0, 1.0], [1.0, 3.0]])
    >>> pd_ = partial_dependence(lambda X: X[:, 0] * X[:, 1], X, "x0", kind="both")
    >>> pd_["average"], pd_.individual.shape
    (array([[0., 2.]]), (1, 2, 2))
    """

    grid_values: list[np.ndarray]
    average: np.ndarray | None
    individual: np.ndarray | None
    features: tuple[str, ...]
    feature_kinds: tuple[str, ...]
    deciles: list[np.ndarray | None]
    kind: str
    method: str
    centered: bool = False
    output_names: list[str] | None = None
    target: Any = None
    response_method: str = "predict"
    upcast: tuple[str, ...] = ()
    missing_in_grid: tuple[bool, ...] = ()
    grid_rules: tuple[str, ...] = ()
    n_rows: int = 0
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ Bunch-like access
    def keys(self) -> list[str]:
        """The keys scikit-learn's Bunch would have (``average``/``individual`` per ``kind``)."""
        return [k for k in _BUNCH_KEYS if getattr(self, k) is not None]

    def __getitem__(self, key: str) -> Any:
        if key in self.keys():
            return getattr(self, key)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return key in self.keys()

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    @property
    def n_outputs(self) -> int:
        """Number of outputs (1, classes of a multiclass model, or regression targets)."""
        arr = self.average if self.average is not None else self.individual
        return int(arr.shape[0]) if arr is not None else 0

    # ------------------------------------------------------------------ conversions
    def _output_labels(self) -> list[str]:
        if self.output_names is not None:
            return list(self.output_names)
        if self.target is not None:
            return [str(self.target)]
        return [str(i) for i in range(self.n_outputs)]

    def to_frame(self, kind: str | None = None) -> pd.DataFrame:
        """Long-format table of the values.

        Parameters
        ----------
        kind : {"average", "individual"}, optional
            Which array to convert; default ``"average"`` when present, else ``"individual"``.

        Returns
        -------
        DataFrame
            One row per (output, grid point) -- and per data row for ``"individual"`` (column
            ``row``) -- with one column per feature holding the grid value, a column ``output``
            and a column ``value``.
        """
        import pandas as pd

        if kind is None:
            kind = "average" if self.average is not None else "individual"
        arr = self.average if kind == "average" else self.individual
        if arr is None:
            raise ValueError(f"This result has no {kind!r} values (kind={self.kind!r}).")
        labels = self._output_labels()
        grids = [np.asarray(g, dtype=object) for g in self.grid_values]
        mesh = np.meshgrid(*[np.arange(len(g)) for g in grids], indexing="ij")
        flat_idx = [m.ravel() for m in mesh]
        n_points = len(flat_idx[0])
        frames = []
        for o, label in enumerate(labels):
            if kind == "average":
                data: dict[str, Any] = {"output": label}
                for name, g, idx in zip(self.features, grids, flat_idx):
                    data[name] = g[idx]
                data["value"] = arr[o].reshape(n_points)
                frames.append(pd.DataFrame(data))
            else:
                n_rows = arr.shape[1]
                data = {"output": label, "row": np.repeat(np.arange(n_rows), n_points)}
                for name, g, idx in zip(self.features, grids, flat_idx):
                    data[name] = np.tile(g[idx], n_rows)
                data["value"] = arr[o].reshape(n_rows * n_points)
                frames.append(pd.DataFrame(data))
        out = pd.concat(frames, ignore_index=True)
        for name, g in zip(self.features, self.grid_values):
            if np.asarray(g).dtype.kind in "iufb":
                out[name] = out[name].astype(np.asarray(g).dtype)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (lists instead of arrays, NaN kept as ``None``)."""

        def plain(a: Any) -> Any:
            if a is None:
                return None
            arr = np.asarray(a, dtype=object)
            return [_json_value(v) for v in arr.ravel()] if arr.ndim == 1 else _nested(arr)

        return {
            "features": list(self.features),
            "feature_kinds": list(self.feature_kinds),
            "grid_values": [plain(g) for g in self.grid_values],
            "average": None if self.average is None else _nested(self.average),
            "individual": None if self.individual is None else _nested(self.individual),
            "deciles": [plain(d) for d in self.deciles],
            "kind": self.kind,
            "method": self.method,
            "centered": self.centered,
            "output_names": self.output_names,
            "target": _json_value(self.target),
            "response_method": self.response_method,
            "upcast": list(self.upcast),
            "missing_in_grid": list(self.missing_in_grid),
            "grid_rules": list(self.grid_rules),
            "n_rows": self.n_rows,
        }

    def __repr__(self) -> str:
        grid = " x ".join(str(len(g)) for g in self.grid_values)
        return (f"PartialDependence(features={self.features!r}, kind={self.kind!r}, "
                f"method={self.method!r}, grid {grid}, {self.n_outputs} output(s), "
                f"{self.n_rows} rows)")

    def _repr_html_(self) -> str:
        """A compact HTML summary for notebooks (:mod:`ixplain._html`)."""
        from .._html import render

        return render("curve", self)


def _json_value(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if np.isnan(v) else float(v)
    try:
        import pandas as pd

        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return v if isinstance(v, (int, str)) else str(v)


def _nested(arr: np.ndarray) -> Any:
    arr = np.asarray(arr)
    if arr.dtype.kind == "f":
        obj = arr.astype(object)
        obj[np.isnan(arr)] = None
        return obj.tolist()
    if arr.dtype.kind in "iub":
        return arr.tolist()
    if arr.ndim == 0:
        return _json_value(arr.item())
    return [_nested(a) for a in arr]
