"""Removing an index generation Helix wrote, and only what it wrote (pure file operations).

A generation directory can hold a file someone else put there; deleting the directory whole
would delete it too. `remove_generation` deletes the parts the generation's manifest lists
(for a killed writer's temp directory, the files of the kinds parts are written as), then the
directories they leave empty; anything else stays, and so does the directory that holds it.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

MANIFEST = "manifest.json"


_PART_SUFFIXES = (".sqlite", ".sqlite-journal", ".sqlite-wal", ".sqlite-shm", ".npy", ".json",
                  ".tmp")


def remove_generation(path: Path, unfinished: bool = False) -> None:
    """Delete a generation Helix wrote: the parts its manifest lists, the manifest, and the
    directories they leave empty; for a killed writer's temp directory (`unfinished`: no
    manifest yet), the files of the kinds parts are written as. Anything else someone put
    there is kept, and so is the directory that holds it."""
    parts: set[str] = set()
    if unfinished:
        parts.update(p.relative_to(path).as_posix() for p in path.rglob("*")
                     if p.name.endswith(_PART_SUFFIXES))
    try:
        manifest = json.loads((path / MANIFEST).read_text("utf-8"))
        listed = manifest.get("parts") if isinstance(manifest, dict) else None
        parts.update(str(rel) for rel in listed or ())
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    parts.add(MANIFEST)
    for rel in sorted(parts):
        pieces = rel.split("/")
        if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in pieces):
            continue  # a manifest is read back from disk: only names inside the generation
        target = path / rel
        with contextlib.suppress(OSError):
            if not target.is_symlink() and target.is_file() and not any(
                    (path / "/".join(pieces[:i])).is_symlink() for i in range(1, len(pieces))):
                target.unlink()
    for directory in sorted((d for d in path.rglob("*") if d.is_dir() and not d.is_symlink()),
                            key=lambda d: (-len(d.parts), d.as_posix())):
        with contextlib.suppress(OSError):
            directory.rmdir()
    with contextlib.suppress(OSError):
        path.rmdir()
