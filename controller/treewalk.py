"""Tree walk over the graph's containment tree (plan phase 6).

Anchors are the nodes of the best evidence items. `root->anchor` walks the containment path from
the root (`repo:`, or a concept tree's root) down to each anchor; `full_path` also walks each
anchor's subtree (breadth-first, capped). An evidence item is bound to a walked node when its own
node, or the node that contains it, was walked. The primary tree is the top-level subtree (a
top-level directory, a root file, or a concept tree) holding the most evidence score.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import networkx as nx

from helix.core.config import RetrievalSettings
from helix.core.envelope import EvidenceItem, TreeWalk, TreeWalkNode


def _parent(graph: nx.MultiDiGraph, node: str) -> str | None:
    # networkx's own dict of dicts (a view costs five times more per call)
    pred = getattr(graph, "_pred", None)
    parents = (graph.pred if pred is None else pred)[node]
    return min((u for u, keys in parents.items() if "contains" in keys), default=None)


def _path_to_root(graph: nx.MultiDiGraph, node: str) -> list[str]:
    out = [node]
    seen = {node}
    while (parent := _parent(graph, out[-1])) is not None and parent not in seen:
        out.append(parent)
        seen.add(parent)
    return list(reversed(out))


def _children(graph: nx.MultiDiGraph, node: str) -> list[str]:
    return sorted(v for v, keys in graph.succ[node].items() if "contains" in keys)


def top_level(graph: nx.MultiDiGraph, node: str) -> str:
    """The subtree a node belongs to: the child of the root on its path (or the root itself)."""
    if node not in graph:
        return node
    path = _path_to_root(graph, node)
    return path[1] if len(path) > 1 else path[0]


def selected_trees(graph: nx.MultiDiGraph, evidence: Sequence[EvidenceItem]) -> list[str]:
    mass: dict[str, float] = {}
    for item in evidence:
        tree = top_level(graph, item.node_id)
        mass[tree] = mass.get(tree, 0.0) + item.score
    return [t for t, _ in sorted(mass.items(), key=lambda kv: (-kv[1], kv[0]))]


def walk(graph: nx.MultiDiGraph, evidence: Sequence[EvidenceItem],
         settings: RetrievalSettings, mode: str | None = None) -> TreeWalk:
    mode = mode or settings.tree_walk_mode
    anchors = list(dict.fromkeys(item.node_id for item in evidence
                                 if item.node_id in graph))[:settings.tree_walk_anchors]
    order: list[str] = []
    walked: set[str] = set()
    depth: dict[str, int] = {}
    for anchor in anchors:
        path = _path_to_root(graph, anchor)
        for level, node in enumerate(path):
            depth.setdefault(node, level)
            if node not in walked:
                walked.add(node)
                order.append(node)
    if mode == "full_path":
        queue = deque(anchors)
        while queue and len(order) < settings.tree_walk_max_nodes:
            node = queue.popleft()
            for child in _children(graph, node):
                if child not in walked and len(order) < settings.tree_walk_max_nodes:
                    walked.add(child)
                    order.append(child)
                    queue.append(child)
                    depth[child] = len(_path_to_root(graph, child)) - 1
    bound: dict[str, list[str]] = {}
    for item in evidence:
        owner: str | None = item.node_id
        if owner not in walked:
            owner = _parent(graph, item.node_id) if item.node_id in graph else None
        if owner is not None and owner in walked:
            bound.setdefault(owner, []).append(item.id)
    nodes = tuple(TreeWalkNode(node_id=n, title=str(graph.nodes[n].get("title") or n),
                               depth=depth[n], kind=str(graph.nodes[n].get("kind", "")),
                               bound_evidence=tuple(bound.get(n, ())))
                  for n in order)
    n_bound = sum(len(v) for v in bound.values())
    rate = round(n_bound / len(evidence), 6) if evidence else 0.0
    trees = selected_trees(graph, evidence)
    return TreeWalk(mode=mode, anchors=tuple(anchors), nodes=nodes,  # type: ignore[arg-type]
                    binding_rate=rate, primary_tree_id=trees[0] if trees else None)
