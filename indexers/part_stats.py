"""What the last full digest check of a generation saw: each part's (size, mtime, inode,
ctime).

A no-op build must know every part of the current generation is intact; re-reading and
hashing all of them (80 MB for the standard library) costs ~0.2 s of every command. A part
whose size, modification time (ns), inode and status-change time (ns) are the ones recorded when
its digest last matched is not read again (git's index makes the same bet). Any write to a part
changes its ctime, which, unlike the mtime, no user can set back (`os.utime` itself moves it),
so a part edited in place with its size and mtime restored is checked again. Kept beside the
generations (`<index dir>/verified.json`), one generation at a time, written atomically;
unreadable (or recorded in another shape) means empty.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from indexers.cache_file import stat_key, write_beside

VERIFIED = "verified.json"

Stat = list[int]


def part_stat(path: Path) -> Stat | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return stat_key(st)


def load(directory: Path, generation: str) -> dict[str, Stat]:
    try:
        data = orjson.loads((directory / VERIFIED).read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("generation") != generation:
        return {}
    parts = data.get("parts")
    return parts if isinstance(parts, dict) else {}


def save(directory: Path, generation: str, parts: dict[str, Stat]) -> None:
    """Atomic; a failure to write only costs the next check its shortcut."""
    write_beside(directory, VERIFIED, orjson.dumps({"generation": generation, "parts": parts},
                                                 option=orjson.OPT_SORT_KEYS), marked=False)
