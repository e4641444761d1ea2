"""Repository-provided tree/concept JSON files: parsing, checklist fields, containment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helix.core.schemas import node_id_tree
from indexers.trees import (
    CHECKLIST_FIELDS,
    TreeFormatError,
    containment_edges,
    is_tree_file,
    parse_tree_file,
)

FIXTURES = Path(__file__).parent / "fixtures" / "trees"


@pytest.mark.parametrize("name,count", [("atomic-systems-tree.json", 7),
                                        ("casimir-tiles-tree.json", 20)])
def test_example_trees_load(name: str, count: int) -> None:
    text = (FIXTURES / name).read_text("utf-8")
    path = f"docs/trees/{name}"
    chunks, nodes = parse_tree_file(path, text)
    assert len(chunks) == len(nodes) == count
    root = json.loads(text)["rootId"]
    roots = [n for n in nodes if n.is_root]
    assert [n.local_id for n in roots] == [root]
    assert all(c.kind == "tree_node" and c.path == path for c in chunks)
    assert all(c.node_id == n.node_id for c, n in zip(chunks, nodes, strict=True))
    # each node's line is where its id is written
    lines = text.splitlines()
    for node in nodes:
        assert f'"{node.local_id}"' in lines[node.start_line - 1]
        assert node.end_line >= node.start_line
    # containment reaches every node from the root (one parent each)
    edges = containment_edges(nodes)
    children = {c for _, c in edges}
    assert len(children) == len(edges)
    assert {n.node_id for n in nodes} - children == {node_id_tree(path, root)}


def test_checklist_fields_kept_verbatim() -> None:
    text = (FIXTURES / "atomic-systems-tree.json").read_text("utf-8")
    raw = json.loads(text)["nodes"][0]
    _, nodes = parse_tree_file("t.json", text)
    root = nodes[0]
    for field in CHECKLIST_FIELDS:
        assert root.checklist[field] == raw[field]
    assert root.title == "Atomic Systems Tree"
    assert root.links[0].rel == "see-also"
    assert root.links[0].to == node_id_tree("t.json", "simulation-systems-tree")
    assert "Canonical DAG route" in (root.text)


def test_parent_links_and_cycles() -> None:
    text = json.dumps({"rootId": "a", "nodes": [
        {"id": "a", "title": "A", "children": ["b"]},
        {"id": "b", "title": "B", "children": ["a"]},  # cycle back to the root
        {"id": "c", "title": "C", "links": [{"rel": "parent", "to": "b"}]},
        {"id": "b", "title": "duplicate"},
    ]}, indent=1)
    chunks, nodes = parse_tree_file("x.json", text)
    assert len(chunks) == 3
    assert [n.local_id for n in nodes] == ["a", "b", "c"]
    edges = containment_edges(nodes)
    assert edges == sorted([(node_id_tree("x.json", "a"), node_id_tree("x.json", "b")),
                            (node_id_tree("x.json", "b"), node_id_tree("x.json", "c"))])


def test_stable_ids_and_hashes() -> None:
    text = (FIXTURES / "casimir-tiles-tree.json").read_text("utf-8")
    first, _ = parse_tree_file("t.json", text)
    second, _ = parse_tree_file("t.json", text)
    assert [c.id for c in first] == [c.id for c in second]
    assert len({c.id for c in first}) == len(first)


@pytest.mark.parametrize("text", ["{not json", "[]", '{"nodes": [{"title": "no id"}]}',
                                  '{"nodes": "x"}'])
def test_bad_tree_files(text: str) -> None:
    with pytest.raises(TreeFormatError):
        parse_tree_file("bad.json", text)


def test_is_tree_file_globs() -> None:
    assert is_tree_file("docs/trees/a.json", ["docs/trees/*.json"])
    assert is_tree_file("docs/trees/a.json", ["./docs/**/*.json"])
    assert not is_tree_file("src/a.json", ["docs/trees/*.json"])
    assert not is_tree_file("a.json", [])
