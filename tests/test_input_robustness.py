"""Bad or extreme input: a clear error that names the problem, or a correct result; never a
crash deep inside, and no lost rows."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import ixplain as ix
from ixplain.methods import _stream_grid as sg


# ---------------------------------------------------------------- huge and subnormal feature values
def _tiny_slope(A):
    """``f(x) = 1e-300 * x0 + x1``: additive, so every ICE curve at ``v`` is ``1e-300 * v + x1``."""
    A = np.asarray(A, dtype=np.float64)
    return A[:, 0] * 1e-300 + A[:, 1]


@pytest.mark.parametrize(
    ("lo", "hi"),
    [(0.0, 5e307), (-5e307, 0.0), (-1e308, 1e308), (-1.7e308, 1.7e308), (0.0, 1e-310),
     (0.0, 3e-322), (5e307, 5e307 * (1 + 1e-15)), (-5e-324, 5e-324), (0.0, 5e-324),
     (-5e-324, 0.0)],
)
@pytest.mark.parametrize("resolution", [2, 20, 100])
def test_lattice_of_extreme_ranges(lo, hi, resolution):
    """Every finite range gets a step whose lattice is finite, strictly increasing, inside
    ``[lo, hi]`` and at most ``resolution`` points (``hi - lo`` overflows for +-1e308, the
    ladder's powers of ten overflow beyond 1e308 and underflow below 1e-308)."""
    step = sg.choose_step(lo, hi, resolution)
    grid = sg.lattice(lo, hi, step)
    assert 1 <= len(grid) <= resolution
    assert np.isfinite(grid).all() and (np.diff(grid) > 0).all()
    assert grid[0] >= lo and grid[-1] <= hi


def test_stale_fine_step_counts_as_too_many():
    """A step of 1e-5 kept from values near 0 when the range jumps to 5e307: the lattice index
    ``5e307 / 1e-5`` overflows; the step is not kept (it was an OverflowError)."""
    assert sg.lattice_count(0.0, 5e307, (1, -5)) > 10**18
    assert not sg.keep_step(0.0, 5e307, (1, -5), 20)


def test_lerp_does_not_overflow():
    """``b - a`` overflows for ``a = -1e308, b = 1e308``; the interpolation stays finite:
    ``a + (b - a) t = (1 - t) a + t b = 2e308 t - 1e308``, 5e307 at ``t = 0.75``."""
    assert sg.lerp(-1e308, 1e308, 0.75) == pytest.approx(5e307, rel=1e-15)
    assert sg.lerp(1.0, 3.0, 0.25) == 1.5


def _jump_stream(big, n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n) * 1e-3, rng.normal(size=n)])
    X[30:40, 0] = big
    if abs(big) >= 1e308:
        X[40:45, 0] = -big
    return X, _tiny_slope(X)


@pytest.mark.parametrize("big", [5e307, -5e307, 1e308, 1.7e308])
@pytest.mark.parametrize("range_source", ["window", "storage"])
def test_ipdp_range_jumps_to_huge_values(big, range_source):
    """The feature's range jumps from ~1e-3 to ~5e307 (or +-1e308): it was an OverflowError in
    ``index_bounds`` that lost the whole batch. Now every row counts, the batch and the loop of
    explain_one agree bit for bit, and the PD is the closed form of the additive model:
    ``PD(v) - 1e-300 v`` is the same (the weighted mean of x1) at every grid value."""
    X, y = _jump_stream(big)
    kw = dict(range_source=range_source, percentiles=(0.0, 1.0), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        many = ix.IncrementalPDP(_tiny_slope, "x0", **kw)
        many.explain_many(X, y)
        one = ix.IncrementalPDP(_tiny_slope, "x0", **kw)
        for x, t in zip(X, y):
            one.explain_one(x, t)
        pd_many, pd_one = many.pd_, one.pd_
    assert many.n_explained_ == one.n_explained_ == len(X)
    grid = pd_many.grid_values[0]
    np.testing.assert_array_equal(grid, pd_one.grid_values[0])
    np.testing.assert_array_equal(pd_many.average, pd_one.average)
    assert np.isfinite(grid).all() and (np.diff(grid) > 0).all()
    assert np.isfinite(pd_many.deciles[0]).all()
    offset = pd_many.average[0] - grid * 1e-300
    np.testing.assert_allclose(offset, offset[0], rtol=0, atol=1e-7 * max(1.0, abs(big) * 1e-300))


def test_ipdp_subnormal_spread():
    """A feature spread over 1e-310 (subnormal floats): the ladder step 1e-312 was an
    OverflowError (``1 / 10.0**312``); now the grid is inside the range and every row counts."""
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.uniform(0, 1e-310, 50), rng.normal(size=50)])
    e = ix.IncrementalPDP(_tiny_slope, "x0", random_state=0)
    e.explain_many(X, _tiny_slope(X))
    grid = e.pd_.grid_values[0]
    assert e.n_explained_ == 50
    assert len(grid) > 2 and (np.diff(grid) > 0).all()
    assert 0.0 <= grid[0] and grid[-1] <= X[:, 0].max()


def _huge_slope(A):
    """``f(x) = 1e308 * x0 + x1``: additive, so every ICE curve at ``v`` is ``1e308 v + x1``."""
    A = np.asarray(A, dtype=np.float64)
    return A[:, 0] * 1e308 + A[:, 1]


