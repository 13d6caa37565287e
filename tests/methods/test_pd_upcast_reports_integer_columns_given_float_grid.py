"""``PartialDependence.upcast`` names every integer feature the model received as float64.

The check used to look at the first grid value only; a grid starting at an integer (``4.0``)
but holding non-integer values hid the upcast.
"""

import numpy as np
import pandas as pd

from ixplain import partial_dependence


def _data():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"i": rng.integers(0, 100, 400), "b": rng.normal(size=400)})


def test_upcast_names_int_column_when_grid_starts_at_an_integer():
    d = _data()
    seen = []

    def model(D):
        seen.append(D["i"].dtype)
        return D["i"].to_numpy() * 3.0

    r = partial_dependence(model, d, ["i"], grid_resolution=7)
    assert float(r.grid_values[0][0]).is_integer()  # the case that was missed
    assert not np.all(np.mod(r.grid_values[0], 1) == 0)
    assert np.dtype("float64") in seen  # the model did get floats
    assert r.upcast == ("i",)


def test_upcast_empty_when_grid_is_all_integers():
    d = _data()
    r = partial_dependence(lambda D: D["i"].to_numpy() * 3.0, d, ["i"],
                           custom_values={"i": np.array([0, 10, 20])})
    assert r.upcast == ()


def test_upcast_in_two_way_pd_names_only_the_upcast_feature():
    d = _data()
    d["j"] = d["i"] // 10
    r = partial_dependence(lambda D: D["i"].to_numpy() * 1.0 + D["j"].to_numpy(), d,
                           ["i", "j"], custom_values={"i": np.array([1.0, 2.5]),
                                                        "j": np.array([1, 2])})
    assert r.upcast == ("i",)
