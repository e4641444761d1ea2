"""Build, refresh and inspect the index of one repository (incremental, by content hash).

    build_index   walk + hash; nothing changed -> no-op; else the lexical phase
                  (`indexers.build_lexical`: re-parse only changed files, BM25 from cached
                  tokens, the graph), the dense phase (`indexers.build_dense`: embed only
                  texts missing from the shared embedding cache), and one generation written
                  atomically. A running dense worker is waited for first (it holds the lock).
    ensure_index  what every reading command calls: a fresh `Index` and the report saying
                  whether it refreshed and which files changed. While another process holds
                  the writer lock it answers from the current generation as it is (a note
                  says so, `stale` in the report); with none usable it waits for the writer.
                  `dense="background"` (`helix ask`): lexical first; when many vectors are
                  missing the generation holds those the cache has and a background worker
                  (`indexers.dense_worker`) embeds the rest, publishing as it goes.
    index_status  fresh or not (part digests included), what changed since the build,
                  revisions, size on disk.
"""

from __future__ import annotations

import contextlib
import errno
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import BadPathError, IndexCorruptError, IndexLockedError
from helix.core.git import repo_revision
from helix.core.notices import notify
from helix.core.paths import index_dir_for, user_path
from helix.core.ports import Embedder, Progress
from helix.core.schemas import Chunk
from indexers import dense_worker, version
from indexers.blob_stats import revision
from indexers.build_dense import cached_dense, complete_dense, plan_dense, selection_settings
from indexers.build_embed import embed
from indexers.build_history import build_history_part, is_current
from indexers.build_lexical import Lexical, build_lexical
from indexers.formats import PART_CARDS, PART_HISTORY, dump_cards, paused_gc
from indexers.previous import is_sound, load_previous, parse_hash, reusable
from indexers.reader import Index
from indexers.reports import BuildReport, StatusReport, kept_report
from indexers.secret_scan import Scanner
from indexers.shards import ParseMap, parse_in_shards
from indexers.store import (
    DIR_BM25,
    DIR_BM25_FILES,
    DIR_DENSE,
    GenerationWriter,
    IndexStore,
    dense_state,
    now,
)
from indexers.token_cache import DIR_TOKENS

# progress(stage, done, total)
STAGES = ("walk", "parse", "bm25", "graph", "embed", "write")
# "wait": every vector before returning; "background": lexical first, vectors by the worker
DenseMode = Literal["wait", "background"]
# A reader finding the writer lock held and no usable generation waits this long for it (a
# first build of a large repository takes minutes).
READER_WAIT_S = 300.0
_READ_ONLY_ERRNOS = (errno.EROFS, errno.EACCES, errno.EPERM)


def _resolve_root(root: Path) -> Path:
    path = user_path(root)
    if not path.exists():
        raise BadPathError(f"path does not exist: {root}")
    if not path.is_dir():
        raise BadPathError(f"not a directory: {root}")
    return path.resolve()


def _store_for(root: Path, index_dir: Path | None) -> IndexStore:
    """The index directory of `root`, refused when it is the root or contains it."""
    directory = user_path(index_dir).resolve() if index_dir else index_dir_for(root)
    store = IndexStore(directory)
    store.check_location(root)
    return store


def index_store(root: Path, index_dir: Path | None = None) -> IndexStore:
    """The index directory of the repository at `root` (`--index-dir` or the default)."""
    return _store_for(_resolve_root(root), index_dir)


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


def build_index(root: Path, config: HelixConfig, *, index_dir: Path | None = None,
                embedder: Embedder | None = None, progress: Progress | None = None,
                force: bool = False, dense: DenseMode = "wait",
                embed_all: bool = False, parse_map: ParseMap | None = None) -> BuildReport:
    """Bring the index of `root` up to date; a no-op (saying so) when nothing changed.
    A dense worker at work is waited for (its progress reported); a paused one is resumed:
    here (`dense="wait"`) or in a new worker ("background"). `embed_all`: from now on this
    index embeds every eligible chunk, not `index.embed_max_chunks` of them (until --force).
    `parse_map`: parse a large repository in shards through it (`indexers.shards`: Ray tasks
    on a cluster); the index is the same."""
    root = _resolve_root(root)
    store = _store_for(root, index_dir)
    dense_worker.clear_pause(store)
    dense_worker.wait_for(store, progress)
    # The build allocates millions of long-lived objects; the cyclic collector would re-scan
    # them again and again (a third of the build time) and finds nothing to free.
    with store.locked(), paused_gc():
        report = _build_locked(root, config, store, embedder, progress, force, dense=dense,
                               embed_all=embed_all, parse_map=parse_map)
    return _with_worker(store, root, config, report, start=dense == "background")


