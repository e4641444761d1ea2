"""The controller's tools: one request in, a ranked list of chunks out.

Channels: bm25, dense (only with a query embedder and an index that has embeddings), symbol
(exact definitions, fuzzy when none), path (chunks of files the question names), graph (1-hop
neighbours of a definition: tests, callers, documenting sections, importers). Each request may be
restricted to chunk kinds and a path prefix; restricted searches over-fetch, then cut.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Literal

from controller import reasons as why
from controller.dense_adapter import DenseMode, union_hits
from controller.dense_adapter import shipped as shipped_adapter
from controller.evidence import is_test
from controller.members import verb_members
from controller.name_words import name_table
from controller.prf import prf_chunks
from controller.reasons import Reason
from controller.revision_cache import PerRevision
from controller.text import held_at_most, name_tokens, token_set
from helix.core.english import QUESTION_LEADS, stems
from helix.core.errors import ConfigError
from helix.core.policy import Pools
from helix.core.ports import Embedder
from helix.core.schemas import Chunk, ChunkHead, Frozen, Hit, SymbolDef
from indexers.api import IndexReader
from indexers.tokenize import tokenize

ChannelName = Literal["bm25", "dense", "symbol", "path", "graph", "refs", "files",
                      "file_bm25", "path_words", "test_targets", "name_words", "prf",
                      "test_files"]
REF_VERBS = {"call": "calls", "import": "imports", "attribute": "references",
             "name": "references", "type": "references"}
Pair = tuple[Chunk, tuple[Reason, ...]]
# Pool sizes and decays are policy (helix.core.policy.Pools, in the settings):
# files: BM25 chunk hits pooled per file; a file's score sums its best few chunks' scores, so a
# file that matches the query in several places outranks one lucky chunk elsewhere.
# file_bm25: whole files ranked by the index's file-level BM25; each file is shown by its best
# chunk among the pooled chunk-BM25 hits (else the chunk sharing most query words).
# Graph neighbours, in the order they are listed: edge kind, direction, reason verb.
GRAPH_EDGES = (("tests", "tests"), ("calls", "calls"), ("documents", "documents"))


class Request(Frozen):
    channel: ChannelName
    query: str  # search text; a symbol name; a path hint; a graph node id
    k: int
    kinds: tuple[str, ...] = ()  # only these chunk kinds (empty: all)
    prefixes: tuple[str, ...] = ()  # only paths under one of these prefixes
    # path: match name words anywhere in the path; symbol: close names when no exact one
    fuzzy: bool = False
    # symbol: keep a definition only if its span or path also carries these words ("denoise"
    # for "denoise stage" must mention a stage)
    must: tuple[str, ...] = ()
    # drop test files (the question does not ask about tests)
    no_tests: bool = False
    # symbol, fuzzy: the question's content words; close names whose parts hold more of them
    # come first
    context: tuple[str, ...] = ()
    # symbol: the name is only a capitalised question word ("How does Reflex ..."): dropped
    # when it is the project's own name, not one of its classes (`indexers.project`)
    capitalised: bool = False
    # symbol, `Owner.verb`: also the owner's other members named for the verb that product
    # code calls, those product code calls most first (`controller.members`)
    members: bool = False


class Found(Frozen):
    chunk: Chunk
    rank: int  # 1-based in this request's list
    reasons: tuple[Reason, ...] = ()


class RequestResult(Frozen):
    request: Request
    found: tuple[Found, ...]


def _keep(chunk: Chunk | ChunkHead, request: Request) -> bool:
    if request.kinds and chunk.kind not in request.kinds:
        return False
    return not request.prefixes or chunk.path.startswith(request.prefixes)


def _restricted(request: Request) -> bool:
    return bool(request.kinds or request.prefixes)


def _from_hits(index: IndexReader, hits: list[Hit], request: Request) -> list[Chunk]:
    out: list[Chunk] = []
    step = max(request.k, 1)
    for at in range(0, len(hits), step):  # read a list's length at a time, not all of them
        for chunk in index.chunks_by_id([hit.chunk_id for hit in hits[at:at + step]]):
            if _keep(chunk, request):
                out.append(chunk)
            if len(out) >= request.k:
                return out
    return out


def _dense(index: IndexReader, request: Request, embedder: Embedder | None,
           pools: Pools, adapter: DenseMode = "off") -> list[Hit]:
    """The dense hits; with `adapter` (`dense_mode`: retrieval.dense_adapter) the question's
    vector is embedded here, passed through the shipped adapter (`controller.dense_adapter`),
    then searched; without it the index embeds the question itself, as before. `union`: the plain
    vector's and the adapted vector's lists as one (`union_hits`)."""
    if embedder is None or not request.query.strip():
        return []
    k = request.k * pools.overfetch if _restricted(request) else request.k
    if adapter == "off":
        return index.search_dense(request.query, k)
    turn = shipped_adapter()
    vector = embedder.embed([request.query])[0]
    if vector.shape[-1] != turn.dim:
        raise ConfigError(f"dense adapter fitted for {turn.dim}-dimensional vectors; the "
                          f"query embedder gives {vector.shape[-1]} (retrieval.dense_adapter)")
    adapted = index.search_vector(turn.apply(vector), embedder.model_key, k)
    if adapter != "union":
        return adapted
    return union_hits(index.search_vector(vector, embedder.model_key, k), adapted, k)


def module_of(path: str) -> str:
    """A file's module path: `http/client.py` -> `http/client`, `pkg/__init__.py` -> `pkg`."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return stem[: -len("/__init__")] if stem.endswith("/__init__") else stem


