"""The graph part is plain JSON (issue 9, S1 item 3): it round-trips exactly, and a part swapped
for a pickle is never executed."""

from __future__ import annotations

import json
import pickle
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
from indexers.formats import PART_GRAPH, dump_graph, edge_triples, graph_digest, load_graph
from indexers.graph import build_graph
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


def assert_identical(a: nx.MultiDiGraph, b: nx.MultiDiGraph) -> None:
    """Same nodes, attributes (types included), edges, and every adjacency order."""
    assert type(a) is type(b) and a.graph == b.graph
    assert orjson.dumps(list(a.nodes(data=True))) == orjson.dumps(list(b.nodes(data=True)))
    assert list(a.nodes(data=True)) == list(b.nodes(data=True))
    assert list(edge_triples(a)) == list(edge_triples(b))
    assert list(a.edges(keys=True, data=True)) == list(b.edges(keys=True, data=True))
    for node in a:
        assert list(a._succ[node].items()) == list(b._succ[node].items())
        assert list(a._pred[node].items()) == list(b._pred[node].items())
        for target, keydict in b._succ[node].items():
            assert keydict is b._pred[target][node]  # one key dict, as networkx shares it
    assert graph_digest(a) == graph_digest(b)


def test_round_trip_is_exact(tmp_path: Path) -> None:
    graph = _fixture_graph(write_repo(tmp_path / "repo", with_tree=True))
    assert any(attrs.get("kind") == "tree" and attrs.get("links") is not None
               for _, attrs in graph.nodes(data=True))  # nested attributes are covered
    raw = dump_graph(graph)
    back = load_graph(raw)
    assert_identical(graph, back)
    assert dump_graph(back) == raw
    json.loads(raw)  # plain JSON, readable by anything


def test_round_trip_keeps_edge_and_graph_attributes() -> None:
    graph = nx.MultiDiGraph(name="g")
    graph.add_node("b", kind="def", chunk_ids=["x", "y"])
    graph.add_node("a", kind="file", start_line=None, extra={"k": [1, 2.5, True, None]})
    graph.add_edge("b", "a", key="calls", weight=2)
    graph.add_edge("b", "a", key="imports")
    graph.add_edge("a", "b", key="contains")
    assert_identical(graph, load_graph(dump_graph(graph)))


def test_an_updated_graph_round_trips_like_a_fresh_one(tmp_path: Path) -> None:
    """The graph an incremental build updated in place is stored and read back exactly
    (predecessor order included), and equals what a fresh build stores."""
    repo = write_repo(tmp_path / "repo", with_tree=True)
    build_index(repo, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    (repo / "pkg" / "util.py").write_text("def retry_rule(n):\n    return n\n", encoding="utf-8")
    updated, report = ensure_index(repo, CONFIG, index_dir=tmp_path / "inc",
                                   embedder=FakeEmbedder())
    assert report.graph_updated
    stored = Index.open(IndexStore(tmp_path / "inc"), repo, CONFIG.index).graph
    assert stored is not updated.graph  # the first is read from disk, the other was built
    assert_identical(updated.graph, stored)
    build_index(repo, CONFIG, index_dir=tmp_path / "fresh", embedder=FakeEmbedder())
    assert_identical(Index.open(IndexStore(tmp_path / "fresh"), repo, CONFIG.index).graph,
                     stored)


@pytest.mark.parametrize("raw", [
    b"not json", b"[]", b'{"format": "helix-graph", "version": 99}',
    b'{"format": "other"}',
])
def test_malformed_graph_is_corrupt(raw: bytes) -> None:
    with pytest.raises(IndexCorruptError, match="graph"):
        load_graph(raw)


def _valid(**changes: Any) -> bytes:
    graph = nx.MultiDiGraph()
    graph.add_edge("a", "b", key="calls")
    data = orjson.loads(dump_graph(graph))
    data.update(changes)
    return orjson.dumps(data)


@pytest.mark.parametrize("changes", [
    {"src": [5]}, {"dst": [-1]}, {"kind": [3]}, {"src": ["a"]}, {"src": [0.5]},
    {"nodes": ["a", "a"]}, {"attrs": [{}, []]}, {"nodes": ["a", 1]}, {"src": [0, 1]},
    {"edge_attrs": {"0": 3}}, {"graph": []},
])
def test_inconsistent_graph_is_corrupt(changes: dict[str, Any]) -> None:
    load_graph(_valid())  # the unchanged document is fine
    with pytest.raises(IndexCorruptError, match="graph"):
        load_graph(_valid(**changes))


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
    (generation / PART_GRAPH).write_bytes(payload)
    manifest = json.loads((generation / MANIFEST).read_text())
    manifest["parts"][PART_GRAPH] = {"digest": digest(payload), "bytes": len(payload)}
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
    (_current(index_dir) / PART_GRAPH).write_bytes(pickle.dumps(_Planted(planted)))
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
