"""Knowing, without walking, that nothing under a repository changed since the last walk.

A long-lived process (`helix serve`, `helix mcp`) checks every question's freshness by walking
the repository: a stat of every file, an open of every ignore file. On Linux an inotify watch on
every directory that walk visited says the same thing at the cost of one read: when the watch
reports no event since the walk, the walk's result is the walk's result again.

Why no change is missed: each directory is watched *before* the walk lists it or stats its
entries, so a change is either seen by the walk or raises an event. The kernel queues the event
inside the system call that made the change, so a change whose call returned before the
question is drained from the queue by the question (`unchanged`). An event during the walk,
an overflowed queue or a removed watch means the next question walks again. Only directories
are watched: their events cover their entries (writes, attribute changes, creations, removals,
renames). Watched besides the walked directories: `.git` (for `info`) and `.git/info` (the
exclude file), and the directory of every symlinked file's target.

Where events may not come, the watch declines and every question walks, as without it: not
Linux or no inotify; the watch limit reached; a repository (or a mount inside it) on a file
system whose changes can come from another machine or process outside this kernel's view (only
local disk file systems are trusted); a file with more than one hard link (a write through a
path outside the repository raises no event in it). A write through a memory map raises no
event either (editors, git and build tools write files with write calls).

Used only when a process enables it (`enable`): a one-shot CLI run walks once anyway.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Any

LOCAL_FILE_SYSTEMS = frozenset({
    "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "overlay", "f2fs", "zfs", "ramfs", "jfs",
    "bcachefs", "reiserfs",
})
GIT_INFO = ("info",)  # the one entry of `.git` whose change matters to a walk

_enabled = False
_watches: dict[tuple[str, str, str], TreeWatch] = {}
_registry_lock = threading.Lock()


def enable() -> None:
    """Let walks in this process keep their result while a watch says nothing changed."""
    global _enabled
    _enabled = True


def disable() -> None:
    """Stop watching (every watch closed): each walk walks."""
    global _enabled
    with _registry_lock:
        _enabled = False
        for watch in _watches.values():
            watch.close()
        _watches.clear()


def for_walk(real_root: str, settings_key: str, stats_dir: str) -> TreeWatch | None:
    """The watch of one (root, walk settings, stat cache), None unless enabled."""
    if not _enabled:
        return None
    key = (real_root, settings_key, stats_dir)
    with _registry_lock:
        watch = _watches.get(key)
        if watch is None:
            watch = _watches[key] = TreeWatch(real_root)
        return watch


def _mounts() -> list[tuple[str, str]]:
    """(mount point, file system type) of every mount this process sees."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    mounts = []
    for line in lines:
        fields = line.split(" ")
        if "-" not in fields:
            continue
        mounts.append((unescape_mount(fields[4]), fields[fields.index("-") + 1]))
    return mounts


def unescape_mount(field: str) -> str:
    """A mountinfo path: space, tab, newline and backslash are written as octal (`\\040`)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def local_tree(real_root: str, mounts: list[tuple[str, str]]) -> bool:
    """The root's file system, and every one mounted inside it, is a local disk one."""
    inside = real_root.rstrip(os.sep) + os.sep
    holding = [m for m in mounts if real_root == m[0] or real_root.startswith(
        m[0].rstrip(os.sep) + os.sep)]
    if not holding:
        return False
    # the deepest mount point; of two mounts over one point, the later (it hides the other)
    own = max(reversed(holding), key=lambda m: len(m[0].rstrip(os.sep)))
    below = [kind for point, kind in mounts if point.startswith(inside)]
    return all(kind in LOCAL_FILE_SYSTEMS for kind in [own[1], *below])


class TreeWatch:
    """One root's watch: `unchanged` before a walk, `begin` / `finish` around one."""

    def __init__(self, real_root: str, mounts: Callable[[], list[tuple[str, str]]] = _mounts):
        self.root = real_root
        self.lock = threading.RLock()  # a walk of this root at a time, in this process
        self._notify: Any = None
        self._filters: dict[int, tuple[str, ...]] = {}
        self._watched: set[str] = set()
        self._sound = False
        self._result: Any = None
        self._mounts = mounts
        self.kept = 0  # walks answered from the watch (for tests and benchmarks)

    def unchanged(self) -> Any:
        """The last walk's result when nothing under the root changed since it began."""
        if self._result is None or not self._sound or self._notify is None:
            return None
        if self._changed():
            self._result = None
            return None
        self.kept += 1
        return self._result

    def begin(self) -> None:
        """Before a walk: a fresh watch, directories added as the walk reaches them."""
        self.close()
        try:
            from inotify_simple import INotify
        except ImportError:
            return
        if not local_tree(self.root, self._mounts()):
            return
        try:
            self._notify = INotify(nonblocking=True)
        except OSError:
            return
        self._sound = True
        git = os.path.join(self.root, ".git")
        self.directory(git, only=GIT_INFO)
        self.directory(os.path.join(git, "info"))

    def directory(self, real: str, only: tuple[str, ...] = ()) -> None:
        """Watch `real` (called before the walk lists it); `only`: the entry names that count."""
        if self._notify is None or real in self._watched:
            return
        from inotify_simple import flags

        mask = (flags.MODIFY | flags.ATTRIB | flags.CLOSE_WRITE | flags.CREATE | flags.DELETE
                | flags.MOVED_FROM | flags.MOVED_TO | flags.DELETE_SELF | flags.MOVE_SELF
                | flags.ONLYDIR | flags.DONT_FOLLOW)
        try:
            wd = self._notify.add_watch(real, mask)
        except FileNotFoundError:
            return  # `.git` or `.git/info` absent: its creation is an event of its parent
        except NotADirectoryError:
            return
        except OSError:
            self._sound = False  # the watch limit, or a directory we cannot watch
            return
        self._watched.add(real)
        if only:
            self._filters[wd] = only

    def link_target(self, real_file: str) -> None:
        """A file reached through a symlink: its target's directory is watched too."""
        self.directory(os.path.dirname(real_file))

    def file(self, st: os.stat_result) -> None:
        """A file the walk stat-ed: one with another hard link may change with no event here."""
        if st.st_nlink > 1:
            self._sound = False

    def finish(self, result: Any) -> None:
        """After a walk: its result, kept while no event comes (an event raised while it ran
        is still queued: the next question walks again)."""
        self._result = result if self._notify is not None and self._sound else None

    def _changed(self) -> bool:
        from inotify_simple import flags

        try:
            events = self._notify.read(timeout=0)
        except OSError:
            self._sound = False
            return True
        for event in events:
            if event.mask & (flags.Q_OVERFLOW | flags.IGNORED | flags.UNMOUNT):
                return True  # the next walk watches afresh
            only = self._filters.get(event.wd)
            if only is None or event.name in only:
                return True
        return False

    def close(self) -> None:
        if self._notify is not None:
            self._notify.close()
        self._notify, self._filters, self._watched = None, {}, set()
        self._sound, self._result = False, None
