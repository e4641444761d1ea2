"""Doc-to-code alignment (plan phase 5): identifiers named in doc spans -> definitions + tests.

For each doc/tree evidence span, the identifiers it names (backticked names, CamelCase,
snake_case, dotted names, `name()` calls) are looked up with `find_definitions` (exact); the
first `proof_spans_per_doc` definitions become proof spans (relation "definition"), and the
tests that exercise each one (graph `tests` edges into the definition) become "test" spans.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

from controller.evidence import DOC_CHUNK_KINDS, Candidate
from controller.reasons import Reason
from controller.text import is_identifier
from helix.core.envelope import ProofSpan
from helix.core.schemas import Chunk, SymbolDef
from indexers.api import IndexReader

_BACKTICKED = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)(?:\(\))?`")
_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_.]*)\(\)")
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\b")


def named_identifiers(text: str) -> list[str]:
    """Identifiers a doc span names, in order of first appearance."""
    return list(_named(text))


@functools.lru_cache(maxsize=4096)  # a span is read for its proof spans and its names alike
def _named(text: str) -> tuple[str, ...]:
    found: list[tuple[int, str]] = []
    for pattern in (_BACKTICKED, _CALL):
        found += [(m.start(), m.group(1)) for m in pattern.finditer(text)]
    found += [(m.start(), m.group(0)) for m in _WORD.finditer(text) if is_identifier(m.group(0))]
    ordered = [name for _, name in sorted(found, key=lambda x: (x[0], x[1]))]
    return tuple(dict.fromkeys(n.rstrip(".") for n in ordered))


def distinctive(name: str) -> bool:
    """A name no prose would use by accident: snake_case, camelCase, dotted or capitalised."""
    return "_" in name or "." in name or name != name.lower()


def _placed(d: SymbolDef, doc_text: str) -> bool:
    """The doc also names where the definition lives: its class for a method, else its file's
    stem, as a whole word. A plain word such as `get` or `path` is a reference only then."""
    owner = d.qualname.split(".")[-2] if "." in d.qualname else d.path.rsplit("/", 1)[-1]
    owner = owner.split(".", 1)[0].lower()
    return bool(owner) and re.search(rf"(?<![\w]){re.escape(owner)}(?![\w])", doc_text) is not None


def _span(doc: Chunk, symbol: str, chunk: Chunk, relation: str) -> ProofSpan:
    return ProofSpan(doc_chunk_id=doc.id, symbol=symbol, path=chunk.path,
                     start_line=chunk.start_line, end_line=chunk.end_line, node_id=chunk.node_id,
                     content_hash=chunk.content_hash, relation=relation)  # type: ignore[arg-type]


def aligned_definitions(index: IndexReader, doc: Chunk) -> Iterator[tuple[str, SymbolDef]]:
    """The definitions a doc span names, first named first, as (name as written, definition):
    a name is bound only when it resolves to exactly one definition (a doc naming `get`
    proves nothing when several things are called `get`, and never an arbitrary first), and
    a plain word only when the doc also names where it lives."""
    doc_text = f"{doc.text} {' '.join(doc.heading_path)}".lower()
    for name in named_identifiers(doc.text):
        defs = index.find_definitions(name, limit=2)
        if len({d.node_id for d in defs}) != 1:
            continue
        if not distinctive(name) and not _placed(defs[0], doc_text):
            continue
        yield name, defs[0]


def align(index: IndexReader, evidence: Sequence[Candidate],
          per_doc: int, tests_per_symbol: int = 1
          ) -> tuple[list[ProofSpan], list[tuple[Chunk, Reason]]]:
    """Proof spans for doc evidence, and the code chunks to add as evidence (with a reason)."""
    spans: list[ProofSpan] = []
    chunks: list[tuple[Chunk, Reason]] = []
    graph = index.graph
    for cand in evidence:
        doc = cand.chunk
        if doc.kind not in DOC_CHUNK_KINDS:
            continue
        attached = 0
        for _, d in aligned_definitions(index, doc):
            if attached >= per_doc:
                break
            code = index.chunk_for_node(d.node_id)
            if code is None or code.path == doc.path:
                continue
            spans.append(_span(doc, d.qualname, code, "definition"))
            chunks.append((code, Reason(code="aligned", name=d.qualname, source=doc.path)))
            attached += 1
            if d.node_id in graph:
                testers = sorted({u for u, _, key in graph.in_edges(d.node_id, keys=True)
                                  if key == "tests"})
                for tester in testers[:tests_per_symbol]:
                    test_chunk = index.chunk_for_node(tester)
                    if test_chunk is not None:
                        spans.append(_span(doc, d.qualname, test_chunk, "test"))
                        chunks.append((test_chunk, Reason(code="aligned_test",
                                                          name=d.qualname)))
    unique = {(s.doc_chunk_id, s.relation, s.path, s.start_line, s.symbol): s for s in spans}
    return [unique[k] for k in sorted(unique)], chunks
