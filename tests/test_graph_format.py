"""The graph part is a SQLite database read lazily (issue 13; plain data since issue 9, S1
item 3): it round-trips exactly (nodes, attributes, edges, every adjacency order), a question
reads only the nodes it visits, and a part swapped for a pickle is never executed."""

from __future__ import annotations

import json
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import networkx as nx
import orjson
import pytest

from helix.core.config import HelixConfig, IndexSettings
from helix.core.errors import IndexCorruptError
from helix.core.hashing import digest
from helix.core.ports import FakeEmbedder
from indexers.build import build_index, ensure_index
from indexers.formats import PART_GRAPH_DB, edge_triples, graph_digest
from indexers.graph import build_graph
from indexers.graph_store import GraphReader, write_graph
from indexers.lazy_graph import LazyGraph, load_lazy
from indexers.parse import parse_file
from indexers.reader import Index
from indexers.store import CURRENT, MANIFEST, IndexStore
from indexers.trees import parse_tree_file
from indexers.walker import walk
from tests.index_fixtures import TREE_PATH, write_repo

CONFIG = HelixConfig(index=IndexSettings(trees=("docs/trees/*.json",)))


def _fixture_graph(root: Path) -> nx.MultiDiGraph:
    walked = walk(root, CONFIG.index)
    parsed, records, trees = [], [], []
    for wf in walked.files:
        records.append(wf.record)
        if wf.record.path == TREE_PATH:
            trees.extend(parse_tree_file(wf.record.path, wf.text)[1])
        else:
            parsed.append(parse_file(wf.record, wf.text, CONFIG.index))
    return build_graph(records, parsed, trees)


def assert_identical(a: nx.MultiDiGraph, b: nx.MultiDiGraph, shared: bool = True) -> None:
    """Same nodes, attributes (types included), edges, and every adjacency order; `shared`:
    each edge's key dict is one object in both directions, as networkx keeps it."""
    assert a.graph == b.graph
    assert orjson.dumps(list(a.nodes(data=True))) == orjson.dumps(list(b.nodes(data=True)))
    assert list(a.nodes(data=True)) == list(b.nodes(data=True))
    assert list(edge_triples(a)) == list(edge_triples(b))
    assert list(a.edges(keys=True, data=True)) == list(b.edges(keys=True, data=True))
    for node in a:
        assert list(a._succ[node].items()) == list(b._succ[node].items())
        assert list(a._pred[node].items()) == list(b._pred[node].items())
        assert list(a.in_edges(node, keys=True)) == list(b.in_edges(node, keys=True))
        assert list(a.out_edges(node, keys=True)) == list(b.out_edges(node, keys=True))
        for target, keydict in b._succ[node].items():
            if shared:
                assert keydict is b._pred[target][node]
    assert a.number_of_nodes() == b.number_of_nodes()
    assert graph_digest(a) == graph_digest(b)


def _stored(graph: nx.MultiDiGraph, path: Path) -> LazyGraph:
    write_graph(path, graph)
    return load_lazy(path)


def test_round_trip_is_exact(tmp_path: Path) -> None:
    graph = _fixture_graph(write_repo(tmp_path / "repo", with_tree=True))
    assert any(attrs.get("kind") == "tree" and attrs.get("links") is not None
               for _, attrs in graph.nodes(data=True))  # nested attributes are covered
    lazy = _stored(graph, tmp_path / "g.sqlite")
    assert isinstance(lazy, nx.MultiDiGraph)
    assert_identical(graph, lazy, shared=False)
    assert_identical(graph, lazy.materialize())
    write_graph(tmp_path / "again.sqlite", lazy)  # a stored graph stores the same
    assert_identical(graph, load_lazy(tmp_path / "again.sqlite"), shared=False)


def test_round_trip_keeps_edge_and_graph_attributes(tmp_path: Path) -> None:
    graph = nx.MultiDiGraph(name="g")
    graph.add_node("a", kind="file", start_line=None, extra={"k": [1, 2.5, True, None]})
    graph.add_node("b", kind="def", chunk_ids=["x", "y"])
    graph.add_edge("a", "b", key="contains")
    graph.add_edge("b", "a", key="calls", weight=2)
    graph.add_edge("b", "a", key="imports")
    lazy = _stored(graph, tmp_path / "g.sqlite")
    assert_identical(graph, lazy, shared=False)
    assert_identical(graph, lazy.materialize())
    assert lazy.get_edge_data("b", "a", key="calls") == {"weight": 2}


