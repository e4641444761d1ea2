"""Writing a file the user named on the command line (`--out F`): whole or not at all, and
never through a link or into something that is not a regular file.

    check_out_path(F)   refuse early (before any long work): F is a symbolic link, or exists and
                        is not a regular file (a device such as /dev/full, a FIFO, a socket, a
                        directory). One line, exit 2; F is never opened.
    write_out(F, data)  the same check, then a temp file in F's own directory, fsync, rename
                        over F (so a reader sees the old file or the new one, never half of
                        one). An existing F keeps its permission bits.

A symbolic link is refused rather than followed: following it would write wherever the link
points, and replacing it would destroy the user's link. Either way the user did not name the
file that would change, so Helix asks for the real path instead.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from helix.core.errors import UserError

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words ("a FIFO", "a socket", ...)."""
    return _kind(mode)


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def check_out_path(path: Path, option: str = "--out") -> os.stat_result | None:
    """The target's lstat when it exists (a regular file), None when it does not; else refuse."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError(f"cannot use {option} {path}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UserError(f"{option} {path} is a symbolic link; refusing to write through or "
                        "replace it (give the path of a regular file)")
    if not stat.S_ISREG(info.st_mode):
        raise UserError(f"{option} {path} is {_kind(info.st_mode)}, not a regular file; "
                        "refusing to write it")
    return info


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_out(path: Path, data: bytes, option: str = "--out") -> None:
    """Atomically replace (or create) the regular file `path` with `data`."""
    path = Path(path)
    check_out_path(path, option)
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise UserError(f"cannot write {option} {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # re-checked at the last moment: the target may have become a link or a device meanwhile
        existing = check_out_path(path, option)
        os.chmod(tmp, stat.S_IMODE(existing.st_mode) if existing else _default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
