"""Build, refresh and inspect the index of one repository (incremental, by content hash).

    build_index   walk + hash; nothing changed -> no-op; else re-parse only changed files
                  (the previous generation is the parse and token cache), rebuild BM25 from
                  cached tokens, embed only texts missing from the shared embedding cache,
                  rebuild the graph, write a new generation atomically.
    ensure_index  what every reading command calls: a fresh `Index` and the report saying
                  whether it refreshed and which files changed. While another process holds
                  the writer lock it answers from the current generation as it is (a note
                  says so, `stale` in the report); with none usable it waits for the writer.
    index_status  fresh or not (part digests included), what changed since the build,
                  revisions, size on disk.
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import BadPathError, IndexCorruptError, IndexLockedError
from helix.core.notices import notify
from helix.core.paths import index_dir_for
from helix.core.ports import Embedder
from helix.core.schemas import Chunk, FileRecord
from indexers import version
from indexers.build_embed import embed
from indexers.formats import (
    CHUNK_FIELDS,
    DEF_FIELDS,
    FILE_FIELDS,
    PART_CARDS,
    PART_CHUNKS,
    PART_DEFS,
    PART_FILES,
    PART_GRAPH,
    PART_REFS,
    PART_TREES,
    REF_FIELDS,
    CachedParse,
    RefRow,
    dump_cards,
    dump_graph,
    dump_rows,
    graph_digest,
    paused_gc,
)
from indexers.previous import (
    Previous,
    is_sound,
    load_previous,
    parse_hash,
    reusable,
)
from indexers.reader import Index
from indexers.reports import BuildReport, StatusReport, kept_report
from indexers.store import (
    DIR_BM25,
    DIR_BM25_FILES,
    DIR_DENSE,
    IndexStore,
    Manifest,
    now,
    repo_revision,
)
from indexers.token_cache import DIR_TOKENS
from indexers.token_cache import merge as merge_tokens
from indexers.trees import TreeFormatError, TreeNode, is_tree_file, parse_tree_file

# progress(stage, done, total)
Progress = Callable[[str, int, int], None]
STAGES = ("walk", "parse", "bm25", "embed", "graph", "write")
PROGRESS_EVERY = 50  # files between progress updates while parsing
# A reader finding the writer lock held and no usable generation waits this long for it (a
# first build of a large repository takes minutes).
READER_WAIT_S = 300.0


def _resolve_root(root: Path) -> Path:
    path = Path(root).expanduser()
    if not path.exists():
        raise BadPathError(f"path does not exist: {root}")
    if not path.is_dir():
        raise BadPathError(f"not a directory: {root}")
    return path.resolve()


def _store_for(root: Path, index_dir: Path | None) -> IndexStore:
    """The index directory of `root`, refused when it is the root or contains it."""
    directory = Path(index_dir).expanduser().resolve() if index_dir else index_dir_for(root)
    store = IndexStore(directory)
    store.check_location(root)
    return store


def _diff(old: dict[str, str], new: dict[str, str]) -> tuple[list[str], list[str], list[str]]:
    added = sorted(p for p in new if p not in old)
    removed = sorted(p for p in old if p not in new)
    modified = sorted(p for p in new if p in old and old[p] != new[p])
    return added, modified, removed


def _ignore_inside(directory: Path, root: Path) -> None:
    """An index kept inside the repository must not index itself: ignore it like git would."""
    if directory.is_relative_to(root):
        ignore = directory / ".gitignore"
        if not ignore.exists():
            directory.mkdir(parents=True, exist_ok=True)
            ignore.write_text("*\n", encoding="utf-8")


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


def _bm25_text(chunk: Chunk) -> str:
    # Parent headings are not in a section's own text; they locate it.
    if chunk.heading_path:
        return " / ".join(chunk.heading_path) + "\n" + chunk.text
    return chunk.text


def _counts_by_kind(items: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for kind in items:
        counts[kind] += 1
    return {**dict(sorted(counts.items())), "total": len(items)}


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


def build_index(root: Path, config: HelixConfig, *, index_dir: Path | None = None,
                embedder: Embedder | None = None, progress: Progress | None = None,
                force: bool = False) -> BuildReport:
    """Bring the index of `root` up to date; a no-op (saying so) when nothing changed."""
    root = _resolve_root(root)
    store = _store_for(root, index_dir)
    # The build allocates millions of long-lived objects; the cyclic collector would re-scan
    # them again and again (a third of the build time) and finds nothing to free.
    with store.locked(), paused_gc():
        return _build_locked(root, config, store, embedder, progress, force)


def _is_current(manifest: Manifest, hashes: dict[str, str], config: HelixConfig) -> bool:
    """The generation is what a build of these files under this config would write."""
    return (manifest.files == hashes and manifest.index_hash == config.index_hash
            and manifest.counts.get("parse_hash") == parse_hash(config.index))


def _build_locked(root: Path, config: HelixConfig, store: IndexStore,
                  embedder: Embedder | None, progress: Progress | None,
                  force: bool, parts: dict[str, Any] | None = None) -> BuildReport:
    """`parts`: filled with the new generation's parts as built (for `Index.seed`)."""
    from indexers.walker import walk

    settings = config.index
    _ignore_inside(store.directory, root)
    seconds: dict[str, float] = {}
    started = clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        current = time.perf_counter()
        seconds[stage] = round(current - clock, 4)
        clock = current

    if progress:
        progress("walk", 0, 0)
    walked = walk(root, settings)
    lap("walk")
    hashes = {w.record.path: w.record.content_hash for w in walked.files}
    skipped = {reason: len(paths) for reason, paths in sorted(walked.skipped.items())}
    prev_index, reason = load_previous(store, root, config, force)
    prev_manifest = prev_index.manifest if prev_index else None
    added, modified, removed = _diff(prev_manifest.files if prev_manifest else {}, hashes)
    unchanged = (prev_index is not None and prev_manifest is not None
                 and _is_current(prev_manifest, hashes, config))
    if unchanged and prev_index is not None:
        reason = is_sound(store, prev_index)
        if reason is not None:
            prev_index = prev_manifest = None
            added, modified, removed = _diff({}, hashes)
    if unchanged and prev_manifest is not None:
        seconds["total"] = round(time.perf_counter() - started, 4)
        return kept_report(prev_manifest.report, noop=True, seconds=seconds,
                            files_seen=walked.seen, files_skipped=skipped)

    previous, parse_reason = reusable(prev_index, config)
    reason = reason or parse_reason
    if reason is None and prev_manifest is not None and prev_manifest.index_hash != (
            config.index_hash):
        reason = "indexing settings changed; parsed files reused"
    warnings: list[str] = []
    if reason:
        warnings.append(reason)
    records: list[FileRecord] = []
    parsed: list[Any] = []
    tree_nodes: list[TreeNode] = []
    files_parsed = 0
    fresh_paths: set[str] = set()
    total = len(walked.files)
    for position, wf in enumerate(walked.files):
        hit = previous.parse(wf.record) if previous else None
        if hit is not None:
            record = (wf.record.model_copy(update={"kind": "tree", "lang": "json"})
                      if hit[1] else wf.record)
            result, nodes = hit
        else:
            record, result, nodes = _parse_one(wf.record, wf.text, settings, warnings)
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
            rows.append(tokenize(_bm25_text(chunk)))
        else:
            tokens_cached += 1
            rows.append(cached_row)
    token_table = merge_tokens(rows, previous.token_table if previous else None)
    bm25, file_bm25 = BM25Index.build_with_files(
        [c.id for c in chunks], [c.path for c in chunks], token_table.vocab, token_table.flat,
        np.diff(token_table.offsets))
    lap("bm25")

    cards: dict[str, Any] = {}
    if (previous is not None and settings.embed_enabled and prev_manifest is not None
            and prev_manifest.index_hash == config.index_hash):
        cards = previous.cards({c.id for c in chunks if c.path not in fresh_paths})
    dense, model_key, embed_stats = embed(chunks, settings, embedder, progress, cards)
    lap("embed")

    if progress:
        progress("graph", 0, 0)
    graph, graph_updated = _graph(records, parsed, tree_nodes, previous, added, modified,
                                  removed)
    lap("graph")

    if progress:
        progress("write", 0, 0)
    writer = store.writer()
    try:
        writer.write_bytes(PART_FILES, dump_rows(records, FILE_FIELDS))
        writer.write_bytes(PART_CHUNKS, dump_rows(chunks, CHUNK_FIELDS))
        writer.write_bytes(PART_DEFS, dump_rows(defs, DEF_FIELDS))
        writer.write_bytes(PART_REFS, dump_rows(refs, REF_FIELDS))
        token_table.save(writer.subdir(DIR_TOKENS))
        writer.write_json(PART_TREES, [t.model_dump(mode="json") for t in tree_nodes])
        writer.write_bytes(PART_GRAPH, dump_graph(graph))
        if settings.embed_enabled:
            writer.write_bytes(PART_CARDS, dump_cards({c.id: cards[c.id] for c in chunks}))
        bm25.save(writer.subdir(DIR_BM25))
        file_bm25.save(writer.subdir(DIR_BM25_FILES))
        if dense is not None:
            dense.save(writer.subdir(DIR_DENSE))
        from indexers.graph import edge_counts

        edges = edge_counts(graph)
        report: dict[str, Any] = {
            "root": str(root), "index_dir": str(store.directory), "files_seen": walked.seen,
            "files_indexed": len(records), "files_skipped": skipped,
            "changed_files": tuple(sorted({*added, *modified, *removed})),
            "added": tuple(added), "modified": tuple(modified), "removed": tuple(removed),
            "files_parsed": files_parsed,
            "chunks": _counts_by_kind([c.kind for c in chunks]),
            "symbols": {"defs": len(defs), "refs": len(refs)},
            "graph_nodes": graph.number_of_nodes(),
            "graph_edges": {**edges, "total": sum(edges.values())},
            "repo_rev": repo_revision(root, hashes), "noop": False, "refreshed": True,
            "rebuild_reason": reason, "embeddings": embed_stats,
            "graph_updated": graph_updated,
            "tokens": {"cached": tokens_cached, "computed": len(chunks) - tokens_cached},
            "warnings": tuple(warnings),
        }
        lap("write")
        report["seconds"] = {**seconds, "total": round(time.perf_counter() - started, 4)}
        manifest = writer.commit(
            index_hash=config.index_hash, embed_model_key=model_key, files=hashes,
            repo_rev=report["repo_rev"],
            counts={"parse_hash": parse_hash(settings), "index_code": version.index_code_digest(),
                    "graph_digest": graph_digest(graph),
                    "chunks": len(chunks),
                    "files": len(records), "defs": len(defs), "refs": len(refs)},
            report=report, created=now())
    except BaseException:
        writer.abort()
        raise
    if parts is not None:
        parts.update(files=records, chunks=chunks, defs=defs, refs=refs, trees=tree_nodes,
                     graph=graph, bm25=bm25, dense=dense, tokens=token_table,
                     bm25_files=file_bm25)
    return BuildReport.model_validate(manifest.report)


