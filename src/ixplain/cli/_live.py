"""``ixplain stream --live``: the report served on 127.0.0.1 while the stream runs.

A standard-library HTTP server in a daemon thread serves three files of the output folder and
nothing else: ``index.html`` (the report page in live mode, written once at the start and once
at the end), ``data.json`` (the report payload, rewritten from the stream loop every
``refresh_seconds``, never per row) and, once written, ``report.html``. The page polls
``data.json`` and re-draws itself. The payload is built in the loop's thread between two
mini-batches (:func:`~ixplain.cli._stream.run_stream`'s ``on_update``), from the run's recorded
snapshots, thinned (:func:`~ixplain.cli._outputs.stream_payload`); each file is replaced
atomically, so the server never sends one half-written. The end of the stream or Ctrl-C writes
the final report as without ``--live`` and sets ``status.state`` to ``"finished"`` or
``"interrupted"`` in ``data.json``.
"""

from __future__ import annotations

import errno
import functools
import http.server
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ._errors import CLIError
from ._writers import json_safe

__all__ = ["LiveReport", "check_port", "run_live"]

#: Seconds between two updates of ``data.json`` (and the page's polling period).
REFRESH_SECONDS = 2.0
#: After a finished run, seconds the server stays up so an open page shows the final state.
LINGER_SECONDS = REFRESH_SECONDS + 1.5
#: The only paths served.
SERVED = {"/index.html", "/data.json", "/report.html"}


def check_port(port: int | None, live: bool) -> int:
    """The port to listen on (0: a free one), or a ``CLIError`` naming ``--port``."""
    if port is None:
        return 0
    if not live:
        raise CLIError(f"--port {port} is the port of the live report; add --live (or leave "
                       "--port out).")
    if not 0 <= port <= 65535:
        raise CLIError(f"--port must be in 0..65535 (0: any free port), got {port}.")
    return port


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves :data:`SERVED` from the output folder (``/`` is ``/index.html``), uncached."""

    def _allowed(self) -> bool:
        path = urlsplit(self.path).path
        path = "/index.html" if path == "/" else path
        if path not in SERVED:
            self.send_error(404, "Not found")
            return False
        self.path = path
        return True

    def do_GET(self) -> None:
        if self._allowed():
            super().do_GET()

    def do_HEAD(self) -> None:
        if self._allowed():
            super().do_HEAD()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return None  # (no line per request on the terminal)


def _starting_payload(source: str) -> dict[str, Any]:
    return {
        "title": f"ixplain stream: {source}", "subtitle": None,
        "status": {"state": "running", "rows_seen": 0, "rows_total": None},
        "summary": ["Starting: reading the data and building the explainers."],
        "ranking": None, "headline": None, "charts": [], "incidents": [], "tables": [],
        "settings": [], "images": [], "notes": [], "files": [],
        "refresh_seconds": REFRESH_SECONDS,
    }


class LiveReport:
    """The live report of one stream run: the server, its files and their updates.

    Parameters
    ----------
    out : Path
        The output folder (served: :data:`SERVED` only).
    port : int, default=0
        The port on 127.0.0.1 (0: a free one the system picks).
    refresh_seconds : float, default=REFRESH_SECONDS
        Seconds between two updates of ``data.json``.

    Raises
    ------
    CLIError
        When the port is in use or cannot be listened on (the message names it).
    """

    def __init__(self, out: Path, port: int = 0,
                 refresh_seconds: float = REFRESH_SECONDS) -> None:
        self.out = Path(out)
        self.refresh_seconds = float(refresh_seconds)
        handler = functools.partial(_Handler, directory=str(self.out))
        try:
            self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise CLIError(f"--port {port}: the port is already in use on 127.0.0.1; "
                               "choose another, or --port 0 for a free one.") from None
            raise CLIError(f"--port {port}: cannot listen on 127.0.0.1 "
                           f"({exc.strerror or type(exc).__name__}).") from None
        self.server.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/``."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def start(self, source: str) -> None:
        """Write the page and a first ``data.json``, then serve in a daemon thread.

        Raises
        ------
        CLIError
            When this build cannot write the live page (no report page, or plotly missing).
        """
        payload = _starting_payload(source)
        self.publish(payload)
        self._write_index(payload)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True,
                                       name="ixplain-live")
        self.thread.start()

    def _write_index(self, payload: dict[str, Any]) -> None:
        from ._outputs import write_page

        try:
            write_page(self.out / "index.html", payload, live=True)
        except ImportError as exc:
            raise CLIError(f"--live needs the interactive report page, which this install "
                           f"cannot write ({exc}); install the command-line extra: "
                           "pip install 'ixplain[cli]'.") from None

    def publish(self, payload: dict[str, Any]) -> None:
        """Replace ``data.json`` with ``payload`` (atomically)."""
        payload = dict(payload, refresh_seconds=self.refresh_seconds)
        text = json.dumps(json_safe(payload), allow_nan=False)
        tmp = self.out / "data.json.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.out / "data.json")

    def update(self, run: Any) -> None:
        """``data.json`` from a run under way (``status.state`` "running")."""
        from ._outputs import stream_payload

        self.publish(stream_payload(run, state="running"))

    def finish(self, run: Any) -> None:
        """The final ``data.json`` and page: "finished" or "interrupted", with the report's
        path among the notes."""
        from ._outputs import stream_payload

        payload = stream_payload(run)
        payload["notes"] = [*payload["notes"],
                            f"Final report: {(self.out / 'report.html').resolve()}"]
        self.publish(payload)
        self._write_index(dict(payload, refresh_seconds=self.refresh_seconds))

    def close(self) -> None:
        """Stop serving and free the port."""
        if self.thread is not None:
            self.server.shutdown()
            self.thread.join(timeout=5)
        self.server.server_close()


def run_live(cfg: Any, out: Path, port: int, echo: Callable[[str], None]) -> Any:
    """Run the stream with its live report; return the run (its outputs written).

    The URL is printed (``echo``) before the first row. A finished run keeps the server up
    :data:`LINGER_SECONDS` more, so that an open page shows the final state; an interrupted
    one stops at once.
    """
    from ._outputs import write_stream_outputs
    from ._stream import run_stream

    live = LiveReport(out, port)
    try:
        live.start(cfg.data or cfg.dataset or "bike")
        echo(f"Live report: {live.url} (updated every {live.refresh_seconds:g} s)")
        try:
            run = run_stream(cfg, on_update=live.update, update_seconds=live.refresh_seconds)
        except KeyboardInterrupt:  # (during start-up: no row was explained)
            live.publish(dict(_starting_payload(cfg.data or cfg.dataset or "bike"),
                              status={"state": "interrupted", "rows_seen": 0, "rows_total": None},
                              summary=["Interrupted before the first row."]))
            raise
        write_stream_outputs(run, out)
        live.finish(run)
        if not run.interrupted:
            try:
                time.sleep(LINGER_SECONDS)
            except KeyboardInterrupt:  # (the run is complete and written: stop serving)
                pass
        return run
    finally:
        live.close()
