"""Conformance checks run on every storage, aggregator and incremental explainer class.

The classes are found by introspection (:func:`discover`: every public subclass of
:class:`~ixplain.storage.base.SlotStorage`, :class:`~ixplain.aggregation.base.Aggregator` and
:class:`~ixplain.methods._incremental.IncrementalExplainer` defined in ixplain). Each needs a
factory in :func:`storage_factories`, :func:`aggregator_factories` or :func:`explainer_cases`
(**one line per class**); ``tests/test_conformance.py`` fails for a class without one, then runs
every check on every class.

The checks (plain functions raising ``AssertionError`` with a message):

* same seed, same output; two objects used in one loop do not change each other's results;
* batch invariance: a stream split into batches of random sizes, with ``explain_one`` and
  ``explain_many`` mixed, a random ``history_every`` and a pickle round trip in the middle,
  gives the ``explain_one`` loop's state to the last bit (estimate, variances, ``history_``),
  with every storage class (given unseeded: the explainer seeds it); a storage fed row by row
  and in random splits keeps the same rows;
* pickle round trip mid-stream continues exactly as the uninterrupted object;
* rows are copied (a caller mutating its dict later changes nothing); ``explain_one`` does not
  mutate its input;
* feature order in dict records does not matter;
* a feature the model ignores gets ~0;
* memory stays bounded on a long stream (storage buffers, ``history_``).
"""

from __future__ import annotations

import copy
import importlib
import pickle
import pkgutil
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "ExplainerCase",
    "aggregator_factories",
    "check_aggregator",
    "check_explainer",
    "check_storage",
    "discover",
    "explainer_cases",
    "reference_model",
    "reference_stream",
    "removal_cases",
    "storage_factories",
]


# ---------------------------------------------------------------------------- registries
def storage_factories() -> dict[type, Callable[..., Any]]:
    """``{class: factory(random_state, data=None) -> storage}`` (one line per storage class).

    ``data`` (records) is what a storage holding fixed rows holds; default: rows with the
    features of the storage checks' stream (a, b numeric, c categorical).
    """
    from ..compat import ixai
    from ..imputation import ConditionalStorage
    from ..storage import DatasetStorage, GeometricReservoir, SlidingWindow, UniformReservoir

    pool = [{"a": float(i), "b": float(-i), "c": f"k{i % 3}"} for i in range(50)]
    return {
        UniformReservoir: lambda rs, data=None: UniformReservoir(20, random_state=rs),
        GeometricReservoir: lambda rs, data=None: GeometricReservoir(20, p=0.5, random_state=rs),
        SlidingWindow: lambda rs, data=None: SlidingWindow(20),
        DatasetStorage: lambda rs, data=None: DatasetStorage(pool if data is None else data),
        ConditionalStorage: lambda rs, data=None: ConditionalStorage(20, refit_every=5, random_state=rs),
        # ixai's storages (ixplain.compat.ixai): the same storages with ixai's get_data
        ixai.UniformReservoirStorage: lambda rs, data=None: ixai.UniformReservoirStorage(20, random_state=rs),
        ixai.GeometricReservoirStorage: lambda rs, data=None: ixai.GeometricReservoirStorage(20, 0.5, random_state=rs),
        ixai.IntervalStorage: lambda rs, data=None: ixai.IntervalStorage(20),
        ixai.SequenceStorage: lambda rs, data=None: ixai.SequenceStorage(),
    }


def aggregator_factories() -> dict[type, Callable[[], Any]]:
    """``{class: factory() -> aggregator}`` (one line per aggregator class)."""
    from ..aggregation import EWMean, Mean

    return {Mean: Mean, EWMean: lambda: EWMean(0.1)}


@dataclass
class ExplainerCase:
    """How to build an explainer for the checks.

    Attributes
    ----------
    factory : callable
        ``factory(model, random_state) -> explainer`` for :func:`reference_model` on
        :func:`reference_stream` (regression; features ``a``, ``b``, ``c``; ``c`` is ignored).
    skip : set of str
        Checks that do not apply (names of the ``_check_*`` functions without the prefix).
    ignored_value : callable
        ``ignored_value(explainer) -> float``: the explanation of feature ``c`` (default:
        ``importances_[feature_names_.index("c")]``), which must be ~0.
    batch_rtol : float, default=0.0
        Relative tolerance of the batch-invariance check (0: bit for bit, the requirement).
        Nonzero only for a class whose smoothing is still in closed form over a batch (say
        why on its line).
    storages : tuple of type or None, default=None
        The storage classes the batch-invariance check runs with (None: every one).
    """

    factory: Callable[[Any, Any], Any]
    skip: set[str] = field(default_factory=set)
    ignored_value: Callable[[Any], float] | None = None
    batch_rtol: float = 0.0
    storages: tuple[type, ...] | None = None


