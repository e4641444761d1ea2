"""The repository graph: a containment tree plus DAG edges (see `indexers.api`).

    contains   repo: > dir: > file: > sec:/def: > def:   and   file: > tree: > tree:
    imports    file: -> file:        calls      def:/file: -> def:
    documents  sec:/tree: -> def:    tests      def: (test) -> def: (non-test)

Pure: parsed files in, `networkx.MultiDiGraph` out. Nodes and edges are added in sorted order
so the same inputs give the same graph (and the same stored bytes) in any process.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from helix.core.schemas import (
    Chunk,
    FileRecord,
    SymbolDef,
    node_id_def,
    node_id_dir,
    node_id_file,
)
from indexers.calls import Resolver, file_calls
from indexers.formats import edge_triples
from indexers.resolve import DefIndex, ModuleIndex, mentioned_symbols
from indexers.trees import TreeNode, containment_edges

if TYPE_CHECKING:
    import networkx as nx

REPO_NODE = "repo:"
DOC_CHUNK_KINDS = ("doc_section",)
_TEST_DIRS = frozenset({"tests", "test", "__tests__", "testing"})
_TEST_FILE = re.compile(
    r"(^test_.*\.py$)|(_test\.py$)|(_test\.go$)|(\.(test|spec)\.[cm]?[jt]sx?$)|(Tests?\.java$)"
)
_TEST_NAME = re.compile(r"^(test|Test)")


class GraphSummary(NamedTuple):
    """What the build reports of a stored graph: node count, edges by kind, content digest
    (`indexers.formats.graph_digest` of the same graph)."""

    nodes: int
    edges: dict[str, int]
    digest: str


# A file's parse by path (None: the file has none, e.g. a tree file). The graph asks for each
# file's parse once per pass instead of holding every parse at once.
ParseOf = Callable[[str], "ParsedLike | None"]


class ParsedLike(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def content_hash(self) -> str: ...
    @property
    def chunks(self) -> Sequence[Chunk]: ...
    @property
    def defs(self) -> Sequence[Any]: ...  # SymbolDef or DefRow
    @property
    def refs(self) -> Sequence[Any]: ...  # SymbolRef or RefRow


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    if any(part in _TEST_DIRS for part in parts[:-1]) or "src/test/" in path:
        return True
    return bool(_TEST_FILE.search(parts[-1]))


def is_test_def(d: SymbolDef) -> bool:
    """A test function, or a method of a Test* class, in a test file."""
    if not is_test_path(d.path):
        return False
    if d.kind in ("function", "method") and _TEST_NAME.match(d.name):
        return True
    return d.kind == "method" and bool(d.scope) and bool(_TEST_NAME.match(d.scope or ""))


def _node(kind: str, path: str, title: str, start: int | None = None, end: int | None = None,
          content_hash: str | None = None, **extra: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "kind": kind, "path": path, "start_line": start, "end_line": end,
        "content_hash": content_hash, "title": title, "chunk_ids": [],
    }
    attrs.update(extra)
    return attrs


class _Builder:
    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: set[tuple[str, str, str]] = set()

    def edge(self, src: str, dst: str, kind: str) -> None:
        if src != dst and src in self.nodes and dst in self.nodes:
            self.edges.add((src, dst, kind))

    def add_dirs(self, path: str) -> str:
        """Create the directory chain of a file; return the file's parent node id."""
        parent = REPO_NODE
        directory = posixpath.dirname(path)
        if not directory:
            return parent
        parts = directory.split("/")
        for depth in range(1, len(parts) + 1):
            sub = "/".join(parts[:depth])
            node = node_id_dir(sub)
            if node not in self.nodes:
                self.nodes[node] = _node("dir", sub, parts[depth - 1])
                self.edges.add((parent, node, "contains"))
            parent = node
        return parent

    def finish_nodes(self) -> None:
        for attrs in self.nodes.values():
            if len(attrs["chunk_ids"]) > 1:
                attrs["chunk_ids"].sort()

    def to_graph(self) -> nx.MultiDiGraph:
        import networkx as nx

        graph = nx.MultiDiGraph()
        self.finish_nodes()
        graph.add_nodes_from((node_id, self.nodes[node_id]) for node_id in sorted(self.nodes))
        add_edge = graph.add_edge  # faster than add_edges_from for plain edges
        for src, dst, kind in sorted(self.edges):
            add_edge(src, dst, key=kind)
        return graph

    def write(self, path: Path) -> GraphSummary:
        """Store the graph `to_graph` would give (`indexers.graph_store`), without building
        it in memory; its digest, node count and edge counts are those of that graph."""
        from indexers.formats import digest_graph_content
        from indexers.graph_store import GraphWriter

        self.finish_nodes()
        nodes = sorted(self.nodes)
        edges = sorted(self.edges)
        writer = GraphWriter(path)
        try:
            writer.add_nodes((node, self.nodes[node]) for node in nodes)
            writer.add_edges((src, dst, kind, None) for src, dst, kind in edges)
            writer.close()
        except BaseException:
            writer.abort()
            raise
        counts: dict[str, int] = defaultdict(int)
        for _, _, kind in edges:
            counts[kind] += 1
        return GraphSummary(
            nodes=len(nodes), edges=dict(sorted(counts.items())),
            digest=digest_graph_content(((n, self.nodes[n]) for n in nodes), iter(edges)))


