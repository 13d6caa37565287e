"""Every public name appears in the API reference's sources (docs/api/*.rst).

Cheap by design: the ``.rst`` files' autosummary lists are parsed (no Sphinx build). A public
name is one in ``ixplain.__all__`` or in the ``__all__`` of a module whose path has no
``_``-prefixed part. It counts as documented when the object itself is listed under some module
(re-exports are documented once, at their shortest public path), or, for a module, when a page
documents it with ``automodule``. ``docs/_ext/make_api_pages.py`` writes these sources.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import ixplain

API = Path(__file__).resolve().parents[1] / "docs" / "api"


def _public_modules() -> list[str]:
    names = ["ixplain"]
    for info in pkgutil.walk_packages(ixplain.__path__, "ixplain."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            names.append(info.name)
    return names


def _listed() -> tuple[set[tuple[str, str]], set[str]]:
    """(module, name) pairs in autosummary lists, and the modules documented by automodule."""
    entries: set[tuple[str, str]] = set()
    modules: set[str] = set()
    for page in sorted(API.glob("*.rst")):
        current = "ixplain"
        in_table = False
        for line in page.read_text().splitlines():
            if m := re.match(r"\.\. (?:current)?module:: (\S+)", line):
                current = m.group(1)
            if m := re.match(r"\.\. automodule:: (\S+)", line):
                modules.add(m.group(1))
            if line.startswith(".. autosummary::"):
                in_table = True
                continue
            if in_table:
                if line.startswith("   :") or not line.strip():
                    continue
                if line.startswith("   "):
                    entries.add((current, line.strip()))
                else:
                    in_table = False
    return entries, modules


def _documented_objects(entries: set[tuple[str, str]]) -> tuple[set[int], set[tuple[str, str]]]:
    ids = set()
    for module, name in entries:
        ids.add(id(getattr(importlib.import_module(module), name)))
    return ids, entries


def _is_value(obj: object) -> bool:
    return not (callable(obj) or isinstance(obj, type)) or isinstance(obj, (dict, tuple, list))


def test_the_api_reference_sources_exist():
    assert (API / "index.rst").is_file()
    assert (API / "ixplain.rst").is_file()


def test_every_autosummary_entry_names_an_existing_object():
    entries, _ = _listed()
    assert len(entries) > 100
    for module, name in entries:
        assert hasattr(importlib.import_module(module), name), f"{module}.{name}"


@pytest.mark.parametrize("module_name", _public_modules())
def test_every_public_name_of_a_module_is_in_the_api_reference(module_name):
    entries, modules = _listed()
    ids, _ = _documented_objects(entries)
    module = importlib.import_module(module_name)
    missing = []
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if name == "__version__":
            continue  # a string, named in the text of docs/api/ixplain.rst
        if isinstance(obj, type(ixplain)):
            documented = obj.__name__ in modules
        elif _is_value(obj):  # constants: listed under this module or one that re-exports it
            documented = any(
                n == name and getattr(importlib.import_module(m), n, None) is obj
                for m, n in entries
            )
        else:
            documented = id(obj) in ids
        if not documented:
            missing.append(name)
    assert not missing, (
        f"{module_name}: {missing} not in docs/api/*.rst; run python docs/_ext/make_api_pages.py"
    )


def test_version_is_named_in_the_top_level_page():
    assert "__version__" in (API / "ixplain.rst").read_text()
