"""Hashes of the observable state after a stream, to show a refactor changes no result (issue 27).

For a fixed set of stream configurations, the state a user can observe once the stream is fed
-- the explainer's public arrays and counters, its history and result objects, its storage's
rows, labels and a seeded sample, an attached drift detector's events, loss changes and
explanations of the events -- is encoded bit for bit (``float.hex``, ``ndarray.tobytes`` with
dtype and shape) and hashed with SHA-256, one hash per configuration. Only public attributes and
methods are read (private names change in a refactor); the one exception is the storage hook
``_set_storage`` that ``ixplain.checks`` itself uses to give an explainer each storage class.

Configurations:

* ``conf/...``: every explainer case of the conformance suite (``ixplain.checks.explainer_cases``
  and ``removal_cases``, their own constructors) on the suite's stream (``reference_stream(240)``,
  ``history_every=7``), with its default storage and with each storage class of
  ``storage_factories`` the case allows (given unseeded, as the batch-invariance check does);
* ``drift/...``: the same cases that take an ``ExplanationDriftDetector`` (not iALE) with one
  attached, on a 1,400-row stream (:func:`drift_stream`: data drift at row 400, concept drift at
  800): ``static_model=True`` at the detector's defaults, and ``static_model=False`` with
  :data:`QUICK_DETECTOR` and the model replaced at row 1,050 (data, loss and model events);
* each of those fed three ways, hashed apart: ``explain_one`` row by row (``/one``),
  ``explain_many`` in chunks of 7 (``/chunks7``) and all at once (``/all``);
* ``bench/...``: every stream of ``bench_explanation_drift.py --seeds 2`` (8,000 rows, its own
  ``run`` loop: iPFI, the detector, ADWIN, the model's learning), the explainer's final state
  and all of the detector's events per stream and seed.

Run from the repository root (single thread)::

    PYTHONPATH=src python benchmarks/state_hashes.py --out state.json
    PYTHONPATH=src python benchmarks/state_hashes.py --compare state.json

``--out`` also writes ``<out>.parts.json`` (one hash per component of each configuration), which
``--compare`` reads, when present next to the compared file, to name the components that differ.
``--only PATTERN`` limits either mode to the configurations whose names contain ``PATTERN``;
``--full`` adds the ``bench/`` streams (``--compare`` without it skips the baseline's ``bench/``
entries). 198 configurations by default, 219 with ``--full``. Measured on the shared two-core
machine under load (one thread; commit ec7d5c2): default 4.0 min wall (63 s CPU), ``--full``
7.8 min wall (126 s CPU; the ``bench/`` streams 3.5 min of it).

Seen at the baseline (ec7d5c2), and so part of the hashes: the three feed modes give the same
state except (besides the values the calls return) the stored labels' type (``storage.targets``:
``np.float64`` for rows that went through the one-row path -- ``explain_one`` with numpy
scalars, or a one-row part of an ``explain_many`` -- else ``float``, same values); with a
detector, ``DriftExplanation.before_rows`` ``(-1, ...)`` instead of ``(1, ...)`` when the
warm-up and the event fall in one ``explain_many`` call (``/all``, static_model=True); and iPDP's
model event (``drift/ipdp.IncrementalPDP/static_model=False``): ``after`` 3.0 in ``/all`` but
3.0000000000000004 in ``/one`` and ``/chunks7`` (statistic 1.94e17 against 6.45e16).
The first two are fixed since (the stored labels are one type, the regime start is recorded when
the event is found: tests/storage/test_label_type_is_batching_free.py,
tests/drift/test_explanation_regime_is_batching_free.py), so the ``/one`` configurations and
those eight ``static_model=True/all`` ones differ from ec7d5c2's hashes on purpose. The third
remains: the detector's model channel fixes its reference grid inside a part, before the
explainer has taken the part's rows.
"""

from __future__ import annotations

import _common

_common.ensure_installed({"river": "river>=0.21"})  # (bench_explanation_drift.py's streams)

import argparse  # noqa: E402
import copy  # noqa: E402
import dataclasses  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import deque  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from ixplain import ExplanationDriftDetector, Table, checks  # noqa: E402

