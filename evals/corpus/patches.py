"""Zero-context patches (`git log -p -U0 --full-index -M`), parsed (pure but for `read_patches`).

A commit's patch becomes one `FilePatch` per changed file: the path before and after, the blob
at the parent (`index <old>..<new>`), the hunks' line ranges on both sides and whether the
file's change is whitespace only (the removed and added lines are equal once every whitespace
character is dropped). Binary files have no hunks. A path git had to quote (`"a/x\\ty"`) is
unquoted; the trailing tab git adds after a name with a space is dropped.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from helix.core.errors import BadPathError
from helix.core.git import git_command, git_env, stream_git
from helix.core.schemas import Frozen

PATCH_TIMEOUT_S = 1800.0
MAX_PATCH_LOG_BYTES = 8 << 30  # of one repository's patches (streamed, never held whole)
PATCH_BATCH = 200  # commits asked of one `git log --no-walk`
RECORD = b"\x1e"
PATCH_FORMAT = "%x1e%H"
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_INDEX = re.compile(rb"^index ([0-9a-f]{40,64})\.\.([0-9a-f]{40,64})")
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f",
            "r": "\r", "v": "\v"}
_SPACE = re.compile(rb"\s+")
NULL_BLOB = re.compile(r"^0+$")


class Hunk(Frozen):
    old_start: int  # for an insertion (old_count 0): the old line it follows
    old_count: int
    new_start: int
    new_count: int


class FilePatch(Frozen):
    old_path: str | None  # None: added
    new_path: str | None  # None: deleted
    old_blob: str | None  # the blob at the parent (None: added, or no index line)
    hunks: tuple[Hunk, ...]
    binary: bool
    whitespace_only: bool  # lines changed, and only in whitespace


class CommitPatch(Frozen):
    sha: str
    files: tuple[FilePatch, ...]
    oversize: bool  # longer than the bound: files left empty


def unquote_path(raw: bytes) -> str:
    """A path as git prints it in a patch header (C-quoted when it has special bytes)."""
    text = raw.decode("utf-8", "surrogateescape").rstrip("\t")
    if not (len(text) >= 2 and text.startswith('"') and text.endswith('"')):
        return text
    body = text[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1:
                out += bytes([int(body[i + 1:i + 4], 8) & 0xFF])
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode("utf-8", "surrogateescape")
            i += 2
            continue
        out += ch.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "replace")


def _side(raw: bytes, prefix: bytes) -> str | None:
    """`a/x` -> `x` (`/dev/null` -> None) of a `---`/`+++` line's rest."""
    path = unquote_path(raw)
    if path == "/dev/null":
        return None
    strip = prefix.decode()
    return path[len(strip):] if path.startswith(strip) else path


class _FileState:
    def __init__(self) -> None:
        self.old_path: str | None = None
        self.new_path: str | None = None
        self.old_blob: str | None = None
        self.hunks: list[Hunk] = []
        self.binary = False
        self.removed: list[bytes] = []
        self.added: list[bytes] = []
        self.added_file = False
        self.deleted_file = False

    def close(self) -> FilePatch:
        changed = bool(self.removed or self.added)
        same = (_SPACE.sub(b"", b"".join(self.removed)) == _SPACE.sub(b"", b"".join(self.added)))
        return FilePatch(
            old_path=None if self.added_file else self.old_path,
            new_path=None if self.deleted_file else self.new_path,
            old_blob=self.old_blob, hunks=tuple(self.hunks), binary=self.binary,
            whitespace_only=changed and same)


def _header_paths(line: bytes) -> tuple[str, str]:
    """Paths of a `diff --git a/x b/y` line (exact when unquoted and space-free; the ---/+++
    and rename lines that follow correct them)."""
    rest = line[len(b"diff --git "):]
    if rest.startswith(b'"'):
        end = rest.find(b'" ', 1)
        old_raw, new_raw = rest[:end + 1], rest[end + 2:]
    else:
        half = len(rest) // 2
        old_raw, new_raw = rest[:half], rest[half + 1:]
    old, new = unquote_path(old_raw), unquote_path(new_raw)
    return old[2:] if old.startswith("a/") else old, new[2:] if new.startswith("b/") else new


