"""One rule for ``random_state``: the two entry points that turn it into randomness
(:func:`ixplain._random.root_seed`, :func:`ixplain._validation.check_random_state`; a third,
``storage.base.seed_of``, is now ``root_seed`` itself) validate it with one function, so a bad
value gets the same error type and message from each (``check_random_state`` said "a Generator" where the
others said "a numpy.random.Generator")."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain._random import root_seed
from ixplain._validation import check_random_state

ENTRY_POINTS = {"root_seed": root_seed, "check_random_state": check_random_state}
BAD = {-1: ValueError, 1.5: TypeError, True: TypeError, "0": TypeError,
       np.int64(-3): ValueError}


@pytest.mark.parametrize("bad", list(BAD), ids=repr)
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_a_bad_random_state_gets_one_error_from_every_entry_point(entry, bad):
    """The error's type and whole message are the rule's, naming the owner and the value."""
    with pytest.raises(BAD[bad]) as info:
        ENTRY_POINTS[entry](bad, "Owner")
    assert str(info.value) == (
        "The 'random_state' parameter of Owner must be None, an int >= 0, a "
        f"numpy.random.Generator or a legacy numpy.random.RandomState. Got {bad!r} instead.")


def test_good_values_give_the_seeds_they_gave():
    """An int (numpy's too) is its own seed; a RandomState is one draw of it for every entry
    point (``root_seed`` refused it, so did shapley_interactions, which PFI, SAGE and PD
    accept); a Generator is shared by ``check_random_state`` and drawn once by the others."""
    assert root_seed(np.int64(5)) == root_seed(5, "x") == 5
    assert (check_random_state(7).random(3) == np.random.default_rng(7).random(3)).all()
    draw = int(np.random.RandomState(3).randint(np.iinfo(np.int32).max))
    assert root_seed(np.random.RandomState(3), "x") == draw
    assert (check_random_state(np.random.RandomState(3)).random(2)
            == np.random.default_rng(draw).random(2)).all()
    assert root_seed(np.random.RandomState(3), "x") == draw
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    assert root_seed(np.random.default_rng(2), "x") == root_seed(np.random.default_rng(2)) == int(
        np.random.default_rng(2).integers(0, 2**63 - 1))


def test_shapley_interactions_takes_a_random_state_as_pfi_sage_and_pd_do():
    """QA: ``shapley_interactions`` refused a legacy RandomState (it called ``root_seed``,
    which refused it) that PFI, SAGE and PD accept; it is one draw of it, so the result is
    that of the int seed that draw gives."""
    from ixplain import shapley_interactions

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = X[:, 0] * X[:, 1]
    draw = int(np.random.RandomState(4).randint(np.iinfo(np.int32).max))
    kw = dict(loss="squared_error", method="permutation", n_permutations=20,
              convergence_threshold=None)
    legacy = shapley_interactions(lambda A: A[:, 0] * A[:, 1], X, y,
                                  random_state=np.random.RandomState(4), **kw)
    seeded = shapley_interactions(lambda A: A[:, 0] * A[:, 1], X, y, random_state=draw, **kw)
    assert np.array_equal(legacy.main_values, seeded.main_values)
    assert np.array_equal(legacy.pair_values, seeded.pair_values)