# public attributes of the explainers (absent ones are recorded as absent)
ATTRIBUTES = [
    "feature_names_", "n_seen_", "n_explained_", "n_skipped_", "importances_", "variances_",
    "history_", "main_values_", "pair_values_", "marginal_loss_", "model_loss_", "n_samples_",
    "players_", "feature_kind_", "feature_name_", "ice_history_", "pd_", "ale_", "edges_",
    "edges_history_", "n_missing_", "n_outside_", "n_regrids_", "n_warmup_",
    "importance_values", "variances", "seen_samples",
]
# public methods without arguments returning results
CALLS = ["importance_history", "to_result", "to_time_series", "standard_errors"]
DETECTOR_ATTRIBUTES = ["feature_names_", "n_rows_", "events_", "loss_changes_"]


# ---------------------------------------------------------------------------- encoding
def _encode(obj: Any, out: list[bytes]) -> None:
    """Append an unambiguous, bit-exact encoding of ``obj`` to ``out``."""
    if obj is None or isinstance(obj, (bool, np.bool_)):
        out.append(f"<{obj!r}>".encode())
    elif isinstance(obj, (int, np.integer)):
        out.append(f"i{int(obj)};".encode())
    elif isinstance(obj, (float, np.floating)):
        out.append(f"f{type(obj).__name__}:{float(obj).hex()};".encode())
    elif isinstance(obj, str):
        data = obj.encode()
        out.append(f"s{len(data)}:".encode() + data)
    elif isinstance(obj, np.ndarray):
        _encode_array(obj, out)
    elif isinstance(obj, (list, tuple, deque)):
        out.append(f"{type(obj).__name__}{len(obj)}[".encode())
        for item in obj:
            _encode(item, out)
        out.append(b"]")
    elif isinstance(obj, dict):
        out.append(f"dict{len(obj)}{{".encode())
        for key, value in obj.items():
            _encode(key, out)
            _encode(value, out)
        out.append(b"}")
    elif isinstance(obj, (set, frozenset)):
        _encode(sorted(obj, key=repr), out)
    elif isinstance(obj, Table):  # the rows (names, columns); not the schema object
        out.append(b"Table(")
        _encode(list(obj.columns), out)
        _encode(list(obj.columns.values()), out)
        _encode(obj.upcast, out)
        out.append(b")")
    elif isinstance(obj, np.dtype) or type(obj).__name__.endswith("Dtype"):
        _encode(f"dtype {obj!r}", out)
    elif hasattr(obj, "codes") and hasattr(obj, "categories"):  # pandas Categorical
        _encode(("Categorical", np.asarray(obj.categories), np.asarray(obj.codes)), out)
    elif hasattr(obj, "dtype") and hasattr(obj, "to_numpy") and not hasattr(obj, "iloc"):
        _encode((obj.dtype, obj.to_numpy(dtype=object)), out)  # pandas extension array
    elif dataclasses.is_dataclass(obj):
        fields = [f.name for f in dataclasses.fields(obj) if not f.name.startswith("_")]
        out.append(f"{type(obj).__name__}(".encode())
        for name in fields:
            _encode(name, out)
            _encode(getattr(obj, name), out)
        out.append(b")")
    elif hasattr(obj, "iloc"):  # pandas DataFrame / Series
        _encode_pandas(obj, out)
    else:
        raise TypeError(f"state_hashes: no encoding for {type(obj).__name__}")


def _encode_array(a: np.ndarray, out: list[bytes]) -> None:
    out.append(f"a{a.dtype.str}{a.shape}:".encode())
    if a.dtype.kind == "O":
        for item in a.ravel():
            _encode(item, out)
    else:
        out.append(np.ascontiguousarray(a).tobytes())


def _encode_pandas(obj: Any, out: list[bytes]) -> None:
    frame = obj.to_frame() if obj.ndim == 1 else obj
    out.append(f"frame{frame.shape}(".encode())
    _encode([str(c) for c in frame.columns], out)
    _encode(np.asarray(frame.index.to_numpy()), out)
    for name in frame.columns:
        _encode(np.asarray(frame[name].to_numpy()), out)
    out.append(b")")


def _digest(obj: Any) -> str:
    out: list[bytes] = []
    _encode(obj, out)
    return hashlib.sha256(b"".join(out)).hexdigest()


