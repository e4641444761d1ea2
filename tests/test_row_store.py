"""rows.sqlite (issue 13): every row round-trips, lookups by key read only what they name, the
bytes depend only on the rows, and a damaged database is a one-line IndexCorruptError."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import IndexCorruptError
from helix.core.ports import FakeEmbedder
from helix.core.schemas import Chunk, ChunkHead, FileRecord
from indexers.build import build_index, ensure_index
from indexers.formats import RefRow
from indexers.parse import parse_file
from indexers.row_store import RowReader
from indexers.row_writer import RowWriter, write_rows
from indexers.trees import parse_tree_file
from indexers.walker import walk
from tests.index_fixtures import TREE_PATH, write_repo

CONFIG = HelixConfig(index=IndexSettings(trees=("docs/trees/*.json",)))


def _parsed(root: Path) -> tuple[list[FileRecord], list[Chunk], list, list, list]:
    records, chunks, defs, refs, trees = [], [], [], [], []
    for wf in walk(root, CONFIG.index).files:
        records.append(wf.record)
        if wf.record.path == TREE_PATH:
            tree_chunks, nodes = parse_tree_file(wf.record.path, wf.text)
            chunks.extend(tree_chunks)
            trees.extend(nodes)
            continue
        parsed = parse_file(wf.record, wf.text, CONFIG.index)
        chunks.extend(parsed.chunks)
        defs.extend(parsed.defs)
        refs.extend(RefRow(r.name, r.kind, r.path, r.line, r.scope, r.module, r.receiver)
                    for r in parsed.refs)
    chunks.sort(key=lambda c: (c.path, c.start_line, c.id))
    return records, chunks, defs, refs, trees


@pytest.fixture()
def stored(tmp_path: Path) -> tuple[RowReader, tuple]:
    rows = _parsed(write_repo(tmp_path / "repo", with_tree=True))
    write_rows(tmp_path / "rows.sqlite", *rows)
    return RowReader(tmp_path / "rows.sqlite"), rows


def test_every_row_round_trips(stored: tuple[RowReader, tuple]) -> None:
    reader, (records, chunks, defs, refs, trees) = stored
    assert trees and refs and defs
    assert reader.all_files() == records
    assert reader.all_chunks() == chunks
    assert list(reader.iter_chunks(batch=3)) == chunks
    assert reader.all_defs() == defs and reader.all_refs() == refs
    assert reader.all_trees() == trees
    assert reader.chunk_paths() == [c.path for c in chunks]
    assert all(type(c.heading_path) is tuple for c in reader.all_chunks())


def test_lookups_by_key(stored: tuple[RowReader, tuple]) -> None:
    reader, (_, chunks, defs, refs, trees) = stored
    for row, chunk in enumerate(chunks):
        assert reader.chunk(chunk.id) == chunk and reader.chunk_row(chunk.id) == row
    assert reader.chunk("nope") is None and reader.chunk_row("nope") is None
    path = chunks[0].path
    assert reader.chunks_for_path(path) == [c for c in chunks if c.path == path]
    assert reader.chunk_rows_for_path(path) == [
        (c.id, row) for row, c in enumerate(chunks) if c.path == path]
    node = defs[0].node_id
    assert reader.chunk_for_node(node) == next(c for c in chunks if c.node_id == node)
    assert reader.chunk_for_node("def:nowhere::x") is None
    name = "retry_policy"
    assert reader.defs_named(name) == [d for d in defs if name in (d.name, d.qualname)]
    assert reader.defs_named("Backoff.delay") == [d for d in defs
                                                   if d.qualname == "Backoff.delay"]
    assert reader.defs_for_path(defs[0].path) == [d for d in defs if d.path == defs[0].path]
    assert reader.refs_named(name) == [r for r in refs if r.name == name and r.kind != "import"]
    assert reader.refs_for_path(refs[0].path) == [r for r in refs if r.path == refs[0].path]
    assert reader.trees_for_file(TREE_PATH) == trees and reader.tree_files() == {TREE_PATH}
    assert reader.def_keys() == sorted({d.name for d in defs} | {d.qualname for d in defs})
    assert reader.count("chunks") == len(chunks)


def test_lookups_of_many_ids_at_once(stored: tuple[RowReader, tuple],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Hit lists are read in batches (whole chunks, or heads without their texts)."""
    reader, (_, chunks, *_rest) = stored
    monkeypatch.setattr("indexers.row_store._BATCH", 3)  # several batches
    ids = [c.id for c in reversed(chunks)] + ["nope"]
    assert reader.chunks_by_id(ids) == {c.id: c for c in chunks}
    heads = reader.chunk_heads_by_id(ids)
    assert heads == {c.id: ChunkHead(c.id, c.path, c.kind, c.start_line, c.symbol)
                     for c in chunks}


def test_same_rows_same_bytes(tmp_path: Path) -> None:
    """However the rows were grouped on the way in, the database is byte-identical (its digest
    is part of index_rev: an incremental build must write what a fresh one writes)."""
    rows = _parsed(write_repo(tmp_path / "repo", with_tree=True))
    write_rows(tmp_path / "a.sqlite", *rows)
    records, chunks, defs, refs, trees = rows
    writer = RowWriter(tmp_path / "b.sqlite")
    for record in records:  # file by file, chunks of a file in reverse order
        p = record.path
        writer.add(record, [c for c in reversed(chunks) if c.path == p],
                   [d for d in defs if d.path == p], [r for r in refs if r.path == p],
                   [t for t in trees if t.tree_file == p])
    writer.close()
    assert (tmp_path / "a.sqlite").read_bytes() == (tmp_path / "b.sqlite").read_bytes()


