"""The ``ixplain`` command line: ``ixplain stream``, ``ixplain explain``, ``ixplain datasets``.

A thin layer over the public API (typer for the arguments, tqdm for progress, matplotlib for the
plots); :mod:`ixplain.cli.report` writes the self-contained HTML report. Run ``ixplain --help``.
"""

from ._app import app, main

__all__ = ["app", "main"]
