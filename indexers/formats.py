"""What the index parts are called and hold, and the helpers their readers share.

Rows (files, chunks, definitions, references, tree nodes) live in `rows.sqlite`
(`indexers.row_store`), the graph in `graph.sqlite` (`indexers.graph_store`), the embed cards
in JSON here. Records read back are built without re-validation (`trusted`: the data was
validated when it was written and its digest is checked), references kept as light named
tuples, the cyclic garbage collector paused while many records are built (it would otherwise
re-scan the growing heap many times).
Nothing is a pickle: a part swapped on disk is data, never code. Every decoder raises
IndexCorruptError on malformed data.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple, TypeVar

import orjson
from pydantic import BaseModel

from helix.core.errors import IndexCorruptError
from helix.core.schemas import Chunk, SymbolDef, SymbolRef

PART_CARDS = "embed_cards.json"  # a cache (not part of index_rev): chunk id -> dense Card
PART_ROWS = "rows.sqlite"  # files, chunks, defs, refs, tree nodes (indexers.row_store)
PART_GRAPH_DB = "graph.sqlite"  # the graph (indexers.graph_store; not part of index_rev)
PART_HISTORY = "history.json"  # definitions' commits' messages (indexers.history), when on

FILE_FIELDS = ("path", "content_hash", "size", "kind", "lang")
CHUNK_FIELDS = ("id", "path", "kind", "lang", "start_line", "end_line", "text", "content_hash",
                "heading_path", "symbol", "def_kind", "node_id")
DEF_FIELDS = ("name", "qualname", "kind", "path", "start_line", "end_line", "scope", "node_id")
REF_FIELDS = ("name", "kind", "path", "line", "scope", "module", "receiver")


class CachedParse(NamedTuple):
    """A file's parse as the graph and the store read it (fresh or from the cache)."""

    path: str
    content_hash: str
    chunks: Sequence[Chunk]
    defs: Sequence[SymbolDef]
    refs: Sequence[Any]  # SymbolRef or RefRow


class DefRow(NamedTuple):
    """A definition as the graph builder holds it (every definition of the repository at
    once): a third of a SymbolDef's size, the same attributes."""

    name: str
    qualname: str
    kind: str
    path: str
    start_line: int
    end_line: int
    scope: str | None
    node_id: str


class RefRow(NamedTuple):
    """A reference as stored: light enough to hold hundreds of thousands of them."""

    name: str
    kind: str
    path: str
    line: int
    scope: str | None
    module: str | None
    receiver: str | None

    def to_ref(self) -> SymbolRef:
        return SymbolRef.model_construct(**self._asdict())


M = TypeVar("M", bound=BaseModel)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def running_gc() -> Iterator[None]:
    """Collector on inside a paused section (e.g. while torch embeds: it makes real garbage)."""
    enabled = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not enabled:
            gc.disable()


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """What `model_construct` does for a model without defaults to fill, at a third of the
    cost: only for data this module wrote itself (validated then, digest-checked now)."""
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


def edge_triples(graph: Any) -> Iterator[tuple[str, str, str]]:
    """(u, v, key) in `graph.edges(keys=True)` order, read from the adjacency directly
    (the edge view costs 3x as much on 90k edges)."""
    adj = getattr(graph, "_adj", None)  # networkx's own dict of dicts, without view wrappers
    for u, nbrs in (graph.adj if adj is None else adj).items():
        for v, keys in nbrs.items():
            for key in keys:
                yield u, v, key


def graph_digest(graph: Any) -> str:
    """Digest of the graph's content (nodes with attributes, edges, in order): what the
    index_rev counts for the graph (the part itself is a cache of the next build too)."""
    return digest_graph_content(graph.nodes(data=True), edge_triples(graph))


def digest_graph_content(nodes: Iterable[tuple[str, Any]],
                         edges: Iterable[tuple[str, str, str]]) -> str:
    """`graph_digest` of a graph given as its (node, attrs) and (src, dst, key) sequences, in
    order: the digest of `[[[node, attrs], ...], [[src, dst, key], ...]]` as compact JSON with
    sorted keys, computed piece by piece (the whole document is never built)."""
    from helix.core.hashing import digest_parts

    def pieces() -> Iterator[bytes]:
        yield b"[["
        for position, (node, attrs) in enumerate(nodes):
            yield (b"," if position else b"") + orjson.dumps([node, attrs],
                                                             option=orjson.OPT_SORT_KEYS)
        yield b"],["
        for position, (u, v, key) in enumerate(edges):
            yield (b"," if position else b"") + orjson.dumps([u, v, key])
        yield b"]]"
    return digest_parts(pieces())


def dump_cards(cards: dict[str, Any]) -> bytes:
    return orjson.dumps(cards)


def cards_from(raw: bytes) -> dict[str, Any]:
    """Chunk id -> (tier, digest, text) or None, as `indexers.dense.select_for_embedding`
    takes them. Raises IndexCorruptError on malformed data."""
    try:
        data = orjson.loads(raw)
        return {k: None if v is None else (int(v[0]), str(v[1]), str(v[2]))
                for k, v in data.items()}
    except (ValueError, TypeError, IndexError, AttributeError, KeyError) as exc:
        raise IndexCorruptError(f"index part {PART_CARDS} unreadable: {exc}") from None
