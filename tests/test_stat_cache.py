"""The walk keeps no text and re-reads no unchanged file (issue 13): the stat cache spares the
freshness check of every command from hashing the whole repository, a walked file's text is
read when it is parsed, and what the index records is always the content it parsed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import indexers.walker as walker_mod
from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import FileChangedError
from helix.core.hashing import digest
from helix.core.ports import FakeEmbedder
from indexers import cache_file
from indexers.build import build_index, ensure_index
from indexers.stat_cache import WALK_STATS
from indexers.store import MARKER, IndexStore
from indexers.walker import walk
from tests.index_fixtures import write

SETTINGS = IndexSettings()
IGNORE_FILES = {".gitignore", ".helixignore", "exclude"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, "src/app.py", "def main():\n    return 1\n")
    write(root, "src/util.py", "X = 1\n")
    write(root, "docs/guide.md", "# Guide\n\nHow.\n")
    write(root, ".gitignore", "*.log\n")
    return root


@pytest.fixture
def stats_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "idx"
    directory.mkdir()
    (directory / MARKER).write_text("helix index directory v1\n", encoding="utf-8")
    return directory


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths the walker opened (or tried to: ignore files are looked for in every
    directory) for their content."""
    seen: list[str] = []
    real = walker_mod.read_bytes

    def counting(path: str, limit: int, follow: bool) -> bytes:
        seen.append(os.path.basename(path))
        return real(path, limit, follow)

    monkeypatch.setattr(walker_mod, "read_bytes", counting)
    return seen