def _with_worker(store: IndexStore, root: Path, config: HelixConfig, report: BuildReport,
                 start: bool) -> BuildReport:
    """The report with the dense worker's pid while vectors are missing; `start`: start one
    when none runs (and the user did not stop it: `helix index --stop`)."""
    state = report.dense_state
    if state is None or state["complete"]:
        return report
    pid = dense_worker.start(store, root, config) if start else None
    if pid is None:
        pid = dense_worker.running_pid(store)
    return report.model_copy(update={"worker_pid": pid})


def _build_locked(root: Path, config: HelixConfig, store: IndexStore,
                  embedder: Embedder | None, progress: Progress | None,
                  force: bool, parts: dict[str, Any] | None = None,
                  dense: DenseMode = "wait", embed_all: bool = False,
                  parse_map: ParseMap | None = None) -> BuildReport:
    """Walk, then (unless nothing changed) the lexical phase, the dense phase and the write of
    one generation. `parts`: filled with the new generation's parts as built (`Index.seed`).
    `dense`: "wait" embeds every missing vector now (and completes a generation a worker left
    incomplete); "background" embeds now only when at most `index.dense_inline_max` are
    missing, else writes the vectors the cache has and leaves the rest to the worker."""
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
    walked = walk(root, settings, store.directory)
    lap("walk")
    hashes = {w.record.path: w.record.content_hash for w in walked.files}
    skipped = {reason: len(paths) for reason, paths in sorted(walked.skipped.items())}
    seen = {"files_seen": walked.seen, "files_skipped": skipped}
    prev_index, reason = load_previous(store, root, config, force)
    prev_manifest = prev_index.manifest if prev_index else None
    added, modified, removed = _diff(prev_manifest.files if prev_manifest else {}, hashes)
    unchanged = (prev_index is not None and prev_manifest is not None
                 and is_current(prev_manifest, hashes, config, root))
    if unchanged and prev_index is not None:
        reason = is_sound(store, prev_index)
        if reason is not None:
            prev_index = prev_manifest = None
            added, modified, removed = _diff({}, hashes)
    prev_dense = dense_state(prev_manifest.counts) if prev_manifest is not None else None
    embed_all = embed_all or bool(prev_dense and prev_dense.get("all"))  # kept once asked
    if unchanged and prev_manifest is not None:
        state = prev_dense
        widen = embed_all and state is not None and not state.get("all")
        if state is not None and (widen or (dense == "wait" and not state["complete"])):
            # lexically current, vectors missing (a worker was stopped or killed) or the
            # selection widened to every eligible chunk: finish it (or, in the background,
            # publish the widened selection and leave the vectors to the worker)
            complete_dense(store, root, config, embedder=embedder, progress=progress,
                           embed_all=embed_all, embed=dense == "wait")
            current = store.current_dir()
            assert current is not None
            manifest = store.read_manifest(current)
            seconds["total"] = round(time.perf_counter() - started, 4)
            return kept_report(manifest.report, root, store.directory, refreshed=True,
                               seconds=seconds,
                               embeddings=manifest.report.get("embeddings", {}), **seen)
        seconds["total"] = round(time.perf_counter() - started, 4)
        return kept_report(prev_manifest.report, root, store.directory, noop=True,
                           seconds=seconds, **seen)

    previous, parse_reason = reusable(prev_index, config)
    reason = reason or parse_reason
    if reason is None and prev_manifest is not None and prev_manifest.index_hash != (
            config.index_hash):
        reason = "indexing settings changed; parsed files reused"
    warnings: list[str] = []
    if reason:
        warnings.append(reason)
    # the lexical phase writes rows and graph straight into the new generation's directory
    writer = store.writer()
    try:
        sharded_at = time.perf_counter()
        parsed = parse_in_shards(walked.files, previous, config, parse_map)
        if parsed is not None:
            seconds["parse_shards"] = round(time.perf_counter() - sharded_at, 4)
        with Scanner(settings, store.directory) as scanner:
            lexical = build_lexical(walked.files, config, previous, (added, modified, removed),
                                    warnings, progress, writer.tmp, scanner, parsed)
            scanner.close(set(hashes))
        seconds.update(lexical.seconds)
        clock = time.perf_counter()
        history = build_history_part(root, settings, lexical, prev_index)
        if history is not None:
            seconds["history"] = round(time.perf_counter() - clock, 4)
            clock = time.perf_counter()

        cards: dict[str, Any] = {}
        if (previous is not None and settings.embed_enabled and prev_manifest is not None
                and prev_manifest.index_hash == config.index_hash):
            cards = previous.cards({c.id for c in lexical.chunks
                                    if c.path not in lexical.fresh_paths})
        vectors, model_key, embed_stats, state = _dense_phase(
            lexical.chunks, selection_settings(settings, embed_all), embedder, progress, cards,
            dense)
        if state is not None:  # how much of the repository the selection covers
            state = {**state, "eligible": sum(1 for card in cards.values() if card is not None),
                     "chunks": lexical.counts["chunks"]["total"],
                     **({"all": True} if embed_all else {})}
        lap("embed")
        changes = {"added": added, "modified": modified, "removed": removed, "reason": reason,
                   "warnings": warnings, "seen": seen, "hashes": hashes, "history": history,
                   "built_whole": prev_manifest is None}
        return _write(root, config, store, writer, lexical,
                      (vectors, model_key, embed_stats, state), cards, changes, progress,
                      seconds, started, parts)
    except BaseException:
        writer.abort()
        raise


