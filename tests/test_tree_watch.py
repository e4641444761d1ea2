"""A serving process walks a repository again only when a watch saw something change
(`indexers.tree_watch`); every change made before a walk starts is seen by it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from helix.core.config import IndexSettings
from indexers import tree_watch, walker
from indexers.walker import walk

SETTINGS = IndexSettings()


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "core.py").write_text("def run():\n    return 1\n")
    (repo / "README.md").write_text("# Demo\n")
    stats = tmp_path / "index"
    stats.mkdir()
    tree_watch.enable()
    yield repo, stats
    tree_watch.disable()


def _walk(repo: Path, stats: Path) -> dict[str, str]:
    return {w.record.path: w.record.content_hash for w in walk(repo, SETTINGS, stats).files}


def _watch(repo: Path, stats: Path) -> tree_watch.TreeWatch:
    found = tree_watch.for_walk(os.path.realpath(repo), SETTINGS.model_dump_json(), str(stats))
    assert found is not None
    return found


def test_an_unchanged_tree_is_not_walked_again(watched: tuple[Path, Path],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo, stats = watched
    first = _walk(repo, stats)
    listed: list[str] = []
    real_list = walker.list_dir
    monkeypatch.setattr(walker, "list_dir", lambda d: listed.append(d) or real_list(d))
    assert _walk(repo, stats) == first
    assert _watch(repo, stats).kept == 1 and listed == []


@pytest.mark.parametrize("change", ["edit", "new_dir", "remove", "ignore", "exclude", "chmod"])
def test_every_change_before_a_walk_is_seen(watched: tuple[Path, Path], change: str) -> None:
    repo, stats = watched
    before = _walk(repo, stats)
    core = repo / "pkg" / "core.py"
    if change == "edit":
        core.write_text("def run():\n    return 2\n")
    elif change == "new_dir":
        (repo / "pkg" / "sub").mkdir()
        (repo / "pkg" / "sub" / "more.py").write_text("X = 1\n")
    elif change == "remove":
        core.unlink()
    elif change == "ignore":
        (repo / "pkg" / ".gitignore").write_text("core.py\n")
    elif change == "exclude":
        (repo / ".git" / "info").mkdir(parents=True)
        (repo / ".git" / "info" / "exclude").write_text("README.md\n")
    else:
        os.chmod(core, 0)
    after = _walk(repo, stats)
    assert _watch(repo, stats).kept == 0
    if change == "chmod" and os.geteuid() == 0:
        return  # root reads it anyway: the point is that it was walked again (kept == 0)
    assert after != before


def test_a_linked_file_outside_the_walk_is_watched_through_its_target(
        watched: tuple[Path, Path]) -> None:
    repo, stats = watched
    (repo / "vendor").mkdir()
    (repo / "vendor" / "real.py").write_text("A = 1\n")
    (repo / ".gitignore").write_text("vendor/\n")
    (repo / "pkg" / "alias.py").symlink_to(repo / "vendor" / "real.py")
    before = _walk(repo, stats)
    (repo / "vendor" / "real.py").write_text("A = 2\n")
    assert _walk(repo, stats)["pkg/alias.py"] != before["pkg/alias.py"]


def test_a_change_during_the_walk_makes_the_next_walk_walk(
        watched: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    repo, stats = watched
    real_visit = walker._visit_file
    touched: list[str] = []

    def visit(state: object, target: str, rel: str, follow: bool) -> None:
        if not touched:  # another program writes while the walk is under way
            touched.append(rel)
            (repo / "README.md").write_text("# Changed mid-walk\n")
        real_visit(state, target, rel, follow)  # type: ignore[arg-type]

    monkeypatch.setattr(walker, "_visit_file", visit)
    _walk(repo, stats)
    monkeypatch.setattr(walker, "_visit_file", real_visit)
    _walk(repo, stats)
    assert _watch(repo, stats).kept == 0  # walked again, not trusted


def test_a_hard_linked_file_turns_the_watch_down(watched: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    """A write through the other link raises no event in the repository's directories."""
    repo, stats = watched
    os.link(repo / "pkg" / "core.py", tmp_path / "elsewhere.py")
    first = _walk(repo, stats)
    (tmp_path / "elsewhere.py").write_text("def run():\n    return 3\n")
    assert _walk(repo, stats) != first
    assert _watch(repo, stats).kept == 0


def test_mount_points_are_read_as_the_kernel_writes_them() -> None:
    assert tree_watch.unescape_mount("/srv/my\\040repo") == "/srv/my repo"
    assert tree_watch.unescape_mount("/srv/dépôt") == "/srv/dépôt"  # UTF-8 kept as is
    assert not tree_watch.local_tree("/srv/dépôt/x", [("/", "ext4"), ("/srv/dépôt", "nfs")])


def test_a_file_system_not_known_to_be_local_is_always_walked(tmp_path: Path) -> None:
    assert tree_watch.local_tree("/srv/repo", [("/", "ext4"), ("/srv", "tmpfs")])
    assert not tree_watch.local_tree("/srv/repo", [("/", "ext4"), ("/srv", "nfs4")])
    assert not tree_watch.local_tree("/srv/repo", [("/", "ext4"), ("/srv/repo/data", "fuse")])
    assert not tree_watch.local_tree("/srv/repo", [])
    # mounted over: the later of two mounts at one point is the one seen
    assert not tree_watch.local_tree("/srv/repo", [("/", "ext4"), ("/srv", "ext4"),
                                                  ("/srv", "nfs")])
    assert tree_watch.local_tree("/srv/repo", [("/", "ext4"), ("/srv", "nfs"), ("/srv/", "xfs")])
    watch = tree_watch.TreeWatch(str(tmp_path), mounts=lambda: [("/", "nfs")])
    watch.begin()
    watch.finish(object())
    assert watch.unchanged() is None


def test_without_enabling_every_walk_walks(tmp_path: Path) -> None:
    tree_watch.disable()
    assert tree_watch.for_walk(str(tmp_path), "{}", str(tmp_path)) is None
