"""``ixplain --help`` names each explaining command in its one-line description (``compare``
too, which lives on its own module); ``datasets`` is listed by typer's command table only."""

from __future__ import annotations

import pytest

pytest.importorskip("typer")


def _description() -> str:
    from ixplain.cli._app import app

    return " ".join(str(app.info.help).split())


def test_the_top_level_help_names_stream_explain_and_compare():
    text = _description()
    for name in ("stream", "explain", "compare"):
        assert f"({name})" in text, name


def test_every_registered_explaining_command_is_named_in_the_description():
    from ixplain.cli._app import app

    names = {c.name or c.callback.__name__ for c in app.registered_commands if c.callback}
    for name in names - {"datasets"}:
        assert f"({name})" in _description(), name


def test_the_rendered_help_shows_the_description():
    from typer.testing import CliRunner

    from ixplain.cli._app import app

    result = CliRunner().invoke(app, ["--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "(compare)" in " ".join(result.output.split())