def _add_file(b: _Builder, record: FileRecord, parsed: ParsedLike | None) -> None:
    file_node = node_id_file(record.path)
    chunks = sorted(parsed.chunks, key=lambda c: (c.start_line, c.id)) if parsed else []
    end = max((c.end_line for c in chunks), default=None)
    b.nodes[file_node] = _node("file", record.path, posixpath.basename(record.path),
                               1 if end else None, end, record.content_hash,
                               lang=record.lang, file_kind=record.kind)
    b.edges.add((b.add_dirs(record.path), file_node, "contains"))
    if parsed is None:
        return
    chunk_by_node: dict[str, Chunk] = {}
    for chunk in chunks:
        chunk_by_node.setdefault(chunk.node_id, chunk)
    # Sections nest by heading path: a section's parent is the nearest open section whose
    # heading path is a proper prefix of its own.
    stack: list[tuple[tuple[str, ...], str]] = []
    for chunk in chunks:
        if chunk.kind not in DOC_CHUNK_KINDS or not chunk.node_id.startswith("sec:"):
            continue
        node = chunk.node_id
        if node in b.nodes:
            attrs = b.nodes[node]
            attrs["end_line"] = max(attrs["end_line"], chunk.end_line)
            continue
        heading = chunk.heading_path
        while stack and not (len(stack[-1][0]) < len(heading)
                             and heading[: len(stack[-1][0])] == stack[-1][0]):
            stack.pop()
        parent = stack[-1][1] if stack else file_node
        b.nodes[node] = _node("section", record.path, heading[-1] if heading else record.path,
                              chunk.start_line, chunk.end_line, chunk.content_hash)
        b.edges.add((parent, node, "contains"))
        stack.append((heading, node))
    defs = sorted(parsed.defs, key=lambda d: (d.qualname.count("."), d.start_line, d.node_id))
    for d in defs:
        def_chunk = chunk_by_node.get(d.node_id)
        b.nodes[d.node_id] = _node("def", d.path, d.qualname, d.start_line, d.end_line,
                                   def_chunk.content_hash if def_chunk else None,
                                   def_kind=d.kind, name=d.name)
    for d in defs:
        parent_def = node_id_def(d.path, d.scope) if d.scope else None
        parent = parent_def if parent_def in b.nodes and parent_def != d.node_id else file_node
        b.edges.add((parent, d.node_id, "contains"))
    for chunk in chunks:
        target = chunk.node_id if chunk.node_id in b.nodes else file_node
        b.nodes[target]["chunk_ids"].append(chunk.id)


def _add_trees(b: _Builder, tree_nodes: Sequence[TreeNode]) -> None:
    for t in sorted(tree_nodes, key=lambda n: n.node_id):
        b.nodes[t.node_id] = _node(
            "tree", t.tree_file, t.title, t.start_line, t.end_line, t.content_hash,
            tree_file=t.tree_file, local_id=t.local_id, is_root=t.is_root,
            links=[link.model_dump() for link in t.links], checklist=dict(t.checklist),
            extra=dict(t.extra),
        )
        b.nodes[t.node_id]["chunk_ids"].append(t.chunk_id)
    has_parent: set[str] = set()
    for parent, child in containment_edges(tree_nodes):
        b.edges.add((parent, child, "contains"))
        has_parent.add(child)
    for t in tree_nodes:
        if t.node_id not in has_parent:
            file_node = node_id_file(t.tree_file)
            if file_node not in b.nodes:
                b.nodes[file_node] = _node("file", t.tree_file, posixpath.basename(t.tree_file))
                b.edges.add((b.add_dirs(t.tree_file), file_node, "contains"))
            b.edges.add((file_node, t.node_id, "contains"))


def file_imports(path: str, refs: Iterable[Any], modules: ModuleIndex) -> set[str]:
    """The repository files one file's import references resolve to."""
    imported: set[str] = set()
    for ref in refs:
        if ref.kind != "import":
            continue
        module = ref.module or ref.name
        name = ref.name if ref.module and ref.name != ref.module else None
        imported.update(modules.resolve(path, module, name))
    return imported


def _parses(paths: Iterable[str], parse_of: ParseOf) -> Iterator[ParsedLike]:
    """Each path's parse in turn (one in memory at a time when `parse_of` reads it)."""
    for path in paths:
        parsed = parse_of(path)
        if parsed is not None:
            yield parsed


ROOT_INIT = "__init__.py"


def module_index(paths: Sequence[str], parse_of: ParseOf) -> ModuleIndex:
    """The module map of these files, knowing the root package's own name when the root is
    a Python package (`ModuleIndex.learn_root_package`, from the root `__init__.py`)."""
    modules = ModuleIndex(paths)
    root = parse_of(ROOT_INIT) if ROOT_INIT in modules.paths else None
    if root is not None:
        modules.learn_root_package(
            (ref.module or ref.name, ref.name if ref.module and ref.name != ref.module else None)
            for ref in root.refs if ref.kind == "import")
    return modules