def test_rows_out_of_path_order_are_refused(tmp_path: Path) -> None:
    records = _parsed(write_repo(tmp_path / "repo"))[0]
    writer = RowWriter(tmp_path / "rows.sqlite")
    writer.add(records[1])
    with pytest.raises(ValueError, match="path order"):
        writer.add(records[0])
    writer.abort()
    assert not (tmp_path / "rows.sqlite").exists()


@pytest.mark.parametrize("raw", [b"", b"garbage" * 100, b"SQLite format 3\x00" + b"\x00" * 300])
def test_a_damaged_database_is_corrupt(raw: bytes, tmp_path: Path) -> None:
    (tmp_path / "rows.sqlite").write_bytes(raw)
    with pytest.raises(IndexCorruptError, match=r"rows\.sqlite"):
        RowReader(tmp_path / "rows.sqlite")


def test_another_format_is_corrupt(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "rows.sqlite") as db:
        db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('format', 'helix-rows 0')")
    db.close()
    with pytest.raises(IndexCorruptError, match="format"):
        RowReader(tmp_path / "rows.sqlite")


def test_the_reader_is_opened_read_only(stored: tuple[RowReader, tuple], tmp_path: Path) -> None:
    """Reading never writes: no journal, no lock file, the bytes unchanged."""
    reader, _ = stored
    before = (tmp_path / "rows.sqlite").read_bytes()
    reader.all_chunks()
    reader.defs_named("fetch")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo", "rows.sqlite"]
    assert (tmp_path / "rows.sqlite").read_bytes() == before
    with pytest.raises(IndexCorruptError):
        reader._rows("DELETE FROM chunks")


def test_a_question_reads_only_what_it_names(tmp_path: Path) -> None:
    """The reader behind `helix ask` answers chunk, definition and reference lookups without
    loading any whole table (what made every ask on a large index take seconds)."""
    repo = write_repo(tmp_path / "repo", with_tree=True)
    build_index(repo, CONFIG, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    index, report = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx")
    assert report.noop
    hit = index.search_bm25("retry policy", 3)[0]
    assert index.chunk(hit.chunk_id).id == hit.chunk_id
    assert index.find_definitions("retry_policy") and index.references_to("retry_policy")
    assert index.chunks_for_path("pkg/util.py") and index.chunk_for_node("repo:") is None
    assert "def:pkg/util.py::retry_policy" in index.graph
    with pytest.raises(KeyError):
        index.chunk("nope")
    whole = {"chunks", "defs", "refs", "trees", "files", "chunk_maps", "def_maps", "ref_map"}
    assert not whole & set(index._cache)
    assert len(index.chunks()) == report.chunks["total"]  # the whole table is still there


def test_rows_of_another_file_are_refused(tmp_path: Path) -> None:
    """A file's rows are stored as one contiguous run (found by range, not by path index):
    a row naming another path cannot be slipped in with it."""
    records, chunks, *_ = _parsed(write_repo(tmp_path / "repo"))
    first = records[0]
    other = next(c for c in chunks if c.path != first.path)
    writer = RowWriter(tmp_path / "rows.sqlite")
    with pytest.raises(ValueError, match="added with the file"):
        writer.add(first, [other])
    writer.abort()
    with pytest.raises(ValueError, match="no file record"):
        write_rows(tmp_path / "orphan.sqlite", [], [other], [], [], [])


def test_indexes_over_one_generation_share_what_they_loaded(tmp_path: Path) -> None:
    """Each question opens an Index; in one process (a chat, an eval run) those over the same
    generation share its loaded search structures and readers instead of loading them again;
    a new generation gets its own."""
    repo = write_repo(tmp_path / "repo", with_tree=True)
    first, _ = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    first.search_bm25("retry policy", 3)
    first.files()
    second, report = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx",
                                  embedder=FakeEmbedder())
    assert report.noop and second is not first
    assert second._bm25() is first._bm25() and second.rows() is first.rows()
    assert second.files() is first.files() and second.graph is first.graph
    (repo / "pkg" / "util.py").write_text("def retry_rule(n):\n    return n\n", encoding="utf-8")
    third, report = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx",
                                 embedder=FakeEmbedder())
    assert report.refreshed and third.index_rev != first.index_rev
    assert third.rows() is not first.rows() and third.graph is not first.graph
    assert third.find_definitions("retry_rule")


def test_lookups_are_shared_across_questions_and_bounded(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm server asks the same generation again and again: a chunk read for one question
    is not read from disk for the next; past MEMO_KEPT lookups the memo starts over."""
    import indexers.reader as reader

    repo = write_repo(tmp_path / "repo", with_tree=True)
    first, _ = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    ids = [c.id for c in first.chunks()[:3]]
    read = [first.chunk(cid) for cid in ids]
    second, _ = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    rows = second.rows()
    monkeypatch.setattr(rows, "chunk", lambda cid: pytest.fail("read from disk again"))
    assert [second.chunk(cid) for cid in ids] == read
    monkeypatch.undo()  # rows.chunk reads from disk again
    monkeypatch.setattr(reader, "MEMO_KEPT", 2)
    assert len(second._memo("chunk")) == 0  # three entries were over the bound: started over
    assert second.chunk(ids[0]) == read[0]


def test_an_index_gives_heads_of_chunks_read_or_not(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo")
    index, _ = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx")
    chunks = list(index.chunks())[:4]
    index.chunk(chunks[0].id)  # one already read whole
    assert index.chunk_heads([c.id for c in chunks]) == [
        ChunkHead(c.id, c.path, c.kind, c.start_line, c.symbol) for c in chunks]
    assert index.chunks_by_id([c.id for c in chunks]) == chunks
    with pytest.raises(KeyError):
        index.chunk_heads([chunks[1].id, "nope"])
    with pytest.raises(KeyError):
        index.chunks_by_id(["nope"])
