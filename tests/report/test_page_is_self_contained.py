"""The page holds everything it needs and names no place on the web; its policy allows nothing
from outside the file (and, in live mode, only its own origin)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path

import pytest

from ixplain.report import example_payload, render_page
from ixplain.report._assets import inline_script, page_js, plotly_js

pytest.importorskip("plotly")
ROOT = Path(__file__).resolve().parents[2]


def _package_data() -> list[str]:
    """pyproject's package-data patterns of the ixplain package."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["ixplain"]


def _csp(page: str) -> str:
    found = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert found is not None
    return found.group(1)


def test_page_holds_no_web_address():
    page = render_page(example_payload())
    assert re.search(r"https?://", page) is None
    markup = page.replace(plotly_js(), "").replace(page_js(), "")
    assert re.search(r"""\b(?:src|href)\s*=\s*["']?(?!data:)""", markup) is None
    assert markup.count('src="data:') == 0  # the example has no PNG


def test_policy_allows_only_inline_code_and_data_images():
    static = _csp(render_page(example_payload()))
    assert static == ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                      "img-src data:")
    live = _csp(render_page(example_payload(), live=True))
    assert live == static + "; connect-src 'self'"


def test_inlined_plotly_is_the_packages_bundle_with_addresses_unlinked():
    original = (resources.files("plotly") / "package_data" / "plotly.min.js").read_text(encoding="utf-8")
    inlined = plotly_js()
    assert "</script" not in inlined.lower() and "<!--" not in inlined
    # the only change: backslashes before the '//' after http(s): and the '/' of 'data:image/'
    # ('\/' is '/' in JavaScript)
    assert inlined.replace("\\/", "/") == original.replace("\\/", "/")
    added = len(re.findall(r"https?://", original)) * 2 + original.count("data:image/")
    assert len(inlined) - len(original) == added
    assert original.count("://") > 10


@pytest.mark.parametrize("source, expected", [
    ('"http://a"', '"http:\\/\\/a"'),
    ("`https://b/${x}`", "`https:\\/\\/b/${x}`"),
    ("'</SCRIPT>'", "'<\\/SCRIPT>'"),
    ('"<!--"', '"<\\!--"'),
    ('i.src="data:image/png;base64,AA"', 'i.src="data:image\\/png;base64,AA"'),
    ('x = a // b; "ftp://c"', 'x = a // b; "ftp://c"'),
])
def test_inline_script_rewrites_only_addresses_and_closing_tags(source, expected):
    assert inline_script(source) == expected


def test_page_script_and_style_ship_as_package_data():
    """Every non-Python file of ixplain/report is matched by pyproject's package-data, so a wheel
    carries it, and importlib.resources finds it where the package is installed."""
    patterns = _package_data()
    folder = ROOT / "src" / "ixplain" / "report"
    data = sorted(p.relative_to(folder.parent).as_posix() for p in folder.iterdir()
                  if p.is_file() and p.suffix not in (".py", ".pyc"))
    assert data == ["report/page.css", "report/page.js"]
    for name in data:
        assert any(fnmatch(name, pattern) for pattern in patterns), name
        assert resources.files("ixplain").joinpath(name).read_text(encoding="utf-8").strip()


def test_an_install_of_only_the_packaged_files_renders_a_page(tmp_path):
    """What a wheel holds -- the package's .py files and its package-data -- is all the page needs:
    copied alone into a fresh folder, ``ixplain.report`` renders from there."""
    patterns = _package_data()
    src = ROOT / "src" / "ixplain"
    for path in src.rglob("*"):
        rel = path.relative_to(src).as_posix()
        if path.is_file() and "__pycache__" not in rel and (
                path.suffix == ".py" or any(fnmatch(rel, p) for p in patterns)):
            (tmp_path / "ixplain" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, tmp_path / "ixplain" / rel)
    code = ("import ixplain.report as r, pathlib; page = r.render_page(r.example_payload()); "
            "print(pathlib.Path(r.__file__).parent.parent.parent, len(page))")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    folder, size = done.stdout.split()
    assert folder == str(tmp_path) and int(size) > 1_000_000  # plotly.js inlined
