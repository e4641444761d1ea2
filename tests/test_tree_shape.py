"""Tree JSON files are found by their shape, without an `index.trees` glob, indexed node by
node, and a question naming a tree reaches its nodes before code that shares its words."""

from __future__ import annotations

import json

from controller_helpers import ask, files_index

from indexers.trees import has_tree_shape

TREE = {"version": 1, "rootId": "atomic-systems-tree", "nodes": [
    {"id": "atomic-systems-tree", "title": "Atomic Systems Tree",
     "excerpt": "Canonical route for atomic viewer launches across quantum and classical modes.",
     "bodyMD": "This tree binds questions about atoms and orbitals to a single viewer.",
     "children": ["orbital-density"]},
    {"id": "orbital-density", "title": "Orbital density",
     "excerpt": "How the viewer renders orbital electron density.",
     "bodyMD": "Orbital density is sampled on a grid and shown as an isosurface; the viewer "
               "launches in quantum mode for it.", "children": []},
]}
COMPONENT = '''export function AtomicViewer({ orbital, mode }) {
  // the atomic viewer component: renders atoms and orbitals in quantum or classical mode
  return renderOrbital(orbital, mode);
}
'''


def test_a_json_file_of_a_trees_shape_is_a_tree() -> None:
    assert has_tree_shape("docs/knowledge/atomic.json", json.dumps(TREE))
    assert not has_tree_shape("package.json", json.dumps({"name": "x", "dependencies": {}}))
    assert not has_tree_shape("docs/tree.md", json.dumps(TREE))


def test_a_question_naming_a_tree_reaches_its_nodes_unconfigured() -> None:
    index = files_index({"docs/knowledge/atomic-systems.json": json.dumps(TREE, indent=2),
                         "web/src/AtomicViewer.jsx": COMPONENT,
                         "package.json": json.dumps({"name": "atomic-web", "version": "1.0.0"})})
    assert {n.local_id for n in index.tree_nodes()} == {"atomic-systems-tree", "orbital-density"}
    env = ask(index, "what does the atomic systems tree say about orbital density?")
    assert env.evidence[0].node_id.startswith("tree:")
    assert env.evidence[0].path == "docs/knowledge/atomic-systems.json"
    assert "Orbital density" in env.answer.splitlines()[0] or "orbital" in env.answer.lower()


def test_configured_globs_still_decide() -> None:
    index = files_index({"docs/knowledge/atomic-systems.json": json.dumps(TREE),
                         ".helix.toml": '[helix.index]\ntrees = ["trees/*.json"]\n'})
    assert index.tree_nodes() == []  # the glob names other files: this one is plain JSON