def test_ipdp_at_the_smallest_subnormal():
    """x0 in {-5e-324, 0, 5e-324} (the smallest subnormal): ``hi / grid_resolution`` underflows
    to 0 and the ladder took log10(0) (a math domain error). Now the grid is the three floats
    (the finest step 5e-324), the batch and the loop of explain_one agree bit for bit, and the
    PD is linear in the model: that of :func:`_huge_slope` minus that of ``f(x) = x1`` on the
    same rows is ``1e308 v``: exactly 0 at v = 0 (the same model values), and -+4.9e-16 at the
    ends (up to the rounding of means of O(1) values, 2e-16)."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.choice([0.0, 5e-324, -5e-324], 60), rng.normal(size=60)])
    kw = dict(percentiles=(0.0, 1.0), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        many = ix.IncrementalPDP(_huge_slope, "x0", **kw)
        many.explain_many(X, _huge_slope(X))
        one = ix.IncrementalPDP(_huge_slope, "x0", **kw)
        for x in X:
            one.explain_one(x)
        pd_many, pd_one = many.pd_, one.pd_
    assert many.n_explained_ == one.n_explained_ == len(X)
    np.testing.assert_array_equal(pd_many.grid_values[0], [-5e-324, 0.0, 5e-324])
    np.testing.assert_array_equal(pd_one.grid_values[0], pd_many.grid_values[0])
    np.testing.assert_array_equal(pd_many.average, pd_one.average)
    plain = ix.IncrementalPDP(lambda A: np.asarray(A, dtype=np.float64)[:, 1], "x0", **kw)
    plain.explain_many(X, X[:, 1])
    diff = pd_many.average[0] - plain.pd_.average[0]
    assert diff[1] == 0.0 and diff[0] < 0.0 < diff[2]
    np.testing.assert_allclose(diff, pd_many.grid_values[0] * 1e308, rtol=0, atol=2.5e-16)


@pytest.mark.parametrize(("lo", "hi"), [(1.0, 1.0 + 4e-16), (1e6, 1e6 + 1e-9), (-3.0, -3.0 + 1e-14)])
def test_lattice_of_a_range_a_few_floats_wide(lo, hi):
    """A range a few ulps wide: the ladder step 2e-17 gave lattice indices past 2**53, so 17
    "grid points" that were one float. The step now stays >= 2**-50 of the values: the points
    are distinct (or the range holds at most one)."""
    grid = sg.lattice(lo, hi, sg.choose_step(lo, hi, 20))
    assert len(np.unique(grid)) == len(grid) <= 20
    assert ((grid >= lo) & (grid <= hi)).all()


def test_ipdp_range_between_two_lattice_points():
    """Rows 1 + k 2**-52 (k = 1, 2, 3): no multiple of the step 1e-15 lies in their range, so
    the lattice is empty; the grid is then the range's lower end (as for a range of one
    value), and every row counts."""
    X = np.column_stack([1.0 + np.array([1, 3, 2, 1, 3, 2]) * 2.0**-52, np.zeros(6)])
    assert len(sg.lattice(X[0, 0], X[1, 0], sg.choose_step(X[0, 0], X[1, 0], 20))) == 0
    e = ix.IncrementalPDP(_tiny_slope, "x0", percentiles=(0.0, 1.0), random_state=0)
    e.explain_many(X, _tiny_slope(X))
    assert e.n_explained_ == 6
    np.testing.assert_array_equal(e.pd_.grid_values[0], [X[0, 0]])


# ---------------------------------------------------------------- feature_names
def _linear(A):
    A = np.asarray(A, dtype=np.float64)
    return A[:, 0] + 2 * A[:, 1]


_X2 = np.random.default_rng(0).normal(size=(30, 2))

_NAMED = {
    "IncrementalPFI": lambda names: ix.IncrementalPFI(_linear, loss="squared_error",
                                                      feature_names=names),
    "IncrementalSAGE": lambda names: ix.IncrementalSAGE(_linear, loss="squared_error",
                                                        feature_names=names),
    "IncrementalPDP": lambda names: ix.IncrementalPDP(_linear, "a", feature_names=names),
    "IncrementalALE": lambda names: ix.IncrementalALE(_linear, "a", feature_names=names),
    "IncrementalShapleyInteractions": lambda names: ix.IncrementalShapleyInteractions(
        _linear, loss="squared_error", feature_names=names),
    "partial_dependence": lambda names: ix.partial_dependence(_linear, _X2, ["a"],
                                                              feature_names=names),
    "accumulated_local_effects": lambda names: ix.accumulated_local_effects(
        _linear, _X2, ["a"], feature_names=names),
    "h_statistic": lambda names: ix.h_statistic(_linear, _X2, feature_names=names),
    "DatasetStorage": lambda names: ix.DatasetStorage(_X2, feature_names=names),
    "ixplain": lambda names: ix.as_table(_X2, feature_names=names),
}


@pytest.mark.parametrize("owner", sorted(_NAMED))
@pytest.mark.parametrize("names", ["ab", b"ab"])
def test_feature_names_string_is_refused(owner, names):
    """``feature_names="ab"`` was read as ['a', 'b'] (one feature per character) by every
    incremental explainer and the static ALE; now a TypeError names the string."""
    with pytest.raises(TypeError, match=rf"'feature_names' parameter of {owner} must be a list "
                                        rf"of names\. Got the string b?'ab' instead"):
        _NAMED[owner](names)


@pytest.mark.parametrize("owner", ["IncrementalPFI", "partial_dependence", "ixplain"])
def test_feature_names_unordered_or_repeated_is_refused(owner):
    """A set has no column order (TypeError); a repeated name lost a column of the table
    without a word (``as_table(X, ["a", "a"])`` had one column and two names)."""
    with pytest.raises(TypeError, match="list of names"):
        _NAMED[owner]({"a", "b"})
    with pytest.raises(ValueError, match=r"each once.*\['a'\] repeated"):
        _NAMED[owner](["a", "a"])


def test_feature_names_array_of_names_for_records():
    """A 1-D array of names picks record keys (it was numpy's ambiguous truth value error)."""
    table = ix.as_table([{"b": 1.0, "a": 2.0}], np.array(["a", "b"]))
    assert table.names == ("a", "b") and table.column("a")[0] == 2.0


# ---------------------------------------------------------------- complex numbers
def _real_model(A):
    A = np.asarray(A.to_numpy() if hasattr(A, "to_numpy") else A, dtype=np.float64)
    return A[:, 0] + 2 * A[:, 1]


def _complex_inputs():
    pd = pytest.importorskip("pandas")
    X = _X2.copy()
    Xc = X.astype(complex)
    Xc[3, 1] += 1j
    Xo = X.astype(object)
    Xo[2, 1] = 3j
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1].astype(complex)})
    records = [{"a": r[0], "b": complex(r[1])} for r in X]
    return {"complex array": (Xc, "x1"), "object array": (Xo, "x1"),
            "complex column": (frame, "b"), "records": (records, "b")}


