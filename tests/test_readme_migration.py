"""The README's "Migrating from ixai" examples run as written."""

import pathlib
import re

import pytest

pytest.importorskip("river")

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def blocks():
    text = README.read_text()
    section = text.split("### Migrating from ixai", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_section_has_both_examples():
    assert len(blocks()) == 2


@pytest.mark.parametrize("i", [0, 1])
def test_migration_example_runs(i, capsys):
    exec(compile(blocks()[i], f"README migration example {i}", "exec"), {})
    out = capsys.readouterr().out
    assert "'salary'" in out and "'age'" in out