def _settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test a moment ago count as settled (no racy margin)."""
    monkeypatch.setattr(cache_file, "RACY_S", 0.0)


def test_unchanged_files_are_not_read_again(repo: Path, stats_dir: Path, reads: list[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(monkeypatch)
    first = walk(repo, SETTINGS, stats_dir)
    assert {"app.py", "util.py", "guide.md"} <= set(reads)
    assert (stats_dir / WALK_STATS).is_file()
    reads.clear()
    second = walk(repo, SETTINGS, stats_dir)
    assert set(reads) <= IGNORE_FILES  # only ignore files, read for their rules
    assert second == first == walk(repo, SETTINGS)  # the same result as a walk without it
    assert [wf.read()[1] for wf in second.files if wf.record.path == "src/app.py"] == [
        "def main():\n    return 1\n"]


def test_a_changed_file_is_hashed_again_even_with_size_and_mtime_restored(
        repo: Path, stats_dir: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(monkeypatch)
    walk(repo, SETTINGS, stats_dir)
    target = repo / "src" / "util.py"
    before = target.stat()
    time.sleep(0.01)
    target.write_text("Y = 2\n", encoding="utf-8")  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime put back
    reads.clear()
    again = {wf.record.path: wf.record for wf in walk(repo, SETTINGS, stats_dir).files}
    assert "util.py" in reads
    assert again["src/util.py"].content_hash == digest(b"Y = 2\n")


def test_recently_modified_files_are_not_trusted(repo: Path, stats_dir: Path,
                                                 reads: list[str]) -> None:
    """A file written within the racy margin of the walk that hashed it could change again
    with no stat field moving: it is hashed on every walk until it has settled."""
    walk(repo, SETTINGS, stats_dir)
    reads.clear()
    walk(repo, SETTINGS, stats_dir)
    assert {"app.py", "util.py", "guide.md"} <= set(reads)


def test_other_settings_or_root_start_empty(repo: Path, stats_dir: Path, reads: list[str],
                                            monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    _settled(monkeypatch)
    walk(repo, SETTINGS, stats_dir)
    reads.clear()
    walk(repo, IndexSettings(max_file_bytes=10_000), stats_dir)
    assert "app.py" in reads
    copy = tmp_path / "copy"
    write(copy, "src/app.py", "def main():\n    return 1\n")
    reads.clear()
    walk(copy, IndexSettings(max_file_bytes=10_000), stats_dir)
    assert "app.py" in reads


def test_nothing_is_written_into_a_directory_helix_does_not_own(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(monkeypatch)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    walk(repo, SETTINGS, foreign)
    assert list(foreign.iterdir()) == []


def test_a_damaged_cache_is_ignored(repo: Path, stats_dir: Path, reads: list[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(monkeypatch)
    first = walk(repo, SETTINGS, stats_dir)
    (stats_dir / WALK_STATS).write_text('{"version": 1, "files": [', encoding="utf-8")
    reads.clear()
    assert walk(repo, SETTINGS, stats_dir) == first and "app.py" in reads


def test_the_walk_holds_no_text(repo: Path) -> None:
    walked = walk(repo, SETTINGS)
    assert all(set(wf.__dict__) == {"record"} for wf in walked.files)
    assert "text" not in walker_mod.WalkedFile.model_fields


def test_a_file_edited_after_the_walk_is_read_with_its_new_record(repo: Path) -> None:
    walked = {wf.record.path: wf for wf in walk(repo, SETTINGS).files}
    write(repo, "src/util.py", "Y = 22\n")
    record, text = walked["src/util.py"].read()
    assert text == "Y = 22\n" and record.content_hash == digest(b"Y = 22\n")
    assert record.size == 7 and record.path == "src/util.py"
    same, _ = walked["src/app.py"].read()
    assert same is walked["src/app.py"].record


@pytest.mark.parametrize("change", ["binary", "gone", "too_large", "link_out"])
def test_a_file_that_turned_into_what_the_walk_skips_is_an_error(
        change: str, repo: Path, tmp_path: Path) -> None:
    walked = {wf.record.path: wf
              for wf in walk(repo, IndexSettings(max_file_bytes=100)).files}
    target = repo / "src" / "util.py"
    outside = write(tmp_path, "outside/secret.py", "TOKEN = 1\n")
    if change == "binary":
        target.write_bytes(b"\0\1\2")
    elif change == "gone":
        target.unlink()
    elif change == "too_large":
        target.write_text("x" * 500, encoding="utf-8")
    else:
        target.unlink()
        os.symlink(outside, target)
    with pytest.raises(FileChangedError, match=r"src/util\.py"):
        walked["src/util.py"].read()


def test_a_directory_swapped_for_a_link_out_of_the_root_is_never_read(
        repo: Path, tmp_path: Path) -> None:
    walked = {wf.record.path: wf for wf in walk(repo, SETTINGS).files}
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, "util.py", "LEAKED = 1\n")
    (repo / "src" / "util.py").unlink()
    (repo / "src" / "app.py").unlink()
    (repo / "src").rmdir()
    os.symlink(elsewhere, repo / "src")
    with pytest.raises(FileChangedError):
        walked["src/util.py"].read()


def test_the_index_records_the_content_it_parsed(repo: Path, tmp_path: Path) -> None:
    """A file edited between the walk and its parse is indexed, and recorded in the manifest,
    with the bytes it was parsed from: the next freshness check agrees with the index."""
    config = HelixConfig()
    edited = False

    def progress(stage: str, done: int, total: int) -> None:
        nonlocal edited
        if stage == "parse" and not edited:  # after the first file, before the others
            write(repo, "src/util.py", "def late_addition():\n    return 2\n")
            edited = True

    report = build_index(repo, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder(),
                         progress=progress)
    assert edited and not report.noop
    store = IndexStore(tmp_path / "idx")
    generation = store.current_dir()
    assert generation is not None
    manifest = store.read_manifest(generation)
    assert manifest.files["src/util.py"] == digest(b"def late_addition():\n    return 2\n")
    index, again = ensure_index(repo, config, index_dir=tmp_path / "idx",
                                embedder=FakeEmbedder())
    assert again.noop and index.find_definitions("late_addition")


def test_a_noop_freshness_check_reads_no_unchanged_file(
        repo: Path, tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(monkeypatch)
    config = HelixConfig()
    build_index(repo, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    reads.clear()
    _, report = ensure_index(repo, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    assert report.noop and set(reads) <= IGNORE_FILES
    write(repo, "src/util.py", "Z = 3\n")
    reads.clear()
    index, report = ensure_index(repo, config, index_dir=tmp_path / "idx",
                                 embedder=FakeEmbedder())
    assert report.modified == ("src/util.py",) and reads.count("util.py") >= 1
    assert "app.py" not in reads and index.find_definitions("Z") == []


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Directories the walker listed (rather than replayed from the cache)."""
    seen: list[str] = []
    real = walker_mod.list_dir

    def counting(real_dir: str) -> list[os.DirEntry[str]]:
        seen.append(os.path.basename(real_dir))
        return real(real_dir)

    monkeypatch.setattr(walker_mod, "list_dir", counting)
    return seen