def explainer_cases() -> dict[type, ExplainerCase]:
    """``{class: ExplainerCase}`` (one line per incremental explainer class)."""
    from ..compat import ixai
    from ..methods.iale import IncrementalALE
    from ..methods.iinteractions import IncrementalShapleyInteractions
    from ..methods.ipdp import IncrementalPDP
    from ..methods.isage import IncrementalSAGE
    from ..methods.pfi import IncrementalPFI

    return {
        # ixai's signatures on ixplain's explainers (explain_one returns ixai's dict)
        ixai.IncrementalPFI: ExplainerCase(lambda m, rs: ixai.IncrementalPFI(m, "squared_error", None, smoothing_alpha=0.05, random_state=rs)),
        ixai.IncrementalSage: ExplainerCase(lambda m, rs: ixai.IncrementalSage(m, "squared_error", None, smoothing_alpha=0.05, random_state=rs)),
        ixai.IncrementalPDP: ExplainerCase(lambda m, rs: ixai.IncrementalPDP(m, "c", 20, smoothing_alpha=0.05, is_classification=False, feature_names=["a", "b", "c"], random_state=rs), ignored_value=lambda e: max(float(np.ptp(v)) for _, v in e.ice_history_)),
        IncrementalPFI: ExplainerCase(
            lambda model, rs: IncrementalPFI(model, "squared_error", alpha=0.05, random_state=rs)
        ),
        IncrementalSAGE: ExplainerCase(lambda m, rs: IncrementalSAGE(m, loss="squared_error", alpha=0.05, random_state=rs)),
        IncrementalShapleyInteractions: ExplainerCase(lambda m, rs: IncrementalShapleyInteractions(m, loss="squared_error", method="permutation", alpha=0.05, random_state=rs), ignored_value=lambda e: float(np.abs(e.pair_values_[2]).max() + abs(e.main_values_[2]))),  # c's main term and its pairs
        IncrementalPDP: ExplainerCase(lambda model, rs: IncrementalPDP(model, "c", feature_names=["a", "b", "c"], alpha=0.05, random_state=rs), ignored_value=lambda e: max(float(np.ptp(v)) for _, v in e.ice_history_)),  # PD of the ignored c: flat ICE curves
        IncrementalALE: ExplainerCase(lambda model, rs: IncrementalALE(model, "c", feature_names=["a", "b", "c"], grid_resolution=5, regrid_every=20, alpha=0.05, random_state=rs), ignored_value=lambda e: float(np.ptp(e.importances_))),  # ALE of the ignored c: flat
    }


def removal_cases() -> dict[str, ExplainerCase]:
    """``{label: ExplainerCase}``: the explainers with ``removal="conditional"`` (their storage
    is a :class:`~ixplain.imputation.ConditionalStorage`, refitted every 20 rows here so that a
    check's stream crosses many refits and leaf-pool updates); run through every check."""
    from ..imputation import ConditionalStorage
    from ..methods.iinteractions import IncrementalShapleyInteractions
    from ..methods.isage import IncrementalSAGE
    from ..methods.pfi import IncrementalPFI

    def store() -> ConditionalStorage:
        return ConditionalStorage(60, refit_every=20, reservoir="uniform")

    only = (ConditionalStorage,)
    return {
        "IncrementalPFI[conditional]": ExplainerCase(lambda m, rs: IncrementalPFI(m, "squared_error", alpha=0.05, random_state=rs, removal="conditional", storage=store()), storages=only),
        "IncrementalSAGE[conditional]": ExplainerCase(lambda m, rs: IncrementalSAGE(m, loss="squared_error", alpha=0.05, random_state=rs, removal="conditional", storage=store()), storages=only, skip={"ignored_feature"}),  # c's exact value is 0, the estimate exactly 0 only if the learned trees of a, b never split on c (test_conditional.py: test_ignored_independent_feature_...)
        "IncrementalShapleyInteractions[conditional]": ExplainerCase(lambda m, rs: IncrementalShapleyInteractions(m, loss="squared_error", method="permutation", alpha=0.05, random_state=rs, removal="conditional", storage=store()), storages=only, skip={"ignored_feature"}),  # as conditional iSAGE
    }