def _import_edges(b: _Builder, paths: Sequence[str], parse_of: ParseOf,
                  modules: ModuleIndex) -> dict[str, set[str]]:
    imported: dict[str, set[str]] = defaultdict(set)
    for p in _parses(paths, parse_of):
        targets = file_imports(p.path, p.refs, modules)
        if targets:
            imported[p.path] = targets
        for target in sorted(targets):
            b.edge(node_id_file(p.path), node_id_file(target), "imports")
    return imported


def _call_edges(b: _Builder, parsed: Iterable[ParsedLike], resolver: Resolver
                ) -> dict[str, set[str]]:
    """calls edges (`indexers.calls`); returns each source node's resolved targets (for tests
    edges)."""
    targets: dict[str, set[str]] = defaultdict(set)
    for p in parsed:
        for source, target in file_calls(p.path, p.refs, resolver, b.nodes):
            b.edge(source, target, "calls")
            targets[source].add(target)
    return targets


def _document_edges(b: _Builder, parsed: Iterable[ParsedLike], tree_nodes: Sequence[TreeNode],
                    defs: DefIndex) -> None:
    for p in parsed:
        # a stored parse reads only its documentation sections
        for chunk in p.doc_chunks if hasattr(p, "doc_chunks") else p.chunks:
            if chunk.kind not in DOC_CHUNK_KINDS:
                continue
            for mention in mentioned_symbols(chunk.text):
                found = defs.named(mention, chunk.path)
                if found is not None:
                    b.edge(chunk.node_id, found.node_id, "documents")
    for t in tree_nodes:
        for mention in mentioned_symbols(t.text):
            found = defs.named(mention, t.tree_file)
            if found is not None:
                b.edge(t.node_id, found.node_id, "documents")
        for item in _evidence_items(t):
            symbol, path = item.get("symbol"), item.get("path")
            if not isinstance(symbol, str):
                continue
            found = None
            if isinstance(path, str):
                found = defs.in_file(path, symbol, None)
            found = found or defs.named(symbol, t.tree_file)
            if found is not None:
                b.edge(t.node_id, found.node_id, "documents")


def _evidence_items(t: TreeNode) -> Iterable[dict[str, Any]]:
    evidence = t.checklist.get("evidence")
    if isinstance(evidence, list):
        yield from (item for item in evidence if isinstance(item, dict))


def _test_edges(b: _Builder, all_defs: Sequence[SymbolDef], targets: dict[str, set[str]]) -> None:
    for d in all_defs:
        if not is_test_def(d):
            continue
        for target in targets.get(d.node_id, ()):
            attrs = b.nodes.get(target)
            if attrs is not None and not is_test_path(attrs["path"]):
                b.edge(d.node_id, target, "tests")


def _built(files: Sequence[FileRecord], parse_of: ParseOf,
           tree_nodes: Sequence[TreeNode]) -> _Builder:
    """The graph of one index build, pass by pass over the files' parses (each asked for
    again in each pass: containment, definitions, imports, calls, documents)."""
    b = _Builder()
    b.nodes[REPO_NODE] = _node("repo", ".", "repo")
    records = sorted(files, key=lambda f: f.path)
    for record in records:
        _add_file(b, record, parse_of(record.path))
    _add_trees(b, tree_nodes)
    paths = [r.path for r in records if parse_of(r.path) is not None]
    all_defs = [d for p in _parses(paths, parse_of) for d in p.defs]
    defs = DefIndex(all_defs)
    modules = module_index(paths, parse_of)
    imported = _import_edges(b, paths, parse_of, modules)
    targets = _call_edges(b, _parses(paths, parse_of), Resolver(defs, modules, imported))
    _document_edges(b, _parses(paths, parse_of), sorted(tree_nodes, key=lambda t: t.node_id),
                    defs)
    _test_edges(b, all_defs, targets)
    return b


def build_graph(files: Sequence[FileRecord], parsed_files: Sequence[ParsedLike],
                tree_nodes: Sequence[TreeNode] = ()) -> nx.MultiDiGraph:
    """The whole graph of one index build. `parsed_files` may omit files (e.g. tree files);
    their nodes still appear in the containment tree. Paths of parses without a file record
    are not in the graph."""
    by_path = {p.path: p for p in parsed_files}
    return _built(files, by_path.get, tree_nodes).to_graph()


def write_graph_of(path: Path, files: Sequence[FileRecord], parse_of: ParseOf,
                   tree_nodes: Sequence[TreeNode] = ()) -> GraphSummary:
    """`build_graph`'s graph stored at `path` (`indexers.graph_store`), each file's parse read
    through `parse_of` when a pass needs it: neither every parse nor the networkx graph is
    held in memory."""
    return _built(files, parse_of, tree_nodes).write(path)


def edge_counts(graph: nx.MultiDiGraph) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for _, _, kind in edge_triples(graph):
        counts[kind] += 1
    return dict(sorted(counts.items()))
