"""The lexical phase of a build: everything but the vectors, in seconds and in bounded memory.

    walked files, one at a time -> parse (changed files only; the previous generation is the
    parse cache) -> its chunks, definitions, references, tree nodes written to rows.sqlite
    -> its chunks' BM25 token rows (cached by chunk id) into one flat token table
    -> chunk BM25 and whole-file BM25 -> graph, built pass by pass from the written rows into
    graph.sqlite (updated when files were only modified)

No file's text outlives its parse and no file's rows stay in memory: what grows with the
repository is the token table (4 bytes a token), the chunk ids and the file records.

`indexers.build` runs it, then the dense phase (`indexers.build_dense`), then writes one
generation.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import IndexCorruptError, TreeFileBoundError
from helix.core.notices import notify
from helix.core.ports import Progress
from helix.core.schemas import Chunk, FileRecord
from indexers.bm25 import bm25_text_for
from indexers.formats import PART_GRAPH_DB, PART_ROWS, CachedParse, RefRow
from indexers.graph import GraphSummary
from indexers.previous import Previous
from indexers.row_store import FileSpan, RowReader, StoredParse
from indexers.row_writer import RowWriter
from indexers.secret_scan import Scanner
from indexers.token_cache import TokenTable, TokenTableBuilder
from indexers.trees import (
    TreeFormatError,
    TreeNode,
    has_tree_shape,
    is_tree_file,
    parse_tree_file,
)

# progress(stage, done, total)
PROGRESS_EVERY = 50  # files between progress updates while parsing


@dataclass
class Lexical:
    """What the lexical phase built. Rows and the graph are already on disk in the new
    generation's directory (`rows`, `graph`: read-only readers over them); in memory are only
    the file records, the token table and the two BM25 indexes."""

    records: list[FileRecord]
    rows: RowReader
    tree_nodes: list[TreeNode]
    token_table: TokenTable
    bm25: Any
    file_bm25: Any
    graph: Any  # indexers.lazy_graph.LazyGraph over the written graph.sqlite
    graph_summary: GraphSummary
    graph_updated: bool
    files_parsed: int
    tokens_cached: int
    fresh_paths: set[str]
    counts: dict[str, Any] = field(default_factory=dict)  # chunks by kind, defs, refs
    seconds: dict[str, float] = field(default_factory=dict)
    scan: dict[str, Any] = field(default_factory=dict)  # `Scanner.stats`

    @property
    def chunks(self) -> Sequence[Chunk]:
        """Every chunk in (path, start_line, id) order, streamed from the rows on each pass."""
        return StoredChunks(self.rows)

    def close(self) -> None:
        """Release the written parts (before the generation is moved into place)."""
        self.rows.close()
        self.graph._reader.close()


class StoredChunks(Sequence[Chunk]):
    """The written chunks as a sequence: iterating reads them in batches, nothing is kept."""

    def __init__(self, rows: RowReader) -> None:
        self._rows = rows
        self._len = rows.count("chunks")

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[Chunk]:
        return self._rows.iter_chunks()

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        if not -self._len <= index < self._len:
            raise IndexError(index)
        return self._rows.chunk_at(index % self._len)


def _parse_one(record: FileRecord, text: str, settings: IndexSettings,
               warnings: list[str]) -> tuple[FileRecord, Any, list[TreeNode]]:
    # `index.trees` globs name the tree files; without them a JSON file of a tree's shape is one
    configured = bool(settings.trees)
    if (is_tree_file(record.path, settings.trees) if configured
            else has_tree_shape(record.path, text)):
        try:
            chunks, nodes = parse_tree_file(record.path, text, max_nodes=settings.max_tree_nodes,
                                            max_depth=settings.max_tree_depth)
            tree_record = record.model_copy(update={"kind": "tree", "lang": "json"})
            return tree_record, CachedParse(record.path, record.content_hash, tuple(chunks),
                                            (), ()), nodes
        except TreeFormatError as exc:
            if configured:  # a file merely shaped like a tree is just JSON
                warnings.append(f"tree file skipped as a tree: {exc}")
        except TreeFileBoundError as exc:  # said even when only its shape made it a tree
            warnings.append(f"tree file indexed as plain JSON: {exc}")
            notify(warnings[-1])
    from indexers.parse import parse_file

    return record, parse_file(record, text, settings), []


parse_one = _parse_one  # what a parse shard runs (`indexers.shards`): the build's own parse


def bm25_text(chunk: Chunk) -> str:
    """What BM25 indexes for a chunk (`indexers.bm25.bm25_text_for`): its path, qualified name
    and heading path before its text, so names that live only in a path or an enclosing class
    are found (and the whole-file index, built from these tokens, knows each file's path)."""
    return bm25_text_for(chunk)


def _graph(records: Sequence[FileRecord], rows: RowReader, tree_nodes: Sequence[TreeNode],
           previous: Previous | None, added: Sequence[str], modified: Sequence[str],
           removed: Sequence[str], path: Path) -> tuple[GraphSummary, bool]:
    """The graph written at `path`: the previous graph updated for modified files when it can
    be (same set of files, no tree file changed), else a full build: both give the same graph.
    Each file's parse is read back from the written rows as a pass needs it."""
    from indexers.graph import write_graph_of

    parses = {r.path: StoredParse(rows, r.path, r.content_hash) for r in records}

    def parse_of(path: str) -> StoredParse | None:
        return parses.get(path)

    if (previous is not None and modified and not added and not removed
            and not any(previous.had_trees(p) for p in modified)
            and all(r.kind != "tree" for r in records if r.path in set(modified))):
        try:
            old_graph = previous.index.graph
        except IndexCorruptError:
            old_graph = None
        if old_graph is not None:
            from indexers.graph_update import write_updated_graph

            old_defs = [d for p in modified for d in previous.defs_of(p)]
            return write_updated_graph(path, old_graph, records, parse_of, tree_nodes,
                                       modified, old_defs, rows), True
    return write_graph_of(path, records, parse_of, tree_nodes), False


def _copy_unchanged(pending: Sequence[tuple[FileRecord, FileSpan]], writer: RowWriter,
                    previous: Previous, tokens: TokenTableBuilder, chunk_ids: list[str],
                    chunk_paths: list[str], kinds: dict[str, int]) -> int:
    """Copy unchanged files' rows from the previous generation in SQL (never decoded); their
    chunks' ids, kinds and old token rows are all the rest of the build needs of them. The
    number of chunks whose tokens were reused."""
    writer.copy([r for r, _ in pending], [span for _, span in pending])
    reused = 0
    for start, stop, paths in _chunk_runs(pending):
        for (cid, kind), rowid, path in zip(previous.rows.chunk_ids_kinds(start, stop),
                                            range(start, stop), paths, strict=True):
            tokens.add_old(rowid - 1)  # a chunk's rowid - 1 is its token row
            chunk_ids.append(cid)
            chunk_paths.append(path)
            kinds[kind] += 1
        reused += stop - start
    return reused


def _chunk_runs(files: Sequence[tuple[FileRecord, FileSpan]]
                ) -> Iterator[tuple[int, int, list[str]]]:
    """(first rowid, stop rowid, the path of each chunk) of the files' chunks in the source,
    one run per stretch of rowids that follow each other."""
    start = stop = 0
    paths: list[str] = []
    for record, span in files:
        at, n = span[0], span[1]
        if not n:
            continue
        if paths and at != stop:
            yield start, stop, paths
            paths = []
        if not paths:
            start = at
        stop = at + n
        paths.extend([record.path] * n)
    if paths:
        yield start, stop, paths


def build_lexical(walked_files: Sequence[Any], config: HelixConfig, previous: Previous | None,
                  changes: tuple[Sequence[str], Sequence[str], Sequence[str]],
                  warnings: list[str], progress: Progress | None, out: Path,
                  scanner: Scanner | None = None,
                  parsed: Mapping[str, Any] | None = None) -> Lexical:
    """Parse, tokenize, BM25 and graph for the walked files (`changes`: added, modified,
    removed since the previous generation), one file at a time: each file's rows go to
    `out`/rows.sqlite as soon as it is parsed (an unchanged file's are copied from the previous
    generation in SQL, never decoded), its chunks' tokens into the token table; the graph is
    then built from the written rows into `out`/graph.sqlite. Parse warnings are appended to
    `warnings`. Each file read is masked by `scanner` (`indexers.secret_scan`; default: one
    without a cache on disk), which scans the files to read ahead, in worker processes.
    `parsed`: files parsed (and masked) already, in shards (`indexers.shards.ParsedFile` by
    path), taken in the walk's order as if parsed here."""
    settings = config.index
    own_scanner = scanner is None
    scanner = Scanner(settings) if scanner is None else scanner
    try:
        scanner.start([wf for wf in walked_files
                       if (previous is None
                           or previous.files.get(wf.record.path) != wf.record.content_hash)
                       and (parsed is None or wf.record.path not in parsed)])
        return _build_lexical(walked_files, config, previous, changes, warnings, progress, out,
                              scanner, parsed)
    finally:
        if own_scanner:
            scanner.close()


def _build_lexical(walked_files: Sequence[Any], config: HelixConfig, previous: Previous | None,
                   changes: tuple[Sequence[str], Sequence[str], Sequence[str]],
                   warnings: list[str], progress: Progress | None, out: Path,
                   scanner: Scanner, parsed: Mapping[str, Any] | None) -> Lexical:
    from indexers.bm25 import BM25Index
    from indexers.lazy_graph import load_lazy
    from indexers.tokenize import tokenize

    settings = config.index
    seconds: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        current = time.perf_counter()
        seconds[stage] = round(current - clock, 4)
        clock = current

    records: list[FileRecord] = []
    tree_nodes: list[TreeNode] = []
    files_parsed = tokens_cached = 0
    fresh_paths: set[str] = set()
    chunk_ids: list[str] = []
    chunk_paths: list[str] = []
    kinds: dict[str, int] = defaultdict(int)
    tokens = TokenTableBuilder(previous.token_table if previous else None)
    writer = RowWriter(out / PART_ROWS, source=previous.rows.path if previous else None)
    spans = previous.rows.file_spans() if previous else {}
    pending: list[tuple[FileRecord, FileSpan]] = []  # unchanged files, copied in one go

    total = len(walked_files)
    try:
        for position, wf in enumerate(walked_files):
            if progress and (position % PROGRESS_EVERY == 0 or position + 1 == total):
                progress("parse", position + 1, total)
            path = wf.record.path
            if (previous is not None and path in spans and not previous.had_trees(path)
                    and previous.files.get(path) == wf.record.content_hash):
                pending.append((wf.record, spans[path]))
                records.append(wf.record)
                continue
            if pending and previous is not None:
                tokens_cached += _copy_unchanged(pending, writer, previous, tokens, chunk_ids,
                                                 chunk_paths, kinds)
                pending.clear()
            hit = previous.parse(wf.record) if previous else None
            if hit is not None:
                record = (wf.record.model_copy(update={"kind": "tree", "lang": "json"})
                          if hit[1] else wf.record)
                result, nodes = hit
            elif parsed is not None and path in parsed:
                record, result, nodes, noted = parsed[path]
                warnings.extend(noted)
                files_parsed += 1
                fresh_paths.add(record.path)
            else:
                read, text = wf.read(scanner.mask)
                record, result, nodes = _parse_one(read, text, settings, warnings)
                files_parsed += 1
                fresh_paths.add(record.path)
            chunks = sorted(result.chunks, key=lambda c: (c.path, c.start_line, c.id))
            refs = [r if type(r) is RefRow else
                    RefRow(r.name, r.kind, r.path, r.line, r.scope, r.module, r.receiver)
                    for r in result.refs]  # cached ones are RefRows already
            writer.add(record, chunks, result.defs, refs, nodes)
            old_rows = previous.token_rows(record.path) if previous and chunks else {}
            for chunk in chunks:
                row = old_rows.get(chunk.id)
                if row is None:
                    tokens.add_tokens(tokenize(bm25_text(chunk)))
                else:
                    tokens_cached += 1
                    tokens.add_old(row)
                chunk_ids.append(chunk.id)
                chunk_paths.append(chunk.path)
                kinds[chunk.kind] += 1
            records.append(record)
            tree_nodes.extend(nodes)
        if pending and previous is not None:
            tokens_cached += _copy_unchanged(pending, writer, previous, tokens, chunk_ids,
                                             chunk_paths, kinds)
        counts = writer.close()
    except BaseException:
        writer.abort()
        raise
    lap("parse")

    token_table = tokens.finish()
    del tokens
    bm25, file_bm25 = BM25Index.build_with_files(
        chunk_ids, chunk_paths, token_table.vocab, token_table.flat,
        np.diff(token_table.offsets))
    del chunk_ids, chunk_paths
    lap("bm25")

    if progress:
        progress("graph", 0, 0)
    rows = RowReader(out / PART_ROWS)
    added, modified, removed = changes
    summary, graph_updated = _graph(records, rows, tree_nodes, previous, added, modified,
                                    removed, out / PART_GRAPH_DB)
    lap("graph")
    return Lexical(records=records, rows=rows, tree_nodes=tree_nodes, token_table=token_table,
                   bm25=bm25, file_bm25=file_bm25, graph=load_lazy(out / PART_GRAPH_DB),
                   graph_summary=summary, graph_updated=graph_updated,
                   files_parsed=files_parsed, tokens_cached=tokens_cached,
                   fresh_paths=fresh_paths,
                   counts={"chunks": {**dict(sorted(kinds.items())), "total": sum(kinds.values())},
                           "defs": counts["defs"], "refs": counts["refs"]},
                   seconds=seconds, scan=scanner.stats())