# ---------------------------------------------------------------------------- discovery
def discover() -> dict[str, list[type]]:
    """Public storage, aggregator and incremental explainer classes defined in ixplain."""
    import ixplain

    for mod in pkgutil.walk_packages(ixplain.__path__, "ixplain."):
        if ".cli" in mod.name or ".plot" in mod.name:
            continue
        try:
            importlib.import_module(mod.name)
        except ImportError:  # an optional dependency is missing
            continue
    from ..aggregation.base import Aggregator
    from ..methods._incremental import IncrementalExplainer
    from ..storage.base import SlotStorage

    def subclasses(base: type) -> list[type]:
        out: list[type] = []
        todo: list[type] = list(base.__subclasses__())
        while todo:
            cls = todo.pop()
            todo.extend(cls.__subclasses__())
            if cls.__module__.startswith("ixplain.") and not cls.__name__.startswith("_"):
                out.append(cls)
        return sorted(set(out), key=lambda c: c.__name__)

    return {
        "storage": subclasses(SlotStorage),
        "aggregator": subclasses(Aggregator),
        "explainer": subclasses(IncrementalExplainer),
    }


# ---------------------------------------------------------------------------- reference data
def reference_model(X: Any) -> np.ndarray:
    """``f(x) = 2 a + b`` (ignores ``c``) on records, DataFrames or arrays (columns a, b, c)."""
    if isinstance(X, list):
        return np.array([2.0 * r["a"] + r["b"] for r in X])
    if hasattr(X, "columns"):
        return 2.0 * np.asarray(X["a"], dtype=float) + np.asarray(X["b"], dtype=float)
    X = np.asarray(X, dtype=float)
    return 2.0 * X[:, 0] + X[:, 1]


