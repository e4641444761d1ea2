"""Reading a git repository Helix does not trust, without running any of its programs.

A repository's `.git/config` can name programs that git runs on its behalf: `core.fsmonitor`
(run by `git status`), hooks (`post-index-change`, `post-checkout`, ...), clean and smudge
filter drivers (run whenever git hashes or writes a work-tree file), pagers, `diff.external`,
textconv, `core.sshCommand`. So Helix never asks git to look at the work tree: it runs only
object and ref plumbing from an allowlist (`rev-parse`, `ls-tree`, `cat-file`, `log`,
`rev-list`, `for-each-ref`), with every program-naming setting overridden on the command line,
optional locks off (nothing is written into `.git`), no pager, no prompts, no transport. Whether
the work tree is dirty is decided here, in Python, by hashing the files as git would
(`blob_sha`) and comparing them with HEAD's tree.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

GIT_TIMEOUT_S = 5.0

# Subcommands that read objects and refs only; none of them reads or hashes the work tree.
ALLOWED = frozenset({"rev-parse", "ls-tree", "cat-file", "log", "rev-list", "for-each-ref"})

# Settings that would make git run a program or write into the repository, neutralised.
SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.askPass=",
    "core.untrackedCache=false",
    "core.editor=false",
    "credential.helper=",
    "diff.external=",
    "protocol.allow=never",
    "submodule.recurse=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "log.showSignature=false",
)

# Environment git would otherwise take programs or redirections from.
_DROPPED_ENV = ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND",
                "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "GIT_DIR", "GIT_WORK_TREE",
                "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")

TREE_MODE_FILE = ("100644", "100755")
STREAM_CHUNK = 1 << 20
TREE_MODE_LINK = "120000"
TREE_MODE_SUBMODULE = "160000"


def git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if k not in _DROPPED_ENV and not k.startswith("GIT_CONFIG_KEY_")
           and not k.startswith("GIT_CONFIG_VALUE_")}
    env.update({"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat",
                "PAGER": "cat", "GIT_NO_LAZY_FETCH": "1", "LC_ALL": "C"})
    return env


def git_command(repo: Path, *args: str) -> list[str]:
    """The argv for one allowed git call on `repo` (raises ValueError for any other)."""
    if not args or args[0] not in ALLOWED:
        raise ValueError(f"git {args[0] if args else ''} is not an allowed read-only command")
    config = [part for item in SAFE_CONFIG for part in ("-c", item)]
    return ["git", "--no-pager", "--no-optional-locks", "-C", str(repo), *config, *args]


def run_git(repo: Path, *args: str, timeout: float = GIT_TIMEOUT_S) -> bytes | None:
    """stdout of one allowed read-only git command; None when git fails, is missing or slow."""
    try:
        done = subprocess.run(git_command(repo, *args), capture_output=True, timeout=timeout,
                              check=False, env=git_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


class GitOutputTooLarge(Exception):
    """A git command printed more than the caller's bound (its process was stopped)."""


def stream_git(repo: Path, *args: str, max_bytes: int,
               timeout: float = GIT_TIMEOUT_S) -> Iterator[bytes]:
    """stdout of one allowed read-only git command in chunks, never more than `max_bytes` in
    all (GitOutputTooLarge past that, the process killed), nor longer than `timeout` seconds.
    Raises OSError when git cannot run, CalledProcessError when it fails."""
    proc = subprocess.Popen(git_command(repo, *args), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=git_env())
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    # a git that hangs without printing is stopped at the deadline, never waited on (the
    # read below would block until it prints or ends)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    total = 0
    try:
        while True:
            chunk = proc.stdout.read1(STREAM_CHUNK)  # type: ignore[attr-defined]
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(list(args), timeout)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:
                raise GitOutputTooLarge(f"git {args[0]} printed more than {max_bytes:,} bytes")
            yield chunk
        if proc.wait(timeout=max(0.1, deadline - time.monotonic())) != 0:
            raise subprocess.CalledProcessError(proc.returncode, list(args))
    finally:
        timer.cancel()
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def head_commit(root: Path) -> str | None:
    """HEAD's commit id when `root` is in a git work tree, else None. One git process (every
    refresh of an index with the history field asks): `true` then the id; it fails outside a
    repository and before the first commit."""
    if not _under_a_git_entry(root):
        return None
    out = run_git(root, "rev-parse", "--is-inside-work-tree", "--verify", "-q", "HEAD^{commit}")
    words = out.decode("ascii", "replace").split() if out else []
    return words[1] if len(words) == 2 and words[0] == "true" else None