def _observe(fn: Callable[[], Any]) -> Any:
    """What a user sees calling ``fn``: its value, or the error it raises (type and message)."""
    try:
        return ("value", fn())
    except AttributeError:
        return ("absent",)
    except Exception as exc:  # an error is observable state too
        return ("raises", type(exc).__name__, str(exc))


def _with_frame(value: Any) -> Any:
    """A result object together with its ``to_frame()`` (both are what a user reads)."""
    if dataclasses.is_dataclass(value) and hasattr(value, "to_frame"):
        return (value, _observe(value.to_frame))
    return value


# ---------------------------------------------------------------------------- state
def explainer_parts(e: Any) -> dict[str, str]:
    """``{component: sha256}`` of an explainer's observable state (and its detector's)."""
    parts = {name: _digest(_observe(lambda n=name: _with_frame(getattr(e, n))))
             for name in ATTRIBUTES}
    for name in CALLS:
        parts[f"{name}()"] = _digest(_observe(lambda n=name: _with_frame(getattr(e, n)())))
    for delta in (0.05, 0.01):
        parts[f"confidence_bound({delta})"] = _digest(_observe(lambda d=delta: e.confidence_bound(d)))
    parts.update(storage_parts(e.storage))
    det = e.drift_detector
    if det is not None:
        parts.update(detector_parts(det))
    return parts


def storage_parts(s: Any) -> dict[str, str]:
    """The storage's rows and labels in slot order, its size and a seeded sample."""
    return {
        "storage.len": _digest(len(s)),
        "storage.feature_names": _digest(_observe(lambda: s.feature_names)),
        "storage.table": _digest(_observe(lambda: s.table if len(s) else None)),
        "storage.targets": _digest(_observe(lambda: s.targets)),
        "storage.n_seen": _digest(_observe(lambda: s.n_seen)),
        "storage.sample": _digest(
            _observe(lambda: s.sample(16, np.random.default_rng(0)) if len(s) else None)
        ),
    }


def detector_parts(d: Any) -> dict[str, str]:
    """Every field of every event and loss change, the events' explanations and frame."""
    parts = {f"detector.{name}": _digest(_observe(lambda n=name: getattr(d, n)))
             for name in DETECTOR_ATTRIBUTES}
    n = len(d.events_)
    parts["detector.explain_change"] = _digest(
        [_observe(lambda i=i: _with_frame(d.explain_change(i))) for i in range(n)]
    )
    parts["detector.events_frame"] = _digest(_observe(d.events_frame))
    return parts


def combine(parts: dict[str, str]) -> str:
    """One SHA-256 over the components (name and hash, in order)."""
    return _digest(list(parts.items()))


# ---------------------------------------------------------------------------- (a) conformance
DRIFT_ROWS, SWITCH_ROW = 1400, 1050  # (a multiple of 7: every feed mode switches there)