def _repair_command(root: Path, index_dir: Path | None) -> str:
    where = f" --index-dir {Path(index_dir).expanduser().resolve()}" if index_dir else ""
    return f"helix index --force {root}{where}"


def _when(created: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(created))


def _read_unlocked(root: Path, config: HelixConfig, store: IndexStore,
                   query_embedder: Embedder | None, repair: str
                   ) -> tuple[Index, BuildReport] | None:
    """Another process holds the writer lock (a reader checking freshness, or a writer
    building): the current generation, checked, without the lock. Up to date: a plain no-op.
    Otherwise it is used as it is, with a one-line note (`stale`). None: none usable."""
    from indexers.walker import walk

    started = time.perf_counter()
    busy = ("the index is being rebuilt by another helix process; try again when it has "
            f"finished, or {repair}")
    current = Index.open_unlocked(store, root, config.index, query_embedder, busy)
    if current is None:
        return None
    walked = walk(root, config.index)
    hashes = {w.record.path: w.record.content_hash for w in walked.files}
    manifest = current.manifest
    seen = {"files_seen": walked.seen, "files_skipped": {
        reason: len(paths) for reason, paths in sorted(walked.skipped.items())}}
    seconds = {"total": round(time.perf_counter() - started, 4)}
    if _is_current(manifest, hashes, config):
        return current, kept_report(manifest.report, noop=True, seconds=seconds, **seen)
    note = (f"the index at {store.directory} is being rebuilt by another helix process; "
            f"answering from the generation built at {_when(manifest.created)} "
            f"(repo_rev {manifest.repo_rev})")
    notify(note)
    return current, kept_report(manifest.report, stale=True, seconds=seconds,
                                warnings=(note,), **seen)


