"""Materialized trees: git's bytes, moved incrementally, never outside the target, no program
of the repository's ever run, nothing deleted that the writer did not write."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from evals.history.trees import TreeWriter, is_safe_path
from helix.core.errors import TreeError
from tests.history_helpers import EPOCH, build_history_repo, commit, git


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _git_files(repo: Path, rev: str) -> dict[str, bytes]:
    names = git(repo, "ls-tree", "-r", "--name-only", rev).split("\n")
    return {n: subprocess.run(["git", "cat-file", "blob", f"{rev}:{n}"], cwd=repo, check=True,
                              capture_output=True).stdout for n in names if n}


def test_moves_write_git_bytes_and_only_what_changed(tmp_path: Path) -> None:
    repo, shas = build_history_repo(tmp_path)
    writer = TreeWriter(repo / ".git", tmp_path / "state" / "tree")
    first = writer.move_to(shas["parser"])
    assert first == {"written": 5, "deleted": 0, "kept": 0, "refused": 0}
    assert _files(writer.target) == _git_files(repo, shas["parser"])
    (writer.target / "mine.txt").write_text("not the writer's", encoding="utf-8")

    second = writer.move_to(shas["cache"])  # one file changed
    assert second == {"written": 1, "deleted": 0, "kept": 4, "refused": 0}
    third = writer.move_to(shas["retries"])  # network.py renamed to net.py, test file kept
    assert third["deleted"] == 1 and not (writer.target / "proj" / "network.py").exists()
    expected = _git_files(repo, shas["retries"])
    assert _files(writer.target) == {**expected, "mine.txt": b"not the writer's"}

    back = writer.move_to(shas["init"])  # tests/ emptied: the directory goes too
    assert back["deleted"] == 2  # net.py, tests/test_parser.py
    assert not (writer.target / "tests").exists()
    assert (writer.target / "mine.txt").exists()  # never the writer's: never deleted
    assert _files(writer.target) == {**_git_files(repo, shas["init"]),
                                     "mine.txt": b"not the writer's"}


def test_state_survives_a_new_writer_and_a_deleted_file_is_rewritten(tmp_path: Path) -> None:
    repo, shas = build_history_repo(tmp_path)
    target = tmp_path / "tree"
    TreeWriter(repo / ".git", target).move_to(shas["cache"])
    (target / "proj" / "cache.py").unlink()  # someone removed it behind the writer's back
    state = json.loads((tmp_path / "tree.state.json").read_text(encoding="utf-8"))
    assert state["commit"] == shas["cache"] and "proj/cache.py" in state["files"]
    again = TreeWriter(repo / ".git", target)
    assert again.commit == shas["cache"]
    moved = again.move_to(shas["cache"])
    assert moved == {"written": 1, "deleted": 0, "kept": 4, "refused": 0}
    assert _files(target) == _git_files(repo, shas["cache"])


def test_no_hook_or_filter_of_the_repository_runs(tmp_path: Path) -> None:
    repo = tmp_path / "hostile"
    repo.mkdir()
    git(repo, "init", "-q")
    marker = tmp_path / "pwned"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\ncat\n", encoding="utf-8")
    script.chmod(0o755)
    first = commit(repo, "Add the module and its attributes for the filters",
                   {"mod.py": "def f():\n    return 1\n",
                    ".gitattributes": "*.py filter=evil diff=evil\n"}, EPOCH)
    second = commit(repo, "Change the module so that f returns two now",
                    {"mod.py": "def f():\n    return 2\n"}, EPOCH + 60)
    for key in ("core.fsmonitor", "filter.evil.smudge", "filter.evil.clean",
                "filter.evil.process", "diff.evil.textconv", "diff.external", "core.pager"):
        git(repo, "config", key, str(script))
    hooks = repo / ".git" / "hooks"
    for name in ("post-checkout", "post-index-change", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\necho {name} >> {marker}\n", encoding="utf-8")
        (hooks / name).chmod(0o755)
    writer = TreeWriter(repo / ".git", tmp_path / "tree")
    writer.move_to(first)
    writer.move_to(second)
    assert not marker.exists()
    assert (writer.target / "mod.py").read_text(encoding="utf-8") == "def f():\n    return 2\n"


def test_unsafe_paths_symlinks_and_modes_never_leave_the_tree(tmp_path: Path) -> None:
    repo = tmp_path / "crafted"
    repo.mkdir()
    git(repo, "init", "-q")
    base = commit(repo, "Start the project with one module in it", {"a.py": "A = 1\n"}, EPOCH)
    blob = git(repo, "hash-object", "-w", "--stdin", input_text="owned\n").strip()
    script = git(repo, "hash-object", "-w", "--stdin", input_text="#!/bin/sh\n").strip()
    sub = git(repo, "mktree", input_text=f"100644 blob {blob}\tevil\n").strip()
    link = git(repo, "hash-object", "-w", "--stdin", input_text="/etc/passwd").strip()
    top = git(repo, "mktree", input_text=(
        f"040000 tree {sub}\t..\n040000 tree {sub}\t.git\n040000 tree {sub}\t.GIT\n"
        f"100644 blob {blob}\tok.txt\n100755 blob {script}\trun.sh\n"
        f"120000 blob {link}\tpasswd\n")).strip()
    crafted = git(repo, "commit-tree", top, "-p", base, "-m", "crafted", when=EPOCH).strip()
    home = tmp_path / "home" / "state"
    writer = TreeWriter(repo / ".git", home / "tree")
    moved = writer.move_to(crafted)
    assert moved["refused"] == 3 and moved["written"] == 2
    assert sorted(_files(home)) == ["tree.state.json", "tree/ok.txt", "tree/run.sh"]
    assert not (home / "evil").exists() and not (writer.target / "passwd").exists()
    assert os.stat(writer.target / "run.sh").st_mode & 0o777 == 0o600  # never executable
    assert not is_safe_path("/abs/path") and not is_safe_path("a//b")
    assert not is_safe_path("a/./b") and is_safe_path("a/.github/b")


def test_a_link_in_the_way_is_never_followed(tmp_path: Path) -> None:
    repo, shas = build_history_repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    target = tmp_path / "tree"
    target.mkdir()
    (target / "proj").symlink_to(outside, target_is_directory=True)
    writer = TreeWriter(repo / ".git", target)
    with pytest.raises(TreeError):
        writer.move_to(shas["parser"])
    assert list(outside.iterdir()) == []
    link_root = tmp_path / "link-root"
    link_root.symlink_to(outside, target_is_directory=True)
    with pytest.raises(TreeError):
        TreeWriter(repo / ".git", link_root).move_to(shas["parser"])
    assert list(outside.iterdir()) == []


def test_a_tampered_state_file_never_deletes_outside_or_a_foreign_file(tmp_path: Path) -> None:
    repo, shas = build_history_repo(tmp_path)
    target = tmp_path / "home" / "history" / "repo" / "tree"
    writer = TreeWriter(repo / ".git", target)
    writer.move_to(shas["cache"])
    victim = tmp_path / "victim" / "file"
    victim.parent.mkdir()
    victim.write_text("not Helix's\n", encoding="utf-8")
    gone = sorted(set(_git_files(repo, shas["cache"])) - set(_git_files(repo, shas["init"])))[0]
    (target / gone).write_text("edited by the user\n", encoding="utf-8")
    state_path = target.with_name("tree.state.json")
    state = json.loads(state_path.read_text(encoding="utf-8"))
    climb = os.path.relpath(victim, target)
    state["files"].update({climb: "0" * 40, "/etc/hostname": "", "a/../../../x": ""})
    state_path.write_text(json.dumps(state), encoding="utf-8")
    TreeWriter(repo / ".git", target).move_to(shas["init"])  # `gone` is not in init
    assert victim.read_text(encoding="utf-8") == "not Helix's\n"
    assert (target / gone).read_text(encoding="utf-8") == "edited by the user\n"


def test_a_directory_helix_did_not_write_is_refused(tmp_path: Path) -> None:
    repo, shas = build_history_repo(tmp_path)
    target = tmp_path / "someone"
    target.mkdir()
    (target / "thesis.tex").write_text("years of work\n", encoding="utf-8")
    with pytest.raises(TreeError, match="not a tree Helix wrote"):
        TreeWriter(repo / ".git", target).move_to(shas["init"])
    assert (target / "thesis.tex").exists()


def _tree_bomb(repo: Path, fan_out: int, levels: int) -> str:
    """A commit whose tree names the same subtree `fan_out` times at each of `levels` levels:
    a few hundred bytes of objects, fan_out ** levels files."""
    blob = git(repo, "hash-object", "-w", "--stdin", input_text="boom\n").strip()
    tree = git(repo, "mktree", input_text=f"100644 blob {blob}\tf.txt\n").strip()
    for _ in range(levels):
        listing = "".join(f"040000 tree {tree}\td{n}\n" for n in range(fan_out))
        tree = git(repo, "mktree", input_text=listing).strip()
    return git(repo, "commit-tree", tree, "-m", "bomb", when=EPOCH).strip()


def test_a_tree_bomb_is_bounded_by_files(tmp_path: Path) -> None:
    from evals.history.trees import TreeBounds
    from helix.core.errors import TreeBoundError

    repo, _ = build_history_repo(tmp_path)
    bomb = _tree_bomb(repo, fan_out=20, levels=4)  # 160,000 files from 4 tiny trees
    writer = TreeWriter(repo / ".git", tmp_path / "tree", TreeBounds(max_files=5_000))
    with pytest.raises(TreeBoundError) as caught:
        writer.move_to(bomb)
    assert caught.value.bound == "max_files" and "5,000" in str(caught.value)
    assert not (tmp_path / "tree").exists() or not any((tmp_path / "tree").iterdir())


@pytest.mark.parametrize(("bounds", "bound"), [
    ({"max_depth": 3}, "max_depth"), ({"max_tree_bytes": 100}, "max_tree_bytes"),
    ({"max_listing_bytes": 200}, "max_listing_bytes")])
def test_depth_size_and_listing_are_bounded(tmp_path: Path, bounds: dict[str, int],
                                             bound: str) -> None:
    from evals.history.trees import TreeBounds
    from helix.core.errors import TreeBoundError

    repo, _ = build_history_repo(tmp_path)
    bomb = _tree_bomb(repo, fan_out=3, levels=4)  # 81 files 5 components deep
    writer = TreeWriter(repo / ".git", tmp_path / "tree", TreeBounds(**bounds))
    with pytest.raises(TreeBoundError) as caught:
        writer.move_to(bomb)
    assert caught.value.bound == bound


def test_a_blob_over_its_bound_is_not_written(tmp_path: Path) -> None:
    from evals.history.trees import TreeBounds

    repo, shas = build_history_repo(tmp_path)
    writer = TreeWriter(repo / ".git", tmp_path / "tree", TreeBounds(max_blob_bytes=200))
    moved = writer.move_to(shas["cache"])
    assert moved["too_large"] >= 1
    assert all(p.stat().st_size <= 200 for p in writer.target.rglob("*") if p.is_file())


def test_a_blob_the_snapshot_lacks_is_skipped_and_counted(tmp_path: Path) -> None:
    repo, shas = build_history_repo(tmp_path)
    blob = git(repo, "rev-parse", f"{shas['cache']}:proj/cache.py").strip()
    loose = repo / ".git" / "objects" / blob[:2] / blob[2:]
    packed = list((repo / ".git" / "objects" / "pack").glob("*.pack"))
    assert loose.is_file() and not packed  # a snapshot without its large files, simulated
    loose.unlink()
    writer = TreeWriter(repo / ".git", tmp_path / "tree")
    moved = writer.move_to(shas["cache"])
    assert moved["missing"] == 1
    assert not (writer.target / "proj" / "cache.py").exists()
    assert (writer.target / "proj" / "parser.py").is_file()


def test_long_messages_are_kept_bounded_and_a_huge_log_is_refused(tmp_path: Path) -> None:
    from evals.history.mine import MAX_MESSAGE_BYTES, read_history
    from helix.core.errors import ConfigError

    repo, _ = build_history_repo(tmp_path)
    message = tmp_path / "message.txt"
    message.write_text("Fix the parser\n\n" + "word " * 40_000, encoding="utf-8")
    (repo / "notes.txt").write_text("x\n", encoding="utf-8")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-q", "-F", str(message), when=EPOCH + 10**6)
    commits = read_history(repo / ".git", "HEAD")
    assert max(len(c.message.encode()) for c in commits) <= MAX_MESSAGE_BYTES
    with pytest.raises(ConfigError, match="--since"):
        read_history(repo / ".git", "HEAD", max_log_bytes=10_000)