_ON_X = {
    "IncrementalPFI": lambda X, y: ix.IncrementalPFI(_real_model, loss="squared_error")
    .explain_many(X, y),
    "IncrementalSAGE": lambda X, y: ix.IncrementalSAGE(_real_model, loss="squared_error")
    .explain_many(X, y),
    "IncrementalPDP": lambda X, y: ix.IncrementalPDP(_real_model, 0).explain_many(X, y),
    "IncrementalALE": lambda X, y: ix.IncrementalALE(_real_model, 0).explain_many(X, y),
    "permutation_importance": lambda X, y: ix.permutation_importance(
        _real_model, X, y, loss="squared_error"),
    "partial_dependence": lambda X, y: ix.partial_dependence(_real_model, X, [0]),
    "accumulated_local_effects": lambda X, y: ix.accumulated_local_effects(_real_model, X, [0]),
    "sage": lambda X, y: ix.sage(_real_model, X, y, loss="squared_error", n_permutations=2),
}


@pytest.mark.parametrize("owner", sorted(_ON_X))
@pytest.mark.parametrize("case", ["complex array", "object array", "complex column", "records"])
def test_complex_features_are_refused_at_conversion(owner, case):
    """Complex features reached the model (a ModelEvaluationError from its float cast) or were
    cast to their real part with numpy's ComplexWarning; now the conversion refuses them,
    naming the column and a value, before any model call."""
    X, column = _complex_inputs()[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning either
        with pytest.raises(TypeError, match=rf"{owner}: feature '{column}' holds complex numbers"):
            _ON_X[owner](X, _linear(_X2))


@pytest.mark.parametrize("owner", ["IncrementalPFI", "IncrementalSAGE",
                                   "permutation_importance", "sage"])
@pytest.mark.parametrize("kind", ["complex", "object"])
def test_complex_targets_are_refused(owner, kind):
    """A complex y was cast to its real part (ComplexWarning) inside the loss."""
    y = _linear(_X2).astype(kind)
    y[4] = 2j
    with pytest.raises(TypeError, match=rf"{owner}: y holds complex numbers \(e.g. 2j\)"):
        _ON_X[owner](_X2, y)


def test_complex_label_of_one_observation_is_refused():
    e = ix.IncrementalPFI(_real_model, loss="squared_error")
    with pytest.raises(TypeError, match="y holds complex numbers"):
        e.explain_one(_X2[0], 1 + 1j)
    assert e.n_seen_ == 0


# ---------------------------------------------------------------- non-finite losses
@pytest.mark.parametrize("given_rows", [False, True])
def test_detector_names_the_stream_row_of_a_nonfinite_loss(given_rows):
    """The message called batch row 7 "row 7"; the values' message names the stream row. Now
    both do: after 20 rows, batch row 7 is stream row 27 (or 1007 in rows 1000..1029), with
    the batch row beside it."""
    rng = np.random.default_rng(0)
    d = ix.ExplanationDriftDetector()
    d.update_values(rng.normal(size=(20, 2)), losses=np.ones(20))
    losses = np.ones(30)
    losses[7] = np.nan
    rows, first = (np.arange(1000, 1030), 1000) if given_rows else (None, 20)
    with pytest.raises(ValueError, match=rf"the loss at row {first + 7} \(row 7 of this batch\) "
                                         r"is nan"):
        d.update_values(rng.normal(size=(30, 2)), rows=rows, losses=losses)


# ---------------------------------------------------------------- object columns of numbers
def _nan_safe(A):
    """``x0 + 2 x1`` with missing values read as 0 (any input type)."""
    if isinstance(A, list):
        A = [[r["a"], r["b"]] for r in A]
    A = np.asarray(A.to_numpy() if hasattr(A, "to_numpy") else A, dtype=np.float64)
    return np.nan_to_num(A[:, 0], posinf=0.0, neginf=0.0) + 2 * np.nan_to_num(
        A[:, 1], posinf=0.0, neginf=0.0)


def _object_inputs(value):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": _X2[:, 0], "b": _X2[:, 1].astype(object)})
    frame.loc[5, "b"] = value
    records = [{"a": a, "b": b} for a, b in _X2]
    records[5]["b"] = value
    return {"frame": frame, "records": records}


_STREAMS = {
    "IncrementalPFI": lambda **kw: ix.IncrementalPFI(_nan_safe, loss="squared_error", **kw),
    "IncrementalSAGE": lambda **kw: ix.IncrementalSAGE(_nan_safe, loss="squared_error", **kw),
    "IncrementalPDP": lambda **kw: ix.IncrementalPDP(_nan_safe, "b", **kw),
    "IncrementalALE": lambda **kw: ix.IncrementalALE(_nan_safe, "b", regrid_every=10, **kw),
}


@pytest.mark.parametrize("owner", sorted(_STREAMS))
@pytest.mark.parametrize("source", ["frame", "records"])
@pytest.mark.parametrize("missing", ["None", "nan", "inf", "NA"])
def test_missing_in_object_column_follows_nan_policy(owner, source, missing):
    """A numeric feature in an object column with one None/NaN/inf/pandas NA: the row is
    skipped by nan_policy='skip' (counted, one warning naming the feature). An object
    DataFrame column was categorical (the missing value went to the model, and iALE refused
    the feature); pandas NA in records was 'is numeric but an observation holds <NA>'."""
    pd = pytest.importorskip("pandas")
    value = {"None": None, "nan": np.nan, "inf": np.inf, "NA": pd.NA}[missing]
    X = _object_inputs(value)[source]
    e = _STREAMS[owner]()
    with pytest.warns(RuntimeWarning, match="NaN or infinite values.*feature 'b'"):
        e.explain_many(X, _linear(_X2))
    assert e.n_skipped_ == 1 and e.n_seen_ == len(_X2)
    with pytest.raises(ValueError, match="feature 'b' is NaN or infinite"):
        _STREAMS[owner](nan_policy="raise").explain_many(X, _linear(_X2))


@pytest.mark.parametrize("missing", [None, np.nan])
def test_object_frame_column_of_numbers_is_numeric(missing):
    """An object DataFrame column of numbers and missing values is numeric, as the same
    values in an object array or in records are: PD on a numeric grid (it was one level per
    distinct value), ALE in bins."""
    X = _object_inputs(missing)["frame"]
    assert ix.as_table(X).schema.kinds == ("numeric", "numeric")
    pd_b = ix.partial_dependence(_nan_safe, X, ["b"], grid_resolution=10)
    assert pd_b.feature_kinds == ("numeric",) and len(pd_b.grid_values[0]) == 10
    ale = ix.accumulated_local_effects(_nan_safe, X, ["b"], grid_resolution=4)
    np.testing.assert_allclose(np.diff(ale.average[0]), 2 * np.diff(ale.grid_values[0]))


def test_string_in_numeric_column_is_named_when_the_model_fails():
    """A stray string in a numeric object column makes it categorical; the model then fails.
    The error now names the column and the string (it named only the model call)."""
    for X in _object_inputs("abc").values():
        with pytest.raises(ix.ModelEvaluationError,
                           match=r"Feature 'b' mixes numbers and strings \(e.g. 'abc'\)"):
            ix.partial_dependence(_nan_safe, X, ["a"])


# ---------------------------------------------------------------- the shared power of two
@pytest.mark.parametrize("k", [-1021, -300, -1, 0, 1, 200, 1023])  # (normal floats)
@pytest.mark.parametrize("m", [0.5, 0.75, 0.9999])
def test_unit_shift_closed_form(k, m):
    """``top = m 2**k`` with ``m`` in [0.5, 1) is brought to ``m`` by ``2**-k``: the shift
    is ``-k`` (frexp's exponent), for the ALE moments and the drift channels alike."""
    from ixplain._numeric import moment_shift, unit_shift

    top = math.ldexp(m, k)
    assert unit_shift(top) == unit_shift(-top) == -k
    if not 2.0**-128 <= top <= 2.0**128:
        assert moment_shift(np.array([top, -top / 3])) == -k


def _arcsinh_model(A):
    A = np.asarray(A, dtype=np.float64)
    return np.arcsinh(A[:, 0]) + A[:, 1]


@pytest.mark.parametrize("aggregation", ["mean", "ema"])
def test_iale_range_jump_to_huge_values(aggregation):
    """The feature's range jumps from [0, 1] to [0, 5e307]: carried over bins 1e308 times
    wider, the old slopes overflowed and the ALE was -inf/NaN (the moments of every later row
    were NaN). Now the estimate restarts on the new bins, with a warning. The model is
    additive, so every row's difference in bin k is exactly ``asinh(z_k) - asinh(z_{k-1})``:
    the ALE's steps over the bins that hold rows are those differences."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(0, 1, 300), rng.normal(size=300)])
    X[150:, 0] *= 5e307
    kw = dict(random_state=0, regrid_every=50, grid_resolution=5, aggregation=aggregation)
    with pytest.warns(RuntimeWarning, match=r"range of feature 'x0' moved from .* starts afresh"):
        e = ix.IncrementalALE(_arcsinh_model, "x0", **kw)
        e.explain_many(X)
    with pytest.warns(RuntimeWarning, match="starts afresh"):
        one = ix.IncrementalALE(_arcsinh_model, "x0", **kw)
        for x in X:
            one.explain_one(x)
    np.testing.assert_array_equal(e.importances_, one.importances_)
    ale = e.ale_
    assert np.isfinite(ale.average).all()
    held = ale.bin_counts > 0
    assert held.sum() >= 2
    steps = np.diff(ale.average[0])
    np.testing.assert_allclose(steps[held], np.diff(np.arcsinh(ale.grid_values[0]))[held],
                               rtol=1e-9)
    assert np.isfinite(ale.std[0]).any()


# ---------------------------------------------------------------- shapes between calls
_STREAM_OWNERS = {
    "IncrementalPFI": lambda: ix.IncrementalPFI(_linear, loss="squared_error", random_state=0),
    "IncrementalSAGE": lambda: ix.IncrementalSAGE(_linear, loss="squared_error", random_state=0),
    "IncrementalPDP": lambda: ix.IncrementalPDP(_linear, 0, random_state=0),
    "IncrementalALE": lambda: ix.IncrementalALE(_linear, 0, regrid_every=10, random_state=0),
}


@pytest.mark.parametrize("owner", sorted(_STREAM_OWNERS))
def test_rows_of_another_width_name_the_features(owner):
    """A later batch with 1 or 4 values per row was "got 2 feature_names for data with 1
    columns" (names the user never gave); a batch of 0 columns was "an empty batch (0 rows)"
    for 30 rows. Nothing is counted."""
    e = _STREAM_OWNERS[owner]()
    e.explain_many(_X2, _linear(_X2))
    for X in (_X2[:, :1], np.c_[_X2, _X2], _X2[:, :1].tolist(), _X2[0, :1]):
        with pytest.raises(ValueError, match=rf"{owner}: the observations have \d values each "
                                             r".*features, fixed by its first observation, are "
                                             r"2: \['x0', 'x1'\]"):
            (e.explain_one if np.ndim(X) == 1 else e.explain_many)(X, _linear(_X2)[:len(X)]
                                                                  if np.ndim(X) == 2 else 1.0)
    with pytest.raises(ValueError, match="without features"):
        _STREAM_OWNERS[owner]().explain_many(_X2[:, :0], _linear(_X2))
    assert e.n_seen_ == len(_X2)


@pytest.mark.parametrize("cls", [ix.IncrementalPFI, ix.IncrementalSAGE])
def test_multi_output_labels_in_batches(cls):
    """Labels of a two-output model, shape (B, 2): explain_many crashed in the storage
    ("value array of shape (30,2) could not be broadcast"); explain_one worked. Now both give
    the same estimate (bit for bit, as for any batching)."""
    def two(A):
        A = np.asarray(A, dtype=np.float64)
        return np.c_[A[:, 0], 2 * A[:, 1]]

    Y = two(_X2)
    many = cls(two, loss="squared_error", random_state=0)
    many.explain_many(_X2, Y)
    one = cls(two, loss="squared_error", random_state=0)
    for x, t in zip(_X2, Y):
        one.explain_one(x, t)
    np.testing.assert_array_equal(many.importances_, one.importances_)
    assert (many.importances_ > 0).all()


def test_ipdp_nullable_boolean_missing_is_not_a_level():
    """pandas NA in a nullable boolean feature was a third grid level (its ``!=`` is NA, not
    a bool, so it did not count as missing); NaN in a categorical one was not. Now neither."""
    pd = pytest.importorskip("pandas")
    for dtype in ("boolean", "category"):
        frame = pd.DataFrame({"a": _X2[:, 0], "b": (_X2[:, 1] > 0)}).astype({"b": dtype})
        frame.loc[3, "b"] = pd.NA if dtype == "boolean" else np.nan
        e = ix.IncrementalPDP(lambda A: A["a"].to_numpy(dtype=float), "b", random_state=0)
        e.explain_many(frame)
        assert len(e.pd_.grid_values[0]) == 2, dtype


@pytest.mark.parametrize("owner", sorted(_ON_X))
@pytest.mark.parametrize("frame", [False, True])
def test_zero_columns_are_not_zero_rows(owner, frame):
    """X of shape (30, 0) was "X has 0 rows" in every method (a table of no columns counts
    no rows); now the message says there are no features."""
    X = _X2[:, :0]
    if frame:
        X = pytest.importorskip("pandas").DataFrame(index=range(30))
    with pytest.raises(ValueError, match=rf"{owner} got X without features"):
        _ON_X[owner](X, _linear(_X2))


def test_h_statistic_refuses_a_1d_array():
    """A 1-D array was one row of 30 features: an H of 0 for every feature, without a word."""
    with pytest.raises(ValueError, match="'X' parameter of h_statistic must be 2-D"):
        ix.h_statistic(_linear, _X2[:, 0])


@pytest.mark.parametrize("inf", [np.inf, -np.inf])
def test_pd_grid_has_no_infinite_point(inf):
    """An infinite feature value was a grid point (the grid of distinct values ended at inf,
    the PD there was inf, with numpy's 'invalid value' warning). Now the grid holds the finite
    values only, and the PD of ``x0 + 2 x1`` at ``v`` is ``mean(x0) + 2 v``."""
    X = _X2.copy()
    X[7, 1] = inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = ix.partial_dependence(_linear, X, [1])
    grid = result["grid_values"][0]
    np.testing.assert_array_equal(grid, np.unique(np.delete(X[:, 1], 7)))
    np.testing.assert_allclose(result["average"][0], X[:, 0].mean() + 2 * grid, rtol=1e-12)


def test_sage_background_of_another_width():
    """It read "got 2 feature_names for data with 1 columns" (names never given)."""
    with pytest.raises(ValueError, match=r"sage: background has 1 columns; X has 2"):
        ix.sage(_linear, _X2, _linear(_X2), loss="squared_error", background=_X2[:, :1])


def test_ipdp_warns_once_past_max_levels_and_points_at_the_caller():
    """A categorical feature with more than ``MAX_LEVELS`` levels (an identifier column) makes
    every row cost a model row per level; static PD refuses it, a stream cannot know the
    count in advance: iPDP warns once, when level ``MAX_LEVELS + 1`` appears, and the warning
    names the user's line (this file), not ixplain's internals."""
    import warnings

    import pandas as pd

    from ixplain import IncrementalPDP
    from ixplain.grids import MAX_LEVELS

    n = MAX_LEVELS + 200
    df = pd.DataFrame({"id": [f"u{i}" for i in range(n)], "x": np.arange(n, dtype=float)})
    for chunk in (100, 1):
        p = IncrementalPDP(lambda Z: np.zeros(len(Z)), "id", random_state=0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for s in range(0, n, chunk):
                p.explain_many(df.iloc[s:s + chunk])
        hits = [w for w in caught if "levels" in str(w.message)]
        assert len(hits) == 1, chunk
        assert f"more than {MAX_LEVELS:,} levels" in str(hits[0].message)
        assert hits[0].filename == __file__


def test_interactions_to_result_before_any_row_is_not_started():
    """``IncrementalShapleyInteractions.to_result()`` before any row raises NotStartedError (a
    ValueError, as before, and an AttributeError, as iPDP's ``pd_`` and iALE's ``ale_``)."""
    from ixplain import IncrementalShapleyInteractions
    from ixplain.methods.ipdp import NotStartedError

    e = IncrementalShapleyInteractions(lambda Z: np.asarray(Z).sum(1), loss="squared_error")
    with pytest.raises(NotStartedError, match="has not explained any observation"):
        e.to_result()


def _time_columns():
    import pandas as pd

    start = pd.Timestamp("2020-01-01")
    return {
        "datetime64[ns]": pd.Series(pd.date_range(start, periods=30, freq="D")),
        "datetime64[ns, UTC]": pd.Series(pd.date_range(start, periods=30, freq="D", tz="UTC")),
        "timedelta64[ns]": pd.Series(pd.to_timedelta(np.arange(30), unit="h")),
    }


def _refuse_static_pd(X):
    ix.partial_dependence(lambda Z: np.zeros(len(Z)), X, ["when"])


def _refuse_static_pd_custom(X):
    ix.partial_dependence(lambda Z: np.zeros(len(Z)), X, ["when"],
                          custom_values={"when": X["when"].iloc[:2]})


def _refuse_ipdp(X):
    ix.IncrementalPDP(lambda Z: np.zeros(len(Z)), "when").explain_many(X)


def _refuse_iale(X):
    ix.IncrementalALE(lambda Z: np.zeros(len(Z)), "when").explain_many(X)


_TIME_NOUNS = {"datetime64[ns]": "dates or datetimes", "datetime64[ns, UTC]": "dates or datetimes",
               "timedelta64[ns]": "durations"}


@pytest.mark.parametrize("dtype", list(_time_columns()))
@pytest.mark.parametrize(("method", "owner", "hint"), [
    (_refuse_static_pd, "partial_dependence", "grid values given for it are refused too"),
    (_refuse_static_pd_custom, "partial_dependence", "grid values given for it are refused too"),
    (_refuse_ipdp, "IncrementalPDP", "partial_dependence and IncrementalALE refuse them too"),
    (_refuse_iale, "IncrementalALE", "iALE bins numbers on a stream"),
])
def test_datetime_refusals_share_one_text_naming_column_and_dtype(dtype, method, owner, hint):
    """Static PD, iPDP and iALE refuse a date, datetime or duration feature with one text
    (``refuse_datetime``): the owner, the column, its exact dtype, the method's own hint and
    the conversion to a number for that sort (a duration's length, not seconds since a
    start; a duration is not called a timestamp)."""
    import pandas as pd

    X = pd.DataFrame({"when": _time_columns()[dtype], "x": np.arange(30.0)})
    noun = _TIME_NOUNS[dtype]
    dtype = str(X["when"].dtype)  # the label's unit is numpy's; pandas 3 makes it [us]
    with pytest.raises(ValueError) as info:
        method(X)
    text = str(info.value)
    assert text.startswith(f"{owner}: feature 'when' holds {noun} (dtype {dtype}); ")
    assert hint in text
    assert "accumulated_local_effects bins them in time order" in text
    if noun == "durations":
        assert "X['when'].dt.total_seconds()" in text and "start" not in text
        assert "timestamp" not in text.lower()  # a grid value per distinct *value*
    else:
        assert "(X['when'] - start).dt.total_seconds()" in text
    assert "custom_values" not in text  # static PD refuses them for dates too


def test_ipdp_datetime_objects_refusal_names_the_value_type():
    """Records of ``datetime`` objects have no datetime dtype: iPDP names the value type."""
    import datetime

    rows = [{"when": datetime.datetime(2020, 1, 1 + i), "x": float(i)} for i in range(5)]
    e = ix.IncrementalPDP(lambda Z: np.zeros(len(Z)), "when")
    with pytest.raises(ValueError, match=r"^IncrementalPDP: feature 'when' holds dates or "
                                         r"datetimes \(values of type datetime\); "):
        e.explain_many(rows)


def test_static_pd_datetime_error_does_not_suggest_custom_values():
    """The datetime refusal comes before ``custom_values`` are read, so it must not offer them
    (QA: it suggested custom_values, which were then refused too)."""
    import pandas as pd

    from ixplain import partial_dependence

    X = pd.DataFrame({"t": pd.date_range("2020-01-01", periods=50), "x": np.arange(50.0)})
    with pytest.raises(ValueError, match="holds dates or datetimes") as info:
        partial_dependence(lambda Z: np.zeros(len(Z)), X, ["t"])
    assert "custom_values" not in str(info.value)


def _date_like_columns():
    """Each sort of date-like column (12 increasing values, one missing), the noun its
    refusal uses, and the ``start`` its conversion needs."""
    import datetime

    import pandas as pd

    k = list(range(12))
    naive, paris = pd.Timestamp("2024-01-01"), pd.Timestamp("2024-01-01", tz="Europe/Paris")

    def obj(values):
        return pd.Series(values[:5] + [None] + values[6:], dtype=object)

    return {
        "datetime64[s]": (pd.Series(pd.date_range(naive, periods=12, freq="h"))
                          .astype("datetime64[s]"), "dates or datetimes", naive),
        "tz-aware": (pd.Series(pd.date_range(paris, periods=12, freq="h")),
                     "dates or datetimes", paris),
        "timedelta64[s]": (pd.Series(pd.to_timedelta(k, unit="h")).astype("timedelta64[s]"),
                           "durations", None),
        "Period dtype": (pd.Series(pd.period_range("2024-01", periods=12, freq="M")),
                         "pandas periods", naive),
        "datetime objects": (obj([datetime.datetime(2024, 1, 1, i) for i in k]),
                             "dates or datetimes", naive),
        "date objects": (obj([datetime.date(2024, 1, 1 + i) for i in k]), "dates", naive),
        "timedelta objects": (obj([datetime.timedelta(hours=i) for i in k]), "durations",
                              None),
        "Period objects": (obj(list(pd.period_range("2024-01", periods=12, freq="M"))),
                           "pandas periods", naive),
        "numpy datetime64 objects": (obj([np.datetime64("2024-01-01") + np.timedelta64(i, "D")
                                          for i in k]), "dates or datetimes", naive),
    }


def _zero(Z):
    return np.zeros(len(Z))


_DATE_METHODS = {
    "partial_dependence": lambda X: ix.partial_dependence(_zero, X, "when"),
    "partial_dependence custom_values": lambda X: ix.partial_dependence(
        _zero, X, "when", custom_values={"when": X["when"].iloc[:2].tolist()}),
    "IncrementalPDP": lambda X: ix.IncrementalPDP(_zero, "when").explain_many(X),
    "IncrementalPDP grid=": lambda X: ix.IncrementalPDP(_zero, "when", grid=[0.0, 1.0])
    .explain_many(X),
    "IncrementalPDP records": lambda X: [ix.IncrementalPDP(_zero, "when").explain_one(r)
                                         for r in X.to_dict("records")[:3]],
    "IncrementalALE": lambda X: ix.IncrementalALE(_zero, "when").explain_many(X),
    "IncrementalALE records": lambda X: [ix.IncrementalALE(_zero, "when").explain_one(r)
                                         for r in X.to_dict("records")[:3]],
}


@pytest.mark.parametrize("column", list(_date_like_columns()))
@pytest.mark.parametrize("method", list(_DATE_METHODS))
def test_date_like_features_refused_alike_with_code_that_runs(column, method):
    """Static PD, iPDP (a fixed grid too) and iALE (records with a Timestamp too) refuse every
    sort of date-like feature, object columns whose values are all dates included, with the
    date text (QA: static PD took object dates and Periods as levels, iPDP's fixed grid took
    object datetimes and crashed on Periods, iALE said "not numeric"). The conversion the
    message shows runs as pasted on the user's column and gives increasing seconds; where it
    says accumulated_local_effects bins the feature in time order, it does."""
    import re

    import pandas as pd

    values, noun, start = _date_like_columns()[column]
    X = pd.DataFrame({"when": values, "x": np.arange(12.0)})
    owner = method.split()[0]
    with pytest.raises(ValueError) as info:
        _DATE_METHODS[method](X)
    text = str(info.value)
    assert text.startswith(f"{owner}: feature 'when' holds {noun} ("), text
    code = re.search(r"e\.g\. [^(]*?((?:\(|X\[|pd\.)\S.*?\.total_seconds\(\))", text)
    assert code is not None, text
    seconds = eval(code.group(1), {"pd": pd, "X": X, "start": start})
    present = seconds.drop(5) if X["when"].dtype == object else seconds
    assert present.notna().all() and present.is_monotonic_increasing and present.iloc[-1] > 0
    if noun == "durations":
        assert "start" not in code.group(1)
    if "accumulated_local_effects bins them in time order" in text:
        grid = ix.accumulated_local_effects(_zero, X, "when").grid_values[0]
        assert pd.Series(grid).is_monotonic_increasing
        assert pd.api.types.infer_dtype(grid) in ("datetime", "datetime64", "timedelta",
                                                  "timedelta64")


@pytest.mark.parametrize("column", list(_date_like_columns()))
def test_the_refusal_shows_a_wrapper_that_gives_a_dt_model_its_dates_back(column):
    """The refusal converts the column to seconds; for a model that reads the dates
    themselves (``.dt``) it also shows the wrapper that turns the seconds back: its code,
    run as pasted on the converted column (with the same ``start``; ``freq`` for periods),
    gives the original values back (in a datetime64/timedelta64/period column: a Python
    object column comes back as the pandas dtype its ``.dt`` needs)."""
    import re

    import pandas as pd

    values, noun, start = _date_like_columns()[column]
    X = pd.DataFrame({"when": values, "x": np.arange(12.0)})
    with pytest.raises(ValueError) as info:
        ix.partial_dependence(_zero, X, "when")
    text = str(info.value)
    code = re.search(r"e\.g\. [^(]*?((?:\(|X\[|pd\.)\S.*?\.total_seconds\(\))", text).group(1)
    numbers = X.assign(when=eval(code, {"pd": pd, "X": X, "start": start}))
    back = re.search(r"through a wrapper that turns the numbers back: lambda X: "
                     r"model\.predict\(X\.assign\(\*\*\{'when': (.*?)\}\)\)", text)
    assert back is not None, text
    got = eval(back.group(1), {"pd": pd, "X": numbers, "start": start, "freq": "M"})
    if "periods" in noun:
        want = pd.Series(pd.array(list(values), dtype="period[M]"))
    elif noun == "durations":
        want = pd.to_timedelta(values)
    else:
        want = pd.to_datetime(values)
    same = [(g == w) or (pd.isna(g) and pd.isna(w)) for g, w in zip(got, want)]
    assert len(got) == len(want) and all(same), (got.tolist(), want.tolist())
    assert got.dt is not None  # (what the model reads)
    assert ("the same start" in text) == (noun != "durations")


def test_date_sort_ignores_missing_values_and_needs_one_date():
    """An object column counts as dates when its non-missing values are all date-like; a
    string among them, or no date at all, does not."""
    import datetime

    import pandas as pd

    from ixplain._validation import date_sort

    obj = np.dtype(object)
    day = datetime.date(2024, 1, 1)
    assert date_sort([None, np.nan, pd.NaT, pd.NA, day], obj) == ("date", "values of type date")
    assert date_sort([day, "2024-01-02"], obj) is None
    assert date_sort([None, np.nan], obj) is None
    assert date_sort([day, datetime.timedelta(1)], obj)[0] == "mixed"
    assert date_sort([1.0], np.dtype(np.float64)) is None


# ---------------------------------------------------------------- a loss that overflows float64
def _overflow_stream():
    """20 rows of two features; the target of row 7 is 1e200 (the rest 1)."""
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [0.2, 0.3]] * 5)
    y = np.ones(len(X))
    y[7] = 1e200
    return X, y


def _stream_warnings(cls, model, X, y, one_by_one):
    e = cls(model, loss="squared_error", random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if one_by_one:
            for row, target in zip(X, y):
                e.explain_one({"x0": row[0], "x1": row[1]}, target)
        else:
            e.explain_many(X, y)
    ours = [str(w.message) for w in caught if str(w.message).startswith(cls.__name__)]
    return e, ours


@pytest.mark.parametrize("cls", [ix.IncrementalPFI, ix.IncrementalSAGE])
@pytest.mark.parametrize("one_by_one", [False, True])
def test_stream_loss_overflow_is_named_with_row_value_and_fix(cls, one_by_one):
    """``y = 1e200`` with prediction 0: ``(0 - 1e200) ** 2`` is inf in float64, so the row's
    values are not finite. The warning said "does the model return NaN?" (the model returned
    0.0 for every row); it names the overflow, the stream row (7), y and the rescaling."""
    X, y = _overflow_stream()
    e, ours = _stream_warnings(cls, lambda A: np.zeros(len(A)), X, y, one_by_one)
    assert len(ours) == 1, ours
    count = "1 of 1 observation(s)" if one_by_one else "1 of 20 observation(s) of this call"
    assert ours[0].startswith(f"{cls.__name__}: {count} skipped (explanations that were not "
                              "finite: the loss overflowed float64 at stream row 7 (the loss of "
                              "the model's prediction with y = 1e+200 is inf")
    assert "rescale y" in ours[0] and "|y| < 1e100" in ours[0] and "NaN" not in ours[0]
    assert e.n_skipped_ == 1 and e.n_explained_ == len(X) - 2  # (row 0: no stored row yet)


def test_stream_nan_model_and_perturbed_overflow_keep_their_own_reasons():
    """A model that returns NaN for row 3 is still called out as such (its own loss is NaN);
    a model ``1e160 * x0`` with ``y = 0`` has a loss 0 on rows 1-9 (``x0 = 0``), but a copy
    of one with row 0's ``x0 = 1`` predicts 1e160, whose square overflows."""
    X, _ = _overflow_stream()
    y = np.ones(len(X))

    def nan_at_three(A):
        out = np.zeros(len(A))
        out[np.asarray(A)[:, 1] == 0.3] = np.nan  # rows 3, 7, ...: the first is row 3
        return out

    _, ours = _stream_warnings(ix.IncrementalPFI, nan_at_three, X, y, False)
    assert len(ours) == 1 and "first at stream row 3: the model returned NaN" in ours[0]
    Z = np.array([[1.0, 0.0]] + [[0.0, 0.0]] * 9)  # row 0 is stored, not explained
    e, ours = _stream_warnings(ix.IncrementalPFI, lambda A: 1e160 * np.asarray(A)[:, 0], Z,
                               np.zeros(len(Z)), False)
    assert len(ours) == 1 and e.n_skipped_ >= 1, ours
    assert re.search(r"first at stream row [1-9] with y = 0\.0: the loss of a perturbed copy "
                     r"overflowed float64", ours[0]), ours[0]


def test_feature_names_not_among_a_dataframes_columns_is_a_value_error():
    """``feature_names=["x", "b"]`` for a DataFrame with columns ``x, z`` raised a bare
    ``KeyError "Unknown feature 'b'"`` naming no explainer; it is a ValueError naming the
    explainer, the unknown names and the columns, and nothing is taken (the schema too: a
    corrected ``feature_names`` then works as a first call)."""
    import pandas as pd

    from ixplain import IncrementalPFI

    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "z": [1.0, 2.0, 3.0, 5.0]})
    e = IncrementalPFI(lambda D: np.asarray(D)[:, 0], "squared_error", feature_names=["x", "b"])
    with pytest.raises(ValueError, match=re.escape(
            "IncrementalPFI: feature_names ['b'] are not columns of the observations (their "
            "columns: ['x', 'z'])")):
        e.explain_many(df, [1.0, 2.0, 3.0, 4.0])
    assert e.n_seen_ == 0 and e.feature_names_ is None
    e.feature_names = ["z", "x"]
    e.explain_many(df, [1.0, 2.0, 3.0, 4.0])
    assert e.feature_names_ == ["z", "x"] and e.n_seen_ == 4


def test_stream_infinite_prediction_is_named_as_a_possible_cause():
    """A model that returns inf where ``x1 = 0.3`` (rows 3, 7, ...; ``y = 1``) has an infinite
    loss too; the warning said only that ``|prediction - y|`` was too large to square, which
    is not the cause here: it names an infinite prediction as well."""
    X, _ = _overflow_stream()

    def inf_at_03(A):
        out = np.zeros(len(A))
        out[np.asarray(A)[:, 1] == 0.3] = np.inf
        return out

    e = ix.IncrementalPFI(inf_at_03, "squared_error")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e.explain_many(X, np.ones(len(X)))
    ours = [str(w.message) for w in caught if str(w.message).startswith("IncrementalPFI")]
    assert len(ours) == 1, ours
    assert "overflowed float64 at stream row 3" in ours[0], ours[0]
    assert "or the prediction itself is infinite" in ours[0], ours[0]
