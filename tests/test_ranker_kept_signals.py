"""A definition's graph and history signals are read once per loaded stored graph (round
17): a later question reads only nodes not read before, and gets the signals a fresh read
gives, its own history score included; an in-memory graph (which may change) is read every
time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from controller import rank_step


class _Stored(nx.MultiDiGraph):  # type: ignore[misc]
    """An in-memory graph with the stored graph's batch reads, counting the nodes read."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def edge_counts(self, nodes: Sequence[str]) -> dict[str, dict[str, tuple[int, int]]]:
        self.read.extend(nodes)
        plain = nx.MultiDiGraph(self)
        return rank_step.edge_counts(plain, nodes)

    def pagerank_of(self, nodes: Sequence[str]) -> dict[str, float]:
        return {n: 0.5 + len(n) / 100 for n in nodes if self.has_node(n)}


@dataclass
class _History:
    docs: dict[str, frozenset[str]]
    commits: dict[str, int]

    def score(self, node: str, words: frozenset[str]) -> float:
        return len(self.docs.get(node, frozenset()) & words) / 4


@dataclass
class _Index:
    graph: Any
    history: _History
    extra: dict[str, Any] = field(default_factory=dict)

    def history_index(self) -> _History:
        return self.history


EDGES = (("def:a.py::f", "def:b.py::g", "calls"), ("def:b.py::g", "def:c.py::h", "calls"),
         ("def:t.py::test_f", "def:a.py::f", "tests"), ("sec:doc.md::F", "def:a.py::f",
                                                       "documents"))
HISTORY = _History(docs={"def:a.py::f": frozenset({"retry", "pool"}),
                         "def:d.py::quiet": frozenset({"cache"})},
                   commits={"def:a.py::f": 3, "def:d.py::quiet": 1})
NODES = ["def:a.py::f", "def:b.py::g", "def:c.py::h", "def:d.py::quiet", "def:e.py::none",
         "file:a.py"]


def _graph(kind: type[nx.MultiDiGraph]) -> nx.MultiDiGraph:
    graph = kind()
    for u, v, key in EDGES:
        graph.add_edge(u, v, key=key)
    graph.add_node("def:e.py::none")
    return graph


def test_a_node_is_read_once_per_loaded_graph_with_each_questions_history_score() -> None:
    stored = _graph(_Stored)
    index = _Index(stored, HISTORY)
    first = rank_step._signals(NODES[:3], index, frozenset({"retry"}))  # type: ignore[arg-type]
    assert sorted(stored.read) == sorted(NODES[:3])
    second = rank_step._signals(NODES, index, frozenset({"retry", "pool"}))  # type: ignore[arg-type]
    # only the nodes not read before (main: every node again)
    assert sorted(stored.read) == sorted(NODES[:5])
    fresh = rank_step._index_signals([n for n in NODES if n.startswith("def:")],
                                     _graph(_Stored), HISTORY)
    assert second == {n: s._replace(history_bm25=HISTORY.score(n, frozenset({"retry", "pool"}))
                                    if s.history else 0.0)
                      for n, s in fresh.items() if s is not None}
    assert first["def:a.py::f"].history_bm25 == 0.25
    assert second["def:a.py::f"].history_bm25 == 0.5
    assert second["def:a.py::f"].calls_out == 1 and second["def:a.py::f"].tests_in == 1
    assert "def:e.py::none" not in second and "def:d.py::quiet" in second
    # another loaded graph (another generation) is read again
    other = _graph(_Stored)
    rank_step._signals(NODES, _Index(other, HISTORY), frozenset())  # type: ignore[arg-type]
    assert sorted(other.read) == sorted(NODES[:5])


def test_an_in_memory_graph_gives_the_same_signals() -> None:
    words = frozenset({"retry", "cache"})
    kept = rank_step._signals(NODES, _Index(_graph(_Stored), HISTORY), words)  # type: ignore[arg-type]
    plain = rank_step._signals(NODES, _Index(_graph(nx.MultiDiGraph), HISTORY), words)  # type: ignore[arg-type]
    # the stored graph's PageRank aside (the in-memory graph has none), the same signals
    assert {n: s._replace(pagerank=0.0) for n, s in kept.items()} == plain
