"""Resolve a reference to any public path of an object to the page that documents it.

ixplain re-exports names (``ixplain.ConditionalStorage`` is ``ixplain.imputation.ConditionalStorage``),
and docstrings use whichever path reads best. The API reference documents each object once;
this handler, on a reference Sphinx cannot resolve, imports the target, finds the documented
name of the same object and links there. A target that does not import stays unresolved (and
is reported: ``make docs`` runs nitpicky).
"""

from __future__ import annotations

import importlib
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.nodes import make_refnode


def _import(path: str) -> Any:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _documented(env: Any) -> dict[int, tuple[str, Any]]:
    cache = getattr(env, "_ixplain_alias_cache", None)
    if cache is None:
        cache = {}
        for name, entry in env.get_domain("py").objects.items():
            obj = _import(name)
            if obj is not None and not isinstance(obj, (int, float, str, tuple, bool)):
                cache.setdefault(id(obj), (name, entry))
        env._ixplain_alias_cache = cache
    return cache


def _candidates(node: nodes.Element) -> list[str]:
    target = node["reftarget"].lstrip("~.")
    names = [target]
    for scope in (node.get("py:class"), node.get("py:module")):
        if scope:
            names.append(f"{scope}.{target}")
    if node.get("py:module") and node.get("py:class"):
        names.append(f"{node['py:module']}.{node['py:class']}.{target}")
    names.append(f"ixplain.{target}")
    # the module that defines the documented object (``ixplain.Table`` is defined in
    # ``ixplain.tabular``, where its docstring's ``Schema`` lives)
    owner = _import(".".join(p for p in (node.get("py:module"), node.get("py:class")) if p))
    home = getattr(owner, "__module__", None)
    if isinstance(home, str):
        names.append(f"{home}.{target}")
        if "." in target:
            names.append(f"{home.rsplit('.', 1)[0]}.{target}")
    return names


def _missing(app: Sphinx, env: Any, node: nodes.Element, contnode: nodes.Element) -> Any:
    if node.get("refdomain") != "py":
        return None
    table = _documented(env)
    for name in _candidates(node):
        obj = _import(name)
        if obj is None or id(obj) not in table:
            continue
        _, entry = table[id(obj)]
        return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode)
    # last resort (an autosummary line has no class context): a name documented exactly once
    target = node["reftarget"].lstrip("~.")
    objects = env.get_domain("py").objects
    matches = [n for n in objects if n == target or n.endswith("." + target)]
    if len(matches) == 1:
        entry = objects[matches[0]]
        return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode)
    return None


def _reset(app: Sphinx, env: Any, *args: Any) -> None:
    env._ixplain_alias_cache = None


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("missing-reference", _missing)
    app.connect("env-updated", _reset)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