def _under_a_git_entry(root: Path) -> bool:
    """Whether `root` or a directory above it holds a `.git` (a directory, or the file of a
    linked work tree or submodule): git finds a work tree nowhere else (GIT_DIR and
    GIT_WORK_TREE are never passed on), so elsewhere no process is started (the tests' and
    many users' repositories are plain directories: ~2 ms of CPU a refresh). Unsure (a
    directory that cannot be read): git decides."""
    try:
        here = root.resolve()
        return any((d / ".git").exists() for d in (here, *here.parents))
    except OSError:
        return True


def tracked_blobs(root: Path, rev: str = "HEAD") -> dict[str, tuple[str, str]] | None:
    """path -> (mode, blob id) for every entry of `rev`'s tree under `root` (paths relative
    to `root`, as POSIX strings)."""
    out = run_git(root, "ls-tree", "-r", "-z", rev, timeout=GIT_TIMEOUT_S * 6)
    if out is None:
        return None
    entries: dict[str, tuple[str, str]] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        parts = meta.split()
        if len(parts) != 3:
            continue
        entries[os.fsdecode(raw_path)] = (parts[0].decode(), parts[2].decode())
    return entries


def blob_sha(data: bytes, algorithm: str = "sha1") -> str:
    """The object id git gives these bytes as a blob (`git hash-object`, no filters)."""
    h = hashlib.new(algorithm)
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


class BlobMemo(Protocol):
    """Work-tree files' blob ids kept by their stat fields (`indexers.blob_stats`): a file whose
    size, mtime, inode and ctime are the recorded ones is not read and hashed again."""

    def lookup(self, path: str, st: os.stat_result) -> str | None: ...

    def record(self, path: str, st: os.stat_result, blob: str) -> None: ...


def _file_blob(target: Path, path: str, algorithm: str, memo: BlobMemo | None) -> str:
    st = target.lstat()  # before the read: a later write changes it
    known = memo.lookup(path, st) if memo is not None else None
    if known is not None and len(known) == (64 if algorithm == "sha256" else 40):
        return known
    sha = blob_sha(target.read_bytes(), algorithm)
    if memo is not None:
        memo.record(path, st, sha)
    return sha


def _worktree_matches(root: Path, path: str, mode: str, blob: str,
                      memo: BlobMemo | None = None) -> bool:
    target = root / path
    algorithm = "sha256" if len(blob) == 64 else "sha1"
    try:
        if mode == TREE_MODE_LINK:
            return target.is_symlink() and blob_sha(
                os.fsencode(os.readlink(target)), algorithm) == blob
        if mode in TREE_MODE_FILE:
            if target.is_symlink() or not target.is_file():
                return False
            return _file_blob(target, path, algorithm, memo) == blob
    except OSError:
        return False
    return True  # submodules and other entries: not compared


def is_dirty(root: Path, tracked: Mapping[str, tuple[str, str]],
             present: Iterable[str] = (), memo: BlobMemo | None = None) -> bool:
    """True when a tracked file differs from HEAD (content hashed here, so no clean filter
    runs; a repository whose filters rewrite content reads as dirty) or a file in `present`
    (the paths Helix indexed) is not tracked. `memo`: blob ids of files unchanged since they
    were last hashed (not read again)."""
    if any(path not in tracked for path in present):
        return True
    return not all(_worktree_matches(root, path, mode, blob, memo)
                   for path, (mode, blob) in sorted(tracked.items()))


def repo_revision(root: Path, present: Iterable[str] = (), memo: BlobMemo | None = None) -> str:
    """`<HEAD commit>`, plus `+dirty` when the work tree differs from it; `nogit` outside
    a git work tree (or when git is missing or too slow). `memo`: see `is_dirty`."""
    head = head_commit(root)
    if head is None:
        return "nogit"
    tracked = tracked_blobs(root)
    if tracked is None:
        return head + "+dirty"
    return head + ("+dirty" if is_dirty(root, tracked, present, memo) else "")
