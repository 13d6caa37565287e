"""The explainers the CLI drives, found by their public names, and what it records from them.

The CLI uses only the explainers' documented interface: the constructor arguments of the issue
specs, ``explain_one(x, y)``, ``importances_``, ``variances_``, ``confidence_bound(delta)`` and
``pd_``. A method whose class is not in this build of ixplain is reported as unavailable and
skipped by the default run (asking for it explicitly is an error).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._errors import CLIError

__all__ = [
    "INCREMENTAL_CLASSES",
    "STATIC_FUNCTIONS",
    "StreamExplainers",
    "available",
    "importance_vector",
    "pd_curve",
]

#: ``--explain`` name -> public class name of the incremental explainer.
INCREMENTAL_CLASSES = {"pfi": "IncrementalPFI", "sage": "IncrementalSAGE", "pdp": "IncrementalPDP"}
#: ``--methods`` name -> public function name of the static explainer.
STATIC_FUNCTIONS = {
    "pd": "partial_dependence",
    "ice": "partial_dependence",
    "pfi": "permutation_importance",
    "sage": "sage",
}

#: Confidence level of the bands drawn around importance traces (1 - delta).
DELTA = 0.05


def _public(name: str) -> Any:
    import ixplain

    return getattr(ixplain, name, None)


def available(kind: str = "incremental") -> dict[str, bool]:
    """Which methods this build of ixplain provides, by CLI name."""
    table = INCREMENTAL_CLASSES if kind == "incremental" else STATIC_FUNCTIONS
    return {key: _public(name) is not None for key, name in table.items()}


def importance_vector(values: Any, names: Sequence[str]) -> np.ndarray:
    """Importances (a mapping name -> value, or an array in ``names`` order) as a float array."""
    if values is None:
        return np.full(len(names), np.nan)
    if isinstance(values, Mapping):
        return np.array([float(values.get(n, np.nan)) for n in names], dtype=np.float64)
    arr = np.asarray(values, dtype=np.float64).reshape(-1)
    if arr.shape[0] != len(names):
        # one number (a scalar bound) applies to every feature
        if arr.shape[0] == 1:
            return np.full(len(names), float(arr[0]))
        raise ValueError(f"expected {len(names)} importance values, got {arr.shape[0]}")
    return arr


def pd_curve(pd_: Any, feature: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``(grid, values)`` of one feature's current PD, whatever container ``pd_`` is."""
    if pd_ is None:
        return None
    grid: Any
    values: Any
    if hasattr(pd_, "grid_values") and hasattr(pd_, "average"):
        grid, values = pd_.grid_values, pd_.average
        if isinstance(grid, (list, tuple)) and len(grid) and np.ndim(grid[0]) >= 1:
            grid = grid[0]
    elif isinstance(pd_, Mapping):
        grid = pd_.get("grid_values", pd_.get("grid"))
        values = pd_.get("average", pd_.get("values", pd_.get("pd")))
        if isinstance(grid, (list, tuple)) and len(grid) and np.ndim(grid[0]) >= 1:
            grid = grid[0]
    elif isinstance(pd_, tuple) and len(pd_) == 2:
        grid, values = pd_
    else:
        return None
    if grid is None or values is None:
        return None
    grid = np.asarray(grid)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim > 1:  # (n_outputs, n_grid): the first output (binary: positive class)
        values = values.reshape(-1, values.shape[-1])[0]
    if grid.shape[0] != values.shape[0]:
        return None
    return grid, values


@dataclass
class _Trace:
    rows: list[int] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    variances: list[np.ndarray] = field(default_factory=list)
    bounds: list[np.ndarray] = field(default_factory=list)


