"""Load a page in headless Chromium over the DevTools protocol (stdlib only, through a pipe).

``load_page(path)`` opens ``file://path`` in Debian's ``chromium`` with ``--remote-debugging-pipe``
(the protocol on file descriptors 3 and 4, so no port and no websocket library), records every
console message, uncaught exception and log entry (network failures and Content-Security-Policy
violations are log entries), evaluates a few expressions in the page and takes a screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--remote-debugging-pipe",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageLoad:
    """What happened when the page loaded."""

    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)
    screenshot: bytes = b""

    @property
    def errors(self) -> list[str]:
        """Console errors/warnings, uncaught exceptions and error log entries, as text."""
        out = []
        for c in self.console:
            if c.get("type") in ("error", "warning", "assert"):
                out.append(f"console.{c['type']}: {c.get('args')}")
        for e in self.exceptions:
            out.append(f"exception: {e.get('exceptionDetails', {}).get('text')}")
        for entry in self.log:
            if entry.get("level") in ("error", "warning"):
                out.append(f"log {entry.get('source')}: {entry.get('text')} {entry.get('url', '')}")
        return out


class _Pipe:
    def __init__(self, exe: str, user_data_dir: str) -> None:
        to_chrome_r, self._to_chrome_w = os.pipe()
        self._from_chrome_r, from_chrome_w = os.pipe()

        def place_fds() -> None:  # runs in the child before exec: fds 3 and 4 for the protocol
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={user_data_dir}", "--window-size=1100,2400", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=place_fds,
            pass_fds=(3, 4),
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30.0) -> dict:
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self._read_one(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)
        raise TimeoutError(method)

    def wait_event(self, method: str, timeout: float = 30.0) -> dict:
        for ev in self.events:
            if ev.get("method") == method:
                return ev
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ev = self._read_one(deadline)
            self.events.append(ev)
            if ev.get("method") == method:
                return ev
        raise TimeoutError(method)

    def _read_one(self, deadline: float) -> dict:
        import select

        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from chromium")
            ready, _, _ = select.select([self._from_chrome_r], [], [], left)
            if ready:
                chunk = os.read(self._from_chrome_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def close(self) -> None:
        try:
            os.write(self._to_chrome_w, json.dumps({"id": 10**6, "method": "Browser.close"}).encode() + b"\0")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_chrome_w, self._from_chrome_r):
            try:
                os.close(fd)
            except OSError:
                pass


def load_page(path: Path, expressions: dict[str, str], settle: float = 0.5) -> PageLoad:
    """Open ``path`` in headless Chromium; return messages, evaluated values and a screenshot."""
    exe = chromium_path()
    if exe is None:
        raise FileNotFoundError("chromium")
    with tempfile.TemporaryDirectory(prefix="ixplain-chromium-") as ud:
        pipe = _Pipe(exe, ud)
        try:
            targets = pipe.send("Target.getTargets")["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            session = pipe.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})[
                "sessionId"
            ]
            for domain in ("Runtime", "Log", "Page"):
                pipe.send(f"{domain}.enable", session=session)
            pipe.events.clear()
            pipe.send("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=session)
            pipe.wait_event("Page.loadEventFired")
            time.sleep(settle)
            result = PageLoad()
            for name, expr in expressions.items():
                r = pipe.send(
                    "Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=session
                )
                result.values[name] = r.get("result", {}).get("value")
            metrics = pipe.send("Page.getLayoutMetrics", session=session)
            size = metrics.get("cssContentSize") or metrics.get("contentSize")
            shot = pipe.send(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
                },
                session=session,
                timeout=60,
            )
            result.screenshot = base64.b64decode(shot["data"])
            for ev in pipe.events:
                m = ev.get("method")
                if m == "Runtime.consoleAPICalled":
                    p = ev["params"]
                    result.console.append(
                        {"type": p.get("type"), "args": [a.get("value") for a in p.get("args", [])]}
                    )
                elif m == "Runtime.exceptionThrown":
                    result.exceptions.append(ev["params"])
                elif m == "Log.entryAdded":
                    result.log.append(ev["params"]["entry"])
            return result
        finally:
            pipe.close()