def drift_stream(n: int = DRIFT_ROWS, seed: int = 3) -> tuple[list[dict], np.ndarray]:
    """The suite's features (a, b, c ~ N(0, 1)) and ``y = 2 a + b + 0.1 noise``; from row 400
    ``a`` triples in scale (data drift: a's importance moves), from row 800 ``y`` gains ``3 c``
    (concept drift: the fixed model's loss moves)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[400:, 0] *= 3.0
    y = 2 * X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=n)
    y[800:] += 3 * X[800:, 2]
    return [{"a": r[0], "b": r[1], "c": r[2]} for r in X], y


# the model channel's reference, checks and screens within the stream (static_model=False)
QUICK_DETECTOR = {"warmup": 100, "n_reference": 200, "check_every": 300, "screen_every": 50}


class SwitchModel:
    """``2 a + b`` (:func:`ixplain.checks.reference_model`), plus ``3 c`` once ``on`` is set
    (a model replaced mid-stream: the detector's model channel)."""

    def __init__(self) -> None:
        self.on = False

    def __call__(self, X: Any) -> np.ndarray:
        out = checks.reference_model(X)
        if not self.on:
            return out
        if isinstance(X, list):
            c = np.array([r["c"] for r in X], dtype=float)
        elif hasattr(X, "columns"):
            c = np.asarray(X["c"], dtype=float)
        else:
            c = np.asarray(X, dtype=float)[:, 2]
        return out + 3.0 * c


def _feed(e: Any, X: list[dict], y: np.ndarray, mode: str) -> str:
    """Feed the stream (``one`` / ``chunks7`` / ``all``); the hash of every returned value."""
    returned: list[Any] = []
    if mode == "one":
        for x, t in zip(X, y):
            returned.append(e.explain_one(x, t))
    else:
        step = 7 if mode == "chunks7" else len(X)
        for s in range(0, len(X), step):
            returned.append(e.explain_many(X[s:s + step], y[s:s + step]))
    return _digest(returned)


def _module_label(cls: type) -> str:
    """The last part of ``cls``'s module, or ``ixai`` for the ixai shim's classes (whose
    modules mirror ixai's, so ``pfi.IncrementalPFI`` would name two classes)."""
    if cls.__module__.startswith("ixplain.compat.ixai"):
        return "ixai"
    return cls.__module__.rsplit(".", 1)[-1]


def conformance_configs() -> Iterator[tuple[str, Callable[[], dict[str, str]]]]:
    """``(name, run)`` of every ``conf/`` and ``drift/`` configuration."""
    cases = {f"{_module_label(cls)}.{cls.__name__}": case
             for cls, case in checks.explainer_cases().items()}
    cases.update(checks.removal_cases())
    storages = checks.storage_factories()
    X, y = checks.reference_stream(240)
    pool, _ = checks.reference_stream(60, seed=9)
    DX, Dy = drift_stream()
    for label, case in cases.items():
        variants: list[tuple[str, Any]] = [("default", None)]
        variants += [(cls.__name__, make) for cls, make in storages.items()
                     if case.storages is None or cls in case.storages]
        for storage_name, make in variants:
            for mode in ("one", "chunks7", "all"):
                yield (f"conf/{label}/{storage_name}/{mode}",
                       lambda c=case, m=make, mo=mode: _run_case(c, m, pool, X, y, mo))
        if not _accepts_detector(case):
            continue
        for static in (True, False):
            for mode in ("one", "chunks7", "all"):
                yield (f"drift/{label}/static_model={static}/{mode}",
                       lambda c=case, s=static, mo=mode: _run_drift(c, s, DX, Dy, mo))


def _accepts_detector(case: Any) -> bool:
    """Whether the explainer takes a drift detector (iALE does not: a TypeError)."""
    try:
        case.factory(checks.reference_model, 0).drift_detector = ExplanationDriftDetector()
    except TypeError:
        return False
    return True


def _run_case(case: Any, make: Any, pool: list[dict], X: list, y: np.ndarray,
              mode: str) -> dict[str, str]:
    e = case.factory(checks.reference_model, 11)
    if make is not None:
        e._set_storage(make(None, data=pool))  # as ixplain.checks: unseeded, the explainer seeds it
    e.history_every = 7
    parts = {"returns": _feed(e, X, y, mode)}
    parts.update(explainer_parts(e))
    return parts


def _run_drift(case: Any, static: bool, X: list, y: np.ndarray, mode: str) -> dict[str, str]:
    """A detector watching the case's explainer: its defaults with ``static=True``; else
    :data:`QUICK_DETECTOR`, and the model is replaced (:class:`SwitchModel` switched on) at row
    ``SWITCH_ROW``, where every feed mode cuts."""
    model = SwitchModel()
    e = case.factory(model, 5)
    e.history_every = 50
    quick = {} if static else QUICK_DETECTOR
    e.drift_detector = ExplanationDriftDetector(static_model=static, random_state=6, **quick)
    first = _feed(e, X[:SWITCH_ROW], y[:SWITCH_ROW], mode)
    model.on = not static
    parts = {"returns": _digest([first, _feed(e, X[SWITCH_ROW:], y[SWITCH_ROW:], mode)])}
    parts.update(explainer_parts(e))
    return parts


# ---------------------------------------------------------------------------- (b) drift bench
def bench_configs(seeds: int, rows: int) -> Iterator[tuple[str, Callable[[], dict[str, str]]]]:
    """``(name, run)`` per stream and seed of ``bench_explanation_drift.py``."""
    sys.path.insert(0, str(Path(__file__).parent))
    import bench_explanation_drift as bench

    for seed in range(seeds):
        for stream in bench.streams(seed, rows):
            yield (f"bench/seed={seed}/{stream.name}",
                   lambda b=bench, st=stream, s=seed: _run_bench(b, st, s))


def _run_bench(bench: Any, stream: Any, seed: int) -> dict[str, str]:
    """The benchmark's own ``run`` on its stream, with its explainer captured."""
    stream = copy.copy(stream)
    made: list[Any] = []
    real = bench.IncrementalPFI

    def capture(*args: Any, **kwargs: Any) -> Any:
        made.append(real(*args, **kwargs))
        return made[-1]

    bench.IncrementalPFI = capture
    try:
        events, error_events, alarms = bench.run(stream, seed)
    finally:
        bench.IncrementalPFI = real
    (e,) = made
    assert events is e.drift_detector.events_ and alarms is e.drift_detector.loss_changes_
    parts = {"adwin_error_events": _digest(error_events)}
    parts.update(explainer_parts(e))
    return parts


# ---------------------------------------------------------------------------- CLI
def compute(only: str, bench: bool, seeds: int, rows: int) -> tuple[dict, dict, dict]:
    """``({name: sha256}, {name: {component: sha256}}, {group: seconds})``."""
    hashes: dict[str, str] = {}
    parts: dict[str, dict[str, str]] = {}
    took: dict[str, float] = {}
    groups = [conformance_configs()] + ([bench_configs(seeds, rows)] if bench else [])
    for configs in groups:
        for name, run in configs:
            if only not in name:
                continue
            t0 = time.perf_counter()
            parts[name] = run()
            hashes[name] = combine(parts[name])
            group = name.split("/", 1)[0]
            took[group] = took.get(group, 0.0) + time.perf_counter() - t0
    return hashes, parts, took


def _parts_path(path: Path) -> Path:
    return path.with_name(path.stem + ".parts.json")


def compare(hashes: dict, parts: dict, path: Path, selected: Callable[[str], bool]) -> int:
    """Print each configuration that differs or is missing (of those ``selected``); 0 if
    none, else 1."""
    want = {k: v for k, v in json.loads(path.read_text()).items() if selected(k)}
    want_parts = json.loads(_parts_path(path).read_text()) if _parts_path(path).exists() else {}
    bad = 0
    for name in sorted(set(want) | set(hashes)):
        if name not in hashes:
            print(f"MISSING (in {path.name}, not computed): {name}")
        elif name not in want:
            print(f"NEW (computed, not in {path.name}): {name}")
        elif hashes[name] != want[name]:
            old = want_parts.get(name, {})
            diff = [k for k in sorted(set(old) | set(parts[name]))
                    if old.get(k) != parts[name].get(k)]
            print(f"DIFFERS: {name}" + (f" ({', '.join(diff)})" if old else ""))
        else:
            continue
        bad += 1
    if bad:
        print(f"{bad} of {len(set(want) | set(hashes))} configurations differ or are missing")
        return 1
    print(f"{len(hashes)} configurations identical")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--out", type=Path, help="write {configuration: sha256} to this JSON file")
    mode.add_argument("--compare", type=Path, help="recompute and compare with this JSON file")
    ap.add_argument("--only", default="", help="only configurations whose names contain this")
    ap.add_argument("--full", action="store_true",
                    help="also the bench_explanation_drift.py --seeds 2 streams (bench/...)")
    ap.add_argument("--seeds", type=int, default=2, help="seeds of the bench streams (2)")
    ap.add_argument("--rows", type=int, default=8000, help="rows of the bench streams (8000)")
    args = ap.parse_args()
    start = time.perf_counter()
    cpu = time.process_time()
    hashes, parts, took = compute(args.only, args.full, args.seeds, args.rows)
    times = ", ".join(f"{g} {t:.0f} s" for g, t in took.items())
    print(f"{len(hashes)} configurations in {time.perf_counter() - start:.0f} s wall, "
          f"{time.process_time() - cpu:.0f} s CPU ({times} wall)", file=sys.stderr)
    if args.out is not None:
        args.out.write_text(json.dumps(hashes, indent=1) + "\n")
        _parts_path(args.out).write_text(json.dumps(parts, indent=1) + "\n")
        return 0
    return compare(hashes, parts, args.compare, lambda name: args.only in name and (
        args.full or not name.startswith("bench/")))


if __name__ == "__main__":
    sys.exit(main())
