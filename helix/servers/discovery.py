"""How the CLI finds a running `helix serve` for the same `$HELIX_HOME` and asks it instead of
starting cold.

`helix serve` writes `$HELIX_HOME/server.json` (mode 0600, written whole: temp file and
rename) with its pid, address, token and the repositories it serves, and removes it when it
stops (only its own). `find_server(root)` returns that server when the file is readable and
owned by this user, its process is alive, it serves `root` and `/health` answers with the same
pid within a short timeout; anything else is None and the CLI answers in process.
`HELIX_NO_SERVER=1` always answers in process. The client is the standard library's
`urllib`, imported when a server is called (with `ssl`, ~0.05 CPU s): nothing heavy is imported
on the CLI's fast path.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helix.core.schemas import Frozen

FILE = "server.json"
NO_SERVER_ENV = "HELIX_NO_SERVER"
PROBE_TIMEOUT_S = 0.5
ASK_TIMEOUT_S = 600.0


class ServerInfo(Frozen):
    pid: int
    host: str
    port: int
    token: str | None = None
    repos: tuple[str, ...] = ()

    @property
    def base(self) -> str:
        """The URL this machine reaches it at (a wildcard bind is reached on loopback)."""
        host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}"


def server_file(home: Path) -> Path:
    return home / FILE


def write_server_file(home: Path, info: ServerInfo) -> Path:
    """The file, written whole and private (0600)."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = server_file(home)
    fd, tmp = tempfile.mkstemp(dir=home, prefix=".server.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(info.model_dump_json())
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def read_server_file(home: Path) -> ServerInfo | None:
    target = server_file(home)
    try:
        info = os.lstat(target)
        if not target.is_file() or target.is_symlink() or info.st_uid != os.getuid():
            return None
        return ServerInfo.model_validate_json(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def remove_server_file(home: Path, pid: int) -> None:
    """Remove the file when it is still this server's (a newer server's file stays)."""
    current = read_server_file(home)
    if current is not None and current.pid == pid:
        server_file(home).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # not ours
    return True


def request(info: ServerInfo, method: str, path: str, body: dict[str, Any] | None = None,
            timeout: float = ASK_TIMEOUT_S) -> tuple[int, dict[str, Any]]:
    """(status, JSON body) of one call to the server."""
    import urllib.error
    import urllib.request

    data = json.dumps(body).encode("utf-8") if body is not None else None
    headers = {"Content-Type": "application/json"}
    if info.token:
        headers["Authorization"] = f"Bearer {info.token}"
    call = urllib.request.Request(info.base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(call, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read() or b"{}")
        except ValueError:
            return exc.code, {"error": str(exc)}


def streamed(info: ServerInfo, body: dict[str, Any], on_text: Callable[[str], None],
             timeout: float = ASK_TIMEOUT_S) -> tuple[int, dict[str, Any]]:
    """(status, answer) of `POST /ask` with `"stream": true`: each `token` event's text goes to
    `on_text` as it arrives; the `answer` event is the answer, an `error` event the server's
    refusal (with its status)."""
    import urllib.error
    import urllib.request

    data = json.dumps({**body, "stream": True}).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if info.token:
        headers["Authorization"] = f"Bearer {info.token}"
    call = urllib.request.Request(info.base + "/ask", data=data, headers=headers,
                                  method="POST")
    try:
        with urllib.request.urlopen(call, timeout=timeout) as response:
            kind, last = "", None
            for raw in response:  # read to its end: the server's slot is free when it ends
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("event: "):
                    kind = line[len("event: "):]
                elif line.startswith("data: "):
                    event = json.loads(line[len("data: "):])
                    if kind == "token":
                        on_text(str(event.get("text", "")))
                    elif kind == "answer":
                        last = (200, event)
                    elif kind == "error":
                        last = (int(event.get("status", 500)), event)
            if last is not None:
                return last
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read() or b"{}")
        except ValueError:
            return exc.code, {"error": str(exc)}
    return 500, {"error": "the server's stream ended without an answer"}


def running_server(home: Path) -> ServerInfo | None:
    """The server `server.json` names, when it is alive and answers as itself."""
    info = read_server_file(home)
    if info is None or not _alive(info.pid):
        return None
    try:
        status, body = request(info, "GET", "/health", timeout=PROBE_TIMEOUT_S)
    except (OSError, ValueError):
        return None
    return info if status == 200 and body.get("pid") == info.pid else None


def find_server(home: Path, root: Path, environ: dict[str, str] | os._Environ[str] = os.environ
                ) -> ServerInfo | None:
    """A running server for `home` that serves `root`; None to answer in process."""
    if environ.get(NO_SERVER_ENV, "").strip() not in ("", "0"):
        return None
    info = running_server(home)
    if info is None or str(root) not in info.repos:
        return None
    return info


def ask_served(home: Path, root: Path, body: dict[str, Any],
               on_text: Callable[[str], None] | None = None
               ) -> tuple[ServerInfo, dict[str, Any]] | None:
    """POST /ask to the warm server serving `root`: (server, answer), or None to answer in
    process (no server, a busy one, one gone meanwhile, HELIX_NO_SERVER=1). A request the
    server refuses is that error here too (exit 2 for the client's, 1 for the server's).
    With `on_text`, the answer streams: the model's text reaches it as it is written."""
    from helix.core.errors import HelixError

    info = find_server(home, root)
    if info is None:
        return None
    shown: list[str] = []

    def show(text: str) -> None:
        shown.append(text)
        assert on_text is not None
        on_text(text)

    try:
        status, answer = (request(info, "POST", "/ask", body) if on_text is None
                          else streamed(info, body, show))
    except (OSError, ValueError):
        if shown:  # part of an answer is on the screen: not asked again behind it
            raise HelixError("the helix server stopped while answering; ask again") from None
        return None
    if status == 503:
        return None
    if status != 200:
        error = HelixError(str(answer.get("error", f"the server answered {status}")))
        error.exit_code = 2 if 400 <= status < 500 else 1
        raise error
    return info, answer
