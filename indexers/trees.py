"""Repository-provided tree/concept JSON files (the `index.trees` setting points at them).

Format (see the spec's `examples/*.json`):
    {"version": 1, "rootId": "...", "nodes": [{"id", "title", "excerpt", "bodyMD", "children",
     "links", "inputs", "outputs", "assumptions", "validity", "deterministic", "tolerance",
     "environment", "dependencies", "evidence", ...}]}

Each node becomes one `tree_node` chunk (title, excerpt, summary, body) and one `TreeNode`
record that keeps the DAG full-access checklist fields verbatim, so the export can check them.
Pure: text in, records out.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

from helix.core.errors import TreeFileBoundError
from helix.core.hashing import digest, short_id
from helix.core.schemas import Chunk, Frozen, node_id_tree

# Fields of the DAG full-access checklist, kept as node attributes as written in the file.
CHECKLIST_FIELDS = (
    "inputs", "outputs", "assumptions", "validity", "deterministic", "tolerance",
    "environment", "dependencies", "evidence",
)
# Other descriptive fields kept as attributes.
EXTRA_FIELDS = ("nodeType", "tags", "predictability", "summary", "slug")
TREE_CHUNK_KIND: Final = "tree_node"
PARENT_REL = "parent"


class TreeFormatError(ValueError):
    """A tree file that is not a tree (bad JSON, no `nodes` list, node without `id`)."""


class TreeLink(Frozen):
    rel: str
    to: str  # graph node id of the target (tree:<file>#<id>)
    target_id: str  # the id as written


class TreeNode(Frozen):
    node_id: str
    tree_file: str
    local_id: str
    title: str
    start_line: int
    end_line: int
    content_hash: str
    chunk_id: str
    is_root: bool
    children: tuple[str, ...]  # graph node ids, in file order
    links: tuple[TreeLink, ...]
    checklist: dict[str, Any]  # CHECKLIST_FIELDS present in the node, verbatim
    extra: dict[str, Any]  # EXTRA_FIELDS present in the node, verbatim
    text: str  # what the chunk holds; the graph scans it for symbol names


def is_tree_file(path: str, patterns: Sequence[str]) -> bool:
    """True when the repository-relative POSIX path matches one of the `index.trees` globs."""
    return any(fnmatch.fnmatchcase(path, pattern[2:] if pattern.startswith("./") else pattern)
               for pattern in patterns)


_SHAPE_SNIFF = 65536  # characters of a JSON file looked at for a tree's keys


def has_tree_shape(path: str, text: str) -> bool:
    """A JSON file that looks like a tree (with no `index.trees` globs set, such files are
    found by their shape): a top-level `nodes` list whose nodes carry ids and a title, body,
    children or links. Cheap: the keys are looked for in the text before it is parsed."""
    if not path.endswith(".json"):
        return False
    head = text[:_SHAPE_SNIFF]
    return '"nodes"' in head and '"id"' in head and any(
        key in head for key in ('"bodyMD"', '"children"', '"links"', '"excerpt"'))


def tree_chunk_id(tree_file: str, local_id: str, start: int, end: int, content_hash: str) -> str:
    # Same shape as the other chunk ids (`path:start-end#hash`); the node id keeps it unique.
    suffix = short_id(tree_file, TREE_CHUNK_KIND, local_id, content_hash)
    return f"{tree_file}:{start}-{end}#{suffix}"


def _as_text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _node_text(node: dict[str, Any]) -> str:
    parts = [_as_text(node.get("title")) or _as_text(node.get("id"))]
    excerpt = _as_text(node.get("excerpt"))
    summary = _as_text(node.get("summary"))
    parts.append(excerpt)
    if summary and summary != excerpt:
        parts.append(summary)
    parts.append(_as_text(node.get("bodyMD")))
    tags = node.get("tags")
    if isinstance(tags, list) and tags:
        parts.append("Tags: " + ", ".join(str(t) for t in tags))
    return "\n\n".join(p for p in parts if p)


# `"id": "<a JSON string>"`, wherever it stands: one pass over the text finds them all
_ID_KEY = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*")')


def _id_lines(text: str, ids: Iterable[str]) -> dict[str, int]:
    """1-based line of each node's `"id": "<id>"` in the file (first occurrence), in one pass
    over the text: linear in its size whatever the number of nodes (a search per id was
    quadratic: a 28,000-node file did not index in 300 s)."""
    wanted = set(ids)
    out: dict[str, int] = {}
    line, scanned = 1, 0
    for match in re.finditer(_ID_KEY, text):
        try:
            local_id = json.loads(match.group(1))
        except ValueError:
            continue
        if local_id not in wanted or local_id in out:
            continue
        line += text.count("\n", scanned, match.start())
        scanned = match.start()
        out[local_id] = line
        if len(out) == len(wanted):
            break
    return out


def _end_lines(starts: Sequence[int], total_lines: int) -> list[int]:
    """Each node's last line: the line before the next node's start below it (or the file's
    last line). Sorted once, so linear after the sort."""
    distinct = sorted(set(starts))
    following = {line: (distinct[i + 1] - 1 if i + 1 < len(distinct) else total_lines)
                 for i, line in enumerate(distinct)}
    return [max(start, following[start]) for start in starts]


def _load(path: str, text: str) -> tuple[str | None, list[dict[str, Any]]]:
    def constant(name: str) -> Any:  # NaN / Infinity: not JSON, and no stored part holds them
        raise TreeFormatError(f"{path}: {name} is not a JSON value")

    def integer(digits: str) -> int:  # the index stores 64-bit integers at most
        value = int(digits)
        if not -(2 ** 63) <= value < 2 ** 64:
            raise TreeFormatError(f"{path}: integer {digits[:20]}... is out of range")
        return value

    try:
        data = json.loads(text, parse_constant=constant, parse_int=integer)
    except json.JSONDecodeError as exc:
        raise TreeFormatError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
        raise TreeFormatError(f"{path}: a tree file needs a top-level 'nodes' list")
    nodes = data["nodes"]
    for position, node in enumerate(nodes):
        if not isinstance(node, dict) or not isinstance(node.get("id"), str) or not node["id"]:
            raise TreeFormatError(f"{path}: node #{position} has no string 'id'")
    root = data.get("rootId")
    return (root if isinstance(root, str) else None), nodes


def parse_tree_file(path: str, text: str, *, max_nodes: int | None = None,
                    max_depth: int | None = None) -> tuple[list[Chunk], list[TreeNode]]:
    """Chunks (kind `tree_node`) and node records of one tree file, in file order; linear in
    the file's size.

    A node id that appears twice keeps its first occurrence. Raises TreeFormatError, and
    TreeFileBoundError past `max_nodes` nodes or `max_depth` levels of containment.
    """
    root_id, raw_nodes = _load(path, text)
    if max_nodes is not None and len(raw_nodes) > max_nodes:
        raise TreeFileBoundError(f"{path} holds {len(raw_nodes):,} tree nodes, over "
                                 f"index.max_tree_nodes = {max_nodes:,}")
    seen: set[str] = set()
    unique: list[dict[str, Any]] = []
    for node in raw_nodes:
        if node["id"] not in seen:
            seen.add(node["id"])
            unique.append(node)
    if root_id is None and unique:
        root_id = unique[0]["id"]
    lines = _id_lines(text, [n["id"] for n in unique])
    total_lines = text.count("\n") + 1
    starts = [lines.get(n["id"], 1) for n in unique]
    ends = _end_lines(starts, total_lines)
    chunks: list[Chunk] = []
    records: list[TreeNode] = []
    for position, node in enumerate(unique):
        local_id = node["id"]
        start, end = starts[position], ends[position]
        body = _node_text(node)
        content_hash = digest(body)
        node_id = node_id_tree(path, local_id)
        chunk_id = tree_chunk_id(path, local_id, start, end, content_hash)
        title = _as_text(node.get("title")) or local_id
        chunks.append(Chunk(
            id=chunk_id, path=path, kind=TREE_CHUNK_KIND, lang="json", start_line=start,
            end_line=end, text=body, content_hash=content_hash,
            heading_path=(title,), node_id=node_id,
        ))
        children = tuple(
            node_id_tree(path, child) for child in node.get("children") or []
            if isinstance(child, str) and child in seen and child != local_id
        )
        links = tuple(
            TreeLink(rel=str(link.get("rel") or link.get("edgeType") or "link"),
                     to=node_id_tree(path, link["to"]), target_id=link["to"])
            for link in node.get("links") or []
            if isinstance(link, dict) and isinstance(link.get("to"), str)
        )
        records.append(TreeNode(
            node_id=node_id, tree_file=path, local_id=local_id, title=title,
            start_line=start, end_line=end, content_hash=content_hash,
            chunk_id=chunk_id, is_root=local_id == root_id, children=children, links=links,
            checklist={k: node[k] for k in CHECKLIST_FIELDS if k in node},
            extra={k: node[k] for k in EXTRA_FIELDS if k in node},
            text=body,
        ))
    if max_depth is not None:
        depth = tree_depth(records)
        if depth > max_depth:
            raise TreeFileBoundError(f"{path} nests tree nodes {depth:,} deep, over "
                                     f"index.max_tree_depth = {max_depth:,}")
    return chunks, records


def containment_edges(nodes: Sequence[TreeNode]) -> list[tuple[str, str]]:
    """(parent, child) pairs of one or more trees: from `children`, plus `parent` links for
    nodes no `children` list names. Each child keeps one parent (the first in file order),
    so containment stays a tree; sorted for determinism."""
    known = {n.node_id for n in nodes}
    parent_of: dict[str, str] = {}
    for node in nodes:
        for child in node.children:
            if child in known and child not in parent_of:
                parent_of[child] = node.node_id
    for node in nodes:
        if node.node_id in parent_of or node.is_root:
            continue
        for link in node.links:
            if link.rel == PARENT_REL and link.to in known and link.to != node.node_id:
                parent_of[node.node_id] = link.to
                break
    _break_cycles(parent_of)
    return sorted((parent, child) for child, parent in parent_of.items())


def _break_cycles(parent_of: dict[str, str]) -> None:
    """Drop one edge of each cycle a hand-written file may contain: its first member's (in
    sorted order). Each node has one parent, so each walk up ends at a top, at a node already
    walked, or on a node of its own walk (a cycle): every node is walked once."""
    done: set[str] = set()
    for start in sorted(parent_of):
        path: list[str] = []
        on_path: set[str] = set()
        node: str | None = start
        while node is not None and node not in done and node not in on_path:
            path.append(node)
            on_path.add(node)
            node = parent_of.get(node)
        if node is not None and node in on_path:
            parent_of.pop(min(path[path.index(node):]))
        done.update(path)


def tree_depth(nodes: Sequence[TreeNode]) -> int:
    """The containment depth of one or more trees (a lone node: 1), linear in their size."""
    children: dict[str, list[str]] = {}
    has_parent: set[str] = set()
    for parent, child in containment_edges(nodes):
        children.setdefault(parent, []).append(child)
        has_parent.add(child)
    deepest = 0
    level = [n.node_id for n in nodes if n.node_id not in has_parent]
    while level:
        deepest += 1
        level = [child for node in level for child in children.get(node, ())]
    return deepest


def concept_tree_id(graph: Any, node_id: str) -> str | None:
    """The concept tree a tree node belongs to: the own id of its tree file's root node
    (`casimir-tiles-tree`), found up the `contains` edges; None for any other node."""
    if node_id not in graph or not node_id.startswith("tree:"):
        return None
    tree_file = graph.nodes[node_id].get("tree_file")
    current, seen = node_id, set()
    while current not in seen:
        seen.add(current)
        attrs = graph.nodes[current]
        if attrs.get("is_root"):
            return str(attrs.get("local_id") or current)
        parents = sorted(u for u, _, key in graph.in_edges(current, keys=True)
                         if key == "contains" and u.startswith("tree:")
                         and graph.nodes[u].get("tree_file") == tree_file)
        if not parents:
            return None
        current = parents[0]
    return None
