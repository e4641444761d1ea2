"""Work-tree files' git blob ids by their stat fields, so the dirty check does not re-read them.

After a refresh the index records its revision (`helix.core.git.repo_revision`): HEAD's commit,
`+dirty` when a tracked file differs from HEAD's tree. Git is never asked to look at the work
tree (its filters and fsmonitor are programs the repository names), so every tracked file is
read and hashed as a blob: on 20,000 files, every file read again after a 100-file change. A
file whose size, modification time (ns), inode and status-change time (ns) are the ones
recorded when its blob id was computed has the same bytes (the bet `indexers.stat_cache`
makes, with its guard: an entry modified less than `RACY_S` before it was hashed is not kept),
so its recorded blob id is compared with HEAD's without reading it.

Kept beside the index's generations (`<index dir>/blob_stats.json`), written atomically and
only into a directory carrying Helix's marker; unreadable (or another shape) means empty.
Losing it costs one full read of the tracked files, never a wrong revision.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from pathlib import Path
from typing import Any

import orjson

from indexers.stat_cache import RACY_S

BLOB_STATS = "blob_stats.json"
VERSION = 1
_MARKER = ".helix-index"  # indexers.store.MARKER (not imported: kept light, as stat_cache)


def _key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]


class BlobStats:
    """`helix.core.git.BlobMemo` over `<directory>/blob_stats.json`."""

    def __init__(self, directory: Path | None, root: Path) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.root = root
        self.started_ns = time.time_ns()
        self._known: dict[str, list[Any]] = self._load()
        self._seen: dict[str, list[Any]] = {}
        self.hits = 0

    def _load(self) -> dict[str, list[Any]]:
        if self.directory is None:
            return {}
        try:
            data = orjson.loads((self.directory / BLOB_STATS).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        if (not isinstance(data, dict) or data.get("version") != VERSION
                or not isinstance(data.get("files"), dict)):
            return {}
        return data["files"]  # each entry is checked when it is looked up

    def lookup(self, path: str, st: os.stat_result) -> str | None:
        """The recorded blob id when the file's stat fields are the recorded ones."""
        entry = self._known.get(path)
        if (type(entry) is not list or len(entry) != 5 or entry[:4] != _key(st)
                or type(entry[4]) is not str):
            return None
        self._seen[path] = entry
        self.hits += 1
        return str(entry[4])

    def record(self, path: str, st: os.stat_result, blob: str) -> None:
        """`st` was taken before the bytes were read; too recent an entry is not kept."""
        settled = self.started_ns - int(RACY_S * 1e9)
        if st.st_mtime_ns < settled and st.st_ctime_ns < settled:
            self._seen[path] = [*_key(st), blob]

    def save(self) -> None:
        """Write the entries this check used or made, and those it did not reach (a dirty
        check stops at the first difference) whose file is still there (atomically), when
        they differ from what was loaded and the directory is Helix's. A failure only costs
        a full read."""
        if self.directory is None or self._seen == self._known:
            return
        if not (self.directory / _MARKER).is_file():
            return
        kept = {**{path: entry for path, entry in self._known.items()
                   if path not in self._seen and os.path.lexists(self.root / path)},
                **self._seen}
        data = orjson.dumps({"version": VERSION, "files": dict(sorted(kept.items()))})
        tmp = self.directory / f"{BLOB_STATS}.{uuid.uuid4().hex[:8]}.tmp"
        try:
            tmp.write_bytes(data)
            os.replace(tmp, self.directory / BLOB_STATS)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