def ensure_index(root: Path, config: HelixConfig, *, index_dir: Path | None = None,
                 embedder: Embedder | None = None, progress: Progress | None = None,
                 query_embedder: Embedder | None = None) -> tuple[Index, BuildReport]:
    """A fresh index of `root` (refreshed first when files changed) and the report.

    A reader never queues behind a writer: when another process holds the lock, the current
    generation (manifest and parts checked) is used without it (`_read_unlocked`); only when
    there is no usable generation does it wait for the writer (up to READER_WAIT_S). A
    rebuild's reason (a corrupt part, another version) is a one-line note."""
    root = _resolve_root(root)
    store = _store_for(root, index_dir)
    repair = f"run `{_repair_command(root, index_dir)}` to rebuild it"
    parts: dict[str, Any] = {}
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(store.locked(timeout=0))
        except IndexLockedError:
            used = _read_unlocked(root, config, store, query_embedder, repair)
            if used is not None:
                return used
            notify(f"another helix process is building the index at {store.directory}; "
                   f"waiting for it (up to {READER_WAIT_S:g} s)")
            held.enter_context(store.locked(timeout=READER_WAIT_S))
        held.enter_context(paused_gc())
        report = _build_locked(root, config, store, embedder, progress, False, parts)
    if report.rebuild_reason:
        notify(report.rebuild_reason)
    # The build checked (or wrote) every part of that generation a moment ago.
    index = Index.open(store, root, config.index, query_embedder, verified_rev=report.index_rev,
                       repair=repair)
    if parts and index.index_rev == report.index_rev:
        index.seed(parts)  # a refresh: its parts are in memory already, no need to read them
    return index, report


