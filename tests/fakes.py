"""An in-memory IndexReader for controller tests: small, exact, and independent of the indexers.

Python files are chunked per top-level def/class/method (plus a module chunk), Markdown per
heading, tree JSON per node, anything else as one text window. BM25 is rank_bm25 over the index's
tokenizer; dense search uses a FakeEmbedder; the graph has contains / imports / calls /
documents / tests edges built the simple way.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import networkx as nx
import numpy as np
from rank_bm25 import BM25Okapi

from helix.core.hashing import digest, hash_obj, short_id
from helix.core.ports import FakeEmbedder
from helix.core.schemas import (
    Chunk,
    FileRecord,
    Hit,
    SymbolDef,
    SymbolRef,
    node_id_def,
    node_id_dir,
    node_id_file,
    node_id_section,
    node_id_tree,
)
from indexers.bm25 import BM25Index
from indexers.tokenize import tokenize

_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")


def _file_kind(path: str) -> str:
    if path.endswith(".py"):
        return "code"
    if path.endswith(".md"):
        return "doc"
    if path.endswith(".json"):
        return "tree"
    return "text"


class FakeIndex:
    def __init__(self, files: Mapping[str, str], root: Path | None = None,
                 embedder: FakeEmbedder | None = None, repo_rev: str = "fake-rev") -> None:
        self._root = root or Path("/fake")
        self._files = {p: files[p] for p in sorted(files)}
        self._repo_rev = repo_rev
        self._embedder = embedder
        self._chunks: list[Chunk] = []
        self._defs: list[SymbolDef] = []
        self._refs: list[SymbolRef] = []
        self._graph = nx.MultiDiGraph()
        self._graph.add_node("repo:", kind="repo", path="", title="repo", chunk_ids=[])
        for path, text in self._files.items():
            self._add_file(path, text)
        self._link()
        self._chunks.sort(key=lambda c: (c.path, c.start_line, c.id))
        self._by_id = {c.id: c for c in self._chunks}
        self._bm25 = BM25Okapi([tokenize(c.text) or ["\x00"] for c in self._chunks])
        # whole files: Lucene idf as the real index (Okapi's is <= 0 for a word most of a
        # three-file fixture shares)
        paths = sorted({c.path for c in self._chunks})
        self._file_bm25 = BM25Index.build(paths, [
            [t for c in self._chunks if c.path == p for t in tokenize(c.text)] for p in paths])
        self._vectors = (embedder.embed([c.text for c in self._chunks])
                         if embedder is not None and self._chunks else None)

    # ---- building -------------------------------------------------------------------------
    def _ensure_dirs(self, path: str) -> str:
        parent = "repo:"
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            d = "/".join(parts[:depth])
            node = node_id_dir(d)
            if node not in self._graph:
                self._graph.add_node(node, kind="dir", path=d, title=parts[depth - 1],
                                     chunk_ids=[])
                self._graph.add_edge(parent, node, key="contains")
            parent = node
        return parent

    def _chunk(self, path: str, kind: str, start: int, end: int, node: str, *,
               heading: tuple[str, ...] = (), symbol: str | None = None,
               def_kind: str | None = None) -> Chunk:
        lines = self._files[path].splitlines()
        text = "\n".join(lines[start - 1:end])
        content_hash = digest(text)
        chunk = Chunk(id=short_id(path, kind, start, content_hash), path=path, kind=kind,  # type: ignore[arg-type]
                      lang="python" if path.endswith(".py") else None, start_line=start,
                      end_line=end, text=text, content_hash=content_hash, heading_path=heading,
                      symbol=symbol, def_kind=def_kind, node_id=node)  # type: ignore[arg-type]
        self._chunks.append(chunk)
        self._graph.nodes[node].setdefault("chunk_ids", []).append(chunk.id)
        return chunk

    def _add_node(self, node: str, parent: str, **attrs: object) -> None:
        self._graph.add_node(node, chunk_ids=[], **attrs)
        self._graph.add_edge(parent, node, key="contains")

    def _add_file(self, path: str, text: str) -> None:
        parent = self._ensure_dirs(path)
        fnode = node_id_file(path)
        n_lines = max(1, len(text.splitlines()))
        self._add_node(fnode, parent, kind="file", path=path, start_line=1, end_line=n_lines,
                       content_hash=digest(text), title=path.rsplit("/", 1)[-1])
        kind = _file_kind(path)
        if kind == "code":
            self._add_python(path, text, fnode)
        elif kind == "doc":
            self._add_markdown(path, text, fnode)
        elif kind == "tree":
            self._add_tree(path, text, fnode)
        else:
            self._chunk(path, "text_window", 1, n_lines, fnode)

    def _add_python(self, path: str, text: str, fnode: str) -> None:
        tree = ast.parse(text)
        n_lines = max(1, len(text.splitlines()))
        self._chunk(path, "code_module", 1, n_lines, fnode)

        def visit(body: list[ast.stmt], scope: str | None, parent: str) -> None:
            for stmt in body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    qual = f"{scope}.{stmt.name}" if scope else stmt.name
                    kind = ("class" if isinstance(stmt, ast.ClassDef)
                            else "method" if scope else "function")
                    node = node_id_def(path, qual)
                    end = stmt.end_lineno or stmt.lineno
                    self._add_node(node, parent, kind="def", path=path, start_line=stmt.lineno,
                                   end_line=end, title=qual)
                    self._defs.append(SymbolDef(name=stmt.name, qualname=qual, kind=kind,  # type: ignore[arg-type]
                                                path=path, start_line=stmt.lineno, end_line=end,
                                                scope=scope, node_id=node))
                    self._chunk(path, "code_def", stmt.lineno, end, node, symbol=qual,
                                def_kind=kind)
                    for sub in ast.walk(stmt):
                        if isinstance(sub, ast.Call):
                            func = sub.func
                            name = (func.id if isinstance(func, ast.Name) else
                                    func.attr if isinstance(func, ast.Attribute) else None)
                            if name:
                                self._refs.append(SymbolRef(name=name, kind="call", path=path,
                                                            line=sub.lineno, scope=qual))
                    if isinstance(stmt, ast.ClassDef):
                        visit(stmt.body, qual, node)
                elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    module = stmt.module if isinstance(stmt, ast.ImportFrom) else None
                    for alias in stmt.names:
                        self._refs.append(SymbolRef(name=alias.name, kind="import", path=path,
                                                    line=stmt.lineno, scope=scope,
                                                    module=module or alias.name))

        visit(tree.body, None, fnode)

    def _add_markdown(self, path: str, text: str, fnode: str) -> None:
        lines = text.splitlines()
        starts = [(i + 1, len(m.group(1)), m.group(2)) for i, line in enumerate(lines)
                  if (m := _HEADING.match(line))]
        if not starts or starts[0][0] != 1:
            starts.insert(0, (1, 0, ""))
        stack: list[tuple[int, str]] = []
        for idx, (start, level, title) in enumerate(starts):
            end = starts[idx + 1][0] - 1 if idx + 1 < len(starts) else len(lines)
            while stack and stack[-1][0] >= level and level > 0:
                stack.pop()
            if level > 0:
                stack.append((level, title))
            heading = tuple(t for _, t in stack)
            node = node_id_section(path, start)
            self._add_node(node, fnode, kind="section", path=path, start_line=start,
                           end_line=max(start, end), title=title or path)
            self._chunk(path, "doc_section", start, max(start, end), node, heading=heading)

    def _add_tree(self, path: str, text: str, fnode: str) -> None:
        data = json.loads(text)
        nodes = {n["id"]: n for n in data.get("nodes", [])}
        lines = text.splitlines()
        for node_id, node in nodes.items():
            nid = node_id_tree(path, node_id)
            line = next((i + 1 for i, ln in enumerate(lines) if f'"id": "{node_id}"' in ln), 1)
            self._graph.add_node(nid, kind="tree", path=path, start_line=line, end_line=line,
                                 title=node.get("title", node_id), chunk_ids=[])
        for node_id, node in nodes.items():
            nid = node_id_tree(path, node_id)
            parents = [p for p, n in nodes.items() if node_id in n.get("children", [])]
            parent = node_id_tree(path, parents[0]) if parents else fnode
            self._graph.add_edge(parent, nid, key="contains")
            start = self._graph.nodes[nid]["start_line"]
            body = f"{node.get('title', '')}\n{node.get('bodyMD', '')}"
            content_hash = digest(body)
            chunk = Chunk(id=short_id(path, "tree_node", node_id, content_hash), path=path,
                          kind="tree_node", lang=None, start_line=start, end_line=start,
                          text=body, content_hash=content_hash,
                          heading_path=(node.get("title", node_id),), node_id=nid)
            self._chunks.append(chunk)
            self._graph.nodes[nid]["chunk_ids"].append(chunk.id)

    def _link(self) -> None:
        by_name: dict[str, list[SymbolDef]] = {}
        for d in self._defs:
            by_name.setdefault(d.name, []).append(d)
        for ref in self._refs:
            # Like a careful resolver: link a call only to a unique, non-dunder definition.
            targets = by_name.get(ref.name, [])
            if ref.kind == "call" and ref.scope and len(targets) == 1 \
                    and not ref.name.startswith("__"):
                src = node_id_def(ref.path, ref.scope)
                for target in targets:
                    if target.node_id != src:
                        is_test = ref.scope.split(".")[-1].startswith("test")
                        self._graph.add_edge(src, target.node_id,
                                             key="tests" if is_test else "calls")
            if ref.kind == "import" and ref.module:
                target_path = ref.module.replace(".", "/") + ".py"
                if target_path in self._files:
                    self._graph.add_edge(node_id_file(ref.path), node_id_file(target_path),
                                         key="imports")
        for chunk in self._chunks:
            if chunk.kind in ("doc_section", "tree_node"):
                words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", chunk.text))
                for name in sorted(words):
                    for target in by_name.get(name, []):
                        self._graph.add_edge(chunk.node_id, target.node_id, key="documents")

    # ---- IndexReader ----------------------------------------------------------------------
    @property
    def root(self) -> Path:
        return self._root

    @property
    def repo_rev(self) -> str:
        return self._repo_rev

    @property
    def index_rev(self) -> str:
        return hash_obj([c.id for c in self._chunks])

    @property
    def graph(self) -> nx.MultiDiGraph:
        return self._graph

    @property
    def has_embeddings(self) -> bool:
        return self._vectors is not None

    def files(self) -> Sequence[FileRecord]:
        return [FileRecord(path=p, content_hash=digest(t), size=len(t), kind=_file_kind(p))  # type: ignore[arg-type]
                for p, t in self._files.items()]

    def chunks(self) -> Sequence[Chunk]:
        return list(self._chunks)

    def chunk(self, chunk_id: str) -> Chunk:
        return self._by_id[chunk_id]

    def chunks_for_path(self, path: str) -> Sequence[Chunk]:
        return [c for c in self._chunks if c.path == path]

    def chunk_for_node(self, node_id: str) -> Chunk | None:
        ids = self._graph.nodes[node_id].get("chunk_ids", []) if node_id in self._graph else []
        return self._by_id[ids[0]] if ids else None

    def search_bm25(self, query: str, k: int) -> list[Hit]:
        toks = tokenize(query)
        if not toks:
            return []
        scores = self._bm25.get_scores(toks)
        order = sorted((i for i in range(len(self._chunks)) if scores[i] > 0),
                       key=lambda i: (-scores[i], self._chunks[i].id))[:k]
        return [Hit(chunk_id=self._chunks[i].id, score=float(scores[i]), channel="bm25",
                    rank=r + 1) for r, i in enumerate(order)]

    def search_files(self, query: str, k: int) -> list[tuple[str, float]]:
        return self._file_bm25.search(query, k)

    def search_dense(self, query: str, k: int) -> list[Hit]:
        if self._vectors is None or self._embedder is None or not query.strip():
            return []
        return self.search_vector(self._embedder.embed([query])[0], k)

    def search_vector(self, vector: np.ndarray, k: int) -> list[Hit]:
        if self._vectors is None:
            return []
        scores = self._vectors @ vector
        order = sorted(range(len(self._chunks)), key=lambda i: (-scores[i], self._chunks[i].id))
        return [Hit(chunk_id=self._chunks[i].id, score=float(scores[i]), channel="dense",
                    rank=r + 1) for r, i in enumerate(order[:k])]

    def find_definitions(self, name: str, *, fuzzy: bool = False,
                         limit: int = 20) -> list[SymbolDef]:
        exact = [d for d in self._defs if name in (d.name, d.qualname)]
        if not exact and fuzzy:
            low = name.lower().replace("_", "")
            exact = [d for d in self._defs if low in d.name.lower().replace("_", "")]
        return sorted(exact, key=lambda d: (d.path, d.start_line, d.qualname))[:limit]

    def references_to(self, name: str) -> list[SymbolRef]:
        return sorted((r for r in self._refs if name in (r.name, r.name.rsplit(".", 1)[-1])),
                      key=lambda r: (r.path, r.line, r.name))


def write_repo(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root
