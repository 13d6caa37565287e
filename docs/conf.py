"""Sphinx configuration of the ixplain documentation (``make docs``).

Why Sphinx (and not MkDocs): ixplain is a scikit-learn-ecosystem library whose docstrings are
numpydoc; Sphinx's autodoc/autosummary with numpydoc renders them as they are written, and
sphinx-gallery executes the scripts in ``examples/`` at every build, so no example or figure can
rot -- the toolchain scikit-learn, River's peers, SHAP and shapiq use. The site opens offline:
the furo theme ships its own CSS/JS (no web fonts), and formulas are shown as text by the local
``plainmath`` extension instead of MathJax from a CDN.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent / "src"))  # the checkout's ixplain, also when not installed

import ixplain  # noqa: E402

project = "ixplain"
author = "ixplain developers"
copyright = "2026, ixplain developers"
release = version = ixplain.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "plainmath",  # formulas as text: no MathJax, nothing from a CDN
    "aliasrefs",  # a reference to any public path of an object links to where it is documented
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "README.md", "README.proposed.md", "**.ipynb", "**.md5", "**.py"]
root_doc = "index"
highlight_language = "text"  # literal blocks (formulas, shell lines) are not Python

# -- API reference ---------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
# the stream explainers' pages also show what they inherit from their private base class
# (explain_one, explain_many, ...): see _templates/autosummary/class.rst
autodoc_default_options = {"members": True}
autodoc_typehints = "none"  # the numpydoc sections carry the types, in words and shapes
autodoc_member_order = "groupwise"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# Broken references are errors (make docs runs sphinx with -W --keep-going -n). Ignored: the
# third-party libraries' own names (no intersphinx: the build runs offline) and private modules
# a docstring may name for the reader of the source.
nitpicky = True
# numpydoc renames a docstring's citations and warns about those no text cites (ref.citation);
# attributes of the same name on several explainers make a short :attr: ambiguous (ref.python:
# Sphinx links the first)
suppress_warnings = ["ref.citation", "ref.python"]
nitpick_ignore: list[tuple[str, str]] = []
_THIRD_PARTY = (
    r"(numpy|np|pandas|pd|scipy|sklearn|river|dask|dd|matplotlib|mpl|plt|typing|typing_extensions"
    r"|collections|pyarrow|polars|pl|typer|tqdm|lightgbm|xgboost|torch|joblib|skops|shapiq|ixai"
    r"|sage|numba|abc|os|pathlib|io|datetime|concurrent|multiprocessing|random|builtins)(\..*)?"
)
nitpick_ignore_regex = [
    (r"py:.*", _THIRD_PARTY),
    (r"py:.*", r".*\b_[a-z]\w*(\..*)?"),  # private modules and helpers
]

# Docstrings also name module constants and helpers that are not public (``MAX_LEVELS``,
# ``label_shape_msg``, ...): each such reference is listed, one per line, in nitpick-ignore.txt
# ("role target"), so that a *new* broken reference still fails the build. Shrinking that list
# means making the docstrings point at public names.
for _line in (HERE / "nitpick-ignore.txt").read_text().splitlines():
    if _line.strip() and not _line.startswith("#"):
        _role, _target = _line.split(None, 1)
        nitpick_ignore.append((_role, _target.strip()))


def _foreign_docstring(app, what, name, obj, options, lines):
    """``ixplain.cli.app`` is a typer object: show a line about it, not typer's class docstring."""
    if name == "ixplain.cli.app":
        lines[:] = ["The :class:`typer.Typer` application behind the ``ixplain`` command;",
                    ":func:`ixplain.cli.main` runs it (``ixplain --help`` lists the commands)."]


def _constant_comment(name: str) -> list[str]:
    """The ``#:`` comment lines above ``short = ...`` (or ``short: T = ...``) in the package's
    source, where the constant is defined (a re-export has no comment of its own); the files
    of the documented module's own package are searched first."""
    module, short = name.rsplit(".", 1)
    pattern = re.compile(rf"((?:^[ \t]*#:.*\n)+)^{re.escape(short)}\s*(?::[^=\n]+)?=", re.M)
    src = HERE.parent / "src"
    home = src.joinpath(*module.split("."))
    paths = sorted(src.joinpath("ixplain").rglob("*.py"), key=lambda p: (home not in p.parents, p))
    for path in paths:
        found = pattern.search(path.read_text(encoding="utf-8"))
        if found:
            return [ln.strip()[2:].strip() for ln in found.group(1).splitlines()]
    return []


def _constant_docstring(app, what, name, obj, options, lines):
    """A module constant (an int, float, str or tuple) shows its value and its ``#:`` comment,
    not the docstring of its type (``int([x]) -> integer ...``)."""
    if what not in ("data", "attribute") or not isinstance(obj, (int, float, str, tuple)):
        return
    if lines and "\n".join(lines).strip() != (type(obj).__doc__ or "").strip().split("\n\n")[0] \
            and not (type(obj).__doc__ or "").startswith(lines[0]):
        return
    lines[:] = _constant_comment(name) + ["", f"Value: ``{obj!r}``."]


def setup(app):
    app.connect("autodoc-process-docstring", _foreign_docstring)
    app.connect("autodoc-process-docstring", _constant_docstring)


# -- Gallery -----------------------------------------------------------------------------------
QUICK = os.environ.get("IXPLAIN_DOCS_QUICK", "") not in ("", "0")
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"plot_",  # every example is executed
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "show_memory": False,
    "reference_url": {"ixplain": None},
    "doc_module": ("ixplain",),
    "backreferences_dir": "api/generated/backreferences",
    "exclude_implicit_doc": {r"ixplain\._.*"},
    "min_reported_time": 1,
    "write_computation_times": False,  # its page loads DataTables from a CDN
    "expected_failing_examples": [],
}
if QUICK:
    # the examples read IXPLAIN_DOCS_QUICK themselves and use fewer rows (each says what)
    os.environ["IXPLAIN_DOCS_QUICK"] = "1"

warnings.filterwarnings("ignore", category=UserWarning, message="Matplotlib is currently using agg")
warnings.filterwarnings("ignore", category=DeprecationWarning)

# -- HTML --------------------------------------------------------------------------------------
html_theme = "furo"
html_math_renderer = "plainmath"
html_title = f"ixplain {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {"navigation_with_keys": True}
