"""Git on an untrusted repository: no program of the repository's runs, nothing is written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helix.core import git as safegit
from helix.core.config import HelixConfig
from helix.core.ports import FakeEmbedder
from indexers.build import build_index, index_status

GIT = ["git", "-c", "user.email=t@e", "-c", "user.name=t", "-c", "commit.gpgsign=false"]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture()
def hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose .git/config names programs for every hook git offers."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "mod.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (repo / ".gitattributes").write_text("*.py filter=evil diff=evil\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "init")
    marker = tmp_path / "pwned"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\ncat\n", encoding="utf-8")
    script.chmod(0o755)
    for key in ("core.fsmonitor", "core.pager", "core.sshCommand", "filter.evil.clean",
                "filter.evil.smudge", "diff.evil.textconv", "diff.external", "core.editor"):
        _git(repo, "config", key, str(script))
    hooks = repo / ".git" / "hooks"
    for name in ("post-index-change", "post-checkout", "pre-commit", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\necho {name} >> {marker}\n", encoding="utf-8")
        (hooks / name).chmod(0o755)
    # make the index stat-dirty so a `git status` would re-hash (and filter, and fsmonitor)
    (repo / "mod.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    return repo, marker


def test_repo_revision_runs_no_repository_program(hostile_repo: tuple[Path, Path]) -> None:
    repo, marker = hostile_repo
    index_file = repo / ".git" / "index"
    before = (index_file.read_bytes(), index_file.stat().st_mtime_ns)
    head = _git(repo, "rev-parse", "HEAD").strip()
    assert safegit.repo_revision(repo) == head + "+dirty"
    assert not marker.exists()
    assert (index_file.read_bytes(), index_file.stat().st_mtime_ns) == before


def test_index_and_status_run_no_repository_program(hostile_repo: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    repo, marker = hostile_repo
    index_file = repo / ".git" / "index"
    before = (index_file.read_bytes(), index_file.stat().st_mtime_ns)
    config = HelixConfig()
    report = build_index(repo, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    status = index_status(repo, config, index_dir=tmp_path / "idx")
    assert report.repo_rev.endswith("+dirty") and status.fresh
    assert not marker.exists()
    assert (index_file.read_bytes(), index_file.stat().st_mtime_ns) == before


def test_clean_tree_and_untracked_file(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "a.py").write_text("A = 1\n", encoding="utf-8")
    (repo / "link").symlink_to("pkg/a.py")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "x")
    head = _git(repo, "rev-parse", "HEAD").strip()
    assert safegit.repo_revision(repo, ["pkg/a.py"]) == head
    # a subdirectory reads the same commit, its paths relative to itself
    assert safegit.repo_revision(repo / "pkg", ["a.py"]) == head
    assert safegit.repo_revision(repo, ["pkg/a.py", "new.py"]) == head + "+dirty"
    (repo / "pkg" / "a.py").unlink()
    assert safegit.repo_revision(repo) == head + "+dirty"


def test_only_read_only_commands_are_allowed(tmp_path: Path) -> None:
    for command in ("status", "checkout", "worktree", "fetch", "config", "diff"):
        with pytest.raises(ValueError):
            safegit.git_command(tmp_path, command)
    argv = safegit.git_command(tmp_path, "log")
    assert "--no-optional-locks" in argv and "core.fsmonitor=false" in argv


def test_blob_sha_matches_git(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"hello\r\nworld\x00")
    expected = subprocess.run(["git", "hash-object", "--no-filters", str(path)],
                              capture_output=True, text=True, check=True).stdout.strip()
    assert safegit.blob_sha(path.read_bytes()) == expected