def test_unchanged_directories_are_not_listed_again(
        repo: Path, stats_dir: Path, listings: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(monkeypatch)
    write(repo, "src/debug.log", "ignored\n")
    write(repo, ".env", "SECRET=1\n")
    first = walk(repo, SETTINGS, stats_dir)
    assert {"repo", "src", "docs"} <= set(listings)
    listings.clear()
    again = walk(repo, SETTINGS, stats_dir)
    assert listings == [] and again == first  # same files, same skipped entries
    assert again.skipped == {"ignored": ("src/debug.log",), "secret": (".env",)}


def test_a_listing_changes_with_an_added_file_or_new_ignore_rules(
        repo: Path, stats_dir: Path, listings: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(monkeypatch)
    walk(repo, SETTINGS, stats_dir)
    write(repo, "src/new.py", "N = 1\n")  # the directory's mtime moves
    found = {wf.record.path for wf in walk(repo, SETTINGS, stats_dir).files}
    assert "src/new.py" in found and "src" in listings
    write(repo, "docs/.gitignore", "guide.md\n")  # docs/ changes; src/ keeps its listing
    listings.clear()
    result = walk(repo, SETTINGS, stats_dir)
    assert "docs/guide.md" not in {wf.record.path for wf in result.files}
    assert result.skipped["ignored"] == ("docs/guide.md",)
    write(repo, ".gitignore", "*.log\nsrc/util.py\n")  # a rule from above the directory
    listings.clear()
    result = walk(repo, SETTINGS, stats_dir)
    assert "src/util.py" in result.skipped["ignored"]
    assert result == walk(repo, SETTINGS)


def test_links_in_a_replayed_directory_are_resolved_again(
        repo: Path, stats_dir: Path, tmp_path: Path, listings: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """src/ is replayed (nothing in it changed), but its link now leads out of the root (a
    directory on its path was swapped for a link elsewhere): it is resolved again, skipped."""
    _settled(monkeypatch)
    write(repo, "data/real.txt", "inside\n")
    os.symlink("../data/real.txt", repo / "src" / "link.txt")
    assert "src/link.txt" in {wf.record.path for wf in walk(repo, SETTINGS, stats_dir).files}
    write(tmp_path, "outside/real.txt", "outside\n")
    (repo / "data" / "real.txt").unlink()
    (repo / "data").rmdir()
    os.symlink(tmp_path / "outside", repo / "data")
    listings.clear()
    result = walk(repo, SETTINGS, stats_dir)
    assert "src" not in listings  # replayed
    assert "src/link.txt" not in {wf.record.path for wf in result.files}
    assert result.skipped["symlink_outside"] == ("data", "src/link.txt")
    assert result == walk(repo, SETTINGS)


def test_a_second_walk_in_the_process_reuses_what_it_built(
        repo: Path, stats_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within one process (a chat checks freshness before every question) an unchanged,
    trusted file's record is reused as is; a changed one is hashed again."""
    _settled(monkeypatch)
    walk(repo, SETTINGS, stats_dir)  # hashes, records
    second = {wf.record.path: wf for wf in walk(repo, SETTINGS, stats_dir).files}  # trusted
    third = {wf.record.path: wf for wf in walk(repo, SETTINGS, stats_dir).files}
    assert all(third[p] is second[p] for p in second)
    time.sleep(0.01)
    write(repo, "src/util.py", "Y = 22\n")
    fourth = {wf.record.path: wf for wf in walk(repo, SETTINGS, stats_dir).files}
    assert fourth["src/util.py"].record.content_hash == digest(b"Y = 22\n")
    assert fourth["src/app.py"] is second["src/app.py"]
    assert walk(repo, SETTINGS, stats_dir) == walk(repo, SETTINGS)
