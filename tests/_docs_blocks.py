"""The python code blocks of the user guide (``docs/user_guide/*.rst``) and of the README.

A ``.. code-block:: python`` directive's body is its indented lines up to the first line that is
not indented (blank lines inside it kept); ``python`` fences of the README are read too, so the
README's tour is checked like the guide's blocks.
"""

from __future__ import annotations

import pathlib
import re
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "user_guide"


def rst_blocks(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line of the block's first line, code) of every ``.. code-block:: python`` in ``path``."""
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        if re.match(r"\s*\.\. code-block:: python\s*$", lines[i]):
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith(" ")):
                j += 1
            out.append((i + 2, textwrap.dedent("\n".join(lines[i + 1:j])).strip() + "\n"))
            i = j
        else:
            i += 1
    return out


def guide_blocks() -> list[tuple[str, int, str]]:
    """(file name, line, code) of every python block of the user guide and the README."""
    out = [(p.name, line, code) for p in sorted(GUIDE.glob("*.rst")) for line, code in rst_blocks(p)]
    readme = (ROOT / "README.md").read_text()
    out += [("README.md", readme[: m.start()].count("\n") + 1, m.group(1))
            for m in re.finditer(r"```python\n(.*?)```", readme, re.S)]
    return out
