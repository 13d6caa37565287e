"""``compare`` on Dask DataFrames: PFI deltas and PD/ALE curve changes over partitions.

The same explanation functions as :func:`ixplain.change.compare` run on the workers through
the engine's Dask driver (:func:`ixplain.methods._engine.explain_partitions`), every row keyed
by its *global* index, so the numbers equal ``compare`` on the gathered frames (float
rounding) for any partitioning:

* **PFI**: each row's loss increase for every feature with the draws of
  :class:`~ixplain.methods.pfi.BackgroundPFI` keyed by ``(seed, row)`` -- the same draws for both
  models (common random numbers). The background, as in ``compare``, is the side's rows: they
  are gathered on the client once and shipped to the workers. The per-row values come back
  (``n_rows x n_features`` floats per side) and go through ``compare``'s own statistics (paired
  or Welch intervals, Holm, NDCG/Kendall bootstrap).
* **PD / ALE**: :mod:`ixplain.change._curves` with a Dask runner: only the explained feature's
  column is gathered (for the common grid); each partition returns the mean state of its rows'
  ICE curves and their outer products (PD) or its per-bin moments (ALE).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._random import keyed_generator, root_seed
from ..losses import get_loss
from ..methods._engine import Method, RowBatch, explain_partitions
from ..methods.pfi import BackgroundPFI
from ..models import DEFAULT_MEMORY_BUDGET, Model, as_model
from ..tabular import as_table
from ._curves import Sides, _check_opts, curve_changes_on
from ._importance import _no_labels, label_free_loss, pfi_values
from ._result import ChangeExplanation
from ._stats import Draws

__all__ = ["compare_dask"]

_OWNER = "ixplain.change.compare_dask"


class PFIRows(Method):
    """Per-row PFI draws of one or two models on the same rows, shape (B, k, n_groups,
    1 + n_repeats) (:class:`~ixplain.methods.pfi.BackgroundPFI`'s values: the row's mean, then
    each draw).

    ``k = 1`` (one side) or ``2`` (paired: model a, model b, with the same keyed draws). With
    ``label_free`` each model's own prediction is its label (prediction-sensitivity PFI, as
    ``compare(label_free=True)``).
    """

    name = "change_pfi_rows"

    def __init__(self, fns: Sequence[BackgroundPFI], label_free: bool) -> None:
        self.fns, self.label_free = list(fns), bool(label_free)
        self.needs_labels = not label_free  # type: ignore[misc]

    def rows_per_observation(self, table: Any) -> int:
        return sum(fn.rows_per_observation(table) for fn in self.fns)

    def explain(self, batch: RowBatch) -> np.ndarray:
        out = []
        for fn in self.fns:
            y = batch.y
            if self.label_free:
                y = np.asarray(fn.model.predict(batch.X), dtype=float)
            out.append(np.asarray(fn.explain(RowBatch(batch.X, y, batch.start)),
                                  dtype=np.float64))
        return np.stack(out, axis=1)


def _quiet(model: Model) -> Model:
    """A copy of the adapter that skips the label check (as ``compare``'s label-free side)."""
    import copy

    quiet = copy.copy(model)
    quiet.observe_labels = _no_labels  # type: ignore[method-assign]
    return quiet


def _columns(ddf: Any, y: Any, features: Any) -> list[str]:
    from ..dask._partitions import _plain_columns, _require_dask_frame

    _require_dask_frame(ddf, _OWNER)
    return [str(c) for c in _plain_columns(ddf, features, (y,), _OWNER)]


def _pfi_values(models: tuple[Model, Model], ddfs: dict[str, Any], columns: list[str],
                y: Any, loss: Any, n_repeats: int, seed: int, label_free: bool,
                memory_budget: int
                ) -> tuple[np.ndarray, np.ndarray, tuple[Draws | None, Draws | None]]:
    """Per-row PFI values of both sides, shapes (n_a, G) and (n_b, G), and their draws."""
    groups = [[c] for c in columns]
    paired = ddfs["b"] is ddfs["a"]
    out = []
    for side, model in zip(("a", "b"), models):
        if paired and side == "b":
            break
        background = as_table(ddfs[side][columns].compute().reset_index(drop=True),
                              owner=_OWNER)
        fns = [BackgroundPFI(m, loss, groups, background, n_repeats, seed)
               for m in (models if paired else (model,))]
        ex = explain_partitions(PFIRows(fns, label_free), ddfs[side], columns=columns,
                                y=None if label_free else y, memory_budget=memory_budget,
                                keep_values=True, owner=_OWNER)
        assert ex.values is not None
        # compare()'s per-row values with their draws (the standard errors come from these)
        out += [pfi_values(v, seed) for v in np.moveaxis(ex.values, 1, 0)]
    (va, da), (vb, db) = out[0], out[1]
    return va, vb, (da, db)


def _dask_sides(ddfs: dict[str, Any], columns: list[str], memory_budget: int) -> Sides:
    """:class:`~ixplain.change._curves.Sides` over Dask frames (only feature columns gather)."""
    import pandas as pd

    from ..dask._partitions import _head

    paired = ddfs["b"] is ddfs["a"]
    frames = [ddfs["a"][columns].compute()]
    if not paired:
        frames.append(ddfs["b"][columns].compute())
    pooled = as_table(pd.concat(frames, ignore_index=True), owner=_OWNER)

    def runner(method: Method, side: str) -> Any:
        return explain_partitions(method, ddfs[side], columns=columns,
                                  memory_budget=memory_budget, owner=_OWNER)

    return Sides(_head(ddfs["a"], columns, _OWNER), pooled, runner, paired,
                 None if paired else len(frames[0]))


def compare_dask(
    model_a: Any,
    ddf_a: Any,
    y: str | None = None,
    *,
    model_b: Any = None,
    ddf_b: Any = None,
    methods: Sequence[str] = ("pfi", "pd"),
    features: Sequence[str] | None = None,
    loss: Any = None,
    n_repeats: int = 5,
    confidence: float = 0.95,
    family_level: float = 0.05,
    min_change: float = 0.0,
    top_k: int = 5,
    n_bootstrap: int = 200,
    label_free: bool = False,
    grid_resolution: int = 20,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    random_state: Any = None,
) -> ChangeExplanation:
    """:func:`ixplain.change.compare` for Dask DataFrames: PFI deltas and PD/ALE curve changes.

    Parameters
    ----------
    model_a : estimator, Booster or callable
        Side a's model (shipped to the workers: it must pickle).
    ddf_a : dask.dataframe.DataFrame
        Side a's rows (``n_a``), features and the label column ``y``.
    y : str, default=None
        The label column (in both frames); not needed with ``label_free=True``.
    model_b : estimator, default=None
        Side b's model (default ``model_a``).
    ddf_b : dask.dataframe.DataFrame, default=None
        Side b's rows (default: ``ddf_a``, the paired design).
    methods : sequence of {"pfi", "pd", "ale"}, default=("pfi", "pd")
    features : sequence of str, default=None
        The feature columns in the model's order (default: every column but ``y``).
    loss, n_repeats, confidence, family_level, min_change, top_k, n_bootstrap, label_free
        As in :func:`ixplain.change.compare`.
    grid_resolution : int, default=20
        PD grid points / largest number of ALE bins.
    memory_budget : int, default=268435456
        Bytes of model input per call on a worker.
    random_state : int or None, default=None

    Returns
    -------
    ChangeExplanation
        ``importance["pfi"]``, ``ranking["pfi"]`` and ``curves["pd"]``/``["ale"]``, equal (float
        rounding) to ``compare`` on the gathered frames with the same arguments and seed.

    Raises
    ------
    TypeError
        If a frame is not a Dask DataFrame.
    ValueError
        Unknown method, missing label column, the frames' columns differ, bad parameters.
    ImportError
        If dask is not installed.

    References
    ----------
    .. [1] J. Muschalik et al., "Agnostic explanation of model change based on feature
       importance", KI - Kuenstliche Intelligenz 36, 2022.
    """
    from . import _compare as core

    opts = core._check_options(tuple(methods), confidence, family_level, min_change, top_k,
                               n_repeats, n_bootstrap, label_free, loss)
    bad = [m for m in opts["methods"] if m not in ("pfi", "pd", "ale")]
    if bad:
        raise ValueError(f"{_OWNER}: methods {bad} do not run on Dask here; use 'pfi', 'pd', "
                         "'ale' (or compare() on the gathered frames).")
    if not label_free and y is None:
        raise ValueError(f"{_OWNER}: y (the label column) is required unless label_free=True.")
    columns = _columns(ddf_a, y, features)
    ddfs = {"a": ddf_a, "b": ddf_a if ddf_b is None else ddf_b}
    if ddf_b is not None and _columns(ddf_b, y, features) != columns:
        raise ValueError(f"{_OWNER}: ddf_a and ddf_b have different feature columns: "
                         f"{columns} and {_columns(ddf_b, y, features)}.")
    ma = as_model(model_a, owner=_OWNER).refuse_nonfinite_outputs(_OWNER)
    mb = ma if model_b is None or model_b is model_a else as_model(
        model_b, owner=_OWNER).refuse_nonfinite_outputs(_OWNER)
    pfi_models = (ma, mb)
    if label_free:  # labels are the model's own outputs (a classifier's probabilities)
        pfi_models = tuple(_quiet(m) for m in (ma, mb))  # type: ignore[assignment]
    seed = root_seed(random_state, _OWNER)
    paired = ddfs["b"] is ddfs["a"]
    result = ChangeExplanation(settings={"design": "paired" if paired else "independent",
                                         "dask": True, "seed": seed, "features": columns})
    if "pfi" in opts["methods"]:
        loss_obj = label_free_loss() if label_free else (
            core._default_loss(ma) if loss is None else get_loss(loss, _OWNER))
        va, vb, draws = _pfi_values(pfi_models, ddfs, columns, y, loss_obj, opts["n_repeats"],
                                    seed, label_free, memory_budget)
        result.importance["pfi"] = core._importance_change("pfi", columns, va, vb, paired, opts,
                                                           draws)
        result.ranking["pfi"] = core._ranking("pfi", columns, va, vb, paired, opts,
                                              keyed_generator(seed, "compare-bootstrap", "pfi"))
    curve_methods = [m for m in opts["methods"] if m in ("pd", "ale")]
    if curve_methods:
        _curves_into(result, curve_methods, (ma, mb), ddfs, columns, opts, grid_resolution,
                     memory_budget, seed)
    return result


def _curves_into(result: ChangeExplanation, methods: list[str], models: tuple[Model, Model],
                 ddfs: dict[str, Any], columns: list[str], opts: dict[str, Any],
                 grid_resolution: int, memory_budget: int, seed: int) -> None:
    from ._curves import CurveChanges

    sides = _dask_sides(ddfs, columns, memory_budget)
    for method in methods:
        copts = _check_opts(method, opts["confidence"], grid_resolution, 10, 10_000,
                            (0.05, 0.95), _OWNER)
        copts["memory_budget"] = memory_budget
        feats: list[str] = list(columns)
        if method == "ale":
            feats = [f for f in columns if sides.pooled.schema.kind(f) == "numeric"]
        result.curves[method] = CurveChanges(curve_changes_on(sides, models, feats, copts, None,
                                                              seed, _OWNER))
