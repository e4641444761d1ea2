"""What readers of the index (the controller, `helix find`, evals) may rely on.

`indexers.reader.Index` implements `IndexReader`; `indexers.build.ensure_index` returns one
that is fresh (it refreshes first when files changed and says so in its report).

The graph is a `networkx.MultiDiGraph`; every edge has key == its `kind`:
    contains    parent -> child in the containment tree
                (repo: > dir: > file: > sec:/def: > def:, and tree: > tree: for concept trees)
    imports     file: -> file:   (module import resolved inside the repository)
    calls       def:/file: -> def:   (a reference site's enclosing definition -> the definition)
    documents   sec:/tree: -> def:   (a doc section or tree node naming a symbol -> its definition)
    tests       def: (a test function) -> def:   (what it exercises)
Node attributes: `kind` (repo|dir|file|section|def|tree), `path`, `start_line`, `end_line`,
`content_hash`, `title` (name, heading or tree title), `chunk_ids` (list of chunk ids).

Implementation notes (`indexers.reader.Index`, issue 13): a reader loads only what a question
touches. `chunk`, `chunks_for_path`, `chunk_for_node`, `find_definitions` and `references_to`
are indexed queries on the generation's rows database; `graph` is a read-only `LazyGraph` (a
real MultiDiGraph whose node and adjacency dicts query the graph database: `node in graph`,
`graph.nodes[n]`, `in_edges`/`out_edges` of one node read that node only; `materialize()` gives
a mutable copy); `files()` and `chunks()` read whole tables (the builder and the dense selection
use them, a question does not call `chunks()`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from helix.core.schemas import Chunk, ChunkHead, FileRecord, Hit, SymbolDef, SymbolRef
from indexers.formats import DefRow

if TYPE_CHECKING:
    import networkx as nx
    import numpy as np

EDGE_KINDS = ("contains", "imports", "calls", "documents", "tests")


class IndexReader(Protocol):
    @property
    def root(self) -> Path: ...

    @property
    def repo_rev(self) -> str:
        """`git rev-parse HEAD` at build time, `+dirty` when the tree had changes; or `nogit`."""
        ...

    @property
    def index_rev(self) -> str:
        """Hash of the built index (manifest): the lattice revision."""
        ...

    @property
    def graph(self) -> nx.MultiDiGraph: ...

    def files(self) -> Sequence[FileRecord]:
        """All indexed files, sorted by path."""
        ...

    def chunks(self) -> Sequence[Chunk]:
        """All chunks, sorted by (path, start_line, id)."""
        ...

    def definition_rows(self) -> Sequence[DefRow]:
        """Every definition as a light row."""
        ...

    def spelled_as(self, word: str) -> str | None:
        """The repository's word a misspelt (lower-case) `word` stands for, or None
        (`indexers.bm25.BM25Index.spelled_as`)."""
        ...

    def knows(self, word: str) -> bool:
        """The repository's text uses the (lower-case) `word` or a base form of it
        (`indexers.bm25.BM25Index.known_forms`)."""
        ...

    def project_names(self) -> frozenset[str]:
        """The project's own names, lower-cased (`indexers.project`)."""
        ...

    def chunk(self, chunk_id: str) -> Chunk:
        """KeyError when unknown."""
        ...

    def chunks_by_id(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """`chunk` of each id, in order, read together (KeyError when one is unknown)."""
        ...

    def chunk_heads(self, chunk_ids: Sequence[str]) -> list[ChunkHead]:
        """What `chunks_by_id` gives, without the texts (KeyError when one is unknown)."""
        ...

    def chunks_for_path(self, path: str) -> Sequence[Chunk]: ...

    def chunk_for_node(self, node_id: str) -> Chunk | None:
        """The chunk whose span is the node (a def, a section, a tree node), if any."""
        ...

    def search_bm25_scores(self, query: str, k: int) -> list[tuple[str, float]]:
        """`search_bm25`'s (chunk id, score) pairs, best first."""
        ...

    def search_bm25(self, query: str, k: int) -> list[Hit]:
        """Ranked by score desc, ties by chunk id; empty query -> []."""
        ...

    def search_files(self, query: str, k: int) -> list[tuple[str, float]]:
        """Whole files by BM25 (all of a file's chunk tokens as one document): (path, score),
        score desc then path asc; empty query -> []."""
        ...

    def search_dense(self, query: str, k: int) -> list[Hit]:
        """Exact inner-product search over embedded chunks; [] when nothing is embedded."""
        ...

    def search_vector(self, vector: np.ndarray, model_key: str, k: int) -> list[Hit]:
        """`search_dense` with the question's vector already made (by the model `model_key`,
        perhaps through the dense adapter); [] when nothing is embedded or the index's vectors
        come from another model."""
        ...

    def find_definitions(self, name: str, *, fuzzy: bool = False, limit: int = 20,
                         names: int = 10) -> list[SymbolDef]:
        """Exact match on name or qualname; with fuzzy, the definitions of up to `names`
        close names when no exact one."""
        ...

    def references_to(self, name: str) -> list[SymbolRef]:
        """Reference sites naming `name` (bare name or last qualname part)."""
        ...

    def imports_of(self, name: str) -> list[SymbolRef]:
        """Imports of `name` from a module that defines it."""
        ...