def test_a_question_reads_only_the_nodes_it_visits(tmp_path: Path) -> None:
    """Membership, attributes and one node's edges are indexed lookups: nothing else of the
    graph is decoded (the cache holds what was asked, not the graph)."""
    graph = _fixture_graph(write_repo(tmp_path / "repo", with_tree=True))
    lazy = _stored(graph, tmp_path / "g.sqlite")
    node = "def:pkg/util.py::retry_policy"
    callers = sorted(u for u, _, key in lazy.in_edges(node, keys=True) if key == "calls")
    assert callers == sorted(u for u, _, key in graph.in_edges(node, keys=True)
                             if key == "calls") and callers
    assert lazy.nodes[node] == graph.nodes[node] and "nope" not in lazy
    assert set(lazy._node._cache) <= {node, "nope", *callers}  # type: ignore[attr-defined]
    assert len(lazy._node._cache) < graph.number_of_nodes() // 2  # type: ignore[attr-defined]
    assert set(lazy._pred._cache) == {node} and not lazy._succ._cache  # type: ignore[attr-defined]


def test_the_stored_graph_is_read_only(tmp_path: Path) -> None:
    lazy = _stored(_fixture_graph(write_repo(tmp_path / "repo")), tmp_path / "g.sqlite")
    with pytest.raises(TypeError, match="read-only"):
        lazy.add_node("x")
    with pytest.raises(TypeError, match="read-only"):
        lazy.add_edge("repo:", "x", key="contains")
    copy = lazy.materialize()
    copy.add_node("x")
    assert "x" in copy and "x" not in lazy


