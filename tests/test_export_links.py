"""An evidence link verifies only when its file exists at its repo_rev and its bytes hash to its
content_hash (sha256 or a git blob id); each failure is named. Read through `git cat-file`
(no hook or filter of the repository runs); outside git, `HEAD` means the files as they are."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from helix.export_links import hash_matches, link_failures


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True, env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                                          "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                                          "PATH": "/usr/bin:/bin"}).stdout.strip()


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def test_links_verify_at_their_commit_in_git(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    first = b"def f():\n    return 1\n"
    (root / "src" / "f.py").write_bytes(first)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "one")
    old = _git(root, "rev-parse", "HEAD")
    (root / "src" / "f.py").write_bytes(b"def f():\n    return 2\n")
    _git(root, "commit", "-qam", "two")
    blob = _git(root, "rev-parse", f"{old}:src/f.py")
    link = {"path": "src/f.py", "repo_rev": old, "content_hash": _sha(first)}
    assert link_failures(root, [link]) == []
    assert link_failures(root, [{**link, "content_hash": blob}]) == []  # a git blob id
    assert link_failures(root, [{**link, "repo_rev": "HEAD"}]) == ["hash:src/f.py"]
    assert link_failures(root, [{**link, "path": "src/gone.py"}]) == [f"missing:src/gone.py@{old}"]
    assert link_failures(root, [{**link, "repo_rev": "0" * 40}]) == [
        f"missing:src/f.py@{'0' * 40}"]
    assert link_failures(root, [{**link, "path": "../etc/passwd"}]) == ["outside:../etc/passwd"]
    assert link_failures(root, [{"path": "src/f.py"}]) == ["incomplete:src/f.py"]


def test_outside_git_head_means_the_files_as_they_are(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"# A\n")
    link = {"path": "a.md", "repo_rev": "HEAD", "content_hash": _sha(b"# A\n")}
    assert link_failures(tmp_path, [link]) == []
    assert link_failures(tmp_path, [{**link, "repo_rev": "abc123"}]) == ["missing:a.md@abc123"]


def test_hash_forms() -> None:
    data = b"hello\n"
    assert hash_matches(data, _sha(data))
    assert hash_matches(data, "ce013625030ba8dba906f756967f9e9ca394464a")  # git hash-object
    assert not hash_matches(data, "sha256:00")
    assert not hash_matches(data, "md5:whatever")
