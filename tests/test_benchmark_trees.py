"""benchmarks/_trees.py: the one copy of a measured tree (the standard library, a package)
that first_answer_bench, index_bench and parse_bench make before measuring it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import _trees  # noqa: E402

USERS = ("first_answer_bench", "index_bench", "parse_bench")


def _tree(root: Path) -> Path:
    source = root / "lib"
    for name in ("a.py", "__pycache__/a.pyc", "sub/b.py", "sub/__pycache__/b.pyc",
                 "test/t.py", "sub/test/kept.py", "site-packages/p.py", "sub/site-packages.py"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(name, encoding="utf-8")
    os.symlink("a.py", source / "link.py")
    return source


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if not p.is_dir())


def test_copy_leaves_out_pycache_everywhere_and_excluded_names_at_the_top(
        tmp_path: Path) -> None:
    source = _tree(tmp_path)
    target = tmp_path / "copy"
    _trees.copy_tree(source, target, _trees.STDLIB_EXCLUDED_TOP)
    assert _files(target) == ["a.py", "link.py", "sub/b.py", "sub/site-packages.py",
                              "sub/test/kept.py"]
    assert (target / "link.py").is_symlink() and os.readlink(target / "link.py") == "a.py"
    assert (target / "sub" / "b.py").read_text(encoding="utf-8") == "sub/b.py"


def test_copy_with_nothing_excluded_keeps_all_but_pycache(tmp_path: Path) -> None:
    source = _tree(tmp_path)
    _trees.copy_tree(source, tmp_path / "all")
    assert _files(tmp_path / "all") == [f for f in _files(source) if "__pycache__" not in f]


def test_the_benchmarks_copy_through_it() -> None:
    for name in USERS:
        text = (BENCHMARKS / f"{name}.py").read_text(encoding="utf-8")
        assert "from _trees import" in text and "copytree" not in text, name
