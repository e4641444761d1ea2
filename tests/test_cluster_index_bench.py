from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import cluster_index_bench  # noqa: E402


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


def test_a_snapshot_missing_an_object_of_its_head_tree_is_not_counted(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "a.py").write_text("A = 1\n", encoding="utf-8")
    (work / "b.py").write_text("B = 2\n", encoding="utf-8")
    _git(tmp_path, "init", "-q", str(work))
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "one")
    bare = tmp_path / "repo"
    _git(tmp_path, "clone", "-q", "--bare", "--no-local", str(work), str(bare))
    assert cluster_index_bench._complete(bare)
    blob = _git(work, "rev-parse", "HEAD:pkg/a.py")
    loose = bare / "objects" / blob[:2] / blob[2:]
    if not loose.is_file():  # packed by the clone: unpack, then drop the one object
        for pack in (bare / "objects" / "pack").glob("*.pack"):
            moved = tmp_path / pack.name
            pack.rename(moved)
            pack.with_suffix(".idx").unlink()
            subprocess.run(["git", "unpack-objects", "-q"], cwd=bare, stdin=moved.open("rb"),
                           check=True)
    loose.unlink()
    assert not cluster_index_bench._complete(bare)
    assert not cluster_index_bench._complete(tmp_path / "nothing")
