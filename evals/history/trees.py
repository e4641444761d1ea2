"""One materialized tree per repository, moved from commit to commit.

`git checkout` or `git worktree add` would run the repository's hooks, smudge filters and
fsmonitor (issue 9): a repository Helix reads is untrusted. So the tree is written here, from
read-only plumbing only (`ls-tree -r -z -l` for the entries, `cat-file --batch` for the raw
blob bytes, both through `helix.core.git`'s allowlist and safe settings):

- regular files only; symlinks and submodules are skipped; a path that is absolute, has an
  empty, `.` or `..` component, or a `.git` component is refused (skipped and counted), so
  nothing is written outside the target;
- no clear copy: a secret-bearing name (`.env`, keys, `.netrc`: `indexers.walker`'s list) and a
  binary file are not written at all (Helix indexes neither), and every other file is written
  with its secrets masked as the index masks them (`helix.core.secrets.redact_text`); files are
  0600 and directories 0700 (the owner's only), and `remove()` deletes the whole tree when its
  cases are done (`evals.history.run` calls it also on an error or an interrupt);
- no directory component is ever followed through a symlink, and each file is written to a
  temporary name beside it and renamed into place;
- a move writes only the files whose blob changed and deletes only files this writer wrote
  (listed in its state file, `<target>.state.json`, written atomically before and after
  every move); a directory that held such files is removed once it is empty. Anything else
  in the target is left alone.

Helix's incremental index (content hashes, a shared embedding cache) then re-parses only the
files that changed between two cases.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import stat
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from helix.core.errors import TreeBoundError, TreeError
from helix.core.git import (
    TREE_MODE_FILE,
    GitOutputTooLarge,
    git_command,
    git_env,
    stream_git,
)
from helix.core.secrets import redact_text
from indexers.walked_file import BINARY_SNIFF_BYTES
from indexers.walker import is_secret_name

LS_TREE_TIMEOUT_S = 120.0
BATCH_BYTES = 64 * 1024 * 1024  # blob bytes asked of one cat-file process
STATE_SUFFIX = ".state.json"
_TMP_PREFIX = ".helix-tree-tmp-"
FILE_MODE = 0o600  # the owner's only: a tree holds a repository's files
DIR_MODE = 0o700


@dataclass(frozen=True)
class TreeBounds:
    """What one materialized tree may hold. A repository is untrusted: a 276 KB tree bomb
    lists millions of entries, an 868 KB one expands to gigabytes."""

    max_files: int = 100_000  # regular files in the tree
    max_depth: int = 64  # path components of one file
    max_tree_bytes: int = 2 << 30  # the sum of the files' sizes
    max_blob_bytes: int = 16 << 20  # a larger file is not written (Helix would skip it)
    max_listing_bytes: int = 256 << 20  # of `git ls-tree` output


def _safe_map(raw: Mapping[object, object]) -> dict[str, str]:
    """path -> blob id pairs read back from the state file: checked like a tree's entries."""
    return {str(p): str(b) for p, b in raw.items()
            if isinstance(p, str) and is_safe_path(p) and isinstance(b, str)
            and _BLOB.fullmatch(b)}


class Entry:
    __slots__ = ("blob", "mode", "size")

    def __init__(self, mode: str, blob: str, size: int) -> None:
        self.mode = mode
        self.blob = blob
        self.size = size


MISSING = -1  # the size of a blob the object store lacks (a snapshot leaves out large files)
_BLOB = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})?")  # a git object id, or "" (announced)


