"""A repository's history as `helix stale-docs` and `helix drift` read it: commits with the
blobs each changed, the versions of one file (renames followed), blob contents, ancestry.

Only the read-only plumbing of `helix.core.git` runs (`log`, `cat-file --batch`, `rev-parse`),
with every program-naming setting overridden; no textconv, no external diff, no work tree.
Every read is bounded: the log by `max_commits` and `max_bytes` (a longer history is cut, and
the cut is said), a blob by `max_blob_bytes` (a larger one reads as missing).

    read_log(repo, ...)            -> History (commits newest first, the changes of each)
    History.versions(path)         -> the versions of a file at HEAD, newest first
    History.ancestors(sha)         -> every commit reachable from `sha` in the log read
    read_blobs(repo, ids, ...)     -> {blob id: bytes}
    blob_at(repo, rev, path)       -> bytes of `path` (relative to `repo`) at `rev`, or None
    show_prefix(repo)              -> where `repo` is in its work tree ("sub/")
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from helix.core.git import GitOutputTooLarge, git_command, git_env, run_git, stream_git

RECORD, FIELD = b"\x1e", b"\x1f"
LOG_FORMAT = "%x1e%H%x1f%P%x1f%ct%x1f%s%x1f"
NULL_BLOB = "0" * 40
SUBJECT_CHARS = 200
_SHA = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_REV = re.compile(r"^[A-Za-z0-9_./@^~{}:+-]{1,200}$")


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    time: int
    subject: str


@dataclass(frozen=True)
class FileChange:
    """One path a commit changed: status A (added), M, D (deleted), R (renamed, `old_path` set),
    T (type changed); blob ids as the commit left the path (`new_blob`) and found it."""

    status: str
    path: str
    old_path: str
    old_blob: str
    new_blob: str


@dataclass(frozen=True)
class Version:
    """A file as one commit left it: `path` (its name then) and its blob."""

    commit: Commit
    path: str
    blob: str


@dataclass
class History:
    commits: list[Commit]  # newest first, as `git log` prints them
    changes: dict[str, tuple[FileChange, ...]]  # sha -> what it changed
    cut: bool = False  # the log was longer than the bound: older commits were not read
    prefix: str = ""  # `versions` takes paths relative to this directory of the work tree
    _by_path: dict[str, list[tuple[int, FileChange]]] = field(default_factory=dict)
    _position: dict[str, int] = field(default_factory=dict)
    _masks: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for number, commit in enumerate(self.commits):
            self._position[commit.sha] = number
            for change in self.changes.get(commit.sha, ()):
                self._by_path.setdefault(change.path, []).append((number, change))

    def commit(self, sha: str) -> Commit | None:
        at = self._position.get(sha)
        return self.commits[at] if at is not None else None

    def versions(self, path: str, limit: int) -> list[Version]:
        """The versions of `path` (its name at HEAD, under `prefix`), newest first, following
        renames back; at most `limit`. A deletion ends the walk (an older file of that name is
        another). A version's `path` is the work tree's."""
        out: list[Version] = []
        name, after = self.prefix + path, -1
        while len(out) < limit:
            number, change = next(((n, c) for n, c in self._by_path.get(name, ()) if n > after),
                                  (-1, None))
            if change is None:
                break
            commit = self.commits[number]
            if change.status == "D":
                break
            out.append(Version(commit=commit, path=name, blob=change.new_blob))
            if change.status == "A":
                break
            if change.status == "R":
                name = change.old_path
            after = number
        return out

    def ancestors(self, sha: str) -> Ancestors:
        """`sha` and every commit reachable from it, among the commits read."""
        return Ancestors(self._position, self._mask(sha))

    def _mask(self, sha: str) -> int:
        """The ancestors of `sha` as a bit set over the commits' positions: each commit's
        set is its own bit and its parents' sets, each computed once (a walk per question
        is a walk of the whole history per section)."""
        masks = self._masks
        stack = [sha]
        while stack:
            current = stack[-1]
            if current in masks or current not in self._position:
                stack.pop()
                continue
            parents = [p for p in self.commits[self._position[current]].parents
                       if p in self._position and p not in masks]
            if parents:
                stack.extend(parents)
                continue
            stack.pop()
            mask = 1 << self._position[current]
            for parent in self.commits[self._position[current]].parents:
                mask |= masks.get(parent, 0)
            masks[current] = mask
        return masks.get(sha, 0)


@dataclass(frozen=True)
class Ancestors:
    """A set of commits (`sha in ancestors`), kept as a bit set over the log's positions."""

    position: dict[str, int]
    mask: int

    def __contains__(self, sha: object) -> bool:
        at = self.position.get(sha) if isinstance(sha, str) else None
        return at is not None and bool(self.mask >> at & 1)


