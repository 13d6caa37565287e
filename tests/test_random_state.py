"""One rule for ``random_state``: the three entry points that turn it into randomness
(:func:`ixplain._random.root_seed`, :func:`ixplain._validation.check_random_state`,
:func:`ixplain.storage.base.seed_of`) validate it with one function, so a bad value gets the
same error type and message from each (``check_random_state`` said "a Generator" where the
others said "a numpy.random.Generator")."""

from __future__ import annotations

import numpy as np
import pytest

from ixplain._random import root_seed
from ixplain._validation import check_random_state
from ixplain.storage.base import seed_of

ENTRY_POINTS = {"root_seed": root_seed, "check_random_state": check_random_state,
                "seed_of": seed_of}
BAD = {-1: ValueError, 1.5: TypeError, True: TypeError, "0": TypeError,
       np.int64(-3): ValueError}


@pytest.mark.parametrize("bad", list(BAD), ids=repr)
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_a_bad_random_state_gets_one_error_from_every_entry_point(entry, bad):
    """The error's type and whole message are the rule's, naming the owner and the value."""
    with pytest.raises(BAD[bad]) as info:
        ENTRY_POINTS[entry](bad, "Owner")
    assert str(info.value) == (
        "The 'random_state' parameter of Owner must be None, an int >= 0 or a "
        f"numpy.random.Generator. Got {bad!r} instead.")


def test_good_values_give_the_seeds_they_gave():
    """An int (numpy's too) is its own seed; a RandomState is one draw of it for
    ``check_random_state`` and ``seed_of`` (``root_seed`` refuses it); a Generator is shared
    by ``check_random_state`` and drawn once by the others."""
    assert root_seed(np.int64(5)) == seed_of(5, "x") == 5
    assert (check_random_state(7).random(3) == np.random.default_rng(7).random(3)).all()
    draw = int(np.random.RandomState(3).randint(np.iinfo(np.int32).max))
    assert seed_of(np.random.RandomState(3), "x") == draw
    assert (check_random_state(np.random.RandomState(3)).random(2)
            == np.random.default_rng(draw).random(2)).all()
    with pytest.raises(TypeError, match="Got RandomState"):
        root_seed(np.random.RandomState(3), "x")
    g = np.random.default_rng(1)
    assert check_random_state(g) is g
    assert seed_of(np.random.default_rng(2), "x") == root_seed(np.random.default_rng(2)) == int(
        np.random.default_rng(2).integers(0, 2**63 - 1))