def _dense_phase(chunks: Sequence[Chunk], settings: IndexSettings, embedder: Embedder | None,
                 progress: Progress | None, cards: dict[str, Any], dense: DenseMode
                 ) -> tuple[Any, str | None, dict[str, int], dict[str, int] | None]:
    """(DenseIndex or None, model key, embedding stats, counts["dense"] or None)."""
    if not settings.embed_enabled:
        return None, None, {"cached": 0, "computed": 0, "total": 0}, None
    if dense == "background":
        plan = plan_dense(chunks, settings, embedder, cards)
        if plan.model_key is not None and plan.missing > settings.dense_inline_max:
            index, stats = cached_dense(plan)
            return index, plan.model_key, stats, plan.counts(len(index))
    index, model_key, stats = embed(chunks, settings, embedder, progress, cards)
    return index, model_key, stats, {"vectors": len(index), "total": stats["total"]}


def _write(root: Path, config: HelixConfig, store: IndexStore, writer: GenerationWriter,
           lexical: Lexical,
           dense: tuple[Any, str | None, dict[str, int], dict[str, int] | None],
           cards: dict[str, Any], changes: dict[str, Any], progress: Progress | None,
           seconds: dict[str, float], started: float,
           parts: dict[str, Any] | None) -> BuildReport:
    """One generation from the phases' results, written atomically."""
    settings = config.index
    vectors, model_key, embed_stats, state = dense
    chunks, summary = lexical.chunks, lexical.graph_summary
    # what was parsed: a file edited since the walk is recorded with the bytes it was read with
    hashes = {r.path: r.content_hash for r in lexical.records}
    added, modified, removed = changes["added"], changes["modified"], changes["removed"]
    clock = time.perf_counter()
    if progress:
        progress("write", 0, 0)
    # rows.sqlite and graph.sqlite are in writer.tmp already (the lexical phase wrote them)
    lexical.token_table.save(writer.subdir(DIR_TOKENS))
    if settings.embed_enabled:
        writer.write_bytes(PART_CARDS, dump_cards({c.id: cards[c.id] for c in chunks}))
    history = changes.get("history")
    if history is not None:
        writer.write_bytes(PART_HISTORY, history[0])
    lexical.bm25.save(writer.subdir(DIR_BM25))
    lexical.file_bm25.save(writer.subdir(DIR_BM25_FILES))
    if vectors is not None:
        vectors.save(writer.subdir(DIR_DENSE))
    counted = lexical.counts
    report: dict[str, Any] = {
        "root": str(root), "index_dir": str(store.directory), **changes["seen"],
        "files_indexed": len(lexical.records),
        "changed_files": tuple(sorted({*added, *modified, *removed})),
        "added": tuple(added), "modified": tuple(modified), "removed": tuple(removed),
        "files_parsed": lexical.files_parsed,
        "chunks": counted["chunks"],
        "symbols": {"defs": counted["defs"], "refs": counted["refs"]},
        "graph_nodes": summary.nodes,
        "graph_edges": {**summary.edges, "total": sum(summary.edges.values())},
        "repo_rev": revision(root, hashes, store.directory), "noop": False, "refreshed": True,
        "built_whole": changes["built_whole"],
        "rebuild_reason": changes["reason"], "embeddings": embed_stats,
        "dense_state": dense_state({"dense": state}) if state is not None else None,
        "graph_updated": lexical.graph_updated,
        "tokens": {"cached": lexical.tokens_cached,
                   "computed": counted["chunks"]["total"] - lexical.tokens_cached},
        "warnings": tuple(changes["warnings"]),
        "secret_scan": lexical.scan,
        **({"history": history[1]} if history is not None else {}),
    }
    seconds["write"] = round(time.perf_counter() - clock, 4)
    report["seconds"] = {**seconds, "total": round(time.perf_counter() - started, 4)}
    counts: dict[str, Any] = {
        "parse_hash": parse_hash(settings), "index_code": version.index_code_digest(),
        "graph_digest": summary.digest, "chunks": counted["chunks"]["total"],
        "files": len(lexical.records), "defs": counted["defs"], "refs": counted["refs"]}
    if state is not None:
        counts["dense"] = state
    lexical.close()
    manifest = writer.commit(
        index_hash=config.index_hash, embed_model_key=model_key, files=hashes,
        repo_rev=report["repo_rev"], counts=counts, report=report, created=now())
    if parts is not None:
        parts.update(bm25=lexical.bm25, dense=vectors, tokens=lexical.token_table,
                     bm25_files=lexical.file_bm25)
    return BuildReport.model_validate(manifest.report)