def _changes(tail: bytes) -> tuple[FileChange, ...]:
    fields = tail.lstrip(b"\0\n").split(b"\0")
    out: list[FileChange] = []
    i = 0
    while i < len(fields):
        meta = fields[i].strip()
        if not meta.startswith(b":"):
            i += 1
            continue
        parts = meta[1:].split()
        if len(parts) < 5:
            break
        old_blob, new_blob = parts[2].decode("ascii"), parts[3].decode("ascii")
        status = parts[4][:1].decode("ascii", "replace")
        if status in ("R", "C") and i + 2 < len(fields):
            old, new = os.fsdecode(fields[i + 1]), os.fsdecode(fields[i + 2])
            i += 3
        elif i + 1 < len(fields):
            old = new = os.fsdecode(fields[i + 1])
            i += 2
        else:
            break
        if status == "C":  # a copy leaves its source in place: the new path was added
            status = "A"
        out.append(FileChange(status=status, path=new, old_path=old, old_blob=old_blob,
                              new_blob=new_blob))
    return tuple(out)


def parse_record(record: bytes) -> tuple[Commit, tuple[FileChange, ...]] | None:
    """One commit of `git log --raw -z --format=LOG_FORMAT` (None when malformed)."""
    parts = record.split(FIELD, 4)
    if len(parts) < 5:
        return None
    sha = parts[0].decode("ascii", "replace").strip()
    if not _SHA.match(sha):
        return None
    try:
        time = int(parts[2])
    except ValueError:
        return None
    subject = parts[3][:SUBJECT_CHARS].decode("utf-8", "replace")
    commit = Commit(sha=sha, parents=tuple(parts[1].decode("ascii", "replace").split()),
                    time=time, subject=subject)
    return commit, _changes(parts[4])


def read_log(repo: Path, *, rev: str = "HEAD", max_commits: int, max_bytes: int,
             timeout: float, exclude: Sequence[str] = (), lines_matching: str | None = None,
             paths: Sequence[str] = ()) -> History:
    """The history reachable from `rev` (and not from the commits in `exclude`), newest
    first, at most `max_commits` commits and `max_bytes` of log (past either, what was read,
    with `cut` set). Renames are detected (`-M`); merges list no changes of their own.
    `lines_matching` (a POSIX extended regex): only the commits that add or remove a line it
    matches (`-G`, git's own diff: no external program, no textconv). `paths`: git pathspecs
    the log is limited to (`:(glob)**/*.py`; each given as a literal argument after `--`).
    Empty outside git."""
    if any(not _SHA.match(sha) for sha in exclude):
        raise ValueError("exclude takes commit ids")
    args = ["log", "--raw", "-z", "--no-abbrev", "-M", "--no-color", "--no-ext-diff",
            "--no-textconv", "--no-show-signature", "--no-mailmap", f"--format={LOG_FORMAT}",
            f"--max-count={max_commits + 1}"]
    if lines_matching is not None:
        args.append(f"-G{lines_matching}")
    args += ["--end-of-options", rev, *(f"^{sha}" for sha in exclude)]
    if paths:
        args += ["--", *paths]
    commits: list[Commit] = []
    changes: dict[str, tuple[FileChange, ...]] = {}
    pending = b""
    cut = False

    def take(record: bytes) -> None:
        parsed = parse_record(record)
        if parsed is not None and parsed[0].sha not in changes:
            commits.append(parsed[0])
            changes[parsed[0].sha] = parsed[1]

    try:
        for chunk in stream_git(repo, *args, max_bytes=max_bytes, timeout=timeout):
            records = (pending + chunk).split(RECORD)
            pending = records.pop()
            for record in records:
                take(record)
        take(pending)
    except GitOutputTooLarge:
        cut = True
    except (OSError, subprocess.SubprocessError):
        return History(commits=commits, changes=changes, cut=bool(commits))
    if len(commits) > max_commits:
        cut = True
        for commit in commits[max_commits:]:
            changes.pop(commit.sha, None)
        del commits[max_commits:]
    return History(commits=commits, changes=changes, cut=cut)