def test_an_updated_graph_round_trips_like_a_fresh_one(tmp_path: Path) -> None:
    """The graph an incremental build updated is stored and read back exactly (predecessor
    order included), and equals what a fresh build stores."""
    repo = write_repo(tmp_path / "repo", with_tree=True)
    build_index(repo, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    (repo / "pkg" / "util.py").write_text("def retry_rule(n):\n    return n\n", encoding="utf-8")
    _, report = ensure_index(repo, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    assert report.graph_updated
    stored = Index.open(IndexStore(tmp_path / "inc"), repo, CONFIG.index).graph
    build_index(repo, CONFIG, index_dir=tmp_path / "fresh", embedder=FakeEmbedder())
    fresh = Index.open(IndexStore(tmp_path / "fresh"), repo, CONFIG.index).graph
    assert_identical(fresh, stored, shared=False)
    assert_identical(fresh.materialize(), stored.materialize())


@pytest.mark.parametrize("raw", [b"not a database at all", b"",
                                 b"SQLite format 3\x00" + b"x" * 200])
def test_a_graph_part_that_is_no_graph_database_is_corrupt(raw: bytes, tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    path.write_bytes(raw)
    with pytest.raises(IndexCorruptError, match="graph"):
        GraphReader(path)


def test_a_database_of_another_format_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('format', 'helix-graph-sqlite 99')")
    db.close()
    with pytest.raises(IndexCorruptError, match="format"):
        GraphReader(path)


def test_malformed_attributes_are_corrupt_when_read(tmp_path: Path) -> None:
    graph = nx.MultiDiGraph()
    graph.add_edge("a", "b", key="calls")
    path = tmp_path / "g.sqlite"
    write_graph(path, graph)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE nodes SET attrs='{not json' WHERE id='a'")
    db.close()
    lazy = load_lazy(path)
    with pytest.raises(IndexCorruptError, match="graph"):
        _ = lazy.nodes["a"]


class _Planted:
    """A pickle payload: unpickling it creates a file (what a swapped part could do)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.path), "w"))


def _current(index_dir: Path) -> Path:
    return index_dir / (index_dir / CURRENT).read_text().strip()


def test_swapped_pickle_graph_is_never_executed(tmp_path: Path) -> None:
    """Even with the manifest rewritten to match the swapped bytes (the graph is not part
    of index_rev), reading the graph refuses the file: the payload never runs."""
    repo = write_repo(tmp_path / "repo", with_tree=True)
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    planted = tmp_path / "pwned"
    payload = pickle.dumps(_Planted(planted))
    generation = _current(index_dir)
    (generation / PART_GRAPH_DB).write_bytes(payload)
    manifest = json.loads((generation / MANIFEST).read_text())
    manifest["parts"][PART_GRAPH_DB] = {"digest": digest(payload), "bytes": len(payload)}
    (generation / MANIFEST).write_text(json.dumps(manifest))
    index = Index.open(IndexStore(index_dir), repo, CONFIG.index)  # the manifest is sound
    with pytest.raises(IndexCorruptError, match="graph"):
        _ = index.graph
    assert not planted.exists()


def test_swapped_pickle_with_old_manifest_is_rebuilt(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo")
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    planted = tmp_path / "pwned"
    (_current(index_dir) / PART_GRAPH_DB).write_bytes(pickle.dumps(_Planted(planted)))
    index, report = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert "corrupt" in (report.rebuild_reason or "")
    assert index.graph.has_edge("def:pkg/client.py::fetch", "def:pkg/util.py::retry_policy",
                                key="calls")
    assert not planted.exists()


@pytest.mark.parametrize(("value", "why"), [
    ("123456789012345678901234567890", "out of range"), ("NaN", "NaN is not a JSON value"),
    ("-Infinity", "-Infinity is not a JSON value"),
])
def test_tree_values_the_graph_cannot_store_make_it_plain_text(value: str, why: str,
                                                              tmp_path: Path) -> None:
    """A tree file holding what no stored part can hold (NaN, a 100-bit integer) is indexed as
    plain text with a warning, not an internal error when the graph is written."""
    repo = write_repo(tmp_path / "repo")
    tree = repo / "docs" / "trees" / "odd.json"
    tree.parent.mkdir(parents=True, exist_ok=True)
    tree.write_text('{"nodes": [{"id": "root", "title": "Root", "tolerance": ' + value
                    + ', "children": []}]}\n', encoding="utf-8")
    report = build_index(repo, CONFIG, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    assert any("docs/trees/odd.json" in w and why in w for w in report.warnings)
    graph = Index.open(IndexStore(tmp_path / "idx"), repo, CONFIG.index).graph
    assert graph.nodes["file:docs/trees/odd.json"]["file_kind"] != "tree"


def test_a_whole_graph_scan_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller scanning every node (chat follow-ups resolve names over the whole graph, each
    time) reads the node table once; later scans and lookups come from memory."""
    graph = _fixture_graph(write_repo(tmp_path / "repo", with_tree=True))
    lazy = _stored(graph, tmp_path / "g.sqlite")
    first = list(lazy.nodes(data=True))

    def refuse(*args: object) -> object:
        raise AssertionError("the node table was read again")

    monkeypatch.setattr(lazy._reader, "stream", refuse)
    monkeypatch.setattr(lazy._reader, "attrs", refuse)
    assert list(lazy.nodes(data=True)) == first == list(graph.nodes(data=True))
    assert list(lazy) == list(graph) and "nope" not in lazy and len(lazy) == len(graph)


def test_edge_counts_and_pagerank_are_read_once_per_node(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The learned ranker asks for the same definitions' counts and PageRank question after
    question: a loaded graph reads each node once, and answers as a fresh read does."""
    graph = _fixture_graph(write_repo(tmp_path / "repo", with_tree=True))
    lazy = _stored(graph, tmp_path / "g.sqlite")
    nodes = sorted(n for n in graph if n.startswith("def:"))
    half = nodes[: len(nodes) // 2]
    counts, ranks = lazy.edge_counts(half), lazy.pagerank_of(half)
    fresh = GraphReader(tmp_path / "g.sqlite")
    assert counts == fresh.edge_counts(half) and counts
    assert ranks == fresh.pagerank_of(half)
    read: list[object] = []
    real = lazy._reader.rows
    monkeypatch.setattr(lazy._reader, "rows", lambda sql, args=(): read.append(args) or
                        real(sql, args))
    assert lazy.edge_counts(half) == counts and lazy.pagerank_of(half) == ranks
    assert not read  # every node known: no query
    assert lazy.edge_counts(nodes) == fresh.edge_counts(nodes)
    assert lazy.pagerank_of(nodes) == fresh.pagerank_of(nodes)
    assert read and all(set(args) <= set(nodes) - set(half) for args in read)
