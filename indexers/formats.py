"""Encodings of the index parts: rows of JSON arrays, token ids, the graph as JSON.

Chosen for load speed: one `orjson.loads` per part (byte-identical to the stdlib's compact
JSON, 3x faster to read and 10x faster to write), records built without re-validation
(the data was validated when it was written and its digest is checked), references kept as
light named tuples, the cyclic garbage collector paused while a part is decoded (it would
otherwise re-scan the growing heap many times).
Nothing is a pickle: a part swapped on disk is data, never code. Every decoder raises
IndexCorruptError on malformed data.
"""

from __future__ import annotations

import contextlib
import gc
import operator
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, TypeVar

import orjson
from pydantic import BaseModel

from helix.core.errors import IndexCorruptError
from helix.core.schemas import Chunk, FileRecord, SymbolDef, SymbolRef

GRAPH_FORMAT = "helix-graph"
GRAPH_VERSION = 1
PART_FILES = "files.json"
PART_CHUNKS = "chunks.json"
PART_DEFS = "defs.json"
PART_REFS = "refs.json"
PART_TREES = "trees.json"
PART_GRAPH = "graph.json"
PART_CARDS = "embed_cards.json"  # a cache (not part of index_rev): chunk id -> dense Card

FILE_FIELDS = ("path", "content_hash", "size", "kind", "lang")
CHUNK_FIELDS = ("id", "path", "kind", "lang", "start_line", "end_line", "text", "content_hash",
                "heading_path", "symbol", "def_kind", "node_id")
DEF_FIELDS = ("name", "qualname", "kind", "path", "start_line", "end_line", "scope", "node_id")
REF_FIELDS = ("name", "kind", "path", "line", "scope", "module")


class CachedParse(NamedTuple):
    """A file's parse as the graph and the store read it (fresh or from the cache)."""

    path: str
    content_hash: str
    chunks: Sequence[Chunk]
    defs: Sequence[SymbolDef]
    refs: Sequence[Any]  # SymbolRef or RefRow


class RefRow(NamedTuple):
    """A reference as stored: light enough to hold hundreds of thousands of them."""

    name: str
    kind: str
    path: str
    line: int
    scope: str | None
    module: str | None

    def to_ref(self) -> SymbolRef:
        return SymbolRef.model_construct(**self._asdict())


def _rows(records: Sequence[Any], fields: Sequence[str]) -> list[Any]:
    get = operator.attrgetter(*fields)
    return [get(r) for r in records]


def dump_rows(records: Sequence[Any], fields: Sequence[str]) -> bytes:
    return orjson.dumps({"fields": list(fields), "rows": _rows(records, fields)})