def _meta(state: _FileState, line: bytes) -> None:
    """A header line between `diff --git` and the first hunk."""
    if line.startswith(b"new file mode"):
        state.added_file = True
    elif line.startswith(b"deleted file mode"):
        state.deleted_file = True
    elif line.startswith(b"rename from "):
        state.old_path = unquote_path(line[len(b"rename from "):])
    elif line.startswith(b"rename to "):
        state.new_path = unquote_path(line[len(b"rename to "):])
    elif line.startswith(b"Binary files ") or line.startswith(b"GIT binary patch"):
        state.binary = True
    elif (match := _INDEX.match(line)) is not None:
        old = match.group(1).decode()
        state.old_blob = None if NULL_BLOB.match(old) else old
    elif line.startswith(b"--- "):
        side = _side(line[4:], b"a/")
        if side is not None:
            state.old_path = side
    elif line.startswith(b"+++ "):
        side = _side(line[4:], b"b/")
        if side is not None:
            state.new_path = side


def parse_patch(sha: str, body: bytes) -> CommitPatch:
    """One commit's patch (the text after its id line)."""
    files: list[FilePatch] = []
    state: _FileState | None = None
    in_hunks = False
    for line in body.split(b"\n"):
        if line.startswith(b"diff --git "):
            if state is not None:
                files.append(state.close())
            state = _FileState()
            state.old_path, state.new_path = _header_paths(line)
            in_hunks = False
            continue
        if state is None:
            continue
        match = _HUNK.match(line)
        if match is not None:
            in_hunks = True
            a, b, c, d = match.groups()
            state.hunks.append(Hunk(old_start=int(a), old_count=1 if b is None else int(b),
                                    new_start=int(c), new_count=1 if d is None else int(d)))
        elif in_hunks:
            if line.startswith(b"-"):
                state.removed.append(line[1:])
            elif line.startswith(b"+"):
                state.added.append(line[1:])
        else:
            _meta(state, line)
    if state is not None:
        files.append(state.close())
    return CommitPatch(sha=sha, files=tuple(files), oversize=False)


def parse_record(record: bytes, max_bytes: int) -> CommitPatch | None:
    head, _, body = record.partition(b"\n")
    sha = head.decode("ascii", "replace").strip()
    if not _SHA.match(sha):
        return None
    if len(body) > max_bytes:
        return CommitPatch(sha=sha, files=(), oversize=True)
    return parse_patch(sha, body)


def _batch(gitdir: Path, shas: Sequence[str], max_commit_bytes: int) -> list[CommitPatch]:
    args = ("log", "--no-walk=unsorted", "-p", "-U0", "--full-index", "-M", "--first-parent",
            "--no-ext-diff", "--no-textconv", "--no-color", "--no-show-signature",
            "--no-mailmap", f"--format={PATCH_FORMAT}", "--end-of-options", *shas)
    out: list[CommitPatch] = []
    pending = b""
    for chunk in stream_git(gitdir, *args, max_bytes=MAX_PATCH_LOG_BYTES,
                            timeout=PATCH_TIMEOUT_S):
        records = (pending + chunk).split(RECORD)
        pending = records.pop()
        out += [p for r in records if (p := parse_record(r, max_commit_bytes)) is not None]
    if (last := parse_record(pending, max_commit_bytes)) is not None:
        out.append(last)
    return out


def read_patches(gitdir: Path, shas: Sequence[str], max_commit_bytes: int
                 ) -> Iterator[CommitPatch]:
    """The zero-context patch of each commit against its first parent, in batches of
    `git log --no-walk` (read-only plumbing: no external diff, no textconv, no colour). A
    batch git cannot finish (a snapshot lacks its largest blobs) is read commit by commit;
    a commit git cannot diff is left out (its caller counts it)."""
    for start in range(0, len(shas), PATCH_BATCH):
        batch = shas[start:start + PATCH_BATCH]
        try:
            yield from _batch(gitdir, batch, max_commit_bytes)
            continue
        except subprocess.CalledProcessError:
            pass
        except (OSError, subprocess.SubprocessError):
            raise BadPathError(f"cannot read the patches of {gitdir}") from None
        for sha in batch:
            try:
                yield from _batch(gitdir, [sha], max_commit_bytes)
            except subprocess.CalledProcessError:
                continue
            except (OSError, subprocess.SubprocessError):
                raise BadPathError(f"cannot read the patches of {gitdir}") from None


def read_present_blobs(gitdir: Path, blobs: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
    """(blob id, raw bytes) for each id, in order, from one `cat-file --batch` (no filters,
    no textconv); None for a blob the snapshot lacks (files of 4 MiB and more are left out
    of snapshots)."""
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
            if len(header) == 2 and header[1] == b"missing":
                yield blob, None
                continue
            if len(header) != 3 or header[1] != b"blob":
                raise BadPathError(f"git cat-file could not read blob {blob} in {gitdir}")
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after the content
            if len(data) != size:
                raise BadPathError(f"git cat-file returned a short blob {blob} in {gitdir}")
            yield blob, data
    finally:
        proc.stdout.close()
        writer.join(timeout=5)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
