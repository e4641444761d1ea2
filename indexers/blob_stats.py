"""Work-tree files' git blob ids by their stat fields, so the dirty check does not re-read them.

After a refresh the index records its revision (`helix.core.git.repo_revision`): HEAD's commit,
`+dirty` when a tracked file differs from HEAD's tree. Git is never asked to look at the work
tree (its filters and fsmonitor are programs the repository names), so every tracked file is
read and hashed as a blob: on 20,000 files, every file read again after a 100-file change. A
file whose size, modification time (ns), inode and status-change time (ns) are the ones
recorded when its blob id was computed has the same bytes (the bet `indexers.stat_cache`
makes, with its guard `indexers.cache_file.settled`: an entry modified less than `RACY_S` before
it was hashed is not kept), so its recorded blob id is compared with HEAD's without reading it.

Kept beside the index's generations (`<index dir>/blob_stats.json`), written atomically and
only into a directory carrying Helix's marker; unreadable (or another shape) means empty.
Losing it costs one full read of the tracked files, never a wrong revision.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from helix.core.git import repo_revision
from indexers.cache_file import recorded, settled, stat_key, write_beside

BLOB_STATS = "blob_stats.json"
VERSION = 1


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
        blob = recorded(self._known.get(path), st)
        if blob is not None:
            self._seen[path] = self._known[path]
            self.hits += 1
        return blob

    def record(self, path: str, st: os.stat_result, blob: str) -> None:
        """`st` was taken before the bytes were read; too recent an entry is not kept."""
        if settled(self.started_ns, st):
            self._seen[path] = [*stat_key(st), blob]

    def save(self) -> None:
        """Write the entries this check used or made, and those it did not reach (a dirty
        check stops at the first difference) whose file is still there (atomically), when
        they differ from what was loaded and the directory is Helix's. A failure only costs
        a full read."""
        if self.directory is None or self._seen == self._known:
            return
        kept = {**{path: entry for path, entry in self._known.items()
                   if path not in self._seen and os.path.lexists(self.root / path)},
                **self._seen}
        write_beside(self.directory, BLOB_STATS,
                     orjson.dumps({"version": VERSION, "files": dict(sorted(kept.items()))}))


def revision(root: Path, present: Iterable[str], directory: Path) -> str:
    """`repo_revision`, the files unchanged since their blob ids were last computed (kept in
    `directory`) not read again."""
    memo = BlobStats(directory, root)
    found = repo_revision(root, present, memo)
    memo.save()
    return found
