"""`helix.core.git.head_commit` asks git once: every refresh of an index with the history field
(every `helix ask`, every session turn) asks for HEAD; it took two git processes before."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from helix.core import git as git_mod
from helix.core.git import head_commit
from tests.history_helpers import EPOCH, commit, git


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = subprocess.run

    def run(argv: list[str], *args: Any, **kwargs: Any) -> Any:
        calls.append(list(argv))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(git_mod.subprocess, "run", run)
    return calls


def test_head_is_read_with_one_git_process(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    sha = commit(repo, "first", {"a.py": "x = 1\n"}, EPOCH)
    (repo / "sub").mkdir()
    calls = _counted(monkeypatch)
    assert head_commit(repo) == sha
    assert head_commit(repo / "sub") == sha  # from a directory inside the work tree
    assert len(calls) == 2, calls  # one process per call


def test_no_commit_outside_a_work_tree_or_before_the_first_commit(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    unborn = tmp_path / "unborn"
    unborn.mkdir()
    git(unborn, "init", "-q")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, "first", {"a.py": "x = 1\n"}, EPOCH)
    assert head_commit(plain) is None
    assert head_commit(unborn) is None
    assert head_commit(repo / ".git") is None  # a git directory is not a work tree


def test_a_directory_with_no_git_entry_above_it_starts_no_git(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No `.git` in the directory nor above it: no work tree, and no git process asked (every
    refresh of an index of a plain directory asked one); a linked work tree's `.git` file and
    a repository's subdirectory still ask git."""
    plain = tmp_path / "plain" / "deep"
    plain.mkdir(parents=True)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    sha = commit(repo, "first", {"a.py": "x = 1\n"}, EPOCH)
    git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
    (repo / "sub").mkdir()
    calls = _counted(monkeypatch)
    assert head_commit(plain) is None
    assert head_commit(tmp_path) is None
    assert calls == []
    assert head_commit(tmp_path / "linked") == sha and (tmp_path / "linked" / ".git").is_file()
    assert head_commit(repo / "sub") == sha
    assert len(calls) == 2, calls
