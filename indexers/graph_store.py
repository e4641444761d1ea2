"""The graph on disk (`graph.sqlite`) and the mappings a `networkx.MultiDiGraph` reads it through
lazily (`LazyGraph`, in `indexers.lazy_graph`: networkx is imported only where a graph is read).

A question walks a few dozen nodes (containment paths, callers, tests, importers): loading a
large repository's whole graph (hundreds of thousands of nodes and edges) for that cost seconds
and hundreds of MB. Here nodes and edges are rows keyed the way they are asked for:

    nodes   idx (integer primary key: the node's position in the graph), id (unique index),
            attrs (the attribute dict as JSON)
    edges   src, dst (node positions), kind: the primary key, in that order (WITHOUT ROWID, so
            stored in that order), attrs (JSON or NULL); and an index on (dst, src, kind)
    meta    format, graph (the graph-level attribute dict as JSON)

Nodes come back in their written order, out-edges by (target position, kind), in-edges by
(source position, kind). For every graph Helix builds (nodes sorted by id, edges added in
(source, target, kind) order: `indexers.graph`; `indexers.graph_update` restores it) that is
exactly the graph's own adjacency order, so `LazyGraph` iterates as the graph that was written.

`LazyGraph` is a real `networkx.MultiDiGraph` whose node and adjacency dicts are mappings over
the database: `node in graph`, `graph.nodes[node]`, `graph.in_edges(node, keys=True)`,
`graph.successors(node)`... run one indexed query each (results cached); iterating everything
(`graph.nodes(data=True)`, `edge_triples`) streams the table. It is read-only (a generation never
changes); `materialize()` gives an ordinary, mutable copy.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from helix.core.errors import IndexCorruptError
from indexers.formats import PART_GRAPH_DB, edge_triples

GRAPH_DB_FORMAT = "helix-graph-sqlite 2"
_SCHEMA = (
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE nodes(idx INTEGER PRIMARY KEY, id TEXT NOT NULL, attrs TEXT NOT NULL)",
    "CREATE TABLE edges(src INTEGER NOT NULL, dst INTEGER NOT NULL, kind TEXT NOT NULL,"
    " attrs TEXT, PRIMARY KEY(src, dst, kind)) WITHOUT ROWID",
)
_INDEXES = (
    "CREATE UNIQUE INDEX nodes_id ON nodes(id)",
    "CREATE INDEX edges_in ON edges(dst, src, kind)",
)
_BATCH = 5000
_IN_LIMIT = 500  # ids bound in one IN (...) list
MEMO_NODES = 200_000  # nodes whose edge counts (and PageRank) a reader keeps


_PAGERANK_TABLE = "CREATE TABLE pagerank(idx INTEGER PRIMARY KEY, value REAL NOT NULL)"
PAGERANK_DAMPING = 0.85
PAGERANK_ROUNDS = 40


def pagerank(edges: Sequence[tuple[int, int]]) -> tuple[list[int], list[float]]:
    """(nodes, value of each) of the directed graph of `edges`, by power iteration with fixed
    parameters (damping 0.85, 40 rounds, a dangling node's rank spread evenly): the same
    edges give the same values everywhere (numpy sums in a fixed order). Values are scaled by
    the number of nodes, so 1.0 is an average node."""
    import numpy as np

    pairs = np.asarray(sorted(set(edges)), dtype=np.int64)
    nodes, inverse = np.unique(pairs, return_inverse=True)
    n = len(nodes)
    src, dst = inverse.reshape(-1, 2)[:, 0], inverse.reshape(-1, 2)[:, 1]
    out_degree = np.bincount(src, minlength=n).astype(np.float64)
    dangling = out_degree == 0
    rank = np.full(n, 1.0 / n)
    for _ in range(PAGERANK_ROUNDS):
        share = np.where(dangling, 0.0, rank / np.where(dangling, 1.0, out_degree))
        flow = np.bincount(dst, weights=share[src], minlength=n)
        rank = (1.0 - PAGERANK_DAMPING) / n + PAGERANK_DAMPING * (
            flow + rank[dangling].sum() / n)
    return [int(v) for v in nodes], [round(float(v) * n, 9) for v in rank]


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode("utf-8")


class GraphWriter:
    """Writes `graph.sqlite`: every node first (in the graph's node order), then the edges
    (in any order: the key orders them)."""

    def __init__(self, path: Path, graph_attrs: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(self.path)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        for pragma in ("page_size=4096", "journal_mode=OFF", "synchronous=OFF"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.execute("BEGIN")
        for statement in _SCHEMA:
            self._db.execute(statement)
        self._db.executemany("INSERT INTO meta VALUES (?, ?)", (
            ("format", GRAPH_DB_FORMAT), ("graph", _dumps(graph_attrs or {}))))
        self._index: dict[str, int] = {}

    def add_nodes(self, nodes: Iterable[tuple[str, dict[str, Any]]]) -> None:
        index = self._index

        def rows() -> Iterator[tuple[int, str, str]]:
            for node, attrs in nodes:
                if node in index:
                    raise ValueError(f"graph node {node!r} written twice")
                index[node] = len(index)
                yield index[node], node, _dumps(attrs)
        self._db.executemany("INSERT INTO nodes VALUES (?, ?, ?)", rows())

    def add_edges(self, edges: Iterable[tuple[str, str, str, dict[str, Any] | None]]) -> None:
        index = self._index
        self._db.executemany("INSERT INTO edges VALUES (?, ?, ?, ?)", (
            (index[src], index[dst], kind, _dumps(attrs) if attrs else None)
            for src, dst, kind, attrs in edges))

    def close(self) -> None:
        for statement in _INDEXES:
            self._db.execute(statement)
        self._write_pagerank()
        self._db.execute("COMMIT")
        self._db.close()

    def _write_pagerank(self) -> None:
        """The nodes' PageRank on the `calls` edges (fixed parameters: `pagerank`), times the
        number of nodes those edges join (1.0: an average one), for the nodes they join."""
        edges = self._db.execute("SELECT src, dst FROM edges WHERE kind = 'calls'").fetchall()
        self._db.execute(_PAGERANK_TABLE)
        if not edges:
            return
        nodes, values = pagerank(edges)
        self._db.executemany("INSERT INTO pagerank VALUES (?, ?)",
                             zip(nodes, values, strict=True))

    def abort(self) -> None:
        try:
            self._db.close()
        finally:
            self.path.unlink(missing_ok=True)


def write_graph(path: Path, graph: Any) -> None:
    """`graph` (a MultiDiGraph with string edge keys, canonical order) into `path`."""
    writer = GraphWriter(path, dict(graph.graph))
    try:
        writer.add_nodes(graph.nodes(data=True))
        adj = getattr(graph, "_adj", graph.adj)

        def edges() -> Iterator[tuple[str, str, str, dict[str, Any] | None]]:
            for u, v, key in edge_triples(graph):
                if not isinstance(key, str):
                    raise TypeError(f"graph edge key {key!r} is not a string")
                yield u, v, key, adj[u][v][key]
        writer.add_edges(edges())
        writer.close()
    except BaseException:
        writer.abort()
        raise


class GraphReader:
    """Read-only queries on one `graph.sqlite` (safe to share between threads)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(f"file:{quote(str(self.path.resolve()))}"
                                       "?mode=ro&immutable=1", uri=True,
                                       check_same_thread=False)
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.Error as exc:
            raise IndexCorruptError(f"index part {PART_GRAPH_DB} unreadable: {exc}") from None
        if meta.get("format") != GRAPH_DB_FORMAT:
            raise IndexCorruptError(f"index part {PART_GRAPH_DB} has format "
                                    f"{meta.get('format')!r}, not {GRAPH_DB_FORMAT!r}")
        self.graph_attrs = self._json(meta.get("graph", "{}"))
        # what `edge_counts` and `pagerank_of` read, kept per node: the file is immutable, so
        # a node's numbers are read once per loaded index (each question's candidates repeat)
        self._counts: dict[str, dict[str, tuple[int, int]]] = {}
        self._ranks: dict[str, float | None] = {}
        self._memo_lock = threading.Lock()

    @staticmethod
    def _json(text: Any) -> Any:
        try:
            return orjson.loads(text)
        except (orjson.JSONDecodeError, TypeError):
            raise IndexCorruptError(f"index part {PART_GRAPH_DB} holds malformed JSON"
                                    ) from None

    def rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise IndexCorruptError(f"index part {PART_GRAPH_DB} unreadable: {exc}"
                                        ) from None

    def stream(self, sql: str) -> Iterator[list[Any]]:
        """Batches of a whole-table query (the lock is held between batches only)."""
        with self._lock:
            try:
                cursor = self._db.execute(sql)
                batch = cursor.fetchmany(_BATCH)
            except sqlite3.Error as exc:
                raise IndexCorruptError(f"index part {PART_GRAPH_DB} unreadable: {exc}"
                                        ) from None
        while batch:
            yield batch
            with self._lock:
                try:
                    batch = cursor.fetchmany(_BATCH)
                except sqlite3.Error as exc:
                    raise IndexCorruptError(f"index part {PART_GRAPH_DB} unreadable: {exc}"
                                            ) from None

    def attrs(self, node: str) -> dict[str, Any] | None:
        found = self.rows("SELECT attrs FROM nodes WHERE id=?", (node,))
        return self._json(found[0][0]) if found else None

    def count(self) -> int:
        return int(self.rows("SELECT count(*) FROM nodes")[0][0])

    def out_edges(self, node: str) -> list[tuple[str, str, str | None]]:
        return self.rows(
            "SELECT n.id, e.kind, e.attrs FROM edges e JOIN nodes n ON n.idx = e.dst "
            "WHERE e.src = (SELECT idx FROM nodes WHERE id=?) ORDER BY e.dst, e.kind", (node,))

    def in_edges(self, node: str) -> list[tuple[str, str, str | None]]:
        return self.rows(
            "SELECT n.id, e.kind, e.attrs FROM edges e JOIN nodes n ON n.idx = e.src "
            "WHERE e.dst = (SELECT idx FROM nodes WHERE id=?) ORDER BY e.src, e.kind", (node,))

    def edge_counts(self, nodes: Sequence[str]) -> dict[str, dict[str, tuple[int, int]]]:
        """node -> edge kind -> (edges in, edges out), for the given nodes (two queries for
        any number of them, once per node; a node without edges, or unknown, is left out)."""
        known, missing = self._memo(self._counts, nodes)
        read: dict[str, dict[str, tuple[int, int]]] = {n: {} for n in missing}
        for at in range(0, len(missing), _IN_LIMIT):
            part = missing[at:at + _IN_LIMIT]
            marks = ",".join("?" * len(part))
            for side, column in ((0, "dst"), (1, "src")):
                for node, kind, count in self.rows(
                        f"SELECT n.id, e.kind, count(*) FROM nodes n JOIN edges e ON "
                        f"e.{column} = n.idx WHERE n.id IN ({marks}) GROUP BY n.id, e.kind",
                        part):
                    kinds = read[node]
                    have = kinds.get(kind, (0, 0))
                    kinds[kind] = (int(count), have[1]) if side == 0 else (have[0], int(count))
        self._keep(self._counts, read)
        return {n: dict(v) for n, v in sorted({**known, **read}.items()) if v}

    def pagerank_of(self, nodes: Sequence[str]) -> dict[str, float]:
        """`pagerank` of the given nodes the calls edges join (others are left out); each
        node read once."""
        known, missing = self._memo(self._ranks, nodes)
        read: dict[str, float | None] = dict.fromkeys(missing)
        if missing:
            has = self.rows("SELECT count(*) FROM sqlite_master WHERE name = 'pagerank'")
            if not has or not has[0][0]:
                return {}
        for at in range(0, len(missing), _IN_LIMIT):
            part = missing[at:at + _IN_LIMIT]
            marks = ",".join("?" * len(part))
            read.update((str(node), float(value)) for node, value in self.rows(
                f"SELECT n.id, p.value FROM nodes n JOIN pagerank p ON p.idx = n.idx "
                f"WHERE n.id IN ({marks})", part))
        self._keep(self._ranks, read)
        return {n: v for n, v in sorted({**known, **read}.items()) if v is not None}

    def _memo(self, memo: dict[str, Any], nodes: Sequence[str]) -> tuple[dict[str, Any],
                                                                       list[str]]:
        """(what `memo` holds of `nodes`, the others sorted)."""
        with self._memo_lock:
            known = {n: memo[n] for n in set(nodes) if n in memo}
        return known, sorted(set(nodes) - known.keys())

    def _keep(self, memo: dict[str, Any], read: Mapping[str, Any]) -> None:
        with self._memo_lock:
            if len(memo) + len(read) > MEMO_NODES:
                memo.clear()  # a bounded memory
            memo.update(read)

    def all_edges(self) -> Iterator[list[Any]]:
        """Every edge as (source id, target id, kind, attrs), in (source, target, kind) order."""
        return self.stream(
            "SELECT s.id, d.id, e.kind, e.attrs FROM edges e JOIN nodes s ON s.idx = e.src "
            "JOIN nodes d ON d.idx = e.dst ORDER BY e.src, e.dst, e.kind")

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _adjacency(rows: Iterable[tuple[str, str, str | None]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for other, kind, attrs in rows:
        keydict = out.get(other)
        if keydict is None:
            keydict = out[other] = {}
        keydict[kind] = GraphReader._json(attrs) if attrs else {}
    return out


class _ReadOnly:
    def __setitem__(self, key: str, value: Any) -> None:
        raise TypeError("a stored index graph is read-only; use materialize() for a copy")

    def __delitem__(self, key: str) -> None:
        raise TypeError("a stored index graph is read-only; use materialize() for a copy")


class _Nodes(_ReadOnly, Mapping[str, dict[str, Any]]):
    """node id -> attribute dict, fetched on first use. The first pass over every node (a
    caller scanning the whole graph, e.g. a chat follow-up resolving names) keeps them all:
    later scans and lookups read memory."""

    def __init__(self, reader: GraphReader) -> None:
        self._reader = reader
        self._cache: dict[str, dict[str, Any] | None] = {}
        self._all: dict[str, dict[str, Any]] | None = None

    def __getitem__(self, node: str) -> dict[str, Any]:
        if self._all is not None:
            return self._all[node]
        if node not in self._cache:
            self._cache[node] = self._reader.attrs(node) if isinstance(node, str) else None
        found = self._cache[node]
        if found is None:
            raise KeyError(node)
        return found

    def __contains__(self, node: object) -> bool:
        try:
            self[node]  # type: ignore[index]
        except (KeyError, TypeError):
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        if self._all is not None:
            yield from self._all
            return
        for batch in self._reader.stream("SELECT id FROM nodes ORDER BY idx"):
            yield from (str(row[0]) for row in batch)

    def __len__(self) -> int:
        return len(self._all) if self._all is not None else self._reader.count()

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:  # type: ignore[override]
        if self._all is None:
            everything: dict[str, dict[str, Any]] = {}
            for batch in self._reader.stream("SELECT id, attrs FROM nodes ORDER BY idx"):
                for node, attrs in batch:
                    found = self._cache.get(node)
                    everything[node] = found if found is not None else self._reader._json(attrs)
            self._all = everything
        return iter(self._all.items())


class _Adjacency(_ReadOnly, Mapping[str, dict[str, dict[str, Any]]]):
    """node id -> {neighbour: {edge key: attrs}} (successors or predecessors)."""

    def __init__(self, reader: GraphReader, nodes: _Nodes, outgoing: bool) -> None:
        self._reader = reader
        self._nodes = nodes
        self._outgoing = outgoing
        self._cache: dict[str, dict[str, dict[str, Any]]] = {}

    def __getitem__(self, node: str) -> dict[str, dict[str, Any]]:
        found = self._cache.get(node)
        if found is None:
            if node not in self._nodes:
                raise KeyError(node)
            rows = (self._reader.out_edges(node) if self._outgoing
                    else self._reader.in_edges(node))
            found = self._cache[node] = _adjacency(rows)
        return found

    def __contains__(self, node: object) -> bool:
        return node in self._nodes

    def __iter__(self) -> Iterator[str]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)

    def items(self) -> Iterator[tuple[str, dict[str, dict[str, Any]]]]:  # type: ignore[override]
        """Every node with its adjacency, from one pass over the nodes and one over the edges
        (by source for successors; predecessors are grouped by target in memory)."""
        if not self._outgoing:
            yield from ((node, self[node]) for node in self._nodes)
            return
        edges = (row for batch in self._reader.all_edges() for row in batch)
        pending = next(edges, None)
        for node in self._nodes:
            rows: list[tuple[str, str, str | None]] = []
            while pending is not None and pending[0] == node:
                rows.append((pending[1], pending[2], pending[3]))
                pending = next(edges, None)
            yield node, _adjacency(rows)
