"""Evidence links checked against the repository before a training record is admitted.

A link (`{"type", "path", "repo_rev", "content_hash"}` in a tree node) verifies when the file
exists at `repo_rev` and its bytes hash to `content_hash`: `sha256:<hex of the bytes>` (as the
index stores it) or a git blob id (40 hex digits). `repo_rev` is a commit of the repository (read
with `git cat-file`, which runs no hook, filter or program of the repository's), or `HEAD`: in a
repository without git, `HEAD` means the files as they are. A link that does not verify names
its failure: `missing:<path>@<rev>`, `hash:<path>`, `outside:<path>`, `incomplete:<path>`.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^sha256:([0-9a-f]{64})$")
_REV = re.compile(r"^[0-9A-Za-z_./~^-]{1,100}$")
GIT_TIMEOUT_S = 30
MAX_BLOB_BYTES = 64 * 1024 * 1024
# git run read-only on a repository Helix did not write: no fsmonitor or pager program of its
# configuration is ever started, and its ownership is not a reason to refuse a read
_GIT = ("git", "-c", "core.fsmonitor=false", "-c", "core.pager=cat", "-c",
        "safe.directory=*")


def _git_blob(root: Path, rev: str, path: str) -> bytes | None:
    try:
        done = subprocess.run([*_GIT, "-C", str(root), "cat-file", "blob", f"{rev}:{path}"],
                              capture_output=True, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or len(done.stdout) > MAX_BLOB_BYTES:
        return None
    return done.stdout


def _is_git(root: Path) -> bool:
    return (root / ".git").exists()


def _working_file(root: Path, path: str) -> bytes | None:
    target = (root / path).resolve()
    if not target.is_relative_to(root.resolve()) or not target.is_file():
        return None
    if target.stat().st_size > MAX_BLOB_BYTES:
        return None
    return target.read_bytes()


def hash_matches(data: bytes, content_hash: str) -> bool:
    """`content_hash` is the bytes' `sha256:<hex>` or their git blob id."""
    value = content_hash.strip().lower()
    match = _SHA256.match(value)
    if match:
        return hashlib.sha256(data).hexdigest() == match.group(1)
    if _HEX40.match(value):
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False)
        return blob.hexdigest() == value
    return False


def link_failures(root: Path, links: Iterable[Any]) -> list[str]:
    """Every failed check of `links`, in order ([] = every link verifies)."""
    failures: list[str] = []
    git = _is_git(root)
    for link in links:
        if not isinstance(link, Mapping):
            failures.append("incomplete:?")
            continue
        path, rev = str(link.get("path") or ""), str(link.get("repo_rev") or "")
        content_hash = str(link.get("content_hash") or "")
        if not path or not rev or not content_hash:
            failures.append(f"incomplete:{path or '?'}")
            continue
        if path.startswith("/") or ".." in Path(path).parts or not _REV.match(rev):
            failures.append(f"outside:{path}")
            continue
        if git:
            data = _git_blob(root, rev, path)
        else:
            data = _working_file(root, path) if rev == "HEAD" else None
        if data is None:
            failures.append(f"missing:{path}@{rev}")
        elif not hash_matches(data, content_hash):
            failures.append(f"hash:{path}")
    return failures
