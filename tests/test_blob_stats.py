"""The dirty check after a refresh re-reads no unchanged file (issue 34: `helix drift` after a
100-file change on 20,000 files read every tracked file to decide `+dirty`): blob ids are kept
by stat fields (`indexers.blob_stats`), and the revision is the one a full read gives."""

from __future__ import annotations

from pathlib import Path

import pytest

import helix.core.git as git_mod
from helix.core.config import HelixConfig
from helix.core.git import repo_revision
from indexers import cache_file
from indexers.blob_stats import BLOB_STATS, BlobStats
from indexers.build import build_index, ensure_index
from indexers.store import MARKER
from tests.history_helpers import DAY, EPOCH, commit, git

FILES = {"src/app.py": "def main():\n    return 1\n", "src/util.py": "X = 1\n",
         "docs/guide.md": "# Guide\n\nHow.\n"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    commit(root, "first", FILES, EPOCH)
    return root


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "idx"
    directory.mkdir()
    (directory / MARKER).write_text("helix index directory v1\n", encoding="utf-8")
    return directory


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Sizes of the work-tree contents hashed as blobs (each one a file read)."""
    seen: list[int] = []
    real = git_mod.blob_sha

    def counting(data: bytes, algorithm: str = "sha1") -> str:
        seen.append(len(data))
        return real(data, algorithm)

    monkeypatch.setattr(git_mod, "blob_sha", counting)
    monkeypatch.setattr(cache_file, "RACY_S", 0.0)  # files written a moment ago settle
    return seen


def _revision(root: Path, directory: Path) -> str:
    memo = BlobStats(directory, root)
    revision = repo_revision(root, memo=memo)
    memo.save()
    return revision


def test_unchanged_files_are_not_hashed_again(repo: Path, cache_dir: Path,
                                              hashed: list[int]) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    assert _revision(repo, cache_dir) == head
    assert len(hashed) == 3 and (cache_dir / BLOB_STATS).is_file()
    hashed.clear()
    assert _revision(repo, cache_dir) == head == repo_revision(repo)
    assert hashed[:-3] == []  # the check with the cache read nothing (the last: without it)
    assert len(hashed) == 3


def test_a_changed_file_is_hashed_again_and_reads_dirty(repo: Path, cache_dir: Path,
                                                        hashed: list[int]) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    assert _revision(repo, cache_dir) == head
    hashed.clear()
    (repo / "src/util.py").write_text("X = 2\n", encoding="utf-8")  # same size
    assert _revision(repo, cache_dir) == head + "+dirty"
    assert hashed == [6]  # only the changed file
    hashed.clear()
    git(repo, "commit", "-qam", "second", when=EPOCH + DAY)  # the file is not written again
    new_head = git(repo, "rev-parse", "HEAD").strip()
    assert _revision(repo, cache_dir) == new_head  # its new blob id was kept
    assert hashed == []


def test_a_damaged_or_foreign_cache_is_empty(repo: Path, cache_dir: Path,
                                             hashed: list[int]) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    for text in ('{"version": 1, "files": [', '{"version": 1, "files": {"src/app.py": 3}}',
                 '{"version": 1, "files": {"src/app.py": [1, 2, 3, 4, "' + "0" * 40 + '"]}}'):
        (cache_dir / BLOB_STATS).write_text(text, encoding="utf-8")
        hashed.clear()
        assert _revision(repo, cache_dir) == head
        assert len(hashed) == 3


def test_a_directory_without_the_marker_gets_no_cache(repo: Path, tmp_path: Path,
                                                      hashed: list[int]) -> None:
    assert _revision(repo, tmp_path) == git(repo, "rev-parse", "HEAD").strip()
    assert not (tmp_path / BLOB_STATS).exists()


def test_an_index_refresh_hashes_only_the_changed_files(repo: Path, tmp_path: Path,
                                                        hashed: list[int]) -> None:
    config = HelixConfig()
    index_dir = tmp_path / "index"
    build_index(repo, config, index_dir=index_dir)
    hashed.clear()
    head = commit(repo, "second", {"src/util.py": "X = 22\n"}, EPOCH + DAY)
    index, report = ensure_index(repo, config, index_dir=index_dir)
    assert report.repo_rev == head and index.repo_rev == head
    assert hashed == [7]  # the one changed file, not the other tracked ones