def index_status(root: Path, config: HelixConfig, index_dir: Path | None = None) -> StatusReport:
    from indexers.walker import walk

    root = _resolve_root(root)
    store = _store_for(root, index_dir)
    store.claim(create=False)  # a directory Helix does not own is refused, even to read
    base: dict[str, Any] = {"root": str(root), "index_dir": str(store.directory)}
    try:
        generation = store.current_dir()
        manifest = store.read_manifest(generation) if generation else None
    except IndexCorruptError as exc:
        return StatusReport(**base, current_repo_rev=repo_revision(root), exists=True,
                            fresh=False, problem=str(exc), size_bytes=store.size_bytes())
    if manifest is None or generation is None:
        return StatusReport(**base, current_repo_rev=repo_revision(root), exists=False,
                            fresh=False, problem="not indexed yet")
    hashes = {w.record.path: w.record.content_hash for w in walk(root, config.index).files}
    base["current_repo_rev"] = repo_revision(root, hashes)
    added, modified, removed = _diff(manifest.files, hashes)
    problem = None
    if manifest.index_hash != config.index_hash:
        problem = "indexing settings changed since the build"
    elif manifest.counts.get("index_code") != version.index_code_digest():
        problem = "Helix's indexing code changed since the build"
    else:
        try:  # parts changed on disk since their last check are hashed again
            store.verify_all(generation, manifest, record=False)
        except IndexCorruptError as exc:
            problem = f"{exc}; `helix index` rebuilds it"
    return StatusReport(
        **base, exists=True, fresh=not (added or modified or removed or problem),
        problem=problem, changed_files=tuple(sorted({*added, *modified, *removed})),
        added=tuple(added), modified=tuple(modified), removed=tuple(removed),
        built_repo_rev=manifest.repo_rev, index_rev=manifest.index_rev,
        built_at=manifest.created, files_indexed=len(manifest.files),
        size_bytes=store.size_bytes())