def _repair_command(root: Path, index_dir: Path | None) -> str:
    where = f" --index-dir {user_path(index_dir).resolve()}" if index_dir else ""
    return f"helix index --force {root}{where}"


def _when(created: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(created))


def _read_only(root: Path, config: HelixConfig, store: IndexStore,
               query_embedder: Embedder | None, repair: str, exc: OSError
               ) -> tuple[Index, BuildReport]:
    """The index directory cannot be written: its current generation as it is (one line when
    it is out of date, saying why it is not refreshed), else an index of this command's own
    in a temporary directory (`indexers.ephemeral`), else one line saying neither can be."""
    why = f"cannot be written ({exc.strerror})"
    used = _read_unlocked(root, config, store, query_embedder, repair, holder=why)
    if used is not None:
        return used
    from indexers.ephemeral import temporary_index

    try:
        built = temporary_index(root, config)
    except OSError as tmp_exc:
        raise BadPathError(f"the index at {store.directory} {why} and holds no usable index, "
                           f"and no temporary index can be written ({tmp_exc.strerror})"
                           ) from None
    notify(f"the index at {store.directory} {why} and holds no index of this repository: "
           "answering from a temporary index built for this command (without embeddings; "
           "not kept)")
    return built


def _read_unlocked(root: Path, config: HelixConfig, store: IndexStore,
                   query_embedder: Embedder | None, repair: str, holder: str | None = None
                   ) -> tuple[Index, BuildReport] | None:
    """Another process holds the writer lock (a reader checking freshness, or a writer
    building), or (`holder` says why) the directory cannot be written: the current
    generation, checked, without the lock. Up to date: a plain no-op. Otherwise it is used as
    it is, with a one-line note (`stale`). None: none usable."""
    from indexers.walker import walk

    started = time.perf_counter()
    busy = ("the index is being rebuilt by another helix process; try again when it has "
            f"finished, or {repair}")
    current = Index.open_unlocked(store, root, config.index, query_embedder, busy)
    if current is None:
        return None
    walked = walk(root, config.index, store.directory)
    hashes = {w.record.path: w.record.content_hash for w in walked.files}
    manifest = current.manifest
    seen = {"files_seen": walked.seen, "files_skipped": {
        reason: len(paths) for reason, paths in sorted(walked.skipped.items())}}
    seconds = {"total": round(time.perf_counter() - started, 4)}
    if is_current(manifest, hashes, config, root):
        return current, kept_report(manifest.report, root, store.directory, noop=True,
                                    seconds=seconds, **seen)
    if holder is None:
        pid = dense_worker.running_pid(store)
        if pid is not None:  # it makes way at its next batch: the next ask refreshes
            dense_worker.request_refresh(store)
        holder = (f"is held by the dense worker (pid {pid}), which makes way for a refresh "
                  "after its current batch" if pid is not None
                  else "is being rebuilt by another helix process")
    note = (f"the index at {store.directory} {holder}; "
            f"answering from the generation built at {_when(manifest.created)} "
            f"(repo_rev {manifest.repo_rev}), without the changes since")
    notify(note)
    return current, kept_report(manifest.report, root, store.directory, stale=True,
                                seconds=seconds, warnings=(note,), **seen)


