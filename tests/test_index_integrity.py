"""An index part edited in place is detected (issue 9, S1 item 5): even with its size and
mtime restored, `status` says which part is wrong, `index` rebuilds, and `ask` rebuilds (with a
one-line note) instead of failing."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from cli_helpers import run

from helix.core.config import HelixConfig
from helix.core.errors import IndexCorruptError
from helix.core.paths import index_dir_for
from helix.core.ports import FakeEmbedder
from indexers import part_stats
from indexers.build import build_index
from indexers.reader import Index
from indexers.store import CURRENT, IndexStore
from tests.index_fixtures import write_repo

QUESTION = "where is the retry policy decided?"


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    return write_repo(tmp_path / "repo")


def _edit_in_place(path: Path) -> None:
    """Break the part (invalid JSON) keeping its size, inode and mtime, as an editor or a
    disk error could."""
    before = path.stat()
    time.sleep(0.02)  # past the clock tick of the build: the kernel's ctime moves on
    with open(path, "r+b") as handle:
        handle.seek(before.st_size - 1)
        handle.write(b"X")  # the closing bracket of the rows
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino)


def _defs_part(repo: Path) -> Path:
    index_dir = index_dir_for(repo)
    return index_dir / (index_dir / CURRENT).read_text().strip() / "rows.sqlite"


def test_status_index_and_ask_after_an_in_place_edit(repo: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["index", str(repo)], capsys)
    assert code == 0, err
    _edit_in_place(_defs_part(repo))

    code, out, _ = run(["status", str(repo), "--json"], capsys)
    status = json.loads(out)
    assert code == 0 and status["fresh"] is False
    assert "rows.sqlite does not match its digest" in status["problem"]
    code, out, _ = run(["status", str(repo)], capsys)
    assert out.startswith("index: stale (index part rows.sqlite does not match its digest")

    code, out, err = run(["index", str(repo)], capsys)
    assert code == 0, err
    assert "up to date" not in out and "corrupt" in out and "rows.sqlite" in out
    code, out, _ = run(["status", str(repo)], capsys)
    assert out.startswith("index: fresh")

    _edit_in_place(_defs_part(repo))
    code, out, err = run(["ask", QUESTION, "--repo", str(repo), "--dry-run", "--json"], capsys)
    assert code == 0, err
    assert any(e["path"] == "pkg/util.py" for e in json.loads(out)["evidence"])
    assert ("helix: index was corrupt (index part rows.sqlite does not match its digest); "
            "rebuilding from scratch") in err.splitlines()


def test_old_part_stats_shape_is_checked_once_then_trusted(repo: Path, tmp_path: Path) -> None:
    """A record of (size, mtime, inode) only (written by an older Helix) is no shortcut: the
    next no-op hashes every part once and records the four-field stat."""
    index_dir = tmp_path / "idx"
    config = HelixConfig()
    build_index(repo, config, index_dir=index_dir, embedder=FakeEmbedder())
    generation = (index_dir / CURRENT).read_text().strip()
    recorded = part_stats.load(index_dir, generation)
    assert recorded and all(len(stat) == 4 for stat in recorded.values())
    part_stats.save(index_dir, generation, {k: v[:3] for k, v in recorded.items()})
    assert build_index(repo, config, index_dir=index_dir, embedder=FakeEmbedder()).noop
    assert part_stats.load(index_dir, generation) == recorded


def test_a_corrupt_part_met_while_answering_says_what_to_run(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    config = HelixConfig()
    build_index(repo, config, index_dir=index_dir, embedder=FakeEmbedder())
    generation = index_dir / (index_dir / CURRENT).read_text().strip()
    raw = bytearray((generation / "rows.sqlite").read_bytes())
    raw[-3] = ord("X") if raw[-3] != ord("X") else ord("Y")
    (generation / "rows.sqlite").write_bytes(bytes(raw))
    index = Index.open(IndexStore(index_dir), repo, config.index,
                       repair="run `helix index --force REPO` to rebuild it")
    with pytest.raises(IndexCorruptError) as caught:
        index.find_definitions("fetch")
    assert str(caught.value) == ("index part rows.sqlite does not match its digest; "
                                 "run `helix index --force REPO` to rebuild it")
