"""Drive the operating system's headless Chromium over the DevTools protocol, through a pipe.

``--remote-debugging-pipe`` makes the browser read protocol commands from file descriptor 3
and write replies and events to file descriptor 4, each message one JSON text ended by a NUL
byte: no WebSocket library and no port. The tests use it for what a dumped DOM cannot show:
keys pressed on the focused element, where the focus lands, the colour scheme the page
applies under ``prefers-color-scheme: dark``, and the page with JavaScript disabled.

Every wait is bounded only to catch a hang (a generous bound, never a measurement): the
page says when its script is done (``data-ready="1"`` on ``<html>``).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path
from typing import Any

from .chromium import require_chromium

HANG = 120.0
"""Seconds after which a command with no reply counts as a hung browser (not a timing test)."""

KEYS = {
    "Enter": {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
    " ": {"key": " ", "code": "Space", "windowsVirtualKeyCode": 32, "text": " "},
    "Tab": {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9},
    "ArrowRight": {"key": "ArrowRight", "code": "ArrowRight", "windowsVirtualKeyCode": 39},
    "ArrowLeft": {"key": "ArrowLeft", "code": "ArrowLeft", "windowsVirtualKeyCode": 37},
}


def _as_fds_3_and_4(read_end: int, write_end: int) -> None:
    """In the child, before exec: the browser's two pipe ends become fds 3 and 4 (copied
    above 10 first, so that neither copy overwrites the other end)."""
    import fcntl

    high_read = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10)
    high_write = fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
    os.dup2(high_read, 3)
    os.dup2(high_write, 4)


class Browser:
    """One headless Chromium with one page, driven over the pipe."""

    def __init__(self, profile: Path, size: tuple[int, int] = (1280, 900)) -> None:
        browser = require_chromium()
        to_child, self._out = os.pipe()  # we write commands; the browser reads fd 3
        self._in, from_child = os.pipe()  # the browser writes fd 4; we read
        # the child gets the two ends as fds 3 and 4 (kept open by pass_fds)
        self._proc = subprocess.Popen(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--hide-scrollbars",
                f"--window-size={size[0]},{size[1]}",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=lambda: _as_fds_3_and_4(to_child, from_child),
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._events: list[str] = []
        self._next = 0
        self._session: str | None = None
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, False
        )
        self._session = attached["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the browser and close the pipe."""
        try:
            self.send("Browser.close", session=False)
        except Exception:  # already gone
            pass
        try:
            self._proc.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._in, self._out):
            try:
                os.close(fd)
            except OSError:
                pass

    def _read_message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            # poll, not select: a long test session can hold file descriptors past select's
            # limit of 1024
            poller = select.poll()
            poller.register(self._in, select.POLLIN)
            if not poller.poll(HANG * 1000):
                raise TimeoutError(f"no message from the browser in {HANG:.0f} s")
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = True) -> Any:
        """Send one command and return its result (raise on a protocol error)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session and self._session:
            message["sessionId"] = self._session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._out, data) :]
        while True:
            reply = self._read_message()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self._events.append(reply["method"])

    def _wait_event(self, method: str) -> None:
        """Wait for the next ``method`` event (those seen since the last wait count)."""
        while method not in self._events:
            reply = self._read_message()
            if "method" in reply:
                self._events.append(reply["method"])
        self._events.clear()

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited when it is a promise)."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, page: Path, fragment: str = "", script: bool = True) -> None:
        """Load the page from disk afresh (a new document even when only the fragment
        differs); with ``script``, check that its script ran to its end."""
        for url in ("about:blank", page.resolve().as_uri() + (f"#{fragment}" if fragment else "")):
            self._events.clear()
            self.send("Page.navigate", {"url": url})
            self._wait_event("Page.loadEventFired")
        if script:
            # the page's inline script sets data-ready as its last step, before the load event
            ready = self.eval("document.documentElement.getAttribute('data-ready')")
            errors = self.eval("document.documentElement.getAttribute('data-js-errors')")
            assert ready == "1" and errors is None, (ready, errors)

    def press(self, name: str) -> None:
        """Press and release one key on whatever has the focus."""
        key = KEYS[name]
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", **key})
        up = {k: v for k, v in key.items() if k != "text"}
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **up})

    def dark(self) -> None:
        """Emulate ``prefers-color-scheme: dark``."""
        self.send(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
        )

    def no_script(self) -> None:
        """Disable JavaScript for the pages opened after this."""
        self.send("Emulation.setScriptExecutionDisabled", {"value": True})

    def screenshot(self, out: Path) -> Path:
        """A PNG of the viewport."""
        import base64

        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        out.write_bytes(base64.b64decode(data))
        return out