def declined_embeddings(root: Path, config: HelixConfig, index_dir: Path | None = None,
                        quiet: bool = False) -> HelixConfig:
    """`config` with embeddings off when the current index was built without them (`helix
    index --no-embed`) and that is all that differs: a later question answers from that index
    instead of rebuilding it with vectors (`helix index` adds them)."""
    if not config.index.embed_enabled:
        return config
    lexical = config.model_copy(update={
        "index": config.index.model_copy(update={"embed_enabled": False})})
    try:
        store = _store_for(_resolve_root(root), index_dir)
        current = store.current_dir() if store.owned() else None
        manifest = store.read_manifest(current) if current is not None else None
    except (IndexCorruptError, BadPathError, OSError):
        return config
    if manifest is None or manifest.index_hash != lexical.index_hash:
        return config
    if not quiet:
        notify("the index was built without embeddings (helix index --no-embed): answering "
               "from it as it is; `helix index` adds them")
    return lexical


def ensure_index(root: Path, config: HelixConfig, *, index_dir: Path | None = None,
                 embedder: Embedder | None = None, progress: Progress | None = None,
                 query_embedder: Embedder | None = None,
                 dense: DenseMode = "wait") -> tuple[Index, BuildReport]:
    """A fresh index of `root` (refreshed first when files changed) and the report.

    A reader never queues behind a writer: when another process holds the lock (a writer, or
    the dense worker for minutes), the current generation (manifest and parts checked) is
    used without it (`_read_unlocked`); only when there is no usable generation does it wait
    for the writer (up to READER_WAIT_S). A rebuild's reason (a corrupt part, another
    version) is a one-line note. `dense="wait"` first waits for a running dense worker (the
    caller wants every vector); "background" starts one when vectors are missing and none
    runs (never a second one: the worker lock decides)."""
    root = _resolve_root(root)
    store = _store_for(root, index_dir)
    repair = f"run `{_repair_command(root, index_dir)}` to rebuild it"
    parts: dict[str, Any] = {}
    if dense == "wait":
        dense_worker.wait_for(store, progress)
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(store.locked(timeout=0))
        except OSError as exc:
            if exc.errno not in _READ_ONLY_ERRNOS:
                raise
            # $HELIX_HOME on a read-only file system (or not ours to write): answer from the
            # current generation as it is, saying so; nothing can be refreshed
            return _read_only(root, config, store, query_embedder, repair, exc)
        except IndexLockedError:
            used = _read_unlocked(root, config, store, query_embedder, repair)
            if used is not None:
                index, report = used
                return index, _with_worker(store, root, config, report, start=False)
            notify(f"another helix process is building the index at {store.directory}; "
                   f"waiting for it (up to {READER_WAIT_S:g} s)")
            held.enter_context(store.locked(timeout=READER_WAIT_S))
        held.enter_context(paused_gc())
        report = _build_locked(root, config, store, embedder, progress, False, parts, dense)
    if report.rebuild_reason:
        notify(report.rebuild_reason)
    # The build checked (or wrote) every part of that generation a moment ago.
    index = Index.open(store, root, config.index, query_embedder, verified_rev=report.index_rev,
                       repair=repair)
    if parts and index.index_rev == report.index_rev:
        index.seed(parts)  # a refresh: its parts are in memory already, no need to read them
    return index, _with_worker(store, root, config, report, start=dense == "background")


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
    hashes = {w.record.path: w.record.content_hash
              for w in walk(root, config.index, store.directory).files}
    base["current_repo_rev"] = revision(root, hashes, store.directory)
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
        size_bytes=store.size_bytes(), dense_state=dense_state(manifest.counts),
        worker=dense_worker.status(store))
