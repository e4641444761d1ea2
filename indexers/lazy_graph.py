"""`LazyGraph`: the stored graph (`indexers.graph_store`) as a real `networkx.MultiDiGraph` read on
demand. Apart from the store so that networkx (~0.2 CPU s to import) is imported only by a process
that reads a graph, not by every `helix` command that opens an index (`helix status`, `find`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import networkx as nx

from indexers.formats import paused_gc
from indexers.graph_store import GraphReader, _Adjacency, _Nodes


class LazyGraph(nx.MultiDiGraph):
    """The stored graph, read on demand (see the module docstring)."""

    def __init__(self, reader: GraphReader) -> None:
        super().__init__()
        self._reader = reader
        nodes = _Nodes(reader)
        self._node = nodes
        self._adj = _Adjacency(reader, nodes, outgoing=True)
        self._pred = _Adjacency(reader, nodes, outgoing=False)
        self.graph.update(reader.graph_attrs)

    def edge_counts(self, nodes: Sequence[str]) -> dict[str, dict[str, tuple[int, int]]]:
        """`GraphReader.edge_counts`: (in, out) edges per kind of each node, read at once."""
        return self._reader.edge_counts(nodes)

    def pagerank_of(self, nodes: Sequence[str]) -> dict[str, float]:
        """`GraphReader.pagerank_of`: the calls graph's PageRank of the given nodes."""
        return self._reader.pagerank_of(nodes)

    def materialize(self) -> nx.MultiDiGraph:
        """An ordinary (mutable, in-memory) copy with the same nodes, edges and orders."""
        graph = nx.MultiDiGraph()
        graph.graph.update(self.graph)
        with paused_gc():
            node, succ, pred = graph._node, graph._succ, graph._pred
            for node_id, attrs in self._node.items():
                node[node_id] = dict(attrs)
                succ[node_id] = {}
                pred[node_id] = {}
            for batch in self._reader.all_edges():
                for u, v, key, attrs in batch:
                    keydict = succ[u].get(v)
                    if keydict is None:
                        keydict = succ[u][v] = pred[v][u] = {}
                    keydict[key] = GraphReader._json(attrs) if attrs else {}
        return graph


def load_lazy(path: Path) -> LazyGraph:
    return LazyGraph(GraphReader(path))
