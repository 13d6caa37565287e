"""The user guide's "From ixai" examples (``docs/user_guide/migrating.rst``) run as written."""

import pytest

from _docs_blocks import GUIDE, rst_blocks

pytest.importorskip("river")


def blocks():
    text = (GUIDE / "migrating.rst").read_text()
    start = text.splitlines().index("From ixai") + 1
    return [code for line, code in rst_blocks(GUIDE / "migrating.rst") if line > start]


def test_the_section_has_both_examples():
    assert len(blocks()) == 2


@pytest.mark.parametrize("i", [0, 1])
def test_migration_example_runs(i, capsys):
    exec(compile(blocks()[i], f"user guide migration example {i}", "exec"), {})
    out = capsys.readouterr().out
    assert "'salary'" in out and "'age'" in out
