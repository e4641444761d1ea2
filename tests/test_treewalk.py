"""Plan phase 6: tree walk modes and binding rate."""

from __future__ import annotations

from controller_helpers import ask, fixture_index

from controller.treewalk import walk
from helix.core.config import RetrievalSettings


def test_root_to_anchor_binds_evidence() -> None:
    index = fixture_index("matrix_repo")
    env = ask(index, "Explain the ingest pipeline.")
    tw = env.tree_walk
    assert tw.mode == "root->anchor"
    assert tw.nodes[0].node_id == "repo:"
    assert tw.binding_rate > 0
    assert tw.primary_tree_id is not None
    assert env.items.selected_trees and env.items.selected_trees[0] == tw.primary_tree_id
    bound = {i for n in tw.nodes for i in n.bound_evidence}
    assert bound <= {e.id for e in env.evidence}


def test_full_path_walks_more_nodes_than_root_to_anchor() -> None:
    index = fixture_index("matrix_repo")
    env = ask(index, "Explain the ingest pipeline.")
    settings = RetrievalSettings()
    short = walk(index.graph, env.evidence, settings, "root->anchor")
    full = walk(index.graph, env.evidence, settings, "full_path")
    assert full.mode == "full_path"
    assert len(full.nodes) >= len(short.nodes)
    assert full.binding_rate >= short.binding_rate > 0
    assert len(full.nodes) <= settings.tree_walk_max_nodes + len(short.nodes)


def test_no_evidence_binding_rate_zero() -> None:
    index = fixture_index("matrix_repo")
    tw = walk(index.graph, [], RetrievalSettings())
    assert tw.binding_rate == 0 and tw.nodes == ()
