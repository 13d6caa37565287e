"""The CLI's error type: a problem with the user's input, shown as one line on stderr."""

from __future__ import annotations

__all__ = ["CLIError", "RunInterrupted"]


class CLIError(Exception):
    """A problem the user can fix (bad file, missing column, unknown name): one line, exit 2."""


class RunInterrupted(Exception):
    """Ctrl-C or SIGTERM during a run; partial results were written to ``out``."""

    def __init__(self, out: str, rows: int) -> None:
        super().__init__(f"interrupted after {rows} rows; partial results written to {out}")
        self.out = out
        self.rows = rows
