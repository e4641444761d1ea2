"""Writing `rows.sqlite` (the format and its reader: `indexers.row_store`): one file's rows at
a time in path order (`RowWriter.add`), unchanged files' rows copied from the previous
generation in SQL (`RowWriter.copy`), or all rows at once (`write_rows`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from helix.core.schemas import Chunk, FileRecord
from indexers.formats import CHUNK_FIELDS, DEF_FIELDS, FILE_FIELDS, REF_FIELDS
from indexers.row_store import INDEXES, ROWS_FORMAT, SCHEMA, TABLES, FileSpan, uri
from indexers.trees import TreeNode


def _insert(table: str, n: int) -> str:
    return f"INSERT INTO {table} VALUES ({', '.join('?' * n)})"


class RowWriter:
    """Writes `rows.sqlite` one file at a time (call `add` in path order, then `close`)."""

    def __init__(self, path: Path, source: Path | None = None) -> None:
        """`source`: a previous generation's rows database that `copy` copies from."""
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(self.path)
        self._db = sqlite3.connect(self.path, isolation_level=None, uri=True)
        self._db.execute("PRAGMA page_size=4096")
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._source = source is not None
        if source is not None:  # read-only and immutable, like every reader of a generation
            self._db.execute("ATTACH DATABASE ? AS prev", (uri(Path(source)),))
        self._db.execute("BEGIN")
        for statement in SCHEMA:
            self._db.execute(statement)
        self._db.execute("INSERT INTO meta VALUES ('format', ?)", (ROWS_FORMAT,))
        self._last_path: str | None = None
        self.counts = {"files": 0, "chunks": 0, "defs": 0, "refs": 0, "trees": 0}

    def add(self, record: FileRecord, chunks: Sequence[Chunk] = (),
            defs: Sequence[Any] = (), refs: Sequence[Any] = (),
            trees: Sequence[TreeNode] = ()) -> None:
        """One file's rows; chunks are stored in (start_line, id) order."""
        path = record.path
        if self._last_path is not None and path <= self._last_path:
            raise ValueError(f"rows must be added in path order: {path!r} after "
                             f"{self._last_path!r}")
        stray = ({c.path for c in chunks} | {d.path for d in defs} | {r.path for r in refs}
                 | {t.tree_file for t in trees}) - {path}
        if stray:
            raise ValueError(f"rows of {sorted(stray)[0]!r} added with the file {path!r}")
        self._last_path = path
        counts = self.counts
        ranges = [(counts[table] + 1, n) for table, n in zip(
            TABLES, (len(chunks), len(defs), len(refs), len(trees)), strict=True)]
        self._db.execute(_insert("files", len(FILE_FIELDS) + 8), (
            record.path, record.content_hash, record.size, record.kind, record.lang,
            *(value for pair in ranges for value in pair)))
        counts["files"] += 1
        if chunks:
            ordered = sorted(chunks, key=lambda c: (c.start_line, c.id))
            self._db.executemany(_insert("chunks", len(CHUNK_FIELDS)), (
                (c.id, c.path, c.kind, c.lang, c.start_line, c.end_line, c.text,
                 c.content_hash, orjson.dumps(list(c.heading_path)).decode("utf-8"), c.symbol,
                 c.def_kind, c.node_id) for c in ordered))
            counts["chunks"] += len(ordered)
        if defs:
            self._db.executemany(_insert("defs", len(DEF_FIELDS)), (
                (d.name, d.qualname, d.kind, d.path, d.start_line, d.end_line, d.scope,
                 d.node_id) for d in defs))
            counts["defs"] += len(defs)
        if refs:
            self._db.executemany(_insert("refs", len(REF_FIELDS)), (
                (r.name, r.kind, r.path, r.line, r.scope, r.module, r.receiver) for r in refs))
            counts["refs"] += len(refs)
        if trees:
            self._db.executemany(_insert("trees", 2), (
                (t.tree_file, orjson.dumps(t.model_dump(mode="json")).decode("utf-8"))
                for t in trees))
            counts["trees"] += len(trees)

    def copy(self, records: Sequence[FileRecord], spans: Sequence[FileSpan]) -> None:
        """Unchanged files' rows copied from the source database in SQL, never decoded: the
        same rows `add` would write for them. `records` in path order (after every file added
        so far), `spans[i]` where record i's rows are in the source (`RowReader.file_spans`).
        Files whose rows follow each other there are copied by one statement per table."""
        if not self._source:
            raise ValueError("copy needs a source database")
        for record in records:
            if self._last_path is not None and record.path <= self._last_path:
                raise ValueError(f"rows must be added in path order: {record.path!r} after "
                                 f"{self._last_path!r}")
            self._last_path = record.path
        start = 0
        for end in range(1, len(spans) + 1):
            if end == len(spans) or not _follows(spans[end - 1], spans[end]):
                self._copy_run(records[start:end], spans[start:end])
                start = end

    def _copy_run(self, records: Sequence[FileRecord], spans: Sequence[FileSpan]) -> None:
        counts = self.counts
        first = [counts[table] + 1 for table in TABLES]
        offsets = [0] * len(TABLES)
        for record, span in zip(records, spans, strict=True):
            ranges: list[int] = []
            for t, (_, n) in enumerate(_pairs(span)):
                ranges.extend((first[t] + offsets[t], n))
                offsets[t] += n
            self._db.execute(_insert("files", len(FILE_FIELDS) + 8), (
                record.path, record.content_hash, record.size, record.kind, record.lang,
                *ranges))
        counts["files"] += len(records)
        for t, table in enumerate(TABLES):
            if offsets[t]:
                at = _pairs(spans[0])[t][0]
                self._db.execute(f"INSERT INTO {table} SELECT * FROM prev.{table} "
                                 "WHERE rowid >= ? AND rowid < ? ORDER BY rowid",
                                 (at, at + offsets[t]))
                counts[table] += offsets[t]

    def close(self) -> dict[str, int]:
        """Build the indexes and commit; the counts of rows written."""
        self._db.execute("INSERT INTO def_keys SELECT name FROM defs UNION "
                         "SELECT qualname FROM defs ORDER BY 1")
        for statement in INDEXES:
            self._db.execute(statement)
        self._db.execute("COMMIT")
        self._db.close()
        return dict(self.counts)

    def abort(self) -> None:
        try:
            self._db.close()
        finally:
            self.path.unlink(missing_ok=True)