def module_definitions(index: IndexReader, dotted: str, limit: int) -> list[SymbolDef]:
    """`functools.partial`, `http.client.HTTPConnection.putheader`: a name qualified by its
    module. The longest module prefix that names a file's module path (its last parts) and
    still leaves a definition of the rest in that file wins; [] when none does."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module, rest = "/".join(parts[:cut]), ".".join(parts[cut:])
        found = [d for d in index.find_definitions(rest, limit=limit)
                 if (m := module_of(d.path)) == module or m.endswith("/" + module)]
        if found:
            return found
    return []


def fuzzy_order(defs: Sequence[SymbolDef], context: frozenset[str]) -> list[SymbolDef]:
    """Close names' definitions, those whose name parts hold more of the question's other
    words (`context`: not the name asked for) first ("the event class that handles WebSocket
    message errors": `WebSocketFrameError` before `WebSocketClosed`), then shorter names
    (closer to the name asked for), then path. Measured on the natural-question dev set (no
    embeddings): span@5 0.618 -> 0.632, symbol@5 0.624 -> 0.639, file@1 0.510 -> 0.503 (one
    question 1 -> 2); the eval suites unchanged but helix_self's pass rate (0.35 -> 0.40)."""
    return sorted(defs, key=lambda d: (-len(name_tokens(d.qualname) & context),
                                       len(d.qualname), d.path, d.start_line, d.qualname))


def _mentions(chunk: Chunk, must: Sequence[str]) -> bool:
    return not must or all(w in token_set(f"{chunk.text} {chunk.path}") for w in must)


def _members(index: IndexReader, request: Request) -> list[Pair]:
    owner, member = request.query.rsplit(".", 1)
    out: list[Pair] = []
    for found in verb_members(index.graph, index.find_definitions(owner), member):
        chunk = index.chunk_for_node(found.node_id)
        if chunk is not None and _keep(chunk, request) and _mentions(chunk, request.must):
            out.append((chunk, (Reason(code="symbol_exact"),
                                Reason(code="defines", name=found.qualname))))
    return out[:request.k]


def _symbol(index: IndexReader, request: Request, pools: Pools) -> list[Pair]:
    if request.capitalised and request.query.lower() in index.project_names():
        return []
    if request.members and pools.verb_members and "." in request.query.strip("."):
        found = _members(index, request)
        if found:
            return found
    defs = index.find_definitions(request.query)
    how: why.ReasonCode = "symbol_exact"
    if not defs and "." in request.query.strip("."):
        # `Owner.member` of a nested owner (`Outer.Owner.member`), then a dotted module name
        tail = "." + request.query
        defs = [d for d in index.find_definitions(request.query.rsplit(".", 1)[-1],
                                                  limit=pools.module_def_limit)
                if d.qualname.endswith(tail)]
        defs = defs or module_definitions(index, request.query, pools.module_def_limit)
    asked = token_set(request.query) | name_tokens(request.query)
    # same-named definitions: those whose qualified name holds more of the question's other
    # words first (`toResponse` asked with "UnauthorizedExceptionExceptionMapper")
    order = fuzzy_order(defs, frozenset(request.context) - asked)
    if not defs and request.fuzzy:
        if pools.fuzzy_names:
            defs = index.find_definitions(request.query, fuzzy=True, names=pools.fuzzy_names,
                                          limit=pools.module_def_limit)
            order = fuzzy_order(defs, frozenset(request.context) - asked)
        else:
            defs = index.find_definitions(request.query, fuzzy=True)
            order = sorted(defs, key=lambda d: (d.path, d.start_line, d.qualname))
        how = "symbol_fuzzy"
    out: list[Pair] = []
    for d in order:
        chunk = index.chunk_for_node(d.node_id)
        if chunk is not None and _keep(chunk, request) and _mentions(chunk, request.must):
            out.append((chunk, (Reason(code=how), Reason(code="defines", name=d.qualname))))
    return out[:request.k]


def path_matches(path: str, hint: str, fuzzy: bool) -> bool:
    low, want = path.lower(), hint.lower().strip("/")
    name = low.rsplit("/", 1)[-1]
    if fuzzy:
        words = [w for w in re.split(r"[^a-z0-9]+", want) if w]
        parts = set(re.split(r"[^a-z0-9]+", low))
        return bool(words) and all(w in parts for w in words)
    if (low == want or low.endswith("/" + want) or name == want
            or name.split(".", 1)[0] == want):
        return True
    # a dotted module name (`http.client`, `email.mime.text`) names a module path
    dotted = want.replace(".", "/")
    module = module_of(low)
    return "." in want and "/" not in want and (module == dotted or module.endswith("/" + dotted))


def _path(index: IndexReader, request: Request) -> list[Pair]:
    out: list[Pair] = []
    hint = (Reason(code="path_hint"),)
    for record in index.files():
        if path_matches(record.path, request.query, request.fuzzy):
            out.extend((c, hint) for c in index.chunks_for_path(record.path)
                       if _keep(c, request))
    out.sort(key=lambda pair: (pair[0].path, pair[0].start_line, pair[0].id))
    return out[:request.k]


def _graph(index: IndexReader, request: Request) -> list[Pair]:
    graph = index.graph
    node = request.query
    if node not in graph:
        return []
    title = str(graph.nodes[node].get("title") or node)
    neighbours: list[tuple[str, Reason]] = []
    for edge_kind, verb in GRAPH_EDGES:
        sources = sorted({u for u, _, key in graph.in_edges(node, keys=True) if key == edge_kind})
        neighbours.extend((u, Reason(code="neighbour", edge=verb, name=title)) for u in sources)
    file_node = f"file:{graph.nodes[node].get('path', '')}"
    if file_node in graph:
        importers = sorted({u for u, _, key in graph.in_edges(file_node, keys=True)
                            if key == "imports"})
        neighbours.extend((u, Reason(code="neighbour", edge="imports", name=file_node[5:]))
                          for u in importers)
    out: list[Pair] = []
    seen: set[str] = set()
    for neighbour, reason in neighbours:
        chunk = index.chunk_for_node(neighbour)
        if chunk is None and neighbour.startswith("file:"):
            chunks = index.chunks_for_path(neighbour[5:])
            chunk = chunks[0] if chunks else None
        if chunk is not None and chunk.id not in seen and _keep(chunk, request):
            seen.add(chunk.id)
            out.append((chunk, (reason,)))
    return out[:request.k]


def _refs(index: IndexReader, request: Request) -> list[Pair]:
    """Reference sites of a name -> the smallest chunk holding each site's line."""
    out: list[Pair] = []
    seen: set[str] = set()
    for ref in index.references_to(request.query):
        spans = [c for c in index.chunks_for_path(ref.path)
                 if c.start_line <= ref.line <= c.end_line and _keep(c, request)]
        if not spans:
            continue
        chunk = min(spans, key=lambda c: (c.end_line - c.start_line, c.start_line, c.id))
        if chunk.id in seen:
            continue
        seen.add(chunk.id)
        verb = REF_VERBS.get(ref.kind, "references")
        out.append((chunk, (Reason(code="reference", edge=verb, name=request.query,
                                   line=ref.line),)))
        if len(out) >= request.k:
            break
    return out


def _files(index: IndexReader, request: Request, pools: Pools) -> list[Pair]:
    """Files ranked by their pooled BM25 mass, each represented by its best chunk."""
    per_file: dict[str, list[tuple[float, ChunkHead]]] = {}
    only_tests = request.channel == "test_files"  # test files only, looked for deeper
    hits = index.search_bm25_scores(request.query,
                                    pools.file_pool * (pools.overfetch if only_tests else 1))
    for (_, score), head in zip(hits, index.chunk_heads([cid for cid, _ in hits]), strict=True):
        if (not _keep(head, request) or (request.no_tests and is_test(head))
                or (only_tests and not is_test(head))):
            continue
        per_file.setdefault(head.path, []).append((score, head))
    ranked: list[tuple[float, str, ChunkHead]] = []
    for path, items in per_file.items():
        scores = sorted((s for s, _ in items), reverse=True)[:pools.file_top_chunks]
        mass = sum(s * pools.file_decay ** n for n, s in enumerate(scores))
        best = min(items, key=lambda pair: (-pair[0], pair[1].start_line, pair[1].id))[1]
        ranked.append((round(mass, 6), path, best))
    ranked.sort(key=lambda t: (-t[0], t[1]))
    shown = index.chunks_by_id([head.id for _, _, head in ranked[:request.k]])
    return [(chunk, ()) for chunk in shown]


def _best_chunk(index: IndexReader, path: str, request: Request, words: frozenset[str],
                pooled: dict[str, str]) -> Chunk | None:
    if path in pooled:
        return index.chunk(pooled[path])
    candidates = [c for c in index.chunks_for_path(path) if _keep(c, request)]
    if not candidates:
        return None
    # the chunk holding the most query words (then the first): tokenized best bound first,
    # until no bound can reach the best count (a cold file's chunks cost their tokenizing)
    bounded = sorted((-held_at_most(words, c.text), c.start_line, c.id, c) for c in candidates)
    best: tuple[int, int, str, Chunk] | None = None
    for bound, line, cid, chunk in bounded:
        if best is not None and bound > best[0]:
            break
        key = (-len(words & token_set(chunk.text)), line, cid, chunk)
        if best is None or key[:3] < best[:3]:
            best = key
    assert best is not None
    return best[3]


def _file_bm25(index: IndexReader, request: Request, pools: Pools) -> list[Pair]:
    """Files ranked by whole-file BM25, each represented by its best chunk for the query."""
    k = request.k * pools.overfetch if (_restricted(request) or request.no_tests) else request.k
    files = index.search_files(request.query, k)
    if not files:
        return []
    pooled: dict[str, str] = {}  # a path -> its best chunk among the chunk hits
    hits = index.search_bm25_scores(request.query, pools.file_bm25_pool)  # best first
    for head in index.chunk_heads([cid for cid, _ in hits]):
        if head.path not in pooled and _keep(head, request):
            pooled[head.path] = head.id
    return _files_shown(index, [path for path, _score in files], request, pooled)


def _files_shown(index: IndexReader, paths: Iterable[str], request: Request,
                 pooled: dict[str, str]) -> list[Pair]:
    """Ranked files, each shown by its best chunk for the query (tests left out when the
    request says so), up to `request.k`."""
    words = token_set(request.query)
    out: list[Pair] = []
    for path in paths:
        best = _best_chunk(index, path, request, words, pooled)
        if best is None or (request.no_tests and is_test(best)):
            continue
        out.append((best, ()))
        if len(out) >= request.k:
            break
    return out


class PathTable:
    """Each file's path words (directories and stem, split like identifiers, plurals folded),
    each word's idf over the files (a word most files' paths share says little), and the
    files under each word: built once per index revision, not once per question."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.words = {path: frozenset(stems(t)[0] for t in
                                      tokenize(module_of(path).replace("/", " ")))
                      for path in paths}
        self.under: dict[str, list[str]] = {}
        for path, tokens in self.words.items():
            for token in tokens:
                self.under.setdefault(token, []).append(path)
        n = max(len(paths), 1)
        self.idf = {t: math.log(1.0 + n / len(ps)) for t, ps in self.under.items()}

    def ranked(self, query: set[str]) -> Iterator[str]:
        """The files sharing a word with `query`, by the summed idf of the shared words
        (then by path), in order as they are taken: a question reads the first few of
        thousands, so they come off a heap instead of a sort of them all."""
        candidates = {path for t in query for path in self.under.get(t, ())}
        heap = [(-round(sum(self.idf[t] for t in query & self.words[path]), 9), path)
                for path in candidates]
        heapq.heapify(heap)
        while heap:
            yield heapq.heappop(heap)[1]


_PATH_TABLES: PerRevision[PathTable] = PerRevision(
    lambda index: PathTable(sorted(r.path for r in index.files())))


def path_table(index: IndexReader) -> PathTable:
    """The path table of the index's revision, built on first use (`controller.revision_cache`)."""
    return _PATH_TABLES(index)


def _path_words(index: IndexReader, request: Request, pools: Pools) -> list[Pair]:
    """Files whose path words (directories, stem) the query uses ("the websocket close code"
    -> `websockets.py`, "percent encoding in urlparse" -> `_urlparse.py`): scored by the idf
    of the shared words, each file shown by its best chunk for the query."""
    query = {stems(t)[0] for t in tokenize(request.query)
             if len(t) >= pools.path_word_min_chars}
    if not query:
        return []
    return _files_shown(index, path_table(index).ranked(query), request, {})


def _test_targets(index: IndexReader, request: Request, pools: Pools) -> list[Pair]:
    """What the tests most like the query exercise: BM25 over test chunks, then each test's
    `tests` edges to the definitions it calls (a report often reads like its test)."""
    graph = index.graph
    out: list[Pair] = []
    seen: set[str] = set()
    tests = index.chunks_by_id([cid for cid, _ in index.search_bm25_scores(request.query,
                                                                         pools.test_pool)])
    for test in [c for c in tests if is_test(c)][:pools.test_seeds]:
        if test.node_id not in graph:
            continue
        targets = sorted({v for _, v, key in graph.out_edges(test.node_id, keys=True)
                          if key == "tests"})
        for target in targets:
            chunk = index.chunk_for_node(target)
            if chunk is None or chunk.id in seen or not _keep(chunk, request):
                continue
            seen.add(chunk.id)
            out.append((chunk, (Reason(code="neighbour", edge="tested by", name=test.path),)))
    return out[:request.k]


def _name_words(index: IndexReader, request: Request, pools: Pools) -> list[Pair]:
    """Definitions whose names spell the query's content words (`controller.name_words`)."""
    words = token_set(request.query) - QUESTION_LEADS - index.project_names()
    out: list[Pair] = []
    seen: set[str] = set()
    for _score, definition in name_table(index).rank(words, pools.name_words_pool):
        chunk = index.chunk_for_node(definition.node_id)
        if (chunk is None or chunk.id in seen or not _keep(chunk, request)
                or (request.no_tests and is_test(chunk))):
            continue
        seen.add(chunk.id)
        out.append((chunk, ()))
        if len(out) >= request.k:
            break
    return out


def execute(index: IndexReader, request: Request, embedder: Embedder | None,
            pools: Pools | None = None,
            dense_adapter: DenseMode = "off") -> RequestResult:
    """Run one request against the index; the result's ranks are 1..n in list order.
    `dense_adapter`: the dense channel's question vector through the shipped adapter
    (`adapted`), or both lists as one (`union`; see `dense_mode`)."""
    pools = pools or Pools()
    pairs: list[Pair]
    if request.channel == "bm25":
        k = request.k * pools.overfetch if _restricted(request) else request.k
        pairs = [(c, ()) for c in _from_hits(index, index.search_bm25(request.query, k), request)]
    elif request.channel == "dense":
        hits = _dense(index, request, embedder, pools, dense_adapter)
        pairs = [(c, ()) for c in _from_hits(index, hits, request)]
    elif request.channel == "symbol":
        pairs = _symbol(index, request, pools)
    elif request.channel == "path":
        pairs = _path(index, request)
    elif request.channel == "refs":
        pairs = _refs(index, request)
    elif request.channel in ("files", "test_files"):
        pairs = _files(index, request, pools)
    elif request.channel == "file_bm25":
        pairs = _file_bm25(index, request, pools)
    elif request.channel == "path_words":
        pairs = _path_words(index, request, pools)
    elif request.channel == "test_targets":
        pairs = _test_targets(index, request, pools)
    elif request.channel == "name_words":
        pairs = _name_words(index, request, pools)
    elif request.channel == "prf":
        pairs = [(c, ()) for c in prf_chunks(index, request.query, request.k, pools,
                                             lambda h: _keep(h, request))]
    else:
        pairs = _graph(index, request)
    found = tuple(Found(chunk=c, rank=i, reasons=r) for i, (c, r) in enumerate(pairs, start=1))
    return RequestResult(request=request, found=found)
