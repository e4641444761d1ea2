"""One real headless Chromium for many pages: the HTML report tests load each page in a new tab
of the same browser (a browser's start costs more CPU than a report's drawing), driven over
the DevTools protocol on a pipe (`--remote-debugging-pipe`: commands on the browser's fd 3,
replies and events on its fd 4, each a JSON message ending in a NUL byte; no other library).

A page is loaded, then read once its own scripts say they are done (the report sets
`data-errors` on <html> when it has drawn or failed: a readiness signal, not a time budget);
what it logged to its console, its uncaught exceptions and the browser's error entries (a
request that failed, a blocked resource) come back with its attributes. No request leaves the
machine: every host name resolves to nothing."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--remote-debugging-pipe", "--no-first-run",
         "--no-default-browser-check", "--disable-extensions", "about:blank")
_WIRE = """
import fcntl, os, sys
ends = [fcntl.fcntl(int(fd), fcntl.F_DUPFD, 10) for fd in sys.argv[1:3]]
for fd in sys.argv[1:3]:
    os.close(int(fd))
for target, fd in zip((3, 4), ends):
    os.dup2(fd, target)
    os.close(fd)
os.execv(sys.argv[3], sys.argv[3:])
"""
# resolves to the <html> element's attributes once the page marked itself done
_WHEN_DONE = """
new Promise(function (resolve) {
  var root = document.documentElement;
  function attributes() {
    return Array.from(root.attributes).map(function (a) { return [a.name, a.value]; });
  }
  if (root.dataset.errors !== undefined) { resolve(attributes()); return; }
  new MutationObserver(function (changes, observer) {
    if (root.dataset.errors !== undefined) { observer.disconnect(); resolve(attributes()); }
  }).observe(root, {attributes: true});
})
"""


class BrowserError(RuntimeError):
    """The browser did not answer as the protocol says, or in time."""


class Browser:
    def __init__(self, timeout_s: float = 120.0) -> None:
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        assert chromium, "Chromium is needed (scripts/test installs Debian's chromium)"
        self.timeout_s = timeout_s
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()
        # the browser reads fd 3 and writes fd 4: a bare Python puts the pipes there and runs
        # it (a shell's `exec CMD 3<&N` leaves them closed in CMD)
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WIRE, str(to_browser), str(from_browser),
             chromium, *FLAGS], pass_fds=(to_browser, from_browser), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._send("Browser.close")
            except (BrowserError, OSError):
                self.process.kill()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._commands, self._replies):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise BrowserError("the browser said nothing in time")
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise BrowserError(f"the browser exited ({self.process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(message))

    def _send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            command["sessionId"] = session
        os.write(self._commands, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            message = self._read(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))
            self._events.append(message)

    def _wait_event(self, method: str, session: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout_s
        while True:
            for event in self._events:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            self._events.append(self._read(deadline))

    def load(self, page: Path) -> dict[str, str]:
        """`page`'s <html> data attributes once its scripts are done (keys without `data-`),
        and under "log" its console messages, uncaught exceptions and error entries, one a
        line (what the page itself logged is prefixed `console`)."""
        target = self._send("Target.createTarget", url="about:blank")["targetId"]
        session = self._send("Target.attachToTarget", targetId=target,
                             flatten=True)["sessionId"]
        try:
            for domain in ("Page", "Runtime", "Log"):
                self._send(f"{domain}.enable", session)
            self._send("Page.navigate", session, url=page.as_uri())
            self._wait_event("Page.loadEventFired", session)
            done = self._send("Runtime.evaluate", session, expression=_WHEN_DONE,
                              awaitPromise=True, returnByValue=True)
            if "exceptionDetails" in done:
                raise BrowserError(f"reading {page.name}: {done['exceptionDetails']}")
            attributes = {name[len("data-"):]: value for name, value in done["result"]["value"]
                          if name.startswith("data-")}
        finally:
            self._send("Target.closeTarget", targetId=target)
        attributes["log"] = "\n".join(self._log(session))
        return attributes

    def _log(self, session: str) -> list[str]:
        lines = []
        for event in self._events:
            if event.get("sessionId") != session:
                continue
            params = event.get("params", {})
            if event.get("method") == "Runtime.consoleAPICalled":
                text = " ".join(str(arg.get("value", arg.get("description", "")))
                                for arg in params.get("args", []))
                lines.append(f"console {params.get('type')}: {text}")
            elif event.get("method") == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                lines.append("uncaught error: " + str(details.get("exception", {}).get(
                    "description", details.get("text"))))
            elif event.get("method") == "Log.entryAdded":
                entry = params.get("entry", {})
                lines.append(f"{entry.get('source')} {entry.get('level')}: {entry.get('text')}")
        self._events = [e for e in self._events if e.get("sessionId") != session]
        return lines
