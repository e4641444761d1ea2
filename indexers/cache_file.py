"""What the stat-keyed caches beside an index share (`indexers.stat_cache`,
`indexers.blob_stats`, `indexers.part_stats`, `indexers.scan_cache`).

A file whose size, modification time (ns), inode and status-change time (ns) are the ones
recorded when it was read has the same bytes (git's index makes the same bet); `settled` is the
guard for an entry read too soon after a write to trust. Every cache is written the same way:
atomically (a temporary file then `os.replace`), only into a directory carrying Helix's marker
when asked, and best effort (a failure only costs the next run its shortcut).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path
from typing import Any

# a file modified less than this many seconds before it was read could be written again within
# the same timestamp tick without any stat field changing: its entry is not kept
RACY_S = 2.0
MARKER = ".helix-index"  # indexers.store.MARKER (not imported: the walker stays light)


def stat_key(st: os.stat_result) -> list[int]:
    """The stat fields an entry is keyed by: size, mtime (ns), inode, ctime (ns)."""
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]


def recorded(entry: Any, st: os.stat_result) -> str | None:
    """The text an entry [size, mtime_ns, ino, ctime_ns, text] holds when `st` has its stat
    fields; anything else (another shape, a damaged file) is a miss."""
    if (type(entry) is not list or len(entry) != 5 or entry[:4] != stat_key(st)
            or type(entry[4]) is not str):
        return None
    return str(entry[4])


def settled(started_ns: int, st: os.stat_result) -> bool:
    """`st` (taken before the bytes were read) is older than `RACY_S` before `started_ns`."""
    limit = started_ns - int(RACY_S * 1e9)
    return st.st_mtime_ns < limit and st.st_ctime_ns < limit


def write_beside(directory: Path, name: str, data: bytes, *, marked: bool = True,
                 fsync: bool = False) -> bool:
    """`data` as `directory/name`, atomically; with `marked`, only into a directory carrying
    Helix's marker. False when nothing was written."""
    if marked and not (directory / MARKER).is_file():
        return False
    tmp = directory / f"{name}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, directory / name)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
    return True
