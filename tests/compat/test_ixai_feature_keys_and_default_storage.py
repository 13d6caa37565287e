"""ixai shim: feature names match dict keys as given, and the default storage has get_data().

ixai reads ``x_i[name]`` for each name in ``feature_names``: int names need int keys. The shim
used to match keys by ``str(name)``, so ``{"0": .., "1": ..}`` was accepted for names [0, 1]
(and then fixed the keys, refusing ``{0: .., 1: ..}`` with "expected keys ['0', '1']").
"""

import numpy as np
import pytest
from river.metrics import MSE

from ixplain import IncrementalPFI as NativeIncrementalPFI
from ixplain.compat.ixai.explainer import IncrementalPFI
from ixplain.compat.ixai.explainer.sage import BatchSage
from ixplain.compat.ixai.storage import GeometricReservoirStorage, UniformReservoirStorage


def f(x):
    return x[0] + 2 * x[1]


def test_int_feature_names_accept_int_keys_and_refuse_str_keys():
    e = IncrementalPFI(f, "squared_error", [0, 1], random_state=0)
    with pytest.raises(ValueError, match=r"no feature 0 \(expected keys \[0, 1\]"):
        e.explain_one({"0": 1.0, "1": 2.0}, 3.0)
    assert e.seen_samples == 0
    assert set(e.explain_one({0: 1.0, 1: 2.0}, 3.0)) == {0, 1}
    with pytest.raises(ValueError, match=r"got \['0', '1'\]"):
        e.explain_one({"0": 1.0, "1": 2.0}, 3.0)


def test_str_feature_names_refuse_int_keys():
    e = IncrementalPFI(lambda x: x["0"], "squared_error", ["0", "1"], random_state=0)
    with pytest.raises(ValueError, match=r"no feature '0' \(expected keys \['0', '1'\]"):
        e.explain_one({0: 1.0, 1: 2.0}, 3.0)


def test_missing_key_message_lists_the_names_as_given():
    e = IncrementalPFI(lambda x: x[0], "squared_error", [0, "1"], random_state=0)
    with pytest.raises(ValueError, match=r"no feature 0 \(expected keys \[0, '1'\]"):
        e.explain_one({"1": 2.0}, 3.0)
    with pytest.raises(ValueError, match="no feature 0"):
        e.update_storage({"1": 2.0})


def test_batch_sage_names_feature_names_when_not_a_sequence():
    with pytest.raises(TypeError, match="'feature_names' parameter of BatchSage"):
        BatchSage(f, feature_names=3, loss_function=MSE())


@pytest.mark.parametrize("dynamic, kind", [(True, GeometricReservoirStorage),
                                           (False, UniformReservoirStorage)])
def test_default_storage_is_ixai_style_and_explains_like_ixplains(dynamic, kind):
    rng = np.random.default_rng(0)
    rows = [{0: rng.normal(), 1: rng.normal()} for _ in range(300)]
    shim = IncrementalPFI(f, "squared_error", [0, 1], dynamic_setting=dynamic, random_state=3)
    native = NativeIncrementalPFI(f, "squared_error", feature_names=[0, 1],
                                  aggregation="ema" if dynamic else "mean", alpha=0.001,
                                  random_state=3)
    for x in rows:
        shim.explain_one(x, f(x))
        native.explain_one(x, f(x))
    assert isinstance(shim.storage, kind)
    held, targets = shim.storage.get_data()
    assert len(held) == len(shim.storage) and set(held[0]) == {0, 1} and targets == []
    np.testing.assert_allclose(list(shim.importance_values.values()), native.importances_)
