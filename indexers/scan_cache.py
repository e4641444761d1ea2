"""What the secret scan found in each file's bytes, kept between builds.

    content hash -> ((start, end, kind), ...)   spans in the text the bytes decode to

A finding depends only on the text and on the detector, so a file whose bytes were scanned
once by this detector (`indexers.version.detector_digest`) is never scanned again: not after
new indexing code or changed parse settings drop the parse cache, not after `--force`, not
when the file moves or a copy of it appears elsewhere. Another detector starts empty.

Kept beside the index's generations (`<index dir>/scan_cache.json`, like `walk_stats.json`),
written atomically and only into a directory carrying Helix's marker; unreadable, of another
shape or of another detector means empty: losing it costs one scan of the repository, never a
wrong mask. Bounded: the entries of the files in the last walk, plus as many older ones (a
branch switched back to), the most recently used first.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from indexers.cache_file import write_beside

SCAN_CACHE = "scan_cache.json"
VERSION = 1

Spans = tuple[tuple[int, int, str], ...]


def _spans(value: Any) -> Spans | None:
    """Spans read back from JSON, None when they are not well formed."""
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if (not isinstance(item, list) or len(item) != 3 or type(item[0]) is not int
                or type(item[1]) is not int or not isinstance(item[2], str)
                or not 0 <= item[0] < item[1]):
            return None
        out.append((item[0], item[1], item[2]))
    return tuple(out)


class ScanCache:
    """Findings by content hash for one detector; `directory` None: kept in memory only."""

    def __init__(self, directory: Path | None, detector: str) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.detector = detector
        self._entries: dict[str, tuple[int, Spans]] = {}  # hash -> (build number, spans)
        self._build = 0
        self._dirty = False
        if self.directory is not None:
            self._entries, self._build = self._load()
        self._build += 1

    def _load(self) -> tuple[dict[str, tuple[int, Spans]], int]:
        assert self.directory is not None
        try:
            data = orjson.loads((self.directory / SCAN_CACHE).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}, 0
        if (not isinstance(data, dict) or data.get("version") != VERSION
                or data.get("detector") != self.detector
                or not isinstance(data.get("entries"), dict)
                or type(data.get("build")) is not int):
            return {}, 0
        entries: dict[str, tuple[int, Spans]] = {}
        for key, value in data["entries"].items():
            if isinstance(value, list) and len(value) == 2 and type(value[0]) is int:
                spans = _spans(value[1])
                if spans is not None:
                    entries[key] = (value[0], spans)
        return entries, data["build"]

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, content_hash: str) -> Spans | None:
        entry = self._entries.get(content_hash)
        if entry is None:
            return None
        if entry[0] != self._build:
            self._entries[content_hash] = (self._build, entry[1])
            self._dirty = True
        return entry[1]

    def put(self, content_hash: str, spans: Iterable[tuple[int, int, str]]) -> None:
        self._entries[content_hash] = (self._build, tuple((s, e, k) for s, e, k in spans))
        self._dirty = True

    def prune(self, current: set[str]) -> None:
        """Keep the entries of `current` (the last walk's hashes) and at most as many others,
        the most recently used first."""
        others = sorted(((used, key) for key, (used, _) in self._entries.items()
                         if key not in current), reverse=True)
        dropped = {key for _, key in others[len(current):]}
        if dropped:
            self._entries = {k: v for k, v in self._entries.items() if k not in dropped}
            self._dirty = True

    def save(self) -> None:
        """Write the cache atomically (never into a directory without Helix's marker); a
        failure to write costs the next build a scan, so it is not an error."""
        if self.directory is None or not self._dirty:
            return
        payload = orjson.dumps(
            {"version": VERSION, "detector": self.detector, "build": self._build,
             "entries": {k: [used, [list(s) for s in spans]]
                         for k, (used, spans) in sorted(self._entries.items())}})
        if write_beside(self.directory, SCAN_CACHE, payload, fsync=True):
            self._dirty = False