def _load_rows(raw: bytes, fields: Sequence[str], name: str) -> list[list[Any]]:
    try:
        data = orjson.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise IndexCorruptError(f"index part {name} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("fields") != list(fields):
        raise IndexCorruptError(f"index part {name} has unexpected fields")
    rows = data.get("rows")
    if not isinstance(rows, list):
        raise IndexCorruptError(f"index part {name} has no rows")
    return rows


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


def _records(cls: type[M], raw: bytes, fields: Sequence[str], name: str) -> list[M]:
    with paused_gc():
        rows = _load_rows(raw, fields, name)
        try:
            return [trusted(cls, dict(zip(fields, row, strict=True))) for row in rows]
        except (TypeError, ValueError) as exc:
            raise IndexCorruptError(f"index part {name} has malformed rows: {exc}") from None


def files_from(raw: bytes) -> list[FileRecord]:
    return _records(FileRecord, raw, FILE_FIELDS, PART_FILES)


_HEADING = CHUNK_FIELDS.index("heading_path")


def chunks_from(raw: bytes) -> list[Chunk]:
    with paused_gc():
        rows = _load_rows(raw, CHUNK_FIELDS, PART_CHUNKS)
        try:
            for row in rows:
                row[_HEADING] = tuple(row[_HEADING])
            return [trusted(Chunk, dict(zip(CHUNK_FIELDS, row, strict=True))) for row in rows]
        except (TypeError, ValueError, IndexError) as exc:
            raise IndexCorruptError(f"index part {PART_CHUNKS} has malformed rows: {exc}"
                                    ) from None


def defs_from(raw: bytes) -> list[SymbolDef]:
    return _records(SymbolDef, raw, DEF_FIELDS, PART_DEFS)


def refs_from(raw: bytes) -> list[RefRow]:
    with paused_gc():
        try:
            return [RefRow(*row) for row in _load_rows(raw, REF_FIELDS, PART_REFS)]
        except TypeError as exc:
            raise IndexCorruptError(f"index part {PART_REFS} has malformed rows: {exc}"
                                    ) from None


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
    from helix.core.hashing import digest

    nodes = [[node, attrs] for node, attrs in graph.nodes(data=True)]
    edges = [[u, v, key] for u, v, key in edge_triples(graph)]
    return digest(orjson.dumps([nodes, edges], option=orjson.OPT_SORT_KEYS))


def dump_graph(graph: Any) -> bytes:
    """The graph as plain JSON (nothing in it can run code when it is read back):
    node ids and their attribute dicts in node order, edges as three parallel lists of
    (source index, target index, kind index) in `edge_triples` order, non-empty edge
    attribute dicts by edge position. `load_graph` rebuilds the identical graph."""
    ids = list(graph.nodes)
    position = {node: n for n, node in enumerate(ids)}
    kinds: dict[str, int] = {}
    src: list[int] = []
    dst: list[int] = []
    kind: list[int] = []
    edge_attrs: dict[str, Any] = {}
    adj = getattr(graph, "_adj", None)
    for u, v, key in edge_triples(graph):
        if not isinstance(key, str):
            raise TypeError(f"graph edge key {key!r} is not a string")
        src.append(position[u])
        dst.append(position[v])
        kind.append(kinds.setdefault(key, len(kinds)))
        data = (graph.adj if adj is None else adj)[u][v][key]
        if data:
            edge_attrs[str(len(src) - 1)] = data
    return orjson.dumps({
        "format": GRAPH_FORMAT, "version": GRAPH_VERSION, "graph": graph.graph,
        "nodes": ids, "attrs": [attrs for _, attrs in graph.nodes(data=True)],
        "kinds": list(kinds), "src": src, "dst": dst, "kind": kind, "edge_attrs": edge_attrs,
    })


def _indices(values: list[Any], bound: int) -> bool:
    """Every value in [0, bound) (min/max run in C: no Python loop; a value that is not an
    int fails as an index later)."""
    if not values:
        return True
    try:
        return bool(min(values) >= 0 and max(values) < bound)
    except TypeError:
        return False


def _graph_data(raw: bytes) -> dict[str, Any]:
    try:
        data = orjson.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise IndexCorruptError(f"index part {PART_GRAPH} is not valid JSON") from None
    if not isinstance(data, dict) or data.get("format") != GRAPH_FORMAT:
        raise IndexCorruptError(f"index part {PART_GRAPH} is not a Helix graph")
    if data.get("version") != GRAPH_VERSION:
        raise IndexCorruptError(f"index part {PART_GRAPH} has graph format version "
                                f"{data.get('version')!r}, not {GRAPH_VERSION}")
    ids, attrs = data.get("nodes"), data.get("attrs")
    src, dst, kind, kinds = data.get("src"), data.get("dst"), data.get("kind"), data.get("kinds")
    lists = (ids, attrs, src, dst, kind, kinds)
    if (not all(isinstance(x, list) for x in lists) or not isinstance(data.get("graph"), dict)
            or not isinstance(data.get("edge_attrs"), dict)):
        raise IndexCorruptError(f"index part {PART_GRAPH} is missing a field")
    assert isinstance(ids, list) and isinstance(attrs, list) and isinstance(src, list)
    assert isinstance(dst, list) and isinstance(kind, list) and isinstance(kinds, list)
    n = len(ids)
    if (len(attrs) != n or len(dst) != len(src) or len(kind) != len(src)
            or not all(type(node) is str for node in ids)
            or not all(type(a) is dict for a in attrs)
            or not all(type(k) is str for k in kinds)
            or not all(type(a) is dict for a in data["edge_attrs"].values())
            or not (_indices(src, n) and _indices(dst, n) and _indices(kind, len(kinds)))):
        raise IndexCorruptError(f"index part {PART_GRAPH} is inconsistent")
    return data


def load_graph(raw: bytes) -> Any:
    """The graph `dump_graph` wrote, adjacency dicts filled directly (what `add_edge` does,
    without its per-call checks): same nodes, attributes, edges and orders, including each
    node's predecessors (in source order, as every graph Helix builds keeps them)."""
    import networkx as nx

    with paused_gc():
        data = _graph_data(raw)
        graph = nx.MultiDiGraph()
        graph.graph.update(data["graph"])
        ids: list[str] = data["nodes"]
        node, succ, pred = graph._node, graph._succ, graph._pred
        node.update(zip(ids, data["attrs"], strict=True))
        if len(node) != len(ids):
            raise IndexCorruptError(f"index part {PART_GRAPH} repeats a node")
        succ_of: list[dict[str, Any]] = [{} for _ in ids]  # by index: no hashing in the edge loop
        pred_of: list[dict[str, Any]] = [{} for _ in ids]
        succ.update(zip(ids, succ_of, strict=True))
        pred.update(zip(ids, pred_of, strict=True))
        kinds: list[str] = data["kinds"]
        edge_attrs: dict[str, Any] = data["edge_attrs"]
        try:
            for position, (u, v, k) in enumerate(zip(data["src"], data["dst"], data["kind"],
                                                     strict=True)):
                out, target = succ_of[u], ids[v]
                keydict = out.get(target)
                if keydict is None:
                    keydict = out[target] = pred_of[v][ids[u]] = {}
                extra = edge_attrs.get(str(position)) if edge_attrs else None
                keydict[kinds[k]] = {} if extra is None else extra
        except TypeError:  # an index that is no int
            raise IndexCorruptError(f"index part {PART_GRAPH} has a malformed edge") from None
        return graph


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