@dataclass
class StreamExplainers:
    """The incremental explainers of one stream run and the snapshots taken of them.

    Attributes
    ----------
    importance : dict of str to explainer
        ``"pfi"`` / ``"sage"`` explainers (one vector of importances each).
    pdp : dict of str to explainer
        One ``IncrementalPDP`` per explained feature.
    traces : dict of str to _Trace
        Importances over time, one snapshot every ``every`` rows.
    pd_snapshots : dict of str to list of (row, grid, values)
    """

    feature_names: list[str]
    importance: dict[str, Any] = field(default_factory=dict)
    pdp: dict[str, Any] = field(default_factory=dict)
    traces: dict[str, _Trace] = field(default_factory=dict)
    pd_snapshots: dict[str, list[tuple[int, np.ndarray, np.ndarray]]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        methods: Sequence[str],
        model: Any,
        *,
        loss: str | dict[str, str],
        feature_names: Sequence[str],
        pd_features: Sequence[str],
        alpha: float,
        seed: int,
        grid_resolution: int = 20,
        sage_samples: int | None = None,
    ) -> StreamExplainers:
        """Construct the explainers named in ``methods`` (each gets ``random_state=seed``)."""
        names = list(feature_names)
        self = cls(feature_names=names)
        for method in methods:
            cls_name = INCREMENTAL_CLASSES[method]
            klass = _public(cls_name)
            if klass is None:
                raise CLIError(
                    f"method {method!r} needs ixplain.{cls_name}, which this build of ixplain "
                    "does not have."
                )
            if method == "pdp":
                for feature in pd_features:
                    self.pdp[feature] = klass(
                        model,
                        feature,
                        grid_resolution=grid_resolution,
                        alpha=alpha,
                        random_state=seed,
                    )
                    self.pd_snapshots[feature] = []
                continue
            kwargs: dict[str, Any] = {
                "loss": loss[method] if isinstance(loss, dict) else loss,
                "feature_names": names,
                "alpha": alpha,
                "random_state": seed,
            }
            if method == "sage" and sage_samples is not None:
                kwargs["n_samples"] = sage_samples
            self.importance[method] = klass(model, **kwargs)
            self.traces[method] = _Trace()
        self.settings = {
            "storage": {m: _describe_storage(e) for m, e in self.importance.items()},
        }
        return self

    def explain_one(self, x: dict[str, Any], y: Any) -> None:
        """One observation through every explainer (in a fixed order: pfi, sage, pdp)."""
        for ex in self.importance.values():
            ex.explain_one(x, y)
        for ex in self.pdp.values():
            ex.explain_one(x, y)

    def explain_many(self, xs: list[dict[str, Any]], ys: list[Any]) -> None:
        """A mini-batch through every explainer (``explain_many``: one model call per batch)."""
        for ex in self.importance.values():
            ex.explain_many(xs, ys)
        for ex in self.pdp.values():
            ex.explain_many(xs, ys)

    def snapshot(self, row: int) -> None:
        """Record the current importances (with their bands) and PD curves at stream row ``row``."""
        for method, ex in self.importance.items():
            trace = self.traces[method]
            values = importance_vector(getattr(ex, "importances_", None), self.feature_names)
            variances = importance_vector(getattr(ex, "variances_", None), self.feature_names)
            try:
                bound = importance_vector(ex.confidence_bound(DELTA), self.feature_names)
            except Exception:  # an explainer without a bound yet: no band
                bound = np.full(len(self.feature_names), np.nan)
            trace.rows.append(row)
            trace.values.append(values)
            trace.variances.append(variances)
            trace.bounds.append(bound)
        for feature, ex in self.pdp.items():
            curve = pd_curve(getattr(ex, "pd_", None), feature)
            if curve is not None:
                self.pd_snapshots[feature].append((row, curve[0], curve[1]))

    @property
    def n_explainers(self) -> int:
        return len(self.importance) + len(self.pdp)


def _describe_storage(explainer: Any) -> str:
    storage = getattr(explainer, "storage", None)
    if storage is None:
        return "default"
    size = getattr(storage, "size", None)
    p = getattr(storage, "p", None)
    text = type(storage).__name__
    args = []
    if size is not None:
        args.append(f"size={size}")
    if p is not None:
        args.append(f"p={p}")
    return f"{text}({', '.join(args)})"
