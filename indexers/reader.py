"""`Index`: the reader of one index generation (`indexers.api.IndexReader`).

A question reads only what it needs: chunks by id, path or node, definitions and references by
name are indexed queries on `rows.sqlite` (`indexers.row_store`), the graph is a `LazyGraph`
over `graph.sqlite` (`indexers.graph_store`) that fetches the nodes and edges a step visits, and
BM25 is memory-mapped. Whole tables (`chunks()`, `definitions()`, ...) are still there for the
builder's cache and the dense selection. Each part's digest is checked on first use unless the
builder of this very generation just verified it (`verified=True`). The generations themselves
(writing, CURRENT, manifest, lock) are `indexers.store`'s.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helix.core.config import IndexSettings
from helix.core.errors import IndexCorruptError
from helix.core.ports import Embedder
from helix.core.schemas import (
    Chunk,
    ChunkHead,
    FileRecord,
    Hit,
    SymbolDef,
    SymbolRef,
    node_id_def,
    node_id_file,
)
from indexers.formats import PART_HISTORY, DefRow, RefRow, paused_gc, trusted
from indexers.fuzzy import FuzzyNames
from indexers.graph_store import PART_GRAPH_DB, GraphReader
from indexers.history import HistoryIndex
from indexers.history import load as history_load
from indexers.project import project_names
from indexers.resolve import FUZZY_MAX_NAMES
from indexers.row_store import PART_ROWS, RowReader
from indexers.store import (
    DIR_BM25,
    DIR_BM25_FILES,
    DIR_DENSE,
    IndexStore,
    Manifest,
    check_part,
    dense_generation,
    dense_state,
    read_part,
    verify_dir,
)
from indexers.token_cache import DIR_TOKENS, TokenTable
from indexers.trees import TreeNode

if TYPE_CHECKING:
    import numpy as np

    from indexers.bm25 import BM25Index
    from indexers.dense import DenseIndex
    from indexers.lazy_graph import LazyGraph


SEEDED = frozenset({"bm25", "bm25_files", "dense", "tokens"})
# Parts every Index over the same generation shares within this process (a generation never
# changes; a chat or an eval run opens a new Index for every question): by (generation
# directory, index_rev), the most recent few generations. Whole tables are not shared.
SHARED = frozenset({"bm25", "bm25_files", "dense", "tokens", "files", "rows", "graph", "fuzzy",
                    "history"})
_SHARED: dict[tuple[str, str], dict[str, Any]] = {}
_SHARED_KEPT = 2
MEMO_KEPT = 20_000  # entries of one kind of lookup (`Index._memo`) kept per generation


class Index:
    """`indexers.api.IndexReader` over one generation; each part is read on first use."""

    def __init__(self, root: Path, generation: Path, manifest: Manifest,
                 settings: IndexSettings, query_embedder: Embedder | None = None,
                 verified: bool = False, repair: str | None = None) -> None:
        """`verified`: every part's digest was just checked (by the builder in this
        process), so reads skip the second check. `repair`: what to tell the user to run
        when a part turns out corrupt while answering (added to the IndexCorruptError)."""
        self._check = not verified
        self._repair = repair
        self._root = root
        self._gen = generation
        self.manifest = manifest
        self._settings = settings
        self._query_embedder = query_embedder
        self._cache: dict[str, Any] = {}
        key = (str(generation), manifest.index_rev)
        if key not in _SHARED:
            while len(_SHARED) >= _SHARED_KEPT:
                _SHARED.pop(next(iter(_SHARED)))
            _SHARED[key] = {}
        self._shared = _SHARED[key]

    @classmethod
    def open(cls, store: IndexStore, root: Path, settings: IndexSettings,
             query_embedder: Embedder | None = None, verified_rev: str | None = None,
             repair: str | None = None) -> Index:
        """The current generation. `verified_rev`: the index_rev whose parts the caller has
        just checked; digests are checked again on read unless the generation is that one."""
        generation = store.current_dir()
        if generation is None:
            raise IndexCorruptError(f"no index at {store.directory}")
        manifest = store.read_manifest(generation)
        return cls(root, generation, manifest, settings, query_embedder,
                   verified=verified_rev is not None and verified_rev == manifest.index_rev,
                   repair=repair)

    @classmethod
    def open_unlocked(cls, store: IndexStore, root: Path, settings: IndexSettings,
                      query_embedder: Embedder | None = None,
                      repair: str | None = None) -> Index | None:
        """The current generation for a reader that cannot take the writer lock (another
        process is building the next one): its manifest and every part checked (digests of
        parts changed on disk since their last check; nothing recorded), else None. Safe while
        the writer commits: the generation it replaces is kept (`KEEP_PREVIOUS`)."""
        try:
            generation = store.current_dir()
            if generation is None:
                return None
            manifest = store.read_manifest(generation)
            store.verify_all(generation, manifest, record=False)
        except IndexCorruptError:
            return None
        return cls(root, generation, manifest, settings, query_embedder, verified=True,
                   repair=repair)

    def seed(self, parts: dict[str, Any]) -> None:
        """Parts the builder of this very generation holds in memory (what reading them
        would give). Only the search structures are kept (bm25, bm25_files, dense, tokens):
        rows and the graph are read by key from disk, so holding the builder's copies would
        only keep the whole repository in memory."""
        self._cache.update({k: v for k, v in parts.items() if k in SEEDED})
        self._shared.update({k: v for k, v in parts.items() if k in SEEDED & SHARED})
        gc.freeze()

    def _part(self, key: str, load: Callable[[], Any]) -> Any:
        shared = key in SHARED or key.startswith("memo:")
        if key not in self._cache and shared and key in self._shared:
            self._cache[key] = self._shared[key]
        if key not in self._cache:
            with paused_gc():
                try:
                    self._cache[key] = load()
                except IndexCorruptError as exc:
                    if self._repair is None or str(exc).endswith(self._repair):
                        raise  # (a part built from another says it once)
                    raise IndexCorruptError(f"{exc}; {self._repair}") from None
            # Parts live as long as the process: keep the collector from re-scanning their
            # hundreds of thousands of objects on every later full collection.
            gc.freeze()
            if shared:
                self._shared[key] = self._cache[key]
        return self._cache[key]

    def _checked(self, rel: str) -> Path:
        """A part's path, its digest checked first (unless verified)."""
        if self._check:
            check_part(self._gen, self.manifest, rel)
        return self._gen / rel

    def _raw(self, rel: str) -> bytes:
        """A (small, JSON) part's bytes, checked unless verified."""
        return read_part(self._gen, self.manifest, rel, self._check)

    def history_bytes(self) -> bytes:
        """The history part's bytes (`indexers.history`); IndexCorruptError when absent."""
        return self._raw(PART_HISTORY)

    def history_index(self) -> HistoryIndex | None:
        """The definitions' history words as a BM25 field, when the index has them."""
        def load() -> HistoryIndex | None:
            if PART_HISTORY not in self.manifest.parts:
                return None
            table = history_load(self.history_bytes())
            if table is None:
                raise IndexCorruptError(f"index part {PART_HISTORY} is malformed")
            return HistoryIndex(table)
        return self._part("history", load)

    def rows(self) -> RowReader:
        """The generation's rows (files, chunks, definitions, references, tree nodes)."""
        return self._part("rows", lambda: RowReader(self._checked(PART_ROWS)))

    @property
    def root(self) -> Path:
        return self._root

    @property
    def generation(self) -> Path:
        return self._gen

    @property
    def repo_rev(self) -> str:
        return self.manifest.repo_rev

    @property
    def index_rev(self) -> str:
        return self.manifest.index_rev

    @property
    def dense_state(self) -> dict[str, Any] | None:
        """{"vectors", "total", "complete", "generation"} of this generation's dense part
        (`generation`: which vectors, `indexers.store.dense_generation`; vectors of the
        embed selection it holds; a lexical-first build starts with those the cache had);
        None when it has none (embeddings off)."""
        state = dense_state(self.manifest.counts)
        if state is not None:
            state["generation"] = dense_generation(self.manifest.parts)
        return state

    @property
    def graph(self) -> LazyGraph:
        """The stored graph, read node by node as it is walked (`indexers.graph_store`)."""
        from indexers.lazy_graph import LazyGraph  # networkx: only where a graph is read

        return self._part("graph", lambda: LazyGraph(GraphReader(self._checked(PART_GRAPH_DB))))

    def files(self) -> Sequence[FileRecord]:
        return self._part("files", lambda: self.rows().all_files())

    def chunks(self) -> Sequence[Chunk]:
        """Every chunk (the whole table: for the builder and the dense selection)."""
        return self._part("chunks", lambda: self.rows().all_chunks())

    def project_names(self) -> frozenset[str]:
        return self._part("project", lambda: project_names(self.files()))

    def _memo(self, name: str) -> dict[Any, Any]:
        """Lookups by key (a chunk, a path's chunks, a name's definitions): shared by every
        Index over this generation in the process (a warm server asks it again and again),
        started over past MEMO_KEPT entries so that memory stays bounded."""
        memo: dict[Any, Any] = self._part("memo:" + name, dict)
        if len(memo) > MEMO_KEPT:
            memo.clear()
        return memo

    def chunk(self, chunk_id: str) -> Chunk:
        memo = self._memo("chunk")
        if chunk_id not in memo:
            memo[chunk_id] = self.rows().chunk(chunk_id)
        found = memo[chunk_id]
        if found is None:
            raise KeyError(chunk_id)
        return found

    def _looked_up(self, kind: str, ids: Sequence[str],
                   read: Callable[[list[str]], dict[str, Any]]) -> dict[str, Any]:
        """The `kind` memo with every one of `ids` in it (None for an unknown id): those not
        looked up yet are read together."""
        memo = self._memo(kind)
        missing = [cid for cid in dict.fromkeys(ids) if cid not in memo]
        if missing:
            found = read(missing)
            for cid in missing:
                memo[cid] = found.get(cid)
        return memo

    def chunks_by_id(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """`chunk` of each id, in order (those not yet looked up read in one query)."""
        memo = self._looked_up("chunk", chunk_ids, self.rows().chunks_by_id)
        return [_known(memo, cid) for cid in chunk_ids]

    def chunk_heads(self, chunk_ids: Sequence[str]) -> list[ChunkHead]:
        """Each id's `ChunkHead`, in order (KeyError when one is unknown): a chunk already
        read gives its own; the others are read together, without their texts."""
        chunks = self._memo("chunk")
        heads = self._looked_up("head", [cid for cid in chunk_ids if chunks.get(cid) is None],
                                self.rows().chunk_heads_by_id)
        out = []
        for cid in chunk_ids:
            chunk = chunks.get(cid)
            out.append(_known(heads, cid) if chunk is None else ChunkHead(
                chunk.id, chunk.path, chunk.kind, chunk.start_line, chunk.symbol))
        return out

    def chunks_for_path(self, path: str) -> Sequence[Chunk]:
        memo = self._memo("path")
        if path not in memo:
            memo[path] = tuple(self.rows().chunks_for_path(path))
        return memo[path]

    def chunk_for_node(self, node_id: str) -> Chunk | None:
        memo = self._memo("node")
        if node_id not in memo:
            memo[node_id] = self.rows().chunk_for_node(node_id)
        return memo[node_id]

    def tokens(self) -> TokenTable:
        """The BM25 token cache, rows aligned with `chunks()`."""
        return self._part("tokens", lambda: TokenTable.load(
            verify_dir(self._gen, self.manifest, DIR_TOKENS, self._check)))

    def tree_nodes(self) -> list[TreeNode]:
        def load() -> list[TreeNode]:
            return self.rows().all_trees()
        return self._part("trees", load)

    def _bm25(self) -> BM25Index:
        def load() -> BM25Index:
            from indexers.bm25 import BM25Index

            try:
                return BM25Index.load(verify_dir(self._gen, self.manifest, DIR_BM25, self._check))
            except (OSError, ValueError, KeyError) as exc:
                raise IndexCorruptError(f"index part bm25 unreadable: {exc}") from None
        return self._part("bm25", load)

    def spelled_as(self, word: str) -> str | None:
        memo = self._memo("spelled")
        if word not in memo:
            from indexers.english_words import whole_words

            memo[word] = self._bm25().spelled_as(word, real_words=whole_words())
        found: str | None = memo[word]
        return found

    def knows(self, word: str) -> bool:
        return bool(self._bm25().known_forms([word]))

    def search_bm25_scores(self, query: str, k: int) -> list[tuple[str, float]]:
        """`search_bm25` as (chunk id, score) pairs (a pool of a thousand, without a Hit each)."""
        if not query.strip() or k <= 0:
            return []
        return self._bm25().search(query, k)

    def bm25_scores_of(self, query: str, chunk_ids: Sequence[str]
                       ) -> tuple[float, dict[str, float]]:
        """(the best chunk BM25 score for `query`, the score of each of `chunk_ids`)."""
        return self._bm25().scores_of(query, chunk_ids)

    def file_scores_of(self, query: str, paths: Sequence[str]) -> tuple[float, dict[str, float]]:
        """(the best whole-file BM25 score for `query`, the score of each of `paths`)."""
        return self._file_bm25().scores_of(query, paths)

    def search_bm25(self, query: str, k: int) -> list[Hit]:
        if not query.strip() or k <= 0:
            return []
        return [trusted(Hit, {"chunk_id": cid, "score": float(score), "channel": "bm25",
                              "rank": rank})
                for rank, (cid, score) in enumerate(self._bm25().search(query, k), start=1)]

    def _file_bm25(self) -> BM25Index:
        def load() -> BM25Index:
            from indexers.bm25 import BM25Index, build_file_index

            if not any(rel.startswith(DIR_BM25_FILES + "/") for rel in self.manifest.parts):
                # a generation written before file BM25 existed: build it from the token cache
                table = self.tokens()
                paths = self.rows().chunk_paths()
                if len(table.offsets) != len(paths) + 1:
                    raise IndexCorruptError("index token cache does not match the chunks")
                return build_file_index(paths, table.vocab, table.flat, table.offsets)
            try:
                return BM25Index.load(
                    verify_dir(self._gen, self.manifest, DIR_BM25_FILES, self._check))
            except (OSError, ValueError, KeyError) as exc:
                raise IndexCorruptError(f"index part bm25_files unreadable: {exc}") from None
        return self._part("bm25_files", load)

    def search_files(self, query: str, k: int) -> list[tuple[str, float]]:
        """Whole files ranked by BM25 (path, score), score desc then path asc."""
        if not query.strip() or k <= 0:
            return []
        return self._file_bm25().search(query, k)

    def _dense(self) -> DenseIndex | None:
        def load() -> DenseIndex | None:
            if not any(rel.startswith(DIR_DENSE + "/") for rel in self.manifest.parts):
                return None
            from indexers.dense import DenseIndex

            try:
                return DenseIndex.load(verify_dir(self._gen, self.manifest, DIR_DENSE, self._check))
            except (OSError, ValueError, KeyError) as exc:
                raise IndexCorruptError(f"index part dense unreadable: {exc}") from None
        return self._part("dense", load)

    def search_dense(self, query: str, k: int) -> list[Hit]:
        dense = self._dense()
        if dense is None or len(dense) == 0 or not query.strip() or k <= 0:
            return []
        if self._query_embedder is None:
            from indexers.encoder import query_embedder

            self._query_embedder = query_embedder(self._settings)
        if self._query_embedder.model_key != self.manifest.embed_model_key:
            return []  # vectors of another model are not comparable
        vector = self._query_embedder.embed([query])[0]
        return self.search_vector(vector, self._query_embedder.model_key, k)

    def search_vector(self, vector: np.ndarray, model_key: str, k: int) -> list[Hit]:
        dense = self._dense()
        if dense is None or len(dense) == 0 or k <= 0 or model_key != self.manifest.embed_model_key:
            return []  # nothing embedded, or vectors of another model (not comparable)
        return [Hit(chunk_id=cid, score=score, channel="dense", rank=rank)
                for rank, (cid, score) in enumerate(dense.search(vector, k), start=1)]

    def definitions(self) -> list[SymbolDef]:
        """Every definition (the whole table: for the builder's cache)."""
        return self._part("defs", lambda: self.rows().all_defs())

    def definition_rows(self) -> list[DefRow]:
        """Every definition as a light row (the name-words table's input)."""
        return self._part("def_rows", lambda: self.rows().all_def_rows())

    def refs(self) -> list[RefRow]:
        """Every reference (the whole table: for the builder's cache)."""
        return self._part("refs", lambda: self.rows().all_refs())

    def _defs_named(self, key: str) -> list[SymbolDef]:
        memo = self._memo("defs")
        if key not in memo:
            memo[key] = self.rows().defs_named(key)
        return memo[key]

    def find_definitions(self, name: str, *, fuzzy: bool = False, limit: int = 20,
                         names: int = FUZZY_MAX_NAMES) -> list[SymbolDef]:
        found = list(self._defs_named(name))
        if not found and fuzzy:
            close = self._part("fuzzy", lambda: FuzzyNames(self.rows().def_keys()))
            for key in close.close_names(name, names):
                found.extend(self._defs_named(key))
        unique = {d.node_id: d for d in found}
        return sorted(unique.values(),
                      key=lambda d: (d.path, d.start_line, d.qualname, d.node_id))[:limit]

    def references_to(self, name: str) -> list[SymbolRef]:
        """Reference sites naming `name`; when the repository defines `name`, only the sites
        whose enclosing definition (or file) has a calls edge to one of those definitions
        (`[1, 2].index(1)` is not a reference to a repository function `index`)."""
        bare = name.rsplit(".", 1)[-1]
        memo = self._memo("refs")
        if bare not in memo:
            memo[bare] = self.rows().refs_named(bare)
        rows: list[RefRow] = memo[bare]
        targets = {d.node_id for d in self._defs_named(name)}
        if targets:
            graph = self.graph
            reaching: dict[str, bool] = {}
            kept = []
            for r in rows:
                source = node_id_def(r.path, r.scope) if r.scope else node_id_file(r.path)
                if source not in graph:
                    source = node_id_file(r.path)
                if source not in reaching:
                    reaching[source] = source in graph and any(
                        "calls" in keys and dst in targets
                        for dst, keys in graph.succ[source].items())
                if reaching[source]:
                    kept.append(r)
            rows = kept
        return [r.to_ref() for r in sorted(rows, key=lambda r: (r.path, r.line, r.kind))]

    def imports_of(self, name: str) -> list[SymbolRef]:
        """Imports of `name` from a module that defines it (`from pkg.mod import name`, a
        relative `from .mod import name`, or from the package that holds the module)."""
        homes = [d.path.rsplit(".", 1)[0] for d in self._defs_named(name)]
        if not homes:
            return []
        kept = []
        for row in self.rows().imports_named(name.rsplit(".", 1)[-1]):
            module = row.module or ""
            if module.startswith("."):  # relative to the importing file's package
                base = row.path.rsplit("/", 1)[0] if "/" in row.path else ""
                for _ in range(len(module) - len(module.lstrip(".")) - 1):
                    base = base.rsplit("/", 1)[0] if "/" in base else ""
                rest = module.lstrip(".").replace(".", "/")
                target = f"{base}/{rest}".strip("/") if rest else base
            else:
                target = module.replace(".", "/")
            if target and any(home == target or home.endswith("/" + target)
                              or home.rsplit("/", 1)[0].endswith(target)
                              or home.rsplit("/", 1)[0] == target for home in homes):
                kept.append(row)
        return [r.to_ref() for r in sorted(kept, key=lambda r: (r.path, r.line))]


if TYPE_CHECKING:
    from indexers.api import IndexReader

    def _conforms(index: Index) -> IndexReader:  # mypy checks Index against the protocol
        return index


def _known(memo: dict[str, Any], key: str) -> Any:
    found = memo.get(key)
    if found is None:
        raise KeyError(key)
    return found