def blob_id(data: bytes) -> str:
    """The git blob id (SHA-1 object name) of `data`."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def is_safe_path(path: str) -> bool:
    """A relative POSIX path that stays inside the tree and out of any `.git` directory."""
    parts = path.split("/")
    return not (not path or path.startswith("/") or "\0" in path
                or any(part in ("", ".", "..") for part in parts)
                or any(part.lower() == ".git" for part in parts))


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt inside the block (main thread only), so a `finally`
    that removes a tree runs on `kill` as on Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def masked(path: str, data: bytes) -> bytes | None:
    """What is written of a file: None for a secret-bearing name or a binary file (never
    written), else its bytes with every secret masked (text that is not UTF-8 keeps its
    bytes: they go through as surrogates)."""
    if is_secret_name(path.rsplit("/", 1)[-1]) or b"\0" in data[:BINARY_SNIFF_BYTES]:
        return None
    text, found = redact_text(data.decode("utf-8", "surrogateescape"))
    return text.encode("utf-8", "surrogateescape") if found else data


def parse_ls_tree(raw: bytes) -> dict[str, Entry]:
    """path -> Entry from `ls-tree -r -z -l` output (every entry, any mode)."""
    entries: dict[str, Entry] = {}
    for record in raw.split(b"\0"):
        if not record:
            continue
        meta, sep, raw_path = record.partition(b"\t")
        parts = meta.split()
        if not sep or len(parts) != 4:
            continue
        # "-" for a tree or submodule; "BAD" for a blob the snapshot lacks (MISSING)
        size = int(parts[3]) if parts[3].isdigit() else (
            MISSING if parts[1] == b"blob" else 0)
        entries[os.fsdecode(raw_path)] = Entry(parts[0].decode(), parts[2].decode(), size)
    return entries


def read_tree(gitdir: Path, commit: str, bounds: TreeBounds | None = None) -> dict[str, Entry]:
    bounds = bounds or TreeBounds()
    args = ("ls-tree", "-r", "-z", "-l", "--full-tree", "--end-of-options", commit)
    chunks: list[bytes] = []
    entries = 0
    try:
        for chunk in stream_git(gitdir, *args, max_bytes=bounds.max_listing_bytes,
                                timeout=LS_TREE_TIMEOUT_S):
            entries += chunk.count(b"\0")
            if entries > bounds.max_files:
                raise TreeBoundError("max_files", f"the tree of {commit[:12]} lists more than "
                                     f"{bounds.max_files:,} entries")
            chunks.append(chunk)
    except GitOutputTooLarge:
        raise TreeBoundError("max_listing_bytes", f"the tree of {commit[:12]} lists more than "
                             f"{bounds.max_listing_bytes:,} bytes of entries") from None
    except (OSError, subprocess.SubprocessError):
        raise TreeError(f"cannot list the tree of {commit} in {gitdir}") from None
    return parse_ls_tree(b"".join(chunks))


def read_blobs(gitdir: Path, blobs: Sequence[str]) -> Iterator[tuple[str, bytes]]:
    """(blob id, raw bytes) for each id, in order, from one `cat-file --batch` (no filters,
    no textconv: the bytes as stored)."""
    if not blobs:
        return
    proc = subprocess.Popen(git_command(gitdir, "cat-file", "--batch"), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=git_env())
    assert proc.stdin is not None and proc.stdout is not None
    request = "".join(f"{blob}\n" for blob in blobs).encode("ascii")

    def feed() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(request)
            proc.stdin.close()
        except OSError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for blob in blobs:
            header = proc.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob":
                raise TreeError(f"git cat-file could not read blob {blob}")
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after the content
            if len(data) != size:
                raise TreeError(f"git cat-file returned a short blob {blob}")
            yield header[0].decode("ascii"), data
    finally:
        proc.stdout.close()
        writer.join(timeout=5)
        if proc.poll() is None:
            proc.kill()
        proc.wait()


class TreeWriter:
    """The tree of `gitdir` at some commit, written under `target` (created if missing)."""

    def __init__(self, gitdir: Path, target: Path, bounds: TreeBounds | None = None) -> None:
        self.gitdir = gitdir
        self.target = target
        self.bounds = bounds or TreeBounds()
        self.state_path = target.with_name(target.name + STATE_SUFFIX)
        self.commit: str | None = None
        self.files: dict[str, str] = {}  # path -> blob id, the files this writer wrote
        self.written: dict[str, str] = {}  # path -> blob id of the (masked) bytes written
        self._binary: dict[str, str] = {}  # path -> blob id found binary (not written)
        self._has_state = False
        self._load_state()

    # ---- state --------------------------------------------------------------------------

    def _load_state(self) -> None:
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("gitdir") != str(self.gitdir):
            return
        files = data.get("files")
        if isinstance(files, dict):  # read back from disk: input like a tree entry
            self.files = _safe_map(files)
        written = data.get("written")
        self.written = _safe_map(written) if isinstance(written, dict) else {}
        commit = data.get("commit")
        self.commit = commit if isinstance(commit, str) else None
        self._has_state = True

    def _save_state(self, commit: str | None, files: Mapping[str, str]) -> None:
        payload = {"gitdir": str(self.gitdir), "commit": commit,
                   "files": dict(sorted(files.items())),
                   "written": dict(sorted((p, w) for p, w in self.written.items()
                                          if files.get(p)))}
        self.state_path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        tmp = self.state_path.with_name(f".{self.state_path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(payload, sort_keys=True) + "\n")
        os.replace(tmp, self.state_path)
        self._has_state = True

    def remove(self) -> None:
        """Delete the tree: every file this writer wrote (and still holds what it wrote),
        the directories they leave empty, the target, and the state file once nothing of
        the writer's is left. Anything else stays (and the state keeps the target ours)."""
        paths = sorted(self.files)
        for path in paths:
            self._delete(path)
        self._prune_dirs(paths)
        self.files, self.written, self.commit = {}, {}, None
        with contextlib.suppress(OSError):  # not empty (someone else's files) or not there
            if not self.target.is_symlink():
                self.target.rmdir()
        if self.target.exists() or self.target.is_symlink():
            self._save_state(None, {})
        else:
            self.state_path.unlink(missing_ok=True)
            self._has_state = False

    # ---- moving -------------------------------------------------------------------------

    def move_to(self, commit: str) -> dict[str, int]:
        """Make the target hold `commit`'s regular files; counts of written, deleted, kept,
        refused (and too_large, secret, binary, missing: not written, when any)."""
        wanted, counts = self._wanted(read_tree(self.gitdir, commit, self.bounds))
        self._check_bounds(commit, wanted)
        self._ensure_root()
        stale = sorted(p for p in self.files if p not in wanted)
        to_write = sorted(p for p, e in wanted.items() if self._binary.get(p) != e.blob
                          and (self.files.get(p) != e.blob or not self._is_our_file(p)))
        # Announce every path this move may write before writing any, with an unknown blob: a
        # killed move leaves a state that names every file it may have created, and none of
        # them is trusted to hold what the state says.
        self._save_state(None, {**self.files, **{p: "" for p in to_write}})
        for path in stale:
            self._delete(path)
            self.files.pop(path, None)
        self._prune_dirs(stale)
        binary = self._write_all(to_write, wanted)
        self.commit = commit
        self._save_state(commit, self.files)
        counts.update(written=len(to_write) - binary, deleted=len(stale),
                      kept=sum(1 for p in wanted if p in self.files) - len(to_write) + binary)
        if binary:
            counts["binary"] = binary
        return {key: value for key, value in counts.items()
                if value or key in ("written", "deleted", "kept", "refused")}

    def _wanted(self, entries: Mapping[str, Entry]) -> tuple[dict[str, Entry], dict[str, int]]:
        """The entries to write, and counts of those refused or not written by their name or
        size."""
        wanted: dict[str, Entry] = {}
        counts = {"refused": 0, "too_large": 0, "secret": 0, "missing": 0}
        for path, entry in sorted(entries.items()):
            if entry.mode not in TREE_MODE_FILE:
                continue  # symlinks, submodules: skipped
            if not is_safe_path(path):
                counts["refused"] += 1
            elif is_secret_name(path.rsplit("/", 1)[-1]):
                counts["secret"] += 1  # never written: Helix does not index it either
            elif entry.size > self.bounds.max_blob_bytes:
                counts["too_large"] += 1
            elif entry.size == MISSING:
                counts["missing"] += 1  # a blob the snapshot lacks (files of 4 MiB and more)
            else:
                wanted[path] = entry
        return wanted, counts

    def _check_bounds(self, commit: str, wanted: Mapping[str, Entry]) -> None:
        bounds = self.bounds
        deepest = max((path.count("/") + 1 for path in wanted), default=0)
        if deepest > bounds.max_depth:
            raise TreeBoundError("max_depth", f"the tree of {commit[:12]} has a file "
                                 f"{deepest} directories deep (bound {bounds.max_depth})")
        total = sum(entry.size for entry in wanted.values())
        if total > bounds.max_tree_bytes:
            raise TreeBoundError("max_tree_bytes", f"the tree of {commit[:12]} holds "
                                 f"{total:,} bytes (bound {bounds.max_tree_bytes:,})")

    def _write_all(self, paths: Sequence[str], wanted: Mapping[str, Entry]) -> int:
        """Write the files; how many were not written (binary)."""
        batch: list[str] = []
        size = skipped = 0
        for path in paths:
            batch.append(path)
            size += wanted[path].size
            if size >= BATCH_BYTES:
                skipped += self._write_batch(batch, wanted)
                batch, size = [], 0
        return skipped + self._write_batch(batch, wanted)

    def _write_batch(self, paths: Sequence[str], wanted: Mapping[str, Entry]) -> int:
        blobs = sorted({wanted[p].blob for p in paths})
        data = dict(read_blobs(self.gitdir, blobs))
        skipped = 0
        for path in paths:
            out = masked(path, data[wanted[path].blob])
            if out is None:  # binary: a stale copy of it goes too
                self._delete(path)
                self.files.pop(path, None)
                self._binary[path] = wanted[path].blob
                skipped += 1
                continue
            self._write(path, out)
            self.files[path] = wanted[path].blob
            self.written[path] = blob_id(out)
        return skipped

    # ---- the file system, never through a link ------------------------------------------

    def _ensure_root(self) -> None:
        """The target is this writer's: new, empty, or named by its state file. A directory
        that holds anything without one is someone else's and is never written into."""
        if self.target.is_symlink():
            raise TreeError(f"tree directory is a symlink: {self.target}")
        if not self._has_state and self.target.is_dir() and any(self.target.iterdir()):
            raise TreeError(f"{self.target} is not a tree Helix wrote (no {self.state_path.name}"
                            " beside it); move it away or give another directory")
        self.target.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        os.chmod(self.target, DIR_MODE)

    def _is_our_file(self, path: str) -> bool:
        try:
            return stat.S_ISREG(os.lstat(self.target / path).st_mode)
        except OSError:
            return False

    def _parent_dir(self, path: str) -> Path:
        """The file's directory, created component by component, none of them a link."""
        current = self.target
        for part in path.split("/")[:-1]:
            current = current / part
            try:
                mode = os.lstat(current).st_mode
            except FileNotFoundError:
                os.mkdir(current, DIR_MODE)
                continue
            if not stat.S_ISDIR(mode):
                raise TreeError(f"not a directory in the tree, left alone: {current}")
        return current

    def _write(self, path: str, data: bytes) -> None:
        parent = self._parent_dir(path)
        final = parent / path.rsplit("/", 1)[-1]
        try:
            mode = os.lstat(final).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise TreeError(f"a non-file is in the way, left alone: {final}")
        tmp = parent / f"{_TMP_PREFIX}{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(tmp, FILE_MODE)
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def _delete(self, path: str) -> None:
        """Delete a file this writer wrote: inside the target, through no link, and holding
        the blob the state says it wrote (a file that holds anything else is not ours)."""
        if not is_safe_path(path):
            return
        target = self.target / path
        try:
            for parent in target.relative_to(self.target).parents:
                if parent != Path(".") and (self.target / parent).is_symlink():
                    return  # someone replaced a directory with a link: not ours to follow
            if not stat.S_ISREG(os.lstat(target).st_mode):
                return
            blob = self.written.get(path) or self.files.get(path, "")
            if blob and blob_id(target.read_bytes()) != blob:
                return  # changed since it was written: someone else's now
            target.unlink()
        except (FileNotFoundError, NotADirectoryError):
            return

    def _prune_dirs(self, removed: Sequence[str]) -> None:
        """Remove directories left empty by deletions (deepest first; never the root)."""
        dirs: set[Path] = set()
        for path in removed:
            for parent in Path(path).parents:
                if parent != Path("."):
                    dirs.add(parent)
        for rel in sorted(dirs, key=lambda d: (-len(d.parts), d.as_posix())):
            full = self.target / rel
            if full.is_symlink():
                continue
            with contextlib.suppress(OSError):  # not empty (or not there): left alone
                full.rmdir()
