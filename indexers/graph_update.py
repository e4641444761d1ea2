"""Refresh the previous generation's graph in place for modified files.

`update_graph` gives the graph `indexers.graph.build_graph` builds from scratch (same nodes,
attributes, edges and adjacency order, hence the same `graph_digest`) at a fraction of the cost,
when the set of files is unchanged and no changed file is a concept-tree file (the builder falls
back to a full build otherwise). What a modified file can change:

    its own nodes and their containment edges      rebuilt from its parse
    its outgoing imports                           re-resolved (the module map depends only on
                                                   the set of paths, so other files' imports
                                                   are unchanged)
    calls naming a definition it had or has        every source node holding a reference
                                                   whose resolution looks such a name up (its
                                                   name, its receiver's names, the import
                                                   bindings and class bases it goes through:
                                                   `indexers.calls.FileScope.depends_on`) is
                                                   re-resolved in full
    tests edges                                    re-derived for the re-resolved sources
    documents edges                                recomputed (doc sections and tree nodes only)

A reference none of whose looked-up names a changed file defines (before or after) resolves to
the same target: resolution looks at definitions of those names, the module map (the set of
paths) and the file-level import graph only. When a changed file's imports resolve to other
files than before (re-export chains change), or the root `__init__.py` changed (it names the
root package), the graph is built afresh instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helix.core.schemas import FileRecord, SymbolDef, node_id_def, node_id_file
from indexers.calls import FileScope, Resolver, file_calls, receiver_words
from indexers.formats import edge_triples
from indexers.graph import (
    REPO_NODE,
    ROOT_INIT,
    GraphSummary,
    ParsedLike,
    ParseOf,
    _add_file,
    _Builder,
    _built,
    _document_edges,
    _node,
    _parses,
    _test_edges,
    file_imports,
    module_index,
)
from indexers.resolve import DefIndex
from indexers.trees import TreeNode

if TYPE_CHECKING:
    import networkx as nx

    from indexers.row_store import RowReader

FILE_NODE_KINDS = frozenset({"file", "def", "section"})  # nodes a file's parse makes
KEPT_IN_KINDS = ("imports",)  # edges into a modified file's nodes that stay valid
RESOLVED_KINDS = ("calls", "tests")  # out-edges of a re-resolved source


def update_graph(graph: nx.MultiDiGraph, files: Sequence[FileRecord],
                 parsed_files: Sequence[ParsedLike], tree_nodes: Sequence[TreeNode],
                 changed: Iterable[str], old_defs: Iterable[SymbolDef]) -> nx.MultiDiGraph:
    """`graph` (the previous build's, mutated) brought up to date. `changed`: modified paths
    (same set of files as the previous build, none a tree file); `old_defs`: their
    definitions in the previous build."""
    by_path = {p.path: p for p in parsed_files}
    updated = _update(graph, files, by_path.get, sorted(by_path), tree_nodes, changed, old_defs)
    return updated if updated is not None else _built(files, by_path.get, tree_nodes).to_graph()


def write_updated_graph(path: Path, graph: nx.MultiDiGraph, files: Sequence[FileRecord],
                        parse_of: ParseOf, tree_nodes: Sequence[TreeNode],
                        changed: Iterable[str], old_defs: Iterable[SymbolDef],
                        rows: RowReader | None = None) -> GraphSummary:
    """`update_graph`'s graph stored at `path`, each file's parse read through `parse_of`
    when a pass needs it. A stored (lazy, read-only) `graph` is copied into memory first.
    `rows` (the new generation's): which files' references can name a changed definition is
    looked up there instead of reading every file's references."""
    from indexers.formats import graph_digest
    from indexers.graph import edge_counts
    from indexers.graph_store import write_graph

    if hasattr(graph, "materialize"):
        graph = graph.materialize()
    paths = sorted(r.path for r in files if parse_of(r.path) is not None)
    updated = _update(graph, files, parse_of, paths, tree_nodes, changed, old_defs, rows)
    if updated is None:
        return _built(files, parse_of, tree_nodes).write(path)
    write_graph(path, updated)
    return GraphSummary(nodes=updated.number_of_nodes(), edges=edge_counts(updated),
                        digest=graph_digest(updated))


def _imports_of(graph: nx.MultiDiGraph, paths: Iterable[str]) -> dict[str, set[str]]:
    """The file-level import graph as `graph` stores it."""
    out: dict[str, set[str]] = {}
    succ = graph._succ
    for path in paths:
        node = node_id_file(path)
        targets = {str(dst)[5:] for dst, keys in succ.get(node, {}).items() if "imports" in keys}
        if targets:
            out[path] = targets
    return out


def _update(graph: nx.MultiDiGraph, files: Sequence[FileRecord], parse_of: ParseOf,
            paths: Sequence[str], tree_nodes: Sequence[TreeNode], changed: Iterable[str],
            old_defs: Iterable[SymbolDef], rows: RowReader | None = None
            ) -> nx.MultiDiGraph | None:
    """`update_graph` over the parses of `paths` (sorted), read through `parse_of`; None when
    only a fresh build gives the right graph (a changed file imports other files now, or the
    root `__init__.py` changed)."""
    changed_set = set(changed)
    if ROOT_INIT in changed_set:
        return None
    modules = module_index(paths, parse_of)
    new_imports: dict[str, set[str]] = {}
    for path in sorted(changed_set):
        parsed = parse_of(path)
        new_imports[path] = file_imports(path, parsed.refs, modules) if parsed else set()
    if hasattr(graph, "materialize"):  # the stored (read-only, lazy) graph: a mutable copy
        graph = graph.materialize()
    imports = _imports_of(graph, paths)
    if any(imports.get(path, set()) != targets for path, targets in new_imports.items()):
        return None
    records = {r.path: r for r in files}

    def ordered() -> Iterator[ParsedLike]:
        return _parses(paths, parse_of)

    fresh = _Builder()
    fresh.nodes[REPO_NODE] = _node("repo", ".", "repo")
    for path in sorted(changed_set):
        _add_file(fresh, records[path], parse_of(path))
    fresh.finish_nodes()
    new_nodes = {n: a for n, a in fresh.nodes.items() if a["kind"] in FILE_NODE_KINDS}
    old_nodes = {n for n, a in graph._node.items()
                 if a["path"] in changed_set and a["kind"] in FILE_NODE_KINDS}
    sink = _Builder()  # checks edges against the final node set, collects them
    sink.nodes = {n: a for n, a in graph._node.items() if n not in old_nodes}
    sink.nodes.update(new_nodes)
    sink.edges = {e for e in fresh.edges if e[1] in new_nodes}

    names = {d.name for d in old_defs}
    for path in sorted(changed_set):
        parsed = parse_of(path)
        if parsed is not None:
            names.update(d.name for d in parsed.defs)
    all_defs = [d for p in ordered() for d in p.defs]
    defs = DefIndex(all_defs)
    resolver = Resolver(defs, modules, imports)
    candidates = None if rows is None else _referring(rows, names)
    sources = _affected_sources(ordered(), changed_set, names, sink.nodes, resolver, candidates)
    targets: dict[str, set[str]] = defaultdict(set)
    for p in ordered():
        only = None if p.path in changed_set else sources.get(p.path)
        if p.path not in changed_set and only is None:
            continue
        if p.path in changed_set:
            for target in sorted(new_imports[p.path]):
                sink.edge(node_id_file(p.path), node_id_file(target), "imports")
        for source, target in file_calls(p.path, p.refs, resolver, sink.nodes, only):
            sink.edge(source, target, "calls")
            targets[source].add(target)
    _test_edges(sink, [d for d in all_defs if d.node_id in targets], targets)
    _document_edges(sink, ordered(), sorted(tree_nodes, key=lambda t: t.node_id), defs)

    resolved = {s for per_file in sources.values() for s in per_file}
    drop = _edges_to_drop(graph, old_nodes, changed_set, resolved)
    _apply(graph, drop, sink.edges, old_nodes, new_nodes)
    return graph


def _referring(rows: RowReader, names: set[str]) -> set[str]:
    """The files with a reference named one of `names` or whose receiver has one as a
    segment: every name `FileScope.depends_on` gives is one of those (a call's name, an
    import's, a class base's, a receiver segment), so no other file can be affected."""
    receivers = [r for r in rows.ref_receivers()
                 if not names.isdisjoint(receiver_words(r))]
    return rows.paths_with_refs(names, receivers)


def _affected_sources(ordered: Iterable[ParsedLike], changed: set[str], names: set[str],
                      nodes: dict[str, Any], resolver: Resolver,
                      candidates: set[str] | None = None) -> dict[str, set[str]]:
    """Per unchanged file, the source nodes holding a reference whose resolution looks one
    of `names` up (only `candidates` can have one, when given)."""
    sources: dict[str, set[str]] = {}
    for p in ordered:
        if p.path in changed or (candidates is not None and p.path not in candidates):
            continue
        file_node = node_id_file(p.path)
        refs = list(p.refs)
        scope = FileScope(p.path, refs, resolver)
        for ref in refs:
            if ref.kind == "import" or names.isdisjoint(scope.depends_on(ref)):
                continue
            source = node_id_def(p.path, ref.scope) if ref.scope else file_node
            if source not in nodes:
                source = file_node
            sources.setdefault(p.path, set()).add(source)
    return sources


def _edges_to_drop(graph: nx.MultiDiGraph, old_nodes: set[str], changed: set[str],
                   resolved: set[str]) -> set[tuple[str, str, str]]:
    changed_files = {node_id_file(path) for path in changed}
    drop: set[tuple[str, str, str]] = set()
    for node in old_nodes:
        for dst, keys in graph._succ[node].items():
            drop.update((node, dst, k) for k in keys)
        for src, keys in graph._pred[node].items():
            drop.update((src, node, k) for k in keys
                        if k not in KEPT_IN_KINDS or src in changed_files)
    for source in resolved:
        for dst, keys in graph._succ[source].items():
            drop.update((source, dst, k) for k in keys if k in RESOLVED_KINDS)
    drop.update(e for e in edge_triples(graph) if e[2] == "documents")
    return drop


def _apply(graph: nx.MultiDiGraph, drop: set[tuple[str, str, str]],
           add: set[tuple[str, str, str]], old_nodes: set[str],
           new_nodes: dict[str, dict[str, Any]]) -> None:
    """Apply the edge and node changes, then restore the canonical (sorted) order a fresh
    `build_graph` gives every adjacency dict."""
    keep = {e for e in drop if e in add}
    drop, add = drop - keep, add - keep
    touched_src = {e[0] for e in drop | add}
    touched_dst = {e[1] for e in drop | add}
    for src, dst, kind in sorted(drop):
        graph.remove_edge(src, dst, key=kind)
    gone = sorted(old_nodes - set(new_nodes))
    graph.remove_nodes_from(gone)
    born = [n for n in sorted(new_nodes) if n not in graph]
    graph.add_nodes_from(born)
    node_attrs = graph._node
    for node, attrs in new_nodes.items():
        node_attrs[node] = dict(attrs)
    for src, dst, kind in sorted(add):
        graph.add_edge(src, dst, key=kind)
    if gone or born:
        for outer in (graph._node, graph._succ, graph._pred):
            _resort(outer)
    succ, pred = graph._succ, graph._pred
    for src in touched_src:
        if src in succ:
            _resort(succ[src])
            for keydict in succ[src].values():
                _resort(keydict)
    for dst in touched_dst:
        if dst in pred:
            _resort(pred[dst])
    graph.__networkx_cache__.clear()


def _resort(mapping: dict[str, Any]) -> None:
    """Sort a dict's keys in place (identity kept: nx shares the inner dicts)."""
    keys = list(mapping)
    if all(a < b for a, b in pairwise(keys)):
        return
    items = sorted(mapping.items(), key=lambda kv: kv[0])
    mapping.clear()
    mapping.update(items)