def reference_stream(n: int, seed: int = 0) -> tuple[list[dict], np.ndarray]:
    """``n`` dict records with features a, b, c ~ N(0, 1) and y = f(x) + 0.1 noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = 2 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=n)
    return [{"a": r[0], "b": r[1], "c": r[2]} for r in X], y


# ---------------------------------------------------------------------------- storage checks
def _stream_rows(n: int) -> list[dict]:
    return [{"a": float(i), "b": float(-i), "c": f"k{i % 3}"} for i in range(n)]


def _storage_state(s: Any) -> list:
    if len(s) == 0:
        return []
    t = s.table
    return [t.columns[n].tolist() for n in t.names]


def check_storage(factory: Callable[[Any], Any]) -> None:
    """Run every storage check on storages built by ``factory(random_state)``."""
    rows = _stream_rows(300)
    # same seed, same rows and samples
    a, b = factory(1), factory(1)
    for r in rows:
        a.update(r)
        b.update(r)
    assert _storage_state(a) == _storage_state(b), "same seed gave different storage contents"
    sa = a.sample(10, np.random.default_rng(0))
    sb = b.sample(10, np.random.default_rng(0))
    assert sa.columns["a"].tolist() == sb.columns["a"].tolist(), "same rng, different samples"
    # pickle mid-stream
    c = factory(2)
    c.update_many(rows[:100])
    d = pickle.loads(pickle.dumps(c))
    c.update_many(rows[100:])
    d.update_many(rows[100:])
    assert _storage_state(c) == _storage_state(d), "pickled storage diverged after resuming"
    # rows are copied
    e = factory(3)
    rec = {"a": 1.0, "b": 2.0, "c": "k0"}
    e.update(rec)
    before = _storage_state(e)
    rec["a"] = 99.0
    assert _storage_state(e) == before, "storage holds a reference to the caller's record"
    # any split of the stream into update / update_many keeps the same rows, across a pickle
    rng = np.random.default_rng(5)
    one = factory(6)
    for r in rows:
        one.update(r)
    for trial in range(3):
        split = factory(6)
        s = 0
        while s < len(rows):
            e = min(len(rows), s + int(rng.integers(1, 40)))
            if e - s == 1 and rng.random() < 0.5:
                split.update(rows[s])
            else:
                split.update_many(rows[s:e])
            if trial == 1 and s < 150 <= e:
                split = pickle.loads(pickle.dumps(split))
            s = e
        assert _storage_state(split) == _storage_state(one), "the split changed the kept rows"
    # memory bounded
    f = factory(4)
    f.update_many(rows)
    sizes = {k: v.shape for k, v in f._cols.items()}
    f.update_many(_stream_rows(2000))
    assert len(f) <= f.size, f"{len(f)} rows held with size {f.size}"
    assert {k: v.shape for k, v in f._cols.items()} == sizes, "storage buffers grew"


# ---------------------------------------------------------------------------- aggregator checks
def check_aggregator(factory: Callable[[], Any]) -> None:
    """Run every aggregator check on aggregators built by ``factory()``."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    seq, bat = factory(), factory()
    for x in X:
        seq.update(x)
    bat.update_many(X[:17])
    bat.update_many(X[17:])
    np.testing.assert_allclose(bat.get(), seq.get(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(bat.variance, seq.variance, rtol=1e-8, atol=1e-12)
    assert bat.n == seq.n == 40
    # update_sequence: a loop of update, bit for bit, in any split (short and long batches)
    Z = rng.normal(size=(1300, 2, 3)) * 10.0
    loop, split = factory(), factory()
    for z in Z:
        loop.update(z)
    for a, b in ((0, 1), (1, 40), (40, 700), (700, 1300)):
        split.update_sequence(Z[a:b])
    np.testing.assert_array_equal(split.get(), loop.get())
    np.testing.assert_array_equal(split.variance, loop.variance)
    assert split.n == loop.n == len(Z)
    p = factory()
    p.update_many(X[:10])
    q = pickle.loads(pickle.dumps(p))
    p.update_many(X[10:])
    q.update_many(X[10:])
    np.testing.assert_array_equal(p.get(), q.get())


# ---------------------------------------------------------------------------- explainer checks
def _run(explainer: Any, X: list[dict], y: np.ndarray, batch: int = 25) -> np.ndarray:
    for s in range(0, len(X), batch):
        explainer.explain_many(X[s : s + batch], y[s : s + batch])
    return np.asarray(explainer.importances_)


def _check_same_seed(case: ExplainerCase) -> None:
    X, y = reference_stream(200)
    a = _run(case.factory(reference_model, 7), X, y)
    b = _run(case.factory(reference_model, 7), X, y)
    np.testing.assert_array_equal(a, b, err_msg="same seed gave different explanations")


def _check_no_interaction(case: ExplainerCase) -> None:
    X, y = reference_stream(120)
    solo, a, b = (case.factory(reference_model, s) for s in (7, 7, 8))
    for x, t in zip(X, y):
        solo.explain_one(x, t)
        a.explain_one(x, t)
        b.explain_one(x, t)
    np.testing.assert_array_equal(
        np.asarray(solo.importances_), np.asarray(a.importances_),
        err_msg="another explainer in the same loop changed the results",
    )


def _check_pickle_resume(case: ExplainerCase) -> None:
    X, y = reference_stream(200)
    full = case.factory(reference_model, 3)
    part = case.factory(reference_model, 3)
    _run(full, X, y)
    _run(part, X[:100], y[:100])
    resumed = pickle.loads(pickle.dumps(part))
    _run(resumed, X[100:], y[100:])
    np.testing.assert_array_equal(
        np.asarray(full.importances_), np.asarray(resumed.importances_),
        err_msg="a run restored mid-stream diverged from the uninterrupted run",
    )


def _check_input_not_mutated(case: ExplainerCase) -> None:
    X, y = reference_stream(30)
    e = case.factory(reference_model, 0)
    snapshot = copy.deepcopy(X)
    for x, t in zip(X, y):
        e.explain_one(x, t)
    e.explain_many(X, y)
    assert X == snapshot, "explain_one/explain_many mutated the caller's records"
    arr = np.array([[r["a"], r["b"], r["c"]] for r in X])
    arr_copy = arr.copy()
    e2 = case.factory(reference_model, 0)
    for row, t in zip(arr, y):
        e2.explain_one(row, t)
    np.testing.assert_array_equal(arr, arr_copy, err_msg="explain_one mutated an array row")


def _check_feature_order(case: ExplainerCase) -> None:
    X, y = reference_stream(150)
    shuffled = [{"c": r["c"], "b": r["b"], "a": r["a"]} for r in X]
    a = case.factory(reference_model, 5)
    b = case.factory(reference_model, 5)
    # b is told the model's feature order, as a user would; its records come in another key
    # order, which must not matter (values are matched by name, not position)
    b.feature_names = ["a", "b", "c"]
    _run(a, X, y)
    _run(b, shuffled, y)
    np.testing.assert_array_equal(
        np.asarray(a.importances_), np.asarray(b.importances_),
        err_msg="dict key order changed the result",
    )


def _check_ignored_feature(case: ExplainerCase) -> None:
    X, y = reference_stream(300)
    e = case.factory(reference_model, 1)
    _run(e, X, y)
    if case.ignored_value is not None:
        value = case.ignored_value(e)
    else:
        value = float(np.asarray(e.importances_)[e.feature_names_.index("c")])
    scale = float(np.max(np.abs(np.asarray(e.importances_)))) or 1.0
    assert abs(value) <= 1e-9 * scale + 1e-12, f"ignored feature got {value}"


def _check_memory_bounded(case: ExplainerCase) -> None:
    X, y = reference_stream(1200)
    e = case.factory(reference_model, 2)
    e.history_every, e.history_size = 10, 30
    e.history_ = deque(maxlen=30)
    _run(e, X[:200], y[:200])
    shapes = {k: v.shape for k, v in e.storage._cols.items()}
    _run(e, X[200:], y[200:], batch=100)
    assert {k: v.shape for k, v in e.storage._cols.items()} == shapes, "storage grew"
    assert len(e.storage) <= e.storage.size
    assert len(e.history_) == 30 and e.history_[-1][0] == 1200, "history_ is not bounded"


def _same(a: Any, b: Any, rtol: float = 0.0) -> bool:
    """Bitwise equality of nested tuples / lists / arrays / dataclasses (NaN equals NaN);
    float arrays within ``rtol`` of their largest magnitude if ``rtol > 0``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if rtol and a.dtype.kind == "f" and a.size:
            scale = float(np.nanmax(np.abs(a))) or 1.0
            return bool(np.allclose(a, b, rtol=0.0, atol=rtol * scale, equal_nan=True))
        return a.tobytes() == b.tobytes()
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(p, q, rtol) for p, q in zip(a, b))
    if hasattr(a, "__dataclass_fields__"):
        return type(a) is type(b) and all(
            _same(getattr(a, f), getattr(b, f), rtol) for f in a.__dataclass_fields__
        )
    return bool(a == b) or (a != a and b != b)


def _with_storage(case: ExplainerCase, make_storage: Callable[..., Any], every: int) -> Any:
    X, _ = reference_stream(60, seed=9)
    e = case.factory(reference_model, 11)
    e._set_storage(make_storage(None, data=X))  # unseeded: the explainer seeds it
    e.history_every = every
    e.history_ = deque(maxlen=e.history_size)
    return e


def _state(e: Any) -> list:
    pools = getattr(e.storage, "_conformance_state", None)  # a conditional storage's leaf pools
    return [np.asarray(e.importances_), np.asarray(e.variances_), list(e.history_), e.n_seen_,
            e.n_explained_, _storage_state(e.storage), [] if pools is None else pools()]


def _check_batch_invariance(case: ExplainerCase) -> None:
    """Random batches vs the explain_one loop, with each storage class given unseeded (both
    runs get a fresh unseeded storage: their equality also shows that the explainer seeds
    it, from its random_state)."""
    X, y = reference_stream(240)
    rng = np.random.default_rng(4)
    for cls, make_storage in storage_factories().items():
        if case.storages is not None and cls not in case.storages:
            continue
        every = int(rng.choice([0, 1, 7, 50]))
        loop = _with_storage(case, make_storage, every)
        for x, t in zip(X, y):
            loop.explain_one(x, t)
        mixed = _with_storage(case, make_storage, every)
        s, cut = 0, int(rng.integers(40, 200))
        while s < len(X):
            e = min(len(X), s + int(rng.integers(1, 70)))
            if rng.random() < 0.25:
                for i in range(s, e):
                    mixed.explain_one(X[i], y[i])
            else:
                mixed.explain_many(X[s:e], y[s:e])
            if s < cut <= e:
                mixed = pickle.loads(pickle.dumps(mixed))
            s = e
        a, b = _state(loop), _state(mixed)
        for name, p, q in zip(["estimate", "variances", "history_", "n_seen_", "n_explained_",
                               "storage", "leaf pools"], a, b):
            assert _same(p, q, case.batch_rtol), (
                f"{cls.__name__}, history_every={every}: {name} after random batches differs "
                "from the explain_one loop"
            )


EXPLAINER_CHECKS: dict[str, Callable[[ExplainerCase], None]] = {
    "same_seed": _check_same_seed,
    "batch_invariance": _check_batch_invariance,
    "no_interaction": _check_no_interaction,
    "pickle_resume": _check_pickle_resume,
    "input_not_mutated": _check_input_not_mutated,
    "feature_order": _check_feature_order,
    "ignored_feature": _check_ignored_feature,
    "memory_bounded": _check_memory_bounded,
}


def check_explainer(case: ExplainerCase, checks: list[str] | None = None) -> None:
    """Run the explainer checks (all, or the names in ``checks``) not in ``case.skip``."""
    for name, check in EXPLAINER_CHECKS.items():
        if (checks is None or name in checks) and name not in case.skip:
            check(case)
