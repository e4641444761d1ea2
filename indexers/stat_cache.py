"""What the last walk learnt: each file's (size, mtime, inode, ctime) and content hash, and
each directory's stat fields, ignore rules and entries' verdicts.

Every command that reads the index first checks it is fresh: the walk hashes every file of the
repository. On 20,000 files that is two seconds of reading and hashing before each question.
A file whose size, modification time (ns), inode and status-change time (ns) are the ones
recorded when it was last hashed has the same bytes (git's index makes the same bet; the ctime
moves on every write and no user can set it back), so its recorded hash is used without
reading it. Likewise a directory whose stat fields (adding, removing or renaming an entry
moves its mtime and ctime) and ignore rules are the recorded ones is not listed again: the
verdicts of its entries are replayed (links are always resolved again, files stat-ed again).
Two guards keep the bet safe:

- racy entries: a file modified less than `RACY_S` seconds (`indexers.cache_file`) before the
  walk that hashed it could be written again within the same timestamp tick without any stat
  field changing; such an entry is not trusted (the file is hashed again until a later walk
  records it as settled);
- scope: the cache is per repository root and per the settings that decide which files are
  indexed from their content (`max_file_bytes`, `skip_secrets`); any other root or setting
  starts empty.

Kept beside the index's generations (`<index dir>/walk_stats.json`), written atomically and only
into a directory carrying Helix's marker; unreadable (or another shape) means empty. Losing it
costs one full hash of the repository, never a wrong answer. Within one process (a chat, an eval
run: every question checks freshness again) the file is parsed once while it is unchanged, and
the walk's record of a file trusted from it is reused as long as the file's stat fields are.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import orjson

from indexers.cache_file import recorded, settled, stat_key, write_beside

WALK_STATS = "walk_stats.json"
VERSION = 2

Entry = list[Any]  # [size, mtime_ns, ino, ctime_ns, content_hash]
# In this process: the parsed walk_stats.json by (its path, its stat fields), and the records
# the walk built of trusted files, by (index directory, scope) then path.
_PARSED: dict[str, tuple[tuple[int, ...], dict[str, Any]]] = {}
_WALKED: dict[str, dict[str, tuple[tuple[int, ...], Any]]] = {}


class StatCache:
    """Content hashes by path, valid while a file's stat fields are unchanged."""

    def __init__(self, directory: Path | None, scope: dict[str, Any]) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.scope = scope
        self.started_ns = time.time_ns()
        self._known: dict[str, Entry] = {}
        self._seen: dict[str, Entry] = {}
        self._dirs: dict[str, list[Any]] = {}
        self._dirs_seen: dict[str, list[Any]] = {}
        self.hits = 0
        self._walked: dict[str, tuple[tuple[int, ...], Any]] = {}
        if self.directory is not None:
            self._known, self._dirs = self._load()
            self._walked = _WALKED.setdefault(
                str(self.directory) + "\0" + orjson.dumps(scope, option=orjson.OPT_SORT_KEYS)
                .decode("utf-8"), {})

    def _load(self) -> tuple[dict[str, Entry], dict[str, list[Any]]]:
        assert self.directory is not None
        path = self.directory / WALK_STATS
        try:
            st = path.stat()
            key = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
            parsed = _PARSED.get(str(path))
            data = (parsed[1] if parsed is not None and parsed[0] == key
                    else orjson.loads(path.read_bytes()))
        except (OSError, orjson.JSONDecodeError):
            return {}, {}
        if (not isinstance(data, dict) or data.get("version") != VERSION
                or data.get("scope") != self.scope or not isinstance(data.get("files"), dict)
                or not isinstance(data.get("dirs"), dict)):
            return {}, {}
        _PARSED[str(path)] = (key, data)
        return data["files"], data["dirs"]  # each entry is checked when it is looked up

    def walked(self, rel: str, st: os.stat_result) -> Any:
        """The record this process's walk built of the file, when its stat fields are the
        same (it was trusted then, so it still is)."""
        found = self._walked.get(rel)
        if found is None or found[0] != (st.st_size, st.st_mtime_ns, st.st_ino,
                                         st.st_ctime_ns):
            return None
        entry = self._known.get(rel)
        if type(entry) is list:
            self._seen[rel] = entry
        return found[1]

    def remember(self, rel: str, st: os.stat_result, walked: Any) -> None:
        self._walked[rel] = ((st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns), walked)

    def dir_lookup(self, rel: str, st: os.stat_result, fingerprint: str) -> list[Any] | None:
        """A directory's recorded entries [name, verdict, ...] when its stat fields (an entry
        added, removed or renamed moves them) and its ignore rules are the recorded ones."""
        entry = self._dirs.get(rel)
        if (type(entry) is not list or len(entry) != 6 or entry[:4] != stat_key(st)
                or entry[4] != fingerprint or type(entry[5]) is not list):
            return None
        for row in entry[5]:  # a damaged cache is a miss, never a half-replayed directory
            if type(row) is not list or len(row) not in (2, 4) or not all(
                    type(x) is str for x in row):
                return None
        self._dirs_seen[rel] = entry
        return list(entry[5])

    def dir_record(self, rel: str, st: os.stat_result, fingerprint: str,
                   entries: list[list[str]]) -> None:
        if settled(self.started_ns, st):
            self._dirs_seen[rel] = [*stat_key(st), fingerprint, entries]

    def lookup(self, rel: str, st: os.stat_result) -> str | None:
        """The recorded content hash when the file's stat fields are the recorded ones."""
        content_hash = recorded(self._known.get(rel), st)
        if content_hash is not None:
            self._seen[rel] = self._known[rel]
            self.hits += 1
        return content_hash

    def record(self, rel: str, st: os.stat_result, content_hash: str) -> None:
        """`st` was taken before the bytes were read (a later write changes it). Entries too
        recent to trust are not kept (the next walk hashes the file again)."""
        if settled(self.started_ns, st):
            self._seen[rel] = [*stat_key(st), content_hash]

    def save(self) -> None:
        """Write what this walk saw (atomically), when it differs from what was loaded and
        the directory is Helix's. A failure only costs the next walk its shortcut."""
        if self.directory is None or (self._seen == self._known
                                      and self._dirs_seen == self._dirs):
            return
        write_beside(self.directory, WALK_STATS, orjson.dumps({
            "version": VERSION, "scope": self.scope, "files": dict(sorted(self._seen.items())),
            "dirs": dict(sorted(self._dirs_seen.items()))}))