def write_rows(path: Path, records: Sequence[FileRecord], chunks: Sequence[Chunk],
               defs: Sequence[Any], refs: Sequence[Any], trees: Sequence[TreeNode]) -> None:
    """All rows at once (grouped by path here), as a build holding them in memory has them."""
    by_path: dict[str, dict[str, list[Any]]] = {}

    def group(path: str) -> dict[str, list[Any]]:
        return by_path.setdefault(path, {"chunks": [], "defs": [], "refs": [], "trees": []})

    for c in chunks:
        group(c.path)["chunks"].append(c)
    for d in defs:
        group(d.path)["defs"].append(d)
    for r in refs:
        group(r.path)["refs"].append(r)
    for t in trees:
        group(t.tree_file)["trees"].append(t)
    record_of = {r.path: r for r in records}
    orphans = sorted(set(by_path) - set(record_of))
    if orphans:
        raise ValueError(f"rows of {orphans[0]!r}, which has no file record")
    writer = RowWriter(path)
    try:
        for p in sorted(record_of):
            rows = by_path.get(p, {"chunks": [], "defs": [], "refs": [], "trees": []})
            writer.add(record_of[p], rows["chunks"], rows["defs"], rows["refs"], rows["trees"])
        writer.close()
    except BaseException:
        writer.abort()
        raise


def _pairs(span: FileSpan) -> list[tuple[int, int]]:
    return [(span[i], span[i + 1]) for i in range(0, 8, 2)]


def _follows(before: FileSpan, after: FileSpan) -> bool:
    """Whether `after`'s rows directly follow `before`'s in every table."""
    return all(a + n == b for (a, n), (b, _) in zip(_pairs(before), _pairs(after), strict=True))
