"""An index holds no absolute path: an index directory copied (or a checkout moved, with
`--index-dir` naming its index) is current for a root with the same files, and its report names
the root and the directory it is used for. tests/_index_cache.py relies on it to serve a
module's repeated builds from one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helix.core.config import HelixConfig, IndexSettings
from indexers.build import build_index, ensure_index, index_status
from tests import _index_cache

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "matrix_repo"
CONFIG = HelixConfig(index=IndexSettings(embed_enabled=False))


def test_a_copied_index_is_current_for_the_same_files_elsewhere(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "repo", tmp_path / "b" / "repo"
    shutil.copytree(FIXTURE, first)
    built = build_index(first, CONFIG, index_dir=tmp_path / "idx-a")
    shutil.copytree(first, second)
    shutil.copytree(tmp_path / "idx-a", tmp_path / "idx-b")
    index, report = ensure_index(second, CONFIG, index_dir=tmp_path / "idx-b")
    assert report.noop and report.index_rev == built.index_rev
    assert (report.root, report.index_dir) == (str(second), str(tmp_path / "idx-b"))
    assert index.find_definitions("OpticalCavity")
    again = build_index(second, CONFIG, index_dir=tmp_path / "idx-b")
    assert again.noop and again.root == str(second)
    status = index_status(second, CONFIG, index_dir=tmp_path / "idx-b")
    assert status.root == str(second) and status.index_dir == str(tmp_path / "idx-b")
    (second / "extra.py").write_text("def extra():\n    return 1\n", encoding="utf-8")
    changed = build_index(second, CONFIG, index_dir=tmp_path / "idx-b")
    assert changed.added == ("extra.py",) and changed.files_parsed == 1


@pytest.mark.usefixtures("cached_builds")
def test_a_repeated_build_is_a_copy_no_test_sees_another_change(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    shutil.copytree(FIXTURE, first)
    shutil.copytree(FIXTURE, second)
    (first / "mine.py").write_text("def only_here():\n    return 0\n", encoding="utf-8")
    (second / "mine.py").write_text("def only_here():\n    return 0\n", encoding="utf-8")
    hits = len(_index_cache.HITS)
    built = build_index(first, CONFIG, index_dir=tmp_path / "i1")
    copied = build_index(second, CONFIG, index_dir=tmp_path / "i2")
    assert len(_index_cache.HITS) == hits + 1
    assert copied.index_rev == built.index_rev and copied.files_parsed == built.files_parsed
    assert copied.root == str(second) and copied.index_dir == str(tmp_path / "i2")
    # a change to one copy is that copy's: a third build from nothing is the first build's
    (second / "mine.py").write_text("def changed_here():\n    return 1\n", encoding="utf-8")
    assert build_index(second, CONFIG, index_dir=tmp_path / "i2").modified == ("mine.py",)
    third = tmp_path / "three"
    shutil.copytree(first, third)
    index, report = ensure_index(third, CONFIG, index_dir=tmp_path / "i3")
    assert report.index_rev == built.index_rev and index.find_definitions("only_here")
    assert not index.find_definitions("changed_here")
    # other content or another configuration is built
    (third / "mine.py").write_text("def third():\n    return 3\n", encoding="utf-8")
    assert build_index(third, CONFIG, index_dir=tmp_path / "i4").files_parsed > 1
    other = CONFIG.model_copy(update={"index": CONFIG.index.model_copy(
        update={"max_file_bytes": CONFIG.index.max_file_bytes - 1})})
    hits = len(_index_cache.HITS)
    build_index(first, other, index_dir=tmp_path / "i5")
    assert len(_index_cache.HITS) == hits
