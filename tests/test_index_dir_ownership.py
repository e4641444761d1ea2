"""Helix deletes only what it created (issue 9, S1 item 4): an index directory carries Helix's
marker; a non-empty directory without it, the repository root and any directory containing the
root are refused in one line (exit 2); an index an older Helix made (only Helix's names in it)
is adopted, not lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run

from helix.core.config import HelixConfig
from helix.core.errors import BadPathError
from helix.core.paths import index_dir_for
from helix.core.ports import FakeEmbedder
from indexers.build import build_index
from indexers.store import CURRENT, MARKER, IndexStore
from tests.index_fixtures import write_repo

CONFIG = HelixConfig()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "repo")


def _tree(directory: Path) -> dict[str, bytes | None]:
    return {p.relative_to(directory).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(directory.rglob("*"))}


def _users_dir(tmp_path: Path) -> Path:
    mine = tmp_path / "mine"
    (mine / "gen-notes").mkdir(parents=True)
    (mine / "gen-notes" / "ideas.md").write_text("keep me\n", encoding="utf-8")
    (mine / "tmp-work.txt").write_text("draft\n", encoding="utf-8")
    (mine / "gen-0123456789ab").mkdir()  # even a name shaped like Helix's
    return mine


@pytest.mark.parametrize("command", ["index", "status", "find", "search"])
def test_users_non_empty_directory_is_refused_and_untouched(
        command: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = _users_dir(tmp_path)
    before = _tree(mine)
    argv = {"index": ["index", str(repo), "--no-embed"], "status": ["status", str(repo)],
            "find": ["find", "fetch", str(repo)],
            "search": ["search", "retry", str(repo), "--no-embed"]}[command]
    code, out, err = run([*argv, "--index-dir", str(mine)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"helix: refusing index directory {mine}: it is not empty and Helix "
                          f"did not create it (no {MARKER} marker;")
    assert len(err.strip().splitlines()) == 1
    assert _tree(mine) == before  # nothing deleted, nothing added (no marker, no lock)


@pytest.mark.parametrize("where", ["root", "parent", "grandparent"])
def test_repository_root_and_its_ancestors_are_refused(
        where: str, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = {"root": repo, "parent": repo.parent, "grandparent": repo.parent.parent}[where]
    (repo / "tmp-scratch").mkdir()
    (repo / "tmp-scratch" / "x.txt").write_text("mine\n", encoding="utf-8")
    before = _tree(repo)
    code, _, err = run(["index", str(repo), "--no-embed", "--index-dir", str(target)], capsys)
    assert code == 2
    reason = "it is the repository root" if where == "root" else "it contains the repository"
    assert err.startswith(f"helix: refusing index directory {target}: {reason}")
    assert len(err.strip().splitlines()) == 1
    assert _tree(repo) == before
    assert not (target / MARKER).exists() and not (target / "lock").exists()


def test_repository_root_refused_by_the_library_too(repo: Path) -> None:
    with pytest.raises(BadPathError, match="repository root"):
        build_index(repo, CONFIG, index_dir=repo, embedder=FakeEmbedder())
    assert not (repo / MARKER).exists() and not (repo / CURRENT).exists()


def test_owned_directory_is_pruned_as_before(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert (index_dir / MARKER).read_text(encoding="utf-8").startswith("helix index directory v1")
    stale = index_dir / "tmp-00000000abcd"  # a killed writer's leftover
    stale.mkdir()
    (stale / "chunks.json").write_text("[]", encoding="utf-8")
    (index_dir / "notes.txt").write_text("a user's file in Helix's directory\n",
                                         encoding="utf-8")
    (index_dir / "gen-notes").mkdir()
    for n in range(3):
        (repo / "pkg" / "util.py").write_text(f"X = {n}\n", encoding="utf-8")
        build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    gens = sorted(p.name for p in index_dir.glob("gen-*") if p.name != "gen-notes")
    assert len(gens) == 2 and (index_dir / CURRENT).read_text().strip() in gens
    assert not stale.exists()
    # names Helix never makes are never deleted, even in its own directory
    assert (index_dir / "notes.txt").exists() and (index_dir / "gen-notes").is_dir()


def test_new_and_empty_directories_are_claimed(repo: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    report = build_index(repo, CONFIG, index_dir=empty, embedder=FakeEmbedder())
    assert report.files_indexed == 5 and (empty / MARKER).is_file()
    new = tmp_path / "a" / "b" / "new"
    build_index(repo, CONFIG, index_dir=new, embedder=FakeEmbedder())
    assert (new / MARKER).is_file()


def test_default_location_is_marked(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["index", str(repo), "--no-embed"], capsys)
    assert code == 0, err
    assert IndexStore(index_dir_for(repo)).owned()


def test_index_made_before_the_marker_is_adopted(repo: Path, helix_home: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """An index an older Helix made under $HELIX_HOME (CURRENT, lock, gen-*, verified.json,
    no marker) is adopted: marked, and still current (nothing rebuilt)."""
    first = build_index(repo, CONFIG, embedder=FakeEmbedder())
    (repo / "pkg" / "util.py").write_text("X = 1\n", encoding="utf-8")
    build_index(repo, CONFIG, embedder=FakeEmbedder())  # a previous generation, too
    index_dir = index_dir_for(repo)
    (index_dir / MARKER).unlink()
    assert len(list(index_dir.glob("gen-*"))) == 2 and first.index_rev
    code, out, err = run(["status", str(repo)], capsys)  # reading does not need the marker
    assert code == 0 and "index: fresh" in out, err
    assert not (index_dir / MARKER).exists()
    again = build_index(repo, CONFIG, embedder=FakeEmbedder())
    assert again.noop and (index_dir / MARKER).is_file()


def test_old_index_with_a_foreign_entry_is_not_adopted(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    (index_dir / MARKER).unlink()
    (index_dir / "tmp-work.txt").write_text("draft\n", encoding="utf-8")
    with pytest.raises(BadPathError, match=r"not empty and Helix did not create it .*tmp-work"):
        build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert (index_dir / "tmp-work.txt").read_text(encoding="utf-8") == "draft\n"


def test_status_of_a_missing_directory_creates_nothing(repo: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["status", str(repo), "--index-dir", str(tmp_path / "nope")], capsys)
    assert code == 0 and "not indexed" in out
    assert not (tmp_path / "nope").exists()


def test_a_file_is_not_an_index_directory(repo: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "file.txt"
    target.write_text("mine\n", encoding="utf-8")
    code, _, err = run(["index", str(repo), "--index-dir", str(target)], capsys)
    assert code == 2 and err.startswith("helix: ") and len(err.strip().splitlines()) == 1
    assert target.read_text(encoding="utf-8") == "mine\n"


def test_a_users_file_inside_an_old_generation_is_kept(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    first = index_dir / (index_dir / CURRENT).read_text().strip()
    (first / "my-notes.txt").write_text("mine\n", encoding="utf-8")
    for n in range(3):
        (repo / "pkg" / "util.py").write_text(f"X = {n}\n", encoding="utf-8")
        build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert (first / "my-notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in first.iterdir()) == ["my-notes.txt"]  # Helix's parts gone


def test_a_garbled_marker_is_written_again(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    (index_dir / MARKER).write_text("\x00garbled\n", encoding="utf-8")
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert IndexStore(index_dir).owned()


@pytest.mark.parametrize("name", ["lock", CURRENT])
def test_lock_or_current_replaced_by_a_directory_is_named_with_its_fix(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], name: str) -> None:
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    assert run(["index", str(repo)], capsys)[0] == 0
    index_dir = index_dir_for(repo)
    target = index_dir / name
    target.unlink()
    target.mkdir()
    (target / "inside").write_text("x\n", encoding="utf-8")
    code, _, err = run(["index", str(repo)], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert f"rm -r '{target}'" in err and "internal error" not in err
    assert (target / "inside").exists()  # not Helix's to delete


def test_the_fix_for_a_misplaced_file_survives_a_long_home(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Under a long $HELIX_HOME the one-line error is elided to its bound: the command that
    fixes it (its end) is still whole, not cut in the middle of its path."""
    home = tmp_path / ("h" * max(1, 130 - len(str(tmp_path))))
    monkeypatch.setenv("HELIX_HOME", str(home))
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    assert run(["index", str(repo)], capsys)[0] == 0
    target = index_dir_for(repo) / "CURRENT"
    target.unlink()
    target.mkdir()
    code, _, err = run(["index", str(repo)], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.strip().endswith(f"rm -r '{target}'"), err
