"""Running a piece of a test as an unprivileged user, so that tests of permission errors run
where CI runs: as root, whom no file mode stops. The piece runs in a forked child that drops
to `nobody` (the interpreter and the modules already loaded are kept: the child reads none of
root's files); its JSON result comes back through a pipe. Not root: it runs in place."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

NOBODY = 65534


def as_nobody(piece: Callable[[], Any]) -> Any:
    if os.geteuid() != 0:
        return json.loads(json.dumps(piece()))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, run the piece, report, exit
        os.close(read)
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            payload = {"result": piece()}
        except BaseException as exc:  # reported to the parent as text
            payload = {"error": f"{type(exc).__name__}: {exc}"}
        os.write(write, json.dumps(payload).encode("utf-8"))
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    payload = json.loads(b"".join(chunks).decode("utf-8"))
    if "error" in payload:
        raise AssertionError(f"unprivileged piece failed: {payload['error']}")
    return payload["result"]


def open_dir() -> Path:
    """A directory every user can enter (pytest's own tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="helix-nobody-", dir="/tmp"))
    path.chmod(0o755)
    return path
