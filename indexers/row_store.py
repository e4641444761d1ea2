"""The index's rows on disk: files, chunks, definitions, references and tree nodes in one
SQLite database (`rows.sqlite`), written file by file and read by key.

A question needs a few dozen chunks, a handful of definitions and the references of one name:
`RowReader` fetches exactly those (by chunk id, path, node id, name; each column it is asked by
has an index) instead of decoding every row of the repository. Whole tables are still there
for the builder's cache (`all_*`).

    files    path, content_hash, size, kind, lang                       (rowid: walk order)
             + where each table's rows of the file start, and how many there are (a file's
             rows are contiguous: fetched by rowid range, no per-table path index)
    chunks   id, path, kind, lang, start_line, end_line, text, content_hash,
             heading_path (JSON list), symbol, def_kind, node_id
             (rowid - 1 = the chunk's position in (path, start_line, id) order, which is
             the BM25 and token-table row)
    defs     name, qualname, kind, path, start_line, end_line, scope, node_id
    refs     name, kind, path, line, scope, module, receiver
    trees    tree_file, node (the TreeNode as JSON)

`RowWriter` takes one file at a time, in path order (it refuses any other order; every row
belongs to the file it is added with), inside one transaction, and builds the indexes at the
end: the same rows give the same bytes (the part's digest, hence `index_rev`, does not depend on
how the build got them). The database is opened read-only and `immutable` (a generation never
changes): no lock, no journal, nothing written.
Malformed data raises IndexCorruptError, as every other part does.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from helix.core.errors import IndexCorruptError
from helix.core.schemas import Chunk, ChunkHead, FileRecord, SymbolDef
from indexers.formats import (
    CHUNK_FIELDS,
    DEF_FIELDS,
    FILE_FIELDS,
    PART_ROWS,
    REF_FIELDS,
    DefRow,
    RefRow,
    paused_gc,
    trusted,
)
from indexers.trees import TreeNode

ROWS_FORMAT = "helix-rows 3"  # 3: refs carry their receiver
_TABLES = ("chunks", "defs", "refs", "trees")
_BATCH = 500  # values bound in one IN (...) list
_HEADING = CHUNK_FIELDS.index("heading_path")
_SCHEMA = (
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE files(path TEXT NOT NULL, content_hash TEXT NOT NULL, size INTEGER NOT NULL,"
    " kind TEXT NOT NULL, lang TEXT, chunks_at INTEGER NOT NULL, chunks_n INTEGER NOT NULL,"
    " defs_at INTEGER NOT NULL, defs_n INTEGER NOT NULL, refs_at INTEGER NOT NULL,"
    " refs_n INTEGER NOT NULL, trees_at INTEGER NOT NULL, trees_n INTEGER NOT NULL)",
    "CREATE TABLE chunks(id TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL, lang TEXT,"
    " start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, text TEXT NOT NULL,"
    " content_hash TEXT NOT NULL, heading_path TEXT NOT NULL, symbol TEXT, def_kind TEXT,"
    " node_id TEXT NOT NULL)",
    "CREATE TABLE defs(name TEXT NOT NULL, qualname TEXT NOT NULL, kind TEXT NOT NULL,"
    " path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, scope TEXT,"
    " node_id TEXT NOT NULL)",
    "CREATE TABLE refs(name TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,"
    " line INTEGER NOT NULL, scope TEXT, module TEXT, receiver TEXT)",
    "CREATE TABLE trees(tree_file TEXT NOT NULL, node TEXT NOT NULL)",
    # every definition name and qualified name, sorted (what fuzzy lookup compares against)
    "CREATE TABLE def_keys(key TEXT PRIMARY KEY) WITHOUT ROWID",
)
_INDEXES = (
    "CREATE UNIQUE INDEX files_path ON files(path)",
    "CREATE UNIQUE INDEX chunks_id ON chunks(id)",
    "CREATE INDEX chunks_node ON chunks(node_id)",
    "CREATE INDEX defs_name ON defs(name)",
    "CREATE INDEX defs_qualname ON defs(qualname)",
    "CREATE INDEX refs_name ON refs(name)",
)
_CHUNK_COLS = ", ".join(CHUNK_FIELDS)
_DEF_COLS = ", ".join(DEF_FIELDS)
_REF_COLS = ", ".join(REF_FIELDS)
_FILE_COLS = ", ".join(FILE_FIELDS)


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
            self._db.execute("ATTACH DATABASE ? AS prev", (_uri(Path(source)),))
        self._db.execute("BEGIN")
        for statement in _SCHEMA:
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
            _TABLES, (len(chunks), len(defs), len(refs), len(trees)), strict=True)]
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
        first = [counts[table] + 1 for table in _TABLES]
        offsets = [0] * len(_TABLES)
        for record, span in zip(records, spans, strict=True):
            ranges: list[int] = []
            for t, (_, n) in enumerate(_pairs(span)):
                ranges.extend((first[t] + offsets[t], n))
                offsets[t] += n
            self._db.execute(_insert("files", len(FILE_FIELDS) + 8), (
                record.path, record.content_hash, record.size, record.kind, record.lang,
                *ranges))
        counts["files"] += len(records)
        for t, table in enumerate(_TABLES):
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
        for statement in _INDEXES:
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


# Where a file's rows are: (at, n) for chunks, defs, refs and trees, flattened.
FileSpan = tuple[int, int, int, int, int, int, int, int]


def _pairs(span: FileSpan) -> list[tuple[int, int]]:
    return [(span[i], span[i + 1]) for i in range(0, 8, 2)]


def _follows(before: FileSpan, after: FileSpan) -> bool:
    """Whether `after`'s rows directly follow `before`'s in every table."""
    return all(a + n == b for (a, n), (b, _) in zip(_pairs(before), _pairs(after), strict=True))


def _uri(path: Path) -> str:
    return f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"


IDS_PER_QUERY = 500  # below SQLite's bound on a statement's parameters


def _chunk(row: Sequence[Any]) -> Chunk:
    values = dict(zip(CHUNK_FIELDS, row, strict=True))
    values["heading_path"] = tuple(orjson.loads(row[_HEADING]))
    return trusted(Chunk, values)


class RowReader:
    """Read-only lookups in one generation's `rows.sqlite` (safe to share between threads)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(_uri(self.path), uri=True, check_same_thread=False)
            found = self._db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
        except sqlite3.Error as exc:
            raise IndexCorruptError(f"index part {PART_ROWS} unreadable: {exc}") from None
        if found is None or found[0] != ROWS_FORMAT:
            raise IndexCorruptError(f"index part {PART_ROWS} has format {found!r}, "
                                    f"not {ROWS_FORMAT!r}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _rows(self, sql: str, args: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise IndexCorruptError(f"index part {PART_ROWS} unreadable: {exc}") from None

    def _iter(self, sql: str, args: Sequence[Any] = (), batch: int = 2000
              ) -> Iterator[list[Any]]:
        """Rows in batches (a whole table without holding its decoded rows twice)."""
        with self._lock:
            try:
                cursor = self._db.execute(sql, args)
                while rows := cursor.fetchmany(batch):
                    yield rows
            except sqlite3.Error as exc:
                raise IndexCorruptError(f"index part {PART_ROWS} unreadable: {exc}") from None

    def count(self, table: str) -> int:
        if table not in ("files", "chunks", "defs", "refs", "trees"):
            raise ValueError(table)
        return int(self._rows(f"SELECT count(*) FROM {table}")[0][0])

    def _range(self, table: str, path: str) -> str:
        """SQL condition: the rows of `table` that belong to `path` (a contiguous rowid run)."""
        return (f"rowid >= (SELECT {table}_at FROM files WHERE path=:p) AND rowid < "
                f"(SELECT {table}_at + {table}_n FROM files WHERE path=:p)")

    # --- files -----------------------------------------------------------------------------
    def all_files(self) -> list[FileRecord]:
        with paused_gc():
            return [trusted(FileRecord, dict(zip(FILE_FIELDS, row, strict=True)))
                    for row in self._rows(f"SELECT {_FILE_COLS} FROM files ORDER BY rowid")]

    # --- chunks ----------------------------------------------------------------------------
    def all_chunks(self) -> list[Chunk]:
        """Every chunk in (path, start_line, id) order."""
        out: list[Chunk] = []
        with paused_gc():
            for rows in self._iter(f"SELECT {_CHUNK_COLS} FROM chunks ORDER BY rowid"):
                out.extend(_chunk(row) for row in rows)
        return out

    def iter_chunks(self, batch: int = 2000) -> Iterator[Chunk]:
        for rows in self._iter(f"SELECT {_CHUNK_COLS} FROM chunks ORDER BY rowid", (), batch):
            yield from (_chunk(row) for row in rows)

    def chunk(self, chunk_id: str) -> Chunk | None:
        rows = self._rows(f"SELECT {_CHUNK_COLS} FROM chunks WHERE id=?", (chunk_id,))
        return _chunk(rows[0]) if rows else None

    def chunks_by_id(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """The chunks of these ids that exist, read in one query per `IDS_PER_QUERY`."""
        out: dict[str, Chunk] = {}
        for at in range(0, len(chunk_ids), IDS_PER_QUERY):
            batch = chunk_ids[at:at + IDS_PER_QUERY]
            marks = ",".join("?" * len(batch))
            for row in self._rows(f"SELECT {_CHUNK_COLS} FROM chunks WHERE id IN ({marks})",
                                  tuple(batch)):
                chunk = _chunk(row)
                out[chunk.id] = chunk
        return out

    def chunk_heads_by_id(self, chunk_ids: Sequence[str]) -> dict[str, ChunkHead]:
        """`chunks_by_id` without the texts (what filtering and grouping hits reads)."""
        out: dict[str, ChunkHead] = {}
        for at in range(0, len(chunk_ids), IDS_PER_QUERY):
            batch = chunk_ids[at:at + IDS_PER_QUERY]
            marks = ",".join("?" * len(batch))
            for cid, path, kind, line, symbol in self._rows(
                    "SELECT id, path, kind, start_line, symbol FROM chunks "
                    f"WHERE id IN ({marks})", tuple(batch)):
                out[str(cid)] = ChunkHead(str(cid), str(path), str(kind), int(line),
                                          None if symbol is None else str(symbol))
        return out

    def chunk_at(self, row: int) -> Chunk:
        """The chunk at a position of (path, start_line, id) order."""
        rows = self._rows(f"SELECT {_CHUNK_COLS} FROM chunks WHERE rowid=?", (row + 1,))
        if not rows:
            raise IndexError(row)
        return _chunk(rows[0])

    def chunk_row(self, chunk_id: str) -> int | None:
        """The chunk's position in (path, start_line, id) order (its BM25/token row)."""
        rows = self._rows("SELECT rowid FROM chunks WHERE id=?", (chunk_id,))
        return int(rows[0][0]) - 1 if rows else None

    def chunks_for_path(self, path: str) -> list[Chunk]:
        return [_chunk(row) for row in self._rows(
            f"SELECT {_CHUNK_COLS} FROM chunks WHERE {self._range('chunks', path)} "
            "ORDER BY rowid", {"p": path})]

    def chunk_rows_for_path(self, path: str) -> list[tuple[str, int]]:
        """(chunk id, row) of a path's chunks, in order."""
        return [(str(cid), int(rowid) - 1) for cid, rowid in self._rows(
            f"SELECT id, rowid FROM chunks WHERE {self._range('chunks', path)} ORDER BY rowid",
            {"p": path})]

    def doc_chunks_for_path(self, path: str) -> list[Chunk]:
        """A path's documentation sections (what names symbols in prose), in order."""
        return [_chunk(row) for row in self._rows(
            f"SELECT {_CHUNK_COLS} FROM chunks WHERE {self._range('chunks', path)} "
            "AND kind='doc_section' ORDER BY rowid", {"p": path})]

    def chunk_for_node(self, node_id: str) -> Chunk | None:
        rows = self._rows(f"SELECT {_CHUNK_COLS} FROM chunks WHERE node_id=? ORDER BY rowid "
                          "LIMIT 1", (node_id,))
        return _chunk(rows[0]) if rows else None

    def chunk_paths(self) -> list[str]:
        """Each chunk's path, in chunk order."""
        return [str(row[0]) for row in self._rows("SELECT path FROM chunks ORDER BY rowid")]

    # --- definitions -----------------------------------------------------------------------
    @staticmethod
    def _defs(rows: Iterable[Sequence[Any]]) -> list[SymbolDef]:
        return [trusted(SymbolDef, dict(zip(DEF_FIELDS, row, strict=True))) for row in rows]

    def all_defs(self) -> list[SymbolDef]:
        with paused_gc():
            return self._defs(self._rows(f"SELECT {_DEF_COLS} FROM defs ORDER BY rowid"))

    def defs_named(self, key: str) -> list[SymbolDef]:
        """Definitions whose name or qualified name is `key`, in stored order."""
        return self._defs(self._rows(
            f"SELECT {_DEF_COLS} FROM defs WHERE rowid IN (SELECT rowid FROM defs WHERE name=? "
            "UNION SELECT rowid FROM defs WHERE qualname=?) ORDER BY rowid", (key, key)))

    def def_rows_for_path(self, path: str) -> list[DefRow]:
        """A path's definitions as light rows (their `path` is the string given)."""
        return [DefRow(name, qualname, kind, path, start, end, scope, node_id)
                for name, qualname, kind, _, start, end, scope, node_id in self._rows(
                    f"SELECT {_DEF_COLS} FROM defs WHERE {self._range('defs', path)} "
                    "ORDER BY rowid", {"p": path})]

    def defs_for_path(self, path: str) -> list[SymbolDef]:
        return self._defs(self._rows(
            f"SELECT {_DEF_COLS} FROM defs WHERE {self._range('defs', path)} ORDER BY rowid",
            {"p": path}))

    def def_keys(self) -> list[str]:
        """Every name and qualified name, sorted (what fuzzy lookup compares against)."""
        return [str(row[0]) for row in self._rows("SELECT key FROM def_keys ORDER BY key")]

    # --- references ------------------------------------------------------------------------
    def all_refs(self) -> list[RefRow]:
        with paused_gc():
            return [RefRow(*row) for row in self._rows(
                f"SELECT {_REF_COLS} FROM refs ORDER BY rowid")]

    def refs_named(self, name: str) -> list[RefRow]:
        """Non-import references to `name`, in stored order."""
        return [RefRow(*row) for row in self._rows(
            f"SELECT {_REF_COLS} FROM refs WHERE name=? AND kind != 'import' ORDER BY rowid",
            (name,))]

    def imports_named(self, name: str) -> list[RefRow]:
        """Import references binding `name`, in stored order."""
        return [RefRow(*row) for row in self._rows(
            f"SELECT {_REF_COLS} FROM refs WHERE name=? AND kind = 'import' ORDER BY rowid",
            (name,))]

    def refs_for_path(self, path: str) -> list[RefRow]:
        return [RefRow(*row) for row in self._rows(
            f"SELECT {_REF_COLS} FROM refs WHERE {self._range('refs', path)} ORDER BY rowid",
            {"p": path})]

    # --- tree nodes ------------------------------------------------------------------------
    @staticmethod
    def _trees(rows: Iterable[Sequence[Any]]) -> list[TreeNode]:
        try:
            return [TreeNode.model_validate(orjson.loads(row[0])) for row in rows]
        except ValueError as exc:
            raise IndexCorruptError(f"index part {PART_ROWS} has a malformed tree node: "
                                    f"{str(exc).splitlines()[0]}") from None

    def all_trees(self) -> list[TreeNode]:
        return self._trees(self._rows("SELECT node FROM trees ORDER BY rowid"))

    def trees_for_file(self, tree_file: str) -> list[TreeNode]:
        return self._trees(self._rows(
            f"SELECT node FROM trees WHERE {self._range('trees', tree_file)} ORDER BY rowid",
            {"p": tree_file}))

    def file_spans(self) -> dict[str, FileSpan]:
        """Path -> where its rows are: (at, n) of chunks, defs, refs and trees."""
        out: dict[str, FileSpan] = {}
        for row in self._rows("SELECT path, chunks_at, chunks_n, defs_at, defs_n, refs_at, "
                              "refs_n, trees_at, trees_n FROM files ORDER BY rowid"):
            a, b, c, d, e, f, g, h = (int(v) for v in row[1:])
            out[str(row[0])] = (a, b, c, d, e, f, g, h)
        return out

    def chunk_ids_kinds(self, start: int, stop: int) -> list[tuple[str, str]]:
        """(id, kind) of the chunks at rowids `start` .. `stop` - 1, in order."""
        return [(str(cid), str(kind)) for cid, kind in self._rows(
            "SELECT id, kind FROM chunks WHERE rowid >= ? AND rowid < ? ORDER BY rowid",
            (start, stop))]

    def ref_receivers(self) -> list[str]:
        """Every distinct receiver a reference has, sorted."""
        return sorted(str(r[0]) for r in self._rows(
            "SELECT DISTINCT receiver FROM refs WHERE receiver IS NOT NULL"))

    def paths_with_refs(self, names: Iterable[str] = (), receivers: Iterable[str] = ()
                        ) -> set[str]:
        """Paths holding a reference named one of `names` or with one of `receivers`."""
        out: set[str] = set()
        for column, values in (("name", sorted(set(names))), ("receiver", sorted(set(receivers)))):
            for at in range(0, len(values), _BATCH):
                batch = values[at:at + _BATCH]
                out.update(str(r[0]) for r in self._rows(
                    f"SELECT DISTINCT path FROM refs WHERE {column} IN "
                    f"({', '.join('?' * len(batch))})", batch))
        return out

    def tree_files(self) -> set[str]:
        return {str(row[0]) for row in self._rows("SELECT path FROM files WHERE trees_n > 0")}


class StoredParse:
    """One file's parse as the graph reads it (`indexers.graph.ParsedLike`), each part queried
    when it is asked for and not kept: passes over a large repository hold one file at a
    time."""

    __slots__ = ("_reader", "content_hash", "path")

    def __init__(self, reader: RowReader, path: str, content_hash: str) -> None:
        self._reader = reader
        self.path = path
        self.content_hash = content_hash

    @property
    def chunks(self) -> list[Chunk]:
        return self._reader.chunks_for_path(self.path)

    @property
    def doc_chunks(self) -> list[Chunk]:
        return self._reader.doc_chunks_for_path(self.path)

    @property
    def defs(self) -> list[DefRow]:
        return self._reader.def_rows_for_path(self.path)

    @property
    def refs(self) -> list[RefRow]:
        return self._reader.refs_for_path(self.path)
