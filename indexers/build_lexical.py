"""The lexical phase of a build: everything but the vectors, in seconds.

    walked files -> parse (changed files only; the previous generation is the parse cache)
    -> chunks, definitions, references, tree nodes -> BM25 token rows (cached by chunk id)
    -> chunk BM25 and whole-file BM25 -> graph (updated in place when files were only
    modified) -> embed cards of unchanged chunks (from the previous generation)

`indexers.build` runs it, then the dense phase (`indexers.build_dense`), then writes one
generation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import IndexCorruptError
from helix.core.schemas import Chunk, FileRecord
from indexers.bm25 import bm25_text_for
from indexers.formats import CachedParse, RefRow
from indexers.previous import Previous
from indexers.token_cache import TokenTable
from indexers.token_cache import merge as merge_tokens
from indexers.trees import TreeFormatError, TreeNode, is_tree_file, parse_tree_file

# progress(stage, done, total)
Progress = Callable[[str, int, int], None]
PROGRESS_EVERY = 50  # files between progress updates while parsing


@dataclass
class Lexical:
    """What the lexical phase built (all in memory until the generation is written)."""

    records: list[FileRecord]
    chunks: list[Chunk]
    defs: list[Any]
    refs: list[RefRow]
    tree_nodes: list[TreeNode]
    token_table: TokenTable
    bm25: Any
    file_bm25: Any
    graph: Any
    graph_updated: bool
    files_parsed: int
    tokens_cached: int
    fresh_paths: set[str]
    seconds: dict[str, float] = field(default_factory=dict)


def _parse_one(record: FileRecord, text: str, settings: IndexSettings,
               warnings: list[str]) -> tuple[FileRecord, Any, list[TreeNode]]:
    if settings.trees and is_tree_file(record.path, settings.trees):
        try:
            chunks, nodes = parse_tree_file(record.path, text)
            tree_record = record.model_copy(update={"kind": "tree", "lang": "json"})
            return tree_record, CachedParse(record.path, record.content_hash, tuple(chunks),
                                            (), ()), nodes
        except TreeFormatError as exc:
            warnings.append(f"tree file skipped as a tree: {exc}")
    from indexers.parse import parse_file

    return record, parse_file(record, text, settings), []


def bm25_text(chunk: Chunk) -> str:
    """What BM25 indexes for a chunk (`indexers.bm25.bm25_text_for`): its path, qualified name
    and heading path before its text, so names that live only in a path or an enclosing class
    are found (and the whole-file index, built from these tokens, knows each file's path)."""
    return bm25_text_for(chunk)


def _graph(records: Sequence[FileRecord], parsed: Sequence[Any], tree_nodes: Sequence[TreeNode],
           previous: Previous | None, added: Sequence[str], modified: Sequence[str],
           removed: Sequence[str]) -> tuple[Any, bool]:
    """The previous graph updated for modified files when it can be (same set of files, no
    tree file changed), else a full build: both give the same graph."""
    from indexers.graph import build_graph

    if (previous is not None and modified and not added and not removed
            and not any(previous.had_trees(path) for path in modified)
            and all(r.kind != "tree" for r in records if r.path in set(modified))):
        try:
            old_graph = previous.index.graph
        except IndexCorruptError:
            old_graph = None
        if old_graph is not None:
            from indexers.graph_update import update_graph

            old_defs = [d for path in modified for d in previous.defs_of(path)]
            return update_graph(old_graph, records, parsed, tree_nodes, modified,
                                old_defs), True
    return build_graph(records, parsed, tree_nodes), False


def build_lexical(walked_files: Sequence[Any], config: HelixConfig, previous: Previous | None,
                  changes: tuple[Sequence[str], Sequence[str], Sequence[str]],
                  warnings: list[str], progress: Progress | None) -> Lexical:
    """Parse, tokenize, BM25 and graph for the walked files (`changes`: added, modified,
    removed since the previous generation). Parse warnings are appended to `warnings`."""
    settings = config.index
    seconds: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        current = time.perf_counter()
        seconds[stage] = round(current - clock, 4)
        clock = current

    records: list[FileRecord] = []
    parsed: list[Any] = []
    tree_nodes: list[TreeNode] = []
    files_parsed = 0
    fresh_paths: set[str] = set()
    total = len(walked_files)
    for position, wf in enumerate(walked_files):
        hit = previous.parse(wf.record) if previous else None
        if hit is not None:
            record = (wf.record.model_copy(update={"kind": "tree", "lang": "json"})
                      if hit[1] else wf.record)
            result, nodes = hit
        else:
            read, text = wf.read()
            record, result, nodes = _parse_one(read, text, settings, warnings)
            files_parsed += 1
            fresh_paths.add(record.path)
        records.append(record)
        parsed.append(result)
        tree_nodes.extend(nodes)
        if progress and (position % PROGRESS_EVERY == 0 or position + 1 == total):
            progress("parse", position + 1, total)
    chunks = sorted((c for p in parsed for c in p.chunks),
                    key=lambda c: (c.path, c.start_line, c.id))
    defs = [d for p in parsed for d in p.defs]
    refs = [r if type(r) is RefRow else RefRow(r.name, r.kind, r.path, r.line, r.scope, r.module)
            for p in parsed for r in p.refs]  # cached ones are RefRows already
    lap("parse")

    from indexers.bm25 import BM25Index
    from indexers.tokenize import tokenize

    rows: list[int | list[str]] = []
    tokens_cached = 0
    for chunk in chunks:
        cached_row = previous.token_row(chunk.id) if previous else None
        if cached_row is None:
            rows.append(tokenize(bm25_text(chunk)))
        else:
            tokens_cached += 1
            rows.append(cached_row)
    token_table = merge_tokens(rows, previous.token_table if previous else None)
    bm25, file_bm25 = BM25Index.build_with_files(
        [c.id for c in chunks], [c.path for c in chunks], token_table.vocab, token_table.flat,
        np.diff(token_table.offsets))
    lap("bm25")

    if progress:
        progress("graph", 0, 0)
    added, modified, removed = changes
    graph, graph_updated = _graph(records, parsed, tree_nodes, previous, added, modified,
                                  removed)
    lap("graph")
    return Lexical(records=records, chunks=chunks, defs=defs, refs=refs, tree_nodes=tree_nodes,
                   token_table=token_table, bm25=bm25, file_bm25=file_bm25, graph=graph,
                   graph_updated=graph_updated, files_parsed=files_parsed,
                   tokens_cached=tokens_cached, fresh_paths=fresh_paths, seconds=seconds)
