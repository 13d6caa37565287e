"""Every storage, aggregator and incremental explainer class passes the conformance checks.

Classes are discovered by introspection; a new class needs one line in ixplain.checks.
"""

import pytest

from ixplain import checks

FOUND = checks.discover()
STORAGES = checks.storage_factories()
AGGREGATORS = checks.aggregator_factories()
EXPLAINERS = checks.explainer_cases()
REMOVALS = checks.removal_cases()


@pytest.mark.parametrize(
    ("kind", "registry"),
    [("storage", STORAGES), ("aggregator", AGGREGATORS), ("explainer", EXPLAINERS)],
)
def test_every_class_is_registered(kind, registry):
    missing = [c.__name__ for c in FOUND[kind] if c not in registry]
    assert not missing, f"add a factory for {missing} in ixplain/checks/__init__.py"


@pytest.mark.parametrize("cls", list(STORAGES), ids=lambda c: c.__name__)
def test_storage_conformance(cls):
    checks.check_storage(STORAGES[cls])


@pytest.mark.parametrize("cls", list(AGGREGATORS), ids=lambda c: c.__name__)
def test_aggregator_conformance(cls):
    checks.check_aggregator(AGGREGATORS[cls])


@pytest.mark.parametrize(
    ("cls", "check"),
    [(c, k) for c in EXPLAINERS for k in checks.EXPLAINER_CHECKS],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_explainer_conformance(cls, check):
    case = EXPLAINERS[cls]
    if check in case.skip:
        pytest.skip(f"{cls.__name__} opts out of {check}")
    checks.check_explainer(case, [check])


@pytest.mark.parametrize(
    ("label", "check"), [(c, k) for c in REMOVALS for k in checks.EXPLAINER_CHECKS],
)
def test_conditional_removal_conformance(label, check):
    """removal="conditional": bit identity to the explain_one loop (estimate and leaf pools)
    for random batches with a pickle in between, pickle resume, same seed, and the rest."""
    case = REMOVALS[label]
    if check in case.skip:
        pytest.skip(f"{label} opts out of {check}")
    checks.check_explainer(case, [check])
