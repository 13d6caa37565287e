"""Write the API reference's ``.rst`` sources (``docs/api/``) from the packages' ``__all__``.

Run after adding a public name: ``python docs/_ext/make_api_pages.py``; the pages are committed,
and ``tests/test_docs_api_reference.py`` fails when a public name is missing from them. Each
object is documented once, at its shortest public path (top-level ``ixplain`` first); references
to its other paths are linked there by the ``aliasrefs`` extension.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import ixplain

API = Path(__file__).resolve().parents[1] / "api"

TOP_GROUPS = {
    "Static explanations": [
        "partial_dependence", "tree_partial_dependence", "accumulated_local_effects",
        "permutation_importance", "sage", "shapley_interactions", "h_statistic",
    ],
    "Explanations on streams": [
        "IncrementalPFI", "IncrementalSAGE", "IncrementalPDP", "IncrementalALE",
        "IncrementalShapleyInteractions",
    ],
    "Explanation drift": ["ExplanationDriftDetector", "DriftEvent"],
    "Explaining change between models or datasets": ["compare", "ChangeExplanation"],
    "Results": [
        "PartialDependence", "AccumulatedLocalEffects", "FeatureImportance", "HStatistic",
        "ShapleyInteractions", "InteractionTimeSeries", "DriftExplanation",
    ],
    "Displays (plots)": [
        "PartialDependenceDisplay", "AccumulatedLocalEffectsDisplay", "FeatureImportanceDisplay",
        "ImportanceTraceDisplay", "PartialDependenceTraceDisplay", "HStatisticDisplay",
        "InteractionHeatmapDisplay", "InteractionTraceDisplay", "DriftExplanationDisplay",
    ],
    "Perturbation data, removal and aggregation": [
        "UniformReservoir", "GeometricReservoir", "SlidingWindow", "DatasetStorage",
        "ConditionalSampler", "ConditionalStorage", "Mean", "EWMean",
    ],
    "Models, data, losses and progress": [
        "as_model", "as_table", "Table", "get_loss", "ProgressInfo", "ModelEvaluationError",
    ],
}
NOT_IN_TABLES = {"datasets", "__version__"}  # a module (own page) and a string (named in text)


def public_modules() -> list[str]:
    """Every importable module of ixplain whose path has no ``_``-prefixed part, sorted."""
    names = ["ixplain"]
    for info in pkgutil.walk_packages(ixplain.__path__, "ixplain."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            names.append(info.name)
    return sorted(names)


def _table(module: str, names: list[str]) -> str:
    rows = "\n".join(f"   {n}" for n in names)
    return (f".. currentmodule:: {module}\n\n.. autosummary::\n   :toctree: generated/\n"
            f"   :nosignatures:\n\n{rows}\n")


def _is_value(obj: object) -> bool:
    return not (callable(obj) or isinstance(obj, type)) or isinstance(obj, (dict, tuple, list))


def main() -> None:
    listed = [n for names in TOP_GROUPS.values() for n in names]
    missing = set(ixplain.__all__) - set(listed) - NOT_IN_TABLES
    if missing:
        raise SystemExit(f"add to TOP_GROUPS: {sorted(missing)}")
    seen: set[object] = {id(getattr(ixplain, n)) for n in listed}
    top = ["Top-level API (``ixplain``)", "=" * 27, "",
           ".. automodule:: ixplain\n   :no-members:\n",
           "``ixplain.__version__`` is the version string. The bundled datasets are in",
           ":mod:`ixplain.datasets`.\n"]
    for group, names in TOP_GROUPS.items():
        top += [group, "-" * len(group), "", _table("ixplain", names)]
    (API / "ixplain.rst").write_text("\n".join(top))
    pages = []
    for mod_name in public_modules()[1:]:
        mod = importlib.import_module(mod_name)
        names = []
        for n in getattr(mod, "__all__", []):
            obj = getattr(mod, n)
            key = (n, id(obj)) if _is_value(obj) else id(obj)
            if key not in seen:
                names.append(n)
                seen.add(key)
        if not names and mod_name.count(".") >= 2:
            continue  # a leaf module whose names are all documented where re-exported
        title = f"``{mod_name}``"
        body = [title, "=" * len(title), "", f".. automodule:: {mod_name}\n   :no-members:\n"]
        if names:
            body.append(_table(mod_name, names))
        else:
            body.append("Every public name of this module is documented where it is re-exported"
                        " (see its ``__all__``).\n")
        (API / f"{mod_name}.rst").write_text("\n".join(body))
        pages.append(mod_name)
    index = ["API reference", "=============", "",
             "Generated from the docstrings (numpydoc). Each object is documented once, at its",
             "shortest public path; its other import paths link there.", "",
             ".. toctree::\n   :maxdepth: 1\n\n   ixplain"]
    index += [f"   {p}" for p in pages]
    (API / "index.rst").write_text("\n".join(index) + "\n")


if __name__ == "__main__":
    main()
