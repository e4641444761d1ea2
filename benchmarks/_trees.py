"""The source trees benchmarks measure, copied into a temporary folder first (a benchmark
indexes and edits its copy; the installed tree is never touched).

    copy_tree(source, target, excluded_top)
                         copy `source` to `target` (symbolic links copied as links), leaving
                         out every __pycache__ folder and the top-level entries named in
                         `excluded_top`
    STDLIB_EXCLUDED_TOP  what the standard library's folder holds that is not the standard
                         library's code: site-packages (installed packages) and test (its own
                         test suite)

A script run as `python benchmarks/NAME.py` imports this as `_trees` (its folder is first on
sys.path).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

STDLIB_EXCLUDED_TOP = ("site-packages", "test")


def copy_tree(source: Path, target: Path, excluded_top: Iterable[str] = ()) -> None:
    """Copy `source` to `target` without __pycache__ anywhere or `excluded_top` at its top."""
    top_names = frozenset(excluded_top)

    def ignore(directory: str, names: list[str]) -> list[str]:
        top = Path(directory) == source
        return [n for n in names if n == "__pycache__" or (top and n in top_names)]

    shutil.copytree(source, target, ignore=ignore, symlinks=True)
