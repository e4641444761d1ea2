"""The index writer's lock: an exclusive advisory lock on a file, with a timeout."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOCK_POLL_S = 0.05
LOCK_FILE_MODE = 0o644


def acquire_dir(path: Path, timeout: float) -> Callable[[], None] | None:
    """An exclusive lock on the directory `path` itself (its release function), None after
    `timeout` seconds: for what must happen before any file of Helix's is in it (claiming
    it). POSIX `flock` on the directory's descriptor; elsewhere no lock (a no-op release)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return lambda: None
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    return _flock(fd, timeout, fcntl)


def _flock(fd: int, timeout: float, fcntl: Any) -> Callable[[], None] | None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
            time.sleep(LOCK_POLL_S)
            continue

        def release() -> None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        return release


def acquire(path: Path, timeout: float) -> Callable[[], None] | None:
    """An exclusive lock on `path` (its release function), None after `timeout` seconds.
    POSIX: `flock`, what the filelock package does there, without importing it (it pulls in
    asyncio: 0.1 s of every command); elsewhere the filelock package."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        from filelock import FileLock, Timeout

        lock = FileLock(str(path), timeout=timeout)
        try:
            lock.acquire()
        except Timeout:
            return None
        return lambda: lock.release()
    fd = os.open(path, os.O_RDWR | os.O_CREAT, LOCK_FILE_MODE)
    return _flock(fd, timeout, fcntl)