def read_blobs(repo: Path, blobs: Iterable[str], *, max_blob_bytes: int,
               timeout: float) -> dict[str, bytes]:
    """{blob id: bytes} from one `cat-file --batch` (the bytes as stored: no filters, no
    textconv). A blob over `max_blob_bytes`, or one git cannot read, is left out."""
    wanted = sorted({b for b in blobs if _SHA.match(b) and b != NULL_BLOB})
    if not wanted:
        return {}
    proc = subprocess.Popen(git_command(repo, "cat-file", "--batch"), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=git_env())
    assert proc.stdin is not None and proc.stdout is not None
    request = "".join(f"{blob}\n" for blob in wanted).encode("ascii")

    def feed() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(request)
            proc.stdin.close()
        except OSError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    timer = threading.Timer(timeout, proc.kill)  # a stuck git is stopped, never waited on
    timer.start()
    out: dict[str, bytes] = {}
    try:
        for blob in wanted:
            header = proc.stdout.readline().split()
            if len(header) == 2 and header[1] == b"missing":
                continue
            if len(header) != 3:
                break
            size = int(header[2])
            if size > max_blob_bytes or header[1] != b"blob":
                _skip(proc.stdout, size + 1)
                continue
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after the content
            if len(data) != size:
                break
            out[blob] = data
    finally:
        timer.cancel()
        proc.stdout.close()
        writer.join(timeout=5)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return out


def _skip(stream: IO[bytes], size: int) -> None:
    while size > 0:
        got = stream.read(min(size, 1 << 20))
        if not got:
            return
        size -= len(got)


def resolve(repo: Path, rev: str) -> str | None:
    """The commit `rev` names (a branch, tag, hash or expression), or None."""
    if not _REV.match(rev) or rev.startswith("-"):
        return None
    out = run_git(repo, "rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}")
    text = out.decode("ascii", "replace").strip() if out else ""
    return text if _SHA.match(text) else None


def show_prefix(repo: Path) -> str:
    """Where `repo` is inside its git work tree (`sub/dir/`; "" at the top): history paths
    are the work tree's, index paths are `repo`'s."""
    out = run_git(repo, "rev-parse", "--show-prefix")
    return os.fsdecode(out.strip()) if out else ""


def commit_time(repo: Path, sha: str) -> int | None:
    out = run_git(repo, "log", "-1", "--format=%ct", "--end-of-options", sha)
    try:
        return int(out.strip()) if out else None
    except ValueError:
        return None


def blob_at(repo: Path, rev: str, path: str, *, max_blob_bytes: int,
            timeout: float) -> bytes | None:
    """The bytes of `path` in commit `rev` (None when absent, too large or unreadable)."""
    if not _SHA.match(rev):
        return None
    out = run_git(repo, "rev-parse", "--verify", "-q", f"{rev}:./{path}")
    blob = out.decode("ascii", "replace").strip() if out else ""
    if not _SHA.match(blob):
        return None
    return read_blobs(repo, [blob], max_blob_bytes=max_blob_bytes, timeout=timeout).get(blob)
