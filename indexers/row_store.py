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

`RowWriter` (`indexers.row_writer`) takes one file at a time, in path order (it refuses any
other order; every row belongs to the file it is added with), inside one transaction, and
builds the indexes at the end: the same rows give the same bytes (the part's digest, hence
`index_rev`, does not depend on how the build got them). The database is opened read-only and
`immutable` (a generation never changes): no lock, no journal, nothing written.
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
TABLES = ("chunks", "defs", "refs", "trees")
_BATCH = 500  # values bound in one IN (...) list
_HEADING = CHUNK_FIELDS.index("heading_path")
SCHEMA = (
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
INDEXES = (
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


# Where a file's rows are: (at, n) for chunks, defs, refs and trees, flattened.
FileSpan = tuple[int, int, int, int, int, int, int, int]


def uri(path: Path) -> str:
    return f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"


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
            self._db = sqlite3.connect(uri(self.path), uri=True, check_same_thread=False)
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
        """The chunks of these ids that exist, read `_BATCH` ids per query."""
        out: dict[str, Chunk] = {}
        for at in range(0, len(chunk_ids), _BATCH):
            batch = chunk_ids[at:at + _BATCH]
            marks = ",".join("?" * len(batch))
            for row in self._rows(f"SELECT {_CHUNK_COLS} FROM chunks WHERE id IN ({marks})",
                                  tuple(batch)):
                chunk = _chunk(row)
                out[chunk.id] = chunk
        return out

    def chunk_heads_by_id(self, chunk_ids: Sequence[str]) -> dict[str, ChunkHead]:
        """`chunks_by_id` without the texts (what filtering and grouping hits reads)."""
        out: dict[str, ChunkHead] = {}
        for at in range(0, len(chunk_ids), _BATCH):
            batch = chunk_ids[at:at + _BATCH]
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

    def all_def_rows(self) -> list[DefRow]:
        """Every definition as a light row (no model per definition), in stored order."""
        with paused_gc():
            return [DefRow(*row) for row in self._rows(
                f"SELECT {_DEF_COLS} FROM defs ORDER BY rowid")]

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
