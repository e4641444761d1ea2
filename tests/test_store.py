"""The on-disk index: reader API, atomic generations, corruption, the writer lock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import IndexCorruptError, IndexLockedError
from helix.core.ports import FakeEmbedder
from indexers import store as store_mod
from indexers.build import build_index, ensure_index
from indexers.reader import Index
from indexers.store import CURRENT, MANIFEST, IndexStore
from tests.index_fixtures import write_repo

CONFIG = HelixConfig()
KILL_WAIT_S = 60.0


def _build(root: Path, index_dir: Path, config: HelixConfig = CONFIG, **kw: Any):
    return build_index(root, config, index_dir=index_dir, embedder=FakeEmbedder(), **kw)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "repo")


def _open(index_dir: Path, root: Path) -> Index:
    return Index.open(IndexStore(index_dir), root, CONFIG.index, FakeEmbedder())


def test_reader_api(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    report = _build(repo, index_dir)
    idx = _open(index_dir, repo)
    assert idx.index_rev == report.index_rev and idx.repo_rev == "nogit"
    assert [f.path for f in idx.files()] == sorted(f.path for f in idx.files())
    chunks = idx.chunks()
    assert list(chunks) == sorted(chunks, key=lambda c: (c.path, c.start_line, c.id))
    first = chunks[0]
    assert idx.chunk(first.id) == first
    with pytest.raises(KeyError):
        idx.chunk("nope")
    assert all(c.path == "pkg/util.py" for c in idx.chunks_for_path("pkg/util.py"))
    node_chunk = idx.chunk_for_node("def:pkg/util.py::retry_policy")
    assert node_chunk is not None and node_chunk.symbol == "retry_policy"
    assert idx.chunk_for_node("def:missing::x") is None
    hits = idx.search_bm25("retry policy", 3)
    assert hits[0].rank == 1 and hits[0].channel == "bm25"
    assert idx.chunk(hits[0].chunk_id).path == "pkg/util.py"
    assert idx.search_bm25("   ", 3) == []
    dense = idx.search_dense("retry policy attempts", 2)
    assert [h.rank for h in dense] == [1, 2] and dense[0].channel == "dense"
    assert [d.qualname for d in idx.find_definitions("delay")] == ["Backoff.delay"]
    assert [d.qualname for d in idx.find_definitions("Backoff.delay")] == ["Backoff.delay"]
    assert idx.find_definitions("retry_polcy") == []
    assert [d.name for d in idx.find_definitions("retry_polcy", fuzzy=True)] == ["retry_policy"]
    refs = idx.references_to("retry_policy")
    assert [(r.path, r.line) for r in refs] == [("pkg/client.py", 6), ("pkg/util.py", 11)]
    assert idx.graph.has_edge("def:pkg/client.py::fetch", "def:pkg/util.py::retry_policy",
                              key="calls")


def test_no_dense_when_embedding_disabled(repo: Path, tmp_path: Path) -> None:
    config = HelixConfig(index=IndexSettings(embed_enabled=False))
    build_index(repo, config, index_dir=tmp_path / "idx")
    idx = Index.open(IndexStore(tmp_path / "idx"), repo, config.index)
    assert idx.search_dense("retry", 3) == []
    assert idx.search_bm25("retry", 3)


def test_generation_swap_and_prune(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    _build(repo, index_dir)
    for n in range(3):
        (repo / "pkg" / "util.py").write_text(f"X = {n}\n", encoding="utf-8")
        _build(repo, index_dir)
    gens = sorted(p.name for p in index_dir.glob("gen-*"))
    assert len(gens) == 2  # current + the one before
    assert (index_dir / CURRENT).read_text().strip() in gens
    assert not list(index_dir.glob("tmp-*"))


def test_crash_mid_write_keeps_previous(repo: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    index_dir = tmp_path / "idx"
    before = _build(repo, index_dir)
    (repo / "pkg" / "util.py").write_text("def other():\n    return 1\n", encoding="utf-8")

    def boom(path: object, graph: object) -> None:
        raise RuntimeError("simulated crash")

    monkeypatch.setattr("indexers.graph_store.write_graph", boom)  # mid lexical phase
    with pytest.raises(RuntimeError):
        _build(repo, index_dir)
    assert not list(index_dir.glob("tmp-*"))  # the half-written generation is gone
    idx = _open(index_dir, repo)
    assert idx.index_rev == before.index_rev
    assert idx.find_definitions("retry_policy")
    monkeypatch.undo()
    after = _build(repo, index_dir)
    assert after.changed_files == ("pkg/util.py",)


def test_killed_writer_leaves_previous_usable(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    before = _build(repo, index_dir)
    (repo / "pkg" / "new.py").write_text("def added():\n    return 2\n", encoding="utf-8")
    started = tmp_path / "started"
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from helix.core.config import HelixConfig
        from helix.core.ports import FakeEmbedder
        from indexers import store
        from indexers.build import build_index

        original = store.GenerationWriter.write_bytes
        def slow(self, name, data):
            original(self, name, data)
            Path({str(started)!r}).write_text("x")
            time.sleep(600)
        store.GenerationWriter.write_bytes = slow
        build_index(Path({str(repo)!r}), HelixConfig(), index_dir=Path({str(index_dir)!r}),
                    embedder=FakeEmbedder())
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ),
                            cwd=Path(__file__).parent.parent)
    try:
        deadline = time.monotonic() + KILL_WAIT_S
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "writer never reached the write stage"
        assert list(index_dir.glob("tmp-*"))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    idx = _open(index_dir, repo)  # the previous generation, intact
    assert idx.index_rev == before.index_rev
    assert not idx.find_definitions("added")
    after = _build(repo, index_dir)  # the lock died with the process
    assert after.added == ("pkg/new.py",)
    assert not list(index_dir.glob("tmp-*"))


def _current(index_dir: Path) -> Path:
    return index_dir / (index_dir / CURRENT).read_text().strip()


def test_corrupt_manifest_is_rebuilt(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    _build(repo, index_dir)
    (_current(index_dir) / MANIFEST).write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexCorruptError):
        _open(index_dir, repo)
    report = _build(repo, index_dir)
    assert not report.noop and report.files_parsed == report.files_indexed
    assert report.rebuild_reason and "corrupt" in report.rebuild_reason
    assert _open(index_dir, repo).find_definitions("fetch")


def test_truncated_chunk_file_is_rebuilt(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    _build(repo, index_dir)
    chunks = _current(index_dir) / "rows.sqlite"
    chunks.write_bytes(chunks.read_bytes()[:100])
    with pytest.raises(IndexCorruptError, match=r"rows\.sqlite"):
        _open(index_dir, repo)
    report = _build(repo, index_dir)
    assert "corrupt" in (report.rebuild_reason or "")
    assert len(_open(index_dir, repo).chunks()) == report.chunks["total"]


def test_same_size_corruption_detected_on_read_and_rebuilt(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    _build(repo, index_dir)
    defs = _current(index_dir) / "rows.sqlite"
    raw = bytearray(defs.read_bytes())
    raw[-3] = ord("X") if raw[-3] != ord("X") else ord("Y")
    defs.write_bytes(bytes(raw))
    idx = _open(index_dir, repo)  # sizes match: opening is fine ...
    with pytest.raises(IndexCorruptError, match="digest"):
        idx.find_definitions("fetch")  # ... reading the part is not
    report = _build(repo, index_dir)
    assert not report.noop and "corrupt" in (report.rebuild_reason or "")


def test_missing_generation_is_rebuilt(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    _build(repo, index_dir)
    (index_dir / CURRENT).write_text("gen-doesnotexist", encoding="utf-8")
    report = _build(repo, index_dir)
    assert "corrupt" in (report.rebuild_reason or "")


def test_second_writer_gets_locked_error(repo: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    index_dir = tmp_path / "idx"
    monkeypatch.setattr(store_mod, "LOCK_TIMEOUT_S", 0.2)
    holder = IndexStore(index_dir)
    with holder.locked(), pytest.raises(IndexLockedError, match="another helix process"):
        _build(repo, index_dir)
    assert _build(repo, index_dir).files_indexed == 5  # released


def test_manifest_contents(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    report = _build(repo, index_dir)
    manifest = json.loads((_current(index_dir) / MANIFEST).read_text())
    assert manifest["schema_version"] == store_mod.SCHEMA_VERSION
    assert manifest["index_hash"] == CONFIG.index_hash
    assert manifest["embed_model_key"] == FakeEmbedder().model_key
    assert set(manifest["files"]) == {f.path for f in _open(index_dir, repo).files()}
    assert manifest["index_rev"] == report.index_rev
    assert manifest["counts"]["chunks"] == report.chunks["total"]
    assert {"graph.sqlite", "rows.sqlite", "bm25/bm25_meta.json"} <= set(manifest["parts"])


def test_git_repo_rev(repo: Path, tmp_path: Path) -> None:
    git = ["git", "-c", "user.email=t@e", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=repo, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                          text=True, check=True).stdout.strip()
    assert store_mod.repo_revision(repo) == head
    (repo / "pkg" / "util.py").write_text("Y = 1\n", encoding="utf-8")
    assert store_mod.repo_revision(repo) == head + "+dirty"
    assert store_mod.repo_revision(tmp_path) == "nogit"
    idx, report = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx",
                               embedder=FakeEmbedder())
    assert report.repo_rev == idx.repo_rev == head + "+dirty"


def test_noop_rereads_only_parts_changed_on_disk(repo: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A no-op checks digests only of parts whose (size, mtime, inode) differ from the last
    check; a rewritten part (same size, other bytes) is read, caught and rebuilt."""
    index_dir = tmp_path / "idx"
    _build(repo, index_dir)
    read: list[str] = []
    real = store_mod.check_part

    def counting(generation: Path, manifest: object, rel: str) -> None:
        read.append(rel)
        real(generation, manifest, rel)  # type: ignore[arg-type]

    monkeypatch.setattr(store_mod, "check_part", counting)
    assert _build(repo, index_dir).noop and read == []  # the writer recorded what it wrote
    (index_dir / "verified.json").unlink()
    assert _build(repo, index_dir).noop and len(read) > 5  # no record: every part checked
    read.clear()
    assert _build(repo, index_dir).noop and read == []
    defs = _current(index_dir) / "rows.sqlite"
    raw = bytearray(defs.read_bytes())
    raw[-3] = ord("X") if raw[-3] != ord("X") else ord("Y")
    time.sleep(0.01)
    defs.write_bytes(bytes(raw))
    report = _build(repo, index_dir)
    assert read == ["rows.sqlite"] and not report.noop
    assert "corrupt" in (report.rebuild_reason or "")
